/**
 * The issue-tracker webhook (Linear) through HTTP, with the cards read back through the agent-tool endpoint:
 * the signature of a saved signing secret (valid, missing, wrong, stale), the plan, the import rule's project and
 * label, the status and priority mappings, remove → archived, redelivery and out-of-order deliveries, an item that
 * stops matching, and the fix label.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { closeAgents, codeHostApp, fixture, hmacHex, LINEAR_SECRET, linearIssue, trackerOrg } from '../../helpers/trackers.ts';

// fix requests need the deployment's code-host app; their analysis is not what these tests are about
const vigil = await startVigil({ codeHost: codeHostApp(), runWorkers: false });
t.teardown(async () => {
  await closeAgents();
  await vigil.close();
});

const RULE = { provider: 'issue_tracker', config: { project: 'ENG' } };
const rulesOrg = (config: Record<string, string> = RULE.config, extra: Parameters<typeof trackerOrg>[1] = {}) =>
  trackerOrg(vigil, { integrations: { issue_tracker: {} }, rules: [{ provider: 'issue_tracker', config }], ...extra });

t.test('a signing secret saved on the ticket_integrations row: every delivery must carry Linear-Signature', async (t) => {
  const org = await trackerOrg(vigil, { integrations: { issue_tracker: { signing_secret: LINEAR_SECRET } }, rules: [RULE] });
  const read = await org.api.get(`${CONFIG}/ticket_integrations/issue_tracker`);
  t.equal(read.body.data.signing_secret_set, true, 'answered as signing_secret_set');
  t.notOk('signing_secret' in read.body.data, 'the secret itself is never answered');
  t.notOk(JSON.stringify(read.body).includes(LINEAR_SECRET));

  const body = linearIssue('create');
  const missing = await org.linear(body);
  t.equal(missing.status, 401, 'unsigned: 401');
  t.equal(missing.body.error, 'unauthorized');
  t.match(missing.body.message, /Linear-Signature/);
  t.notOk(JSON.stringify(missing.body).includes(LINEAR_SECRET), 'the refusal does not carry the secret');

  const wrong = await org.linear(body, 'another-secret-of-16-chars');
  t.equal(wrong.status, 401, 'signed with another secret: 401');
  const garbage = await org.linear(body, null, { 'linear-signature': 'not-hex' });
  t.equal(garbage.status, 401);
  t.same(await org.cards(), [], 'nothing was created by a refused delivery');

  const valid = await org.linear(body, LINEAR_SECRET);
  t.equal(valid.status, 200, 'signed with the saved secret: accepted');
  t.equal(valid.body.status, 'ok');

  const tampered = await org.linear(JSON.stringify(body).replace('Checkout', 'Checkoot'), null, { 'linear-signature': hmacHex(LINEAR_SECRET, JSON.stringify(body)) });
  t.equal(tampered.status, 401, 'a changed body under the original signature: 401');

  // Linear's replay protection: webhookTimestamp within five minutes of the service's clock
  const stale = linearIssue('update', { title: 'replayed' }, { webhookTimestamp: Date.parse('2026-03-01T11:54:00Z') });
  const refused = await org.linear(stale, LINEAR_SECRET);
  t.equal(refused.status, 401, 'a correctly signed delivery over five minutes old is refused');
  t.match(refused.body.message, /webhookTimestamp/);
  const future = linearIssue('update', { title: 'from the future' }, { webhookTimestamp: Date.parse('2026-03-01T12:06:00Z') });
  t.equal((await org.linear(future, LINEAR_SECRET)).status, 401, 'and so is one from over five minutes ahead');
  const noStamp = linearIssue('update', { title: 'no stamp' });
  delete noStamp.webhookTimestamp;
  t.equal((await org.linear(noStamp, LINEAR_SECRET)).status, 401, 'a signed body without webhookTimestamp is refused');

  vigil.clock.advance(4 * 60_000);
  t.equal((await org.linear(linearIssue('update', { title: 'four minutes later' }), LINEAR_SECRET)).status, 200, 'four minutes off is accepted');
  vigil.clock.set('2026-03-01T12:00:00.000Z');

  const outcomes = (await org.deliveries('issue-tracker')).map((d: any) => d.outcome);
  t.ok(outcomes.filter((o: string) => o === 'refused: signature').length >= 5, 'refusals are in the delivery log');

  // clearing the secret: the token alone is enough again (the credential cache is cleared by the write)
  t.equal((await org.api.put(`${CONFIG}/ticket_integrations/issue_tracker`, { signing_secret: null })).status, 200);
  t.equal((await org.linear(linearIssue('update', { title: 'unsigned again' }))).status, 200, 'without a saved secret the token alone is accepted');
  // and saving one through the agent tool switches checking on at once
  const configured = await org.agent.call('configure_ticket_integration', { provider: 'issue_tracker', signing_secret: LINEAR_SECRET });
  t.equal(configured.isError, false);
  t.equal(configured.body.data.signing_secret_set, true);
  t.equal((await org.linear(linearIssue('update'))).status, 401, 'configure_ticket_integration saved the secret in the same home');
});

t.test('without a saved secret the token alone is enough; the shared refusals still apply', async (t) => {
  const org = await rulesOrg();
  t.equal((await org.linear(linearIssue('create'))).status, 200);
  const res = await fetch(`${vigil.url}/webhooks/issue-tracker/vigil_wh_nope`, { method: 'POST', headers: { 'user-agent': 'Linear-Webhook' }, body: '{}' });
  t.equal(res.status, 404, 'an unknown token is the usual 404');
  const bad = await org.linear('not json');
  t.equal(bad.status, 400, 'a body that is not JSON is a 400');
  t.same([bad.body.error, bad.body.field], ['bad_request', 'body']);
});

t.test('403 without ticket systems in the plan', async (t) => {
  const org = await rulesOrg(RULE.config, { plan: 'free' });
  const res = await org.linear(linearIssue('create'));
  t.equal(res.status, 403);
  t.equal(res.body.error, 'plan_required');
  t.equal(res.body.feature, 'ticket_systems');
  const addOn = await rulesOrg(RULE.config, { plan: 'free', features: { ticket_systems: true, ops_board: true } });
  t.equal((await addOn.linear(linearIssue('create'))).status, 200, 'the operator\'s add-on is enough');
});

t.test('a named issue gets a card in triage with the item linked; later deliveries keep that card in step', async (t) => {
  const org = await rulesOrg();
  const created = await org.linear(linearIssue('create'));
  t.equal(created.status, 200);
  t.match(created.body, { status: 'ok', action: 'created', card: { id: String, key: String, url: String, status: 'triage' } });
  const card = await org.card(created.body.card.key);
  t.match(card, {
    title: 'Checkout returns 502 for EU customers', description: fixture('issue-tracker/issue-create').data.description,
    priority: 'high', labels: ['incident'], status: 'triage', dedup_key: 'issue_tracker:2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9',
  });
  const linked = card.effects.find((e: any) => e.kind === 'tracker_linked');
  t.same(linked.detail, { provider: 'issue_tracker', identifier: 'ENG-1778', url: fixture('issue-tracker/issue-create').url, state: 'Todo' }, 'the tracker item is linked on the card');
  t.same(card.effects.map((e: any) => e.kind).sort(), ['chat_post', 'notification', 'tracker_linked'], 'one notification and chat post, as for any new card');

  // an edit: title, description, priority and labels follow
  const edited = await org.linear(linearIssue('update', {
    title: 'Checkout 502s (EU)', description: 'Rolled back.', priority: 1, updatedAt: '2026-03-01T12:05:00.000Z',
    labels: [{ id: 'a', name: 'incident' }, { id: 'b', name: 'payments' }],
  }, { updatedFrom: { title: 'Checkout returns 502 for EU customers' } }));
  t.match(edited.body, { status: 'ok', action: 'updated', card: { id: created.body.card.id } });
  t.same(edited.body.changed.sort(), ['description', 'labels', 'priority', 'title']);
  t.match(await org.card(created.body.card.key), { title: 'Checkout 502s (EU)', description: 'Rolled back.', priority: 'urgent', labels: ['incident', 'payments'], status: 'triage' });
  t.equal((await org.cards()).length, 1, 'still one card');
});

t.test('status mapping: state.type, refined by the state name within its category', async (t) => {
  const org = await rulesOrg();
  const first = await org.linear(linearIssue('create'));
  const key = first.body.card.key;
  const cases: [string, string, string][] = [
    ['started', 'In Progress', 'in_progress'],
    ['started', 'Blocked', 'blocked'],
    ['started', 'In Review', 'in_progress'],
    ['unstarted', 'Todo', 'todo'],
    ['backlog', 'Backlog', 'backlog'],
    ['triage', 'Triage', 'triage'],
    ['started', 'Done', 'in_progress'],
    ['completed', 'Done', 'done'],
    ['canceled', 'Duplicate', 'archived'],
    ['unstarted', 'Todo', 'todo'],
  ];
  let minute = 1;
  for (const [type, name, expected] of cases) {
    const res = await org.linear(linearIssue('update', { state: { id: 's', name, type }, updatedAt: `2026-03-01T12:${String(minute++).padStart(2, '0')}:00.000Z` }));
    t.equal(res.status, 200);
    t.equal((await org.card(key)).status, expected, `${type} "${name}" → ${expected}`);
  }
  const card = await org.card(key);
  t.equal(card.archived_at, null, 'a card back from won\'t do is no longer archived');
});

t.test('priority mapping: 1 urgent, 2 high, 3 normal, 4 low, 0 normal', async (t) => {
  const org = await rulesOrg();
  const cases: [number, string][] = [[1, 'urgent'], [2, 'high'], [3, 'normal'], [4, 'low'], [0, 'normal']];
  for (const [i, [priority, expected]] of cases.entries()) {
    const res = await org.linear(linearIssue('create', { id: `00000000-0000-4000-8000-00000000000${i}`, identifier: `ENG-${i}`, priority }));
    t.equal((await org.card(res.body.card.key)).priority, expected, `priority ${priority} → ${expected}`);
  }
});

t.test('the rule names the project (team key or id) and narrows by label; anything else is ignored and creates nothing', async (t) => {
  const byKey = await rulesOrg({ project: 'eng' });
  t.equal((await byKey.linear(linearIssue('create'))).body.status, 'ok', 'the team key, without regard to case');
  const byId = await rulesOrg({ project: '72b2a2dc-6f4f-4423-9d34-24b5bd10634a' });
  t.equal((await byId.linear(linearIssue('create'))).body.status, 'ok', 'the team id');

  const other = await rulesOrg({ project: 'OPS' });
  const ignored = await other.linear(linearIssue('create'));
  t.equal(ignored.status, 200, 'ignored is a 200, so Linear keeps the hook');
  t.equal(ignored.body.status, 'ignored');
  t.match(ignored.body.reason, /project OPS.*ENG-1778 is in ENG/);
  t.same(await other.cards(), [], 'nothing created');

  const labelled = await rulesOrg({ project: 'ENG', label: 'Incident' });
  t.equal((await labelled.linear(linearIssue('create'))).body.status, 'ok', 'a label the issue carries (any case)');
  const unlabelled = await rulesOrg({ project: 'ENG', label: 'security' });
  const res = await unlabelled.linear(linearIssue('create'));
  t.equal(res.body.status, 'ignored');
  t.match(res.body.reason, /labelled security/);
  t.same(await unlabelled.cards(), []);

  const noRule = await trackerOrg(vigil, { integrations: { issue_tracker: {} } });
  const none = await noRule.linear(linearIssue('create'));
  t.match(none.body, { status: 'ignored', reason: /no enabled issue_tracker ticket import rule/ });
  const disabled = await trackerOrg(vigil, { integrations: { issue_tracker: {} }, rules: [{ provider: 'issue_tracker', config: { project: 'ENG' }, enabled: false }] });
  t.equal((await disabled.linear(linearIssue('create'))).body.status, 'ignored', 'a disabled rule imports nothing');
  t.same(await disabled.cards(), []);

  const comment = await byKey.linear(fixture('issue-tracker/comment-create'));
  t.match(comment.body, { status: 'ignored', reason: /Comment events are not imported/ }, 'other Linear event types are ignored');
});

t.test('remove archives the card; redelivery and older states change nothing', async (t) => {
  const org = await rulesOrg();
  const body = linearIssue('create');
  const first = await org.linear(body);
  const again = await org.linear(body);
  t.match(again.body, { status: 'ok', action: 'unchanged', card: { id: first.body.card.id } }, 'the same delivery again: the same card, nothing changed');
  const card = await org.card(first.body.card.key);
  t.equal(card.effects.length, 3, 'no second notification, chat post or link');

  const moved = await org.linear(linearIssue('update', { state: { name: 'In Progress', type: 'started' }, updatedAt: '2026-03-01T12:10:00.000Z' }));
  t.equal(moved.body.card.status, 'in_progress');
  const older = await org.linear(linearIssue('update', { state: { name: 'Todo', type: 'unstarted' }, updatedAt: '2026-03-01T12:05:00.000Z' }));
  t.match(older.body, { status: 'ignored', reason: /older than the one already applied/ }, 'an out-of-order delivery is ignored');
  t.equal((await org.card(first.body.card.key)).status, 'in_progress');

  // a status moved by hand on the board is not undone by an unrelated edit in the tracker
  await org.agent.call('update_card', { card: first.body.card.key, status: 'blocked' });
  await org.linear(linearIssue('update', { state: { name: 'In Progress', type: 'started' }, title: 'Renamed', updatedAt: '2026-03-01T12:11:00.000Z' }));
  t.match(await org.card(first.body.card.key), { title: 'Renamed', status: 'blocked' });

  const removed = await org.linear(linearIssue('remove', { updatedAt: '2026-03-01T12:12:00.000Z' }));
  t.match(removed.body, { status: 'ok', action: 'archived', card: { status: 'archived' } });
  const archived = await org.card(first.body.card.key);
  t.equal(archived.status, 'archived');
  t.ok(archived.archived_at);
  t.match((await org.linear(linearIssue('remove', { updatedAt: '2026-03-01T12:12:00.000Z' }))).body, { status: 'ok', action: 'unchanged' }, 'a second remove changes nothing');

  const unknown = await org.linear(linearIssue('remove', { id: '99999999-0000-4000-8000-000000000000', identifier: 'ENG-9' }));
  t.match(unknown.body, { status: 'ignored', reason: /no card is linked/ }, 'removing an item never imported is ignored');
  t.equal((await org.cards()).length, 1);
});

t.test('an item that stops matching is left as it is; an item already finished is not imported', async (t) => {
  const org = await rulesOrg({ project: 'ENG', label: 'incident' });
  const first = await org.linear(linearIssue('create'));
  const unlabelled = await org.linear(linearIssue('update', { labels: [], title: 'Not an incident after all', updatedAt: '2026-03-01T12:01:00.000Z' }));
  t.match(unlabelled.body, { status: 'ignored', reason: /no longer matches the import rule/, card: { id: first.body.card.id } });
  t.equal((await org.card(first.body.card.key)).title, 'Checkout returns 502 for EU customers', 'its card is left as it was');
  const back = await org.linear(linearIssue('update', { title: 'An incident again', updatedAt: '2026-03-01T12:02:00.000Z' }));
  t.match(back.body, { status: 'ok', action: 'updated', card: { id: first.body.card.id } }, 'matching again, the same card picks up');
  t.equal((await org.card(first.body.card.key)).title, 'An incident again');

  const done = await org.linear(linearIssue('create', { id: '11111111-0000-4000-8000-000000000000', identifier: 'ENG-2', state: { name: 'Done', type: 'completed' } }));
  t.match(done.body, { status: 'ignored', reason: /already finished/ });
  t.equal((await org.cards()).length, 1);
});

t.test('the fix label: a fix request once per item, or a fix_skipped effect with the reason', async (t) => {
  const withFix = { labels: [{ id: 'a', name: 'incident' }, { id: 'f', name: 'svc-fix' }] };
  // business plan, app installed, one mapped repository: the fix is asked for
  const org = await rulesOrg(RULE.config, { codeHost: { installation_id: '4815162342', account: 'acme' } });
  const mapped = await org.api.post(`${CONFIG}/repo_settings`, { repo: 'acme/checkout', services: ['checkout'] });
  t.equal(mapped.status, 201, JSON.stringify(mapped.body));
  const created = await org.linear(linearIssue('create', withFix));
  t.match(created.body, { status: 'ok', action: 'created', fix: { outcome: 'requested', id: String } });
  const again = await org.linear(linearIssue('update', { ...withFix, title: 'edited', updatedAt: '2026-03-01T12:01:00.000Z' }));
  t.notOk(again.body.fix, 'an edit with the label still on asks nothing');
  t.notOk((await org.linear(linearIssue('create', withFix))).body.fix, 'nor does a redelivery');
  const card = await org.card(created.body.card.key);
  const asked = card.effects.filter((e: any) => e.kind === 'fix_requested');
  t.equal(asked.length, 1, 'one fix_requested effect');
  t.match(asked[0].detail, { ticket: 'ENG-1778', id: created.body.fix.id });
  const requests = await org.agent.call('list_fix_requests', {});
  if (!requests.isError) t.equal(requests.body.data.filter((r: any) => r.ticket === 'ENG-1778').length, 1, 'one fix request, ticket ENG-1778');

  // a plan without fix pull requests: the card is kept in step and the skip recorded
  const team = await rulesOrg(RULE.config, { features: { fix_pull_requests: false } });
  const skipped = await team.linear(linearIssue('create', withFix));
  t.match(skipped.body, { status: 'ok', action: 'created', fix: { outcome: 'skipped', reason: 'plan_required' } });
  const skippedCard = await team.card(skipped.body.card.key);
  const effect = skippedCard.effects.find((e: any) => e.kind === 'fix_skipped');
  t.match(effect.detail, { reason: 'plan_required', ticket: 'ENG-1778', message: /not included in the business plan/ });
  const moved = await team.linear(linearIssue('update', { ...withFix, state: { name: 'In Progress', type: 'started' }, updatedAt: '2026-03-01T12:01:00.000Z' }));
  t.equal(moved.body.card.status, 'in_progress', 'still kept in step');

  // business plan without the app installed
  const noApp = await rulesOrg();
  const res = await noApp.linear(linearIssue('create', withFix));
  t.match(res.body.fix, { outcome: 'skipped', reason: 'code_host_app_not_installed' });

  // the label added later asks then, once
  const later = await rulesOrg(RULE.config, { features: { fix_pull_requests: false } });
  const plain = await later.linear(linearIssue('create'));
  t.notOk(plain.body.fix);
  const labelled = await later.linear(linearIssue('update', { ...withFix, updatedAt: '2026-03-01T12:01:00.000Z' }));
  t.match(labelled.body.fix, { outcome: 'skipped' }, 'asked when the label appears');
  t.equal((await later.card(plain.body.card.key)).effects.filter((e: any) => e.kind === 'fix_skipped').length, 1);
});
