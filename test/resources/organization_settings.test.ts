/** organization_settings: ranges at their edges, partial updates, and the user-token fields. */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const PATH = `${CONFIG}/organization_settings`;

t.test('each limit of the spec holds exactly at its edges', async (t) => {
  const api = await (await vigil.organization()).key();
  const edges: [string, unknown[], unknown[]][] = [
    ['alert_storm_threshold', [3, 1000], [2, 3.5]],
    ['alert_storm_window_seconds', [60, 3600], [59, 3601]],
    ['alert_refire_cooldown_minutes', [0, 1440], [-1, 1441]],
    ['automation_approval_ttl_minutes', [5, 1440], [4, 1441]],
    ['investigation_cooldown_minutes', [0, 1440], [-1, 1441]],
    ['monthly_ai_budget_usd', [1, 2500.5, null], [0.99, 0]],
    ['ai_budget_warn_percent', [1, 100], [0, 101]],
    ['incident_severity_floor', ['critical', 'high'], ['low', 'CRITICAL']],
    ['timezone', ['Europe/Berlin', 'UTC', 'America/Argentina/Buenos_Aires'], ['Berlin', 'GMT+25', '']],
  ];
  for (const [field, good, bad] of edges) {
    for (const value of good) {
      const answer = await api.put(PATH, { [field]: value });
      t.equal(answer.status, 200, `${field} = ${JSON.stringify(value)} accepted`);
      t.same(answer.body.data[field], value);
    }
    for (const value of bad) {
      const answer = await api.put(PATH, { [field]: value });
      t.equal(answer.status, 422, `${field} = ${JSON.stringify(value)} refused`);
      t.same(answer.body.errors.map((e: { field: string }) => e.field), [field]);
    }
  }
});

t.test('omitted fields keep their value; every refused field is named at once; nothing is half-written', async (t) => {
  const api = await (await vigil.organization()).key();
  await api.put(PATH, { alert_storm_threshold: 9, investigation_paused: true });
  const partial = await api.put(PATH, { auto_open_incidents: true });
  t.match(partial.body.data, { alert_storm_threshold: 9, investigation_paused: true, auto_open_incidents: true });
  const refused = await api.put(PATH, { alert_storm_threshold: 50, alert_storm_window_seconds: 1, ai_budget_warn_percent: 0 });
  t.same(refused.body.errors.map((e: { field: string }) => e.field), ['alert_storm_window_seconds', 'ai_budget_warn_percent']);
  t.equal((await api.get(PATH)).body.data.alert_storm_threshold, 9, 'the valid field in a refused request was not written');
});

t.test('the sign-up policies need a user token', async (t) => {
  const api = await (await vigil.organization()).key();
  for (const field of ['restrict_domain_signups', 'social_joins_enabled']) {
    const answer = await api.put(PATH, { [field]: true, alert_storm_threshold: 4 });
    t.equal(answer.status, 403);
    t.equal(answer.body.error, 'user_token_required');
    t.equal(answer.body.errors[0].field, field);
  }
  t.equal((await api.get(PATH)).body.data.alert_storm_threshold, 10, 'nothing else in the refused request was written');
});
