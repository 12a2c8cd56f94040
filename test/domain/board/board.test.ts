/**
 * The ops board through HTTP (`/webhooks/tickets/<token>…`) and the agent tools: open, update, comment, every
 * rule of the spec and the documented decisions, refusals as carefully as successes.
 * Idempotency and SNS: board-idempotency.test.ts; concurrency: board-concurrency.test.ts; 429: board-rate-limit.test.ts.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { connectAgent } from '../../helpers/mcp.ts';
import { boardPrefix, STATUS_SYNONYMS } from '../../../domain/board/vocabulary.ts';
import { board, closeBoards, type Board } from '../../helpers/board.ts';

const vigil = await startVigil({ publicUrl: 'https://vigil.example.com' });
t.teardown(async () => {
  await closeBoards();
  await vigil.close();
});
const ADMIN = '/api/admin/v1';

async function withMember(b: Board, email: string): Promise<string> {
  const user = await vigil.operator.post(`${ADMIN}/users`, { email });
  await vigil.operator.put(`${ADMIN}/organizations/${b.id}/members/${user.body.id}`, { role: 'member' });
  return user.body.id;
}

t.test('opening a card: 201 with id, key, url, dedup_key and duplicate; it lands in triage with no author; a notification and a chat post are recorded', async (t) => {
  const b = await board(vigil, { name: 'Acme Platform Team' });
  const opened = await b.open({ title: '  Checkout is slow  ', description: 'p99 over 2s', priority: 'HIGH', labels: ['perf', 'checkout', 'perf'], service: 'checkout', status: 'done', source: 'pagerduty', author: 'Mallory' });
  t.equal(opened.status, 201);
  t.same(Object.keys(opened.body).sort(), ['dedup_key', 'duplicate', 'id', 'key', 'url']);
  t.match(opened.body, { id: /^[0-9a-f-]{36}$/, key: 'APT-1', url: 'https://vigil.example.com/board/APT-1', dedup_key: null, duplicate: false });
  const card = await b.card('apt-1');
  t.match(card, {
    id: opened.body.id, key: 'APT-1', number: 1, title: 'Checkout is slow', description: 'p99 over 2s', priority: 'high',
    labels: ['perf', 'checkout'], service: 'checkout', status: 'triage', assignee_email: null, archived_at: null, comments: [],
  });
  t.notOk('author' in card, 'a card has no author');
  t.same(card.effects.map((e: any) => e.kind), ['notification', 'chat_post']);
  t.match(card.effects[0].detail, { key: 'APT-1', title: 'Checkout is slow', priority: 'high' });
  t.equal((await b.open({ title: 'second' })).body.key, 'APT-2', 'numbers follow each other');

  // the prefix is kept once the first card exists
  await vigil.operator.patch(`${ADMIN}/organizations/${b.id}`, { name: 'Renamed Entirely Now' });
  t.equal((await b.open({ title: 'third' })).body.key, 'APT-3', 'renaming the organization keeps the prefix');
  const log = await b.deliveries();
  t.same(log.map((d: any) => d.outcome), ['created', 'created', 'created']);
});

t.test('the key prefix comes from the organization name', async (t) => {
  t.equal(boardPrefix('Acme Platform Team'), 'APT');
  t.equal(boardPrefix('acme'), 'ACM');
  t.equal(boardPrefix('Ünïcode Órg'), 'UO', 'accents dropped');
  t.equal(boardPrefix('a b c d e f g'), 'ABCDE', 'at most five letters');
  t.equal(boardPrefix('X'), 'OPS', 'fewer than two letters: OPS');
  t.equal(boardPrefix('42 !!'), 'OPS');
  const b = await board(vigil, { name: '7' });
  t.equal((await b.open({ title: 'x' })).body.key, 'OPS-1');
});

t.test('priority on create: the four values in any case; anything else becomes normal (noted in the delivery log)', async (t) => {
  const b = await board(vigil);
  const cases: [unknown, string][] = [['urgent', 'urgent'], [' Low ', 'low'], ['normal', 'normal'], ['P1', 'normal'], [3, 'normal'], [null, 'normal'], [undefined, 'normal']];
  for (const [sent, stored] of cases) {
    const opened = await b.open({ title: `priority ${String(sent)}`, ...(sent === undefined ? {} : { priority: sent }) });
    t.equal(opened.status, 201, `${JSON.stringify(sent)} is accepted`);
    t.equal((await b.card(opened.body.key)).priority, stored, `${JSON.stringify(sent)} → ${stored}`);
  }
  const log = await b.deliveries();
  t.match(log.find((d: any) => d.payload?.priority === 'P1').detail, /^priority is not urgent, high, normal or low: set to normal$/, 'the notice says what is expected, not the value');
});

t.test('create refusals: 422 naming the field, nothing created', async (t) => {
  const b = await board(vigil);
  const cases: [string, unknown, string][] = [
    ['no title', { description: 'x' }, 'title'],
    ['blank title', { title: '   ' }, 'title'],
    ['title not a string', { title: 12 }, 'title'],
    ['title too long', { title: 'x'.repeat(501) }, 'title'],
    ['description not a string', { title: 'x', description: ['a'] }, 'description'],
    ['description too long', { title: 'x', description: 'd'.repeat(60_001) }, 'description'],
    ['labels not an array', { title: 'x', labels: 'a,b' }, 'labels'],
    ['labels holding a number', { title: 'x', labels: ['a', 1] }, 'labels'],
    ['a blank label', { title: 'x', labels: [' '] }, 'labels'],
    ['too many labels', { title: 'x', labels: Array.from({ length: 51 }, (_, i) => `l${i}`) }, 'labels'],
    ['a label too long', { title: 'x', labels: ['l'.repeat(101)] }, 'labels'],
    ['service not a string', { title: 'x', service: { name: 'a' } }, 'service'],
    ['service too long', { title: 'x', service: 's'.repeat(201) }, 'service'],
    ['assignee_email not a string', { title: 'x', assignee_email: 5 }, 'assignee_email'],
    ['a JSON array', [{ title: 'x' }], 'body'],
    ['not JSON', 'title=x', 'body'],
    ['an empty body', '', 'body'],
  ];
  for (const [name, body, field] of cases) {
    const answer = await b.open(body);
    t.equal(answer.status, 422, `${name}: 422`);
    t.equal(answer.body.error, 'validation_failed', name);
    t.equal(answer.body.field, field, `${name}: field ${field}`);
    t.match(answer.body.message, new RegExp(field), `${name}: the message names it`);
    t.match(answer.body.errors, [{ field, message: String }], name);
    t.equal(answer.body.errors.length, 1);
  }
  t.same((await b.agent.call('list_cards')).body.data, [], 'nothing was created');
  const log = await b.deliveries();
  t.equal(log.length, cases.length);
  t.ok(log.every((d: any) => d.status === 422 && /^refused: /.test(d.outcome)), 'each refusal logged');
  t.equal(log.at(-1).outcome, 'refused: title');
});

t.test('assignee_email assigns a member (any case), never invites; an unknown email leaves the card unassigned on create and is 422 on update', async (t) => {
  const b = await board(vigil);
  await withMember(b, 'oncall.lead@example.com');
  const assigned = await b.open({ title: 'assigned', assignee_email: 'OnCall.Lead@Example.com' });
  t.equal((await b.card(assigned.body.key)).assignee_email, 'oncall.lead@example.com');

  // a user of the deployment who is not a member of this organization is not assigned either
  const outsider = await board(vigil);
  await withMember(outsider, 'outsider@example.com');
  const unknown = await b.open({ title: 'unassigned', assignee_email: 'outsider@example.com' });
  t.equal(unknown.status, 201, 'the card is still created');
  t.same(Object.keys(unknown.body).sort(), ['dedup_key', 'duplicate', 'id', 'key', 'url'], 'the answer is the spec\'s');
  const card = await b.card(unknown.body.key);
  t.equal(card.assignee_email, null);
  t.same(card.effects.map((e: any) => e.kind), ['notification', 'chat_post', 'assignment_skipped']);
  t.match((await b.deliveries())[0].detail, /assignee_email matches no member/);
  const users = await vigil.operator.get(`${ADMIN}/organizations/${b.id}`);
  t.equal(users.status, 200);

  const refused = await b.update(unknown.body.key, { assignee_email: 'nobody@example.com' });
  t.equal(refused.status, 422);
  t.equal(refused.body.field, 'assignee_email');
  t.match(refused.body.message, /never invites/);
  t.equal((await b.update(unknown.body.key, { assignee_email: 'ONCALL.lead@example.com' })).status, 200);
  t.equal((await b.card(unknown.body.key)).assignee_email, 'oncall.lead@example.com');
  t.equal((await b.update(unknown.body.key, { assignee_email: null })).status, 200, 'null unassigns');
  t.equal((await b.card(unknown.body.key)).assignee_email, null);
});

t.test('updating a card: by id or key in any case, only the fields sent; 200 { id, key, status, url }', async (t) => {
  const b = await board(vigil, { name: 'Night Ops' });
  const opened = (await b.open({ title: 'Disk full', description: 'on db-1', labels: ['db'], service: 'db', priority: 'low' })).body;
  const byKey = await b.update('no-1', { title: 'Disk full on db-1', priority: 'URGENT', status: 'In Progress' });
  t.equal(byKey.status, 200);
  t.same(byKey.body, { id: opened.id, key: 'NO-1', status: 'in_progress', url: 'https://vigil.example.com/board/NO-1' });
  let card = await b.card(opened.id);
  t.match(card, { title: 'Disk full on db-1', priority: 'urgent', status: 'in_progress', description: 'on db-1', labels: ['db'], service: 'db' }, 'fields not sent are kept');

  const byId = await b.update(opened.id, { labels: ['db', 'storage'], description: null, service: '' });
  t.same(byId.body, { id: opened.id, key: 'NO-1', status: 'in_progress', url: 'https://vigil.example.com/board/NO-1' });
  card = await b.card('No-1');
  t.match(card, { labels: ['db', 'storage'], description: null, service: null }, 'labels replaced; null and "" clear');
  t.same(card.effects.map((e: any) => e.kind), ['notification', 'chat_post', 'updated', 'updated'], 'an update records what changed, and raises no notification');
  t.same(card.effects[2].detail.changes.status, { before: 'triage', after: 'in_progress' });
  t.equal(card.effects[2].detail.status_sent, 'In Progress');
  const outcomes = (await b.deliveries()).map((d: any) => d.outcome);
  t.same(outcomes.slice(0, 2), ['updated', 'updated']);
  t.equal((await b.update('NO-1', { status: 'in_progress', source: 'ignored' })).status, 200, 'an update changing nothing still answers');
});

t.test('statuses: the six values, their synonyms, and the won\'t-do words that archive (distinct from done)', async (t) => {
  const b = await board(vigil);
  const key = (await b.open({ title: 'status walk' })).body.key;
  const table: [string, string][] = [
    ['backlog', 'backlog'], ['triage', 'triage'], ['todo', 'todo'], ['in_progress', 'in_progress'], ['blocked', 'blocked'], ['done', 'done'],
    ['open', 'triage'], ['New', 'triage'], ['to do', 'todo'], ['To-Do', 'todo'], ['in progress', 'in_progress'], ['IN-PROGRESS', 'in_progress'],
    ['doing', 'in_progress'], ['on hold', 'blocked'], ['closed', 'done'], ['Resolved', 'done'], ['complete', 'done'], ['completed', 'done'],
    ["won't do", 'archived'], ['won’t do', 'archived'], ['wontfix', 'archived'], ["won't fix", 'archived'], ['cancelled', 'archived'], ['canceled', 'archived'],
  ];
  for (const [sent, status] of table) {
    const answer = await b.update(key, { status: sent });
    t.equal(answer.status, 200, `${sent}: 200`);
    t.equal(answer.body.status, status, `${sent} → ${status}`);
  }
  for (const [word, status] of Object.entries(STATUS_SYNONYMS)) {
    t.equal((await b.update(key, { status: word })).body.status, status, `documented synonym ${word}`);
  }
  for (const bad of ['finished?', 'deleted', 'in-flight', '', 5, null, ['done']]) {
    const answer = await b.update(key, { status: bad });
    t.equal(answer.status, 422, `${JSON.stringify(bad)}: 422, never guessed`);
    t.equal(answer.body.field, 'status');
  }
});

t.test('an archived card reports archived (not done), leaves the default list, and a later status brings it back', async (t) => {
  const b = await board(vigil);
  const done = (await b.open({ title: 'done one' })).body.key;
  const dropped = (await b.open({ title: 'dropped one' })).body.key;
  t.equal((await b.update(done, { status: 'resolved' })).body.status, 'done');
  const archived = await b.update(dropped, { status: "won't do" });
  t.equal(archived.body.status, 'archived');
  const card = await b.card(dropped);
  t.equal(card.status, 'archived');
  t.ok(card.archived_at, 'archived_at is set');
  t.equal((await b.card(done)).archived_at, null, 'done is not archived');
  const keys = async (args: Record<string, unknown>) => (await b.agent.call('list_cards', args)).body.data.map((c: any) => c.key);
  t.same(await keys({}), [done], 'archived cards are left out of the default list');
  t.same(await keys({ status: 'done' }), [done], 'and do not count as done');
  t.same(await keys({ status: 'archived' }), [dropped]);
  t.same(await keys({ status: 'wontfix' }), [dropped], 'a synonym filters too');
  const back = await b.update(dropped, { status: 'todo' });
  t.equal(back.body.status, 'todo', 'a later status update brings it back');
  t.equal((await b.card(dropped)).archived_at, null);
});

t.test('update refusals: unknown priority 422 (unlike create), empty updates, 404 for missing and other organizations\' cards', async (t) => {
  const b = await board(vigil, { name: 'Same Name' });
  const other = await board(vigil, { name: 'Same Name' });
  const mine = (await b.open({ title: 'mine' })).body;
  const theirs = (await other.open({ title: 'theirs' })).body;
  t.equal(mine.key, theirs.key, 'two organizations may hold the same key');

  for (const priority of ['P1', 'critical', '', null, 2]) {
    const answer = await b.update(mine.key, { priority });
    t.equal(answer.status, 422, `priority ${JSON.stringify(priority)} is refused on update`);
    t.equal(answer.body.field, 'priority');
  }
  t.equal((await b.update(mine.key, { title: '' })).body.field, 'title', 'a title cannot be blanked');
  t.equal((await b.update(mine.key, { labels: 'x' })).body.field, 'labels');
  const empty = await b.update(mine.key, { source: 'x', author: 'y' });
  t.equal(empty.status, 422, 'a body naming no updatable field');
  t.equal(empty.body.field, 'body');
  t.equal((await b.update(mine.key, [])).body.field, 'body');
  t.equal((await b.card(mine.key)).priority, 'normal', 'nothing was written');

  const missing = await b.update('SN-999', { status: 'done' });
  t.equal(missing.status, 404);
  t.same(missing.body, { error: 'not_found', message: 'No card with that id or key is on this board.' });
  const foreignId = await b.update(theirs.id, { status: 'done' });
  t.same(foreignId, missing, 'another organization\'s card by id: the same 404');
  for (const ref of ['not-a-key', '00000000-0000-0000-0000-000000000000', 'SN-1%00', '%F0%9F%98%80', 'x'.repeat(300)]) {
    t.same(await b.update(ref, { status: 'done' }), missing, `${ref.slice(0, 20)}: the same 404`);
  }
  t.equal((await other.card(theirs.key)).status, 'triage', 'the other organization\'s card is untouched');
  t.same((await b.deliveries()).slice(0, 1).map((d: any) => d.outcome), ['refused: card not found']);
});

t.test('comments: 201 { id }; author is a display name; done and archived cards take comments; refusals', async (t) => {
  const b = await board(vigil);
  const key = (await b.open({ title: 'needs notes' })).body.key;
  const first = await b.comment(key, { body: 'Looking into it', author: 'Dana (SRE)', status: 'done' });
  t.equal(first.status, 201);
  t.same(Object.keys(first.body), ['id']);
  await b.update(key, { status: 'done' });
  t.equal((await b.comment(key.toLowerCase(), { body: 'post-mortem linked' })).status, 201, 'a done card takes comments');
  await b.update(key, { status: 'cancelled' });
  t.equal((await b.comment(key, { body: 'dropped: duplicate of another card' })).status, 201, 'an archived card takes comments');
  const card = await b.card(key);
  t.equal(card.status, 'archived', 'a comment changes no status');
  t.match(card.comments, [
    { id: first.body.id, body: 'Looking into it', author: 'Dana (SRE)', comment_id: null },
    { body: 'post-mortem linked', author: null },
    { body: 'dropped: duplicate of another card' },
  ]);

  for (const [name, body, field] of [['no body', { author: 'x' }, 'body'], ['blank body', { body: ' ' }, 'body'], ['body not a string', { body: 1 }, 'body'],
    ['body too long', { body: 'b'.repeat(60_001) }, 'body'], ['author not a string', { body: 'x', author: 1 }, 'author'],
    ['author too long', { body: 'x', author: 'a'.repeat(201) }, 'author'], ['not an object', 'hi', 'body']] as const) {
    const answer = await b.comment(key, body);
    t.equal(answer.status, 422, name);
    t.equal(answer.body.field, field, `${name}: ${field}`);
  }
  const missing = await b.comment('ZZ-404', { body: 'x' });
  t.equal(missing.status, 404);
  t.equal(missing.body.message, 'No card with that id or key is on this board.');
  t.equal((await b.card(key)).comments.length, 3, 'no refused comment was stored');
  t.equal((await b.deliveries()).find((d: any) => d.status === 201 && d.payload?.body === 'post-mortem linked').outcome, 'commented');
});

t.test('403 when the plan lacks the ops board, on all three endpoints and the tools', async (t) => {
  const free = await vigil.organization('free');
  const post = (path: string, body: unknown) => fetch(`${vigil.url}/webhooks/tickets/${free.webhookToken}${path}`, { method: 'POST', headers: { 'user-agent': 'tests', 'content-type': 'application/json' }, body: JSON.stringify(body) });
  for (const path of ['', '/OPS-1', '/OPS-1/comments']) {
    const res = await post(path, { title: 'x', body: 'x', status: 'done' });
    t.equal(res.status, 403, `${path || '/'}: 403`);
    const body = await res.json();
    t.equal(body.error, 'plan_required');
    t.match(body.message, /ops board is not included in the free plan/);
  }
  // the operator's override switches it on (an add-on), and off on a plan that has it
  await vigil.operator.patch(`${ADMIN}/organizations/${free.id}`, { features: { ops_board: true } });
  t.equal((await post('', { title: 'on the add-on' })).status, 201, 'the operator override switches the board on');

  const off = await board(vigil, { features: { ops_board: false } });
  t.equal((await off.open({ title: 'x' })).status, 403);
  const tool = await off.agent.call('list_cards');
  t.ok(tool.isError, 'the tools refuse too');
  t.equal(tool.body.error, 'plan_required');
  t.equal((await off.deliveries())[0].outcome, 'refused: plan');
});

t.test('413 above 65,536 bytes on the three endpoints; just under is read', async (t) => {
  const b = await board(vigil);
  const key = (await b.open({ title: 'x' })).body.key;
  const big = JSON.stringify({ title: 'x', description: 'd'.repeat(65_537) });
  for (const path of ['', `/${key}`, `/${key}/comments`]) {
    const res = await b.raw(path, big);
    t.equal(res.status, 413, `${path || '/'}: 413`);
    t.equal(res.body.error, 'payload_too_large');
  }
  const under = JSON.stringify({ title: 'x', description: 'd'.repeat(59_000), labels: ['a'], padding: 'p'.repeat(65_536 - 59_000 - 70) });
  t.ok(Buffer.byteLength(under) <= 65_536);
  t.equal((await b.raw('', under)).status, 201, `${Buffer.byteLength(under)} bytes are read`);
});

t.test('NUL characters and lone surrogates never make a 500', async (t) => {
  const b = await board(vigil);
  const opened = await b.raw('', '{"title":"disk\\u0000 full \\ud800","description":"a\\u0000b","labels":["x\\udc00"],"service":"\\u0000db","assignee_email":"a\\u0000@b.c"}');
  t.equal(opened.status, 201);
  const card = await b.card(opened.body.key);
  t.equal(card.title, 'disk full \ufffd');
  t.equal(card.description, 'ab');
  t.same(card.labels, ['x\ufffd']);
  t.equal(card.service, 'db');
  t.equal((await b.raw('', '{"title":"x","dedup_key":"a\\u0000b"}')).status, 422, 'a NUL in a key is refused, not stored');
  t.equal((await b.raw('', '{"title":"x","dedup_key":"\\ud800"}')).status, 422);
  t.equal((await b.raw(`/${opened.body.key}`, '{"title":"\\u0000t\\udfff","status":"\\u0000"}')).status, 422, 'status NUL: 422');
  t.equal((await b.raw(`/${opened.body.key}/comments`, '{"body":"\\u0000hi\\ud83d","author":"\\u0000"}')).status, 201);
  t.equal((await b.raw('/%00', '{"status":"done"}')).status, 404);
  t.equal((await b.raw('/OPS-1%00/comments', '{"body":"x"}')).status, 404);
  // a sender's payload is cleaned (it cannot be asked to fix it); an agent's tool call is refused naming the field,
  // as NUL already was, like every tool and REST write of the API (README: the limits every JSON surface holds)
  const tool = await b.writer.call('update_card', { card: opened.body.key, title: 'bad \ud800 title' });
  t.match(tool, { isError: true, body: { error: 'validation_failed', errors: [{ field: 'title' }] } }, 'a tool write with a lone surrogate is refused');
  t.equal((await b.card(opened.body.key)).title, 'disk full \ufffd', 'and changes nothing');
});

t.test('agent tools: list_cards filters, get_card with comments and effects, update_card and add_card_comment through the same rules', async (t) => {
  const b = await board(vigil);
  const api = (await b.open({ title: 'API errors', labels: ['api', 'sev2'], service: 'api' })).body.key;
  const web = (await b.open({ title: 'Web slow', labels: ['web'], service: 'web' })).body.key;
  await b.update(web, { status: 'blocked' });
  const list = async (args: Record<string, unknown>) => {
    const got = await b.agent.call('list_cards', args);
    if (got.isError) throw new Error(JSON.stringify(got.body));
    return got.body.data.map((c: any) => c.key);
  };
  t.same(await list({}), [web, api], 'newest first');
  t.same(await list({ label: 'sev2' }), [api]);
  t.same(await list({ service: 'web' }), [web]);
  t.same(await list({ status: 'on hold' }), [web]);
  t.same(await list({ status: 'blocked', service: 'api' }), []);
  const refused = await b.agent.call('list_cards', { status: 'exploded' });
  t.ok(refused.isError);
  t.equal(refused.body.error, 'validation_failed');
  t.equal((await b.agent.call('list_cards', { limit: 1 })).body.truncated, true);
  const rest = await b.api.get(`${CONFIG}/cards?label=web`);
  t.equal(rest.status, 200, 'list_cards is also served by REST');
  t.same(rest.body.data.map((c: any) => c.key), [web]);
  const one = await b.api.get(`${CONFIG}/cards/${web.toLowerCase()}`);
  t.equal(one.status, 200, 'get_card is also served by REST, by key');
  t.equal(one.body.data.key, web);
  t.equal((await b.api.get(`${CONFIG}/cards/ZZ-1`)).status, 404);

  const updated = await b.writer.call('update_card', { card: api.toLowerCase(), status: 'doing', priority: 'high' });
  t.notOk(updated.isError);
  t.match(updated.body.data, { key: api, status: 'in_progress', url: String });
  const badPriority = await b.writer.call('update_card', { card: api, priority: 'P1' });
  t.ok(badPriority.isError, 'the same 422 as the webhook');
  t.equal(badPriority.body.field, 'priority');
  const badStatus = await b.writer.call('update_card', { card: api, status: 'finished-ish' });
  t.equal(badStatus.body.field, 'status');
  const badEmail = await b.writer.call('update_card', { card: api, assignee_email: 'ghost@example.com' });
  t.equal(badEmail.body.field, 'assignee_email');
  const missing = await b.writer.call('update_card', { card: 'ZZ-1', status: 'done' });
  t.equal(missing.body.error, 'not_found');
  const comment = await b.writer.call('add_card_comment', { card: api, body: 'from the agent', author: 'Vigil agent', comment_id: 'agent-1' });
  t.notOk(comment.isError);
  t.equal(comment.body.data.duplicate, false);
  const again = await b.writer.call('add_card_comment', { card: api, body: 'from the agent', comment_id: 'agent-1' });
  t.same(again.body.data, { id: comment.body.data.id, duplicate: true });
  t.equal((await b.writer.call('add_card_comment', { card: api, body: 'x', comment_id: 'has space' })).body.field, 'comment_id');

  const got = await b.agent.call('get_card', { card: api });
  t.match(got.body.data, { key: api, status: 'in_progress', priority: 'high', comments: [{ body: 'from the agent', author: 'Vigil agent', comment_id: 'agent-1' }] });
  t.same(got.body.data.effects.map((e: any) => e.kind), ['notification', 'chat_post', 'updated']);
  t.equal((await b.agent.call('get_card', { card: 'ZZ-9' })).body.error, 'not_found');

  const viewer = await b.agent.call('update_card', { card: api, status: 'done' });
  t.ok(viewer.isError, 'a read-only key cannot write');
  t.equal(viewer.body.error, 'read_only_key');
  const audit = await b.api.get(`${CONFIG}/audit_log?family=cards`);
  if (audit.status === 200) t.ok(audit.body.data.some((e: any) => e.family === 'cards' && e.action === 'update'), 'tool writes are audit-logged');

  const other = await board(vigil);
  t.same((await other.agent.call('list_cards')).body.data, [], 'another organization sees none of them');
  t.equal((await other.agent.call('get_card', { card: got.body.data.id })).body.error, 'not_found');
  const agentTools = await connectAgent(vigil.url, (await (await vigil.organization()).key(['mcp:read'])).token);
  t.teardown(() => agentTools.close());
  const names = (await agentTools.client.listTools()).tools.map((tool) => tool.name);
  for (const name of ['list_cards', 'get_card', 'update_card', 'add_card_comment']) t.ok(names.includes(name), `${name} is an agent tool`);
});
