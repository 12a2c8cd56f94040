/**
 * Issue 21, "Pages instead of a wall": family lists and the audit log page with `limit` and an opaque `cursor`,
 * through REST (with an RFC 8288 Link) and the agent tools alike. Thousands of rows are paged while other requests
 * create and delete rows: no row that stayed is skipped, none is answered twice. A cursor that was altered or
 * issued for another list, filter or organization, and a limit out of range, are 422 naming the field.
 */
import t, { type Test } from 'tap';
import Type from 'typebox';
import { defineFamily } from '../../engine/descriptor.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { sqlExecutor } from '../../engine/persistence/sql.ts';
import { client, CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

/** Ordered by a nullable rank, descending, so ties (creation time, then id) and nulls are both paged through. */
const gauges = defineFamily({
  name: 'gauges',
  description: 'a throwaway family ordered by a nullable rank, descending',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['name'],
  order: [{ field: 'rank', direction: 'desc' }],
  archive: { field: 'archived_at' },
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1 }),
    rank: Type.Union([Type.Integer(), Type.Null()], { default: null }),
    archived_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { readOnly: true }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  examples: { valid: [{ name: 'a' }], invalid: [], update: { rank: 2 } },
});

const vigil = await startVigil({ extraFamilies: [gauges] });
t.teardown(() => vigil.close());
const sql = sqlExecutor(vigil.running.services.db);
const ROWS = 3000;

/**
 * ROWS rows in one statement: ranks 0..12 with every tenth null, creation times spread over 7 milliseconds plus a
 * microsecond part (so many rows tie on rank and time, and the cursor must keep the microseconds).
 */
async function seed(organizationId: string): Promise<void> {
  await sql(
    `insert into "${tableName(gauges)}" (id, organization_id, row_version, created_at, updated_at, name, rank, archived_at)
     select gen_random_uuid()::text, ?, 1, t, t, 'seed ' || g, case when g % 10 = 0 then null else g % 13 end, null
     from generate_series(1, ${ROWS}) g, lateral (select ?::timestamptz + make_interval(secs => (g % 7) / 1000.0 + (g % 3) / 1000000.0) as t) times`,
    [organizationId, '2026-03-01T11:00:00.000Z'],
  );
}

interface Page {
  ids: string[];
  next: string | null;
}

/** Reads every page while `disturb` runs beside it; answers the ids in the order answered. */
async function pageThrough(read: (cursor: string | null) => Promise<Page>, disturb: () => Promise<void>): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const [page]: [Page, void] = await Promise.all([read(cursor), disturb()]);
    ids.push(...page.ids);
    cursor = page.next;
    pages++;
  } while (cursor !== null && pages < 1000);
  return { ids, pages };
}

/** Creates a row and deletes a seeded one (not yet answered, or already answered) beside each page read. */
function disturbance(api: Client, seeded: string[]) {
  const deleted = new Set<string>();
  const created = new Set<string>();
  let n = 0;
  const run = async () => {
    n++;
    const victims = [seeded[(n * 37) % seeded.length]!, seeded[(n * 91 + 5) % seeded.length]!].filter((id) => !deleted.has(id));
    const made = api.post(`${CONFIG}/gauges`, { name: `during ${n} ${Math.random()}`, rank: n % 15 });
    await Promise.all([made.then((a) => created.add(a.body.data.id)), ...victims.map(async (id) => {
      deleted.add(id);
      await sql(`delete from "${tableName(gauges)}" where id = ?`, [id]);
    })]);
  };
  return { run, deleted, created };
}

function checkPaged(t: Test, answered: string[], seeded: string[], deleted: Set<string>, created: Set<string>) {
  t.equal(new Set(answered).size, answered.length, 'no row is answered twice');
  const seen = new Set(answered);
  const skipped = seeded.filter((id) => !deleted.has(id) && !seen.has(id));
  t.same(skipped, [], 'every row that stayed is answered');
  t.ok(answered.every((id) => seeded.includes(id) || created.has(id)), 'nothing else is answered');
}

