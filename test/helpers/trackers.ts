/** An organization set up for the tracker webhooks: credentials, import rules, the code-host app, and delivery helpers. */
import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CONFIG, type Client, type Vigil } from './harness.ts';
import { connectAgent, type Agent } from './mcp.ts';

export const fixture = (path: string) => JSON.parse(readFileSync(new URL(`../fixtures/webhooks/${path}.json`, import.meta.url), 'utf8'));
export const clone = <T>(value: T): T => structuredClone(value);

export const LINEAR_SECRET = 'lin_wh_5b9e0c7f2d1a4e8b9c3f6a2d1e0b7c4a';
export const JIRA_SECRET = 'jira-admin-webhook-secret-0001';

/** A code-host app for the deployment (requestFix needs one configured); `apiUrl` a fake GitHub when a test has one. */
export function codeHostApp(apiUrl = 'http://127.0.0.1:9') {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { apiUrl, appId: '424242', privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), timeoutMs: 5000 };
}

export const hmacHex = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

export interface Delivery {
  status: number;
  body: any;
  headers: Headers;
}

export interface TrackerOrgOptions {
  plan?: string;
  features?: Record<string, boolean>;
  /** ticket_integrations rows to save: provider → extra fields (signing_secret, base_url, …) */
  integrations?: Partial<Record<'issue_tracker' | 'sprint_tracker', Record<string, unknown>>>;
  /** code_host_settings to save (installation_id connects the app) */
  codeHost?: Record<string, unknown>;
  /** rules to create */
  rules?: { provider: string; config?: Record<string, string>; enabled?: boolean }[];
}

const open: Agent[] = [];
export async function closeAgents(): Promise<void> {
  await Promise.all(open.splice(0).map((a) => a.close()));
}

async function ok(what: string, answer: Promise<{ status: number; body: any }>) {
  const got = await answer;
  if (got.status >= 300) throw new Error(`${what}: ${got.status} ${JSON.stringify(got.body)}`);
  return got;
}

export type TrackerOrg = Awaited<ReturnType<typeof trackerOrg>>;

export async function trackerOrg(vigil: Vigil, options: TrackerOrgOptions = {}) {
  // the setup needs the business plan's configuration API; the plan asked for is applied afterwards
  const org = await vigil.organization('business');
  const api: Client = await org.key(['api:admin']);
  for (const [provider, extra] of Object.entries(options.integrations ?? {})) {
    await ok('integration', api.post(`${CONFIG}/ticket_integrations`, { provider, base_url: 'https://tracker.example.com', account: 'ops@acme.example', api_token: `tok-${provider}`, ...extra }));
  }
  if (options.codeHost) await ok('code host', api.put(`${CONFIG}/code_host_settings`, options.codeHost));
  for (const rule of options.rules ?? []) await ok('rule', api.post(`${CONFIG}/ticket_import_rules`, rule));
  // keys first: a plan below business cannot be given one (existing keys then answer plan_required)
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  open.push(agent);
  if (options.plan || options.features) {
    await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { ...(options.plan ? { plan: options.plan } : {}), ...(options.features ? { features: options.features } : {}) });
  }

  const post = async (source: string, body: unknown, headers: Record<string, string>): Promise<Delivery> => {
    const res = await fetch(`${vigil.url}/webhooks/${source}/${org.webhookToken}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };

  return {
    id: org.id,
    token: org.webhookToken,
    api,
    agent,
    /** a Linear delivery: signed with `secret` unless it is null (or headers override) */
    linear(body: unknown, secret: string | null = null, headers: Record<string, string> = {}) {
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      const type = typeof body === 'object' && body !== null ? String((body as { type?: unknown }).type) : 'Issue';
      return post('issue-tracker', raw, {
        'user-agent': 'Linear-Webhook', 'linear-delivery': randomUUID(), 'linear-event': type,
        ...(secret ? { 'linear-signature': hmacHex(secret, raw) } : {}), ...headers,
      });
    },
    jira(body: unknown, secret: string | null = null, headers: Record<string, string> = {}) {
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      return post('sprint-tracker', raw, {
        'user-agent': 'Atlassian Webhook HTTP Client', 'x-atlassian-webhook-identifier': randomUUID(), 'x-atlassian-webhook-flow': 'Primary',
        ...(secret ? { 'x-hub-signature': `sha256=${hmacHex(secret, raw)}` } : {}), ...headers,
      });
    },
    github(event: string, body: unknown, secret: string | null = null, headers: Record<string, string> = {}) {
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      return post('code-host', raw, {
        'user-agent': 'GitHub-Hookshot/044aadd', 'x-github-event': event, 'x-github-delivery': randomUUID(),
        ...(secret ? { 'x-hub-signature-256': `sha256=${hmacHex(secret, raw)}` } : {}), ...headers,
      });
    },
    /** get_card through the agent-tool endpoint: the card with its effects */
    async card(ref: string) {
      const got = await agent.call('get_card', { card: ref });
      if (got.isError) throw new Error(JSON.stringify(got.body));
      return got.body.data;
    },
    /** every card, archived ones included */
    async cards(): Promise<any[]> {
      const live = (await agent.call('list_cards', { limit: 200 })).body.data;
      const archived = (await agent.call('list_cards', { status: 'archived', limit: 200 })).body.data;
      return [...live, ...archived];
    },
    async deliveries(source: string): Promise<any[]> {
      return (await agent.call('list_webhook_deliveries', { source, limit: 200 })).body.data;
    },
  };
}

/** A Linear Issue delivery built from the fixture: `data` members replaced, at the tests' clock. */
export function linearIssue(action: 'create' | 'update' | 'remove', data: Record<string, unknown> = {}, envelope: Record<string, unknown> = {}) {
  const body = clone(fixture('issue-tracker/issue-create'));
  body.action = action;
  Object.assign(body.data, data);
  Object.assign(body, envelope);
  return body;
}

/** A Jira issue delivery built from the fixture: `issue.fields` members replaced. */
export function jiraIssue(event: 'jira:issue_created' | 'jira:issue_updated' | 'jira:issue_deleted', fields: Record<string, unknown> = {}, issue: Record<string, unknown> = {}) {
  const body = clone(fixture('sprint-tracker/issue-created'));
  body.webhookEvent = event;
  body.issue_event_type_name = event.replace('jira:', '');
  Object.assign(body.issue.fields, fields);
  Object.assign(body.issue, issue);
  return body;
}

export const jiraStatus = (name: string, category: 'new' | 'indeterminate' | 'done') => ({ name, id: '1', statusCategory: { key: category, id: 1, name: category } });
