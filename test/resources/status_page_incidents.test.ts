/** status_page_incidents: updates posted through message (append-only, with statuses), resolved_at, component links across organizations. */
import t from 'tap';
import statusPageIncidents from '../../resources/status_page_incidents.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [statusPageIncidents] });
t.teardown(() => vigil.close());
const PATH = `${CONFIG}/status_page_incidents`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);
const component = async (api: Client, name: string) => (await api.post(`${CONFIG}/status_page_components`, { display_name: name })).body.data.id as string;
const at = (minutes: number) => new Date(Date.parse('2026-03-01T12:00:00.000Z') + minutes * 60_000).toISOString();

t.test('updates are posted through message, append-only, each with the status after the write', async (t) => {
  const start = vigil.clock.now().getTime();
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { title: 'Checkout errors', message: 'We are investigating.' });
  t.equal(made.status, 201);
  const t0 = new Date(start).toISOString();
  t.match(made.body.data, { status: 'investigating', impact: 'minor', component_ids: [], message: 'We are investigating.', started_at: t0, resolved_at: null });
  t.same(made.body.data.updates, [{ at: t0, status: 'investigating', message: 'We are investigating.' }]);
  const path = `${PATH}/${made.body.data.id}`;

  vigil.clock.advance(10 * 60_000);
  const identified = await api.put(path, { status: 'identified', message: 'A faulty deploy is the cause.' });
  t.equal(identified.status, 200);
  vigil.clock.advance(5 * 60_000);
  const more = await api.put(path, { message: 'Rolling back now.' });
  t.equal(more.body.data.status, 'identified', 'a message without a status posts with the current status');
  vigil.clock.advance(5 * 60_000);
  const impact = await api.put(path, { impact: 'major', title: 'Checkout errors in EU' });
  t.equal(impact.body.data.updates.length, 3, 'changing other fields posts nothing');
  t.equal(impact.body.data.message, 'Rolling back now.', 'message answers the latest update');
  const entries = impact.body.data.updates;
  t.same(entries.map((u: { at: string; status: string }) => [u.at, u.status]), [
    [new Date(start).toISOString(), 'investigating'], [new Date(start + 600_000).toISOString(), 'identified'], [new Date(start + 900_000).toISOString(), 'identified'],
  ], 'oldest first, stamped with the time of the write');

  const noMessage = await api.put(path, { status: 'monitoring' });
  t.equal(noMessage.status, 422, 'a status change without a message is refused');
  t.same(fieldsOf(noMessage), ['message']);
  for (const body of [{ updates: [] }, { updates: [{ at: at(0), status: 'resolved', message: 'rewritten' }] }, { started_at: at(-60) }, { resolved_at: null }]) {
    const refused = await api.put(path, body);
    t.equal(refused.status, 422, `${Object.keys(body)[0]} cannot be sent`);
    t.same(fieldsOf(refused), Object.keys(body));
  }
  t.same((await api.get(path)).body.data.updates, entries, 'the timeline is untouched by refused writes');

  const etag = (await api.get(path)).headers.get('etag');
  const audit = async () => (await api.get(`${CONFIG}/audit_log`)).body.data.length;
  const before = await audit();
  const retried = await api.put(path, { message: 'Rolling back now.' });
  t.equal(retried.status, 200);
  t.equal(retried.body.data.updates.length, 3, 'repeating the latest message and status posts nothing (a retry never posts twice)');
  t.equal(retried.headers.get('etag'), etag);
  t.equal(await audit(), before, 'and writes and audits nothing');
  const restated = await api.put(path, { status: 'monitoring', message: 'Rolling back now.' });
  t.equal(restated.body.data.updates.length, 4, 'the same words with a new status are a new update');
});