t.test('REST: pages over thousands of rows while rows are created and deleted', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  await seed(org.id);
  const first = await api.get(`${CONFIG}/gauges?limit=100`);
  t.equal(first.status, 200);
  t.equal(first.body.data.length, 100);
  t.type(first.body.next_cursor, 'string');
  t.equal(first.body.truncated, true, 'truncated says a next page exists');
  const link = first.headers.get('link')!;
  t.match(link, /^<http:\/\/[^>]+\/api\/v1\/config\/gauges\?[^>]*cursor=[^>]+>; rel="next"$/, 'an RFC 8288 Link to the next page');
  const linked = await api.get(link.slice(link.indexOf('/api/'), link.indexOf('>')));
  const second = await api.get(`${CONFIG}/gauges?limit=100&cursor=${encodeURIComponent(first.body.next_cursor)}`);
  t.same(linked.body.data, second.body.data, 'following the Link reads the next page');
  t.equal(new URL(link.slice(1, link.indexOf('>'))).searchParams.get('limit'), '100', 'the Link keeps the limit');

  // the whole list at rest, in one query: the order every page must follow
  const whole = (await sql(`select id from "${tableName(gauges)}" where organization_id = ? order by rank desc nulls last, created_at asc, id asc`, [org.id])).map((r) => String(r.id));
  t.equal(whole.length, ROWS);
  const still = await pageThrough(async (cursor) => {
    const page = await api.get(`${CONFIG}/gauges?limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    return { ids: page.body.data.map((r: { id: string }) => r.id), next: page.body.next_cursor };
  }, async () => {});
  t.same(still.ids, whole, 'pages at rest answer every row once, in the list order');
  t.equal(still.pages, ROWS / 250);

  const { run, deleted, created } = disturbance(api, whole);
  const paged = await pageThrough(async (cursor) => {
    const page = await api.get(`${CONFIG}/gauges?limit=97${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    t.equal(page.status, 200);
    t.equal(page.headers.get('link') === null, page.body.next_cursor === null, 'a Link exactly when a next page exists');
    return { ids: page.body.data.map((r: { id: string }) => r.id), next: page.body.next_cursor };
  }, run);
  t.ok(deleted.size > 50 && created.size > 25, 'rows were created and deleted while paging');
  checkPaged(t, paged.ids, whole, deleted, created);
  const last = await api.get(`${CONFIG}/gauges?limit=500&include_archived=false`);
  t.equal(last.body.data.length, 500);
});

t.test('MCP: the list tool pages the same way', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  await seed(org.id);
  const whole = (await sql(`select id from "${tableName(gauges)}" where organization_id = ? order by rank desc nulls last, created_at asc, id asc`, [org.id])).map((r) => String(r.id));
  const { run, deleted, created } = disturbance(api, whole);
  const paged = await pageThrough(async (cursor) => {
    const page = await agent.call('list_gauges', { limit: 113, ...(cursor ? { cursor } : {}) });
    t.notOk(page.isError);
    return { ids: page.body.data.map((r: { id: string }) => r.id), next: page.body.next_cursor };
  }, run);
  t.ok(paged.pages >= ROWS / 113);
  checkPaged(t, paged.ids, whole, deleted, created);

  const rest = await api.get(`${CONFIG}/gauges?limit=10`);
  const tool = await agent.call('list_gauges', { limit: 10 });
  t.same(tool.body.data, rest.body.data, 'the same first page through both');
  const restNext = await api.get(`${CONFIG}/gauges?limit=10&cursor=${encodeURIComponent(tool.body.next_cursor)}`);
  t.equal(restNext.status, 200, "a tool's cursor reads on REST too: it belongs to the list, not the transport");
  const { tools } = await agent.client.listTools();
  const list = tools.find((x) => x.name === 'list_gauges')!;
  t.same(Object.keys(list.inputSchema.properties ?? {}).sort(), ['cursor', 'include_archived', 'limit']);
  t.ok((list.outputSchema as unknown as { anyOf: { properties?: Record<string, unknown> }[] }).anyOf[0]!.properties!.next_cursor, 'next_cursor in the output schema');
});

t.test('without limit a list answers the whole first page of 500; the last page has next_cursor null and no Link', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  for (const name of ['a', 'b', 'c']) await api.post(`${CONFIG}/gauges`, { name });
  const all = await api.get(`${CONFIG}/gauges`);
  t.equal(all.body.data.length, 3);
  t.equal(all.body.next_cursor, null);
  t.equal(all.body.truncated, false);
  t.equal(all.headers.get('link'), null);
  const two = await api.get(`${CONFIG}/gauges?limit=2`);
  const rest = await api.get(`${CONFIG}/gauges?limit=2&cursor=${encodeURIComponent(two.body.next_cursor)}`);
  t.equal(rest.body.data.length, 1);
  t.equal(rest.body.next_cursor, null, 'null on the last page');
  await seed(org.id);
  const capped = await api.get(`${CONFIG}/gauges`);
  t.equal(capped.body.data.length, 500, 'the default page is 500 rows, the cap lists had before');
});

