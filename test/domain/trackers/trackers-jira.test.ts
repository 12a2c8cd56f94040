/**
 * The sprint-tracker webhook (Jira Cloud) through HTTP: X-Hub-Signature of a saved secret, the plan, the rule's
 * project and item type, the description as a string or an ADF document, the status-category and priority
 * mappings, issue_deleted → archived, redelivery, other events, and the fix label.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { closeAgents, codeHostApp, fixture, hmacHex, JIRA_SECRET, jiraIssue, jiraStatus, trackerOrg } from '../../helpers/trackers.ts';

const vigil = await startVigil({ codeHost: codeHostApp(), runWorkers: false });
t.teardown(async () => {
  await closeAgents();
  await vigil.close();
});

const rulesOrg = (config: Record<string, string> = { project: 'OPS' }, extra: Parameters<typeof trackerOrg>[1] = {}) =>
  trackerOrg(vigil, { integrations: { sprint_tracker: {} }, rules: [{ provider: 'sprint_tracker', config }], ...extra });

t.test('a secret saved for the Jira admin webhook: X-Hub-Signature sha256=<hex HMAC of the body> on every delivery', async (t) => {
  const org = await trackerOrg(vigil, { integrations: { sprint_tracker: { signing_secret: JIRA_SECRET } }, rules: [{ provider: 'sprint_tracker', config: { project: 'OPS' } }] });
  const body = jiraIssue('jira:issue_created');
  const raw = JSON.stringify(body);
  const missing = await org.jira(body);
  t.equal(missing.status, 401);
  t.match(missing.body, { error: 'unauthorized', message: /X-Hub-Signature/ });
  t.equal((await org.jira(body, 'some-other-secret-0000')).status, 401, 'another secret');
  t.equal((await org.jira(raw, null, { 'x-hub-signature': hmacHex(JIRA_SECRET, raw) })).status, 401, 'the hex without sha256= is not Jira\'s format');
  t.equal((await org.jira(raw, null, { 'x-hub-signature': `sha1=${hmacHex(JIRA_SECRET, raw)}` })).status, 401, 'another method');
  t.equal((await org.jira(raw, null, { 'x-hub-signature-256': `sha256=${hmacHex(JIRA_SECRET, raw)}` })).status, 401, 'GitHub\'s header is not Jira\'s');
  t.same(await org.cards(), []);
  const valid = await org.jira(body, JIRA_SECRET);
  t.equal(valid.status, 200);
  t.equal(valid.body.action, 'created');
  t.notOk(JSON.stringify(await org.api.get(`${CONFIG}/ticket_integrations`)).includes(JIRA_SECRET), 'never answered');
  const audit = await vigil.operator.get(`/api/admin/v1/organizations/${org.id}/audit_log`);
  t.notOk(JSON.stringify(audit.body).includes(JIRA_SECRET), 'never in the audit log');
  t.ok(JSON.stringify(audit.body).includes('"signing_secret":"(set)"'), 'the audit entry says (set)');
});

t.test('403 without ticket systems; 200 for everything a real Jira sends', async (t) => {
  const free = await rulesOrg(undefined, { plan: 'free' });
  const refused = await free.jira(jiraIssue('jira:issue_created'));
  t.same([refused.status, refused.body.error], [403, 'plan_required']);

  const org = await rulesOrg();
  const comment = await org.jira(fixture('sprint-tracker/comment-created'));
  t.match(comment, { status: 200, body: { status: 'ignored', reason: /comment_created is not imported/ } });
});

t.test('an issue of the rule\'s project gets a card: summary, ADF description as text, priority, labels, triage', async (t) => {
  const org = await rulesOrg();
  const created = await org.jira(jiraIssue('jira:issue_created'));
  t.match(created.body, { status: 'ok', action: 'created', card: { status: 'triage' } });
  const card = await org.card(created.body.card.key);
  t.match(card, {
    title: 'Payment webhooks time out after the queue upgrade', priority: 'high', labels: ['incident', 'payments'], status: 'triage',
    description: 'Since 12:30 the payments-worker times out on every third webhook.\np99 latency 31 s\nreported by @Mia Krystof',
    dedup_key: 'sprint_tracker:10002',
  });
  t.match(card.effects.find((e: any) => e.kind === 'tracker_linked').detail, { provider: 'sprint_tracker', identifier: 'OPS-7', url: 'https://acme.atlassian.net/browse/OPS-7' });

  // Atlassian's own documented example: a string description, a bare priority name, no project (taken from the key)
  const legacy = await rulesOrg({ project: 'JRA' });
  const res = await legacy.jira(fixture('sprint-tracker/issue-updated-legacy'));
  t.match(res.body, { status: 'ok', action: 'created' }, 'an update of an item not seen yet opens its card');
  t.match(await legacy.card(res.body.card.key), { title: 'I feel the need for speed', description: 'Make the issue nav load 10x faster', priority: 'low', labels: ['UI', 'dialogue', 'move'] });
});

t.test('status categories: new → todo, indeterminate → in_progress, done → done, refined by the status name; resolutions', async (t) => {
  const org = await rulesOrg();
  const first = await org.jira(jiraIssue('jira:issue_created'));
  const key = first.body.card.key;
  const cases: [Record<string, unknown>, string, string][] = [
    [{ status: jiraStatus('In Progress', 'indeterminate') }, 'in_progress', 'In Progress'],
    [{ status: jiraStatus('Blocked', 'indeterminate') }, 'blocked', 'Blocked'],
    [{ status: jiraStatus('Code Review', 'indeterminate') }, 'in_progress', 'a name of its own: the category'],
    [{ status: jiraStatus('Backlog', 'new') }, 'backlog', 'Backlog'],
    [{ status: jiraStatus('Selected for Development', 'new') }, 'todo', 'new: todo'],
    [{ status: jiraStatus('Done', 'new') }, 'todo', 'a name never crosses its category'],
    [{ status: jiraStatus('Done', 'done'), resolution: { name: 'Done' } }, 'done', 'Done'],
    [{ status: jiraStatus('Closed', 'done'), resolution: { name: 'Won\'t Do' } }, 'archived', 'resolution Won\'t Do'],
    [{ status: jiraStatus('Reopened', 'new'), resolution: null }, 'triage', 'Reopened'],
    [{ status: jiraStatus('Declined', 'done'), resolution: { name: 'Duplicate' } }, 'archived', 'resolution Duplicate'],
  ];
  let minute = 10;
  for (const [fields, expected, what] of cases) {
    await org.jira(jiraIssue('jira:issue_updated', { ...fields, updated: `2026-03-01T13:${minute++}:00.000+0100` }));
    t.equal((await org.card(key)).status, expected, `${what} → ${expected}`);
  }
});

t.test('priority: Highest urgent, High high, Medium normal, Low and Lowest low', async (t) => {
  const org = await rulesOrg();
  const cases: [string, string][] = [['Highest', 'urgent'], ['High', 'high'], ['Medium', 'normal'], ['Low', 'low'], ['Lowest', 'low'], ['P3', 'normal']];
  for (const [i, [name, expected]] of cases.entries()) {
    const res = await org.jira(jiraIssue('jira:issue_created', { priority: { name, id: String(i) } }, { id: `2000${i}`, key: `OPS-${100 + i}` }));
    t.equal((await org.card(res.body.card.key)).priority, expected, `${name} → ${expected}`);
  }
});

t.test('the rule names the project and narrows by item type', async (t) => {
  const bugs = await rulesOrg({ project: 'ops', item_type: 'bug' });
  t.equal((await bugs.jira(jiraIssue('jira:issue_created'))).body.status, 'ok', 'project key and item type, without regard to case');
  const byId = await rulesOrg({ project: '10000' });
  t.equal((await byId.jira(jiraIssue('jira:issue_created'))).body.status, 'ok', 'the project id');
  const stories = await rulesOrg({ project: 'OPS', item_type: 'Story' });
  const res = await stories.jira(jiraIssue('jira:issue_created'));
  t.match(res.body, { status: 'ignored', reason: /type Story.*OPS-7 is Bug/ });
  t.same(await stories.cards(), []);
  const other = await rulesOrg({ project: 'WEB' });
  t.match((await other.jira(jiraIssue('jira:issue_created'))).body, { status: 'ignored', reason: /project WEB/ });
  t.same(await other.cards(), []);
});

t.test('issue_deleted archives the card; redelivery (same X-Atlassian-Webhook-Identifier) changes nothing', async (t) => {
  const org = await rulesOrg();
  const body = jiraIssue('jira:issue_created');
  const first = await org.jira(body, null, { 'x-atlassian-webhook-identifier': 'delivery-1' });
  const retry = await org.jira(body, null, { 'x-atlassian-webhook-identifier': 'delivery-1', 'x-atlassian-webhook-retry': '1' });
  t.match(retry.body, { status: 'ok', action: 'unchanged', card: { id: first.body.card.id } });
  t.equal((await org.card(first.body.card.key)).effects.length, 3, 'one notification, one chat post, one link');
  const deleted = await org.jira(jiraIssue('jira:issue_deleted', { updated: '2026-03-01T13:30:00.000+0100' }));
  t.match(deleted.body, { status: 'ok', action: 'archived' });
  t.equal((await org.card(first.body.card.key)).status, 'archived');
  t.equal((await org.cards()).length, 1);
});

t.test('the fix label svc-fix asks once; without the feature the skip is recorded', async (t) => {
  const org = await rulesOrg(undefined, { codeHost: { installation_id: '4815162342', account: 'acme' } });
  await org.api.post(`${CONFIG}/repo_settings`, { repo: 'acme/payments', services: ['payments'] });
  const res = await org.jira(jiraIssue('jira:issue_created', { labels: ['incident', 'svc-fix'] }));
  t.match(res.body, { status: 'ok', action: 'created', fix: { outcome: 'requested' } });
  const again = await org.jira(jiraIssue('jira:issue_updated', { labels: ['incident', 'svc-fix'], summary: 'Edited', updated: '2026-03-01T13:01:00.000+0100' }));
  t.notOk(again.body.fix);

  const without = await rulesOrg(undefined, { features: { fix_pull_requests: false } });
  const skipped = await without.jira(jiraIssue('jira:issue_created', { labels: ['svc-fix'] }));
  t.match(skipped.body.fix, { outcome: 'skipped', reason: 'plan_required' });
  t.match((await without.card(skipped.body.card.key)).effects.find((e: any) => e.kind === 'fix_skipped').detail, { reason: 'plan_required', ticket: 'OPS-7' });
});
