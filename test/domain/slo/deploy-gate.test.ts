/**
 * The deploy gate through REST (`GET /api/v1/config/deploy_gate`) and the agent tool `check_deploy_gate`:
 * every reason and its switched-off advisory, the defaults of a missing or disabled policy, and the audited,
 * REST-only override (`POST /deploy_policies/{id}/set_deploy_override`), absent from the agent tools.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { CONFIG, client, startVigil } from '../../helpers/harness.ts';
import { connectAgent } from '../../helpers/mcp.ts';
import { readStore } from '../../../engine/operations/context.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const sql = readStore(vigil.running.services).execute;

const org = await vigil.organization();
const admin = await org.key(['api:admin']);
const ci = await org.key(['api:config_read']);
const agent = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
t.teardown(() => agent.close());

const gate = async (query: string) => ci.get(`${CONFIG}/deploy_gate?${query}`);
const codes = (findings: { code: string }[]) => findings.map((f) => f.code);
let policy = '';
let check = '';

t.before(async () => {
  check = (await admin.post(`${CONFIG}/synthetic_checks`, { name: 'checkout health', url: 'https://checkout.example.com/healthz', service: 'checkout' })).body.data.id;
  const sli = (await admin.post(`${CONFIG}/slis`, { name: 'checkout availability', service: 'checkout', indicator: 'availability' })).body.data.id;
  await admin.post(`${CONFIG}/slos`, { name: 'checkout 99', sli_id: sli, target_percent: 99 });
});

/** `count` runs every `everySeconds` up to now. */
async function runs(count: number, everySeconds: number, ok: boolean) {
  await sql(
    `insert into synthetic_results (organization_id, check_id, at, ok, latency_ms, status_code, error)
     select ?, ?, to_timestamp(? / 1000.0) - make_interval(secs => (g * ?)::double precision), ?, 50, 200, null from generate_series(0, ? - 1) g`,
    [org.id, check, vigil.clock.now().getTime(), everySeconds, ok, count],
  );
}

t.test('refusals: no service → 422 naming it; an agent key is refused at REST', async (t) => {
  const missing = await gate('environment=production');
  t.equal(missing.status, 422);
  t.match(missing.body, { error: 'validation_failed', errors: [{ field: 'service' }] });
  t.equal((await gate('service=')).status, 422);
  t.equal((await ci.post(`${CONFIG}/deploy_gate`, {})).status, 405);
});

t.test('CI systems may use GET /api/v1/deploy_gate: the same answer and the same credential rules', async (t) => {
  const short = await ci.get('/api/v1/deploy_gate?service=checkout&environment=production');
  const long = await gate('service=checkout&environment=production');
  t.equal(short.status, 200);
  t.same({ ...short.body, evaluated_at: null }, { ...long.body, evaluated_at: null });
  t.equal((await client(vigil.url).get('/api/v1/deploy_gate?service=checkout')).status, 401, 'no key');
  t.equal((await ci.get('/api/v1/deploy_gate')).status, 422, 'no service');
});

t.test('no policy: the defaults gate; an SLO without data is an advisory', async (t) => {
  const res = await gate('service=checkout&environment=production');
  t.equal(res.status, 200);
  t.match(res.body, { service: 'checkout', environment: 'production', decision: 'allow', reasons: [], policy_id: null });
  t.same(codes(res.body.advisories), ['defaults_applied', 'no_data']);
});

t.test('frozen: held with the reason and until; cleared: allowed', async (t) => {
  policy = (await admin.post(`${CONFIG}/deploy_policies`, { service: 'checkout' })).body.data.id;
  const until = '2026-03-02T00:00:00.000Z';
  t.notOk((await agent.call('set_deploy_freeze', { service: 'checkout', reason: 'release train', until })).isError);
  const res = await gate('service=checkout');
  t.match(res.body, { decision: 'hold', policy_id: policy, reasons: [{ code: 'frozen', reason: 'release train', until }] });
  await agent.call('clear_deploy_freeze', { id: policy });
  t.equal((await gate('service=checkout')).body.decision, 'allow');
});