t.test('refusals: limit out of range or not a number, a cursor altered or from elsewhere', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  const other = await (await vigil.organization()).key();
  for (const name of ['a', 'b', 'c']) {
    await api.post(`${CONFIG}/gauges`, { name });
    await other.post(`${CONFIG}/gauges`, { name });
  }
  await api.post(`${CONFIG}/teams`, { name: 'one' });
  await api.post(`${CONFIG}/teams`, { name: 'two' });
  const cursor = (await api.get(`${CONFIG}/gauges?limit=1`)).body.next_cursor as string;
  const foreign = (await other.get(`${CONFIG}/gauges?limit=1`)).body.next_cursor as string;
  const teams = (await api.get(`${CONFIG}/teams?limit=1`)).body.next_cursor as string;
  const archived = (await api.get(`${CONFIG}/gauges?limit=1&include_archived=true`)).body.next_cursor as string;
  const [payload, mac] = cursor.split('.') as [string, string];
  const forged = `${Buffer.from(JSON.stringify([null, '2000-01-01 00:00:00+00', ''])).toString('base64url')}.${mac}`;
  const flipped = `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
  const cases: [string, string, string][] = [
    ['limit 0', 'limit=0', 'limit'],
    ['limit over the maximum', 'limit=501', 'limit'],
    ['limit not a number', 'limit=ten', 'limit'],
    ['limit not whole', 'limit=1.5', 'limit'],
    ['limit negative', 'limit=-3', 'limit'],
    ['a cursor that is not one', 'cursor=garbage', 'cursor'],
    ['an empty cursor', 'cursor=', 'cursor'],
    ['a forged payload under a real signature', `cursor=${encodeURIComponent(forged)}`, 'cursor'],
    ['an altered signature', `cursor=${encodeURIComponent(flipped)}`, 'cursor'],
    ["another organization's cursor", `cursor=${encodeURIComponent(foreign)}`, 'cursor'],
    ["another family's cursor", `cursor=${encodeURIComponent(teams)}`, 'cursor'],
    ['a cursor read under another filter', `cursor=${encodeURIComponent(archived)}`, 'cursor'],
    ['a cursor far too long', `cursor=${'a'.repeat(5000)}`, 'cursor'],
  ];
  for (const [name, query, field] of cases) {
    const answer = await api.get(`${CONFIG}/gauges?${query}`);
    t.equal(answer.status, 422, name);
    t.equal(answer.body.error, 'validation_failed', name);
    t.same(answer.body.errors.map((e: { field: string }) => e.field), [field], `${name} names ${field}`);
    t.notOk(JSON.stringify(answer.body).includes('2000-01-01'), `${name}: nothing sent is echoed`);
  }
  t.equal((await other.get(`${CONFIG}/gauges?cursor=${encodeURIComponent(foreign)}`)).status, 200, 'the same cursor reads for the organization it came from');

  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  for (const [name, args, field] of [
    ['limit 0', { limit: 0 }, 'limit'],
    ['limit over the maximum', { limit: 501 }, 'limit'],
    ['limit as text', { limit: '10' }, 'limit'],
    ['a cursor that is not one', { cursor: 'garbage' }, 'cursor'],
    ["another organization's cursor", { cursor: foreign }, 'cursor'],
    ["another family's cursor", { cursor: teams }, 'cursor'],
  ] as const) {
    const answer = await agent.call('list_gauges', args);
    t.ok(answer.isError, name);
    t.equal(answer.body.error, 'validation_failed', name);
    t.same(answer.body.errors.map((e: { field: string }) => e.field), [field], `${name} names ${field}`);
  }
});

t.test('the audit log pages: REST, the agent tool and the operator API', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  t.teardown(() => agent.close());
  // 1200 entries in one statement, some in the same millisecond: their insertion order is the log's order
  await sql(
    `insert into audit_log (id, organization_id, at, actor_kind, actor_id, transport, family, row_id, action, changes)
     select gen_random_uuid(), ?, ?::timestamptz + make_interval(secs => (g / 10) / 1000.0), 'api_key', 'seed', 'rest', 'teams', 'row ' || g, 'update', '{}'::jsonb
     from generate_series(1, 1200) g`,
    [org.id, '2026-03-01T10:00:00.000Z'],
  );
  const whole = (await sql('select id from audit_log where organization_id = ? order by seq desc', [org.id])).map((r) => String(r.id));
  let n = 0;
  const write = async () => {
    await api.post(`${CONFIG}/teams`, { name: `team ${++n}` });
  };
  const rest = await pageThrough(async (cursor) => {
    const page = await api.get(`${CONFIG}/audit_log?limit=150${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    t.equal(page.status, 200);
    if (page.body.next_cursor) t.match(page.headers.get('link'), /\/api\/v1\/config\/audit_log\?.*cursor=.*>; rel="next"$/);
    return { ids: page.body.data.map((r: { id: string }) => r.id), next: page.body.next_cursor };
  }, write);
  // an entry written after `whole` was read and before the first page (the service's own background work) is newest:
  // it may lead the first page, and nothing else may be added
  const fresh = rest.ids.findIndex((id: string) => whole.includes(id));
  t.same(rest.ids.slice(Math.max(fresh, 0)), whole, 'newest first, every entry once; entries written while paging come before the first page');
  const tool = await pageThrough(async (cursor) => {
    const page = await agent.call('list_audit_log', { limit: 400, ...(cursor ? { cursor } : {}) });
    return { ids: page.body.data.map((r: { id: string }) => r.id), next: page.body.next_cursor };
  }, write);
  t.same(tool.ids.slice(tool.ids.length - whole.length), whole, 'the tool pages to the same end');
  t.equal(new Set(tool.ids).size, tool.ids.length);
  const operator = await vigil.operator.get(`/api/admin/v1/organizations/${org.id}/audit_log`);
  t.equal(operator.body.data.length, 1000, "the operator's first page is 1000 entries, as before");
  const after = await vigil.operator.get(`/api/admin/v1/organizations/${org.id}/audit_log?cursor=${encodeURIComponent(operator.body.next_cursor)}`);
  t.equal(after.status, 200);
  t.same([...operator.body.data, ...after.body.data].map((e: { id: string }) => e.id).slice(-whole.length), whole);
  t.equal(after.body.next_cursor, null);
  t.equal((await api.get(`${CONFIG}/audit_log?limit=1001`)).body.errors[0].field, 'limit');
  t.equal((await api.get(`${CONFIG}/audit_log?cursor=${encodeURIComponent('x.y')}`)).body.errors[0].field, 'cursor');
});

