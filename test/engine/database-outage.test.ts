/**
 * When the database goes away (issue 19, part 4): with PostgreSQL cut off under load (through a relay, never by
 * stopping the server other tests share), /healthz answers 503 and every request 503 `unavailable` with Retry-After
 * — REST, the operator API, the webhooks, and MCP tool calls as a tool error — never a 500; the outage is logged
 * once when it starts and once when it ends, with no stack per request; every create answered 2xx is there
 * afterwards and none answered 503 is (its transaction rolled back), and service resumes by itself once the
 * database is back. PGlite has no network to lose, so this runs on PostgreSQL only.
 */
import t from 'tap';
import { createLogger } from '../../engine/logger.ts';
import { client, CONFIG, scratchDatabase, startVigil, type Answer, type Client } from '../helpers/harness.ts';
import { waitFor } from '../helpers/jobs.ts';
import { pgRelay } from '../helpers/pg-relay.ts';

const scratch = await scratchDatabase();
const skip = scratch ? false : 'PGlite has no network connection to lose: run with DATABASE_URL (PostgreSQL)';

type Kind = 'rest' | 'mcp' | 'webhook';
interface Sent {
  kind: Kind;
  name: string;
  status: number;
  /** the MCP answer's error code, for a tool error */
  toolError?: string;
  retryAfter: string | null;
}

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

