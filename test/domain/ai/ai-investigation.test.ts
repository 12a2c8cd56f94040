/**
 * Investigations end to end: an alert fires through the webhook, the pipeline requests an investigation and
 * enqueues it, the `investigations` worker gathers the evidence (the alert, its re-fires, the service's recent
 * deployments, related cards, bindings), redacts it when anonymization is on, asks the fake provider, and records
 * the findings; get_investigation reads them through the agent-tool endpoint and REST. Refusals: unknown id,
 * another organization's, neither or both selectors; a failed investigation carries its reason.
 */
import t from 'tap';
import { runInvestigation } from '../../../domain/ai/investigations.ts';
import { CONFIG, startVigil, type Client } from '../../helpers/harness.ts';
import { startFakeOpenAi } from '../../helpers/fake-openai.ts';
import { connectAgent, type Agent } from '../../helpers/mcp.ts';

const FINDINGS = {
  summary: 'Errors began right after checkout v2.4.1 was deployed; [IP_1] is the failing upstream.',
  likely_cause: 'the connection-pool change in v2.4.1',
  evidence: ['deploy v2.4.1 five minutes before the alert', 'card about latency since v2.4.1'],
  next_steps: ['roll back to v2.4.0', 'check [HOST_1]'],
  confidence: 'high',
};

const ai = await startFakeOpenAi();
ai.respond = () => ({ content: `\`\`\`json\n${JSON.stringify(FINDINGS)}\n\`\`\``, usage: { prompt_tokens: 2000, completion_tokens: 400 } });
const vigil = await startVigil({ aiPrices: { 'inv-model': { input: 1, output: 5 } } });
const agents: Agent[] = [];
t.teardown(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await vigil.close();
  await ai.close();
});

const MINUTE = 60_000;

interface Org {
  id: string;
  token: string;
  api: Client;
  agent: Agent;
}

async function organization(ai_settings: Record<string, unknown> = {}, withProvider = true): Promise<Org> {
  const org = await vigil.organization();
  const api = await org.key(['api:admin']);
  if (withProvider) t.equal((await api.post(`${CONFIG}/ai_providers`, { name: 'main', provider: 'gateway', base_url: ai.url, model: 'inv-model', api_key: 'sk-inv-key-000111' })).status, 201);
  if (Object.keys(ai_settings).length) t.equal((await api.put(`${CONFIG}/ai_settings`, ai_settings)).status, 200);
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  agents.push(agent);
  return { id: org.id, token: org.webhookToken, api, agent };
}

