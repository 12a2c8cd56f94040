/**
 * Issue 23: the write path stays exactly-once under concurrency, whatever statements it runs. Many requests
 * race on one row (or one natural key, or one idempotency key) at once, through REST and once through MCP,
 * and each test checks what a user relies on afterwards: how many writes won, what the losers answered, the
 * row as it stands, its ETag, and the audit log (read through the audit log API / tool, as users read it).
 * Every test runs in an organization of its own, so its audit log holds only what the test wrote.
 */
import t, { type Test } from 'tap';
import statusPageComponents from '../../resources/status_page_components.ts';
import teams from '../../resources/teams.ts';
import { singularOf } from '../../engine/mcp/tools.ts';
import { CONFIG, startVigil, type Answer, type Client } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

const TEAMS = `${CONFIG}/${teams.name}`;
const COMPONENTS = `${CONFIG}/${statusPageComponents.name}`;

interface AuditEntry {
  family: string;
  row_id: string | null;
  action: string;
  changes: Record<string, { before: unknown; after: unknown } | string>;
}

/** Every entry of the caller's audit log, oldest first (the API answers newest first, a page at a time). */
async function auditLog(api: Client): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  let cursor: string | null = null;
  do {
    const page: Answer = await api.get(`${CONFIG}/audit_log?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (page.status !== 200) throw new Error(`audit log not read: ${page.status} ${JSON.stringify(page.body)}`);
    entries.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return entries.reverse();
}

const entriesOf = (log: AuditEntry[], family: string, rowId: string, action: string) => log.filter((e) => e.family === family && e.row_id === rowId && e.action === action);

/** A fresh organization on the business plan and an org-admin key for it. */
async function freshApi() {
  const org = await vigil.organization();
  return { org, api: await org.key(['api:admin']) };
}

async function createTeam(api: Client, name: string, description = 'before the race') {
  const made = await api.post(TEAMS, { name, description });
  if (made.status !== 201) throw new Error(`team not created: ${JSON.stringify(made.body)}`);
  return { id: made.body.data.id as string, etag: made.headers.get('etag')!, data: made.body.data };
}

/**
 * Concurrent reads of `path` first, so the racing writes find the database's connections open and start together
 * (on a cold pool the first write commits while the others still connect, and the race is never run).
 */
async function warm(api: Client, path: string) {
  const reads = await Promise.all(Array.from({ length: 20 }, () => api.get(path)));
  if (reads.some((r) => r.status !== 200)) throw new Error('warm-up reads failed');
}

const statuses = (answers: Answer[]) => answers.map((a) => a.status).sort().reduce<Record<number, number>>((n, s) => ({ ...n, [s]: (n[s] ?? 0) + 1 }), {});

/** The answers are the union of at most these statuses, each named, so a surprise status is shown in the failure. */
function onlyStatuses(t: Test, answers: Answer[], allowed: number[], what: string) {
  const other = answers.filter((a) => !allowed.includes(a.status));
  t.same(other.map((a) => ({ status: a.status, body: a.body })), [], `${what}: only ${allowed.join(' or ')} (got ${JSON.stringify(statuses(answers))})`);
}

t.test('50 PUTs of one row with the same If-Match: one wins, 49 answer 412 with the row as it stands, one audit entry', async (t) => {
  const { api } = await freshApi();
  const team = await createTeam(api, 'If-Match race');
  const values = Array.from({ length: 50 }, (_, i) => `writer ${i}`);
  await warm(api, `${TEAMS}/${team.id}`);
  const answers = await Promise.all(values.map((description) => api.put(`${TEAMS}/${team.id}`, { description }, { 'if-match': team.etag })));

  onlyStatuses(t, answers, [200, 412], 'the racing PUTs');
  const won = answers.filter((a) => a.status === 200);
  t.equal(won.length, 1, 'exactly one PUT wins');
  t.equal(answers.filter((a) => a.status === 412).length, 49, 'the other 49 are refused');
  const winner = won[0]!;
  const winnerValue = values[answers.indexOf(winner)]!;
  t.equal(winner.body.data.description, winnerValue, 'the winner\'s answer holds its own value');

  const now = await api.get(`${TEAMS}/${team.id}`);
  t.equal(now.body.data.description, winnerValue, 'the row holds the winner\'s value');
  t.equal(now.headers.get('etag'), winner.headers.get('etag'), 'the row\'s ETag is the one the winner was answered');
  t.not(now.headers.get('etag'), team.etag, 'and it is a new ETag');
  const refused = answers.filter((a) => a.status === 412);
  t.same(refused.map((a) => a.body.error), refused.map(() => 'precondition_failed'), 'each refusal is precondition_failed');
  t.same(refused.map((a) => a.body.data), refused.map(() => now.body.data), 'each carries the row as it stands (the winner\'s)');

  const updates = entriesOf(await auditLog(api), teams.name, team.id, 'update');
  t.equal(updates.length, 1, 'one audit entry for the row\'s update');
  t.same(updates[0]?.changes, { description: { before: 'before the race', after: winnerValue } }, 'and it records the winner\'s change');
});

t.test('50 PUTs of one row without If-Match: all 200, 50 audit entries whose before/after form one chain (no lost update)', async (t) => {
  const { api } = await freshApi();
  const team = await createTeam(api, 'Last-writer race', 'start');
  const values = Array.from({ length: 50 }, (_, i) => `value ${i}`);
  await warm(api, `${TEAMS}/${team.id}`);
  const answers = await Promise.all(values.map((description) => api.put(`${TEAMS}/${team.id}`, { description })));

  onlyStatuses(t, answers, [200], 'the racing PUTs');
  t.same(answers.map((a) => a.body.data?.description), values, 'each answer holds the value its PUT wrote');

  const updates = entriesOf(await auditLog(api), teams.name, team.id, 'update');
  t.equal(updates.length, 50, 'one audit entry per PUT');
  const chain = updates.map((e) => e.changes.description as { before: unknown; after: unknown });
  t.same(chain.map((c) => c?.after).sort(), [...values].sort(), 'each value written is the `after` of exactly one entry');
  t.equal(chain[0]?.before, 'start', 'the oldest entry starts from the row as it was');
  const breaks = chain.flatMap((c, i) => (i > 0 && c?.before !== chain[i - 1]?.after ? [{ entry: i, before: c?.before, previousAfter: chain[i - 1]?.after }] : []));
  t.same(breaks, [], 'in log order, each entry\'s `before` is the previous entry\'s `after`');
  t.same(updates.map((e) => Object.keys(e.changes)), values.map(() => ['description']), 'each entry changes the description only');

  const now = await api.get(`${TEAMS}/${team.id}`);
  t.equal(now.body.data.description, chain.at(-1)?.after, 'the row holds the newest entry\'s `after`');
  const last = answers.find((a) => a.body.data?.description === now.body.data.description);
  t.equal(now.headers.get('etag'), last?.headers.get('etag'), 'and the ETag of the PUT that wrote it');
});

t.test('30 DELETEs of one row with its If-Match: one 204, the other 29 are 404 (the row is gone), one audit entry', async (t) => {
  const { api } = await freshApi();
  const team = await createTeam(api, 'Delete race');
  await warm(api, `${TEAMS}/${team.id}`);
  const answers = await Promise.all(Array.from({ length: 30 }, () => api.del(`${TEAMS}/${team.id}`, { 'if-match': team.etag })));

  // The If-Match held for as long as the row existed, so a loser cannot be refused for a changed row: it finds none.
  onlyStatuses(t, answers, [204, 404], 'the racing DELETEs');
  t.equal(answers.filter((a) => a.status === 204).length, 1, 'exactly one DELETE wins');
  const gone = answers.filter((a) => a.status === 404);
  t.same(gone.map((a) => a.body.error), gone.map(() => 'not_found'), 'each of the others is not_found');
  t.equal((await api.get(`${TEAMS}/${team.id}`)).status, 404, 'the row is gone');
  t.equal(entriesOf(await auditLog(api), teams.name, team.id, 'delete').length, 1, 'one delete audit entry');
});

t.test('30 POSTs with one natural key: one 201, 29 answer 409 conflict with the existing row, one create audit entry', async (t) => {
  const { api } = await freshApi();
  await warm(api, TEAMS);
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => api.post(TEAMS, { name: 'Same name', description: `creator ${i}` })));

  onlyStatuses(t, answers, [201, 409], 'the racing POSTs');
  const created = answers.filter((a) => a.status === 201);
  t.equal(created.length, 1, 'exactly one create wins');
  const row = created[0]!.body.data;
  const refused = answers.filter((a) => a.status === 409);
  t.equal(refused.length, 29, 'the other 29 are refused');
  t.same(refused.map((a) => a.body.error), refused.map(() => 'conflict'), 'each refusal is conflict');
  t.same(refused.map((a) => a.body.data), refused.map(() => row), 'each carries the row that holds the name');
  const named = (await api.get(TEAMS)).body.data.filter((r: { name: string }) => r.name === 'Same name');
  t.same(named, [row], 'one row holds the name, the winner\'s');
  const log = await auditLog(api);
  t.equal(log.filter((e) => e.family === teams.name && e.action === 'create').length, 1, 'one create audit entry');
  t.equal(entriesOf(log, teams.name, row.id, 'create').length, 1, 'for the row that was created');
});

t.test('30 POSTs with one Idempotency-Key and body: one row, every answer the first one (replayed) or 409 while it runs', async (t) => {
  // status page components have no natural key: only the idempotency key stands between the racers and 30 rows
  const { api } = await freshApi();
  const headers = { 'idempotency-key': 'race-rest-1' };
  const body = { display_name: 'Raced component', description: 'created once' };
  await warm(api, COMPONENTS);
  const answers = await Promise.all(Array.from({ length: 30 }, () => api.post(COMPONENTS, body, headers)));

  onlyStatuses(t, answers, [201, 409], 'the racing POSTs');
  const created = answers.filter((a) => a.status === 201);
  const first = created.filter((a) => a.headers.get('idempotent-replayed') === null);
  t.equal(first.length, 1, 'one answer is the create itself');
  const original = first[0]!;
  const replays = created.filter((a) => a !== original);
  t.same(replays.map((a) => a.headers.get('idempotent-replayed')), replays.map(() => 'true'), 'every other 201 is marked a replay');
  t.same(replays.map((a) => a.body), replays.map(() => original.body), 'with the first answer\'s body');
  const running = answers.filter((a) => a.status === 409);
  t.same(running.map((a) => [a.body.error, 'data' in a.body]), running.map(() => ['conflict', false]), 'each 409 is "still running", not a conflict with a row');
  t.comment(`${replays.length} replays, ${running.length} still running`);

  const again = await api.post(COMPONENTS, body, headers);
  t.equal(again.status, 201, 'once it has finished, a retry gets the answer');
  t.equal(again.headers.get('idempotent-replayed'), 'true', 'as a replay');
  t.same(again.body, original.body, 'of the first answer');
  const other = await api.post(COMPONENTS, { ...body, description: 'another body' }, headers);
  t.equal(other.status, 422, 'the key with another body is refused');
  t.match(other.body, { error: 'validation_failed', errors: [{ field: 'Idempotency-Key' }] });

  const rows = (await api.get(COMPONENTS)).body.data;
  t.same(rows.map((r: { id: string }) => r.id), [original.body.data.id], 'exactly one row was created');
  t.equal((await auditLog(api)).filter((e) => e.family === statusPageComponents.name && e.action === 'create').length, 1, 'one create audit entry');
});

t.test('MCP: 10 tool calls with one idempotency_key: one row, the same answer or 409 while it runs, one audit entry', async (t) => {
  const { org, api } = await freshApi();
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  t.teardown(() => agent.close());
  const tool = `create_${singularOf(statusPageComponents)}`;
  const args = { display_name: 'Agent component', idempotency_key: 'race-mcp-1' };
  const answers = await Promise.all(Array.from({ length: 10 }, () => agent.client.callTool({ name: tool, arguments: args })));

  const done = answers.filter((a) => a.isError !== true);
  const refused = answers.filter((a) => a.isError === true);
  const refusals = refused.map((a) => a.structuredContent as Record<string, unknown> | undefined);
  t.same(refusals.map((r) => [r?.error, r !== undefined && 'data' in r]), refusals.map(() => ['conflict', false]), 'each refused call is "still running" (conflict), not a conflict with a row');
  const firsts = done.filter((a) => a._meta?.idempotent_replayed !== true);
  t.equal(firsts.length, 1, 'one call is the create itself');
  const replays = done.filter((a) => a !== firsts[0]);
  t.same(replays.map((a) => a.structuredContent), replays.map(() => firsts[0]!.structuredContent), 'every other success (a replay) answers the first answer');
  t.comment(`${replays.length} replays, ${refused.length} still running`);
  const again = await agent.client.callTool({ name: tool, arguments: args });
  t.equal(again._meta?.idempotent_replayed, true, 'once it has finished, a retry is a replay');
  t.same(again.structuredContent, firsts[0]?.structuredContent, 'of the first answer');
  const other = await agent.call(tool, { ...args, display_name: 'Another component' });
  t.equal(other.isError, true, 'the key with other arguments is refused');
  t.match(other.body, { error: 'validation_failed', errors: [{ field: 'idempotency_key' }] });

  const id = (firsts[0]!.structuredContent as { data: { id: string } }).data.id;
  t.same((await api.get(COMPONENTS)).body.data.map((r: { id: string }) => r.id), [id], 'exactly one row was created');
  const log = await agent.call('list_audit_log', { limit: 1000 });
  t.equal(log.isError, false, 'the audit log tool answers');
  t.equal(log.body.data.filter((e: AuditEntry) => e.family === statusPageComponents.name && e.action === 'create').length, 1, 'one create audit entry, read through the tool');
});

t.test('a PUT that changes nothing answers the row and writes nothing; a stale If-Match then answers 412 and writes nothing', async (t) => {
  const { api } = await freshApi();
  const team = await createTeam(api, 'Quiet team', 'unchanged');
  const path = `${TEAMS}/${team.id}`;
  vigil.clock.advance(60_000); // a write now would move `updated_at`: the answers show that nothing was written

  const same = await Promise.all(Array.from({ length: 20 }, (_, i) => api.put(path, { description: 'unchanged', name: 'Quiet team' }, i % 2 ? { 'if-match': team.etag } : {})));
  onlyStatuses(t, same, [200], 'PUTs of the values the row holds (with and without If-Match)');
  t.same(same.map((a) => a.body.data), same.map(() => team.data), 'each answer is the row as it stands');
  t.same(same.map((a) => a.headers.get('etag')), same.map(() => team.etag), 'with its ETag, unchanged');
  t.same(entriesOf(await auditLog(api), teams.name, team.id, 'update'), [], 'no audit entry');

  const changed = await api.put(path, { description: 'changed once' }, { 'if-match': team.etag });
  t.equal(changed.status, 200, 'a PUT with the current ETag changes the row');
  const stale = await api.put(path, { description: 'from a stale read' }, { 'if-match': team.etag });
  t.equal(stale.status, 412, 'the first read\'s ETag is stale now');
  t.equal(stale.body.error, 'precondition_failed', 'as precondition_failed');
  t.same(stale.body.data, changed.body.data, 'the refusal carries the row as it stands');
  const now = await api.get(path);
  t.equal(now.body.data.description, 'changed once', 'the stale PUT wrote nothing');
  t.equal(now.headers.get('etag'), changed.headers.get('etag'), 'and its ETag is the one the change answered');
  t.equal(entriesOf(await auditLog(api), teams.name, team.id, 'update').length, 1, 'only the one change is audited');
});
