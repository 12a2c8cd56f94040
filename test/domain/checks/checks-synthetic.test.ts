/**
 * Synthetic checks (issue 10): the scheduler runs due checks with the injected clock, records the result on the
 * row without changing its ETag, and feeds the alert pipeline: N consecutive failures fire one alert, a pass
 * resolves it. Passes are run by hand (`runSchedulingPass`) so counts are exact; one test proves the tick runs them.
 */
import t from 'tap';
import { createLogger } from '../../../engine/logger.ts';
import { runSchedulingPass } from '../../../domain/checks/scheduler.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { httpTarget } from '../../helpers/checks.ts';
import { waitFor } from '../../helpers/jobs.ts';

const MINUTE = 60_000;

t.test('synthetic checks', async (t) => {
  // loopback closed for the deployment, opened for checks by their own setting (a widening of the policy)
  const lines: { msg: string; outbound?: string; rule?: string }[] = [];
  const log = createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line)) });
  const vigil = await startVigil({ outbound: { allowLoopback: false }, log, webhooks: { checks: { tickSeconds: 0, allowLoopback: true, failuresToAlert: 3 } } });
  const target = await httpTarget();
  t.teardown(async () => {
    await target.close();
    await vigil.close();
  });
  const org = await vigil.organization();
  const api = await org.key();
  const services = vigil.running.services;
  const pass = () => runSchedulingPass(services);
  const create = async (body: Record<string, unknown>) => {
    const made = await api.post(`${CONFIG}/synthetic_checks`, body);
    if (made.status !== 201) throw new Error(JSON.stringify(made.body));
    return made.body.data as { id: string };
  };
  const read = (id: string) => api.get(`${CONFIG}/synthetic_checks/${id}`);
  const alerts = async () => (await api.get(`${CONFIG}/alerts?source=synthetic`)).body.data as { id: string; status: string; occurrences: number; fingerprint: string; service: string | null }[];

  await t.test('a passing check records its result, keeps its ETag and fires nothing', async (t) => {
    const check = await create({ name: 'ok', url: `${target.url}/ok`, service: 'checkout', headers: { Authorization: 'Bearer synthetic-secret-0001' } });
    const before = await read(check.id);
    t.equal(before.body.data.last_status, 'unknown');
    const report = await pass();
    t.same(report.ran.map((r) => [r.id, r.failing]), [[check.id, false]], 'a new check is due at once');
    t.equal(target.hits.get('/ok'), 1);
    t.equal(target.lastHeaders.authorization, 'Bearer synthetic-secret-0001', 'the sealed headers are sent');
    const after = await read(check.id);
    t.equal(after.body.data.last_status, 'passing');
    t.equal(after.body.data.last_run_at, vigil.clock.now().toISOString(), 'the run time comes from the injected clock');
    t.type(after.body.data.last_latency_ms, 'number');
    t.equal(after.body.data.last_error, null);
    t.equal(after.headers.get('etag'), before.headers.get('etag'), 'the ETag does not change');
    t.equal(after.body.data.updated_at, before.body.data.updated_at, 'a result is no configuration change');
    t.notOk(JSON.stringify(after.body).includes('synthetic-secret'), 'the header value is never answered');
    t.same((await pass()).ran, [], 'not due again before its interval');
    vigil.clock.advance(MINUTE);
    t.equal((await pass()).ran.length, 1, 'due again after interval_seconds');
    t.same(await alerts(), [], 'no alert');
    await api.del(`${CONFIG}/synthetic_checks/${check.id}`);
  });

  await t.test('N consecutive failures fire one alert; a pass resolves it', async (t) => {
    const check = await create({ name: 'flaky', url: `${target.url}/flaky`, service: 'payments' });
    const etag = (await read(check.id)).headers.get('etag');
    target.status = 503;
    for (let i = 1; i <= 2; i++) {
      const [run] = (await pass()).ran;
      t.same([run?.failing, run?.sent], [true, null], `failure ${i} is below the threshold`);
      vigil.clock.advance(MINUTE);
    }
    t.same(await alerts(), [], 'nothing fired after 2 of 3 failures');
    const row = (await read(check.id)).body.data;
    t.equal(row.last_status, 'failing');
    t.equal(row.last_error, 'answered status 503, expected 200');

    t.equal((await pass()).ran[0]?.sent, 'firing', 'the third failure fires');
    let [alert] = await alerts();
    t.equal(alert?.status, 'firing');
    t.equal(alert?.fingerprint, `synthetic:${check.id}`);
    t.equal(alert?.service, 'payments');
    const detail = (await api.get(`${CONFIG}/alerts/${alert!.id}`)).body.data;
    t.same(detail.effects.filter((e: { kind: string }) => e.kind === 'page').length, 1, 'paged once');

    vigil.clock.advance(MINUTE);
    await pass();
    const still = await alerts();
    t.equal(still.length, 1, 'a fourth failure makes no second alert');
    t.equal(still[0]?.occurrences, 2, 'it counts as a repeat');
    t.equal((await api.get(`${CONFIG}/alerts/${alert!.id}`)).body.data.effects.filter((e: { kind: string }) => e.kind === 'page').length, 1, 'still paged once');

    target.status = 200;
    vigil.clock.advance(MINUTE);
    t.equal((await pass()).ran[0]?.sent, 'resolved', 'the first pass resolves');
    [alert] = await alerts();
    t.equal(alert?.status, 'resolved');
    vigil.clock.advance(MINUTE);
    t.equal((await pass()).ran[0]?.sent, null, 'a later pass sends nothing');
    t.equal((await read(check.id)).headers.get('etag'), etag, 'results never changed the ETag');
    await api.del(`${CONFIG}/synthetic_checks/${check.id}`);
  });

  await t.test('a changed configuration runs at once; a disabled check does not run', async (t) => {
    const check = await create({ name: 'changing', url: `${target.url}/a` });
    await pass();
    const changed = await api.put(`${CONFIG}/synthetic_checks/${check.id}`, { url: `${target.url}/b` });
    t.equal(changed.status, 200);
    t.same((await pass()).ran.map((r) => r.id), [check.id], 'due at once after a change, without the clock moving');
    t.equal(target.hits.get('/b'), 1);
    await api.put(`${CONFIG}/synthetic_checks/${check.id}`, { enabled: false });
    vigil.clock.advance(10 * MINUTE);
    t.same((await pass()).ran, [], 'disabled: not run');
    t.equal((await read(check.id)).body.data.last_status, 'passing', 'and keeps its last result');
    await api.del(`${CONFIG}/synthetic_checks/${check.id}`);
  });

  await t.test('redirects are not followed, timeouts fail, body_contains is checked', async (t) => {
    const redirect = await create({ name: 'redirect', url: `${target.url}/redirect` });
    const hang = await create({ name: 'hang', url: `${target.url}/hang`, timeout_ms: 200 });
    const body = await create({ name: 'body', url: `${target.url}/body`, body_contains: 'healthy' });
    vigil.clock.advance(10 * MINUTE);
    await pass();
    t.equal((await read(redirect.id)).body.data.last_error, 'answered status 302, expected 200', 'the 302 is compared as it is');
    t.equal((await read(hang.id)).body.data.last_error, 'the endpoint could not be reached');
    t.equal((await read(hang.id)).body.data.last_latency_ms, null);
    t.equal((await read(body.id)).body.data.last_error, 'the answer body does not hold the expected text');
    for (const c of [redirect, hang, body]) await api.del(`${CONFIG}/synthetic_checks/${c.id}`);
  });

  await t.test('loopback is refused unless checks or the deployment allow it; link-local always; refused like unreachable', async (t) => {
    const local = await create({ name: 'loopback', url: `${target.url}/refused` });
    const named = await create({ name: 'localhost by name', url: `http://localhost:${target.port}/refused` });
    // link-local (the metadata address) never gets this far: it is refused when saved
    t.equal((await api.post(`${CONFIG}/synthetic_checks`, { name: 'metadata', url: 'http://169.254.169.254/latest/meta-data/' })).status, 422);
    const logged = lines.length;
    await runSchedulingPass(services, { allowLoopback: false });
    for (const c of [local, named]) t.equal((await read(c.id)).body.data.last_error, 'the endpoint could not be reached', 'the one message');
    t.equal(target.hits.get('/refused'), undefined, 'nothing was sent');
    const rules = lines.slice(logged).filter((l) => l.outbound === 'synthetic check').map((l) => l.rule).sort();
    t.same(rules, ['loopback', 'loopback'], 'the operator\'s log says which rule refused each (a name by the address it resolves to)');
    for (const c of [local, named]) await api.del(`${CONFIG}/synthetic_checks/${c.id}`);
  });

  await t.test('a deleted check resolves its open alert; a muted check alert pages no one', async (t) => {
    await api.post(`${CONFIG}/alert_mutes`, { pattern: 'synthetic check failing: muted' });
    const muted = await create({ name: 'muted one', url: `${target.url}/down` });
    const gone = await create({ name: 'gone', url: `${target.url}/down` });
    target.status = 500;
    for (let i = 0; i < 3; i++) {
      vigil.clock.advance(10 * MINUTE);
      await pass();
    }
    const fired = await alerts();
    t.equal(fired.find((a) => a.fingerprint === `synthetic:${muted.id}`)?.status, 'muted', 'the mute applies');
    t.equal(fired.find((a) => a.fingerprint === `synthetic:${gone.id}`)?.status, 'firing');
    await api.del(`${CONFIG}/synthetic_checks/${gone.id}`);
    await pass();
    t.equal((await alerts()).find((a) => a.fingerprint === `synthetic:${gone.id}`)?.status, 'resolved', 'deleting the check resolves its alert');
    target.status = 200;
    await api.del(`${CONFIG}/synthetic_checks/${muted.id}`);
  });

  await t.test('refused writes of the result fields', async (t) => {
    const refused = await api.post(`${CONFIG}/synthetic_checks`, { name: 'x', url: `${target.url}/x`, last_status: 'passing' });
    t.equal(refused.status, 422);
    t.equal(refused.body.errors[0].field, 'last_status');
  });
});

