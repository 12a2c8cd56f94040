/** Outbound tests: an organization that fires Alertmanager alerts, reads them back, and sets up configs and rules. */
import { CONFIG, type Client, type Vigil } from './harness.ts';
import { connectAgent, type Agent } from './mcp.ts';

const UA = { 'user-agent': 'Alertmanager/0.27.0', 'content-type': 'application/json' };

export interface AlertSpec {
  name: string;
  status?: 'firing' | 'resolved';
  severity?: string;
  service?: string;
  labels?: Record<string, string>;
}

/** An Alertmanager webhook (version 4) carrying these alerts; the fingerprint is the lowercased name. */
export function alertmanager(alerts: AlertSpec[]) {
  return {
    version: '4', groupKey: '{}:{alertname="x"}', truncatedAlerts: 0, status: alerts[0]?.status ?? 'firing', receiver: 'vigil',
    groupLabels: {}, commonLabels: {}, commonAnnotations: {}, externalURL: 'http://alertmanager.example.com:9093',
    alerts: alerts.map((a) => ({
      status: a.status ?? 'firing',
      labels: { alertname: a.name, severity: a.severity ?? 'critical', ...(a.service ? { service: a.service } : {}), ...a.labels },
      annotations: { summary: `${a.name} summary` },
      startsAt: '2026-03-01T11:59:00.000Z', endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus.example.com:9090/graph', fingerprint: a.name.toLowerCase(),
    })),
  };
}

export interface AlertOrg {
  id: string;
  api: Client;
  agent: Agent;
  fire(...alerts: AlertSpec[]): Promise<{ status: number; body: any }>;
  resolve(...alerts: AlertSpec[]): Promise<{ status: number; body: any }>;
  /** the alert with its effects (get_alert) */
  alert(name: string): Promise<any>;
  /** list_outbound_deliveries */
  deliveries(args?: Record<string, unknown>): Promise<any[]>;
  /** a further key of the organization */
  key(scopes: string[]): Promise<{ token: string }>;
  /** creates a row of a family, failing the test setup when refused */
  create(family: string, body: Record<string, unknown>): Promise<any>;
}

export async function alertOrg(vigil: Vigil, settings: Record<string, unknown> = {}): Promise<AlertOrg> {
  const org = await vigil.organization();
  const api = await org.key(['api:admin']);
  if (Object.keys(settings).length) {
    const put = await api.put(`${CONFIG}/organization_settings`, settings);
    if (put.status !== 200) throw new Error(JSON.stringify(put.body));
  }
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  const deliver = async (body: unknown) => {
    const res = await fetch(`${vigil.url}/webhooks/metric-dashboard/${org.webhookToken}`, { method: 'POST', headers: UA, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  return {
    id: org.id,
    api,
    agent,
    key: (scopes) => org.key(scopes),
    fire: (...alerts) => deliver(alertmanager(alerts)),
    resolve: (...alerts) => deliver(alertmanager(alerts.map((a) => ({ ...a, status: 'resolved' as const })))),
    async alert(name) {
      const got = await agent.call('get_alert', { fingerprint: `metric-dashboard:${name.toLowerCase()}` });
      if (got.isError) throw new Error(JSON.stringify(got.body));
      return got.body.data;
    },
    async deliveries(args = {}) {
      const got = await agent.call('list_outbound_deliveries', args);
      if (got.isError) throw new Error(JSON.stringify(got.body));
      return got.body.data;
    },
    async create(family, body) {
      const made = await api.post(`${CONFIG}/${family}`, body);
      if (made.status !== 201) throw new Error(`${family} not created: ${JSON.stringify(made.body)}`);
      return made.body.data;
    },
  };
}

export const kinds = (a: { effects: { kind: string }[] }) => a.effects.map((e) => e.kind);
export const effects = (a: { effects: { kind: string; detail: any }[] }, kind: string) => a.effects.filter((e) => e.kind === kind).map((e) => e.detail);
