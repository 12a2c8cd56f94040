/** alert_mutes: lowercased patterns, expiry by the clock, in-force conflicts, history, no update. */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const PATH = `${CONFIG}/alert_mutes`;

t.test('a mute with a duration expires, stays listed and deletable; the pattern is free again', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { pattern: 'CPU High', duration_minutes: 30, reason: 'deploy' });
  t.equal(made.status, 201);
  t.equal(made.body.data.pattern, 'cpu high', 'stored lowercased');
  t.equal(made.body.data.ends_at, new Date(vigil.clock.now().getTime() + 30 * 60_000).toISOString());
  t.equal(made.body.data.active, true);
  t.equal(made.body.data.created_via, 'rest');
  t.equal(made.body.data.created_by_user_id, null, 'an organization key is no user');
  const dup = await api.post(PATH, { pattern: 'cpu HIGH' });
  t.equal(dup.status, 409, 'an in-force mute holds its pattern');
  t.equal(dup.body.data.id, made.body.data.id);
  vigil.clock.advance(30 * 60_000);
  const expired = await api.get(`${PATH}/${made.body.data.id}`);
  t.equal(expired.body.data.active, false, 'at ends_at the mute is expired');
  t.equal(expired.headers.get('etag'), made.headers.get('etag'), 'expiry is not a configuration change');
  const again = await api.post(PATH, { pattern: 'cpu high' });
  t.equal(again.status, 201, 'an expired mute does not block its pattern');
  t.equal(again.body.data.ends_at, null, 'without a duration it lasts until removed');
  const list = await api.get(PATH);
  t.same(list.body.data.map((m: { active: boolean }) => m.active), [true, false], 'newest first; history kept');
  t.equal((await api.del(`${PATH}/${made.body.data.id}`)).status, 204, 'an expired mute can be deleted');
});

t.test('create-only duration, no update, limits', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { pattern: 'disk' });
  const put = await api.put(`${PATH}/${made.body.data.id}`, { duration_minutes: 5 });
  t.equal(put.status, 405);
  t.same(put.body.allowed, ['GET', 'POST', 'DELETE']);
  for (const [body, field] of [
    [{ pattern: 'a' }, 'pattern'], [{ pattern: 'x'.repeat(201) }, 'pattern'], [{ pattern: 'ok', duration_minutes: 10081 }, 'duration_minutes'],
    [{ pattern: 'ok', duration_minutes: 0 }, 'duration_minutes'], [{ pattern: 'ok', reason: 'r'.repeat(256) }, 'reason'], [{ pattern: 'ok', active: false }, 'active'],
  ] as const) {
    const refused = await api.post(PATH, body);
    t.equal(refused.status, 422);
    t.equal(refused.body.errors[0].field, field);
  }
  t.equal((await api.post(PATH, { pattern: 'x'.repeat(200), duration_minutes: 10080, reason: 'r'.repeat(255) })).status, 201, 'the upper edges are accepted');
  t.equal((await api.post(PATH, { pattern: 'ab', duration_minutes: 1 })).status, 201, 'the lower edges are accepted');
});

t.test('two racing creates of the same pattern make one mute', async (t) => {
  const api = await (await vigil.organization()).key();
  const answers = await Promise.all(Array.from({ length: 6 }, () => api.post(PATH, { pattern: 'race' })));
  t.same(answers.map((a) => a.status).sort(), [201, 409, 409, 409, 409, 409]);
  t.equal((await api.get(PATH)).body.data.length, 1);
});
