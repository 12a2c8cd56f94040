/** An organization with rows in most families — secrets, references, singletons, an archived and an expired row — for the export and plan tests. */
import { CONFIG, type Client, type Vigil } from '../helpers/harness.ts';

export interface Seeded {
  /** every secret value stored, which no export may contain */
  secrets: string[];
  ids: Record<string, string>;
}

async function ok(what: string, answer: Promise<{ status: number; body: any }>): Promise<any> {
  const got = await answer;
  if (got.status >= 300) throw new Error(`${what}: ${got.status} ${JSON.stringify(got.body)}`);
  return got.body?.data;
}

export async function seed(vigil: Vigil, api: Client, options: { dangling?: boolean } = {}): Promise<Seeded> {
  const secrets = ['sk-live-SECRET-provider-0001', 'tok-SECRET-tracker-0001'];
  const ids: Record<string, string> = {};
  // an expired mute first: created with a duration, then the clock passes it
  ids.expired = (await ok('expired mute', api.post(`${CONFIG}/alert_mutes`, { pattern: 'Disk Space', duration_minutes: 60, reason: 'maintenance' }))).id;
  vigil.clock.advance(2 * 3600_000);
  await ok('organization_settings', api.put(`${CONFIG}/organization_settings`, { timezone: 'Europe/Berlin', alert_storm_threshold: 5, monthly_ai_budget_usd: 250.5 }));
  await ok('ai_settings', api.put(`${CONFIG}/ai_settings`, { retry_budget: 4, anonymization_enabled: true }));
  await ok('code_host_settings', api.put(`${CONFIG}/code_host_settings`, { installation_id: '4815162342', account: 'acme', fix_pr_labels: ['vigil', 'auto-fix'] }));
  ids.primary = (await ok('provider', api.post(`${CONFIG}/ai_providers`, {
    name: 'primary', provider: 'vendor_a', api_key: secrets[0], model: 'model-large', temperature: 0.7,
    model_overrides: { investigation: 'model-large', pr_review: 'auto' },
  }))).id;
  await ok('provider', api.post(`${CONFIG}/ai_providers`, { name: 'fallback', provider: 'gateway', base_url: 'https://gateway.example.com/v1', priority: 2 }));
  const availability = (await ok('sli', api.post(`${CONFIG}/slis`, { name: 'checkout availability', service: 'checkout', indicator: 'availability' }))).id;
  const latency = (await ok('sli', api.post(`${CONFIG}/slis`, {
    name: 'checkout latency', service: 'checkout', indicator: 'latency', latency_threshold_ms: 300,
    query: 'histogram_quantile(0.99, sum(rate(http{code=~"5.."}[5m]))) ${not_a_var} %{x} \\d',
  }))).id;
  ids.slo = (await ok('slo', api.post(`${CONFIG}/slos`, { name: 'checkout 99.9', sli_id: availability, target_percent: 99.9 }))).id;
  const p99 = (await ok('slo', api.post(`${CONFIG}/slos`, { name: 'checkout p99', sli_id: latency, target_percent: 99.5, description: 'line one\nline "two"' }))).id;
  ids.api = (await ok('component', api.post(`${CONFIG}/status_page_components`, { display_name: 'API', slo_ids: [ids.slo, p99] }))).id;
  await ok('component', api.post(`${CONFIG}/status_page_components`, { display_name: 'Checkout', description: 'the "web" app' }));
  await ok('component', api.post(`${CONFIG}/status_page_components`, { display_name: 'Checkout', slo_ids: [p99] }));
  ids.legacy = (await ok('component', api.post(`${CONFIG}/status_page_components`, { display_name: 'Legacy' }))).id;
  await api.del(`${CONFIG}/status_page_components/${ids.legacy}`);
  if (options.dangling) {
    const doomed = (await ok('slo', api.post(`${CONFIG}/slos`, { name: 'doomed', sli_id: availability, target_percent: 99 }))).id;
    ids.orphan = (await ok('component', api.post(`${CONFIG}/status_page_components`, { display_name: 'Orphan', slo_ids: [doomed] }))).id;
    ids.doomed = doomed;
    await api.del(`${CONFIG}/slos/${doomed}`);
  }
  await ok('mute', api.post(`${CONFIG}/alert_mutes`, { pattern: 'flappy-check' }));
  await ok('policy', api.post(`${CONFIG}/deploy_policies`, { service: 'checkout-api' }));
  await ok('policy', api.post(`${CONFIG}/deploy_policies`, { service: 'billing-worker', error_budget_threshold: 25.5, burn_rate_block_enabled: false }));
  await ok('binding', api.put(`${CONFIG}/service_bindings/checkout/prod`, {
    account_id: '123456789012', region: 'us-east-1', log_groups: ['/aws/lambda/checkout'],
    metric_selectors: [{ namespace: 'AWS/ApplicationELB', metric_name: 'TargetResponseTime', dimensions: [{ name: 'LoadBalancer', value: 'app/checkout' }] }],
  }));
  await ok('binding', api.put(`${CONFIG}/service_bindings/checkout`, { trace_service_names: [] }));
  await ok('integration', api.post(`${CONFIG}/ticket_integrations`, { provider: 'issue_tracker', base_url: 'https://acme.tracker.example.com', account: 'ops@acme.example', api_token: secrets[1] }));
  await ok('rule', api.post(`${CONFIG}/ticket_import_rules`, { provider: 'code_host', config: { repo: 'acme/checkout', label: 'incident' } }));
  await ok('rule', api.post(`${CONFIG}/ticket_import_rules`, { provider: 'issue_tracker', config: { project: 'OPS' } }));
  await ok('period', api.post(`${CONFIG}/compliance_periods`, { name: 'SOC 2 type II 2026', framework: 'soc2', starts_on: '2026-01-01', ends_on: '2026-12-31' }));
  return { secrets, ids };
}
