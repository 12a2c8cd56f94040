/** connectors: providers per kind, settings per provider, credentials never answered, create-only kind and provider. */
import t from 'tap';
import connectors from '../../resources/connectors.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [connectors] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/connectors`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field).sort();
/** whether a credential value, or a `credentials` member, appears anywhere in an answer's data */
const leaks = (answer: unknown) => /cred-secret/.test(JSON.stringify(answer)) || /"credentials":/.test(JSON.stringify((answer as { data?: unknown })?.data ?? null));

/** The least each provider needs. */
const MINIMAL: Record<string, [string, Record<string, string>]> = {
  loki: ['logs', { url: 'https://loki.example.com' }],
  elasticsearch: ['logs', { url: 'https://es.example.com:9200', index: 'logs-*' }],
  cloudwatch_logs: ['logs', { region: 'us-east-1' }],
  prometheus: ['metrics', { url: 'http://localhost:9090' }],
  cloudwatch_metrics: ['metrics', { region: 'eu-central-1' }],
  datadog: ['metrics', { site: 'datadoghq.eu' }],
  tempo: ['traces', { url: 'https://tempo.example.com' }],
  jaeger: ['traces', { url: 'http://127.0.0.1:16686' }],
  xray: ['traces', { region: 'us-west-2' }],
  confluence: ['docs', { url: 'https://acme.wiki.example.com', space_key: 'OPS' }],
  notion: ['docs', {}],
  git: ['docs', { repo: 'acme/runbooks' }],
};

t.test('every provider of its kind is accepted; a provider of another kind is refused naming provider', async (t) => {
  const api = await (await vigil.organization()).key();
  for (const [provider, [kind, settings]] of Object.entries(MINIMAL)) {
    const made = await api.post(PATH, { name: provider, kind, provider, settings });
    t.equal(made.status, 201, `${kind}/${provider}`);
    for (const other of ['logs', 'metrics', 'traces', 'docs'].filter((k) => k !== kind)) {
      const refused = await api.post(PATH, { name: `${provider} as ${other}`, kind: other, provider, settings });
      t.equal(refused.status, 422, `${provider} is not a ${other} provider`);
      t.same(fieldsOf(refused), ['provider']);
    }
  }
  const made = (await api.get(`${PATH}`)).body.data.find((c: { name: string }) => c.name === 'loki');
  t.same(made, {
    id: made.id, name: 'loki', kind: 'logs', provider: 'loki', settings: { url: 'https://loki.example.com' },
    credentials_set: false, enabled: true, updated_at: '2026-03-01T12:00:00.000Z',
  });
  const moved = await api.put(`${PATH}/${made.id}`, { kind: 'metrics', provider: 'prometheus' });
  t.equal(moved.status, 422, 'kind and provider are set on create only');
  t.same(fieldsOf(moved), ['kind', 'provider']);
});

t.test('settings: unknown keys, missing required keys and bad formats are named as settings.<key>', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [string, string, Record<string, unknown>, string[]][] = [
    ['logs', 'loki', { url: 'https://loki.example.com', index: 'logs-*', space_key: 'OPS' }, ['settings.index', 'settings.space_key']],
    ['logs', 'elasticsearch', { url: 'https://es.example.com' }, ['settings.index']],
    ['logs', 'loki', {}, ['settings.url']],
    ['logs', 'loki', { url: 'http://loki.example.com' }, ['settings.url']],
    ['logs', 'loki', { url: 'https://user:pw@loki.example.com' }, ['settings.url']],
    ['logs', 'loki', { url: 'loki' }, ['settings.url']],
    ['logs', 'cloudwatch_logs', { region: 'Mars' }, ['settings.region']],
    ['metrics', 'cloudwatch_metrics', { region: 'us-east-1', role_arn: 'vigil-read' }, ['settings.role_arn']],
    ['metrics', 'datadog', { site: 'https://datadoghq.eu' }, ['settings.site']],
    ['docs', 'git', { repo: 'runbooks' }, ['settings.repo']],
    ['docs', 'confluence', { url: 'https://wiki.example.com', space_key: 'OPS space' }, ['settings.space_key']],
    ['docs', 'notion', { url: 'https://notion.example.com' }, ['settings.url']],
    ['logs', 'loki', { url: 'https://loki.example.com', tenant_id: '  ' }, ['settings.tenant_id']],
    ['logs', 'loki', { url: 'https://loki.example.com', tenant_id: 7 }, ['settings.tenant_id']],
  ];
  for (const [kind, provider, settings, fields] of cases) {
    const refused = await api.post(PATH, { name: 'c', kind, provider, settings });
    t.equal(refused.status, 422, `${provider} ${JSON.stringify(settings)}`);
    t.same(fieldsOf(refused), fields);
  }
  const made = await api.post(PATH, { name: 'es', kind: 'logs', provider: 'elasticsearch', settings: { url: 'https://es.example.com', index: 'logs-*' } });
  const path = `${PATH}/${made.body.data.id}`;
  t.same(fieldsOf(await api.put(path, { settings: { index: 'app-*' } })), ['settings.url'], 'a sent settings map is complete: required keys included');
  const replaced = await api.put(path, { settings: { url: 'https://es2.example.com', index: 'app-*' } });
  t.same(replaced.body.data.settings, { url: 'https://es2.example.com', index: 'app-*' });
  t.same((await api.put(path, { enabled: false })).body.data.settings, replaced.body.data.settings, 'an omitted settings map is kept');
});

