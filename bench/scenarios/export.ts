/**
 * `export`: GET /api/v1/config/export?format=hcl of an enterprise organization grown through the configuration
 * API to 5,000 rows across nine families (with references and stored secrets), against bench/servers/bare-export.ts
 * writing 5,000 rows of one table as HCL blocks. Each answer takes a hundred milliseconds or more, so two
 * connections (CONNECTIONS) keep the latency figures about one export, not a queue of them. `rowFor` and `grow` also seed
 * bench/export.ts (the growth benchmark at 1,000, 2,500 and 5,000 rows).
 */
import { fileURLToPath } from 'node:url';
import { call, organization, type BenchContext, type Pair } from './context.ts';

export const KEYS = ['export'];
export const ROWS = 5000;
const CONNECTIONS = 2;
const SEED_CONCURRENCY = 16;
const server = fileURLToPath(new URL('../servers/bare-export.ts', import.meta.url));

/** The n-th row of the mix: ten rows of nine families, each with its references. */
export function rowFor(n: number, slis: string[], slos: string[]): { method: string; path: string; body: unknown; keep?: 'sli' | 'slo' } {
  const i = Math.floor(n / 10);
  switch (n % 10) {
    case 0: return { method: 'POST', path: 'ai_providers', body: { name: `provider ${i}`, provider: 'gateway', base_url: 'https://gw.example.com/v1', priority: (i % 50) + 1, api_key: `sk-bench-${i}`, model_overrides: { investigation: 'model-a' } } };
    case 1: return { method: 'POST', path: 'slis', body: { name: `sli ${i} availability`, service: `svc-${i}`, indicator: 'availability' }, keep: 'sli' };
    case 2: return { method: 'POST', path: 'slis', body: { name: `sli ${i} latency`, service: `svc-${i}`, indicator: 'latency', latency_threshold_ms: 250, query: `histogram_quantile(0.99, rate(http{svc="${i}"}[5m]))` }, keep: 'sli' };
    case 3: return { method: 'POST', path: 'slos', body: { name: `slo ${i} a`, sli_id: slis[slis.length - 1] ?? slis[0], target_percent: 99.9, description: `objective "${i}"\nsecond line` }, keep: 'slo' };
    case 4: return { method: 'POST', path: 'slos', body: { name: `slo ${i} b`, sli_id: slis[slis.length - 2] ?? slis[0], target_percent: 99.5 }, keep: 'slo' };
    case 5: return { method: 'POST', path: 'deploy_policies', body: { service: `svc-${i}`, error_budget_threshold: 12.5 } };
    case 6: return { method: 'POST', path: 'alert_mutes', body: { pattern: `noisy check ${i}`, reason: 'bench' } };
    case 7: return { method: 'POST', path: 'status_page_components', body: { display_name: `Component ${i % 400}`, slo_ids: slos.slice(-2) } };
    case 8: return { method: 'PUT', path: `service_bindings/svc-${i}/prod`, body: { region: 'us-east-1', log_groups: [`/aws/lambda/svc-${i}`], metric_selectors: [{ namespace: 'AWS/ELB', metric_name: 'Latency', dimensions: [{ name: 'LB', value: `app/${i}` }] }] } };
    default: return { method: 'POST', path: 'compliance_periods', body: { name: `period ${i}`, framework: 'soc2', starts_on: '2026-01-01', ends_on: '2026-12-31' } };
  }
}

/** Creates rows `from`..`to`-1 of the mix, SEED_CONCURRENCY at a time: in each batch SLIs first, then SLOs, then components. */
export async function grow(base: string, key: string, from: number, to: number, ids: { slis: string[]; slos: string[] }): Promise<void> {
  const phase = (n: number) => (n % 10 === 3 || n % 10 === 4 ? 1 : n % 10 === 7 ? 2 : 0);
  for (let start = from; start < to; start += SEED_CONCURRENCY) {
    const numbers = Array.from({ length: Math.min(SEED_CONCURRENCY, to - start) }, (_, k) => start + k);
    for (const step of [0, 1, 2]) {
      const batch = numbers.filter((n) => phase(n) === step).map((n) => rowFor(n, ids.slis, ids.slos));
      const answers = await Promise.all(batch.map((r) => call(`${base}/api/v1/config/${r.path}`, r.method, key, r.body, [200, 201])));
      answers.forEach((a, k) => {
        if (batch[k]!.keep === 'sli') ids.slis.push(a.data.id);
        if (batch[k]!.keep === 'slo') ids.slos.push(a.data.id);
      });
    }
  }
}

export async function run(ctx: BenchContext): Promise<Pair[]> {
  const v = ctx.vigil.info.url;
  const org = await organization(ctx, 'bench export', 'enterprise', ['api:admin']);
  await call(`${v}/api/v1/config/organization_settings`, 'PUT', org.key, { timezone: 'Europe/Berlin' }, 200);
  const started = performance.now();
  await grow(v, org.key, 0, ROWS, { slis: [], slos: [] });
  const seedSeconds = (performance.now() - started) / 1000;
  const text = await call(`${v}/api/v1/config/export?format=hcl`, 'GET', org.key, undefined, 200);
  const blocks = (String(text).match(/^import \{$/gm) ?? []).length;
  if (blocks < ROWS) throw new Error(`the export of ${ROWS} rows has ${blocks} import blocks`);

  const bare = await ctx.bare(server);
  try {
    const pair = await ctx.pair({
      key: 'export',
      name: `export of ${ROWS.toLocaleString('en')} rows`,
      describe: { vigil: `GET /api/v1/config/export?format=hcl (${blocks} import blocks, ${(Buffer.byteLength(String(text)) / 1024).toFixed(0)} KiB)`, bare: `GET /export: one select of ${ROWS} rows written as HCL` },
      bare: { child: bare, options: { url: `${bare.info.url}/export`, connections: CONNECTIONS } },
      vigil: { url: `${v}/api/v1/config/export?format=hcl`, headers: { authorization: `Bearer ${org.key}` }, connections: CONNECTIONS },
    });
    pair.notes.push(`${CONNECTIONS} connections; the organization was grown through the API in ${seedSeconds.toFixed(1)} s`);
    return [pair];
  } finally {
    await bare.stop();
  }
}