async function post(org: Org, source: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${vigil.url}/webhooks/${source}/${org.token}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'vigil-tests/1.0', ...headers }, body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${source}: ${res.status} ${await res.text()}`);
  return res.json();
}

function fire(org: Org, name: string, labels: Record<string, string>, summary: string) {
  return post(org, 'metric-dashboard', {
    version: '4', status: 'firing', receiver: 'vigil', groupLabels: {}, commonLabels: {}, commonAnnotations: {}, externalURL: 'http://am.example.com',
    alerts: [{ status: 'firing', labels: { alertname: name, severity: 'critical', ...labels }, annotations: { summary }, startsAt: vigil.clock.now().toISOString(), fingerprint: name.toLowerCase() }],
  }, { 'user-agent': 'Alertmanager/0.27.0' });
}

/** The scene: checkout's recent deploy and an old one, billing's deploy, cards of both services. */
async function scene(org: Org) {
  const now = vigil.clock.now().getTime();
  await post(org, 'deployments', { service: 'checkout', version: 'v1.0.0-ancient', completed_at: new Date(now - 8 * 60 * MINUTE).toISOString() });
  await post(org, 'deployments', { service: 'checkout', environment: 'prod', version: 'v2.4.1', previous_version: 'v2.4.0', deployed_by: 'carol@example.com', description: 'Bump the connection pool', completed_at: new Date(now - 5 * MINUTE).toISOString() });
  await post(org, 'deployments', { service: 'billing', version: 'v9.9.9-billing' });
  await post(org, 'tickets', { title: 'Checkout latency regression', service: 'checkout', description: 'p99 up since v2.4.1' });
  await post(org, 'tickets', { title: 'Billing export slow', service: 'billing' });
}

async function investigationOf(org: Org, alertId: string) {
  // the worker polls every 0.5 s; a loaded machine may take a while
  for (let i = 0; i < 300; i++) {
    const got = await org.agent.call('get_investigation', { alert_id: alertId });
    if (!got.isError && ['completed', 'failed'].includes(got.body.data.status)) return got.body.data;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the investigation did not finish');
}

async function alertId(org: Org, name: string): Promise<string> {
  const got = await org.agent.call('get_alert', { fingerprint: `metric-dashboard:${name.toLowerCase()}` });
  return got.body.data.id;
}

t.test('an alert\'s investigation: the evidence in the prompt, redacted, the findings recorded and readable', async (t) => {
  ai.reset();
  const org = await organization({ anonymization_enabled: true });
  await scene(org);
  vigil.clock.advance(MINUTE);
  await fire(org, 'CheckoutErrors', { service: 'checkout', environment: 'prod' }, 'errors from 10.1.2.3 reported by alice@example.com on db.prod.internal');
  const id = await alertId(org, 'CheckoutErrors');
  const inv = await investigationOf(org, id);

  t.equal(ai.chats().length, 1, 'one agent: one call');
  const [request] = ai.chats();
  t.equal(request!.headers.authorization, 'Bearer sk-inv-key-000111');
  t.match(request!.body, { model: 'inv-model', response_format: { type: 'json_object' } });
  const [system, user] = request!.body.messages;
  t.match(system.content, /incident investigator/);
  const prompt: string = user.content;
  for (const expected of ['CheckoutErrors', 'v2.4.1', 'v2.4.0', 'Bump the connection pool', 'Checkout latency regression', 'p99 up since v2.4.1', 'trace_service_names', '"page"']) {
    t.ok(prompt.includes(expected), `the prompt holds ${expected}`);
  }
  for (const absent of ['v1.0.0-ancient', 'v9.9.9-billing', 'Billing export slow']) t.notOk(prompt.includes(absent), `not ${absent}: another service, or too long before`);
  for (const secret of ['10.1.2.3', 'alice@example.com', 'db.prod.internal', 'carol@example.com', 'sk-inv-key-000111']) t.notOk(request!.raw.includes(secret), `${secret} did not leave`);
  t.match(prompt, /errors from \[IP_1\] reported by \[EMAIL_\d\] on \[HOST_1\]/);
  t.notOk(request!.raw.includes('"main"'), 'the provider row\'s name is not in the request');

  t.match(inv, {
    alert_id: id, trigger: 'automatic', status: 'completed', failure_reason: null,
    findings: {
      summary: 'Errors began right after checkout v2.4.1 was deployed; 10.1.2.3 is the failing upstream.',
      likely_cause: 'the connection-pool change in v2.4.1', next_steps: ['roll back to v2.4.0', 'check db.prod.internal'], confidence: 'high',
      mode: 'single_agent', redacted: true, agents: [{ role: 'investigator', provider: 'main', model: 'inv-model' }],
    },
  });
  t.equal(inv.cost_usd, 0.004, '2000 × 1 + 400 × 5 USD per million tokens');
  t.ok(inv.started_at && inv.finished_at);

  const byId = await org.agent.call('get_investigation', { id: inv.id });
  t.same(byId.body.data, inv, 'by id, the same');
  const rest = await org.api.get(`${CONFIG}/investigations/${inv.id}`);
  t.equal(rest.status, 200);
  t.same(rest.body.data, inv, 'REST serves the same operation');
  const ledger = await vigil.running.services.db.em.getConnection().execute('select purpose, reference from ai_spend where organization_id = ?', [org.id]);
  t.same(ledger.map((r: any) => ({ ...r })), [{ purpose: 'investigation', reference: inv.id }]);

  t.equal(await runInvestigation(vigil.running.services, inv.id), 'not_claimed', 'a finished investigation is not run again');
  t.equal(ai.chats().length, 1);
});

t.test('multi_agent_investigation: a triager and a change analyst, then a summariser', async (t) => {
  ai.reset();
  const org = await organization({ multi_agent_investigation: true });
  await scene(org);
  await fire(org, 'CheckoutDown', { service: 'checkout' }, 'checkout returns 503 for alice@example.com');
  const inv = await investigationOf(org, await alertId(org, 'CheckoutDown'));
  const chats = ai.chats();
  t.equal(chats.length, 3);
  const [triager, analyst, summariser] = chats.map((c) => c.body.messages as { role: string; content: string }[]);
  t.match(triager![0]!.content, /triager/);
  t.match(analyst![0]!.content, /change analyst/);
  t.match(summariser![0]!.content, /lead of an incident investigation/);
  t.ok(analyst![1]!.content.includes('v2.4.1'), 'the change analyst sees the deployments');
  t.notOk(triager![1]!.content.includes('v2.4.1 ') || triager![1]!.content.includes('"version"'), 'the triager does not get the deployments');
  t.ok(triager![1]!.content.includes('Checkout latency regression'), 'the triager sees the cards');
  t.ok(summariser![1]!.content.includes('Triager\'s answer') && summariser![1]!.content.includes('Change analyst\'s answer'));
  t.ok(triager![1]!.content.includes('alice@example.com'), 'anonymization off: sent as written');
  t.match(inv, { status: 'completed', findings: { mode: 'multi_agent', redacted: false, confidence: 'high' } });
  t.same(inv.findings.agents.map((a: any) => a.role), ['triager', 'change_analyst', 'summariser']);
  t.equal(inv.cost_usd, 0.012, 'three calls');
});

t.test('no provider may answer (own_providers_only, none of its own): failed with the reason', async (t) => {
  ai.reset();
  const org = await organization({ own_providers_only: true }, false);
  await fire(org, 'Lonely', { service: 'checkout' }, 'nobody to ask');
  const inv = await investigationOf(org, await alertId(org, 'Lonely'));
  t.match(inv, { status: 'failed', findings: null, cost_usd: 0 });
  t.match(inv.failure_reason, /own_providers_only is on and the organization has no enabled AI provider/);
  t.equal(ai.chats().length, 0);

  const failing = await organization({ own_providers_only: true, retry_budget: 0 });
  ai.script({ status: 500 });
  await fire(failing, 'Failing', {}, 'the provider fails');
  const failed = await investigationOf(failing, await alertId(failing, 'Failing'));
  t.match(failed, { status: 'failed', failure_reason: /main: answered HTTP 500/ });
  t.notOk(failed.failure_reason.includes('sk-inv-key-000111'));
});

t.test('get_investigation refusals: unknown, another organization\'s, neither or both selectors', async (t) => {
  ai.reset();
  const org = await organization();
  await fire(org, 'Mine', {}, 'x');
  const alert = await alertId(org, 'Mine');
  const inv = await investigationOf(org, alert);
  const other = await organization();

  const unknown = await org.agent.call('get_investigation', { id: '00000000-0000-4000-8000-000000000000' });
  t.match(unknown, { isError: true, body: { error: 'not_found' } });
  t.match(await org.agent.call('get_investigation', { id: 'not-a-uuid' }), { isError: true, body: { error: 'not_found' } });
  t.match(await other.agent.call('get_investigation', { id: inv.id }), { isError: true, body: { error: 'not_found' } }, 'another organization\'s id: as unknown');
  t.match(await other.agent.call('get_investigation', { alert_id: alert }), { isError: true, body: { error: 'not_found' } });
  t.match(await org.agent.call('get_investigation', {}), { isError: true, body: { error: 'validation_failed', errors: [{ field: 'id' }] } });
  t.match(await org.agent.call('get_investigation', { id: inv.id, alert_id: alert }), { isError: true, body: { error: 'validation_failed' } });
  t.match(await org.agent.call('get_investigation', { id: inv.id, extra: 1 }), { isError: true, body: { error: 'validation_failed' } });
  t.equal((await other.api.get(`${CONFIG}/investigations/${inv.id}`)).status, 404);
});
