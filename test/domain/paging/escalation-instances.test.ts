/**
 * Steps run exactly once across instances: two service instances on one PostgreSQL database, 200 escalations pending,
 * passes run on both at once, and one instance "dies" holding a claim (its transaction, which has locked due rows with
 * FOR UPDATE SKIP LOCKED, ends without committing, as a killed process's connection does) while the other runs. Every
 * step must still fire, and none twice — checked from the SMTP receiver's log: each alert appears exactly once in each
 * person's mail per step. This is the in-process form of the SIGKILL test (two `vigil serve` processes cannot
 * share an injected clock); PostgreSQL only, as the embedded database serves one instance.
 */
import t from 'tap';
import { inTransaction } from '../../../engine/operations/context.ts';
import { runEscalations } from '../../../domain/paging/escalations.ts';
import { CONFIG, scratchStorage, startVigil } from '../../helpers/harness.ts';
import { waitFor } from '../../helpers/jobs.ts';
import { alertmanager } from '../../helpers/outbound.ts';
import { startSmtp } from '../../helpers/smtp.ts';

const ADMIN = '/api/admin/v1';
const N = 200;
const twoInstances = process.env.DATABASE_URL ? false : 'PostgreSQL only (set DATABASE_URL): the embedded database serves one instance';

t.test('200 escalations, two instances, one dying mid-claim: every step once', { skip: twoInstances }, async (t) => {
  const smtp = await startSmtp();
  const storage = await scratchStorage();
  const email = { smtpUrl: smtp.url, from: 'Vigil <paging@acme.example>' };
  const a = await startVigil({ storage, email });
  const b = await startVigil({ storage, email });
  t.teardown(async () => {
    await a.close();
    await b.close();
    await storage.drop();
    await smtp.close();
  });
  const org = await a.organization();
  const api = await org.key(['api:admin']);
  const people: string[] = [];
  for (const name of ['ann', 'bob']) {
    const address = `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    t.equal((await a.operator.post(`${ADMIN}/users`, { email: address })).status, 201);
    t.equal((await api.post(`${CONFIG}/team_members`, { email: address, role: 'member' })).status, 201);
    people.push(address);
  }
  const [ann, bob] = people as [string, string];
  const policy = await api.post(`${CONFIG}/escalation_policies`, { name: 'Two', steps: [{ delay_minutes: 0, targets: [{ email: ann }] }, { delay_minutes: 5, targets: [{ email: bob }] }] });
  t.equal(policy.status, 201);
  const team = await api.post(`${CONFIG}/teams`, { name: 'Payments', escalation_policy_id: policy.body.data.id });
  t.equal((await api.post(`${CONFIG}/alert_routes`, { name: 'all', team_id: team.body.data.id, matchers: [{ field: 'source', operator: 'contains', value: 'metric' }] })).status, 201);
  // storms would group them: raise the threshold out of reach
  t.equal((await api.put(`${CONFIG}/organization_settings`, { alert_storm_threshold: 1000 })).status, 200);
  const names = Array.from({ length: N }, (_, i) => `Alert${String(i).padStart(3, '0')}`);
  for (let i = 0; i < N; i += 50) {
    const res = await fetch(`${a.url}/webhooks/metric-dashboard/${org.webhookToken}`, {
      method: 'POST', headers: { 'user-agent': 'Alertmanager/0.27.0', 'content-type': 'application/json' }, body: JSON.stringify(alertmanager(names.slice(i, i + 50).map((name) => ({ name })))),
    });
    t.equal(res.status, 200);
  }

  const both = () => Promise.all([runEscalations(a.running.services), runEscalations(b.running.services)]);
  const advance = (ms: number) => {
    a.clock.advance(ms);
    b.clock.advance(ms);
  };
  /** Instance A claims up to 80 due escalations and dies before committing, while B runs a pass. */
  const dieHoldingClaims = async () => {
    const died = inTransaction(a.running.services, async (store) => {
      const claimed = await store.execute(`select id from paging_escalations where state = 'active' and next_at <= ? order by next_at limit 80 for update skip locked`, [a.clock.now()]);
      t.ok(claimed.length > 0, 'the dying instance holds claims');
      await runEscalations(b.running.services);
      throw new Error('killed');
    });
    await t.rejects(died, /killed/);
  };

  // step 1 for all 200: A dies holding some; both run
  await dieHoldingClaims();
  await both();
  advance(6_000);
  await both();
  await both();
  // step 2, 5 minutes on
  advance(5 * 60_000);
  await dieHoldingClaims();
  await both();
  advance(6_000);
  await both();
  await both();

  const mentions = (to: string) => {
    const seen = new Map<string, number>();
    for (const m of smtp.messages.filter((m) => m.to.includes(to))) for (const name of m.text.match(/Alert\d{3}/g) ?? []) seen.set(name, (seen.get(name) ?? 0) + 1);
    return seen;
  };
  await waitFor(() => mentions(ann).size === N && mentions(bob).size === N, 'every alert paged to both', 60_000);
  await new Promise((r) => setTimeout(r, 500));
  t.same([...mentions(ann).values()].filter((c) => c !== 1), [], 'each alert in ann\'s mail exactly once (step 1)');
  t.same([...mentions(bob).values()].filter((c) => c !== 1), [], 'each alert in bob\'s mail exactly once (step 2)');
  t.equal(mentions(ann).size, N);
  t.equal(mentions(bob).size, N);
  const rows = await a.running.services.db.em.getConnection().execute(`select state, count(*)::int as n from paging_escalations group by state`);
  t.same(rows, [{ state: 'done', n: N }], 'every escalation ran to its end');
  // bundling held across instances: a person's messages on a method are at least a bundle window apart, never two
  // from two instances deciding at once (dispatch.ts takes the person's lock)
  const bundles = await a.running.services.db.em.getConnection().execute(`select email, method_key, sent_at from paging_bundles order by email, method_key, sent_at`);
  const close: string[] = [];
  bundles.forEach((m, i) => {
    const before = bundles[i - 1];
    if (before && before.email === m.email && before.method_key === m.method_key && new Date(m.sent_at).getTime() - new Date(before.sent_at).getTime() < 5_000) close.push(`${m.email} at ${m.sent_at}`);
  });
  t.ok(bundles.length >= 2, 'messages were sent');
  t.same(close, [], 'no two messages to one person on one method inside 5 seconds');
});
