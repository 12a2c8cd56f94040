/**
 * GitHub `issues` events on the code-host endpoint feed the `code_host` import rule: repo and label matching,
 * open/closed and state_reason mapping, deleted → archived, redelivery, X-Hub-Signature-256 (the code host's
 * existing signing secret), the always-200 answers of the code-host endpoint, and the fix label.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { clone, closeAgents, codeHostApp, fixture, trackerOrg } from '../../helpers/trackers.ts';

const vigil = await startVigil({ codeHost: codeHostApp(), runWorkers: false });
t.teardown(async () => {
  await closeAgents();
  await vigil.close();
});

const OPENED = fixture('code-host/issues-opened');
const APP = { installation_id: '4815162342', account: 'Codertocat' };
const CODE_HOST_SECRET = 'code-host-signing-secret-0001';

const rulesOrg = (config: Record<string, string> = { repo: 'Codertocat/Hello-World' }, extra: Parameters<typeof trackerOrg>[1] = {}) =>
  trackerOrg(vigil, { codeHost: APP, rules: [{ provider: 'code_host', config }], ...extra });

/** an `issues` delivery: the fixture with `action` and `issue` members replaced */
function issues(action: string, issue: Record<string, unknown> = {}) {
  const body = clone(OPENED);
  body.action = action;
  Object.assign(body.issue, issue);
  return body;
}

t.test('an opened issue of the rule\'s repository gets a card; edits, labels, closing and reopening keep it in step', async (t) => {
  const org = await rulesOrg();
  const opened = await org.github('issues', OPENED);
  t.equal(opened.status, 200);
  t.match(opened.body, { status: 'ok', event: 'issues', action: 'created', card: { status: 'triage' } });
  const card = await org.card(opened.body.card.key);
  t.match(card, { title: 'Spelling error in the README file', description: OPENED.issue.body, labels: ['bug'], priority: 'normal', dedup_key: 'code_host:444500041' });
  t.match(card.effects.find((e: any) => e.kind === 'tracker_linked').detail, { provider: 'code_host', identifier: 'Codertocat/Hello-World#1', url: OPENED.issue.html_url });

  const steps: [string, Record<string, unknown>, string, Record<string, unknown>][] = [
    ['edited', { title: 'Spelling error in README', updated_at: '2019-05-15T15:21:00Z' }, 'triage', { title: 'Spelling error in README' }],
    ['labeled', { labels: [{ name: 'bug' }, { name: 'docs' }], updated_at: '2019-05-15T15:22:00Z' }, 'triage', { labels: ['bug', 'docs'] }],
    ['closed', { state: 'closed', state_reason: 'completed', updated_at: '2019-05-15T15:23:00Z' }, 'done', {}],
    ['reopened', { state: 'open', state_reason: 'reopened', updated_at: '2019-05-15T15:24:00Z' }, 'triage', {}],
    ['closed', { state: 'closed', state_reason: 'not_planned', updated_at: '2019-05-15T15:25:00Z' }, 'archived', {}],
    ['reopened', { state: 'open', state_reason: null, updated_at: '2019-05-15T15:26:00Z' }, 'triage', {}],
    ['closed', { state: 'closed', state_reason: null, updated_at: '2019-05-15T15:27:00Z' }, 'done', {}],
  ];
  let issue: Record<string, unknown> = {};
  for (const [action, change, status, expected] of steps) {
    issue = { ...issue, ...change };
    const res = await org.github('issues', issues(action, issue));
    t.match(res.body, { status: 'ok', event: 'issues', card: { id: opened.body.card.id } }, action);
    t.match(await org.card(opened.body.card.key), { status, ...expected }, `${action} → ${status}`);
  }
  t.equal((await org.cards()).length, 1, 'one card throughout');

  const deleted = await org.github('issues', issues('deleted', { ...issue, updated_at: '2019-05-15T15:28:00Z' }));
  t.match(deleted.body, { status: 'ok', action: 'archived' });
  t.equal((await org.card(opened.body.card.key)).status, 'archived');
});

