/**
 * The fix-requests webhook through HTTP and the agent tools, with no worker running (so every accepted request
 * stays `analyzing`): the 202 and the recorded request, the plan, every 422 reason and field refusal, targets,
 * repeats replacing the request, and the five-open-PR limit at five and six.
 * Analysis: fix-requests-analysis.test.ts; races and instances: fix-requests-concurrency.test.ts; restart:
 * fix-requests-restart.test.ts.
 */
import t from 'tap';
import { CONFIG } from '../../helpers/harness.ts';
import { closeFixOrgs, fixOrg, fixWorld } from '../../helpers/fixes.ts';
import { storedJob } from '../../helpers/jobs.ts';

const world = await fixWorld({ runWorkers: false });
t.teardown(async () => {
  await closeFixOrgs();
  await world.close();
});

t.test('a request: 202 { status: analyzing, id }, recorded with its target, timeline and one queued job', async (t) => {
  const org = await fixOrg(world);
  const asked = await org.ask({ description: '  Checkout charges the fee twice  ', service: 'checkout-api', ticket: 'ENG-42', unknown: 'ignored' });
  t.equal(asked.status, 202);
  t.same(Object.keys(asked.body).sort(), ['id', 'status']);
  t.match(asked.body, { status: 'analyzing', id: /^[0-9a-f-]{36}$/ });
  const request = await org.get(asked.body.id);
  t.match(request, {
    id: asked.body.id, status: 'analyzing', description: 'Checkout charges the fee twice', service: 'checkout-api', repo: 'acme/checkout',
    target_via: 'service', ticket: 'ENG-42', dedup_key: null, revision: 1, reason: null, pr_url: null, completed_at: null,
  });
  t.same(request.timeline.map((e: any) => e.step), ['received', 'queued']);
  const [job] = await world.vigil.running.services.db.em.getConnection().execute(
    `select id, state, data from pgboss.job where name = 'fix-requests' and data->>'request_id' = ?`, [asked.body.id],
  );
  t.equal(job?.state, 'created', 'one job waits for a worker');
  t.same(job?.data, { request_id: asked.body.id, organization_id: org.id }, 'the job holds ids only');
  t.equal((await storedJob(world.vigil.running.services, String(job.id)))?.state, 'created');

  const rest = await org.api.get(`${CONFIG}/fix_requests/${asked.body.id}`);
  t.equal(rest.status, 200, 'REST serves the same view');
  t.equal(rest.body.data.id, asked.body.id);
  t.same((await org.deliveries()).map((d: any) => d.outcome), ['accepted']);
});

t.test('the plan: 403 plan_required on team, and on business with the feature switched off', async (t) => {
  for (const [plan, features] of [['team', undefined], ['free', undefined], ['business', { fix_pull_requests: false }]] as const) {
    const org = await world.vigil.organization(plan, features);
    const res = await fetch(`${world.vigil.url}/webhooks/fix-requests/${org.webhookToken}`, {
      method: 'POST', headers: { 'user-agent': 't', 'content-type': 'application/json' }, body: JSON.stringify({ description: 'x' }),
    });
    const body = await res.json();
    t.equal(res.status, 403, `${plan}${features ? ' without the feature' : ''}`);
    t.match(body, { error: 'plan_required', feature: 'fix_pull_requests', message: /not included in the \w+ plan/ });
  }
  const bodyless = await world.vigil.organization('team');
  const res = await fetch(`${world.vigil.url}/webhooks/fix-requests/${bodyless.webhookToken}`, { method: 'POST', headers: { 'user-agent': 't' }, body: 'not json' });
  t.equal(res.status, 403, 'the plan is refused before the body is read');
  const enterprise = await fixOrg(world, { plan: 'enterprise' });
  t.equal((await enterprise.ask({ description: 'x', service: 'checkout-api' })).status, 202, 'enterprise includes fix pull requests');
});

