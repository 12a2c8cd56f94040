/**
 * Fix requests analysed by the background worker, against a fake GitHub (the app's installation) and a fake
 * OpenAI-compatible provider: a patch becomes a draft pull request (branch, commit, labels, reviewers), a decline
 * and every failure are recorded with their reason, a repeat updates the one pull request, and no secret reaches
 * an answer, the timeline or the delivery log.
 */
import t from 'tap';
import { CONFIG } from '../../helpers/harness.ts';
import { APP_ID, closeFixOrgs, fixOrg, fixWorld, shownFiles } from '../../helpers/fixes.ts';

const world = await fixWorld();
const { github, ai } = world;
t.teardown(async () => {
  await closeFixOrgs();
  await world.close();
});

let repoCount = 0;
/** a fresh repository on the fake GitHub (each test its own, so counts do not mix) */
function newRepo(files: Record<string, string> = { 'src/fee.ts': 'export const fee = 1;\n', 'README.md': '# checkout\n', 'src/cart.ts': 'export {};\n' }): string {
  const name = `acme/checkout-${++repoCount}`;
  github.addRepo(name, files);
  return name;
}

t.test('a patch becomes a draft pull request: branch, commit through the git data API, labels, reviewers; pr_opened with the URL', async (t) => {
  const repo = newRepo();
  const org = await fixOrg(world, {
    repos: [{ repo, services: ['checkout-api'], labels: ['checkout'], reviewers: ['alice', 'acme/sre'] }],
    codeHost: { fix_pr_labels: ['vigil', 'auto-fix'], fix_pr_reviewers: ['bob'], branch_prefix: 'vigil/fix-' },
  });
  const chatsBefore = ai.chats().length;
  const asked = await org.ask({ description: 'The fee in src/fee.ts is wrong: it should be 2', service: 'checkout-api', ticket: 'ENG-1' });
  t.equal(asked.status, 202);
  const done = await org.settled(asked.body.id);
  const branch = `vigil/fix-${asked.body.id}`;
  t.match(done, { status: 'pr_opened', pr_url: /^https:\/\/github\.example\/acme\/checkout-\d+\/pull\/\d+$/, pr_state: 'open', branch, reason: null, ai_provider: 'platform', ai_model: 'fake-model' });
  t.ok(done.completed_at);

  const [pull, ...more] = github.pulls(repo);
  t.equal(more.length, 0, 'one pull request');
  t.match(pull, { draft: true, head: branch, base: 'main', title: 'Fix the checkout fee', state: 'open' });
  t.match(pull!.body, /The fee was wrong\.[\s\S]*fix request `[0-9a-f-]{36}` \(ticket ENG-1\)/);
  t.same(pull!.labels, ['vigil', 'auto-fix', 'checkout'], 'code_host_settings labels, then the repository\'s');
  t.same(pull!.reviewers, ['bob', 'alice'], 'user reviewers');
  t.same(pull!.team_reviewers, ['sre'], 'team reviewers by slug');
  t.equal(done.pr_url, pull!.html_url);
  t.equal(github.fileAt(repo, branch, 'src/fee.ts'), 'export const fee = 2;\n', 'the branch holds the new content');
  t.equal(github.fileAt(repo, branch, 'README.md'), '# checkout\n', 'other files untouched');
  t.equal(github.fileAt(repo, 'main', 'src/fee.ts'), 'export const fee = 1;\n', 'the default branch untouched');
  t.match(github.commitOf(repo, branch)!.message, /^Fix the checkout fee\n\nFix request .+, ticket ENG-1\.$/);
  const calls = github.requests.filter((r) => r.path.startsWith(`/repos/${repo}/git/`) && r.method !== 'GET').map((r) => `${r.method} ${r.path.replace(`/repos/${repo}`, '')}`);
  t.same(calls, ['POST /git/blobs', 'POST /git/trees', 'POST /git/commits', 'POST /git/refs'], 'blob, tree, commit, ref');
  const create = github.requests.find((r) => r.method === 'POST' && r.path === `/repos/${repo}/pulls`);
  t.match(create?.body, { draft: true, head: branch, base: 'main' }, 'the pull request was asked for as a draft');

  const chat = ai.chats().slice(chatsBefore);
  t.equal(chat.length, 1, 'one provider call');
  t.match(chat[0]!.body, { model: 'fake-model', response_format: { type: 'json_object' } });
  t.same(Object.keys(shownFiles(chat[0]!)), ['src/fee.ts'], 'the file the description names was shown');
  const user = chat[0]!.body.messages[1].content;
  t.match(user, /The fee in src\/fee\.ts is wrong/);
  t.match(user, /Repository: acme\/checkout-\d+ \(branch main\)/);
  t.match(user, /README\.md/, 'the repository listing');
  t.same(done.timeline.map((e: any) => e.step), ['received', 'queued', 'analysis_started', 'files_read', 'ai_answered', 'pull_request_opened', 'pr_opened']);
  t.match(done.timeline.find((e: any) => e.step === 'files_read').detail, { paths: ['src/fee.ts'], base_branch: 'main' });
});

