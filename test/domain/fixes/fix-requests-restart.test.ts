/**
 * No fix request is lost or analysed twice across a restart: requests accepted by an instance that works no jobs
 * (or that stopped) are analysed exactly once by the next instance on the same database (a PGlite data directory,
 * or PostgreSQL). And the claim a job holds on a request: a live one makes another job stand back, an expired
 * one (its instance died) is taken over.
 */
import t from 'tap';
import { scratchStorage } from '../../helpers/harness.ts';
import { closeFixOrgs, fixOrg, fixWorld } from '../../helpers/fixes.ts';
import { drainJobs } from '../../helpers/jobs.ts';
import { connectAgent } from '../../helpers/mcp.ts';

const storage = await scratchStorage();
t.teardown(async () => {
  await closeFixOrgs();
  await storage.drop();
});

t.test('requests queued while no worker runs are analysed exactly once after a restart', async (t) => {
  const first = await fixWorld({ storage, runWorkers: false });
  const { github, ai } = first;
  github.addRepo('acme/restart', { 'src/fee.ts': 'export const fee = 1;\n' });
  const org = await fixOrg(first, { repos: [{ repo: 'acme/restart', services: ['svc'] }] });
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push((await org.ask({ description: `fee.ts ${i}`, service: 'svc', dedup_key: `k${i}` })).body.id);
  await org.ask({ description: 'fee.ts 0, replaced before any worker ran', service: 'svc', dedup_key: 'k0' });
  t.equal(ai.chats().length, 0, 'nothing analysed without a worker');
  await org.close();
  await first.vigil.close();

  const second = await fixWorld({ storage, share: first });
  t.teardown(async () => {
    await second.close();
    await github.close();
    await ai.close();
  });
  // the organization of the first instance, seen through the second one's agent endpoint
  const key = await second.vigil.operator.post(`/api/admin/v1/organizations/${org.id}/api_keys`, { name: 'after restart', scopes: ['mcp:read'] });
  const agent = await connectAgent(second.vigil.url, key.body.key);
  t.teardown(() => agent.close());
  for (const id of ids) {
    let done: any;
    const deadline = Date.now() + 30_000;
    do {
      done = (await agent.call('get_fix_request', { id })).body.data;
      if (done.status !== 'analyzing') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } while (Date.now() < deadline);
    t.equal(done.status, 'pr_opened', 'analysed after the restart');
    t.equal(done.timeline.filter((e: any) => e.step === 'analysis_started').length, 1, 'exactly once');
  }
  t.equal(ai.chats().length, 3, 'one provider call per request');
  t.equal(github.pulls('acme/restart').length, 3, 'one pull request per request');
  const first0 = (await agent.call('get_fix_request', { id: ids[0] })).body.data;
  t.match(first0, { revision: 2, description: 'fee.ts 0, replaced before any worker ran' }, 'the latest revision was analysed');
});

t.test('a live claim of another job makes a job stand back; an expired one is taken over', async (t) => {
  const world = await fixWorld();
  t.teardown(() => world.close());
  world.github.addRepo('acme/claims', { 'src/fee.ts': 'export const fee = 1;\n' });
  const org = await fixOrg(world, { repos: [{ repo: 'acme/claims', services: ['svc'] }] });
  const sql = (text: string, params: unknown[]) => world.vigil.running.services.db.em.getConnection().execute(text, params);
  const { vigil } = world;
  const asked = await org.ask({ description: 'fee.ts', service: 'svc', dedup_key: 'claimed' });
  await org.settled(asked.body.id);

  // another instance's job holds the request (it will take the latest revision when it finishes)
  const until = new Date(vigil.clock.now().getTime() + 10 * 60_000);
  await sql(`update fix_requests set status = 'analyzing', worker_job = 'job-of-another-instance', lease_until = ? where id = ?`, [until, asked.body.id]);
  const chats = world.ai.chats().length;
  await org.ask({ description: 'fee.ts, revised', service: 'svc', dedup_key: 'claimed' });
  await drainJobs(vigil.running.services);
  const waiting = await org.get(asked.body.id);
  t.equal(waiting.status, 'analyzing', 'the job stood back');
  t.equal(world.ai.chats().length, chats, 'and asked no provider');

  // that instance died: once its claim expires, the next job takes the request over
  vigil.clock.advance(11 * 60_000);
  await org.ask({ description: 'fee.ts, revised again', service: 'svc', dedup_key: 'claimed' });
  const done = await org.settled(asked.body.id);
  t.match(done, { status: 'pr_opened', revision: 3, description: 'fee.ts, revised again' });
  t.equal(world.github.pulls('acme/claims').length, 1, 'the one pull request, updated');
});