const mcpCall = (agent: Client, name: string, args: Record<string, unknown>) =>
  agent.post('/api/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }, MCP_HEADERS);

const alertBody = (name: string) =>
  ({ status: 'firing', alerts: [{ status: 'firing', fingerprint: name, labels: { alertname: name, service: 'checkout' }, startsAt: '2026-03-01T12:00:00Z' }] });

t.test('the database cut away under load and brought back', { skip }, async (t) => {
  const relay = await pgRelay(scratch!.url);
  const lines: { level: number; msg: string; err?: { stack?: string } }[] = [];
  const log = createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line)) });
  const vigil = await startVigil({ log, storage: { databaseUrl: relay.url, dataDir: 'memory://', drop: async () => {} } });
  let closed = false;
  t.teardown(async () => {
    if (!closed) await vigil.close();
    await relay.close();
    await scratch!.drop();
  });
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const agent = await org.key(['mcp:admin']);
  const hook = client(vigil.url);
  const webhook = (name: string) => hook.post(`/webhooks/metric-dashboard/${org.webhookToken}`, alertBody(name), { 'user-agent': 'Grafana/11.0' });

  // the load: a REST create, an MCP create and an alert, each in its own loop, every answer recorded
  const sent: Sent[] = [];
  let running = true;
  let n = 0;
  const record = (kind: Kind, name: string, answer: Answer) => {
    const toolError = kind === 'mcp' && answer.body?.result?.isError ? String(answer.body.result.structuredContent?.error) : undefined;
    sent.push({ kind, name, status: answer.status, toolError, retryAfter: answer.headers.get('retry-after') });
  };
  const loops = (['rest', 'mcp', 'webhook'] as const).map(async (kind) => {
    while (running) {
      const name = `${kind}-${n++}`;
      const answer = kind === 'rest' ? await api.post(`${CONFIG}/teams`, { name })
        : kind === 'mcp' ? await mcpCall(agent, 'create_team', { name })
          : await webhook(name);
      record(kind, name, answer);
    }
  });
  const count = (kind: Kind, ok: (s: Sent) => boolean) => sent.filter((s) => s.kind === kind && ok(s)).length;
  const succeeded = (s: Sent) => s.status < 300 && !s.toolError;
  const refused = (s: Sent) => s.status === 503 || s.toolError === 'unavailable';
  await waitFor(() => (['rest', 'mcp', 'webhook'] as const).every((k) => count(k, succeeded) >= 3), 'writes to succeed before the cut');

  await relay.cut();
  const before = sent.length;
  await waitFor(() => (['rest', 'mcp', 'webhook'] as const).every((k) => sent.slice(before).filter((s) => s.kind === k && refused(s)).length >= 3), 'the load to be refused');

  const health = await client(vigil.url).get('/healthz');
  t.equal(health.status, 503, '/healthz answers 503');
  const rest = await api.post(`${CONFIG}/teams`, { name: 'during the outage' });
  t.equal(rest.status, 503, 'a REST create answers 503');
  t.equal(rest.body.error, 'unavailable');
  t.equal(rest.headers.get('retry-after'), '5', 'with Retry-After');
  t.equal(rest.body.retry_after, 5);
  t.equal((await api.get(`${CONFIG}/teams`)).status, 503, 'a REST read too');
  const operator = await vigil.operator.get(`/api/admin/v1/organizations/${org.id}`);
  t.equal(operator.status, 503, 'the operator API too');
  const tool = await mcpCall(agent, 'create_team', { name: 'during the outage' });
  t.equal(tool.status, 200, 'an MCP tool call answers a tool result');
  t.equal(tool.body.result.isError, true, 'a tool error');
  t.match(tool.body.result.structuredContent, { error: 'unavailable', retry_after: 5 }, 'carrying unavailable');
  const list = await agent.post('/api/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, MCP_HEADERS);
  t.equal(list.status, 503, 'another MCP request is refused at the door, as a transport error');
  t.equal(list.headers.get('retry-after'), '5');
  const alert = await webhook('during the outage');
  t.equal(alert.status, 503, 'a webhook answers 503, so the sender retries');
  t.equal(alert.body.error, 'unavailable');
  t.equal(alert.headers.get('retry-after'), '5');

  await relay.restore();
  await waitFor(async () => (await client(vigil.url).get('/healthz')).status === 200, '/healthz to answer 200 again');
  t.equal((await api.post(`${CONFIG}/teams`, { name: 'after the outage' })).status, 201, 'creates work again');
  await waitFor(() => lines.some((l) => l.msg === 'database reachable again'), 'the recovery to be logged');
  const after = sent.length;
  await waitFor(() => (['rest', 'mcp', 'webhook'] as const).every((k) => sent.slice(after).filter((s) => s.kind === k && succeeded(s)).length >= 2), 'the load to succeed again');
  running = false;
  await Promise.all(loops);

  t.same(sent.filter((s) => s.status >= 500 && s.status !== 503).map((s) => `${s.kind} ${s.status}`), [], 'no 500 at all');
  t.same(sent.filter((s) => !succeeded(s) && !refused(s)).map((s) => `${s.kind} ${s.status}`), [], 'every answer succeeded or said unavailable');
  const unavailable = sent.filter((s) => s.status === 503);
  t.ok(unavailable.length > 0, 'the outage was answered 503');
  t.same(unavailable.filter((s) => s.retryAfter !== '5').map((s) => s.kind), [], 'every 503 carries Retry-After');
  t.equal(lines.filter((l) => l.msg === 'database unreachable').length, 1, 'the outage is logged once when it starts');
  t.equal(lines.filter((l) => l.msg === 'database reachable again').length, 1, 'and once when it ends');
  const noisy = lines.filter((l) => l.level >= 40 && l.msg !== 'database unreachable');
  t.same(noisy.map((l) => JSON.stringify(l).slice(0, 400)), [], 'no other warning or error line (no stack per request)');
  t.notOk(lines.some((l) => l.err?.stack), 'no stack logged');

  // what was answered is what was written: every 2xx there, nothing answered 503 there (its transaction rolled back)
  const teams = (await api.get(`${CONFIG}/teams?limit=200`)).body;
  const alerts = (await api.get(`${CONFIG}/alerts?limit=200`)).body;
  t.notOk(teams.truncated || alerts.truncated, 'one page holds every row');
  const present = new Set([...teams.data.map((r: { name: string }) => r.name), ...alerts.data.map((r: { fingerprint: string }) => r.fingerprint.replace(/^metric-dashboard:/, ''))]);
  t.same(sent.filter((s) => succeeded(s) && !present.has(s.name)).map((s) => s.name), [], 'every create answered 2xx is there');
  t.same(sent.filter((s) => refused(s) && present.has(s.name)).map((s) => s.name), [], 'no create answered 503 is there');
  const audit = (await api.get(`${CONFIG}/audit_log?limit=1000`)).body;
  const audited = new Set(audit.data.filter((e: { family: string; action: string }) => e.family === 'teams' && e.action === 'create').map((e: { row_id: string }) => e.row_id));
  t.same(teams.data.filter((r: { id: string }) => !audited.has(r.id)).map((r: { name: string }) => r.name), [], 'every team there has its audit entry (nothing half-written)');
  t.equal(audited.size, teams.data.length, 'and no audit entry without its team');

  // closing waits for every pooled connection to come back: one the outage left checked out would hang it
  await vigil.close();
  closed = true;
});