t.test('a token exchange per hour: the installation token is reused; the JWT carries the app id', async (t) => {
  const tokens = github.requests.filter((r) => r.path.endsWith('/access_tokens'));
  t.ok(tokens.length >= 1);
  const before = github.tokensIssued;
  const repo = newRepo();
  const org = await fixOrg(world, { repos: [{ repo, services: ['svc'] }] });
  await org.settled((await org.ask({ description: 'fix fee', repo })).body.id);
  t.equal(github.tokensIssued, before, 'the cached installation token was reused');
  const jwt = tokens[0]!.authorization!.replace('Bearer ', '');
  t.equal(JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).iss, APP_ID);
});

t.test('repository settings: the repository\'s default branch; fix_pr_draft false opens a ready pull request', async (t) => {
  const repo = `acme/trunk-${++repoCount}`;
  github.addRepo(repo, { 'lib/fee.py': 'fee = 1\n' }, 'trunk');
  const org = await fixOrg(world, { repos: [{ repo, services: ['py'], default_branch: 'trunk' }], codeHost: { fix_pr_draft: false, fix_pr_labels: [], branch_prefix: 'bots/' } });
  const done = await org.settled((await org.ask({ description: 'fee in fee.py', service: 'py' })).body.id);
  t.equal(done.status, 'pr_opened');
  t.match(github.pulls(repo)[0], { draft: false, base: 'trunk', head: `bots/${done.id}`, labels: [] });
});

t.test('a decline is recorded with the provider\'s reason; no branch, no pull request', async (t) => {
  const repo = newRepo();
  const org = await fixOrg(world, { repos: [{ repo, services: ['checkout-api'] }] });
  const done = await org.settled((await org.ask({ description: 'DECLINE: make it faster somehow', service: 'checkout-api' })).body.id);
  t.match(done, { status: 'declined', reason: 'The request does not describe a code change.', pr_url: null });
  t.equal(github.pulls(repo).length, 0);
  t.notOk(github.branchExists(repo, `vigil/fix-${done.id}`));
  t.same(done.timeline.map((e: any) => e.step).slice(-2), ['ai_answered', 'declined']);
});

t.test('failures are recorded with a clear reason', async (t) => {
  const repo = newRepo();
  const org = await fixOrg(world, { repos: [{ repo, services: ['checkout-api'] }] });
  const ask = async (description: string) => org.settled((await org.ask({ description, service: 'checkout-api' })).body.id);

  ai.script({ content: 'Sure! Here is a fix: change the fee.' });
  t.match(await ask('fix the fee 1'), { status: 'failed', reason: /^The AI provider's answer could not be used: the provider's answer is not JSON\.$/ });
  ai.script({ content: JSON.stringify({ decision: 'patch', title: 't', files: [{ path: '../etc/passwd', content: 'x' }] }) });
  t.match(await ask('fix the fee 2'), { status: 'failed', reason: /not a relative path inside the repository/ });
  ai.script({ content: JSON.stringify({ decision: 'patch', title: 't', files: [{ path: 'src/cart.ts', content: 'rewritten' }] }) });
  t.match(await ask('fix the fee in fee.ts 3'), { status: 'failed', reason: /rewrites a file the provider was not shown/ });
  ai.script({ content: JSON.stringify({ decision: 'patch', title: 't', files: [{ path: 'src/fee.ts', content: 'export const fee = 1;\nconst key = "[SECRET_1]";\n' }] }) });
  t.match(await ask('fix fee.ts 4'), { status: 'failed', reason: /masked secrets/ });
  ai.script({ content: JSON.stringify({ decision: 'patch', title: 't', files: [{ path: 'src/fee.ts', content: 'export const fee = 1;\n' }] }) });
  t.match(await ask('fix fee.ts 5'), { status: 'declined', reason: 'the proposed patch changes nothing' });
  ai.script({ status: 503 }, { status: 503 }, { status: 503 });
  t.match(await ask('fix fee.ts 6'), { status: 'failed', reason: /^AI unavailable: No AI provider answered: platform: answered HTTP 503/ });
  t.equal(github.pulls(repo).length, 0, 'no pull request from any of them');

  // code-host failures
  github.override = (r) => (r.method === 'POST' && r.path.endsWith('/git/blobs') ? { status: 500, body: { message: 'Server Error' } } : undefined);
  t.match(await ask('fix fee.ts 7'), { status: 'failed', reason: /^Code host error: The code host answered POST \/repos\/acme\/checkout-\d+\/git\/blobs with HTTP 500: Server Error\.$/ });
  github.override = (r) => (r.method === 'GET' && r.path.includes('/git/ref/heads/main') ? { status: 301, headers: { location: 'http://127.0.0.2:9/elsewhere' } } : undefined);
  t.match(await ask('fix fee.ts 8'), { status: 'failed', reason: /redirected .* to another host; the redirect was not followed/ });
  github.override = undefined;
  t.equal(github.requests.some((r) => r.path === '/elsewhere'), false);
});