t.test('the OpenAPI document describes every list page: limit, cursor, next_cursor, the Link header and the 422', async (t) => {
  const doc = (await client(vigil.url).get(`${CONFIG}/openapi.json`)).body;
  const lists = Object.entries(doc.paths as Record<string, { get?: any }>).filter(([, item]) => item.get?.operationId?.startsWith('list_') && item.get['x-vigil-role'] !== undefined);
  t.ok(lists.some(([path]) => path === '/gauges') && lists.some(([path]) => path === '/audit_log') && lists.length > 20);
  for (const [path, { get }] of lists) {
    const parameters = new Map(get.parameters.map((p: { name: string; in: string; schema: unknown }) => [p.name, p]));
    t.ok(parameters.has('cursor'), `${path}: a cursor`);
    if (!parameters.has('cursor')) continue;
    t.same((parameters.get('limit') as any).schema.minimum, 1, `${path}: limit from 1`);
    t.equal((parameters.get('cursor') as any).in, 'query', `${path}: cursor in the query`);
    t.ok(get.responses[200].headers?.Link, `${path}: the Link header`);
    t.ok(get.responses[422], `${path}: 422`);
    const schema = get.responses[200].content['application/json'].schema;
    t.ok(schema.properties.next_cursor, `${path}: next_cursor`);
  }
  const families = lists.filter(([path]) => doc.paths[path].get.tags[0] === path.slice(1) && !path.includes('{'));
  t.ok(families.filter(([, { get }]) => get.parameters.some((p: { name: string }) => p.name === 'cursor')).length > 20, 'every family list takes a cursor');
  const gauges = doc.paths['/gauges'].get;
  t.equal(gauges.parameters.find((p: { name: string }) => p.name === 'limit').schema.maximum, 500);
  t.equal(gauges.parameters.find((p: { name: string }) => p.name === 'limit').schema.default, 500);
  t.equal(doc.paths['/audit_log'].get.parameters.find((p: { name: string }) => p.name === 'limit').schema.maximum, 1000);
});
