/**
 * The console's pages over plain HTTP: signed out → the sign-in form; the security headers on every answer; the
 * board and its filters; a card — another organization's is 404, a viewer sees no forms and a forged POST is
 * refused, a forged CSRF token is refused, a member's move reaches REST and the audit log (transport console);
 * times in the organization's time zone; the switcher; deployments and deliveries; no secret in any page.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { board, closeBoards } from '../../helpers/board.ts';
import { browserless, person, PASSWORD } from '../../helpers/console.ts';

const vigil = await startVigil();
t.teardown(async () => {
  await closeBoards();
  await vigil.close();
});
const ADMIN = '/api/admin/v1';
const alpha = await board(vigil, { name: 'Alpha Team' });
const beta = await board(vigil, { name: 'Beta Squad' });
const first = (await alpha.open({ title: 'Checkout <script>alert(1)</script> slow', description: 'p99 over 2s', labels: ['db', 'latency'], service: 'checkout' })).body;
const second = (await alpha.open({ title: 'Search flaky', labels: ['search'], service: 'search' })).body;
const foreign = (await beta.open({ title: 'Beta only card' })).body;
const member = await person(vigil, { [alpha.id]: 'member', [beta.id]: 'viewer' }, undefined, 'Dana Ortiz');
const viewer = await person(vigil, { [alpha.id]: 'viewer' });
const path = (url: string) => new URL(url).pathname;

async function signedIn(who: { email: string }) {
  const web = browserless(vigil.url);
  const answer = await web.signIn(who.email, PASSWORD);
  if (answer.status !== 303) throw new Error(`sign-in failed: ${answer.status}`);
  return web;
}

const statusOver = async (key: string) => (await alpha.api.get(`${CONFIG}/cards/${key}`)).body.data.status;

t.test('signed out: every page sends the browser to the sign-in form, coming back to it', async (t) => {
  const web = browserless(vigil.url);
  for (const page of ['/board', `/board/${first.key}?saved=moved`, '/deployments', '/deliveries?source=tickets']) {
    const answer = await web.get(page);
    t.equal(answer.status, 303, page);
    t.equal(answer.location, `/login?next=${encodeURIComponent(page)}`);
  }
  const post = await web.post(`/board/${first.key}/move`, { status: 'done' });
  t.equal(post.status, 303, 'a POST without a session changes nothing and goes to sign in');
  t.equal(await statusOver(first.key), 'triage');
});

t.test('every console answer carries the security headers; the stylesheet is served from its path', async (t) => {
  const web = await signedIn(member);
  for (const page of ['/board', `/board/${first.key}`, '/deployments', '/deliveries', '/board/NOPE-1']) {
    const answer = await web.get(page);
    const csp = answer.headers.get('content-security-policy') ?? '';
    t.match(csp, /default-src 'self'/, page);
    t.match(csp, /script-src 'none'/);
    t.match(csp, /frame-ancestors 'none'/);
    t.notMatch(csp, /unsafe-inline/);
    t.equal(answer.headers.get('referrer-policy'), 'no-referrer');
    t.equal(answer.headers.get('x-content-type-options'), 'nosniff');
    t.notMatch(answer.text, /<script|style=/i, 'no script and no inline style in the markup');
  }
  const css = await fetch(`${vigil.url}/assets/vigil.css`);
  t.equal(css.status, 200);
  t.match(css.headers.get('content-type'), /text\/css/);
});

t.test('the card page: the URL the webhook answered shows the card, its text escaped', async (t) => {
  const web = await signedIn(member);
  const page = await web.get(path(first.url));
  t.equal(page.status, 200);
  t.match(page.text, 'Checkout &#60;script&#62;alert(1)&#60;/script&#62; slow');
  t.match(page.text, 'p99 over 2s');
  t.match(page.text, /<dt>Service<\/dt><dd>checkout<\/dd>/);
  t.match(page.text, '<li>latency</li>');
  t.match(page.text, `action="/board/${first.key}/move"`, 'a member gets the forms');
  t.equal((await web.get(path(foreign.url))).status, 404, 'a card of another organization is not found');
  t.equal((await web.get(`/board/${foreign.id}`)).status, 404, 'by id too');
});

t.test('a member moves a card: REST reads the new status, the audit log says console', async (t) => {
  const web = await signedIn(member);
  const csrf = await web.csrf();
  const forged = await web.post(`/board/${first.key}/move`, { _csrf: 'not-the-token', status: 'in_progress' });
  t.equal(forged.status, 403, 'a wrong CSRF token is refused');
  const missing = await web.post(`/board/${first.key}/move`, { status: 'in_progress' });
  t.equal(missing.status, 403, 'no CSRF token is refused');
  t.equal(await statusOver(first.key), 'triage', 'nothing changed');

  const moved = await web.post(`/board/${first.key}/move`, { _csrf: csrf, status: 'in_progress' });
  t.equal(moved.status, 303);
  t.equal(moved.location, `/board/${first.key}?saved=moved`);
  t.equal(await statusOver(first.key), 'in_progress');
  const log = await vigil.operator.get(`${ADMIN}/organizations/${alpha.id}/audit_log`);
  t.match(log.body.data[0], { transport: 'console', actor: { kind: 'session', id: member.id }, family: 'cards' });
  t.match((await web.get(moved.location!)).text, 'The card was moved.');

  const bad = await web.post(`/board/${first.key}/move`, { _csrf: csrf, status: 'sideways' });
  t.equal(bad.status, 422, 'an unknown status is the operation\'s 422');
  t.match(bad.text, /status/);
  const stranger = await web.post(`/board/${first.key}/assign`, { _csrf: csrf, assignee_email: 'not-a-member@example.com' });
  t.equal(stranger.status, 422);
  t.match(stranger.text, /assignee_email/);
  const assigned = await web.post(`/board/${first.key}/assign`, { _csrf: csrf, assignee_email: member.email });
  t.equal(assigned.status, 303);
  const read = (await alpha.api.get(`${CONFIG}/cards/${first.key}`)).body.data;
  t.equal(read.assignee_email, member.email);
  t.same(read.people, { [member.email]: 'Dana Ortiz' }, 'get_card names the members it names');
  t.match((await web.get(`/board/${first.key}`)).text, `<dt>Assignee</dt><dd>Dana Ortiz (${member.email})</dd>`, 'the card page shows the assignee by name and email');
  t.equal((await web.post(`/board/${foreign.key}/move`, { _csrf: csrf, status: 'done' })).status, 404, "another organization's card cannot be moved");
});

t.test('a comment form sent twice adds one comment', async (t) => {
  const web = await signedIn(member);
  const page = await web.get(path(second.url));
  const form = { _csrf: web.field(page.text, '_csrf'), key: web.field(page.text, 'key'), body: 'Looking into it <b>now</b>' };
  t.equal((await web.post(`/board/${second.key}/comment`, form)).status, 303);
  t.equal((await web.post(`/board/${second.key}/comment`, form)).status, 303, 'the repeat answers the same');
  const card = await alpha.card(second.key);
  t.equal(card.comments.length, 1);
  t.match(card.comments[0], { body: 'Looking into it <b>now</b>', author: member.email });
  const shown = (await web.get(path(second.url))).text;
  t.match(shown, 'Looking into it &#60;b&#62;now&#60;/b&#62;');
  t.match(shown, `Dana Ortiz (${member.email}) · `, 'the comment\'s author by name and email');
});

t.test('a viewer sees no action buttons, and a forged POST with a good token is refused', async (t) => {
  const web = await signedIn(viewer);
  const page = await web.get(path(second.url));
  t.equal(page.status, 200);
  t.notMatch(page.text, /action="\/board\/[^"]+\/(move|assign|comment)"/, 'no forms');
  t.notMatch(page.text, /<button type="submit">(Move|Assign|Comment)/);
  const csrf = web.field(page.text, '_csrf');
  for (const [action, form] of [['move', { status: 'done' }], ['assign', { assignee_email: '' }], ['comment', { body: 'sneaky' }]] as const) {
    const forged = await web.post(`/board/${second.key}/${action}`, { _csrf: csrf, ...form });
    t.equal(forged.status, 403, `${action} refused`);
    t.match(forged.text, /needs the member role/);
  }
  t.equal(await statusOver(second.key), 'triage');
  t.equal((await alpha.card(second.key)).comments.length, 1);
});

t.test('the board: columns by status, filters by service, label and assignee', async (t) => {
  const web = await signedIn(member);
  const all = await web.get('/board');
  t.equal(all.status, 200);
  for (const column of ['Triage', 'Backlog', 'To do', 'In progress', 'Blocked', 'Done']) t.match(all.text, new RegExp(`<h2 id="col-[a-z_]+">${column} `));
  t.match(all.text, first.key);
  t.match(all.text, second.key);
  t.not(foreign.key, first.key, 'the two boards number with different prefixes');
  t.notMatch(all.text, `>${foreign.key}<`, "no other organization's card");
  const bySearch = await web.get('/board?service=search&label=&assignee_email=');
  t.match(bySearch.text, second.key);
  t.notMatch(bySearch.text, `>${first.key}<`);
  const byLabel = await web.get('/board?label=latency');
  t.match(byLabel.text, `>${first.key}<`);
  t.notMatch(byLabel.text, `>${second.key}<`);
  const byAssignee = await web.get(`/board?assignee_email=${encodeURIComponent(member.email.toUpperCase())}`);
  t.match(byAssignee.text, `>${first.key}<`);
  t.notMatch(byAssignee.text, `>${second.key}<`);
  const column = await web.get('/board?status=triage');
  t.match(column.text, '<h1>Triage</h1>');
  t.match(column.text, `>${second.key}<`);
});

t.test("times are shown in the organization's time zone", async (t) => {
  t.equal((await alpha.api.put(`${CONFIG}/organization_settings`, { timezone: 'Europe/Berlin' })).status, 200);
  const web = await signedIn(member);
  const page = await web.get(path(second.url));
  t.match(page.text, '<time datetime="2026-03-01T12:00:00.000Z">2026-03-01 13:00 CET</time>');
  t.equal((await alpha.api.put(`${CONFIG}/organization_settings`, { timezone: 'UTC' })).status, 200);
});

t.test('the switcher: a person in several organizations picks one', async (t) => {
  const web = await signedIn(member);
  const page = await web.get('/board');
  t.match(page.text, /<select id="org-switch" name="organization_id">/);
  const csrf = web.field(page.text, '_csrf');
  const switched = await web.post('/organization', { _csrf: csrf, organization_id: beta.id, next: '/board' });
  t.equal(switched.status, 303);
  const there = await web.get('/board');
  t.match(there.text, `>${foreign.key}<`, "the other organization's board");
  t.match(there.text, '(viewer)', 'with the role held there');
  t.notMatch(there.text, `action="/board/${foreign.key}/move"`);
  const outsider = await vigil.organization('business');
  t.equal((await web.post('/organization', { _csrf: csrf, organization_id: outsider.id })).status, 404, 'not a member there');
  t.equal((await web.post('/organization', { _csrf: 'forged', organization_id: alpha.id })).status, 403);
});

t.test('deployments per service and environment; deliveries filtered by source and outcome', async (t) => {
  const sent = await fetch(`${vigil.url}/webhooks/deployments/${alpha.token}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'console-test' },
    body: JSON.stringify({ service: 'checkout', environment: 'production', version: 'v42', previous_version: 'v41', deployed_by: 'ci-bot' }),
  });
  t.equal(sent.status, 200);
  const web = await signedIn(member);
  const deployments = await web.get('/deployments');
  t.equal(deployments.status, 200);
  t.match(deployments.text, '<h2 id="g-0">checkout · production</h2>');
  t.match(deployments.text, 'v42');
  t.match(deployments.text, '(was v41)');
  t.notMatch((await web.get('/deployments?service=other')).text, 'v42');

  const deliveries = await web.get('/deliveries?source=deployments');
  t.match(deliveries.text, '<td>deployments</td>');
  t.notMatch(deliveries.text, '<td>tickets</td>');
  t.match((await web.get('/deliveries?source=tickets&outcome=created')).text, '<td>tickets</td><td>201</td><td>created</td>');
  t.equal((await web.get('/deliveries?source=nowhere')).status, 422, 'an unknown source is the operation\'s 422');
});

t.test('no secret appears in any page', async (t) => {
  const web = await signedIn(member);
  const session = web.cookies.get('vigil_session')!;
  const secrets = [alpha.token, beta.token, alpha.api.token, session, PASSWORD];
  for (const page of ['/board', path(first.url), path(second.url), '/deployments', '/deliveries', '/login']) {
    const text = (await web.get(page)).text;
    for (const secret of secrets) t.notOk(text.includes(secret), `${page} holds no secret`);
  }
});

t.test('hostile input never causes a 500', async (t) => {
  const web = await signedIn(member);
  const csrf = await web.csrf();
  const gets = [
    '/board/%00', `/board/${'a'.repeat(5000)}`, '/board/..%2F..%2Fetc', '/board?status[]=x&label[]=y', '/board?cursor=%FF%FE&status=triage',
    `/board?service=${'s'.repeat(5000)}`, '/deployments?event_type=nope', '/deployments?cursor=garbage', '/deliveries?outcome=%00',
    '/login?next[]=x', `/login?next=${encodeURIComponent('/\u0000')}`, '/sign-in/%00', `/sign-in/${'x'.repeat(5000)}`,
  ];
  for (const path of gets) {
    const answer = await web.get(path);
    t.ok(answer.status < 500, `${path.slice(0, 60)} → ${answer.status}`);
  }
  const posts: [string, Record<string, string>][] = [
    [`/board/${first.key}/move`, { _csrf: csrf, status: '\u0000' }],
    [`/board/${first.key}/comment`, { _csrf: csrf, body: 'x'.repeat(70_000), key: 'not a valid key!' }],
    [`/board/${first.key}/assign`, { _csrf: csrf, assignee_email: 'a'.repeat(300) }],
    ['/organization', { _csrf: csrf, organization_id: "' or 1=1 --" }],
  ];
  for (const [path, form] of posts) {
    const answer = await web.post(path, form);
    t.ok(answer.status >= 400 && answer.status < 500, `${path} → ${answer.status}`);
  }
  const big = await web.post(`/board/${first.key}/comment`, { _csrf: csrf, body: 'x'.repeat(300_000) });
  t.equal(big.status, 413, 'a form over 256 KiB');
  const cookie = await fetch(`${vigil.url}/board`, { headers: { cookie: `vigil_session=${'%00'.repeat(50)}` }, redirect: 'manual' });
  t.equal(cookie.status, 303, 'a garbage cookie is signed out');
});
