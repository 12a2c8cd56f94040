/**
 * Vigil with its webhooks, started with bin/serve.ts's own options (`serviceOptions`) on the scratch database,
 * the webhook rate limit (600 a minute per organization and source by default) raised through
 * VIGIL_WEBHOOK_RATE_LIMIT (100,000,000 a minute unless the environment sets it) and the per-key API limit turned off
 * (VIGIL_API_RATE_LIMIT=0), so a benchmark is not answered 429;
 * VIGIL_WEBHOOK_RATE_LIMIT_STORE passes through (memory by default, as one instance is deployed). Prints
 * `{"url", "pid", "memoryUrl"}` as one JSON line on stdout; SIGTERM closes it cleanly (so `--cpu-prof` writes its profile).
 * `memoryUrl` (a second listener, apart from the service) answers `process.memoryUsage()`, after a full garbage
 * collection when asked with `?gc=1` and the process runs with --expose-gc: the soak's heap figures.
 *
 * BENCH_SQL_STATS=<file prefix>: every pg query is counted and timed (the time until its answer, per statement
 * text with literals replaced by `?`); each SIGUSR2 writes the counts since the previous one to
 * `<prefix>-<n>.json` and starts again. A diagnostic: the wrapping costs a little, so such runs are not the figures.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import pg from 'pg';
import { readSettings } from '../../bin/env.ts';
import { serviceOptions } from '../../bin/serve.ts';
import { createLogger } from '../../engine/logger.ts';
import { serve } from '../../engine/server.ts';

const databaseUrl = process.env.BENCH_DATABASE_URL;
const operatorToken = process.env.BENCH_OPERATOR_TOKEN;
if (!databaseUrl || !operatorToken) throw new Error('BENCH_DATABASE_URL and BENCH_OPERATOR_TOKEN are required');

const sqlStats = process.env.BENCH_SQL_STATS;
if (sqlStats) countQueries(sqlStats);

const options = serviceOptions(readSettings({
  DATABASE_URL: databaseUrl,
  VIGIL_ADMIN_TOKEN: operatorToken,
  VIGIL_SECRET_KEY: randomBytes(32).toString('base64'),
  VIGIL_BOOTSTRAP: 'off',
  VIGIL_WEBHOOK_RATE_LIMIT: process.env.VIGIL_WEBHOOK_RATE_LIMIT ?? '100000000',
  VIGIL_WEBHOOK_RATE_LIMIT_STORE: process.env.VIGIL_WEBHOOK_RATE_LIMIT_STORE,
  VIGIL_DATABASE_PREPARED_STATEMENTS: process.env.VIGIL_DATABASE_PREPARED_STATEMENTS,
  // the per-key API limit is off: a benchmark's one key sends far more than 600 requests a minute
  VIGIL_API_RATE_LIMIT: '0',
  PORT: '0',
}));
const running = await serve({ ...options, log: createLogger(process.env.LOG_LEVEL ?? 'error') });
const memory = http.createServer((req, res) => {
  if (req.url?.includes('gc=1')) (globalThis as { gc?: () => void }).gc?.();
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(process.memoryUsage()));
});
await new Promise<void>((resolve) => memory.listen(0, '127.0.0.1', resolve));
const memoryUrl = `http://127.0.0.1:${(memory.address() as { port: number }).port}/`;
process.stdout.write(`${JSON.stringify({ url: running.url, pid: process.pid, memoryUrl })}\n`);

process.once('SIGTERM', () => {
  memory.close();
  void running.close().finally(() => process.exit(0));
});

function countQueries(prefix: string): void {
  let stats = new Map<string, { calls: number; ms: number }>();
  let dumps = 0;
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    // literals (if any are inlined) become `?` so one statement is counted as one
    const text = (typeof first === 'string' ? first : (first?.text ?? '?'))
      .replace(/'(?:[^']|'')*'/g, '?').replace(/\b\d+(?:\.\d+)?\b/g, '?').replace(/\s+/g, ' ').trim().slice(0, 200);
    const started = performance.now();
    const count = () => {
      const s = stats.get(text) ?? { calls: 0, ms: 0 };
      s.calls += 1;
      s.ms += performance.now() - started;
      stats.set(text, s);
    };
    // pg.Pool#query (the rate limiter's) passes a callback; MikroORM awaits the promise
    const callback = args.at(-1);
    if (typeof callback === 'function') {
      args[args.length - 1] = (...results: unknown[]) => (count(), callback(...results));
      return query.apply(this, args);
    }
    const answer = query.apply(this, args);
    if (answer && typeof (answer as Promise<unknown>).then === 'function') (answer as Promise<unknown>).then(count, count);
    else count();
    return answer;
  } as typeof pg.Client.prototype.query;
  process.on('SIGUSR2', () => {
    const rows = [...stats].map(([sql, s]) => ({ sql, ...s })).sort((a, b) => b.ms - a.ms);
    writeFileSync(`${prefix}-${++dumps}.json`, `${JSON.stringify(rows, null, 2)}\n`);
    stats = new Map();
  });
}