t.test('error budget under the threshold holds; 0 switches it off', async (t) => {
  await runs(20_000, 60, true);
  await runs(150, 600, false); // 150 failed runs spread over the last 25 h: 25 % of the budget left, no fast burn
  await admin.put(`${CONFIG}/deploy_policies/${policy}`, { error_budget_threshold: 30 });
  const held = (await gate('service=checkout')).body;
  t.match(held, { decision: 'hold', reasons: [{ code: 'error_budget', slo_name: 'checkout 99', threshold: 30 }] });
  t.ok(held.reasons[0].remaining_percent < 30);
  await admin.put(`${CONFIG}/deploy_policies/${policy}`, { error_budget_threshold: 0 });
  t.match((await gate('service=checkout')).body, { decision: 'allow', reasons: [], advisories: [] });
});

t.test('fast burn holds; with the block off it is an advisory', async (t) => {
  await runs(20, 10, false); // the last 3 minutes fail
  const res = (await gate('service=checkout')).body;
  t.match(res, { decision: 'hold', reasons: [{ code: 'fast_burn', threshold: 14.4 }] });
  t.ok(res.reasons[0].burn_rate_5m >= 14.4 && res.reasons[0].burn_rate_1h >= 14.4);
  const slo = (await admin.get(`${CONFIG}/slos`)).body.data[0];
  t.equal(slo.status, 'at_risk', 'the gate keeps the stored status current');
  await admin.put(`${CONFIG}/deploy_policies/${policy}`, { burn_rate_block_enabled: false });
  t.match((await gate('service=checkout')).body, { decision: 'allow', reasons: [], advisories: [{ code: 'fast_burn' }] });
});

t.test('an open critical incident on the service holds; with the block off it is an advisory', async (t) => {
  const incident = randomUUID();
  const now = vigil.clock.now();
  await sql(`insert into incidents (id, organization_id, title, severity, status, opened_at) values (?, ?, 'checkout 5xx', 'critical', 'open', ?)`, [incident, org.id, now]);
  const alert = (service: string, severity = 'critical') =>
    sql(
      `insert into alerts (id, organization_id, fingerprint, source, title, service, severity, labels, status, started_at, last_received_at, occurrences, chat_thread, incident_id, created_at, updated_at)
       values (?, ?, ?, 'monitoring-a', 'errors', ?, ?, '{}'::jsonb, 'firing', ?, ?, 1, false, ?, ?, ?)`,
      [randomUUID(), org.id, randomUUID(), service, severity, now, now, incident, now, now],
    );
  await alert('checkout');
  await alert('search');
  t.match((await gate('service=checkout')).body, { decision: 'hold', reasons: [{ code: 'critical_incident', incident_id: incident, title: 'checkout 5xx' }] });
  t.equal((await gate('service=search')).body.reasons.length, 1, 'an incident affects every service its alerts name');
  t.same(codes((await gate('service=billing')).body.reasons), [], 'and no other');
  await admin.put(`${CONFIG}/deploy_policies/${policy}`, { incident_block_enabled: false });
  const res = (await gate('service=checkout')).body;
  t.equal(res.decision, 'allow');
  t.same(codes(res.advisories), ['fast_burn', 'critical_incident']);
});

t.test('a disabled policy falls back to the defaults', async (t) => {
  await admin.put(`${CONFIG}/deploy_policies/${policy}`, { enabled: false });
  const res = (await gate('service=checkout')).body;
  t.equal(res.decision, 'hold');
  t.same(codes(res.reasons), ['fast_burn', 'critical_incident']);
  t.match(res.advisories, [{ code: 'defaults_applied', message: /disabled/ }]);
  await admin.put(`${CONFIG}/deploy_policies/${policy}`, { enabled: true });
});

