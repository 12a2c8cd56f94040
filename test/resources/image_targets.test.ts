/** image_targets: registry and repository as the natural key, tag patterns that compile, credentials never answered, watch results. */
import t from 'tap';
import imageTargets from '../../resources/image_targets.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [imageTargets] });
t.teardown(() => vigil.close());
const PATH = `${CONFIG}/image_targets`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);
const BODY = { registry: 'GHCR.io', repository: 'acme/checkout', service: 'checkout', credentials: { username: 'robot-user', password: 'registry-pass-secret' } };
/** whether a credential value, or a `credentials` member, appears anywhere in an answer */
const leaks = (answer: unknown) => /robot-user|registry-pass-secret|registry-token-secret/.test(JSON.stringify(answer)) || /"credentials":\{/.test(JSON.stringify(answer));

t.test('defaults; the registry is stored lowercased and with the repository is the natural key', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, BODY);
  t.equal(made.status, 201);
  t.same(made.body.data, {
    id: made.body.data.id, registry: 'ghcr.io', repository: 'acme/checkout', tag_pattern: null, service: 'checkout', environment: '',
    credentials_set: true, enabled: true, last_seen_tag: null, last_seen_at: null,
    created_at: '2026-03-01T12:00:00.000Z', updated_at: '2026-03-01T12:00:00.000Z',
  });
  const dup = await api.post(PATH, { registry: 'ghcr.IO', repository: 'acme/checkout', service: 'other' });
  t.equal(dup.status, 409);
  t.equal(dup.body.data.id, made.body.data.id);
  t.equal((await api.post(PATH, { ...BODY, repository: 'acme/checkout-worker' })).status, 201, 'another repository is another target');
  t.equal((await api.post(PATH, { ...BODY, registry: 'registry.example.com:5000' })).status, 201, 'another registry is another target');
});

t.test('a tag pattern must compile, and the refusal names it without repeating it', async (t) => {
  const api = await (await vigil.organization()).key();
  for (const pattern of ['(v1', '[a-', '*latest', 'a{2,1}', '\\p{Nope}']) {
    const answer = await api.post(PATH, { registry: 'ghcr.io', repository: 'acme/x', service: 's', tag_pattern: pattern });
    t.equal(answer.status, 422, `${pattern} is refused`);
    t.same(fieldsOf(answer), ['tag_pattern']);
    t.match(answer.body.errors[0].message, /must be a valid regular expression/);
    t.notOk(answer.body.errors[0].message.includes(pattern), 'the message does not repeat the pattern');
  }
  const made = await api.post(PATH, { registry: 'ghcr.io', repository: 'acme/x', service: 's', tag_pattern: '^v\\d+\\.\\d+\\.\\d+$' });
  t.equal(made.status, 201);
  const path = `${PATH}/${made.body.data.id}`;
  const bad = await api.put(path, { tag_pattern: '(' });
  t.equal(bad.status, 422, 'on update too');
  t.same(fieldsOf(bad), ['tag_pattern']);
  t.equal((await api.put(path, { tag_pattern: null })).body.data.tag_pattern, null, 'null watches every tag');
});

t.test('registries and repositories that are refused', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [string, Record<string, unknown>, string][] = [
    ['a URL as registry', { registry: 'https://ghcr.io' }, 'registry'],
    ['a registry with a path', { registry: 'ghcr.io/acme' }, 'registry'],
    ['port 0', { registry: 'ghcr.io:0' }, 'registry'],
    ['port 65536', { registry: 'ghcr.io:65536' }, 'registry'],
    ['an uppercase repository', { repository: 'Acme/Checkout' }, 'repository'],
    ['a repository with a tag', { repository: 'acme/checkout:v1' }, 'repository'],
    ['a leading slash', { repository: '/acme/checkout' }, 'repository'],
    ['a repository of 256 characters', { repository: `acme/${'x'.repeat(251)}` }, 'repository'],
    ['no service', { service: undefined }, 'service'],
    ['an empty service', { service: '' }, 'service'],
  ];
  for (const [name, change, field] of cases) {
    const answer = await api.post(PATH, { registry: 'ghcr.io', repository: 'acme/x', service: 's', ...change });
    t.equal(answer.status, 422, name);
    t.same(fieldsOf(answer), [field], `${name} names ${field}`);
  }
  for (const [registry, repository] of [['localhost:5000', 'team/app'], ['docker.io', 'library/nginx'], ['registry.example.com', 'a.b_c__d-e/f--g']]) {
    t.equal((await api.post(PATH, { registry, repository, service: 's' })).status, 201, `${registry}/${repository} is accepted`);
  }
});

