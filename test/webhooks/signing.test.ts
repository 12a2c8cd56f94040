/** Request signing: the request_signing family and each source's scheme through HTTP; the rate limit. */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ webhooks: { rateLimit: { points: 3, durationSeconds: 60 } } });
t.teardown(() => vigil.close());

const UA = { 'user-agent': 'vigil-tests/1.0' };
const PATH = `${CONFIG}/request_signing`;
const hmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

async function post(source: string, token: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${vigil.url}/webhooks/${source}/${token}`, { method: 'POST', headers: { 'content-type': 'application/json', ...UA, ...headers }, body });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** an organization whose rate limit is not shared with other tests (3 a minute per source) */
async function setup(flags?: Record<string, unknown>) {
  const org = await vigil.organization();
  if (flags) await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { flags });
  return { org, api: await org.key(['api:admin']) };
}

t.test('request_signing: secrets are write-only, audited as markers, and never answered', async (t) => {
  const { api } = await setup();
  const made = await api.post(PATH, { source: 'incident-pager', secret: 'pager-secret-value-0001' });
  t.equal(made.status, 201);
  t.same(made.body.data, {
    id: 'incident-pager', source: 'incident-pager', secret_set: true, enabled: true, scheme: 'pagerduty-v3',
    signature_header: 'X-PagerDuty-Signature', updated_at: made.body.data.updated_at,
  });
  const gh = await api.post(PATH, { source: 'code-host', secret: 'code-host-secret-value-01' });
  t.equal(gh.body.data.scheme, 'github-sha256');
  t.equal((await api.put(`${PATH}/incident-pager`, { enabled: false })).status, 200);
  t.equal((await api.put(`${PATH}/incident-pager`, { secret: 'pager-secret-value-0002', enabled: true })).status, 200);
  const list = await api.get(PATH);
  t.equal(list.body.data.length, 2);
  const audit = await api.get(`${CONFIG}/audit_log`);
  const text = JSON.stringify([made.body, gh.body, list.body, audit.body]);
  t.notOk(/secret-value/.test(text), 'no secret value in any answer or audit entry');
  const entries = audit.body.data.filter((e: any) => e.family === 'request_signing' && e.row_id === 'incident-pager');
  t.same(entries.map((e: any) => e.changes.secret ?? null), ['(changed)', null, '(set)']);
  const cloud = await api.post(PATH, { source: 'cloud-alarms', secret: 'cloud-secret-value-0001' });
  t.equal(cloud.status, 422, 'cloud sources rely on the topic signature, not a secret');
  t.same(cloud.body.errors.map((e: any) => e.field), ['source']);
});

t.test('dashboard and monitoring secrets are refused until the operator switches signing on', async (t) => {
  const { org, api } = await setup();
  for (const source of ['metric-dashboard', 'monitoring-a', 'monitoring-b']) {
    const refused = await api.post(PATH, { source, secret: 'dashboard-secret-0001' });
    t.equal(refused.status, 422, `${source} refused`);
    t.same(refused.body.errors.map((e: any) => e.field), ['source']);
    t.match(refused.body.errors[0].message, /operator/);
  }
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { flags: { signing_enabled_sources: ['metric-dashboard'] } });
  t.equal((await api.post(PATH, { source: 'metric-dashboard', secret: 'dashboard-secret-0001' })).status, 201, 'accepted once switched on');
  t.equal((await api.post(PATH, { source: 'monitoring-a', secret: 'monitoring-secret-0001' })).status, 422, 'other sources stay off');
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { flags: { signing_enabled_sources: true } });
  t.equal((await api.post(PATH, { source: 'monitoring-a', secret: 'monitoring-secret-0001' })).status, 201, 'true switches on all three');
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { flags: { signing_enabled_sources: [] } });
  t.equal((await api.put(`${PATH}/monitoring-a`, { enabled: false })).status, 200, 'disabling stays possible when switched off');
  t.equal((await api.put(`${PATH}/monitoring-a`, { secret: 'monitoring-secret-0002' })).status, 422, 'a new secret does not');
  t.equal((await api.del(`${PATH}/monitoring-a`)).status, 204, 'deleting stays possible');
});

/** a real-shaped payload per source, as its product sends it (the handlers read them) */
const fixture = (path: string) => readFileSync(new URL(`../fixtures/webhooks/${path}`, import.meta.url), 'utf8');
const BODIES: Record<string, string> = {
  'incident-pager': fixture('incident-pager/triggered.json'),
  'metric-dashboard': fixture('metric-dashboard/grafana-firing.json'),
  'monitoring-a': fixture('monitoring-a/triggered.json'),
  'monitoring-b': fixture('monitoring-b/activated.json'),
  'cloud-alarms': fixture('cloud-alarms/alarm.json'),
  'code-host': JSON.stringify({ zen: 'Design for failure.', hook_id: 1 }),
};

t.test('incident-pager: PagerDuty v3 signatures, several allowed; missing, wrong and rotated secrets answer 401', async (t) => {
  const { org, api } = await setup();
  const token = org.webhookToken;
  t.equal((await post('incident-pager', token, BODIES['incident-pager'])).status, 200, 'without a secret the token alone is enough');
  await api.post(PATH, { source: 'incident-pager', secret: 'pager-secret-0000001' });
  const good = `v1=${hmac('pager-secret-0000001', BODIES['incident-pager'])}`;
  t.equal((await post('incident-pager', token, BODIES['incident-pager'], { 'x-pagerduty-signature': good })).status, 200, 'valid');
  const missing = await post('incident-pager', token, BODIES['incident-pager']);
  t.equal(missing.status, 401, 'missing');
  t.equal(missing.body.error, 'unauthorized');
  t.match(missing.body.message, /X-PagerDuty-Signature/);
  // new organization for the next requests: the limit is 3 a minute per source
  const { org: org2, api: api2 } = await setup();
  await api2.post(PATH, { source: 'incident-pager', secret: 'pager-secret-0000001' });
  const wrong = await post('incident-pager', org2.webhookToken, BODIES['incident-pager'], { 'x-pagerduty-signature': `v1=${hmac('another-secret-000001', BODIES['incident-pager'])}` });
  t.equal(wrong.status, 401, 'wrong');
  t.equal((await post('incident-pager', org2.webhookToken, BODIES['incident-pager'], { 'x-pagerduty-signature': `v1=${hmac('another-secret-000001', BODIES['incident-pager'])}, v1=${hmac('pager-secret-0000001', BODIES['incident-pager'])}` })).status, 200, 'any of several signatures matching');
  t.equal((await post('incident-pager', org2.webhookToken, `${BODIES['incident-pager']} `, { 'x-pagerduty-signature': good })).status, 401, 'a changed byte breaks the signature');

  const { org: org3, api: api3 } = await setup();
  await api3.post(PATH, { source: 'incident-pager', secret: 'pager-secret-0000001' });
  await api3.put(`${PATH}/incident-pager`, { secret: 'pager-secret-0000002' });
  t.equal((await post('incident-pager', org3.webhookToken, BODIES['incident-pager'], { 'x-pagerduty-signature': good })).status, 401, 'the rotated-away secret no longer signs');
  t.equal((await post('incident-pager', org3.webhookToken, BODIES['incident-pager'], { 'x-pagerduty-signature': `v1=${hmac('pager-secret-0000002', BODIES['incident-pager'])}` })).status, 200, 'the new secret does');
  await api3.put(`${PATH}/incident-pager`, { enabled: false });
  t.equal((await post('incident-pager', org3.webhookToken, BODIES['incident-pager'])).status, 200, 'a disabled secret is not checked');
});

t.test('code-host: GitHub X-Hub-Signature-256', async (t) => {
  const { org, api } = await setup();
  await api.post(PATH, { source: 'code-host', secret: 'github-secret-000001' });
  const sig = `sha256=${hmac('github-secret-000001', BODIES['code-host'])}`;
  t.equal((await post('code-host', org.webhookToken, BODIES['code-host'], { 'x-hub-signature-256': sig })).status, 200, 'valid');
  t.equal((await post('code-host', org.webhookToken, BODIES['code-host'])).status, 401, 'missing');
  t.equal((await post('code-host', org.webhookToken, BODIES['code-host'], { 'x-hub-signature-256': `sha256=${hmac('github-secret-000002', BODIES['code-host'])}` })).status, 401, 'wrong');
  const { org: org2, api: api2 } = await setup();
  await api2.post(PATH, { source: 'code-host', secret: 'github-secret-000001' });
  await api2.put(`${PATH}/code-host`, { secret: 'github-secret-000002' });
  t.equal((await post('code-host', org2.webhookToken, BODIES['code-host'], { 'x-hub-signature-256': sig })).status, 401, 'rotated away');
  t.equal((await post('code-host', org2.webhookToken, BODIES['code-host'], { 'x-hub-signature-256': `sha256=${hmac('github-secret-000002', BODIES['code-host'])}` })).status, 200, 'rotated in');
  t.equal((await post('code-host', org2.webhookToken, BODIES['code-host'], { 'x-hub-signature-256': hmac('github-secret-000002', BODIES['code-host']) })).status, 401, 'without the sha256= prefix');
});

t.test('metric-dashboard: Grafana HMAC, with and without the timestamp header', async (t) => {
  const { org, api } = await setup({ signing_enabled_sources: true });
  await api.post(PATH, { source: 'metric-dashboard', secret: 'grafana-secret-00001' });
  t.equal((await post('metric-dashboard', org.webhookToken, BODIES['metric-dashboard'], { 'x-grafana-alerting-signature': hmac('grafana-secret-00001', BODIES['metric-dashboard']) })).status, 200, 'valid');
  t.equal((await post('metric-dashboard', org.webhookToken, BODIES['metric-dashboard'])).status, 401, 'missing');
  t.equal((await post('metric-dashboard', org.webhookToken, BODIES['metric-dashboard'], { 'x-grafana-alerting-signature': hmac('grafana-secret-00002', BODIES['metric-dashboard']) })).status, 401, 'wrong');
  const { org: org2, api: api2 } = await setup({ signing_enabled_sources: true });
  await api2.post(PATH, { source: 'metric-dashboard', secret: 'grafana-secret-00001' });
  const now = Math.floor(vigil.clock.now().getTime() / 1000);
  const stamped = (ts: number, secret = 'grafana-secret-00001') => ({ 'x-grafana-alerting-timestamp': String(ts), 'x-grafana-alerting-signature': hmac(secret, `${ts}:${BODIES['metric-dashboard']}`) });
  t.equal((await post('metric-dashboard', org2.webhookToken, BODIES['metric-dashboard'], stamped(now))).status, 200, 'a fresh timestamp signs "<timestamp>:<body>"');
  t.equal((await post('metric-dashboard', org2.webhookToken, BODIES['metric-dashboard'], stamped(now - 600))).status, 401, 'a timestamp ten minutes old is a replay');
  await api2.put(`${PATH}/metric-dashboard`, { secret: 'grafana-secret-00002' });
  t.equal((await post('metric-dashboard', org2.webhookToken, BODIES['metric-dashboard'], stamped(now))).status, 401, 'rotated away');
});

t.test('monitoring-a and monitoring-b: the secret as a bearer credential or custom header', async (t) => {
  for (const source of ['monitoring-a', 'monitoring-b']) {
    const { org, api } = await setup({ signing_enabled_sources: true });
    await api.post(PATH, { source, secret: 'monitoring-secret-001' });
    t.equal((await post(source, org.webhookToken, BODIES[source], { authorization: 'Bearer monitoring-secret-001' })).status, 200, `${source}: bearer`);
    t.equal((await post(source, org.webhookToken, BODIES[source], { 'x-vigil-signature-secret': 'monitoring-secret-001' })).status, 200, `${source}: custom header`);
    t.equal((await post(source, org.webhookToken, BODIES[source])).status, 401, `${source}: missing`);
    const { org: org2, api: api2 } = await setup({ signing_enabled_sources: true });
    await api2.post(PATH, { source, secret: 'monitoring-secret-001' });
    t.equal((await post(source, org2.webhookToken, BODIES[source], { authorization: 'Bearer monitoring-secret-00' })).status, 401, `${source}: wrong`);
    await api2.put(`${PATH}/${source}`, { secret: 'monitoring-secret-002' });
    t.equal((await post(source, org2.webhookToken, BODIES[source], { 'x-vigil-signature-secret': 'monitoring-secret-001' })).status, 401, `${source}: rotated away`);
    t.equal((await post(source, org2.webhookToken, BODIES[source], { 'x-vigil-signature-secret': 'monitoring-secret-002' })).status, 200, `${source}: rotated in`);
  }
});

t.test('an approved automatic runbook makes the dashboard, pager and monitoring sources require a signature', async (t) => {
  const { org, api } = await setup({ automatic_runbook_approved: true, signing_enabled_sources: ['metric-dashboard', 'monitoring-a', 'monitoring-b'] });
  for (const source of ['metric-dashboard', 'incident-pager', 'monitoring-a', 'monitoring-b']) {
    const refused = await post(source, org.webhookToken, BODIES[source]);
    t.equal(refused.status, 401, `${source}: unsigned without a secret`);
    t.match(refused.body.message, /runbook/);
  }
  t.equal((await post('code-host', org.webhookToken, BODIES['code-host'])).status, 200, 'code-host is not among them');
  t.equal((await post('cloud-alarms', org.webhookToken, BODIES['cloud-alarms'])).status, 200, 'nor the cloud sources');
  await api.post(PATH, { source: 'incident-pager', secret: 'pager-secret-0000001' });
  t.equal((await post('incident-pager', org.webhookToken, BODIES['incident-pager'], { 'x-pagerduty-signature': `v1=${hmac('pager-secret-0000001', BODIES['incident-pager'])}` })).status, 200, 'signed with a saved secret');
  t.equal((await post('incident-pager', org.webhookToken, BODIES['incident-pager'], { 'x-pagerduty-signature': `v1=${hmac('pager-secret-0000002', BODIES['incident-pager'])}` })).status, 401, 'wrongly signed');

  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  const log = await agent.call('list_webhook_deliveries', { outcome: 'refused: signature' });
  t.equal(log.body.data.length, 5, 'every refusal is logged');
  t.ok(log.body.data.every((d: any) => d.status === 401 && /runbook|signature/.test(d.detail)));
  t.notOk(JSON.stringify(log.body).includes('x-pagerduty-signature'), 'no signature header kept');
});

t.test('rate limit per organization and source: 429 with Retry-After', async (t) => {
  const { org } = await setup();
  const deploy = '{"service":"checkout"}';
  for (let i = 0; i < 3; i++) t.equal((await post('deployments', org.webhookToken, deploy)).status, 200, `request ${i + 1} of 3`);
  const limited = await post('deployments', org.webhookToken, deploy);
  t.equal(limited.status, 429);
  t.equal(limited.body.error, 'rate_limited');
  const wait = Number(limited.headers.get('retry-after'));
  t.ok(wait >= 1 && wait <= 60, `Retry-After is a number of seconds (${wait})`);
  t.match(limited.body.message, new RegExp(`retry in ${wait} seconds`));
  t.equal((await post('deployments', org.webhookToken, deploy)).status, 429, 'still limited');
  t.equal((await post('tickets', org.webhookToken, '{"title":"x"}')).status, 201, 'another source has its own budget');
  const other = await vigil.organization();
  t.equal((await post('deployments', other.webhookToken, deploy)).status, 200, 'another organization has its own budget');
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  const log = await agent.call('list_webhook_deliveries', { source: 'deployments' });
  t.same(log.body.data.map((d: any) => d.outcome), ['refused: rate limit', 'created', 'created', 'created'], 'one refusal logged per window, not each');
});
