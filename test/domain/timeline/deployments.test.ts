/**
 * The deployments webhook through HTTP: every field, the defaults, each refusal naming its field, text
 * PostgreSQL cannot hold, dedup_key updates (a CI run's start then end, a late replay, 20 racing deliveries), and
 * the timeline read back through list_deployments / get_deployment (agent tools and REST).
 */
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { connectAgent, type Agent } from '../../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

const MINUTE = 60_000;
const UA = { 'user-agent': 'GitLab-CI/17.0', 'content-type': 'application/json' };

interface Org {
  id: string;
  token: string;
  agent: Agent;
  api: Awaited<ReturnType<Awaited<ReturnType<typeof vigil.organization>>['key']>>;
}

async function organization(): Promise<Org> {
  const org = await vigil.organization();
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  return { id: org.id, token: org.webhookToken, agent, api: await org.key(['api:config_read']) };
}

async function deliver(org: Org, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${vigil.url}/webhooks/deployments/${org.token}`, {
    method: 'POST', headers: { ...UA, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function entry(org: Org, id: string) {
  const got = await org.agent.call('get_deployment', { id });
  if (got.isError) throw new Error(JSON.stringify(got.body));
  return got.body.data;
}

const list = async (org: Org, args: Record<string, unknown> = {}) => (await org.agent.call('list_deployments', args)).body;

const NULLS = {
  environment: null, version: null, previous_version: null, deployed_by: null, description: null, commit_sha: null, repo_full_name: null,
  pr_url: null, compare_url: null, run_url: null, branch: null, author: null, started_at: null, completed_at: null,
};

t.test('the smallest delivery: a service; deploy and succeeded by default, timed when received', async (t) => {
  const org = await organization();
  const now = vigil.clock.now().toISOString();
  const res = await deliver(org, { service: 'checkout' });
  t.equal(res.status, 200);
  t.match(res.body, { status: 'ok', id: String, action: 'created' });
  t.same(Object.keys(res.body).sort(), ['action', 'id', 'status']);
  t.same(await entry(org, res.body.id), {
    id: res.body.id, source: 'deployments', dedup_key: null, event_type: 'deploy', status: 'succeeded', service: 'checkout', ...NULLS,
    occurred_at: now, details: {}, created_at: now, updated_at: now,
  });
});

t.test('every field of the spec\'s table is stored and answered', async (t) => {
  const org = await organization();
  const body = {
    service: 'checkout', environment: 'production', event_type: 'rollback', status: 'failed', version: 'v2.4.1', previous_version: 'v2.4.2',
    deployed_by: 'alice@example.com', description: 'Roll back the cart change', commit_sha: '3484a3fb816e0859fd6e1cea078d76385ff50625',
    repo_full_name: 'acme/checkout', pr_url: 'https://github.com/acme/checkout/pull/12', compare_url: 'https://github.com/acme/checkout/compare/v2.4.2...v2.4.1',
    run_url: 'https://gitlab.example.com/acme/checkout/-/pipelines/991', branch: 'main', author: 'bob',
    started_at: '2026-03-01T13:50:00+02:00', completed_at: '2026-03-01T11:55:30.250Z', dedup_key: 'pipeline-991',
  };
  const res = await deliver(org, body);
  t.equal(res.status, 200);
  const got = await entry(org, res.body.id);
  const { started_at, completed_at, dedup_key, ...text } = body;
  t.match(got, { ...text, dedup_key, source: 'deployments', started_at: '2026-03-01T11:50:00.000Z', completed_at: '2026-03-01T11:55:30.250Z' });
  t.equal(got.occurred_at, '2026-03-01T11:55:30.250Z', 'occurred_at is completed_at');
  const rest = await org.api.get(`${CONFIG}/deployments/${res.body.id}`);
  t.equal(rest.status, 200, 'REST serves get_deployment at /deployments/{id}');
  t.same(rest.body.data, got);
});

t.test('values are read without regard to case, with - or space as _, and CI synonyms', async (t) => {
  const org = await organization();
  const cases: [Record<string, unknown>, string, string][] = [
    [{ event_type: 'ROLLBACK', status: 'Success' }, 'rollback', 'succeeded'],
    [{ event_type: 'config-change', status: 'failure' }, 'config_change', 'failed'],
    [{ event_type: 'Feature Flag', status: 'canceled' }, 'feature_flag', 'cancelled'],
    [{ event_type: 'deployment', status: 'running' }, 'deploy', 'in_progress'],
    [{ event_type: 'scale', status: 'pending' }, 'scale', 'started'],
    [{ event_type: 'restart', status: 'in progress' }, 'restart', 'in_progress'],
  ];
  for (const [body, eventType, status] of cases) {
    const res = await deliver(org, { service: 'api', ...body });
    t.equal(res.status, 200, JSON.stringify(body));
    t.match(await entry(org, res.body.id), { event_type: eventType, status }, JSON.stringify(body));
  }
});

t.test('refusals: 422 validation_failed naming the field; nothing is recorded; the log says which field', async (t) => {
  const org = await organization();
  const long = (n: number) => 'x'.repeat(n);
  const cases: [string, unknown, string][] = [
    ['no service', { environment: 'production' }, 'service'],
    ['blank service', { service: '   ' }, 'service'],
    ['service of NUL characters only', { service: '\u0000\u0000' }, 'service'],
    ['service not text', { service: true }, 'service'],
    ['service as an object', { service: { name: 'api' } }, 'service'],
    ['service over 200 characters', { service: long(201) }, 'service'],
    ['unknown event_type', { service: 'api', event_type: 'explode' }, 'event_type'],
    ['event_type a code-host type', { service: 'api', event_type: 'code_push' }, 'event_type'],
    ['unknown status', { service: 'api', status: 'done' }, 'status'],
    ['status as a number', { service: 'api', status: 1 }, 'status'],
    ['started_at without an offset', { service: 'api', started_at: '2026-03-01T12:00:00' }, 'started_at'],
    ['started_at a date alone', { service: 'api', started_at: '2026-03-01' }, 'started_at'],
    ['started_at in words', { service: 'api', started_at: 'yesterday' }, 'started_at'],
    ['started_at an epoch number', { service: 'api', started_at: 1772366400 }, 'started_at'],
    ['completed_at an impossible date', { service: 'api', completed_at: '2026-02-30T12:00:00Z' }, 'completed_at'],
    ['completed_at hour 25', { service: 'api', completed_at: '2026-03-01T25:00:00Z' }, 'completed_at'],
    ['completed_at in the year 1', { service: 'api', completed_at: '0001-01-01T00:00:00Z' }, 'completed_at'],
    ['completed_at as an object', { service: 'api', completed_at: {} }, 'completed_at'],
    ['completed_at before started_at', { service: 'api', started_at: '2026-03-01T12:00:00Z', completed_at: '2026-03-01T11:59:59Z' }, 'completed_at'],
    ['description over 4,000 characters', { service: 'api', description: long(4001) }, 'description'],
    ['version over 200 characters', { service: 'api', version: long(201) }, 'version'],
    ['environment as an array', { service: 'api', environment: ['prod'] }, 'environment'],
    ['pr_url not a URL', { service: 'api', pr_url: 'see the PR' }, 'pr_url'],
    ['run_url with another scheme', { service: 'api', run_url: 'javascript:alert(1)' }, 'run_url'],
    ['compare_url over 2,000 characters', { service: 'api', compare_url: `https://example.com/${long(1990)}` }, 'compare_url'],
    ['blank dedup_key', { service: 'api', dedup_key: '  ' }, 'dedup_key'],
    ['dedup_key over 200 characters', { service: 'api', dedup_key: long(201) }, 'dedup_key'],
    ['dedup_key with a newline', { service: 'api', dedup_key: 'run\n1' }, 'dedup_key'],
    ['dedup_key with NUL', { service: 'api', dedup_key: 'run\u00001' }, 'dedup_key'],
    ['dedup_key as an object', { service: 'api', dedup_key: { id: 1 } }, 'dedup_key'],
    ['a JSON array', [], 'body'],
    ['JSON null', 'null', 'body'],
    ['not JSON', 'service=api', 'body'],
    ['an empty body', '', 'body'],
  ];
  for (const [name, body, field] of cases) {
    const res = await deliver(org, body);
    t.equal(res.status, 422, name);
    t.equal(res.body.error, 'validation_failed', name);
    t.equal(res.body.field, field, name);
    t.same(res.body.errors.map((e: any) => e.field), [field], `${name}: only that field`);
    t.type(res.body.message, 'string');
  }
  t.same((await list(org)).data, [], 'nothing was recorded');
  const outcomes = (await org.agent.call('list_webhook_deliveries', { source: 'deployments', limit: 200 })).body.data.map((d: any) => d.outcome);
  t.same(outcomes, cases.map(([, , field]) => `refused: ${field}`).reverse());
});