t.test('the tick runs passes by itself', async (t) => {
  const vigil = await startVigil({ webhooks: { checks: { tickSeconds: 0.5, allowLoopback: true } } });
  const target = await httpTarget();
  t.teardown(async () => {
    await target.close();
    await vigil.close();
  });
  const api = await (await vigil.organization()).key();
  const made = await api.post(`${CONFIG}/synthetic_checks`, { name: 'ticked', url: `${target.url}/tick` });
  await waitFor(async () => (await api.get(`${CONFIG}/synthetic_checks/${made.body.data.id}`)).body.data.last_status === 'passing', 'a tick to run the check');
  t.equal(target.hits.get('/tick'), 1, 'run once while the clock stands still');
  vigil.clock.advance(MINUTE);
  await waitFor(() => target.hits.get('/tick') === 2, 'the next run after the interval');
  t.pass('ran again once the injected clock passed its interval');
});

t.test('check runs feed the SLOs of their SLI: ok while passing, breaching once failures spend the budget', async (t) => {
  const vigil = await startVigil({ webhooks: { checks: { tickSeconds: 0, allowLoopback: true } } });
  const target = await httpTarget();
  t.teardown(async () => {
    await target.close();
    await vigil.close();
  });
  const api = await (await vigil.organization()).key();
  const made = async (family: string, body: Record<string, unknown>) => {
    const answer = await api.post(`${CONFIG}/${family}`, body);
    if (answer.status !== 201) throw new Error(JSON.stringify(answer.body));
    return answer.body.data.id as string;
  };
  await made('synthetic_checks', { name: 'checkout health', url: `${target.url}/health`, service: 'checkout' });
  const sli = await made('slis', { name: 'checkout availability', service: 'checkout', indicator: 'availability', query: 'synthetic:checkout health' });
  const slo = await made('slos', { name: 'checkout 99', sli_id: sli, target_percent: 99, window_days: 1 });
  const read = async () => (await api.get(`${CONFIG}/slos/${slo}`)).body.data;
  t.equal((await read()).status, 'no_data', 'no run yet');
  const etag = (await api.get(`${CONFIG}/slos/${slo}`)).headers.get('etag');
  for (let i = 0; i < 5; i++) {
    await runSchedulingPass(vigil.running.services);
    vigil.clock.advance(MINUTE);
  }
  t.match(await read(), { status: 'ok', error_budget_remaining_percent: 100 }, 'five passing runs');
  target.status = 500;
  for (let i = 0; i < 5; i++) {
    await runSchedulingPass(vigil.running.services);
    vigil.clock.advance(MINUTE);
  }
  const breaching = await read();
  t.equal(breaching.status, 'breaching', 'half the runs failing spends a 1% budget');
  t.ok(breaching.error_budget_remaining_percent < 0);
  t.equal((await api.get(`${CONFIG}/slos/${slo}`)).headers.get('etag'), etag, 'the SLO ETag never moved');
});
