/**
 * Issue 21, "Pages instead of a wall", for the lists of what the service records: cards, deployments, outbound and
 * webhook deliveries, chat messages, email notices, investigations, notifications and fix requests. One table of
 * lists, each taken through REST (with its Link header) and its agent tool: thousands of rows paged while rows are
 * inserted and deleted (none that stayed skipped, none answered twice), a filtered list paged at rest in exactly the
 * list's order, the old default page, and the refusals (a cursor altered, made up, from another organization, list
 * or filter; a limit over the maximum) as 422 naming the field.
 */
import t, { type Test } from 'tap';
import { sqlExecutor } from '../../engine/persistence/sql.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { connectAgent, type Agent } from '../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const sql = sqlExecutor(vigil.running.services.db);
const ROWS = 2000;
const BASE = '2026-03-01T10:00:00.000Z';

interface RecordListCase {
  tool: string;
  path: string;
  table: string;
  /** the list's order, as SQL */
  order: string;
  /** SQL inserting rows `from`..`to` (the `g` of generate_series) for the organization (parameters: organization, base time) */
  insert: string;
  /** a filter as query parameters / tool arguments, and the rows it keeps (SQL) */
  filter: { args: Record<string, string>; where: string };
}

const rows = (table: string, columns: string, values: string) =>
  `insert into ${table} (${columns}) select ${values} from generate_series(?::int, ?::int) g, lateral (select ?::timestamptz + make_interval(secs => g) as at) times`;

const LISTS: RecordListCase[] = [
  {
    tool: 'list_cards', path: 'cards', table: 'cards', order: 'seq desc',
    insert: rows('cards', 'id, organization_id, number, key, title, priority, labels, status, answer, created_at, updated_at',
      `gen_random_uuid(), ?, g, 'SD-' || g, 'card ' || g, 'normal', '[]'::jsonb, case when g % 3 = 0 then 'todo' else 'triage' end, '{}'::jsonb, at, at`),
    filter: { args: { status: 'to do' }, where: `status = 'todo'` },
  },
  {
    tool: 'list_deployments', path: 'deployments', table: 'timeline_entries', order: 'occurred_at desc, seq desc',
    // many entries share an instant (g % 400), so the order's tie-break (insertion, newest first) is paged through too
    insert: rows('timeline_entries', 'id, organization_id, source, event_type, status, service, occurred_at, created_at, updated_at',
      `gen_random_uuid(), ?, 'deployments', 'deploy', 'succeeded', case when g % 2 = 0 then 'api' else 'web' end, at - make_interval(secs => g) + make_interval(secs => g % 400), at, at`),
    filter: { args: { service: 'api' }, where: `service = 'api'` },
  },
  {
    tool: 'list_outbound_deliveries', path: 'outbound_deliveries', table: 'outbound_deliveries', order: 'seq desc',
    insert: rows('outbound_deliveries', 'id, organization_id, event_id, event_type, config_id, rule_ids, payload, status, attempts, round_offset, created_at, updated_at',
      `gen_random_uuid(), ?, gen_random_uuid(), 'alert.fired', 'config-1', '[]'::jsonb, '{}', case when g % 4 = 0 then 'dead' else 'delivered' end, 1, 0, at, at`),
    filter: { args: { status: 'dead' }, where: `status = 'dead'` },
  },
  {
    tool: 'list_webhook_deliveries', path: 'webhook_deliveries', table: 'webhook_deliveries', order: 'seq desc',
    insert: rows('webhook_deliveries', 'id, organization_id, source, received_at, status, outcome, size, headers',
      `gen_random_uuid(), ?, 'monitoring-a', at, 202, case when g % 5 = 0 then 'muted' else 'created' end, 10, '{}'::jsonb`),
    filter: { args: { outcome: 'muted' }, where: `outcome = 'muted'` },
  },
  {
    tool: 'list_chat_messages', path: 'chat_messages', table: 'chat_messages', order: 'seq desc',
    insert: rows('chat_messages', 'id, organization_id, event_type, method, text, blocks, status, attempts, created_at, updated_at',
      `gen_random_uuid(), ?, 'alert.fired', 'chat.postMessage', 'message ' || g, '[]'::jsonb, case when g % 3 = 0 then 'failed' else 'sent' end, 1, at, at`),
    filter: { args: { status: 'failed' }, where: `status = 'failed'` },
  },
  {
    tool: 'list_email_notices', path: 'email_notices', table: 'email_notices', order: 'seq desc',
    insert: rows('email_notices', 'id, organization_id, event_id, event_type, payload, created_at, send_after, batched, status, attempts',
      `gen_random_uuid(), ?, gen_random_uuid(), 'alert.fired', '{"type":"alert.fired","data":{}}', at, at, false, case when g % 2 = 0 then 'pending' else 'sent' end, 0`),
    filter: { args: { status: 'pending' }, where: `status = 'pending'` },
  },
  {
    tool: 'list_investigations', path: 'investigations', table: 'investigations', order: 'seq desc',
    insert: rows('investigations', 'id, organization_id, trigger, status, requested_at',
      `gen_random_uuid(), ?, 'automatic', case when g % 3 = 0 then 'failed' else 'completed' end, at`),
    filter: { args: { status: 'failed' }, where: `status = 'failed'` },
  },
  {
    tool: 'list_notifications', path: 'notifications', table: 'notifications', order: 'seq desc',
    insert: rows('notifications', 'id, organization_id, kind, dedup_key, message, detail, created_at',
      `gen_random_uuid(), ?, case when g % 2 = 0 then 'ai_budget_warning' else 'something_else' end, 'seed ' || g, 'notice ' || g, '{}'::jsonb, at`),
    filter: { args: { kind: 'ai_budget_warning' }, where: `kind = 'ai_budget_warning'` },
  },
  {
    tool: 'list_fix_requests', path: 'fix_requests', table: 'fix_requests', order: 'seq desc',
    insert: rows('fix_requests', 'id, organization_id, status, description, repo, target_via, revision, created_at, updated_at',
      `gen_random_uuid(), ?, 'declined', 'fix ' || g, case when g % 4 = 0 then 'acme/api' else 'acme/web' end, 'request', 1, at, at`),
    // any case: the filter as applied (lower case) is what the cursor is bound to
    filter: { args: { repo: 'Acme/API' }, where: `repo = 'acme/api'` },
  },
];

