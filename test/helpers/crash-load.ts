/**
 * Crash safety of the real server process (`vigil serve`, as `npm start` runs it), on PostgreSQL when DATABASE_URL
 * is set and on the embedded database in a data directory otherwise: a mixed write load (configuration creates, alert
 * deliveries, card creations with keys), a signal in the middle of it, a restart on the same storage, and what each
 * request's fate says must be stored. One file per signal (crash-safety-*.test.ts): each is a minute's work on a busy
 * machine.
 */
import type { Test } from 'tap';
import { client, scratchStorage, type Storage } from './harness.ts';
import { waitFor } from './jobs.ts';
import { serveProcess } from './serve-process.ts';

const OPERATOR = 'crash-test-operator-token-of-32-characters';

const start = (storage: Storage) => serveProcess({
  VIGIL_ADMIN_TOKEN: OPERATOR, VIGIL_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'), VIGIL_WEBHOOK_RATE_LIMIT: '100000', VIGIL_API_RATE_LIMIT: '100000',
  VIGIL_WORKERS: 'off', DATABASE_URL: storage.databaseUrl ?? '', DATA_DIR: storage.dataDir,
});

interface Sent {
  kind: 'team' | 'alert' | 'card';
  key: string;
  /** the status answered, or null when the connection ended without an answer */
  status: number | null;
  /** why there was no answer: ECONNREFUSED (never accepted) or something else (cut off) */
  error?: string;
}

/** Sends the mixed write load from `workers` concurrent senders until `stop()`; records every request's fate. */
function load(url: string, apiKey: string, token: string, workers = 12) {
  const sent: Sent[] = [];
  let running = true;
  let n = 0;
  const one = async (): Promise<void> => {
    const i = n++;
    const kind = (['team', 'alert', 'card'] as const)[i % 3]!;
    const key = `${kind}-${i}`;
    const request =
      kind === 'team'
        ? fetch(`${url}/api/v1/config/teams`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: key }) })
        : kind === 'alert'
          ? fetch(`${url}/webhooks/metric-dashboard/${token}`, {
            method: 'POST', headers: { 'user-agent': 'Grafana/11.0', 'content-type': 'application/json' },
            body: JSON.stringify({ status: 'firing', alerts: [{ status: 'firing', fingerprint: key, labels: { alertname: key, service: 'checkout' }, startsAt: '2026-03-01T12:00:00Z' }] }),
          })
          : fetch(`${url}/webhooks/tickets/${token}`, { method: 'POST', headers: { 'user-agent': 'crash-test/1', 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify({ title: key }) });
    const record: Sent = { kind, key, status: null };
    sent.push(record);
    try {
      const res = await request;
      await res.text();
      record.status = res.status;
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      record.error = cause?.code ?? (error as Error).name;
    }
  };
  const senders = Array.from({ length: workers }, async () => {
    while (running) await one();
  });
  return {
    sent,
    async stop() {
      running = false;
      await Promise.all(senders);
    },
  };
}

/** How many rows each key has after the restart. */
async function counts(url: string, apiKey: string, agentKey: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const add = (key: string) => found.set(key, (found.get(key) ?? 0) + 1);
  const api = client(url, apiKey);
  const teams = (await api.get('/api/v1/config/teams')).body;
  const alerts = (await api.get('/api/v1/config/alerts?limit=200')).body;
  if (teams.truncated || alerts.truncated) throw new Error('more rows than one page: lower the load');
  for (const team of teams.data) add(String(team.name));
  for (const alert of alerts.data) add(String(alert.fingerprint).replace(/^metric-dashboard:/, ""));
  const mcp = client(url, agentKey);
  const cards = await mcp.post('/api/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_cards', arguments: { limit: 200 } } }, { accept: 'application/json, text/event-stream' });
  if (cards.body.result.structuredContent.truncated) throw new Error('more cards than one page: lower the load');
  for (const card of cards.body.result.structuredContent.data) add(String(card.title));
  return found;
}

async function organization(url: string) {
  const operator = client(url, OPERATOR);
  const org = await operator.post('/api/admin/v1/organizations', { name: 'Crash Test', plan: 'business' });
  const apiKey = (await operator.post(`/api/admin/v1/organizations/${org.body.id}/api_keys`, { name: 'load', scopes: ['api:admin'] })).body.key;
  const agentKey = (await operator.post(`/api/admin/v1/organizations/${org.body.id}/api_keys`, { name: 'read', scopes: ['mcp:read'] })).body.key;
  return { apiKey: String(apiKey), agentKey: String(agentKey), token: String(org.body.webhook_token) };
}

export function check(t: Test, sent: Sent[], found: Map<string, number>) {
  const answered = sent.filter((s) => s.status !== null && s.status >= 200 && s.status < 300);
  const unanswered = sent.filter((s) => s.status === null);
  t.ok(answered.length >= 30, `${answered.length} writes answered 2xx before the stop (${unanswered.length} without an answer)`);
  t.same(sent.filter((s) => s.status !== null && s.status >= 300), [], 'no refusals under load');
  t.same(answered.filter((s) => found.get(s.key) !== 1).map((s) => `${s.key}: ${found.get(s.key) ?? 0}`), [], 'every 2xx is there exactly once');
  t.same(unanswered.filter((s) => (found.get(s.key) ?? 0) > 1).map((s) => s.key), [], 'no unanswered request is there twice');
}

/**
 * A load on a fresh server, the signal once 150 writes were answered, a restart on the same storage: what the load
 * sent, the first process's exit code, and how many rows each key has now.
 */
export async function interrupted(t: Test, signal: NodeJS.Signals) {
  const storage = await scratchStorage();
  t.teardown(() => storage.drop());
  const first = await start(storage);
  const { apiKey, agentKey, token } = await organization(first.url);
  const running = load(first.url, apiKey, token);
  // polled on a timer: a setImmediate spin would take the CPU from the server it waits for
  await waitFor(() => running.sent.filter((s) => s.status !== null).length >= 150, '150 answered writes', 90_000);
  const code = await first.stop(signal);
  await running.stop();
  const second = await start(storage);
  t.teardown(() => second.stop());
  return { sent: running.sent, code, found: await counts(second.url, apiKey, agentKey) };
}
