/**
 * A published status page with something on it, made through the configuration API: three components (one
 * without SLOs, one archived), SLOs in set statuses, an open incident whose title holds markup and a resolved one
 * naming the archived component.
 */
import { tableName } from '../../engine/persistence/entities.ts';
import { readStore } from '../../engine/operations/context.ts';
import slos from '../../resources/slos.ts';
import { CONFIG, type Client, type Vigil } from './harness.ts';

export const HOSTILE_TITLE = '<script>alert("x")</script> Checkout & payments';

export interface SeededPage {
  slug: string;
  organizationId: string;
  api: Client;
  sloIds: string[];
  componentIds: Record<'api' | 'dashboard' | 'legacy' | 'docs', string>;
}

async function ok<T extends { status: number; body: any }>(answer: Promise<T>, what: string): Promise<T> {
  const a = await answer;
  if (a.status >= 300) throw new Error(`${what}: ${a.status} ${JSON.stringify(a.body)}`);
  return a;
}

/** SLO status is the evaluator's to write; a test sets it in the table. */
export async function setSloStatus(vigil: Vigil, id: string, status: string): Promise<void> {
  await readStore(vigil.running.services).execute(`update "${tableName(slos)}" set "status" = ? where "id" = ?`, [status, id]);
}

export async function seedStatusPage(vigil: Vigil, slug: string): Promise<SeededPage> {
  const org = await vigil.organization();
  const api = await org.key();
  const sli = await ok(api.post(`${CONFIG}/slis`, { name: 'checkout availability', service: 'checkout', indicator: 'availability' }), 'sli');
  const sloIds: string[] = [];
  for (const name of ['api ok', 'api breaching', 'dashboard at risk']) {
    const slo = await ok(api.post(`${CONFIG}/slos`, { name, sli_id: sli.body.data.id, target_percent: 99.9 }), 'slo');
    sloIds.push(slo.body.data.id);
  }
  await setSloStatus(vigil, sloIds[0]!, 'ok');
  await setSloStatus(vigil, sloIds[1]!, 'breaching');
  await setSloStatus(vigil, sloIds[2]!, 'at_risk');
  const make = async (body: object) => (await ok(api.post(`${CONFIG}/status_page_components`, body), 'component')).body.data.id as string;
  const componentIds = {
    api: await make({ display_name: 'Public API', description: 'REST and webhooks', slo_ids: [sloIds[0], sloIds[1]] }),
    legacy: await make({ display_name: 'Legacy importer', slo_ids: [sloIds[0]] }),
    dashboard: await make({ display_name: 'Dashboard', slo_ids: [sloIds[2]] }),
    docs: await make({ display_name: 'Documentation' }),
  };
  await ok(
    api.post(`${CONFIG}/status_page_incidents`, { title: 'Importer outage', impact: 'major', component_ids: [componentIds.legacy], message: 'Imports are failing.' }),
    'past incident',
  );
  const [past] = (await api.get(`${CONFIG}/status_page_incidents`)).body.data;
  await ok(api.put(`${CONFIG}/status_page_incidents/${past.id}`, { status: 'resolved', message: 'Imports work again.' }), 'resolve');
  await ok(api.del(`${CONFIG}/status_page_components/${componentIds.legacy}`), 'archive');
  await ok(
    api.post(`${CONFIG}/status_page_incidents`, { title: HOSTILE_TITLE, component_ids: [componentIds.api], message: 'Errors at checkout; we are <b>looking</b>.' }),
    'open incident',
  );
  await ok(api.put(`${CONFIG}/status_page_settings`, { title: 'Acme status', slug, public: true, support_url: 'https://help.example.com' }), 'publish');
  return { slug, organizationId: org.id, api, sloIds, componentIds };
}
