/**
 * Racing deliveries of one tracker item (meant for PostgreSQL, where they really run at once; on PGlite they
 * queue): twenty at once make one card, one link, one notification, one fix request; twenty of one change apply
 * it once.
 */
import t from 'tap';
import { startVigil } from '../../helpers/harness.ts';
import { closeAgents, codeHostApp, fixture, jiraIssue, jiraStatus, linearIssue, trackerOrg } from '../../helpers/trackers.ts';

const vigil = await startVigil({ codeHost: codeHostApp(), runWorkers: false });
t.teardown(async () => {
  await closeAgents();
  await vigil.close();
});

const N = 20;
const kinds = (card: any) => card.effects.map((e: any) => e.kind);
const count = (list: string[], kind: string) => list.filter((k) => k === kind).length;

t.test(`${N} concurrent deliveries of one Linear issue with the fix label: one card, one link, one fix request`, async (t) => {
  const org = await trackerOrg(vigil, {
    integrations: { issue_tracker: {} }, rules: [{ provider: 'issue_tracker', config: { project: 'ENG' } }],
    codeHost: { installation_id: '4815162342', account: 'acme' },
  });
  await org.api.post('/api/v1/config/repo_settings', { repo: 'acme/checkout', services: ['checkout'] });
  const body = linearIssue('create', { labels: [{ id: 'f', name: 'svc-fix' }] });
  const answers = await Promise.all(Array.from({ length: N }, () => org.linear(body)));
  t.same([...new Set(answers.map((a) => a.status))], [200], 'every delivery answered 200');
  t.same([...new Set(answers.map((a) => a.body.card?.id))].length, 1, 'all name the same card');
  t.equal(answers.filter((a) => a.body.action === 'created').length, 1, 'one of them created it');
  t.equal(answers.filter((a) => a.body.fix).length, 1, 'one of them asked for the fix');
  const cards = await org.cards();
  t.equal(cards.length, 1, 'one card');
  const effects = kinds(await org.card(cards[0].key));
  t.same([count(effects, 'notification'), count(effects, 'chat_post'), count(effects, 'tracker_linked'), count(effects, 'fix_requested')], [1, 1, 1, 1]);

  const update = linearIssue('update', { state: { name: 'In Progress', type: 'started' }, labels: [{ id: 'f', name: 'svc-fix' }], updatedAt: '2026-03-01T12:01:00.000Z' });
  const updates = await Promise.all(Array.from({ length: N }, () => org.linear(update)));
  t.same([...new Set(updates.map((a) => a.status))], [200]);
  t.equal(updates.filter((a) => a.body.action === 'updated').length, 1, 'one delivery applied the change, the others found nothing left');
  const after = await org.card(cards[0].key);
  t.equal(after.status, 'in_progress');
  t.equal(count(kinds(after), 'updated'), 1, 'one updated effect');
});

t.test(`${N} concurrent deliveries of one Jira issue and of one GitHub issue: one card each`, async (t) => {
  const org = await trackerOrg(vigil, {
    integrations: { sprint_tracker: {} }, codeHost: { installation_id: '4815162342', account: 'Codertocat' },
    rules: [{ provider: 'sprint_tracker', config: { project: 'OPS' } }, { provider: 'code_host', config: { repo: 'Codertocat/Hello-World' } }],
  });
  const jira = jiraIssue('jira:issue_updated', { status: jiraStatus('In Progress', 'indeterminate') });
  const github = fixture('code-host/issues-opened');
  const answers = await Promise.all([
    ...Array.from({ length: N }, () => org.jira(jira)),
    ...Array.from({ length: N }, () => org.github('issues', github)),
  ]);
  t.same([...new Set(answers.map((a) => a.status))], [200]);
  t.equal(answers.filter((a) => a.body.action === 'created').length, 2, 'one creation per item');
  const cards = await org.cards();
  t.equal(cards.length, 2, 'two cards');
  for (const card of cards) t.equal(count(kinds(await org.card(card.key)), 'notification'), 1, `${card.key}: one notification`);
});
