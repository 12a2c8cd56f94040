/**
 * Issue 19, server-side request forgery, through the public surfaces: an AI provider and a ticket integration
 * pointed at this machine are saved while the deployment allows loopback (the first service: the rows are what an
 * organization could have saved, however the save-time check judges them), then the same database is served by a
 * deployment that does not allow loopback (the default): an alert's investigation and run_ticket_import reach
 * nothing, the stored key and token go nowhere, and the caller reads the same error as for a closed port; the
 * operator's log names the rule. A cross-origin redirect from an allowed provider is not followed. The
 * allow-list opens 127.0.0.2 once 127.0.0.0/8 is listed, and never the metadata address (resolved through an
 * injected resolver: no packet leaves for it, and only loopback receives traffic here).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { createLogger } from '../../../engine/logger.ts';
import { client, CONFIG, scratchStorage, startVigil, type Client, type Vigil } from '../../helpers/harness.ts';
import { connectAgent, type Agent } from '../../helpers/mcp.ts';

const AI_KEY = 'sk-ssrf-provider-key-7f3a9c';
const TRACKER_TOKEN = 'lin_api_ssrf_tracker_token_51c2';
const FINDINGS = { summary: 's', likely_cause: 'c', evidence: ['e'], next_steps: ['n'], confidence: 'low' };

interface Recorded { method: string; path: string; authorization: string | undefined }

/** A local receiver that records every request: an OpenAI-compatible chat endpoint, Linear's GraphQL, and a redirect. */
async function recorder(host: string, redirectTo?: () => string) {
  const requests: Recorded[] = [];
  const server = createServer(async (req, res) => {
    for await (const _ of req) { /* drain */ }
    const path = req.url ?? '/';
    requests.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization });
    if (path.startsWith('/redirect/') && redirectTo) {
      res.writeHead(307, { location: `${redirectTo()}/v1/chat/completions` }).end();
      return;
    }
    const body = path.endsWith('/chat/completions')
      ? { choices: [{ message: { role: 'assistant', content: JSON.stringify(FINDINGS) } }], usage: { prompt_tokens: 10, completion_tokens: 5 } }
      : { data: { issues: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } } } };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

const other = await recorder('127.0.0.2');
const local = await recorder('127.0.0.1', () => other.url);
const closedPort = await recorder('127.0.0.1');
await closedPort.close();
const closed = closedPort.url;
t.teardown(async () => {
  await local.close();
  await other.close();
});

const storage = await scratchStorage();
const secretKey = randomBytes(32).toString('base64');
t.teardown(() => storage.drop());
/** names for the third deployment; nothing here reaches DNS */
const names: Record<string, string> = { 'metadata.test': '169.254.169.254', 'internal.test': '10.0.0.5' };
const resolve = async (hostname: string) => (names[hostname] ? [{ address: names[hostname]!, family: 4 }] : []);

interface Saved { id: string; apiKey: string; mcpKey: string; webhookToken: string }
const orgs: Record<string, Saved> = {};

/** One deployment on the shared database; its log lines are kept (and checked for the secrets). */
async function deployment(outbound: NonNullable<Parameters<typeof startVigil>[0]>['outbound']) {
  const lines: { msg: string; outbound?: string; host?: string; rule?: string }[] = [];
  const raw: string[] = [];
  const log = createLogger('debug', { write: (line: string) => void (raw.push(line), lines.push(JSON.parse(line))) });
  const vigil = await startVigil({ storage, secretKey, outbound, log });
  const agents: Agent[] = [];
  return {
    vigil, lines,
    api: (name: string): Client => client(vigil.url, orgs[name]!.apiKey),
    async agent(name: string) {
      const agent = await connectAgent(vigil.url, orgs[name]!.mcpKey);
      agents.push(agent);
      return agent;
    },
    async close(t: Test) {
      for (const a of agents) await a.close();
      await vigil.close();
      t.notOk(raw.some((line) => line.includes(AI_KEY) || line.includes(TRACKER_TOKEN)), 'no log line holds the key or the token');
    },
  };
}
type Deployment = Awaited<ReturnType<typeof deployment>>;

async function save(vigil: Vigil, name: string, setup: { ai?: string; tracker?: string }) {
  const org = await vigil.organization();
  const api = await org.key(['api:admin']);
  const mcp = await org.key(['mcp:write']);
  orgs[name] = { id: org.id, apiKey: api.token, mcpKey: mcp.token, webhookToken: org.webhookToken };
  if (setup.ai) {
    const made = await api.post(`${CONFIG}/ai_providers`, { name: 'main', provider: 'gateway', base_url: setup.ai, model: 'm', api_key: AI_KEY });
    if (made.status !== 201) throw new Error(JSON.stringify(made.body));
    await api.put(`${CONFIG}/ai_settings`, { own_providers_only: true });
  }
  if (setup.tracker) {
    const made = await api.post(`${CONFIG}/ticket_integrations`, { provider: 'issue_tracker', base_url: setup.tracker, account: 'ops@acme.example', api_token: TRACKER_TOKEN });
    if (made.status !== 201) throw new Error(JSON.stringify(made.body));
    await api.post(`${CONFIG}/ticket_import_rules`, { provider: 'issue_tracker', config: { project: 'ENG' } });
  }
}

