/**
 * Alert webhooks: single-alert Grafana deliveries through Vigil's whole webhook pipeline
 * (`POST /webhooks/metric-dashboard/<token>`: token, rate limit, signature check, parse, the alert transaction,
 * the delivery log) against bench/servers/bare-ingest.ts: a repeat against one insert per request (all a repeat
 * needs), a new alert against the least a new alert needs (one transaction: insert unless known, the storm count,
 * an effect row), as the update is measured against its transaction in bare pg. Each scenario has an
 * organization of its own:
 *
 * - `alerts-repeats`: deliveries cycling over 500 alerts already firing (seeded first): the common case, a
 *   product re-sending what still fires (`duplicate`);
 * - `alerts-new`: every delivery a new fingerprint; past 10 alerts in 300 s (the default storm threshold) each one
 *   joins the organization's storm, under the per-organization storm lock;
 * - `alerts-quiet` (a diagnostic, only when named): new alerts that never make a storm (threshold 1e6), so each
 *   one pages and requests an investigation; the storm lock is taken for every raise.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { call, hex, organization, type BenchContext, type Pair } from './context.ts';

export const KEYS = ['alerts-repeats', 'alerts-new', 'alerts-quiet'];
/** named only: not part of the full report */
export const OPTIONAL = ['alerts-quiet'];
const REPEATED_ALERTS = 500;
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const FIXTURE = here('../../test/fixtures/webhooks/metric-dashboard/grafana-firing.json');
export const USER_AGENT = 'Grafana/11.2.0';

/** The Grafana fixture with one alert; `body(fp)` gives its text with fingerprint and alert name set to fp. */
export async function grafanaBody(): Promise<(fingerprint: string) => string> {
  const grafana = JSON.parse(await readFile(FIXTURE, 'utf8'));
  const alert = grafana.alerts[0];
  alert.fingerprint = '@FP@';
  alert.labels.alertname = 'High memory usage @FP@';
  const parts = JSON.stringify({ ...grafana, alerts: [alert], title: '[FIRING:1]  (blue)', truncatedAlerts: 0 }).split('@FP@');
  return (fingerprint) => parts.join(fingerprint);
}

/** autocannon options: POSTs of `body(fingerprint(n))` to `path`, n counting up. */
export function deliveries(url: string, path: string, fingerprint: (n: number) => string, body: (fp: string) => string) {
  let n = 0;
  return {
    url,
    requests: [{
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
      setupRequest: (req: object) => ({ ...req, body: body(fingerprint(n++)) }),
    }],
  };
}

/** Concurrent deliveries through the pipeline before the measurement (the repeats' alerts). */
export async function seedAlerts(url: string, path: string, fingerprint: (n: number) => string, body: (fp: string) => string, count: number) {
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < count; n = next++) {
      const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT }, body: body(fingerprint(n)) });
      if (res.status !== 200) throw new Error(`seeding alerts: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** An organization whose metric-dashboard URL the scenario posts to; `threshold` sets its storm threshold. */
async function alertOrganization(ctx: BenchContext, name: string, threshold?: number) {
  const org = await organization(ctx, name, 'business', threshold === undefined ? undefined : ['api:admin']);
  if (threshold !== undefined) {
    const settings = await call(`${ctx.vigil.info.url}/api/v1/config/organization_settings`, 'PUT', org.key, { alert_storm_threshold: threshold }, 200);
    if (settings.data.alert_storm_threshold !== threshold) throw new Error(`organization_settings answered ${JSON.stringify(settings)}`);
  }
  return { id: org.id, path: `/webhooks/metric-dashboard/${org.webhookToken}` };
}

/** delivery-log outcomes, alert states and storms of one organization, as one sentence */
async function recorded(ctx: BenchContext, organizationId: string): Promise<string> {
  const q = async (sql: string) => JSON.stringify(Object.fromEntries((await ctx.watch.query(sql, [organizationId])).map((r) => [r.k, Number(r.n)])));
  const deliveries = await q(`select status || ' ' || outcome as k, count(*) as n from webhook_deliveries where organization_id = $1 group by 1 order by 2 desc`);
  const alerts = await q('select status as k, count(*) as n from alerts where organization_id = $1 group by 1');
  const storms = await q(`select 'storms' as k, count(*) as n from alert_storms where organization_id = $1 union all
                          select 'alerts in storms', count(*) from alerts where organization_id = $1 and storm_id is not null`);
  return `delivery log ${deliveries}; alerts ${alerts}; ${storms} (seeding and warm-up included)`;
}

const INGEST = { path: '/ingest', describe: 'POST /ingest, one insert of the body' };
const NEW_ALERT = { path: '/alerts', describe: 'POST /alerts: begin, insert unless known, storm count, effect row, commit' };

export async function run(ctx: BenchContext, chosen: Set<string>): Promise<Pair[]> {
  const v = ctx.vigil.info.url;
  const body = await grafanaBody();
  const all = [
    { key: 'alerts-repeats', name: `alert webhook: repeats (${REPEATED_ALERTS} firing)`, org: () => alertOrganization(ctx, 'bench repeats'), fingerprint: (n: number) => `b${hex(n % REPEATED_ALERTS)}`, seed: REPEATED_ALERTS, bare: INGEST },
    { key: 'alerts-new', name: 'alert webhook: new alerts (storm)', org: () => alertOrganization(ctx, 'bench new alerts'), fingerprint: (n: number) => `a${hex(n)}`, seed: 0, bare: NEW_ALERT },
    { key: 'alerts-quiet', name: 'alert webhook: new alerts, storm threshold 1e6 (diagnostic)', org: () => alertOrganization(ctx, 'bench quiet', 1_000_000), fingerprint: (n: number) => `c${hex(n)}`, seed: 0, bare: NEW_ALERT },
  ].filter((s) => chosen.has(s.key));
  const bare = await ctx.bare(here('../servers/bare-ingest.ts'));
  const pairs: Pair[] = [];
  try {
    for (const s of all) {
      const org = await s.org();
      if (s.seed) await seedAlerts(v, org.path, s.fingerprint, body, s.seed);
      const pair = await ctx.pair({
        key: s.key,
        name: s.name,
        describe: { vigil: 'POST /webhooks/metric-dashboard/<token>, one Grafana alert', bare: s.bare.describe },
        bare: { child: bare, options: deliveries(bare.info.url, s.bare.path, s.fingerprint, body) },
        vigil: deliveries(v, org.path, s.fingerprint, body),
      });
      pair.notes.push(await recorded(ctx, org.id));
      const insertOnly = pairs.find((p) => p.key === 'alerts-repeats');
      if (s.bare !== INGEST && insertOnly) pair.notes.push(`against the bare single insert of this run: ${((pair.vigil.rps / insertOnly.bare.rps) * 100).toFixed(1)} %`);
      pairs.push(pair);
    }
  } finally {
    await bare.stop();
  }
  return pairs;
}