t.test('422 reasons: no app installed, unmapped, ambiguous, no target, switched off', async (t) => {
  const none = await fixOrg(world, { installation: null });
  t.match((await none.ask({ description: 'x', repo: 'acme/checkout' })), { status: 422, body: { error: 'validation_failed', reason: 'code_host_app_not_installed', message: /not installed/ } });

  const org = await fixOrg(world, {
    account: 'acme',
    repos: [
      { repo: 'acme/checkout', services: ['checkout-api', 'shared'] },
      { repo: 'acme/billing', services: ['billing', 'shared'] },
      { repo: 'other/legacy', services: ['legacy'], fix_pull_requests_enabled: false },
    ],
  });
  const cases: [string, Record<string, unknown>, string][] = [
    ['an unmapped service', { service: 'nobody-has-it' }, 'target_not_mapped'],
    ['a repo neither mapped nor under the installation account', { repo: 'stranger/app' }, 'target_not_mapped'],
    ['a service of two repositories', { service: 'shared' }, 'target_ambiguous'],
    ['neither service nor repo with several repositories', {}, 'target_required'],
    ['a repository with fix pull requests off', { repo: 'Other/Legacy' }, 'fix_pull_requests_disabled'],
    ['a service only in a switched-off repository', { service: 'legacy' }, 'fix_pull_requests_disabled'],
  ];
  for (const [name, fields, reason] of cases) {
    const res = await org.ask({ description: 'please fix', ...fields });
    t.equal(res.status, 422, name);
    t.equal(res.body.reason, reason, name);
    t.equal(res.body.error, 'validation_failed');
    t.type(res.body.message, 'string');
  }
  t.same((await org.ask({ description: 'x', service: 'shared' })).body.candidates, ['acme/billing', 'acme/checkout'], 'the candidates are named');
  t.same(await org.list(), [], 'no refusal recorded a request');
  const refusals = await org.deliveries();
  t.equal(refusals.length, cases.length + 1, 'each refusal is in the delivery log');
  t.ok(refusals.every((d: any) => d.outcome.startsWith('refused: ')), 'the delivery log names the reasons');

  // targets that are accepted
  const byRepo = await org.ask({ description: 'x', repo: 'ACME/Billing', service: 'whatever' });
  t.equal(byRepo.status, 202, 'repo pins the target (any case); service is context');
  t.match(await org.get(byRepo.body.id), { repo: 'acme/billing', target_via: 'repo', service: 'whatever' });
  const underAccount = await org.ask({ description: 'x', repo: 'acme/unmapped-but-installed' });
  t.equal(underAccount.status, 202, 'a repository under the installation account needs no row');
  t.equal((await org.get(underAccount.body.id)).repo, 'acme/unmapped-but-installed');

  const single = await fixOrg(world, { repos: [{ repo: 'acme/only', services: [] }, { repo: 'acme/off', fix_pull_requests_enabled: false }] });
  const only = await single.ask({ description: 'x' });
  t.equal(only.status, 202, 'neither service nor repo: the only repository with fix pull requests on');
  t.match(await single.get(only.body.id), { repo: 'acme/only', target_via: 'only_mapped_repo' });
  const empty = await fixOrg(world, { repos: [] });
  t.match(await empty.ask({ description: 'x' }), { status: 422, body: { reason: 'target_required' } });
});

t.test('a deployment without a code-host app refuses with the app reason', async (t) => {
  const bare = await fixWorld({ runWorkers: false, codeHost: false });
  t.teardown(() => bare.close());
  const org = await fixOrg(bare);
  t.match(await org.ask({ description: 'x', service: 'checkout-api' }), { status: 422, body: { reason: 'code_host_app_not_installed', message: /VIGIL_CODE_HOST_APP_ID/ } });
  await org.close();
});

t.test('field refusals: 422 validation_failed naming the field; nothing recorded', async (t) => {
  const org = await fixOrg(world);
  const cases: [string, unknown, string, Record<string, string>?][] = [
    ['no description', { service: 'checkout-api' }, 'description'],
    ['blank description', { description: '   ' }, 'description'],
    ['description not a string', { description: 42 }, 'description'],
    ['description too long', { description: 'd'.repeat(20_001) }, 'description'],
    ['service not a string', { description: 'x', service: ['a'] }, 'service'],
    ['service too long', { description: 'x', service: 's'.repeat(201) }, 'service'],
    ['repo not owner/name', { description: 'x', repo: 'checkout' }, 'repo'],
    ['repo with three parts', { description: 'x', repo: 'a/b/c' }, 'repo'],
    ['dedup_key with a space', { description: 'x', dedup_key: 'a b' }, 'dedup_key'],
    ['dedup_key blank', { description: 'x', dedup_key: ' ' }, 'dedup_key'],
    ['dedup_key too long', { description: 'x', dedup_key: 'k'.repeat(201) }, 'dedup_key'],
    ['dedup_key a number', { description: 'x', dedup_key: 7 }, 'dedup_key'],
    ['ticket with a control character', { description: 'x', ticket: 'ENG\u0007-1' }, 'ticket'],
    ['ticket too long', { description: 'x', ticket: 't'.repeat(501) }, 'ticket'],
    ['a body that is an array', [{ description: 'x' }], 'body'],
    ['a body that is not JSON', 'description=x', 'body'],
    ['an empty body', '', 'body'],
    ['a bad Idempotency-Key', { description: 'x' }, 'Idempotency-Key', { 'Idempotency-Key': 'has space' }],
  ];
  for (const [name, body, field, headers] of cases) {
    const res = await org.ask(body, headers);
    t.equal(res.status, 422, name);
    t.equal(res.body?.field, field, name);
    t.match(res.body, { error: 'validation_failed', errors: [{ field }] }, name);
  }
  t.same(await org.list(), [], 'nothing recorded');
  const longest = await org.ask({ description: 'd'.repeat(20_000), service: 's'.repeat(200), dedup_key: 'k'.repeat(200), ticket: 't'.repeat(500), repo: 'acme/checkout' });
  t.equal(longest.status, 202, 'every limit itself is accepted');
  const nulls = await org.ask({ description: 'x', service: null, repo: '', dedup_key: null, ticket: '' });
  t.equal(nulls.status, 202, 'null and empty mean not sent');
  t.match(await org.get(nulls.body.id), { service: null, dedup_key: null, ticket: null, target_via: 'only_mapped_repo' });
});