/** A paging alert, which requests an investigation; answers the finished investigation. */
async function investigate(d: Deployment, name: string, alert: string) {
  const res = await fetch(`${d.vigil.url}/webhooks/metric-dashboard/${orgs[name]!.webhookToken}`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      version: '4', status: 'firing', receiver: 'vigil', groupLabels: {}, commonLabels: {}, commonAnnotations: {}, externalURL: 'http://am.example.com',
      alerts: [{ status: 'firing', labels: { alertname: alert, severity: 'critical' }, annotations: { summary: 'x' }, startsAt: d.vigil.clock.now().toISOString(), fingerprint: alert.toLowerCase() }],
    }),
  });
  if (res.status !== 200) throw new Error(`alert: ${res.status}`);
  const agent = await d.agent(name);
  const id = (await agent.call('get_alert', { fingerprint: `metric-dashboard:${alert.toLowerCase()}` })).body.data.id;
  for (let i = 0; i < 300; i++) {
    const got = await agent.call('get_investigation', { alert_id: id });
    if (!got.isError && ['completed', 'failed'].includes(got.body.data.status)) return got.body.data;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the investigation did not finish');
}

async function runImport(d: Deployment, name: string) {
  const run = await (await d.agent(name)).call('run_ticket_import', { provider: 'issue_tracker' });
  return run.body.data[0] as { error?: string; counts: { errors: number } };
}

const reasons: Record<string, string> = {};

t.test('loopback allowed: providers and trackers on this machine are reached; a closed port fails; a cross-origin redirect is not followed', async (t) => {
  const d = await deployment({ allowLoopback: true });
  await save(d.vigil, 'ai', { ai: `${local.url}/v1` });
  await save(d.vigil, 'ai-closed', { ai: `${closed}/v1` });
  await save(d.vigil, 'redirect', { ai: `${local.url}/redirect/v1` });
  await save(d.vigil, 'ai-second', { ai: `${other.url}/v1` });
  await save(d.vigil, 'ai-metadata', { ai: 'https://metadata.test/v1' });
  await save(d.vigil, 'tracker', { tracker: `${local.url}/linear` });
  await save(d.vigil, 'tracker-closed', { tracker: `${closed}/linear` });
  await save(d.vigil, 'tracker-internal', { tracker: 'https://internal.test/linear' });

  t.match(await investigate(d, 'ai', 'Reached'), { status: 'completed' });
  t.match(local.requests, [{ method: 'POST', path: '/v1/chat/completions', authorization: `Bearer ${AI_KEY}` }], 'the provider was asked, with its key');
  const failed = await investigate(d, 'ai-closed', 'Closed');
  t.match(failed, { status: 'failed', failure_reason: /main: could not be reached/ });
  reasons.ai = failed.failure_reason;

  const redirected = await investigate(d, 'redirect', 'Redirected');
  t.match(redirected, { status: 'failed', failure_reason: /main: answered with a redirect to another host, which is never followed/ });
  t.equal(other.requests.length, 0, 'the redirect target was never asked: the key did not leave for it');

  local.requests.length = 0;
  t.match(await runImport(d, 'tracker'), { counts: { errors: 0 } });
  t.match(local.requests, [{ path: '/linear/graphql', authorization: TRACKER_TOKEN }], 'the tracker was asked');
  const closedRun = await runImport(d, 'tracker-closed');
  t.equal(closedRun.error, 'Linear\'s GraphQL API could not be reached; check base_url.');
  reasons.tracker = closedRun.error!;
  await d.close(t);
});

t.test('loopback not allowed (the default): nothing reaches this machine; the caller reads what a closed port gives', async (t) => {
  const d = await deployment({ allowLoopback: false });
  local.requests.length = 0;
  const refused = await investigate(d, 'ai', 'Refused');
  t.match(refused, { status: 'failed' });
  t.equal(refused.failure_reason, reasons.ai, 'the same reason as for a closed port');
  t.ok(d.lines.some((l) => l.outbound === 'ai provider' && l.rule === 'loopback'), 'the operator\'s log says the loopback rule refused it');
  const run = await runImport(d, 'tracker');
  t.equal(run.error, reasons.tracker, 'the same error as for a closed port');
  t.ok(d.lines.some((l) => l.outbound === 'ticket import' && l.rule === 'loopback'));
  t.same(local.requests, [], 'no request reached the receiver: the key and the token went nowhere');
  t.match(await investigate(d, 'ai-second', 'Second'), { status: 'failed', failure_reason: /main: could not be reached/ });
  t.equal(other.requests.length, 0, '127.0.0.2 is loopback too');
  await d.close(t);
});

t.test('the allow-list: 127.0.0.0/8 listed opens 127.0.0.2 with loopback off; a listed metadata address stays refused', async (t) => {
  const d = await deployment({ allowLoopback: false, allowedNetworks: ['127.0.0.0/8', '169.254.0.0/16'], resolve });
  t.match(await investigate(d, 'ai-second', 'Listed'), { status: 'completed' });
  t.match(other.requests, [{ path: '/v1/chat/completions', authorization: `Bearer ${AI_KEY}` }], 'reached once its network is listed');
  t.match(await investigate(d, 'ai-metadata', 'Metadata'), { status: 'failed', failure_reason: /main: could not be reached/ });
  t.ok(d.lines.some((l) => l.outbound === 'ai provider' && l.host === 'metadata.test' && l.rule === 'cloud metadata'), 'refused as the metadata address, listed or not');
  const internal = await runImport(d, 'tracker-internal');
  t.equal(internal.error, reasons.tracker, 'a name resolving to an unlisted private address: the same error');
  t.ok(d.lines.some((l) => l.outbound === 'ticket import' && l.host === 'internal.test' && l.rule === 'private'));
  await d.close(t);
});
