/** status_page_components: order and move, SLO links across organizations, worst status, archive. */
import t from 'tap';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const PATH = `${CONFIG}/status_page_components`;

async function slo(api: Client, name: string): Promise<string> {
  const sli = await api.post(`${CONFIG}/slis`, { name: `${name} sli`, service: 'api', indicator: 'availability' });
  const made = await api.post(`${CONFIG}/slos`, { name, sli_id: sli.body.data.id, target_percent: 99.9 });
  return made.body.data.id;
}

const names = async (api: Client, query = '') => (await api.get(`${PATH}${query}`)).body.data.map((c: { display_name: string }) => c.display_name);

t.test('components append in order; move shifts one place; the edges refuse or notice', async (t) => {
  const api = await (await vigil.organization()).key();
  const ids: string[] = [];
  for (const name of ['A', 'B', 'C']) ids.push((await api.post(PATH, { display_name: name })).body.data.id);
  t.same(await names(api), ['A', 'B', 'C']);
  const moved = await api.put(`${PATH}/${ids[2]}`, { move: 'up' });
  t.equal(moved.status, 200);
  t.same(await names(api), ['A', 'C', 'B']);
  const top = await api.put(`${PATH}/${ids[0]}`, { move: 'up' });
  t.equal(top.status, 422, 'a move that moves nothing and asks nothing else is refused');
  t.equal(top.body.errors[0].field, 'move');
  const withMore = await api.put(`${PATH}/${ids[1]}`, { move: 'down', description: 'bottom' });
  t.equal(withMore.status, 200, 'a call that asked for more succeeds');
  t.equal(withMore.body.data.description, 'bottom');
  t.match(withMore.body.notices, [{ field: 'move', message: /bottom/ }], 'and says the move did nothing');
  t.equal((await api.put(`${PATH}/${ids[0]}`, { move: 'sideways' })).status, 422);
  const audit = (await api.get(`${CONFIG}/audit_log`)).body.data;
  t.same(audit[1].changes, { position: { before: 3, after: 2 } }, 'a move is audited');
});

t.test('slo_ids is the full set; foreign ids are not linked and are named', async (t) => {
  const api = await (await vigil.organization()).key();
  const other = await (await vigil.organization()).key();
  const mine = await slo(api, 'mine');
  const theirs = await slo(other, 'theirs');
  const made = await api.post(PATH, { display_name: 'API', slo_ids: [mine, theirs, 'made-up'] });
  t.equal(made.status, 201);
  t.same(made.body.data.slo_ids, [mine]);
  t.equal(made.body.notices[0].field, 'slo_ids');
  t.match(made.body.notices[0].message, /the ids at \[1\], \[2\] are not active rows of slos/, 'each id not linked is named by its place in the list');
  t.notMatch(made.body.notices[0].message, theirs, 'the ids sent are not repeated');
  t.notMatch(made.body.notices[0].message, 'made-up');
  const path = `${PATH}/${made.body.data.id}`;
  t.same((await api.put(path, { description: 'x' })).body.data.slo_ids, [mine], 'omitting slo_ids leaves the links');
  t.same((await api.put(path, { slo_ids: [] })).body.data.slo_ids, [], '[] unlinks everything');
});

t.test('status is the worst among linked SLOs, none when no SLO is linked', async (t) => {
  const api = await (await vigil.organization()).key();
  const [a, b] = [await slo(api, 'a'), await slo(api, 'b')];
  const none = await api.post(PATH, { display_name: 'none' });
  t.equal(none.body.data.status, null);
  const linked = await api.post(PATH, { display_name: 'linked', slo_ids: [a, b] });
  t.equal(linked.body.data.status, 'no_data', 'unevaluated SLOs report no_data');
  const db = vigil.running.services.db.em.fork();
  await db.execute(`update cfg_slos set status = 'breaching' where id = ?`, [b]);
  await db.execute(`update cfg_slos set status = 'ok' where id = ?`, [a]);
  const read = await api.get(`${PATH}/${linked.body.data.id}`);
  t.equal(read.body.data.status, 'breaching');
  t.equal(read.headers.get('etag'), linked.headers.get('etag'), 'status is not configuration');
  t.equal((await api.get(PATH)).body.data.find((c: { id: string }) => c.id === linked.body.data.id).status, 'breaching', 'lists show it too');
});

t.test('delete archives: the row reads, updates are refused, lists hide it unless asked', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  const id = (await api.post(PATH, { display_name: 'old' })).body.data.id;
  await api.post(PATH, { display_name: 'new' });
  t.equal((await api.del(`${PATH}/${id}`)).status, 204);
  const read = await api.get(`${PATH}/${id}`);
  t.equal(read.status, 200);
  t.equal(read.body.data.archived_at, vigil.clock.now().toISOString());
  const update = await api.put(`${PATH}/${id}`, { display_name: 'revived' });
  t.equal(update.status, 409);
  t.equal(update.body.data.display_name, 'old');
  t.equal((await api.del(`${PATH}/${id}`)).status, 204, 'deleting again changes nothing');
  t.same(await names(api), ['new']);
  t.same(await names(api, '?include_archived=true'), ['old', 'new']);
  const again = await api.post(PATH, { display_name: 'old' });
  t.not(again.body.data.id, id, 're-creating gives a new id');
  t.equal(again.body.data.position, 3, 'appended last');
});

t.test('needs the status page feature', async (t) => {
  const org = await vigil.organization('business', { status_page: false });
  const api = await org.key();
  for (const answer of [await api.get(PATH), await api.post(PATH, { display_name: 'x' })]) {
    t.equal(answer.status, 403);
    t.equal(answer.body.error, 'plan_required');
  }
});
