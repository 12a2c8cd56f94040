/**
 * The code-host webhook through HTTP with GitHub's own example payloads (test/fixtures/webhooks/code-host/): the
 * recorded events and their columns, the ignored ones, the always-200 rule, redelivery and later events about
 * the same thing, the repo_settings service mapping, form-encoded deliveries, and X-Hub-Signature-256.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { connectAgent, type Agent } from '../../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/webhooks/code-host/${name}.json`, import.meta.url), 'utf8'));
const PUSH = fixture('push-default-branch');
const SHA = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';

interface Org {
  id: string;
  token: string;
  agent: Agent;
  admin: Awaited<ReturnType<Awaited<ReturnType<typeof vigil.organization>>['key']>>;
}

async function organization(): Promise<Org> {
  const org = await vigil.organization();
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  return { id: org.id, token: org.webhookToken, agent, admin: await org.key(['api:admin']) };
}

/** A delivery as GitHub makes it: its headers, the JSON body (or exactly these bytes). */
async function deliver(org: Org, event: string | null, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${vigil.url}/webhooks/code-host/${org.token}`, {
    method: 'POST',
    headers: {
      'user-agent': 'GitHub-Hookshot/044aadd', 'content-type': 'application/json', 'x-github-delivery': randomUUID(), 'x-github-hook-id': '292430182',
      ...(event ? { 'x-github-event': event } : {}), ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function entry(org: Org, id: string) {
  const got = await org.agent.call('get_deployment', { id });
  if (got.isError) throw new Error(JSON.stringify(got.body));
  return got.body.data;
}
const list = async (org: Org, args: Record<string, unknown> = {}) => (await org.agent.call('list_deployments', args)).body.data;
const outcomes = async (org: Org) => (await org.agent.call('list_webhook_deliveries', { source: 'code-host', limit: 200 })).body.data.map((d: any) => d.outcome);
const clone = <T>(value: T): T => structuredClone(value);

t.test('a push to the default branch: one code_push entry with commit, repository, author, URLs and versions', async (t) => {
  const org = await organization();
  const delivery = randomUUID();
  const res = await deliver(org, 'push', PUSH, { 'x-github-delivery': delivery });
  t.equal(res.status, 200);
  t.match(res.body, { status: 'ok', event: 'push', entries: [{ id: String, service: 'Hello-World', action: 'created' }] });
  t.equal(res.body.entries.length, 1);
  const got = await entry(org, res.body.entries[0].id);
  t.same(got, {
    id: res.body.entries[0].id, source: 'code-host', dedup_key: `github:push:186853002:${SHA}:Hello-World`, event_type: 'code_push', status: 'succeeded',
    service: 'Hello-World', environment: null, version: SHA, previous_version: null, deployed_by: 'Codertocat', description: 'Initial commit',
    commit_sha: SHA, repo_full_name: 'Codertocat/Hello-World', pr_url: null, compare_url: PUSH.compare, run_url: null, branch: 'master',
    author: 'Codertocat', started_at: null, completed_at: '2019-05-15T15:20:57.000Z', occurred_at: '2019-05-15T15:20:57.000Z',
    details: {
      github_event: 'push', delivery_id: delivery, repository_id: '186853002', html_url: PUSH.head_commit.url, commits: 1, created: true,
    },
    created_at: got.created_at, updated_at: got.updated_at,
  });

  // GitHub's "Redeliver": the same X-GitHub-Delivery and payload
  const again = await deliver(org, 'push', PUSH, { 'x-github-delivery': delivery });
  t.same(again.body.entries, [{ id: res.body.entries[0].id, service: 'Hello-World', action: 'updated' }], 'a redelivery updates the same entry');
  t.equal((await list(org)).length, 1, 'no second entry');

  const next = clone(PUSH);
  Object.assign(next, { before: SHA, after: 'a10867b14bb761a232cd80139fbd4c0d33264240', created: false });
  next.head_commit.message = 'Update README\n\nMore words.';
  const second = await deliver(org, 'push', next);
  t.equal(second.body.entries[0].action, 'created', 'the next push is a new entry');
  t.match(await entry(org, second.body.entries[0].id), { previous_version: SHA, version: 'a10867b14bb761a232cd80139fbd4c0d33264240', description: 'Update README' });
  t.same(await outcomes(org), ['created', 'updated', 'created']);
});

t.test('pushes that change nothing deployed are ignored: other branches, tags, deletions', async (t) => {
  const org = await organization();
  const other = clone(PUSH);
  other.ref = 'refs/heads/feature-x';
  const deleted = clone(PUSH);
  Object.assign(deleted, { deleted: true, after: '0000000000000000000000000000000000000000', head_commit: null });
  for (const [name, body] of [['another branch', other], ['a tag deletion (GitHub\'s example)', fixture('push-tag-deleted')], ['a deleted default branch', deleted]] as const) {
    const res = await deliver(org, 'push', body);
    t.equal(res.status, 200, name);
    t.equal(res.body.status, 'ignored', name);
    t.type(res.body.reason, 'string');
  }
  t.same(await list(org), []);
  t.same(await outcomes(org), ['ignored', 'ignored', 'ignored']);
});

t.test('a merged pull request; a pull request closed unmerged, or merged elsewhere, is ignored', async (t) => {
  const org = await organization();
  const closed = await deliver(org, 'pull_request', fixture('pull_request-closed'));
  t.same([closed.status, closed.body.status], [200, 'ignored']);
  t.match(closed.body.reason, /without merging/);
  const merged = fixture('pull_request-merged');
  const res = await deliver(org, 'pull_request', merged);
  t.match(res.body, { status: 'ok', event: 'pull_request', entries: [{ service: 'Hello-World', action: 'created' }] });
  t.match(await entry(org, res.body.entries[0].id), {
    event_type: 'pull_request_merged', status: 'succeeded', commit_sha: 'c4295bd74fb0f4fda03689c3df3f2803b658fd85', branch: 'master',
    pr_url: 'https://github.com/Codertocat/Hello-World/pull/2', description: '#2 Update the README with new information.',
    author: 'Codertocat', deployed_by: 'Codertocat', repo_full_name: 'Codertocat/Hello-World', completed_at: '2019-05-15T15:21:18.000Z',
    dedup_key: 'github:pull_request:186853002:2:Hello-World', details: { number: 2, head_branch: 'changes', github_event: 'pull_request' },
  });
  const elsewhere = clone(merged);
  elsewhere.pull_request.base.ref = 'release-1';
  t.equal((await deliver(org, 'pull_request', elsewhere)).body.status, 'ignored');
  const opened = clone(merged);
  opened.action = 'opened';
  t.equal((await deliver(org, 'pull_request', opened)).body.status, 'ignored');
  t.equal((await list(org)).length, 1);
});

t.test('a completed workflow run; its conclusion is the status; a re-run updates it; runs off the default branch are ignored', async (t) => {
  const org = await organization();
  const run = fixture('workflow_run-completed');
  const res = await deliver(org, 'workflow_run', run);
  t.match(res.body, { status: 'ok', entries: [{ service: 'octo-repo', action: 'created' }] });
  const id = res.body.entries[0].id;
  t.match(await entry(org, id), {
    event_type: 'workflow_run', status: 'succeeded', commit_sha: '3484a3fb816e0859fd6e1cea078d76385ff50625', branch: 'master',
    run_url: 'https://github.com/octo-org/octo-repo/actions/runs/289782451', repo_full_name: 'octo-org/octo-repo',
    description: 'test #163: ci(action): update actions/setup-node digest to 8c91899', author: 'Matthias Fax', deployed_by: 'Codertocat',
    started_at: '2020-10-05T16:33:49.000Z', completed_at: '2020-10-05T16:33:49.000Z',
    details: { workflow: 'test', run_number: 163, run_attempt: 1, conclusion: 'success', trigger: 'repository_dispatch' },
  });
  const rerun = clone(run);
  Object.assign(rerun.workflow_run, { run_attempt: 2, conclusion: 'failure', updated_at: '2020-10-05T17:00:00Z' });
  const again = await deliver(org, 'workflow_run', rerun);
  t.same(again.body.entries.map((e: any) => [e.id, e.action]), [[id, 'updated']]);
  t.match(await entry(org, id), { status: 'failed', completed_at: '2020-10-05T17:00:00.000Z', details: { run_attempt: 2, conclusion: 'failure' } });

  for (const [conclusion, status] of [['cancelled', 'cancelled'], ['timed_out', 'failed'], ['neutral', 'succeeded'], ['skipped', 'cancelled']]) {
    const other = clone(run);
    Object.assign(other.workflow_run, { id: Math.floor(Math.random() * 1e9), conclusion });
    const made = await deliver(org, 'workflow_run', other);
    t.equal((await entry(org, made.body.entries[0].id)).status, status, conclusion);
  }
  const pr = clone(run);
  Object.assign(pr.workflow_run, { id: 1, head_branch: 'feature-x', event: 'pull_request' });
  t.equal((await deliver(org, 'workflow_run', pr)).body.status, 'ignored', 'a pull request\'s run');
  const fork = clone(run);
  Object.assign(fork.workflow_run, { id: 3, head_branch: 'master', event: 'pull_request' });
  t.equal((await deliver(org, 'workflow_run', fork)).body.status, 'ignored', 'a fork\'s pull request from its own master');
  const manual = clone(run);
  Object.assign(manual.workflow_run, { id: 2, head_branch: 'hotfix', event: 'workflow_dispatch' });
  t.equal((await deliver(org, 'workflow_run', manual)).body.status, 'ok', 'a manually started run on another branch (a deploy) is recorded');
  const requested = clone(run);
  requested.action = 'requested';
  t.equal((await deliver(org, 'workflow_run', requested)).body.status, 'ignored', 'only completed runs');
});

t.test('deployment statuses update one deploy entry: pending, then success; a late status does not reopen it; inactive is ignored', async (t) => {
  const org = await organization();
  const success = fixture('deployment_status-success');
  const pending = clone(success);
  Object.assign(pending.deployment_status, { state: 'pending', created_at: '2019-05-15T15:20:54Z' });
  const first = await deliver(org, 'deployment_status', pending);
  t.match(first.body, { status: 'ok', entries: [{ action: 'created' }] });
  const id = first.body.entries[0].id;
  t.match(await entry(org, id), { event_type: 'deploy', status: 'started', completed_at: null, started_at: '2019-05-15T15:20:53.000Z' });
  const done = await deliver(org, 'deployment_status', success);
  t.same(done.body.entries.map((e: any) => [e.id, e.action]), [[id, 'updated']]);
  t.match(await entry(org, id), {
    event_type: 'deploy', status: 'succeeded', environment: 'production', version: 'master', commit_sha: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e',
    author: 'Codertocat', deployed_by: 'Codertocat', description: 'deploy to production', started_at: '2019-05-15T15:20:53.000Z',
    completed_at: '2019-05-15T15:20:55.000Z', occurred_at: '2019-05-15T15:20:55.000Z', dedup_key: 'github:deployment:186853002:145988746:Hello-World',
    details: { deployment_id: 145988746, state: 'success', task: 'deploy' },
  });
  const late = clone(success);
  late.deployment_status.state = 'in_progress';
  await deliver(org, 'deployment_status', late);
  t.equal((await entry(org, id)).status, 'succeeded', 'a late in_progress does not reopen a finished deploy');
  const inactive = clone(success);
  inactive.deployment_status.state = 'inactive';
  t.equal((await deliver(org, 'deployment_status', inactive)).body.status, 'ignored');
  const failure = clone(success);
  Object.assign(failure.deployment, { id: 145988747 });
  Object.assign(failure.deployment_status, { state: 'error', log_url: 'https://github.com/Codertocat/Hello-World/actions/runs/1' });
  const failed = await deliver(org, 'deployment_status', failure);
  t.match(await entry(org, failed.body.entries[0].id), { status: 'failed', run_url: 'https://github.com/Codertocat/Hello-World/actions/runs/1' });
  t.same((await list(org, { event_type: 'deploy' })).map((e: any) => e.status), ['failed', 'succeeded'], 'GitHub deployments list as deploys');
});

t.test('a published release: version from the tag; other release actions are ignored', async (t) => {
  const org = await organization();
  const res = await deliver(org, 'release', fixture('release-published'));
  t.match(res.body, { status: 'ok', entries: [{ action: 'created' }] });
  t.match(await entry(org, res.body.entries[0].id), {
    event_type: 'release', status: 'succeeded', version: '0.0.1', branch: 'master', commit_sha: null, description: '0.0.1', author: 'Codertocat',
    completed_at: '2019-05-15T15:20:53.000Z', details: { html_url: 'https://github.com/Codertocat/Hello-World/releases/tag/0.0.1', tag_name: '0.0.1' },
  });
  const created = fixture('release-published');
  created.action = 'created';
  t.equal((await deliver(org, 'release', created)).body.status, 'ignored');
});

t.test('ping, issues and every other event answer 200 ignored with a reason', async (t) => {
  const org = await organization();
  const ping = await deliver(org, 'ping', fixture('ping'));
  t.same(ping, { status: 200, body: { status: 'ignored', reason: ping.body.reason } });
  t.match(ping.body.reason, /ping/);
  const issues = await deliver(org, 'issues', fixture('issues-opened'));
  t.same([issues.status, issues.body.status], [200, 'ignored']);
  t.match(issues.body.reason, /code_host ticket import rule/);
  for (const event of ['star', 'check_suite', 'deployment', 'member']) {
    const res = await deliver(org, event, { action: 'created', repository: PUSH.repository });
    t.same([res.status, res.body.status], [200, 'ignored'], event);
  }
  t.same(await list(org), []);
});

t.test('always 200: a body GitHub would not send answers status error, never 4xx or 5xx', async (t) => {
  const org = await organization();
  const cases: [string, string | null, unknown, Record<string, string>?][] = [
    ['not JSON', 'push', 'this is not json', { 'content-type': 'text/plain' }],
    ['an empty body', 'push', ''],
    ['a JSON array', 'push', []],
    ['JSON null', 'push', 'null'],
    ['no repository', 'push', { ref: 'refs/heads/main', after: SHA }],
    ['no X-GitHub-Event header', null, PUSH],
    ['a form body without payload', 'push', 'zen=hello', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['a form payload that is not JSON', 'push', 'payload=%7Bnope', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['a deployment_status without its deployment', 'deployment_status', { action: 'created', repository: PUSH.repository, deployment_status: { state: 'success' } }],
    ['a workflow_run without its run', 'workflow_run', { action: 'completed', repository: PUSH.repository }],
    ['members of the wrong types', 'push', { ...clone(PUSH), ref: 7, after: { sha: SHA }, head_commit: 'x', repository: { ...PUSH.repository, full_name: 'a/b', default_branch: ['main'] } }],
  ];
  for (const [name, event, body, headers] of cases) {
    const res = await deliver(org, event, body, headers);
    t.equal(res.status, 200, name);
    t.ok(['error', 'ignored'].includes(res.body.status), `${name}: ${res.body.status}`);
    t.type(res.body.message ?? res.body.reason, 'string', name);
  }
  const notJson = await deliver(org, 'push', 'this is not json', { 'content-type': 'text/plain' });
  t.equal(notJson.body.status, 'error');
  t.same(await list(org), [], 'nothing recorded');
  const logged = await outcomes(org);
  t.equal(logged.length, cases.length + 1, 'each delivery is logged');
  t.ok(logged.every((o: string) => o === 'error' || o === 'ignored'));
});

t.test('NUL characters and lone surrogates in a payload are dropped or replaced', async (t) => {
  const org = await organization();
  const raw = JSON.stringify(PUSH).replaceAll('"Initial commit"', '"Initial\\u0000 commit \\ud800"').replaceAll('"name":"Codertocat","email"', '"name":"Coder\\u0000tocat","email"');
  const res = await deliver(org, 'push', raw);
  t.equal(res.body.status, 'ok');
  t.match(await entry(org, res.body.entries[0].id), { description: 'Initial commit \ufffd', deployed_by: 'Codertocat' });
});

t.test('the form-encoded content type: the payload field', async (t) => {
  const org = await organization();
  const body = `payload=${encodeURIComponent(JSON.stringify(PUSH))}`;
  const res = await deliver(org, 'push', body, { 'content-type': 'application/x-www-form-urlencoded' });
  t.match(res.body, { status: 'ok', entries: [{ service: 'Hello-World', action: 'created' }] });
  t.match(await entry(org, res.body.entries[0].id), { commit_sha: SHA });
});

t.test('repo_settings maps the repository to its services: one entry per service, each filterable', async (t) => {
  const org = await organization();
  const mapped = await org.admin.post(`${CONFIG}/repo_settings`, { repo: 'codertocat/hello-world', services: ['web', 'api'] });
  t.equal(mapped.status, 201);
  const res = await deliver(org, 'push', PUSH);
  t.same(res.body.entries.map((e: any) => [e.service, e.action]), [['api', 'created'], ['web', 'created']], 'case does not matter; services in order');
  const again = await deliver(org, 'push', PUSH);
  t.same(again.body.entries.map((e: any) => [e.service, e.action]), [['api', 'updated'], ['web', 'updated']], 'a redelivery updates both');
  t.same((await list(org, { service: 'api' })).map((e: any) => e.dedup_key), [`github:push:186853002:${SHA}:api`]);
  t.equal((await list(org)).length, 2);
  t.same(await outcomes(org), ['updated ×2', 'created ×2']);
  const unmapped = await organization();
  t.equal((await deliver(unmapped, 'push', PUSH)).body.entries[0].service, 'Hello-World', 'without a row: the repository name');
  t.same(await list(unmapped, { service: 'api' }), [], 'another organization\'s mapping does not apply');
});

t.test('with a code-host secret saved, X-Hub-Signature-256 is required over the raw bytes', async (t) => {
  const org = await organization();
  t.equal((await org.admin.post(`${CONFIG}/request_signing`, { source: 'code-host', secret: 'github-hook-secret-0001' })).status, 201);
  const raw = JSON.stringify(PUSH);
  const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const valid = await deliver(org, 'push', raw, { 'x-hub-signature-256': sign('github-hook-secret-0001', raw) });
  t.same([valid.status, valid.body.status], [200, 'ok'], 'valid');
  const missing = await deliver(org, 'push', raw);
  t.same([missing.status, missing.body.error], [401, 'unauthorized'], 'missing');
  t.match(missing.body.message, /X-Hub-Signature-256/);
  t.equal((await deliver(org, 'push', raw, { 'x-hub-signature-256': sign('another-secret-00001', raw) })).status, 401, 'wrong secret');
  t.equal((await deliver(org, 'push', `${raw} `, { 'x-hub-signature-256': sign('github-hook-secret-0001', raw) })).status, 401, 'a changed byte');
  t.equal((await deliver(org, 'push', raw, { 'x-hub-signature-256': sign('github-hook-secret-0001', raw).slice('sha256='.length) })).status, 401, 'without sha256=');
  t.equal((await deliver(org, 'push', raw, { 'x-hub-signature': `sha1=${createHmac('sha1', 'github-hook-secret-0001').update(raw).digest('hex')}` })).status, 401, 'the legacy SHA-1 header alone');
  const form = `payload=${encodeURIComponent(raw)}`;
  const signedForm = await deliver(org, 'push', form, { 'content-type': 'application/x-www-form-urlencoded', 'x-hub-signature-256': sign('github-hook-secret-0001', form) });
  t.same([signedForm.status, signedForm.body.status], [200, 'ok'], 'a form-encoded delivery is signed over its raw bytes too');
  t.equal((await list(org)).length, 1, 'only signed deliveries were recorded, one entry');
  const log = await outcomes(org);
  t.same(log.filter((o: string) => o === 'refused: signature').length, 5);
  const unknown = await fetch(`${vigil.url}/webhooks/code-host/vigil_wh_no-such-token`, { method: 'POST', headers: { 'user-agent': 'GitHub-Hookshot/1', 'x-github-event': 'ping' }, body: '{}' });
  t.equal(unknown.status, 404, 'the shared rules still come first: an unknown token is 404');
});