t.test('a JSON string or number body is refused as body, and the delivery log still lists it', async (t) => {
  const org = await organization();
  for (const body of ['"deploy"', '42']) {
    const res = await deliver(org, body);
    t.same([res.status, res.body.field], [422, 'body'], body);
  }
  const log = await org.api.get(`${CONFIG}/webhook_deliveries`);
  t.equal(log.status, 200);
  t.same(log.body.data.map((d: any) => d.payload), [42, 'deploy']);
});

t.test('several refused fields are all named; `field` is the first', async (t) => {
  const org = await organization();
  const res = await deliver(org, { event_type: 'x', status: 'y', started_at: 'z' });
  t.equal(res.status, 422);
  t.equal(res.body.field, 'service');
  t.same(res.body.errors.map((e: any) => e.field), ['service', 'event_type', 'status', 'started_at']);
  t.notOk(JSON.stringify(res.body).includes('"x"'), 'no submitted value is echoed');
});

t.test('accepted forms: offsets, numbers as text, null and blank as not sent, unknown fields ignored, URLs cleaned', async (t) => {
  const org = await organization();
  const res = await deliver(org, {
    service: ' api ', version: 42, environment: null, branch: '', description: '   ', started_at: '2026-03-01t12:00:00-0130',
    completed_at: '2026-03-01 14:00:00.123456789+00', run_url: 'https://ci:pa55word@ci.example.com/run/7?token=abc&page=2',
    id: 'mine', source: 'code-host', created_at: '2020-01-01T00:00:00Z', pipeline: { id: 7 }, dedup_key: 12345,
  });
  t.equal(res.status, 200);
  const got = await entry(org, res.body.id);
  t.match(got, {
    service: 'api', version: '42', environment: null, branch: null, description: null, source: 'deployments', dedup_key: '12345',
    started_at: '2026-03-01T13:30:00.000Z', completed_at: '2026-03-01T14:00:00.123Z',
    run_url: 'https://ci.example.com/run/7?token=redacted&page=2',
  });
  t.not(got.id, 'mine');
  t.not(got.created_at, '2020-01-01T00:00:00.000Z');
});