t.test('a repeat with the same dedup_key or ticket replaces the request: same id, new revision, queued once', async (t) => {
  const org = await fixOrg(world);
  const first = await org.ask({ description: 'first words', service: 'checkout-api', dedup_key: 'incident-7' });
  const second = await org.ask({ description: 'better words', service: 'checkout-api', dedup_key: 'incident-7' });
  t.equal(second.status, 202);
  t.same(second.body, { status: 'analyzing', id: first.body.id }, 'the same request');
  const request = await org.get(first.body.id);
  t.match(request, { description: 'better words', revision: 2, dedup_key: 'incident-7' });
  t.same(request.timeline.map((e: any) => e.step), ['received', 'queued', 'replaced', 'queued']);
  t.same(request.timeline[2].detail.changed, ['description']);
  t.match(request.timeline[3].detail, { note: /already queued/ }, 'one queued job takes the new revision');
  const [{ n }] = await world.vigil.running.services.db.em.getConnection().execute(
    `select count(*)::int as n from pgboss.job where name = 'fix-requests' and data->>'request_id' = ?`, [first.body.id],
  );
  t.equal(n, 1, 'one job for the request');

  const byTicket = await org.ask({ description: 'from the tracker', repo: 'acme/checkout', ticket: 'ENG-9' });
  const again = await org.ask({ description: 'the tracker item was edited', repo: 'acme/checkout', ticket: 'ENG-9' });
  t.equal(again.body.id, byTicket.body.id, 'the same ticket replaces too');
  t.equal((await org.get(byTicket.body.id)).description, 'the tracker item was edited');

  const identical = await org.ask({ description: 'the tracker item was edited', repo: 'acme/checkout', ticket: 'ENG-9' });
  t.equal(identical.status, 200, 'an identical repeat changes nothing');
  t.same(identical.body, { status: 'analyzing', id: byTicket.body.id, duplicate: true });
  t.equal((await org.get(byTicket.body.id)).revision, 2);

  const header = await org.ask({ description: 'retry-safe', service: 'checkout-api' }, { 'Idempotency-Key': 'client-retry-1' });
  const retried = await org.ask({ description: 'retry-safe', service: 'checkout-api' }, { 'Idempotency-Key': 'client-retry-1' });
  t.same(retried.body, { status: 'analyzing', id: header.body.id, duplicate: true }, 'the Idempotency-Key header acts as dedup_key');
  t.equal((await org.get(header.body.id)).dedup_key, 'client-retry-1');
  const wins = await org.ask({ description: 'header wins', service: 'checkout-api', dedup_key: 'body-key' }, { 'Idempotency-Key': 'client-retry-1' });
  t.equal(wins.body.id, header.body.id, 'the header wins over the body field');

  t.equal((await org.list()).length, 3, 'three requests in all');
  t.same((await org.deliveries()).map((d: any) => d.outcome).reverse(), ['accepted', 'replaced', 'accepted', 'replaced', 'duplicate', 'accepted', 'duplicate', 'replaced']);
});