t.test('code-host refusals: an unknown installation, a missing branch, an unreachable host', async (t) => {
  const repo = newRepo();
  const wrong = await fixOrg(world, { installation: '12345', repos: [{ repo, services: ['svc'] }] });
  t.match(await wrong.settled((await wrong.ask({ description: 'x', repo })).body.id), {
    status: 'failed', reason: /^Code host error: The code host refused the app's installation token: .* HTTP 404 \(the installation does not exist/,
  });
  const nobranch = await fixOrg(world, { repos: [{ repo, services: ['svc'], default_branch: 'develop' }] });
  t.match(await nobranch.settled((await nobranch.ask({ description: 'x', repo })).body.id), { status: 'failed', reason: /branch fix pull requests target \(develop\) does not exist/ });
  const missing = await fixOrg(world, { repos: [] });
  t.match(await missing.settled((await missing.ask({ description: 'x', repo: 'acme/not-on-github' })).body.id), { status: 'failed', reason: /does not exist in acme\/not-on-github/ });
});

t.test('AI unavailable: own_providers_only with no provider of the organization → failed with the reason', async (t) => {
  const repo = newRepo();
  const org = await fixOrg(world, { repos: [{ repo, services: ['svc'] }] });
  const saved = await org.api.put(`${CONFIG}/ai_settings`, { own_providers_only: true });
  t.equal(saved.status, 200);
  const done = await org.settled((await org.ask({ description: 'fix it', repo })).body.id);
  t.match(done, { status: 'failed', reason: /^AI unavailable: No AI provider can be used: own_providers_only is on/ });
  t.equal(github.pulls(repo).length, 0);
});

t.test('a repeat after pr_opened updates the one pull request (new commit, new text); no second pull request', async (t) => {
  const repo = newRepo();
  const org = await fixOrg(world, { repos: [{ repo, services: ['checkout-api'] }] });
  const first = await org.settled((await org.ask({ description: 'fee.ts: fee should be 2', service: 'checkout-api', dedup_key: 'inc-1' })).body.id);
  t.equal(first.status, 'pr_opened');
  const identical = await org.ask({ description: 'fee.ts: fee should be 2', service: 'checkout-api', dedup_key: 'inc-1' });
  t.same(identical.body, { status: 'pr_opened', id: first.id, duplicate: true }, 'an identical repeat does nothing');

  ai.script({ content: JSON.stringify({ decision: 'patch', title: 'Fee is 3', body: 'Better.', files: [{ path: 'src/fee.ts', content: 'export const fee = 3;\n' }] }) });
  const again = await org.ask({ description: 'fee.ts: fee should be 3 actually', service: 'checkout-api', dedup_key: 'inc-1' });
  t.same(again.body, { status: 'analyzing', id: first.id });
  const second = await org.settled(first.id);
  t.match(second, { status: 'pr_opened', pr_url: first.pr_url, revision: 2, branch: first.branch });
  t.equal(github.pulls(repo).length, 1, 'still one pull request');
  t.match(github.pulls(repo)[0], { title: 'Fee is 3', draft: true });
  t.equal(github.fileAt(repo, first.branch, 'src/fee.ts'), 'export const fee = 3;\n', 'the branch moved to the new commit');
  t.same(github.commitOf(repo, first.branch)!.parents.length, 1, 'the new commit sits on the default branch, not on the old fix');
  t.equal(github.requests.filter((r) => r.method === 'POST' && r.path === `/repos/${repo}/pulls`).length, 1, 'one pull request opened');
  t.ok(second.timeline.some((e: any) => e.step === 'pull_request_updated'));

  // a decline of a later repeat leaves the pull request open and says so
  const third = await org.ask({ description: 'DECLINE this one', service: 'checkout-api', dedup_key: 'inc-1' });
  const declined = await org.settled(third.body.id);
  t.match(declined, { status: 'declined', pr_url: first.pr_url, pr_state: 'open' });
  t.match(declined.timeline.at(-1).detail, { pull_request_left_open: first.pr_url });
});

