/**
 * Vigil as deployed (migrations, system clock, every registered family), on the benchmark's scratch
 * database. Prints `{"url": …}` as one JSON line on stdout once it listens; SIGTERM closes it cleanly
 * (so `--cpu-prof` gets to write its profile).
 */
import { randomBytes } from 'node:crypto';
import { systemClock } from '../../engine/clock.ts';
import { createLogger } from '../../engine/logger.ts';
import { createRegistry } from '../../engine/registry.ts';
import { serve } from '../../engine/server.ts';
import { families } from '../../resources/index.ts';
import { WEBHOOK_SOURCES } from '../../webhooks/sources.ts';

const databaseUrl = process.env.BENCH_DATABASE_URL;
const operatorToken = process.env.BENCH_OPERATOR_TOKEN;
if (!databaseUrl || !operatorToken) throw new Error('BENCH_DATABASE_URL and BENCH_OPERATOR_TOKEN are required');

const running = await serve({
  registry: createRegistry(families),
  config: { trustPrincipalId: 'bench-principal', webhookSources: WEBHOOK_SOURCES },
  clock: systemClock,
  log: createLogger('silent'),
  databaseUrl,
  port: 0,
  operatorToken,
  secretKey: randomBytes(32).toString('base64'),
  bootstrap: false,
});
process.stdout.write(`${JSON.stringify({ url: running.url, pid: process.pid })}\n`);

process.once('SIGTERM', () => {
  void running.close().finally(() => process.exit(0));
});