t.test('NUL characters and lone surrogates never fail a delivery: dropped or replaced', async (t) => {
  const org = await organization();
  const raw = '{"service":"api\\u0000","description":"half \\ud800 a pair\\u0000","version":"\\udc00v1","deployed_by":"\\u0000"}';
  const res = await deliver(org, raw);
  t.equal(res.status, 200);
  t.match(await entry(org, res.body.id), { service: 'api', description: 'half \ufffd a pair', version: '\ufffdv1', deployed_by: null });
});

t.test('a dedup_key updates one entry: a CI run\'s start then its end; fields not sent keep their values', async (t) => {
  const org = await organization();
  const start = await deliver(org, {
    service: 'checkout', environment: 'production', status: 'started', version: 'v2', previous_version: 'v1', deployed_by: 'ci-bot',
    started_at: '2026-03-01T11:50:00Z', run_url: 'https://ci.example.com/run/1', dedup_key: 'run-1',
  });
  t.same([start.status, start.body.action], [200, 'created']);
  let got = await entry(org, start.body.id);
  t.match(got, { status: 'started', started_at: '2026-03-01T11:50:00.000Z', completed_at: null, occurred_at: '2026-03-01T11:50:00.000Z' });

  vigil.clock.advance(MINUTE);
  const note = await deliver(org, { service: 'checkout', dedup_key: 'run-1', description: 'halfway' });
  t.same([note.body.id, note.body.action], [start.body.id, 'updated']);
  t.equal((await entry(org, start.body.id)).status, 'started', 'a delivery without status keeps the status (the default is for a new entry only)');

  const end = await deliver(org, { service: 'checkout', dedup_key: 'run-1', status: 'succeeded', completed_at: '2026-03-01T11:58:00Z' });
  t.same([end.status, end.body.id, end.body.action], [200, start.body.id, 'updated']);
  got = await entry(org, start.body.id);
  t.match(got, {
    status: 'succeeded', environment: 'production', version: 'v2', previous_version: 'v1', deployed_by: 'ci-bot', description: 'halfway',
    run_url: 'https://ci.example.com/run/1', started_at: '2026-03-01T11:50:00.000Z', completed_at: '2026-03-01T11:58:00.000Z',
    occurred_at: '2026-03-01T11:58:00.000Z', event_type: 'deploy', dedup_key: 'run-1',
  });
  t.equal(got.created_at < got.updated_at, true, 'updated_at moves, created_at stays');

  const replayed = await deliver(org, { service: 'checkout', dedup_key: 'run-1', status: 'started', started_at: '2026-03-01T11:50:00Z' });
  t.equal(replayed.body.action, 'updated');
  t.equal((await entry(org, start.body.id)).status, 'succeeded', 'a late start does not reopen a finished entry');
  await deliver(org, { service: 'checkout', dedup_key: 'run-1', status: 'failed' });
  t.equal((await entry(org, start.body.id)).status, 'failed', 'another final status replaces it (a re-run, a correction)');

  t.equal((await list(org)).data.length, 1, 'one entry');
  const other = await organization();
  const elsewhere = await deliver(other, { service: 'checkout', dedup_key: 'run-1' });
  t.equal(elsewhere.body.action, 'created', 'keys are per organization');
  t.equal((await list(other)).data.length, 1);

  const outcomes = (await org.agent.call('list_webhook_deliveries', { source: 'deployments' })).body.data.map((d: any) => d.outcome);
  t.same(outcomes, ['updated', 'updated', 'updated', 'updated', 'created']);
});