const insert = (list: RecordListCase, organizationId: string, from: number, to: number) => sql(list.insert, [organizationId, from, to, BASE]);
const idsOf = async (list: RecordListCase, organizationId: string, where = 'true') =>
  (await sql(`select id from ${list.table} where organization_id = ? and ${where} order by ${list.order}`, [organizationId])).map((r) => String(r.id));
const query = (args: Record<string, unknown>) => new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)])).toString();

interface Page {
  ids: string[];
  next: string | null;
}

/** Reads every page, running `between` after each one; answers the ids in the order answered. */
async function pageThrough(read: (cursor: string | null) => Promise<Page>, between: () => Promise<void>): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await read(cursor);
    ids.push(...page.ids);
    cursor = page.next;
    pages++;
    await between();
  } while (cursor !== null && pages < 1000);
  return { ids, pages };
}

/** Between pages: two new rows (newest) and two seeded rows deleted, one already answered or not. */
function disturbance(list: RecordListCase, organizationId: string, seeded: string[], start: number) {
  const deleted = new Set<string>();
  let n = 0;
  const run = async () => {
    n++;
    await insert(list, organizationId, start + n * 2, start + n * 2 + 1);
    for (const id of [seeded[(n * 37) % seeded.length]!, seeded[(n * 91 + 5) % seeded.length]!]) {
      deleted.add(id);
      await sql(`delete from ${list.table} where id = ?`, [id]);
    }
  };
  return { run, deleted };
}