t.test('the override: REST only, org admins, audited, decides alone', async (t) => {
  const path = `${CONFIG}/deploy_policies/${policy}/set_deploy_override`;
  const until = new Date(vigil.clock.now().getTime() + 3_600_000).toISOString();

  const viewer = await ci.post(path, { allow: true, reason: 'hotfix', until });
  t.equal(viewer.status, 403, 'a read-only key is refused');
  t.equal(viewer.body.error, 'read_only_key');
  t.equal((await (await org.key(['mcp:admin'])).post(path, { allow: true, reason: 'x', until })).status, 403, 'an agent key is refused at REST');
  t.match((await admin.post(path, { allow: true, reason: 'hotfix', until: '2026-01-01T00:00:00Z' })).body, { error: 'validation_failed', errors: [{ field: 'until' }] });
  t.match((await admin.post(path, { allow: true, reason: 'hotfix', until: '2026-03-09T00:00:00Z' })).body, { errors: [{ field: 'until' }] }, 'at most 72 h ahead');
  t.match((await admin.post(path, { allow: true, until })).body, { errors: [{ field: 'reason' }] });
  t.equal((await admin.post(`${CONFIG}/deploy_policies/${randomUUID()}/set_deploy_override`, { allow: true, reason: 'x', until })).status, 404);

  await admin.put(`${CONFIG}/deploy_policies/${policy}`, { incident_block_enabled: true, burn_rate_block_enabled: true });
  const etag = (await admin.get(`${CONFIG}/deploy_policies/${policy}`)).headers.get('etag');
  const set = await admin.post(path, { allow: true, reason: 'hotfix for checkout 5xx', until });
  t.equal(set.status, 200);
  t.match(set.body.data, { override_active: true, override_allow: true, override_until: until, override_reason: 'hotfix for checkout 5xx', override_by: `api_key:${admin.keyId}` });
  t.equal(set.headers.get('etag'), (await admin.get(`${CONFIG}/deploy_policies/${policy}`)).headers.get('etag'));
  const allowed = (await gate('service=checkout')).body;
  t.match(allowed, { decision: 'allow', reasons: [{ code: 'override', allow: true, reason: 'hotfix for checkout 5xx', until }] });
  t.same(codes(allowed.advisories), ['fast_burn', 'critical_incident'], 'what it lets through stays visible');
  t.same((await agent.call('check_deploy_gate', { service: 'checkout' })).body.decision, 'allow', 'the agent tool answers the same');

  await admin.post(path, { allow: false, reason: 'launch day', until });
  t.match((await gate('service=checkout')).body, { decision: 'hold', reasons: [{ code: 'override', allow: false }, { code: 'fast_burn' }, { code: 'critical_incident' }] });

  vigil.clock.advance(2 * 3_600_000);
  const lapsed = await admin.get(`${CONFIG}/deploy_policies/${policy}`);
  t.equal(lapsed.body.data.override_active, false, 'it lapses');
  t.notOk(codes((await gate('service=checkout')).body.reasons).includes('override'));
  const cleared = await admin.post(`${CONFIG}/deploy_policies/${policy}/clear_deploy_override`, {});
  t.match(cleared.body.data, { override_active: false, override_allow: null, override_by: null, override_until: null, override_reason: null });
  t.equal((await admin.get(`${CONFIG}/deploy_policies/${policy}`)).headers.get('etag'), etag, 'the ETag never moved');

  const log = (await vigil.operator.get(`/api/admin/v1/organizations/${org.id}/audit_log`)).body.data;
  const entries = log.filter((e: any) => e.action === 'action:set_deploy_override' || e.action === 'action:clear_deploy_override');
  t.equal(entries.length, 3, 'each set and the clear are audited');
  t.match(entries.at(-1), { transport: 'rest', family: 'deploy_policies', row_id: policy, actor: { kind: 'api_key', id: admin.keyId }, changes: { override_allow: { after: true } } });
});

t.test('the agent-tool endpoint neither lists nor runs the override', async (t) => {
  const { tools } = await agent.client.listTools();
  const names = tools.map((tool) => tool.name);
  t.ok(names.includes('check_deploy_gate') && names.includes('set_deploy_freeze'));
  t.notOk(names.includes('set_deploy_override') || names.includes('clear_deploy_override'));
  await t.rejects(agent.call('set_deploy_override', { id: policy, allow: true, reason: 'x', until: '2026-03-09T00:00:00Z' }), /Unknown tool/);
  const doc = (await admin.get(`${CONFIG}/openapi.json`)).body;
  t.ok(doc.paths['/deploy_policies/{id}/set_deploy_override']?.post, 'OpenAPI documents the REST action');
  t.ok(doc.paths['/deploy_gate']?.get);
  t.notOk(doc.paths['/deploy_policies/{id}/set_deploy_freeze'], 'agent-only actions stay off REST');
  t.equal((await admin.post(`${CONFIG}/deploy_policies/${policy}/set_deploy_freeze`, { reason: 'x' })).status, 405);
});