t.test('without a dedup_key every delivery is a new entry', async (t) => {
  const org = await organization();
  const a = await deliver(org, { service: 'api', version: 'v1' });
  const b = await deliver(org, { service: 'api', version: 'v1' });
  t.not(a.body.id, b.body.id);
  t.same([a.body.action, b.body.action], ['created', 'created']);
  t.equal((await list(org)).data.length, 2);
});

t.test('20 deliveries of one dedup_key at once make one entry', async (t) => {
  const org = await organization();
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => deliver(org, {
    service: 'checkout', dedup_key: 'race-1', status: i === 0 ? 'started' : 'in_progress', description: `step ${i}`,
  })));
  t.ok(answers.every((a) => a.status === 200), 'all 200');
  t.equal(new Set(answers.map((a) => a.body.id)).size, 1, 'one id');
  t.same(answers.map((a) => a.body.action).sort(), ['created', ...Array(19).fill('updated')], 'one created, 19 updated');
  const all = await list(org);
  t.equal(all.data.length, 1, 'one entry');
});

t.test('list_deployments: newest first by occurred_at; filters; limit; REST; organizations apart', async (t) => {
  const org = await organization();
  const post = (body: Record<string, unknown>) => deliver(org, { service: 'api', ...body });
  await post({ version: 'a', environment: 'production', completed_at: '2026-02-28T10:00:00Z' });
  await post({ version: 'b', environment: 'staging', event_type: 'rollback', completed_at: '2026-02-28T12:00:00Z' });
  await post({ version: 'c', service: 'web', environment: 'production', status: 'failed', started_at: '2026-02-28T11:00:00Z' });
  await post({ version: 'd', event_type: 'scale' }); // occurred when received: the test clock's now, after the others
  const versions = async (args: Record<string, unknown>) => (await list(org, args)).data.map((e: any) => e.version);
  t.same(await versions({}), ['d', 'b', 'c', 'a'], 'newest first by occurred_at, not by arrival');
  t.same(await versions({ service: 'api' }), ['d', 'b', 'a']);
  t.same(await versions({ environment: 'production' }), ['c', 'a']);
  t.same(await versions({ event_type: 'rollback' }), ['b']);
  t.same(await versions({ status: 'failed' }), ['c']);
  t.same(await versions({ source: 'code-host' }), []);
  t.same(await versions({ since: '2026-02-28T11:00:00Z' }), ['d', 'b', 'c'], 'since is inclusive');
  t.same(await versions({ since: '2026-02-28T00:00:00Z', until: '2026-02-28T11:30:00Z' }), ['c', 'a'], 'until: what changed before an alert');
  const limited = await list(org, { limit: 2 });
  t.same([limited.data.length, limited.truncated], [2, true]);
  t.equal((await list(org, { limit: 4 })).truncated, false);

  const rest = await org.api.get(`${CONFIG}/deployments?service=api&limit=1`);
  t.equal(rest.status, 200);
  t.same([rest.body.data.map((e: any) => e.version), rest.body.truncated], [['d'], true]);
  t.equal((await org.api.get(`${CONFIG}/deployments?event_type=explode`)).status, 422, 'an unknown event_type filter is refused');
  t.equal((await org.api.get(`${CONFIG}/deployments?since=yesterday`)).status, 422);

  const other = await organization();
  t.same((await list(other)).data, [], 'another organization sees none of them');
  const id = (await list(org)).data[0].id;
  const foreign = await other.agent.call('get_deployment', { id });
  t.equal(foreign.isError, true);
  t.equal(foreign.body.error, 'not_found');
  t.equal((await other.api.get(`${CONFIG}/deployments/${id}`)).status, 404, 'another organization\'s entry is a 404');
  t.equal((await org.api.get(`${CONFIG}/deployments/not-a-uuid`)).status, 404);
  t.equal((await org.agent.call('get_deployment', { id: '00000000-0000-4000-8000-000000000000' })).body.error, 'not_found');
});