function checkPaged(t: Test, answered: string[], seeded: string[], deleted: Set<string>, known: Set<string>) {
  t.equal(new Set(answered).size, answered.length, 'no row is answered twice');
  const seen = new Set(answered);
  t.same(seeded.filter((id) => !deleted.has(id) && !seen.has(id)), [], 'every row that stayed is answered');
  t.ok(answered.every((id) => known.has(id)), "nothing else is answered (no other organization's rows)");
}

async function restPage(api: Client, list: RecordListCase, args: Record<string, unknown>, cursor: string | null): Promise<Page & { link: string | null }> {
  const page = await api.get(`${CONFIG}/${list.path}?${query({ ...args, ...(cursor ? { cursor } : {}) })}`);
  if (page.status !== 200) throw new Error(`${list.path}: ${page.status} ${JSON.stringify(page.body)}`);
  return { ids: page.body.data.map((r: { id: string }) => r.id), next: page.body.next_cursor, link: page.headers.get('link') };
}

async function toolPage(agent: Agent, list: RecordListCase, args: Record<string, unknown>, cursor: string | null): Promise<Page> {
  const page = await agent.call(list.tool, { ...args, ...(cursor ? { cursor } : {}) });
  if (page.isError) throw new Error(`${list.tool}: ${JSON.stringify(page.body)}`);
  return { ids: page.body.data.map((r: { id: string }) => r.id), next: page.body.next_cursor };
}

const other = await vigil.organization();
const otherApi = await other.key();

