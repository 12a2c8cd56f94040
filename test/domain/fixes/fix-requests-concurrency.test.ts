/**
 * Fix requests under concurrent deliveries (meaningful on PostgreSQL: `DATABASE_URL=… npm test -- <file>`;
 * PGlite runs transactions one after another): racing repeats of one key make one request and one pull request,
 * also when repeats land while the analysis runs; racing requests for one repository never pass the five-open-PR
 * limit; two instances on one database analyse each request exactly once.
 */
import t from 'tap';
import { scratchStorage } from '../../helpers/harness.ts';
import { closeFixOrgs, fixOrg, fixWorld, patchingProvider } from '../../helpers/fixes.ts';
import { waitFor } from '../../helpers/jobs.ts';

const world = await fixWorld();
const { github, ai } = world;
t.teardown(async () => {
  await closeFixOrgs();
  await world.close();
});

let repoCount = 0;
function newRepo(): string {
  const name = `acme/race-${++repoCount}`;
  github.addRepo(name, { 'src/fee.ts': 'export const fee = 1;\n' });
  return name;
}

t.test('20 racing repeats of one dedup_key, then 10 more while the analysis runs: one request, one pull request, the last revision', async (t) => {
  const repo = newRepo();
  const org = await fixOrg(world, { repos: [{ repo, services: ['svc'] }] });
  // a slow provider, so the second wave lands during the analysis
  ai.respond = (request) => ({ ...patchingProvider(request), delayMs: 800 });
  t.teardown(() => void (ai.respond = patchingProvider));

  const wave = (from: number, n: number) =>
    Promise.all(Array.from({ length: n }, (_, i) => org.ask({ description: `fee.ts attempt ${from + i}`, repo, dedup_key: 'storm-1' })));
  const first = await wave(0, 20);
  t.ok(first.every((a) => a.status === 202), 'every delivery accepted');
  const id = first[0]!.body.id;
  t.ok(first.every((a) => a.body.id === id), 'one request id');
  await waitFor(async () => (await org.get(id)).timeline.some((e: any) => e.step === 'analysis_started'), 'the analysis to start');
  const second = await wave(20, 10);
  t.ok(second.every((a) => a.status === 202 && a.body.id === id), 'the repeats during the analysis replace the same request');

  const done = await org.settled(id, 60_000);
  t.equal(done.status, 'pr_opened');
  t.equal(done.revision, 30, 'every delivery replaced the request once');
  t.equal((await org.list()).length, 1, 'one request');
  t.equal(github.pulls(repo).length, 1, 'one pull request');
  t.equal(github.requests.filter((r) => r.method === 'POST' && r.path === `/repos/${repo}/pulls`).length, 1, 'opened once');
  const published = done.timeline.filter((e: any) => e.step === 'pull_request_opened' || e.step === 'pull_request_updated');
  t.equal(published.at(-1).revision, 30, 'the pull request holds the last revision');
  t.equal(done.timeline.at(-1).revision, 30);
});

t.test('12 racing requests for one repository: exactly five accepted, seven refused with the limit', async (t) => {
  const repo = newRepo();
  const org = await fixOrg(world, { repos: [{ repo, services: ['svc'] }] });
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => org.ask({ description: `fee.ts ${i}`, repo })));
  t.equal(answers.filter((a) => a.status === 202).length, 5, 'five accepted');
  const refused = answers.filter((a) => a.status === 422);
  t.equal(refused.length, 7, 'seven refused');
  t.ok(refused.every((a) => a.body.reason === 'open_pull_request_limit'));
  for (const a of answers.filter((x) => x.status === 202)) t.equal((await org.settled(a.body.id)).status, 'pr_opened');
  t.equal(github.pulls(repo).length, 5, 'five pull requests');
});

t.test('two instances on one database analyse each request exactly once', { skip: process.env.DATABASE_URL ? false : 'PostgreSQL only (set DATABASE_URL): the embedded database serves one instance' }, async (t) => {
  const storage = await scratchStorage();
  const a = await fixWorld({ storage, share: world });
  const b = await fixWorld({ storage, share: world });
  t.teardown(async () => {
    await a.close();
    await b.close();
    await storage.drop();
  });
  const repos = [newRepo(), newRepo()];
  const org = await fixOrg(a, { repos: repos.map((repo, i) => ({ repo, services: [`svc-${i}`] })) });
  const chatsBefore = ai.chats().length;
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) ids.push((await org.ask({ description: `fee.ts ${i}`, service: `svc-${i % 2}` })).body.id);
  for (const id of ids) t.equal((await org.settled(id)).status, 'pr_opened');
  t.equal(ai.chats().length - chatsBefore, 8, 'one provider call per request');
  for (const id of ids) t.equal((await org.get(id)).timeline.filter((e: any) => e.step === 'analysis_started').length, 1, 'analysed once');
  t.same(repos.map((r) => github.pulls(r).length), [4, 4], 'one pull request each');
});
