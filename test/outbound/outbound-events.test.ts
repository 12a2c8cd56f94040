/**
 * Event kinds beyond alerts reach the outbound rules that name them: deployment.recorded (the deployments
 * webhook), card.created and card.updated (the tickets webhook), each delivered to a receiver on 127.0.0.1 in
 * the documented envelope; a rule's source and service filters apply to them as to alerts.
 */
import t from 'tap';
import { startVigil } from '../helpers/harness.ts';
import { waitFor } from '../helpers/jobs.ts';
import { alertOrg } from '../helpers/outbound.ts';
import { startReceiver } from '../helpers/receiver.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const receiver = await startReceiver();
t.teardown(() => receiver.close());

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${vigil.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'ci/1.0' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
};

t.test('deployments, cards and their updates go out as events, filtered like alerts', async (t) => {
  const o = await alertOrg(vigil);
  t.teardown(() => o.agent.close());
  const token = (await vigil.operator.get(`/api/admin/v1/organizations/${o.id}`)).body.webhook_token;
  const config = await o.create('outbound_configs', { name: 'events', kind: 'webhook', url: `${receiver.url}/events` });
  await o.create('outbound_rules', { name: 'checkout deploys', events: ['deployment.recorded'], outbound_config_id: config.id, filters: { services: ['checkout'], sources: ['deployments'] } });
  await o.create('outbound_rules', { name: 'cards', events: ['card.created', 'card.updated'], outbound_config_id: config.id });

  t.equal((await post(`/webhooks/deployments/${token}`, { service: 'checkout', version: 'v2.4.1', environment: 'production', dedup_key: 'run-1', status: 'started' })).status, 200);
  t.equal((await post(`/webhooks/deployments/${token}`, { service: 'checkout', dedup_key: 'run-1', status: 'succeeded' })).status, 200);
  t.equal((await post(`/webhooks/deployments/${token}`, { service: 'search', version: 'v9' })).status, 200, 'another service');
  const deploys = await o.deliveries({ event_type: 'deployment.recorded' });
  t.same(deploys.map((d: any) => [d.payload.data.action, d.payload.data.deployment.status]), [['updated', 'succeeded'], ['created', 'started']], 'checkout\'s two deliveries, not search\'s');
  t.match(deploys[0].payload.data.deployment, { service: 'checkout', version: 'v2.4.1', environment: 'production', source: 'deployments', dedup_key: 'run-1' });

  const opened = await post(`/webhooks/tickets/${token}`, { title: 'Checkout is slow', priority: 'high', service: 'checkout', labels: ['perf'] });
  t.equal(opened.status, 201);
  t.equal((await post(`/webhooks/tickets/${token}/${opened.body.key}`, { status: 'in progress' })).status, 200);
  const cards = await o.deliveries({ subject_id: opened.body.id });
  t.same(cards.map((d: any) => d.event_type), ['card.updated', 'card.created']);
  t.match(cards[1].payload.data.card, { id: opened.body.id, key: opened.body.key, url: opened.body.url, title: 'Checkout is slow', status: 'triage', priority: 'high', service: 'checkout', labels: ['perf'] });
  t.match(cards[0].payload.data, { card: { status: 'in_progress' }, changed: ['status'] });

  await waitFor(() => receiver.processed.size === 4, 'four deliveries received');
  t.same([...receiver.processed.values()].map((r) => JSON.parse(r.body).type).sort(), ['card.created', 'card.updated', 'deployment.recorded', 'deployment.recorded']);
});