for (const list of LISTS) {
  t.test(`${list.tool}: pages through REST and the agent tool`, async (t) => {
    const org = await vigil.organization();
    const api = await org.key();
    const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
    t.teardown(() => agent.close());
    await insert(list, org.id, 1, ROWS);
    await insert(list, other.id, 1, 300);
    const seeded = await idsOf(list, org.id);
    t.equal(seeded.length, ROWS);

    // the old first page, unchanged: 50 rows newest first, `truncated` beside the new `next_cursor`
    const first = await api.get(`${CONFIG}/${list.path}`);
    t.equal(first.status, 200);
    t.same(first.body.data.map((r: { id: string }) => r.id), seeded.slice(0, 50), 'without limit: the first 50 rows, as before');
    t.type(first.body.next_cursor, 'string');
    t.equal(first.body.truncated, true);
    const link = first.headers.get('link')!;
    t.match(link, new RegExp(`^<http://[^>]+/api/v1/config/${list.path}\\?cursor=[^>]+>; rel="next"$`), 'an RFC 8288 Link to the next page');
    const linked = await api.get(link.slice(link.indexOf('/api/'), link.indexOf('>')));
    t.same(linked.body.data.map((r: { id: string }) => r.id), seeded.slice(50, 100), 'following the Link reads the next page');

    // a filtered list at rest: exactly the matching rows, in the list's order, every page with a Link but the last
    const filtered = await idsOf(list, org.id, list.filter.where);
    t.ok(filtered.length > 200 && filtered.length < ROWS, 'the filter keeps some rows');
    const links: boolean[] = [];
    const atRest = await pageThrough(async (cursor) => {
      const page = await restPage(api, list, { ...list.filter.args, limit: 200 }, cursor);
      links.push((page.link !== null) === (page.next !== null));
      return page;
    }, async () => {});
    t.same(atRest.ids, filtered, 'filtered pages answer every matching row once, in order');
    t.ok(links.every(Boolean), 'a Link exactly when a next page exists');

    // rows inserted and deleted between pages: none that stayed is skipped, none repeated
    const rest = disturbance(list, org.id, seeded, 100_000);
    const restPaged = await pageThrough((cursor) => restPage(api, list, { limit: 150 }, cursor), rest.run);
    checkPaged(t, restPaged.ids, seeded, rest.deleted, new Set([...seeded, ...(await idsOf(list, org.id))]));
    t.ok(restPaged.pages >= 10);

    const still = await idsOf(list, org.id);
    const tool = disturbance(list, org.id, still, 200_000);
    const toolPaged = await pageThrough((cursor) => toolPage(agent, list, { limit: 170 }, cursor), tool.run);
    checkPaged(t, toolPaged.ids, still, tool.deleted, new Set([...still, ...(await idsOf(list, org.id))]));
    const viaTool = await agent.call(list.tool, { limit: 7 });
    const viaRest = await api.get(`${CONFIG}/${list.path}?limit=7`);
    t.same(viaTool.body.data, viaRest.body.data, 'the same first page through both');
    t.equal((await api.get(`${CONFIG}/${list.path}?limit=7&cursor=${encodeURIComponent(viaTool.body.next_cursor)}`)).status, 200, "a tool's cursor reads on REST too");
    const max = await api.get(`${CONFIG}/${list.path}?limit=200`);
    t.equal(max.body.data.length, 200, 'limit up to 200');
  });

  t.test(`${list.tool}: refusals name the field`, async (t) => {
    const org = await vigil.organization();
    const api = await org.key();
    await insert(list, org.id, 1, 30);
    await api.post(`${CONFIG}/teams`, { name: 'one' });
    await api.post(`${CONFIG}/teams`, { name: 'two' });
    const cursor = (await api.get(`${CONFIG}/${list.path}?limit=1`)).body.next_cursor as string;
    const filtered = (await api.get(`${CONFIG}/${list.path}?${query({ ...list.filter.args, limit: 1 })}`)).body.next_cursor as string;
    const foreign = (await otherApi.get(`${CONFIG}/${list.path}?limit=1`)).body.next_cursor as string;
    const teams = (await api.get(`${CONFIG}/teams?limit=1`)).body.next_cursor as string;
    t.ok(cursor && filtered && foreign && teams, 'every list answered a cursor');
    const [payload, mac] = cursor.split('.') as [string, string];
    const forged = `${Buffer.from(JSON.stringify(['2000-01-01 00:00:00+00', '1'])).toString('base64url')}.${mac}`;
    const flipped = `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    const cases: [string, string, string][] = [
      ['limit 0', 'limit=0', 'limit'],
      ['limit over the maximum', 'limit=201', 'limit'],
      ['limit not whole', 'limit=1.5', 'limit'],
      ['a cursor that is not one', 'cursor=garbage', 'cursor'],
      ['a forged payload under a real signature', `cursor=${encodeURIComponent(forged)}`, 'cursor'],
      ['an altered signature', `cursor=${encodeURIComponent(flipped)}`, 'cursor'],
      ["another organization's cursor", `cursor=${encodeURIComponent(foreign)}`, 'cursor'],
      ["another list's cursor", `cursor=${encodeURIComponent(teams)}`, 'cursor'],
      ['a filtered cursor read without the filter', `cursor=${encodeURIComponent(filtered)}`, 'cursor'],
      ['a cursor read under another filter', `${query(list.filter.args)}&cursor=${encodeURIComponent(cursor)}`, 'cursor'],
    ];
    for (const [name, q, field] of cases) {
      const answer = await api.get(`${CONFIG}/${list.path}?${q}`);
      t.equal(answer.status, 422, name);
      t.same(answer.body.errors?.map((e: { field: string }) => e.field), [field], `${name} names ${field}`);
      t.notOk(JSON.stringify(answer.body).includes('2000-01-01'), `${name}: nothing sent is echoed`);
    }
    t.equal((await api.get(`${CONFIG}/${list.path}?${query(list.filter.args)}&cursor=${encodeURIComponent(filtered)}`)).status, 200, 'the cursor reads under its own filter');

    const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
    t.teardown(() => agent.close());
    for (const [name, args, field] of [
      ['limit over the maximum', { limit: 201 }, 'limit'],
      ["another organization's cursor", { cursor: foreign }, 'cursor'],
      ['a cursor read under another filter', { ...list.filter.args, cursor }, 'cursor'],
    ] as const) {
      const answer = await agent.call(list.tool, args);
      t.ok(answer.isError, name);
      t.same(answer.body.errors?.map((e: { field: string }) => e.field), [field], `${name} names ${field}`);
    }
  });
}
