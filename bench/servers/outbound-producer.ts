/**
 * The outbound benchmark's producer: Vigil with workers off (bin/serve.ts's options) on the scratch database
 * creates an organization with BENCH_DESTINATIONS webhook configs (signed) pointing at the bench's receiver,
 * and enqueues BENCH_DELIVERIES deliveries of an alert.fired event spread evenly over them, exactly as the alert
 * pipeline does (OutboundBatch: a delivery row and a job, 500 per transaction). Prints `{"organization", "count"}`
 * and exits; the worker (outbound-worker.ts) then sends them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readSettings } from '../../bin/env.ts';
import { serviceOptions } from '../../bin/serve.ts';
import { createLogger } from '../../engine/logger.ts';
import { inTransaction } from '../../engine/operations/context.ts';
import { serve } from '../../engine/server.ts';
import { alertEvent } from '../../outbound/events.ts';
import { OutboundBatch } from '../../outbound/publish.ts';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const [databaseUrl, operatorToken, secretKey, receiverUrl] = ['BENCH_DATABASE_URL', 'BENCH_OPERATOR_TOKEN', 'BENCH_SECRET_KEY', 'BENCH_RECEIVER_URL'].map(env) as [string, string, string, string];
const count = Number(process.env.BENCH_DELIVERIES ?? 3000);
const destinations = Number(process.env.BENCH_DESTINATIONS ?? 1);
const label = process.env.BENCH_LABEL ?? 'vigil';
const CHUNK = 500;

const options = serviceOptions(readSettings({
  DATABASE_URL: databaseUrl, VIGIL_ADMIN_TOKEN: operatorToken, VIGIL_SECRET_KEY: secretKey, VIGIL_BOOTSTRAP: 'off', VIGIL_WORKERS: 'off',
  VIGIL_OUTBOUND_ALLOW_LOOPBACK: 'on', PORT: '0',
  // the per-key API limit is off: BENCH_DESTINATIONS configs are made with one key, possibly more than 600 a minute
  VIGIL_API_RATE_LIMIT: '0',
}));
const running = await serve({ ...options, log: createLogger(process.env.LOG_LEVEL ?? 'error') });
const call = async (path: string, token: string, body: unknown) => {
  const res = await fetch(`${running.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await res.json();
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
};
const org = await call('/api/admin/v1/organizations', operatorToken, { name: `bench ${label}`, plan: 'business' });
const key = (await call(`/api/admin/v1/organizations/${org.id}/api_keys`, operatorToken, { name: 'bench', scopes: ['api:admin'] })).key as string;
const configs: string[] = [];
for (let i = 0; i < destinations; i++) {
  const made = await call('/api/v1/config/outbound_configs', key, {
    name: `receiver ${i}`, kind: 'webhook', url: `${receiverUrl}/${label}/${i}`, signing_secret: `whsec_${randomBytes(24).toString('base64')}`, timeout_ms: 5000,
  });
  configs.push(made.data.id);
}

const services = running.services;
const now = services.clock.now();
const alert = (n: number) => ({
  id: randomUUID(), fingerprint: `metric-dashboard:bench-${n}`, source: 'metric-dashboard', title: `Bench alert ${n}`, service: 'bench', severity: 'critical',
  status: 'firing', summary: 'a benchmark delivery', labels: { alertname: `Bench alert ${n}` }, url: null, started_at: now.toISOString(),
});
for (let start = 0; start < count; start += CHUNK) {
  await inTransaction(services, async (store) => {
    for (let d = 0; d < configs.length; d++) {
      const rules = { rules: [{ id: 'bench', events: ['alert.fired'], config_id: configs[d]!, config_kind: 'webhook', filters: {} }], outboundKinds: new Set(['alert.fired']) };
      const batch = new OutboundBatch(org.id, rules);
      for (let n = start; n < Math.min(start + CHUNK, count); n++) if (n % configs.length === d) batch.add(alertEvent('alert.fired', alert(n), now, { teams: [], storm: null }));
      await batch.enqueue(services, store, now);
    }
  });
}
process.stdout.write(`${JSON.stringify({ url: running.url, organization: org.id, count })}\n`);
await running.close();
process.exit(0);
