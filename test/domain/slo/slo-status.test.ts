/**
 * SLO status from synthetic check results, through REST: no_data → ok → at_risk (fast burn) → breaching →
 * no_data once the window slides past every run; the ETag and updated_at never move; a latency SLI counts runs
 * under its threshold; an SLI with a metrics query stays no_data; a status page component follows its SLO.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { readStore } from '../../../engine/operations/context.ts';
import { refreshAllSlos, refreshSlos } from '../../../domain/slo/evaluate.ts';
import { recordSyntheticResult } from '../../../domain/slo/results.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const services = vigil.running.services;
const sql = readStore(services).execute;

const org = await vigil.organization();
const api = await org.key(['api:admin']);

async function create(family: string, body: Record<string, unknown>): Promise<string> {
  const res = await api.post(`${CONFIG}/${family}`, body);
  if (res.status !== 201) throw new Error(`${family}: ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

let check = '', availability = '', latency = '', metrics = '', sloA = '', sloL = '', sloM = '', component = '';
let before: Record<string, any> = {};
t.before(async () => {
  check = await create('synthetic_checks', { name: 'checkout health', url: 'https://checkout.example.com/healthz', service: 'checkout' });
  availability = await create('slis', { name: 'checkout availability', service: 'checkout', indicator: 'availability' });
  latency = await create('slis', { name: 'checkout latency', service: 'checkout', indicator: 'latency', latency_threshold_ms: 300, query: 'synthetic:checkout health' });
  metrics = await create('slis', { name: 'checkout errors', service: 'checkout', indicator: 'availability', query: 'sum(rate(http_errors[5m]))' });
  sloA = await create('slos', { name: 'checkout 99', sli_id: availability, target_percent: 99, window_days: 7 });
  sloL = await create('slos', { name: 'checkout fast', sli_id: latency, target_percent: 90, window_days: 7 });
  sloM = await create('slos', { name: 'checkout metrics', sli_id: metrics, target_percent: 99 });
  component = await create('status_page_components', { display_name: 'Checkout', slo_ids: [sloA] });
  before = await slo(sloA);
});

/** `count` runs, one every `everySeconds`, the newest `endAgoSeconds` before now. */
async function runs(count: number, everySeconds: number, run: { ok: boolean; latency_ms: number | null }, endAgoSeconds = 0) {
  const now = vigil.clock.now().getTime();
  await sql(
    `insert into synthetic_results (organization_id, check_id, at, ok, latency_ms, status_code, error)
     select ?, ?, to_timestamp(? / 1000.0) - make_interval(secs => (g * ?)::double precision), ?, ?, ?, ? from generate_series(0, ? - 1) g`,
    [org.id, check, now - endAgoSeconds * 1000, everySeconds, run.ok, run.latency_ms, run.ok ? 200 : 503, run.ok ? null : 'expected 200, got 503', count],
  );
}

async function slo(id: string) {
  const res = await api.get(`${CONFIG}/slos/${id}`);
  if (res.status !== 200) throw new Error(`read slo: ${res.status}`);
  return { ...res.body.data, etag: res.headers.get('etag') };
}

t.test('no runs yet: no_data, on the SLO and its component', async (t) => {
  t.match(before, { status: 'no_data', error_budget_remaining_percent: null, burn_rate: null });
  t.equal((await api.get(`${CONFIG}/status_page_components/${component}`)).body.data.status, 'no_data');
});

t.test('healthy runs: ok, the whole budget left, no burn', async (t) => {
  await runs(15_000, 40, { ok: true, latency_ms: 120 }, 1); // ~7 days of runs every 40 s
  await refreshSlos(services, org.id);
  const now = await slo(sloA);
  t.match(now, { status: 'ok', error_budget_remaining_percent: 100, burn_rate: 0 });
  t.equal(now.etag, before.etag, 'evaluation never changes the ETag');
  t.equal(now.updated_at, before.updated_at, 'nor updated_at');
  t.match(await slo(sloL), { status: 'ok', error_budget_remaining_percent: 100 });
  t.match(await slo(sloM), { status: 'no_data' }, 'a metrics query is not evaluated by Vigil');
  t.equal((await api.get(`${CONFIG}/status_page_components/${component}`)).body.data.status, 'ok', 'the component follows');
});

t.test('a burst of failures: fast burn, at_risk', async (t) => {
  await runs(40, 5, { ok: false, latency_ms: null }); // the last ~3 minutes fail
  await refreshSlos(services, org.id, { service: 'checkout' });
  const now = await slo(sloA);
  t.equal(now.status, 'at_risk');
  t.ok(now.error_budget_remaining_percent > 25 && now.error_budget_remaining_percent < 100, `budget left ${now.error_budget_remaining_percent}`);
  t.ok(now.burn_rate >= 14.4, `burn rate ${now.burn_rate}`);
  t.equal(now.etag, before.etag);
  t.equal((await api.get(`${CONFIG}/status_page_components/${component}`)).body.data.status, 'at_risk');
  t.equal((await slo(sloL)).status, 'ok', 'the latency SLO (90 %) tolerates these');
});

t.test('a long outage spends the budget: breaching', async (t) => {
  await runs(200, 5, { ok: false, latency_ms: null }, 200);
  await refreshAllSlos(services);
  t.match(await slo(sloA), { status: 'breaching' });
  t.ok((await slo(sloA)).error_budget_remaining_percent <= 0);
  t.equal((await api.get(`${CONFIG}/status_page_components/${component}`)).body.data.status, 'breaching');
});

t.test('slow answers count against a latency SLI', async (t) => {
  await runs(3000, 1, { ok: true, latency_ms: 900 }, 3600);
  await refreshSlos(services, org.id);
  t.equal((await slo(sloL)).status, 'breaching', 'a run answered after the threshold is bad');
});

t.test('the window slides past every run: no_data again', async (t) => {
  vigil.clock.advance(8 * 86_400_000);
  await refreshSlos(services, org.id);
  t.match(await slo(sloA), { status: 'no_data', error_budget_remaining_percent: null, burn_rate: null });
  t.equal((await slo(sloA)).etag, before.etag);
  await recordSyntheticResult(sql, { organization_id: org.id, check_id: check, at: vigil.clock.now(), ok: true, latency_ms: 80, status_code: 200, error: null });
  await refreshSlos(services, org.id);
  t.match(await slo(sloA), { status: 'ok' }, 'the runner’s next result brings it back');
});

t.test('the computed fields stay read-only', async (t) => {
  const res = await api.put(`${CONFIG}/slos/${sloA}`, { status: 'ok' });
  t.equal(res.status, 422);
  t.match(res.body.errors, [{ field: 'status' }]);
});