t.test('credentials: checked per provider, never answered, replaced whole, removed with null', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  const body = { name: 'dd', kind: 'metrics', provider: 'datadog', settings: { site: 'datadoghq.com' }, credentials: { api_key: 'cred-secret-1', application_key: 'cred-secret-2' } };
  const made = await api.post(PATH, body);
  t.equal(made.status, 201);
  t.equal(made.body.data.credentials_set, true);
  t.notOk(leaks(made.body), 'not in the create answer');
  const path = `${PATH}/${made.body.data.id}`;
  t.notOk(leaks((await api.get(path)).body), 'not in a read');
  t.notOk(leaks((await api.get(PATH)).body), 'not in a list');
  const dup = await api.post(PATH, body);
  t.equal(dup.status, 409);
  t.notOk(leaks(dup.body), 'not in the 409 data');

  const wrong = await api.put(path, { credentials: { api_key: 'cred-secret-3', password: 'cred-secret-4' } });
  t.equal(wrong.status, 422);
  t.same(fieldsOf(wrong), ['credentials.password'], 'a key the provider does not take is named');
  t.notOk(leaks(wrong.body), 'not in a refusal');
  const cloud = await api.post(PATH, { name: 'cw', kind: 'logs', provider: 'cloudwatch_logs', settings: { region: 'us-east-1' }, credentials: { secret_access_key: 'cred-secret-5' } });
  t.same(fieldsOf(cloud), ['credentials.secret_access_key'], 'the cloud providers take no credentials');
  t.match(cloud.body.errors[0].message, /takes no credentials/);

  vigil.clock.advance(1000);
  const kept = await api.put(path, { enabled: false });
  t.equal(kept.body.data.credentials_set, true, 'omitted credentials are kept');
  const rotated = await api.put(path, { credentials: { api_key: 'cred-secret-6' } });
  t.not(rotated.headers.get('etag'), kept.headers.get('etag'), 'new credentials change the ETag');
  const removed = await api.put(path, { credentials: null });
  t.equal(removed.body.data.credentials_set, false, 'null removes the credentials');
  await api.put(path, { credentials: { api_key: 'cred-secret-7' } });
  const emptied = await api.put(path, { credentials: {} });
  t.equal(emptied.status, 200);
  t.equal(emptied.body.data.credentials_set, false, '{} removes them too');

  const agent = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  t.teardown(() => agent.close());
  t.notOk(leaks((await agent.call('get_connector', { id: made.body.data.id })).body), 'not in an agent-tool answer');
  const audit = (await api.get(`${CONFIG}/audit_log`)).body.data.filter((e: { family: string }) => e.family === 'connectors');
  t.notOk(/cred-secret|application_key/.test(JSON.stringify(audit)), 'no audit entry holds a credential, not even its key');
  t.same(audit.slice(1).map((e: { changes: Record<string, unknown> }) => e.changes.credentials), ['(set)', '(cleared)', '(changed)', undefined, '(set)']);
});

t.test('writes need the org admin role', async (t) => {
  const org = await vigil.organization();
  const member = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  t.teardown(() => member.close());
  const denied = await member.call('create_connector', { name: 'x', kind: 'logs', provider: 'loki', settings: { url: 'https://loki.example.com' } });
  t.equal(denied.isError, true);
  t.equal(denied.body.error, 'forbidden');
  t.equal((await member.call('list_connectors')).isError, false, 'a member lists');
});