t.test('five open fix pull requests: at five the fifth opens; the sixth is refused; a closed one frees a place', async (t) => {
  const repo = newRepo();
  const org = await fixOrg(world, { repos: [{ repo, services: ['checkout-api'] }] });
  const ids: string[] = [];
  for (let i = 1; i <= 5; i++) {
    const asked = await org.ask({ description: `fee.ts fix ${i}`, service: 'checkout-api', dedup_key: `k${i}` });
    t.equal(asked.status, 202, `request ${i}`);
    ids.push(asked.body.id);
  }
  for (const id of ids) t.equal((await org.settled(id)).status, 'pr_opened');
  t.equal(github.pulls(repo).filter((p) => p.state === 'open').length, 5, 'five open pull requests');
  const sixth = await org.ask({ description: 'fee.ts fix 6', service: 'checkout-api' });
  t.match(sixth, { status: 422, body: { reason: 'open_pull_request_limit' } });

  // someone merges one: the next analysis of this repository notices, and the count frees a place
  // the first request's own pull request: analyses run two at a time, so the code host's first may be another's
  github.closePull(repo, (await org.get(ids[0]!)).pr_number);
  t.equal((await org.ask({ description: 'fee.ts fix 6', service: 'checkout-api' })).status, 422, 'Vigil has not seen the merge yet');
  const refresh = await org.ask({ description: 'fee.ts fix 5, better', service: 'checkout-api', dedup_key: 'k5' });
  t.equal(refresh.status, 202, 'a repeat of one of the five is accepted');
  await org.settled(ids[4]!);
  const closed = await org.get(ids[0]!);
  t.match(closed, { pr_state: 'closed' });
  t.equal(closed.timeline.at(-1).step, 'pull_request_closed');
  t.equal((await org.ask({ description: 'fee.ts fix 6', service: 'checkout-api' })).status, 202, 'the closed pull request freed its place');
});

t.test('the code host already lists five open fix pull requests of the prefix: the analysis fails with the limit', async (t) => {
  const repo = newRepo();
  for (let i = 0; i < 5; i++) github.addPull(repo, `vigil/fix-by-another-instance-${i}`);
  github.addPull(repo, 'feature/unrelated');
  const org = await fixOrg(world, { repos: [{ repo, services: ['checkout-api'] }] });
  const done = await org.settled((await org.ask({ description: 'fee.ts', service: 'checkout-api' })).body.id);
  t.match(done, { status: 'failed', reason: /already has 5 open fix pull requests \(the limit is 5\)/ });
  t.equal(github.pulls(repo).length, 6, 'no pull request added');
});

t.test('no secret in any answer, timeline, delivery log or log: private key, JWT, installation tokens', async (t) => {
  const repo = newRepo();
  const org = await fixOrg(world, { repos: [{ repo, services: ['svc'] }] });
  const done = await org.settled((await org.ask({ description: 'fee.ts', repo })).body.id);
  const issued = github.requests.filter((r) => r.authorization?.startsWith('Bearer ghs_')).map((r) => r.authorization!.slice(7));
  t.ok(issued.length > 0);
  const jwts = github.requests.filter((r) => r.path.endsWith('/access_tokens')).map((r) => r.authorization!.slice(7));
  const everything = JSON.stringify([done, await org.list(), await org.deliveries(), (await world.vigil.operator.get(`/api/admin/v1/organizations/${org.id}/audit_log`)).body]);
  for (const secret of [...new Set(issued), ...jwts, world.privateKey.split('\n')[1]!]) t.notOk(everything.includes(secret), 'not shown');
  t.notOk(everything.includes('PRIVATE KEY'));
  t.notOk(JSON.stringify(ai.chats()).includes('ghs_'), 'nothing of the code host\'s credentials reaches the provider');
});
