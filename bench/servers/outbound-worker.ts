/**
 * The outbound benchmark's worker: Vigil (bin/serve.ts's options) on the scratch database with its workers on and
 * loopback allowed, sending what the producer queued. Prints `{"url", "pid"}`; SIGTERM closes it.
 */
import { readSettings } from '../../bin/env.ts';
import { serviceOptions } from '../../bin/serve.ts';
import { createLogger } from '../../engine/logger.ts';
import { serve } from '../../engine/server.ts';

const databaseUrl = process.env.BENCH_DATABASE_URL;
const operatorToken = process.env.BENCH_OPERATOR_TOKEN;
const secretKey = process.env.BENCH_SECRET_KEY;
if (!databaseUrl || !operatorToken || !secretKey) throw new Error('BENCH_DATABASE_URL, BENCH_OPERATOR_TOKEN and BENCH_SECRET_KEY are required');

const options = serviceOptions(readSettings({
  DATABASE_URL: databaseUrl, VIGIL_ADMIN_TOKEN: operatorToken, VIGIL_SECRET_KEY: secretKey, VIGIL_BOOTSTRAP: 'off', VIGIL_OUTBOUND_ALLOW_LOOPBACK: 'on', PORT: '0',
  VIGIL_DATABASE_PREPARED_STATEMENTS: process.env.VIGIL_DATABASE_PREPARED_STATEMENTS,
}));
const running = await serve({ ...options, jobPollSeconds: 0.5, log: createLogger(process.env.LOG_LEVEL ?? 'error') });
process.stdout.write(`${JSON.stringify({ url: running.url, pid: process.pid })}\n`);
process.once('SIGTERM', () => void running.close().finally(() => process.exit(0)));
