/** status_page_settings: a slug unique across organizations (422, no trace of the holder), null slugs shared, publishing needs a slug. */
import t from 'tap';
import statusPageSettings from '../../resources/status_page_settings.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [statusPageSettings] });
t.teardown(() => vigil.close());
const PATH = `${CONFIG}/status_page_settings`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);

t.test('defaults before anything is saved', async (t) => {
  const api = await (await vigil.organization()).key();
  const read = await api.get(PATH);
  t.equal(read.status, 200);
  t.same(read.body.data, { title: 'Status', public: false, slug: null, support_url: null, history_days: 90, updated_at: null });
});

t.test('a slug another organization holds is refused with 422 naming slug, and nothing of that organization', async (t) => {
  const firstOrg = await vigil.organization();
  const first = await firstOrg.key();
  const taken = await first.put(PATH, { title: 'Acme Secret Title', slug: 'acme', public: true });
  t.equal(taken.status, 200);
  const secondOrg = await vigil.organization();
  const second = await secondOrg.key();
  const refused = await second.put(PATH, { slug: 'acme', title: 'Mine' });
  t.equal(refused.status, 422);
  t.equal(refused.body.error, 'validation_failed');
  t.same(fieldsOf(refused), ['slug']);
  t.notOk('data' in refused.body, 'no row is answered');
  const text = JSON.stringify(refused.body);
  for (const trace of [firstOrg.id, 'Acme Secret Title']) t.notOk(text.includes(trace), 'no trace of the other organization');
  t.same((await second.get(PATH)).body.data.title, 'Status', 'nothing was written');

  const agent = await connectAgent(vigil.url, (await secondOrg.key(['mcp:admin'])).token);
  t.teardown(() => agent.close());
  const viaAgent = await agent.call('update_status_page_settings', { slug: 'acme' });
  t.ok(viaAgent.isError, 'the agent-tool endpoint refuses it alike');
  t.same({ error: viaAgent.body.error, errors: viaAgent.body.errors }, { error: refused.body.error, errors: refused.body.errors });
  t.notOk(JSON.stringify(viaAgent.body).includes(firstOrg.id));

  t.equal((await first.put(PATH, { title: 'Acme again', slug: 'acme' })).status, 200, 'the holder may send its own slug again');
  t.equal((await first.put(PATH, { public: false, slug: 'acme-2' })).status, 200, 'changing the slug frees the old one');
  const freed = await second.put(PATH, { slug: 'acme' });
  t.equal(freed.status, 200, 'a freed slug can be taken');
  t.equal(freed.body.data.slug, 'acme');
});

t.test('any number of organizations may leave slug null', async (t) => {
  for (let i = 0; i < 3; i++) {
    const api = await (await vigil.organization()).key();
    const saved = await api.put(PATH, { title: `Page ${i}`, slug: null });
    t.equal(saved.status, 200);
    t.equal(saved.body.data.slug, null);
  }
  const api = await (await vigil.organization()).key();
  await api.put(PATH, { slug: 'temporary' });
  t.equal((await api.put(PATH, { slug: null })).body.data.slug, null, 'a slug can be cleared');
});

t.test('publishing needs a slug; slugs, urls and history days that are refused', async (t) => {
  const api = await (await vigil.organization()).key();
  const unpublished = await api.put(PATH, { public: true });
  t.equal(unpublished.status, 422, 'a page without a slug cannot be public');
  t.same(fieldsOf(unpublished), ['slug']);
  t.equal((await api.put(PATH, { public: true, slug: 'ops-page' })).status, 200);
  const cleared = await api.put(PATH, { slug: null });
  t.equal(cleared.status, 422, 'the slug of a public page cannot be cleared');
  t.same(fieldsOf(cleared), ['slug']);
  const cases: [string, Record<string, unknown>, string][] = [
    ['two characters', { slug: 'ab' }, 'slug'],
    ['64 characters', { slug: 'a'.repeat(64) }, 'slug'],
    ['capitals', { slug: 'Ops' }, 'slug'],
    ['an underscore', { slug: 'ops_page' }, 'slug'],
    ['a trailing hyphen', { slug: 'ops-' }, 'slug'],
    ['an http support URL', { support_url: 'http://help.example.com' }, 'support_url'],
    ['a support URL that is no URL', { support_url: 'help' }, 'support_url'],
    ['14 history days', { history_days: 14 }, 'history_days'],
    ['an empty title', { title: '' }, 'title'],
  ];
  for (const [name, body, field] of cases) {
    const answer = await api.put(PATH, body);
    t.equal(answer.status, 422, name);
    t.same(fieldsOf(answer), [field], `${name} names ${field}`);
  }
  const ok = await api.put(PATH, { slug: `a${'0'.repeat(61)}z`, support_url: 'https://help.example.com/status', history_days: 7 });
  t.equal(ok.status, 200, 'a 63-character slug, an https URL and 7 days are accepted');
});

t.test('changing needs the org admin role and the status page feature', async (t) => {
  const org = await vigil.organization();
  const member = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  t.teardown(() => member.close());
  const refused = await member.call('update_status_page_settings', { title: 'x' });
  t.ok(refused.isError);
  t.equal(refused.body.error, 'forbidden');
  t.notOk((await member.call('get_status_page_settings')).isError, 'a member reads');
  const without = await (await vigil.organization('business', { status_page: false })).key();
  t.equal((await without.get(PATH)).body.error, 'plan_required');
});
