/** The composition root of the server: hands the families, the modules, the settings and the clock to the engine. */
import { createRegistry } from '../engine/registry.ts';
import { ListenRefused, serve } from '../engine/server.ts';
import { systemClock } from '../engine/clock.ts';
import { createLogger } from '../engine/logger.ts';
import { DataDirInUse } from '../engine/persistence/data-dir-lock.ts';
import { SecretKeyRefused } from '../engine/bootstrap.ts';
import { families } from '../resources/index.ts';
import { WEBHOOK_SOURCES } from '../webhooks/sources/index.ts';
import type { SourceOptions } from '../webhooks/sources/source.ts';
import { credentialLimiter } from '../engine/rate-limit/store.ts';
import { OPERATOR_FAILURE_LIMIT } from '../engine/http/operator-api.ts';
import { checkWidening, resolveCheckOptions } from '../domain/checks/options.ts';
import { addressPolicy } from '../outbound/net/addresses.ts';
import { targetRefusal } from '../outbound/net/url-rules.ts';
import { readSettings, SettingError, type Settings } from './env.ts';
import { modules } from './modules.ts';
import { MIGRATIONS } from '../migrations/index.ts';
import { recordFirstStart } from './first-start.ts';
import { VERSION } from './version.ts';

/**
 * `serve`'s options for the deployment `settings` describe (read from the environment unless given). The tests'
 * harness starts its services from these too; `sources` is what a test replaces in the webhook sources (the SNS client).
 */
export function serviceOptions(settings: Settings = readSettings(), sources: SourceOptions = {}) {
  const { rateLimitStore, redisUrl, webhookRateLimit } = settings.rateLimits;
  const store = { databaseUrl: settings.databaseUrl, rateLimitStore, redisUrl };
  const { outbound } = settings;
  return {
    registry: createRegistry(families),
    migrations: MIGRATIONS,
    modules: modules(),
    config: {
      publicUrl: settings.publicUrl,
      trustPrincipalId: settings.trustPrincipalId,
      webhookSources: WEBHOOK_SOURCES,
      ai: settings.ai,
      aiPrices: settings.aiPrices,
      calendarRefreshSeconds: settings.calendarRefreshSeconds,
      codeHost: settings.codeHost,
      outbound,
      chat: settings.chat,
      email: settings.email,
      oidc: settings.oidc,
      pushover: settings.pushover,
      twilio: settings.twilio,
      webhooks: { ...sources, ...store, rateLimit: webhookRateLimit },
      checks: settings.checks,
      notify: settings.notify,
    },
    // refuse early: targets saved are judged by the same policies the requests are made under
    targets: targetRefusal({ outbound: addressPolicy(outbound.allowedNetworks, outbound.allowLoopback), check: checkWidening(resolveCheckOptions(settings.checks)) }),
    clock: systemClock,
    databaseUrl: settings.databaseUrl,
    dataDir: settings.dataDir,
    host: settings.host,
    port: settings.port,
    operatorToken: settings.operatorToken,
    secretKey: settings.secretKey,
    bootstrap: settings.bootstrap,
    authCacheMs: settings.authCacheMs,
    // off for a connection pooler in transaction mode that does not follow protocol-level prepared statements
    preparedStatements: settings.preparedStatements,
    // VIGIL_WORKERS=off: this instance serves HTTP and enqueues, another one works the jobs
    runWorkers: settings.runWorkers,
    trustedProxies: settings.trustedProxies,
    rateLimit: settings.apiRateLimit ? credentialLimiter(settings.apiRateLimit, store) : undefined,
    operatorFailures: credentialLimiter(OPERATOR_FAILURE_LIMIT, store, 'vigil_operator_failures'),
    version: VERSION,
  };
}

/** A refusal meant for the operator: the sentence alone on stderr, no stack, exit 1. */
function refuse(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

export async function serveCommand(): Promise<void> {
  let settings: Settings;
  try {
    settings = readSettings();
  } catch (error) {
    if (!(error instanceof SettingError)) throw error;
    refuse(error.message);
  }
  const log = createLogger(settings.logLevel);
  let running: Awaited<ReturnType<typeof serve>>;
  try {
    running = await serve({ ...serviceOptions(settings), log });
  } catch (error) {
    if (!(error instanceof DataDirInUse) && !(error instanceof ListenRefused) && !(error instanceof SecretKeyRefused)) throw error;
    refuse(error.message);
  }
  const publicUrl = running.services.config.publicUrl;
  // one structured line for the log collector: never a secret (the database URL may hold a password: only its kind)
  log.info({
    event: 'started', version: VERSION, storage: settings.databaseUrl ? 'postgresql' : 'pglite',
    ...(settings.databaseUrl ? {} : { data_dir: settings.dataDir }), listen: new URL(running.url).host, public_url: publicUrl,
  }, 'vigil started');
  // stdout is the JSON log stream; what a person reads goes to stderr (bin/first-start.ts)
  const told = recordFirstStart(running, settings.dataDir, process.stderr.isTTY === true);
  process.stderr.write(`${[`Vigil is serving at ${publicUrl}`, ...told].join('\n')}\n`);
  const stop = async (signal: NodeJS.Signals) => {
    await running.close();
    log.info({ event: 'stopped', version: VERSION, signal }, 'vigil stopped');
    log.flush();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
