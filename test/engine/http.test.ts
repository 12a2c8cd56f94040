/** HTTP-level refusals: bad JSON, wrong media type, size, unknown paths and methods. Never a 500. */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const api = await (await vigil.organization()).key();

t.test('healthz answers when the database does', async (t) => {
  const res = await fetch(`${vigil.url}/healthz`);
  t.equal(res.status, 200);
  t.same(await res.json(), { status: 'ok', version: JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version }, 'and the version it runs');
});

t.test('bodies that are not JSON objects are refused with a clear error', async (t) => {
  const cases: [string, string, Record<string, string>, number, string][] = [
    ['broken JSON', '{"pattern":', {}, 400, 'bad_request'],
    ['a JSON array', '["pattern"]', {}, 422, 'validation_failed'],
    ['a JSON string', '"pattern"', {}, 400, 'bad_request'],
    ['text/plain', 'pattern=x', { 'content-type': 'text/plain' }, 415, 'unsupported_media_type'],
    ['form data', 'pattern=x', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'unsupported_media_type'],
  ];
  for (const [label, body, headers, status, code] of cases) {
    const answer = await api.call('POST', `${CONFIG}/alert_mutes`, body, headers);
    t.equal(answer.status, status, label);
    t.equal(answer.body.error, code, label);
    t.type(answer.body.message, 'string');
  }
  const big = await api.post(`${CONFIG}/alert_mutes`, { pattern: 'x'.repeat(2 * 1024 * 1024) });
  t.equal(big.status, 413);
  t.equal(big.body.error, 'payload_too_large');
  t.same((await api.get(`${CONFIG}/alert_mutes`)).body.data, [], 'nothing was written');
});

t.test('unknown families, wrong methods and paths', async (t) => {
  const unknown = await api.get(`${CONFIG}/no_such_family`);
  t.equal(unknown.status, 404);
  t.equal(unknown.body.error, 'not_found');
  const patch = await api.patch(`${CONFIG}/alert_mutes/x`, {});
  t.equal(patch.status, 405);
  t.equal(patch.body.error, 'method_not_allowed');
  const postRow = await api.post(`${CONFIG}/alert_mutes/x`, {});
  t.equal(postRow.status, 405);
  t.equal(postRow.headers.get('allow'), 'GET, PUT, DELETE');
  const singletonId = await api.get(`${CONFIG}/organization_settings/x`);
  t.equal(singletonId.status, 404);
  t.equal((await api.get(`${CONFIG}/alert_mutes/%E0%A4%A`)).status, 400, 'a malformed percent-encoding is 400');
  t.equal((await api.get(`${CONFIG}/alert_mutes/%00`)).status, 404, 'a NUL in an id finds nothing');
  const nul = await api.post(`${CONFIG}/alert_mutes`, { pattern: 'a\u0000b' });
  t.equal(nul.status, 422, 'a NUL in a value is refused before the database sees it');
  t.equal(nul.body.errors[0].field, 'pattern');
  t.equal((await vigil.operator.post('/api/admin/v1/organizations', { name: 'x\u0000' })).status, 422, 'also by the operator API');
  const nowhere = await api.get('/nowhere');
  t.equal(nowhere.status, 404);
  t.equal(nowhere.body.error, 'not_found');
});

t.test('odd but well-formed values never cause a 500', async (t) => {
  const values = [null, true, 0, -1, 1e308, 'x', '', [], {}, [null], { a: { b: 1 } }, '\u0000', 'ü'.repeat(300)];
  for (const value of values) {
    for (const field of ['pattern', 'duration_minutes', 'reason']) {
      const answer = await api.post(`${CONFIG}/alert_mutes`, { pattern: 'ok-pattern', [field]: value });
      t.ok([201, 409, 422].includes(answer.status), `${field}=${JSON.stringify(value).slice(0, 20)} → ${answer.status}`);
    }
    const settings = await api.put(`${CONFIG}/organization_settings`, { monthly_ai_budget_usd: value, timezone: value });
    t.ok([200, 422].includes(settings.status), `settings ← ${JSON.stringify(value).slice(0, 20)}`);
  }
});