t.test('resolved_at is set on resolving and cleared on reopening', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { title: 'Login slow', message: 'Looking into it.' });
  const path = `${PATH}/${made.body.data.id}`;
  vigil.clock.advance(60_000);
  const resolvedAt = vigil.clock.now().toISOString();
  const resolved = await api.put(path, { status: 'resolved', message: 'Fixed.' });
  t.equal(resolved.body.data.resolved_at, resolvedAt);
  vigil.clock.advance(60_000);
  const postmortem = await api.put(path, { message: 'Postmortem published.' });
  t.equal(postmortem.body.data.resolved_at, resolvedAt, 'an update to a resolved incident keeps resolved_at');
  vigil.clock.advance(60_000);
  const reopened = await api.put(path, { status: 'investigating', message: 'It is back.' });
  t.equal(reopened.body.data.resolved_at, null, 'reopening clears resolved_at');
  t.same(reopened.body.data.updates.map((u: { status: string }) => u.status), ['investigating', 'resolved', 'resolved', 'investigating'], 'the earlier resolution stays in the timeline');
  vigil.clock.advance(60_000);
  const again = await api.put(path, { status: 'resolved', message: 'Fixed for good.' });
  t.equal(again.body.data.resolved_at, vigil.clock.now().toISOString(), 'resolving again stamps the new time');
  const born = await api.post(PATH, { title: 'Backfilled', status: 'resolved', impact: 'none', message: 'Resolved already.' });
  t.equal(born.body.data.resolved_at, born.body.data.started_at, 'created resolved: resolved at once');
});

t.test('component ids: foreign, unknown and archived ones are not linked and are named', async (t) => {
  const api = await (await vigil.organization()).key();
  const other = await (await vigil.organization()).key();
  const mine = await component(api, 'API');
  const archived = await component(api, 'Legacy');
  await api.del(`${CONFIG}/status_page_components/${archived}`);
  const theirs = await component(other, 'Their API');
  const made = await api.post(PATH, { title: 'Errors', message: 'Investigating.', component_ids: [mine, theirs, archived, 'made-up'] });
  t.equal(made.status, 201);
  t.same(made.body.data.component_ids, [mine]);
  t.equal(made.body.notices.length, 1);
  t.equal(made.body.notices[0].field, 'component_ids');
  t.match(made.body.notices[0].message, /the ids at \[1\], \[2\], \[3\] are not active rows/, 'names each id not linked by its place in the list');
  for (const id of [theirs, archived, 'made-up']) t.notMatch(made.body.notices[0].message, id, 'and does not repeat it');
  t.notOk(JSON.stringify(made.body).includes('Their API'), 'nothing of the other organization is answered');
  const path = `${PATH}/${made.body.data.id}`;
  t.same((await api.put(path, { title: 'Errors!' })).body.data.component_ids, [mine], 'omitted: links kept');
  t.same((await api.put(path, { component_ids: [] })).body.data.component_ids, [], '[] unlinks all');
  const both = await api.put(path, { component_ids: [mine, mine] });
  t.same(both.body.data.component_ids, [mine], 'an id sent twice is linked once');
});

t.test('an agent posts updates the same way', async (t) => {
  const org = await vigil.organization();
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  t.teardown(() => agent.close());
  const made = await agent.call('create_status_page_incident', { title: 'Queue backlog', impact: 'major', message: 'Investigating delays.' });
  t.notOk(made.isError);
  const updated = await agent.call('update_status_page_incident', { id: made.body.data.id, status: 'monitoring', message: 'A fix is out.' });
  t.same(updated.body.data.updates.map((u: { status: string }) => u.status), ['investigating', 'monitoring']);
  const refused = await agent.call('update_status_page_incident', { id: made.body.data.id, status: 'resolved' });
  t.ok(refused.isError);
  t.same(refused.body.errors.map((e: { field: string }) => e.field), ['message']);
  const tools = (await agent.client.listTools()).tools;
  t.notOk('updates' in (tools.find((x) => x.name === 'update_status_page_incident')!.inputSchema.properties ?? {}), 'updates is no input');
});

t.test('lists answer the latest incident first; the status page feature is needed', async (t) => {
  const api = await (await vigil.organization()).key();
  await api.post(PATH, { title: 'first', message: 'm' });
  vigil.clock.advance(1000);
  await api.post(PATH, { title: 'second', message: 'm' });
  t.same((await api.get(PATH)).body.data.map((i: { title: string }) => i.title), ['second', 'first']);
  const without = await (await vigil.organization('business', { status_page: false })).key();
  for (const answer of [await without.get(PATH), await without.post(PATH, { title: 't', message: 'm' })]) {
    t.equal(answer.status, 403);
    t.equal(answer.body.error, 'plan_required');
  }
});