t.test('the rule names the repository and narrows by label; other issues are ignored with a 200', async (t) => {
  const other = await rulesOrg({ repo: 'Codertocat/Other' });
  const res = await other.github('issues', OPENED);
  t.match(res, { status: 200, body: { status: 'ignored', event: 'issues', reason: /repository Codertocat\/Other/ } });
  t.same(await other.cards(), []);
  const labelled = await rulesOrg({ repo: 'codertocat/hello-world', label: 'BUG' });
  t.equal((await labelled.github('issues', OPENED)).body.status, 'ok', 'repository and label without regard to case');
  const unlabelled = await rulesOrg({ repo: 'Codertocat/Hello-World', label: 'incident' });
  t.equal((await unlabelled.github('issues', OPENED)).body.status, 'ignored');
  t.same(await unlabelled.cards(), []);
  const anyRepo = await rulesOrg({});
  t.equal((await anyRepo.github('issues', OPENED)).body.status, 'ok', 'a rule without repo names every repository the hook sends');

  const noRule = await trackerOrg(vigil, { codeHost: APP });
  t.match((await noRule.github('issues', OPENED)).body, { status: 'ignored', reason: /code_host ticket import rule/ });
  const noPlan = await rulesOrg(undefined, { features: { ticket_systems: false } });
  const refused = await noPlan.github('issues', OPENED);
  t.match(refused, { status: 200, body: { status: 'ignored', reason: /Ticket systems are not included/ } }, 'the code-host endpoint stays 200 without ticket systems');
});

t.test('redelivery creates nothing twice; a closed issue not imported yet is not imported', async (t) => {
  const org = await rulesOrg();
  const first = await org.github('issues', OPENED, null, { 'x-github-delivery': 'same-delivery' });
  const again = await org.github('issues', OPENED, null, { 'x-github-delivery': 'same-delivery' });
  t.match(again.body, { status: 'ok', action: 'unchanged', card: { id: first.body.card.id } });
  t.equal((await org.card(first.body.card.key)).effects.length, 3);
  const closed = await org.github('issues', issues('closed', { id: 1, number: 2, state: 'closed', state_reason: 'completed' }));
  t.match(closed.body, { status: 'ignored', reason: /already finished/ });
  t.equal((await org.cards()).length, 1);
});

t.test('X-Hub-Signature-256 of the code host\'s saved secret applies to issues events too', async (t) => {
  const org = await rulesOrg();
  t.equal((await org.api.post(`${CONFIG}/request_signing`, { source: 'code-host', secret: CODE_HOST_SECRET })).status, 201);
  const unsigned = await org.github('issues', OPENED);
  t.equal(unsigned.status, 401, 'unsigned: 401');
  t.equal((await org.github('issues', OPENED, 'wrong-secret-0000000000')).status, 401, 'wrongly signed: 401');
  t.same(await org.cards(), []);
  const signed = await org.github('issues', OPENED, CODE_HOST_SECRET);
  t.match(signed, { status: 200, body: { status: 'ok', action: 'created' } });
});

t.test('the fix label asks for a fix in the issue\'s repository once, ticket = owner/name#number', async (t) => {
  const org = await rulesOrg();
  const labelled = issues('labeled', { labels: [{ name: 'bug' }, { name: 'svc-fix' }] });
  const res = await org.github('issues', labelled);
  t.match(res.body, { status: 'ok', action: 'created', fix: { outcome: 'requested', id: String } });
  t.notOk((await org.github('issues', labelled)).body.fix, 'a redelivery asks nothing');
  const requests = await org.agent.call('list_fix_requests', {});
  if (!requests.isError) t.match(requests.body.data.find((r: any) => r.ticket === 'Codertocat/Hello-World#1'), { repo: 'codertocat/hello-world' });

  const noApp = await trackerOrg(vigil, { codeHost: APP, rules: [{ provider: 'code_host', config: {} }] });
  await noApp.api.put(`${CONFIG}/code_host_settings`, { installation_id: null });
  const skipped = await noApp.github('issues', labelled);
  t.match(skipped.body.fix, { outcome: 'skipped', reason: 'code_host_app_not_installed' }, 'the app uninstalled since: skipped, card kept');
  t.match((await noApp.card(skipped.body.card.key)).effects.find((e: any) => e.kind === 'fix_skipped').detail, { reason: 'code_host_app_not_installed', ticket: 'Codertocat/Hello-World#1' });
});