t.test('credentials are write-only: two shapes, never answered, null removes them', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, BODY);
  t.notOk(leaks(made.body), 'not in the create answer');
  const path = `${PATH}/${made.body.data.id}`;
  t.notOk(leaks((await api.get(path)).body), 'not in a read');
  t.notOk(leaks((await api.get(PATH)).body), 'not in a list');
  const dup = await api.post(PATH, BODY);
  t.equal(dup.status, 409);
  t.notOk(leaks(dup.body), 'not in the 409 data');
  const stale = await api.put(path, { credentials: { token: 'registry-token-secret' } }, { 'if-match': '"stale"' });
  t.equal(stale.status, 412);
  t.notOk(leaks(stale.body), 'not in the 412 data');

  for (const [name, credentials] of [
    ['a user name alone', { username: 'robot-user' }],
    ['a token beside a password', { token: 'registry-token-secret', password: 'registry-pass-secret' }],
    ['an empty token', { token: '' }],
    ['an empty object', {}],
    ['a string', 'registry-token-secret'],
  ] as const) {
    const refused = await api.put(path, { credentials });
    t.equal(refused.status, 422, `${name} is refused`);
    t.ok(fieldsOf(refused).some((f: string) => f === 'credentials' || f.startsWith('credentials.')), 'naming credentials or the key of the closest shape');
    t.notOk(leaks(refused.body), 'without repeating a value');
  }
  const token = await api.put(path, { credentials: { token: 'registry-token-secret' } });
  t.equal(token.status, 200, 'a token replaces the user name and password');
  t.equal(token.body.data.credentials_set, true);
  t.equal((await api.put(path, { enabled: false })).body.data.credentials_set, true, 'omitted credentials are kept');
  const removed = await api.put(path, { credentials: null });
  t.equal(removed.body.data.credentials_set, false, 'null removes them');

  const audit = await api.get(`${CONFIG}/audit_log`);
  t.notOk(leaks(audit.body), 'no audit entry holds a credential');
  const markers = audit.body.data.filter((e: { family: string }) => e.family === 'image_targets').map((e: { changes: Record<string, unknown> }) => e.changes.credentials);
  t.same(markers, ['(cleared)', undefined, '(changed)', '(set)']);
  const exported = await api.get(`${CONFIG}/export?format=hcl`);
  t.notOk(/robot-user|registry-pass-secret|registry-token-secret/.test(String(exported.body)), 'the export holds no credential');

  const agent = await connectAgent(vigil.url, (await (await vigil.organization()).key(['mcp:admin'])).token);
  t.teardown(() => agent.close());
  const viaAgent = await agent.call('create_image_target', BODY);
  t.notOk(viaAgent.isError);
  t.equal(viaAgent.body.data.credentials_set, true);
  t.notOk(leaks(viaAgent.body), 'not answered to an agent');
  t.notOk(leaks((await agent.call('list_image_targets')).body));
});

t.test('watch results are read-only and never change the ETag', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { registry: 'ghcr.io', repository: 'acme/results', service: 's' });
  const path = `${PATH}/${made.body.data.id}`;
  for (const field of ['last_seen_tag', 'last_seen_at', 'credentials_set']) {
    const answer = await api.put(path, { [field]: null });
    t.equal(answer.status, 422, `${field} is refused`);
    t.same(fieldsOf(answer), [field]);
  }
  const db = vigil.running.services.db.em.fork();
  await db.execute(`update cfg_image_targets set last_seen_tag = 'v1.2.3', last_seen_at = ? where id = ?`, ['2026-03-01T11:00:00Z', made.body.data.id]);
  const read = await api.get(path);
  t.match(read.body.data, { last_seen_tag: 'v1.2.3', last_seen_at: '2026-03-01T11:00:00.000Z' });
  t.equal(read.headers.get('etag'), made.headers.get('etag'), 'a seen tag is not configuration');
});