t.test('a repeat naming two keys of two requests merges them: the other is replaced, its keys move', async (t) => {
  const org = await fixOrg(world);
  const a = await org.ask({ description: 'a', service: 'checkout-api', dedup_key: 'alert-1' });
  const b = await org.ask({ description: 'b', service: 'checkout-api', ticket: 'OPS-3' });
  const both = await org.ask({ description: 'both', service: 'checkout-api', dedup_key: 'alert-1', ticket: 'OPS-3' });
  t.equal(both.body.id, a.body.id, 'the older request is kept');
  t.match(await org.get(a.body.id), { description: 'both', dedup_key: 'alert-1', ticket: 'OPS-3', revision: 2, status: 'analyzing' });
  const merged = await org.get(b.body.id);
  t.match(merged, { status: 'replaced', dedup_key: null, ticket: null });
  t.match(merged.timeline.at(-1), { step: 'replaced', detail: { by: a.body.id } });
  t.same((await org.list({ status: 'replaced' })).map((r: any) => r.id), [b.body.id]);
  t.equal((await org.ask({ description: 'c', service: 'checkout-api', ticket: 'OPS-3' })).body.id, a.body.id, 'the ticket now names the kept request');
});

t.test('five open fix pull requests per repository: requests analysing count; the fifth is accepted, the sixth refused', async (t) => {
  const org = await fixOrg(world, { repos: [{ repo: 'acme/checkout', services: ['checkout-api'] }, { repo: 'acme/billing', services: ['billing'] }] });
  const ids: string[] = [];
  for (let i = 1; i <= 5; i++) {
    const res = await org.ask({ description: `fix ${i}`, service: 'checkout-api' });
    t.equal(res.status, 202, `request ${i} accepted`);
    ids.push(res.body.id);
  }
  const sixth = await org.ask({ description: 'fix 6', service: 'checkout-api' });
  t.equal(sixth.status, 422, 'the sixth is refused');
  t.match(sixth.body, { error: 'validation_failed', reason: 'open_pull_request_limit', repo: 'acme/checkout', limit: 5, message: /five|5/ });
  t.equal((await org.ask({ description: 'other repo', service: 'billing' })).status, 202, 'another repository has its own five');
  const repeat = await org.ask({ description: 'fix 1, better', service: 'checkout-api', dedup_key: 'x' });
  t.equal(repeat.status, 422, 'a new key is a new request');

  // a repeat of one of the five does not count itself
  const keyed = await fixOrg(world);
  for (let i = 1; i <= 5; i++) await keyed.ask({ description: `fix ${i}`, service: 'checkout-api', dedup_key: `k${i}` });
  const replaced = await keyed.ask({ description: 'fix 5, better', service: 'checkout-api', dedup_key: 'k5' });
  t.equal(replaced.status, 202, 'a repeat of one of the five is accepted');

  // requests that finished without an open pull request leave room
  await world.vigil.running.services.db.em.getConnection().execute(`update fix_requests set status = 'declined' where id = ?`, [ids[0]]);
  t.equal((await org.ask({ description: 'fix 6 again', service: 'checkout-api' })).status, 202, 'a declined request frees its place');
  await world.vigil.running.services.db.em.getConnection().execute(`update fix_requests set status = 'pr_opened', pr_state = 'open' where id = ?`, [ids[1]]);
  t.equal((await org.ask({ description: 'fix 7', service: 'checkout-api' })).status, 422, 'an open pull request keeps its place');
});

t.test('list_fix_requests filters by status and repo; get_fix_request is 404 for unknown and foreign ids', async (t) => {
  const org = await fixOrg(world, { repos: [{ repo: 'acme/checkout', services: ['checkout-api'] }, { repo: 'acme/billing', services: ['billing'] }] });
  const a = await org.ask({ description: 'a', service: 'checkout-api' });
  const b = await org.ask({ description: 'b', service: 'billing' });
  t.same((await org.list()).map((r: any) => r.id), [b.body.id, a.body.id], 'newest first');
  t.same((await org.list({ repo: 'ACME/checkout' })).map((r: any) => r.id), [a.body.id]);
  t.same((await org.list({ status: 'analyzing', limit: 1 })).map((r: any) => r.id), [b.body.id]);
  t.same(await org.list({ status: 'pr_opened' }), []);
  const bad = await org.agent.call('list_fix_requests', { status: 'opened' });
  t.equal(bad.isError, true, 'an unknown status is refused');
  const rest = await org.api.get(`${CONFIG}/fix_requests?repo=acme/billing`);
  t.equal(rest.status, 200);
  t.same(rest.body.data.map((r: any) => r.id), [b.body.id]);
  t.equal(rest.body.truncated, false);

  const other = await fixOrg(world);
  for (const id of [a.body.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
    const got = await other.agent.call('get_fix_request', { id });
    t.equal(got.isError, true);
    t.equal(got.body.error, 'not_found');
  }
  t.equal((await other.api.get(`${CONFIG}/fix_requests/${a.body.id}`)).status, 404, 'another organization\'s request is not found');
  t.same(await other.list(), []);
});
