/**
 * A new page's first step runs as the pipeline commits, not at the next pass: with the pass on (as a deployment runs
 * it, but an hour apart) and a person whose only method is a webhook to a local receiver, every one of 20 pages
 * reaches the receiver within seconds, which only the in-process path can do; the time from the alert's webhook
 * delivery to the receiver's request is printed (about 80 ms on a quiet machine). The latency under load is the
 * benchmark's (npm run bench:paging): a bound in milliseconds here would measure the machine, not the path.
 */
import t from 'tap';
import { client, CONFIG, startVigil } from '../../helpers/harness.ts';
import { waitFor } from '../../helpers/jobs.ts';
import { alertOrg } from '../../helpers/outbound.ts';
import { startReceiver } from '../../helpers/receiver.ts';

const receiver = await startReceiver(200);
t.teardown(() => receiver.close());
const vigil = await startVigil({ webhooks: { checks: { tickSeconds: 3600 } } });
t.teardown(() => vigil.close());

/** when the receiver got the page of the alert with this title */
const receivedAt = (title: string) => receiver.requests.find((r) => JSON.parse(r.body).alerts?.some((a: { title: string }) => a.title === title))?.at;

t.test('from the alert to the first provider request without waiting for a tick', async (t) => {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const email = `fp-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await vigil.operator.post('/api/admin/v1/users', { email });
  await org.create('team_members', { email, role: 'member' });
  const token = (await vigil.operator.post(`/api/admin/v1/users/${user.body.id}/tokens`, { name: 't', organizations: [org.id], max_role: 'unlimited' })).body.token as string;
  const me = client(vigil.url, token);
  const hook = (await me.post('/api/v1/me/contact_methods', { type: 'webhook', name: 'hook', address: `${receiver.url}/fp` })).body.data;
  t.equal((await me.post('/api/v1/me/notification_rules', { contact_method_id: hook.id, delay_minutes: 0, urgency: 'high' })).status, 201);
  const policy = await org.create('escalation_policies', { name: 'FP', steps: [{ delay_minutes: 0, targets: [{ email }] }] });
  const team = await org.create('teams', { name: 'FP', escalation_policy_id: policy.id });
  await org.create('alert_routes', { name: 'fp', team_id: team.id, matchers: [{ field: 'service', operator: 'equals', value: 'fp' }] });
  t.equal((await org.api.put(`${CONFIG}/organization_settings`, { alert_storm_threshold: 1000 })).status, 200);

  const took: number[] = [];
  for (let i = 0; i < 20; i++) {
    const name = `Fp${i}`;
    const sent = Date.now();
    await org.fire({ name, service: 'fp' });
    await waitFor(() => receivedAt(name) !== undefined, name, 10_000);
    took.push(receivedAt(name)! - sent);
    // past the bundle window, so each page is a first message
    vigil.clock.advance(6_000);
  }
  took.sort((a, b) => a - b);
  t.comment(`alert → provider request: median ${took[10]} ms, max ${took[19]} ms`);
  t.equal(took.length, 20, 'every page reached the receiver within 10 s, with the next pass an hour away');
});
