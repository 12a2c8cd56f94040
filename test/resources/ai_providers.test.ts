/** ai_providers: key handling, per-purpose model pins, limits, and delete without the plan feature. */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const PATH = `${CONFIG}/ai_providers`;

t.test('api_key: write-only, kept when omitted, refused empty or as a URL', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { name: 'main', provider: 'vendor_a', api_key: 'sk-live-abcdef' });
  t.equal(made.body.data.api_key_set, true);
  t.notOk('api_key' in made.body.data);
  const id = made.body.data.id;
  const renamed = await api.put(`${PATH}/${id}`, { name: 'primary' });
  t.equal(renamed.body.data.api_key_set, true, 'an omitted key keeps the stored one');
  for (const api_key of ['', 'https://vendor.example.com/v1', 'HTTP://x']) {
    const refused = await api.put(`${PATH}/${id}`, { api_key });
    t.equal(refused.status, 422);
    t.equal(refused.body.errors[0].field, 'api_key');
    t.notOk(JSON.stringify(refused.body).includes(api_key || '""""'), 'the refused value is not echoed');
  }
  const changedEtag = await api.put(`${PATH}/${id}`, { api_key: 'sk-live-rotated' });
  t.not(changedEtag.headers.get('etag'), renamed.headers.get('etag'), 'a new key changes the ETag');
  const same = await api.put(`${PATH}/${id}`, { api_key: 'sk-live-rotated' });
  t.equal(same.headers.get('etag'), changedEtag.headers.get('etag'), 'the same key again changes nothing');
  const audit = (await api.get(`${CONFIG}/audit_log`)).body.data;
  t.equal(audit[0].changes.api_key, '(changed)');
  t.equal(audit.length, 3, 'create, rename, key change; the repeat wrote nothing');
  const noKey = await api.post(PATH, { name: 'keyless', provider: 'self_hosted', base_url: 'https://models.internal.example/v1' });
  t.equal(noKey.body.data.api_key_set, false);
});

t.test('model_overrides merge per purpose; "" clears a pin; auto is allowed; unknown purposes named', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { name: 'p', provider: 'vendor_b', model_overrides: { investigation: 'big', pr_review: 'mid', finops: '' } });
  t.same(made.body.data.model_overrides, { investigation: 'big', pr_review: 'mid' });
  const path = `${PATH}/${made.body.data.id}`;
  const merged = await api.put(path, { model_overrides: { investigation: '', remediation: 'auto' } });
  t.same(merged.body.data.model_overrides, { pr_review: 'mid', remediation: 'auto' }, 'one purpose changed, the others kept');
  const refused = await api.put(path, { model_overrides: { dreaming: 'x', chat_assistant: 5 } });
  t.equal(refused.status, 422);
  t.same(refused.body.errors.map((e: { field: string }) => e.field).sort(), ['model_overrides.chat_assistant', 'model_overrides.dreaming']);
});

t.test('limits at their edges', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [Record<string, unknown>, boolean][] = [
    [{ temperature: 0 }, true], [{ temperature: 2 }, true], [{ temperature: 2.01 }, false], [{ temperature: -0.1 }, false],
    [{ timeout_ms: 600000 }, true], [{ timeout_ms: 600001 }, false],
    [{ priority: 1 }, true], [{ priority: 0 }, false], [{ priority: 1.5 }, false],
    [{ temperature: null, timeout_ms: null, max_tokens: null, rate_limit_rpm: null, model: null, base_url: null }, true],
    [{ base_url: 'not a url' }, false],
  ];
  let n = 0;
  for (const [body, ok] of cases) {
    const answer = await api.post(PATH, { name: `edge ${n++}`, provider: 'vendor_a', ...body });
    t.equal(answer.status, ok ? 201 : 422, JSON.stringify(body));
    if (!ok) t.equal(answer.body.errors[0].field, Object.keys(body)[0]);
  }
});

t.test('list order, inherited_from, and renaming onto another name', async (t) => {
  const api = await (await vigil.organization()).key();
  await api.post(PATH, { name: 'b', provider: 'vendor_a', priority: 2 });
  const a = await api.post(PATH, { name: 'a', provider: 'vendor_a', priority: 2 });
  await api.post(PATH, { name: 'z', provider: 'vendor_a', priority: 1 });
  const list = await api.get(PATH);
  t.same(list.body.data.map((r: { name: string }) => r.name), ['z', 'a', 'b'], 'lowest priority first, then name');
  t.ok(list.body.data.every((r: { inherited_from: unknown }) => r.inherited_from === null));
  const clash = await api.put(`${PATH}/${a.body.data.id}`, { name: 'b' });
  t.equal(clash.status, 409);
  t.equal(clash.body.data.name, 'b');
});

t.test('without byo_ai_provider: create and update refused, delete still works', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key();
  const made = await api.post(PATH, { name: 'p', provider: 'vendor_a', api_key: 'sk-keep-me' });
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { features: { byo_ai_provider: false } });
  const create = await api.post(PATH, { name: 'q', provider: 'vendor_a' });
  t.equal(create.status, 403);
  t.equal(create.body.error, 'plan_required');
  t.equal((await api.put(`${PATH}/${made.body.data.id}`, { priority: 2 })).status, 403);
  t.equal((await api.get(PATH)).body.data.length, 1, 'the provider is still listed');
  t.equal((await api.del(`${PATH}/${made.body.data.id}`)).status, 204, 'a plan without the feature cannot trap a key');
});

t.test('racing creates of one name make one row; the others get the 409 with it', async (t) => {
  const api = await (await vigil.organization()).key();
  const answers = await Promise.all(Array.from({ length: 6 }, () => api.post(PATH, { name: 'same', provider: 'vendor_a' })));
  t.same(answers.map((a) => a.status).sort(), [201, 409, 409, 409, 409, 409]);
  const winner = answers.find((a) => a.status === 201)!.body.data.id;
  t.ok(answers.filter((a) => a.status === 409).every((a) => a.body.data.id === winner));
  t.equal((await api.get(PATH)).body.data.length, 1);
});
