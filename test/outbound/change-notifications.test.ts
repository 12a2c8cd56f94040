/**
 * change_notifications: a configuration change is announced, from its audit entry, to the outbound config a
 * notification names (a config.changed event in the documented envelope) — with who made it, through which
 * transport, the changed fields' old and new values, and secrets only as (set)/(changed)/(cleared); families,
 * actions and `enabled` choose what is announced; a refused write announces nothing.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { waitFor } from '../helpers/jobs.ts';
import { alertOrg } from '../helpers/outbound.ts';
import { connectAgent } from '../helpers/mcp.ts';
import { startReceiver } from '../helpers/receiver.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const receiver = await startReceiver();
t.teardown(() => receiver.close());

const BOT_TOKEN = 'xoxb-change-notification-secret-4242';

t.test('a change goes to the named outbound config as config.changed, secrets as markers', async (t) => {
  const o = await alertOrg(vigil);
  t.teardown(() => o.agent.close());
  const config = await o.create('outbound_configs', { name: 'audit sink', kind: 'webhook', url: `${receiver.url}/changes`, signing_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
  const notice = await o.create('change_notifications', { name: 'chat and policies', families: ['chat', 'deploy_policies'], actions: ['update', 'create'], destination_kind: 'outbound', outbound_config_id: config.id });

  t.equal((await o.api.put(`${CONFIG}/chat`, { workspace_id: 'T0123', bot_token: BOT_TOKEN, default_channel: '#ops' })).status, 200);
  const [delivery] = await o.deliveries({ event_type: 'config.changed' });
  t.ok(delivery, 'one delivery queued with the change');
  t.same(delivery.rule_ids ?? [], [], 'sent because of the notification, not a rule');
  const change = delivery.payload.data.change;
  t.match(change, { family: 'chat', action: 'update', transport: 'rest', actor: { kind: 'api_key' } });
  t.same(change.changes.workspace_id, { before: null, after: 'T0123' });
  t.equal(change.changes.bot_token, '(set)', 'the token only as a marker');
  t.notOk(JSON.stringify(delivery).includes(BOT_TOKEN), 'the token appears nowhere in the delivery');

  await waitFor(() => receiver.processed.size === 1, 'the receiver got it');
  const [received] = [...receiver.processed.values()];
  const body = JSON.parse(received!.body);
  t.match(body, { type: 'config.changed', version: 1, organization_id: o.id, data: { change: { family: 'chat', action: 'update' } } });
  t.ok(received!.headers['webhook-signature'], 'signed like every delivery');
  t.notOk(received!.body.includes(BOT_TOKEN));

  // the token changed: (changed); a family outside `families` and an action outside `actions`: nothing
  t.equal((await o.api.put(`${CONFIG}/chat`, { bot_token: `${BOT_TOKEN}-2` })).status, 200);
  t.equal((await o.api.put(`${CONFIG}/organization_settings`, { alert_refire_cooldown_minutes: 5 })).status, 200, 'not a named family');
  const after = await o.deliveries({ event_type: 'config.changed' });
  t.equal(after.length, 2);
  t.equal(after[0].payload.data.change.changes.bot_token, '(changed)');

  // the notification's own change is not announced (its family is not listed); disabled → nothing more
  t.equal((await o.api.put(`${CONFIG}/change_notifications/${notice.id}`, { enabled: false })).status, 200);
  t.equal((await o.api.put(`${CONFIG}/chat`, { default_channel: '#ops-2' })).status, 200);
  t.equal((await o.deliveries({ event_type: 'config.changed' })).length, 2, 'a disabled notification announces nothing');
});

t.test('every family with "*", the row named, the agent-tool transport, and refusals announce nothing', async (t) => {
  const o = await alertOrg(vigil);
  t.teardown(() => o.agent.close());
  const config = await o.create('outbound_configs', { name: 'everything', kind: 'webhook', url: `${receiver.url}/all` });
  await o.create('change_notifications', { name: 'all', destination_kind: 'outbound', outbound_config_id: config.id, actions: ['create', 'delete'] });

  const team = await o.create('teams', { name: 'payments' });
  const refused = await o.api.post(`${CONFIG}/teams`, { name: '' });
  t.equal(refused.status, 422, 'a refused write');
  const admin = await connectAgent(vigil.url, (await o.key(['mcp:admin'])).token);
  t.teardown(() => admin.close());
  const made = await admin.call('create_team', { name: 'search' });
  t.notOk(made.isError, JSON.stringify(made.body));
  t.equal((await o.api.del(`${CONFIG}/teams/${team.id}`)).status, 204);

  const changes = (await o.deliveries({ event_type: 'config.changed' })).map((d: any) => d.payload.data.change).reverse();
  t.same(changes.map((c: any) => [c.family, c.row_name, c.action, c.transport]), [
    ['change_notifications', 'all', 'create', 'rest'],
    ['teams', 'payments', 'create', 'rest'],
    ['teams', 'search', 'create', 'mcp'],
    ['teams', 'payments', 'delete', 'rest'],
  ], '"*" includes the notification\'s own creation; creates and the delete, named; the refused write is absent');
});

t.test('a batch announces each row it created, once it committed; a dry run and a refused batch announce nothing', async (t) => {
  // a batch's first pass holds its creates back to write them together: each is still announced, from its audit entry
  const o = await alertOrg(vigil);
  t.teardown(() => o.agent.close());
  const config = await o.create('outbound_configs', { name: 'batch sink', kind: 'webhook', url: `${receiver.url}/batch` });
  await o.create('change_notifications', { name: 'new slis', families: ['slis'], actions: ['create'], destination_kind: 'outbound', outbound_config_id: config.id });
  const sli = (name: string) => ({ family: 'slis', op: 'create', ref: name, body: { name, service: 'checkout', indicator: 'availability' } });
  const dry = await o.api.post(`${CONFIG}/batch`, { dry_run: true, changes: [sli('a'), sli('b')] });
  t.equal(dry.status, 200);
  const refused = await o.api.post(`${CONFIG}/batch`, { changes: [sli('a'), { family: 'slos', op: 'create', body: { name: 'x', sli_id: { $ref: 'a' }, target_percent: 150 } }] });
  t.equal(refused.status, 422);
  t.equal((await o.deliveries({ event_type: 'config.changed' })).length, 0, 'nothing announced for what was not committed');
  const res = await o.api.post(`${CONFIG}/batch`, { changes: [sli('a'), sli('b')] });
  t.equal(res.status, 200);
  const deliveries = await o.deliveries({ event_type: 'config.changed' });
  t.same(deliveries.map((d: { payload: { data: { change: { row_id: string } } } }) => d.payload.data.change.row_id).sort(), res.body.changes.map((c: { id: string }) => c.id).sort(), 'one announcement per row created');
});
