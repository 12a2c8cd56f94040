/**
 * Personal access tokens a person makes on the Account page (issue 39, "Tokens people make themselves"; the spec's
 * "Authentication" 5–7), through the surfaces: the form over HTTP as a browser without JavaScript posts it, the token
 * it shows once then used by the CLI (`vigil tools`) and an MCP client within its ceiling, refused by the configuration
 * API, its last use listed (written at most once a minute), revoked and refused after; the secret in no later page,
 * no log line and no audit entry; and the refusals — a ceiling above the person's role, an organization they are not
 * in, a form without its CSRF token, another person's token id.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { browserless, person, PASSWORD } from '../../helpers/console.ts';
import { connectAgent } from '../../helpers/mcp.ts';
import { runCli } from '../../helpers/cli.ts';
import { LogWatch } from '../../helpers/log-watch.ts';

const watch = new LogWatch();
const vigil = await startVigil({ log: watch.log });
t.teardown(() => vigil.close());
const org = await vigil.organization();
const other = await vigil.organization();
const stranger = await vigil.organization();
const api = await org.key();
const me = await person(vigil, { [org.id]: 'member', [other.id]: 'viewer' });
const them = await person(vigil, { [org.id]: 'member' });
const web = browserless(vigil.url);
t.equal((await web.signIn(me.email, PASSWORD)).status, 303);

const tokenOf = (text: string) => /id="new-token-value" readonly value="(vigil_pat_[^"]+)"/.exec(text)?.[1] ?? '';
const idsIn = (text: string) => [...text.matchAll(/action="\/account\/tokens\/([^/"]+)\/revoke"/g)].map((m) => m[1]!);
const audit = async (id: string) => JSON.stringify((await vigil.operator.get(`/api/admin/v1/organizations/${id}/audit_log`)).body);
const seen: string[] = [];
async function page(path: string) {
  const answer = await web.get(path);
  seen.push(answer.text);
  return answer;
}

let token = '';
let tokenId = '';

t.test('the Account page makes a token with a viewer ceiling and shows it once', async (t) => {
  const account = await page('/account');
  t.equal(account.status, 200);
  t.notMatch(account.text, /<script/i, 'no script');
  t.match(account.text, 'You have no personal access tokens.');
  t.match(account.text, /<a class="muted" href="\/account" aria-current="page"/, 'reached from the header, marked current');
  t.match(account.text, `name="organization:${org.id}"`, 'a box per organization of mine');
  t.notMatch(account.text, `organization:${stranger.id}`, 'none for one I am not in');
  const csrf = web.field(account.text, '_csrf');
  const made = await web.post('/account/tokens', { _csrf: csrf, name: 'laptop', [`organization:${org.id}`]: '1', max_role: 'viewer' });
  t.equal(made.status, 200);
  token = tokenOf(made.text);
  t.match(token, /^vigil_pat_[A-Za-z0-9_-]{20,}$/, 'the token, on the answer page');
  t.match(made.text, 'shown once');
  watch.remember(token);
  const list = await page('/account');
  t.match(list.text, /<th scope="row">laptop<\/th>/);
  t.match(list.text, 'Viewer (read only)');
  t.match(list.text, /<td><span class="muted">never<\/span><\/td>/, 'never used yet');
  [tokenId] = idsIn(list.text);
  t.ok(tokenId, 'listed with a Revoke button');
});

t.test('the token works at the agent-tool endpoint within its ceiling, and for the CLI', async (t) => {
  await api.post(`${CONFIG}/alert_mutes`, { pattern: 'disk full' });
  const agent = await connectAgent(vigil.url, token);
  t.teardown(() => agent.close());
  const read = await agent.call('list_alert_mutes');
  t.notOk(read.isError, 'a read works');
  t.same(read.body.data.map((m: { pattern: string }) => m.pattern), ['disk full']);
  const write = await agent.call('create_alert_mute', { pattern: 'cpu' });
  t.ok(write.isError, 'a write is refused: the ceiling is viewer though I am a member');
  t.equal(write.body.error, 'forbidden');
  const names = (await agent.client.listTools()).tools.map((tool) => tool.name);
  t.notOk(names.some((n) => /personal_token/.test(n)), 'no agent tool makes, lists or revokes tokens');

  const env = { VIGIL_URL: vigil.url, VIGIL_PERSONAL_TOKEN: token };
  const listed = await runCli(['tools', 'call', 'list_alert_mutes'], env);
  t.equal(listed.code, 0, listed.stderr);
  t.match(JSON.parse(listed.stdout), { data: [{ pattern: 'disk full' }] }, 'the CLI reads with the token');
  const refused = await runCli(['tools', 'call', 'create_alert_mute', '--input', '{"pattern":"cpu"}'], env);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /needs the member role.*\(forbidden\)/, 'and is refused a write, saying why');
  const tools = await runCli(['tools', 'list'], env);
  t.equal(tools.code, 0);
  t.match(tools.stdout, /^list_alert_mutes /m);
  t.same((await api.get(`${CONFIG}/alert_mutes`)).body.data.map((m: { pattern: string }) => m.pattern), ['disk full'], 'nothing was written');
});

t.test('the configuration API refuses it', async (t) => {
  const answer = await fetch(`${vigil.url}${CONFIG}/alert_mutes`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(answer.status, 403);
  t.equal((await answer.json()).error, 'personal_token_not_accepted');
  const apply = await runCli(['gate', 'check', '--service', 'api', '--key', token], { VIGIL_URL: vigil.url });
  t.equal(apply.code, 1);
  t.match(apply.stderr, /Personal access tokens are not accepted by the configuration API/);
});

t.test('last used: listed, and written at most once a minute', async (t) => {
  const stamp = async () => /<td><time datetime="([^"]+)">[^<]*<\/time><\/td>\s*<td><form/.exec((await page('/account')).text)?.[1];
  t.equal(await stamp(), '2026-03-01T12:00:00.000Z', 'the uses above, at the clock\'s time');
  vigil.clock.advance(30_000);
  const agent = await connectAgent(vigil.url, token);
  await agent.call('list_alert_mutes');
  t.equal(await stamp(), '2026-03-01T12:00:00.000Z', '30 s later: not written again');
  vigil.clock.advance(31_000);
  await agent.call('list_alert_mutes');
  await agent.close();
  t.equal(await stamp(), '2026-03-01T12:01:01.000Z', 'over a minute later: written');
});

t.test('refusals: a ceiling above my role, an organization not mine, a forged form', async (t) => {
  const csrf = await web.csrf();
  const count = async () => idsIn((await page('/account')).text).length;
  const before = await count();
  const above = await web.post('/account/tokens', { _csrf: csrf, name: 'too much', [`organization:${org.id}`]: '1', [`organization:${other.id}`]: '1', max_role: 'member' });
  t.equal(above.status, 422);
  t.match(above.text, /id="max_role-error">is above your role in [^<]*\(viewer\)/, 'the ceiling is named, with the organization where I am a viewer');
  t.match(above.text, 'value="too much"', 'what was typed is kept');
  t.match(above.text, new RegExp(`name="organization:${other.id}" value="1" checked`), 'and what was ticked');
  t.equal(tokenOf(above.text), '', 'no token');
  const adminCeiling = await web.post('/account/tokens', { _csrf: csrf, name: 'admin', [`organization:${org.id}`]: '1', max_role: 'org_admin' });
  t.equal(adminCeiling.status, 422, 'org_admin above a member');
  const foreign = await web.post('/account/tokens', { _csrf: csrf, name: 'theirs', [`organization:${stranger.id}`]: '1', max_role: 'viewer' });
  t.equal(foreign.status, 422);
  t.match(foreign.text, /id="organizations-error">names an organization you are not a member of/);
  const none = await web.post('/account/tokens', { _csrf: csrf, name: 'nowhere', max_role: 'viewer' });
  t.equal(none.status, 422, 'no organization chosen');
  const unknownCeiling = await web.post('/account/tokens', { _csrf: csrf, name: 'odd', [`organization:${org.id}`]: '1', max_role: 'owner' });
  t.equal(unknownCeiling.status, 422, 'a ceiling that is none of the four');
  const blank = await web.post('/account/tokens', { _csrf: csrf, name: '   ', [`organization:${org.id}`]: '1', max_role: 'viewer' });
  t.equal(blank.status, 422, 'a blank name');
  const forged = await web.post('/account/tokens', { name: 'forged', [`organization:${org.id}`]: '1', max_role: 'viewer' });
  t.equal(forged.status, 403, 'no CSRF token');
  const wrong = await web.post('/account/tokens', { _csrf: 'nope', name: 'forged', [`organization:${org.id}`]: '1', max_role: 'viewer' });
  t.equal(wrong.status, 403, 'a wrong CSRF token');
  t.equal(await count(), before, 'nothing was made');
  const unlimited = await web.post('/account/tokens', { _csrf: csrf, name: 'both', [`organization:${org.id}`]: '1', [`organization:${other.id}`]: '1', max_role: 'unlimited' });
  t.equal(unlimited.status, 200, 'no limit is my role in each: allowed');
  const both = tokenOf(unlimited.text);
  watch.remember(both);
  const inOther = await connectAgent(vigil.url, both, { 'x-vigil-organization': other.id });
  t.equal((await inOther.call('create_alert_mute', { pattern: 'x' })).body.error, 'forbidden', 'in the organization where I am a viewer it writes nothing');
  await inOther.close();
  const inMine = await connectAgent(vigil.url, both, { 'x-vigil-organization': org.id });
  t.notOk((await inMine.call('create_alert_mute', { pattern: 'mine' })).isError, 'where I am a member it writes');
  await inMine.close();
});

t.test('another person\'s token id is not found, and their token keeps working', async (t) => {
  const theirs = browserless(vigil.url);
  await theirs.signIn(them.email, PASSWORD);
  const made = await theirs.post('/account/tokens', { _csrf: await theirs.csrf(), name: 'theirs', [`organization:${org.id}`]: '1', max_role: 'member' });
  const theirToken = tokenOf(made.text);
  watch.remember(theirToken);
  const [theirId] = idsIn((await theirs.get('/account')).text);
  t.notMatch((await page('/account')).text, theirId!, 'not in my list');
  const refused = await web.post(`/account/tokens/${theirId}/revoke`, { _csrf: await web.csrf() });
  t.equal(refused.status, 404);
  t.equal((await web.post('/account/tokens/not-a-uuid/revoke', { _csrf: await web.csrf() })).status, 404, 'nor a malformed id');
  const agent = await connectAgent(vigil.url, theirToken);
  t.notOk((await agent.call('list_alert_mutes')).isError, 'their token still works');
  await agent.close();
});

t.test('revoked: refused at once, everywhere', async (t) => {
  const forged = await web.post(`/account/tokens/${tokenId}/revoke`, {});
  t.equal(forged.status, 403, 'a revoke without its CSRF token is refused');
  const done = await web.post(`/account/tokens/${tokenId}/revoke`, { _csrf: await web.csrf() });
  t.equal(done.status, 303);
  t.equal(done.location, '/account?saved=revoked');
  const list = await page('/account?saved=revoked');
  t.match(list.text, 'The token was revoked; it no longer works.');
  t.notOk(idsIn(list.text).includes(tokenId), 'gone from the list');
  const answer = await fetch(`${vigil.url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  t.equal(answer.status, 401, 'the agent-tool endpoint refuses it');
  const cli = await runCli(['tools', 'call', 'list_alert_mutes'], { VIGIL_URL: vigil.url, VIGIL_PERSONAL_TOKEN: token });
  t.equal(cli.code, 1);
  t.match(cli.stderr, /missing, unknown or revoked/, 'and so does the CLI, saying why');
  t.equal((await web.post(`/account/tokens/${tokenId}/revoke`, { _csrf: await web.csrf() })).status, 404, 'revoking again: not found');
});

t.test('the secret is in no later page, no log line and no audit entry', async (t) => {
  t.ok(seen.length >= 8, 'pages were kept');
  for (const text of seen) t.notMatch(text, token, 'not in a page after the one that made it');
  t.notMatch(await audit(org.id), 'vigil_pat_', 'no audit entry of the organization holds a token');
  t.notMatch(await audit(other.id), 'vigil_pat_');
  t.same(watch.leaks(), [], 'no log line holds a token');
});
