/**
 * run_ticket_import through the agent-tool endpoint against a fake tracker server on 127.0.0.1 that speaks
 * Linear's GraphQL, Jira's REST search and GitHub's app token and issue search: what is fetched with which
 * credentials, cards made through the same sync as the webhooks, last_run_at and last_run_counts recorded
 * without changing the rule's ETag, saving a rule importing nothing, and the refusals.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { connectAgent } from '../../helpers/mcp.ts';
import { closeAgents, codeHostApp, fixture, trackerOrg } from '../../helpers/trackers.ts';

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}
const seen: Seen[] = [];
let refuse = false;

const linearNode = (n: number, extra: Record<string, unknown> = {}) => ({
  id: `0000000${n}-0000-4000-8000-000000000000`, identifier: `ENG-${n}`, title: `Linear issue ${n}`, description: `body ${n}`, priority: n % 5,
  url: `https://linear.app/acme/issue/ENG-${n}`, updatedAt: '2026-03-01T10:00:00.000Z', state: { name: 'In Progress', type: 'started' },
  team: { id: '72b2a2dc-6f4f-4423-9d34-24b5bd10634a', key: 'ENG' }, labels: { nodes: [{ name: 'incident' }] }, ...extra,
});
const jiraNode = (n: number) => {
  const issue = structuredClone(fixture('sprint-tracker/issue-created').issue);
  Object.assign(issue, { id: `3000${n}`, key: `OPS-${n}` });
  issue.fields.summary = `Jira issue ${n}`;
  return issue;
};

const fake = createServer(async (req, res) => {
  let text = '';
  for await (const chunk of req) text += chunk;
  const url = new URL(req.url!, 'http://127.0.0.1');
  seen.push({ method: req.method!, path: url.pathname + url.search, headers: req.headers, body: text ? JSON.parse(text) : undefined });
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (refuse) return json(401, { message: 'Bad credentials' });
  if (url.pathname === '/linear/graphql') {
    const after = JSON.parse(text).variables.after;
    // the second page holds an issue of another team (the local rule check ignores it)
    return after === null
      ? json(200, { data: { issues: { nodes: [linearNode(1), linearNode(2)], pageInfo: { hasNextPage: true, endCursor: 'c2' } } } })
      : json(200, { data: { issues: { nodes: [linearNode(3, { team: { id: 'x', key: 'WEB' } })], pageInfo: { hasNextPage: false, endCursor: 'c3' } } } });
  }
  if (url.pathname === '/jira/rest/api/3/search/jql') {
    const token = JSON.parse(text).nextPageToken;
    return token === undefined ? json(200, { issues: [jiraNode(1)], nextPageToken: 'p2', isLast: false }) : json(200, { issues: [jiraNode(2)], isLast: true });
  }
  if (url.pathname === '/github/app/installations/4815162342/access_tokens') return json(201, { token: 'ghs_installation_token', expires_at: '2026-03-01T13:00:00Z' });
  if (url.pathname === '/github/search/issues') return json(200, { total_count: 1, incomplete_results: false, items: [{ ...fixture('code-host/issues-opened').issue }] });
  return json(404, { message: 'Not Found' });
});
await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;

const vigil = await startVigil({ codeHost: codeHostApp(`${base}/github`), runWorkers: false });
t.teardown(async () => {
  await closeAgents();
  await vigil.close();
  fake.close();
});

const LINEAR_TOKEN = 'lin_api_secret_token_0001';
const JIRA_TOKEN = 'ATATT3x-jira-api-token-0001';

async function importOrg(extra: Parameters<typeof trackerOrg>[1] = {}) {
  return trackerOrg(vigil, {
    integrations: {
      issue_tracker: { base_url: `${base}/linear`, api_token: LINEAR_TOKEN },
      sprint_tracker: { base_url: `${base}/jira/`, account: 'ops@acme.example', api_token: JIRA_TOKEN },
    },
    codeHost: { installation_id: '4815162342', account: 'Codertocat' },
    ...extra,
  });
}

t.test('saving a rule imports nothing; run_ticket_import fetches what is open and records the run without changing the ETag', async (t) => {
  const org = await importOrg();
  seen.length = 0;
  const made = await org.api.post(`${CONFIG}/ticket_import_rules`, { provider: 'issue_tracker', config: { project: 'ENG', label: 'incident' } });
  t.equal(made.status, 201);
  t.same(seen, [], 'saving the rule called no tracker');
  t.same(await org.cards(), [], 'and made no card');
  const before = await org.api.get(`${CONFIG}/ticket_import_rules/issue_tracker`);
  t.same([before.body.data.last_run_at, before.body.data.last_run_counts], [null, null]);
  const etag = before.headers.get('etag');

  vigil.clock.advance(60_000);
  const run = await org.agent.call('run_ticket_import', { provider: 'issue_tracker' });
  t.equal(run.isError, false, JSON.stringify(run.body));
  t.same(run.body.data, [{ provider: 'issue_tracker', last_run_at: '2026-03-01T12:01:00.000Z', counts: { fetched: 3, created: 2, updated: 0, unchanged: 0, ignored: 1, errors: 0 } }]);

  const calls = seen.filter((s) => s.path === '/linear/graphql');
  t.equal(calls.length, 2, 'two pages');
  t.equal(calls[0]!.headers.authorization, LINEAR_TOKEN, 'a personal API key is sent as is');
  t.same(calls[0]!.body.variables, {
    after: null,
    filter: { state: { type: { nin: ['completed', 'canceled'] } }, team: { key: { eqIgnoreCase: 'ENG' } }, labels: { some: { name: { eqIgnoreCase: 'incident' } } } },
  }, 'open issues of the team with the label');
  t.equal(calls[1]!.body.variables.after, 'c2', 'the next page from endCursor');

  const cards = await org.cards();
  t.same(cards.map((c) => c.title).sort(), ['Linear issue 1', 'Linear issue 2']);
  t.ok(cards.every((c) => c.status === 'triage'), 'in triage');

  const after = await org.api.get(`${CONFIG}/ticket_import_rules/issue_tracker`);
  t.match(after.body.data, { last_run_at: '2026-03-01T12:01:00.000Z', last_run_counts: { fetched: 3, created: 2, ignored: 1, errors: 0 } });
  t.equal(after.headers.get('etag'), etag, 'the ETag follows the configuration, not the run');
  t.equal(after.body.data.updated_at, before.body.data.updated_at, 'updated_at says when the configuration changed');
  const guarded = await org.api.put(`${CONFIG}/ticket_import_rules/issue_tracker`, { enabled: true }, { 'if-match': etag! });
  t.equal(guarded.status, 200, 'an If-Match read before the run still holds');

  const again = await org.agent.call('run_ticket_import', { provider: 'issue_tracker' });
  t.same(again.body.data[0].counts, { fetched: 3, created: 0, updated: 0, unchanged: 2, ignored: 1, errors: 0 }, 'a second run duplicates nothing');
  t.equal((await org.cards()).length, 2);

  const audit = await vigil.operator.get(`/api/admin/v1/organizations/${org.id}/audit_log`);
  const runs = audit.body.data.filter((e: any) => e.action === 'action:run_ticket_import');
  t.equal(runs.length, 2, 'each run is audited');
  t.match(runs[1], { family: 'ticket_import_rules', row_id: 'issue_tracker', changes: { last_run_at: { after: '2026-03-01T12:01:00.000Z' } } });
  t.notOk(JSON.stringify(audit.body).includes(LINEAR_TOKEN), 'the token is in no audit entry');
  t.notOk(JSON.stringify(run.body).includes(LINEAR_TOKEN), 'nor in the answer');
});

t.test('Jira: JQL search with basic auth, pages by nextPageToken', async (t) => {
  const org = await importOrg({ rules: [{ provider: 'sprint_tracker', config: { project: 'OPS', item_type: 'Bug' } }] });
  seen.length = 0;
  const run = await org.agent.call('run_ticket_import', { provider: 'sprint_tracker' });
  t.same(run.body.data[0].counts, { fetched: 2, created: 2, updated: 0, unchanged: 0, ignored: 0, errors: 0 });
  const calls = seen.filter((s) => s.path === '/jira/rest/api/3/search/jql');
  t.equal(calls.length, 2);
  t.equal(calls[0]!.method, 'POST');
  t.equal(calls[0]!.headers.authorization, `Basic ${Buffer.from(`ops@acme.example:${JIRA_TOKEN}`).toString('base64')}`);
  t.match(calls[0]!.body, { jql: 'project = "OPS" AND statusCategory != Done AND issuetype = "Bug" ORDER BY created ASC', maxResults: 100 });
  t.equal(calls[1]!.body.nextPageToken, 'p2');
  t.same((await org.cards()).map((c) => c.title).sort(), ['Jira issue 1', 'Jira issue 2']);
});

t.test('GitHub: issue search through the app installation; every enabled rule when no provider is named', async (t) => {
  const org = await importOrg({
    rules: [
      { provider: 'code_host', config: { repo: 'Codertocat/Hello-World', label: 'bug' } },
      { provider: 'sprint_tracker', config: { project: 'OPS' } },
      { provider: 'issue_tracker', config: { project: 'ENG' }, enabled: false },
    ],
  });
  seen.length = 0;
  const run = await org.agent.call('run_ticket_import', {});
  t.equal(run.isError, false, JSON.stringify(run.body));
  t.same(run.body.data.map((r: any) => r.provider).sort(), ['code_host', 'sprint_tracker'], 'the enabled rules, not the disabled one');
  const github = run.body.data.find((r: any) => r.provider === 'code_host');
  t.same(github.counts, { fetched: 1, created: 1, updated: 0, unchanged: 0, ignored: 0, errors: 0 });
  const search = seen.find((s) => s.path.startsWith('/github/search/issues'))!;
  t.equal(new URL(search.path, base).searchParams.get('q'), 'repo:Codertocat/Hello-World is:issue is:open label:"bug"');
  t.equal(search.headers.authorization, 'Bearer ghs_installation_token', 'as the installation');
  t.ok(seen.some((s) => s.path === '/github/app/installations/4815162342/access_tokens'), 'after exchanging the app\'s JWT for an installation token');
  t.ok((await org.cards()).some((c) => c.title === 'Spelling error in the README file'));
  t.equal((await org.api.get(`${CONFIG}/ticket_import_rules/issue_tracker`)).body.data.last_run_at, null, 'the disabled rule did not run');
});

t.test('a tracker refusing the credentials: the run records the error; refusals of the tool', async (t) => {
  const org = await importOrg({ rules: [{ provider: 'issue_tracker', config: { project: 'ENG' } }, { provider: 'sprint_tracker', config: { project: 'OPS' }, enabled: false }] });
  refuse = true;
  try {
    const run = await org.agent.call('run_ticket_import', { provider: 'issue_tracker' });
    t.equal(run.isError, false, 'the run itself answers');
    t.match(run.body.data[0], { counts: { fetched: 0, errors: 1 }, error: /refused the saved credentials \(HTTP 401\)/ });
    t.notOk(JSON.stringify(run.body).includes(LINEAR_TOKEN));
    t.match((await org.api.get(`${CONFIG}/ticket_import_rules/issue_tracker`)).body.data.last_run_counts, { errors: 1 });
  } finally {
    refuse = false;
  }
  const disabled = await org.agent.call('run_ticket_import', { provider: 'sprint_tracker' });
  t.match(disabled, { isError: true, body: { error: 'validation_failed', field: 'provider' } }, 'a disabled rule is refused');
  const missing = await org.agent.call('run_ticket_import', { provider: 'code_host' });
  t.match(missing, { isError: true, body: { error: 'not_found' } }, 'a tracker without a rule is 404');
  const bad = await org.agent.call('run_ticket_import', { provider: 'pager' });
  t.match(bad, { isError: true, body: { error: 'validation_failed' } });

  const viewer = await connectAgent(vigil.url, (await (await vigil.organization()).key(['mcp:read'])).token);
  t.match(await viewer.call('run_ticket_import', {}), { isError: true, body: { error: 'read_only_key' } }, 'a read-only (viewer) key cannot run it');
  await viewer.close();
  const noFeature = await importOrg({ features: { ticket_systems: false } });
  t.match(await noFeature.agent.call('run_ticket_import', {}), { isError: true, body: { error: 'plan_required' } }, 'needs ticket systems');
});
