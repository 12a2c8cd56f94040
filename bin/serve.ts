/** The composition root of the server: hands the families, the webhook sources and the clock to the engine. */
import { createRegistry } from '../engine/registry.ts';
import { serve } from '../engine/server.ts';
import { systemClock } from '../engine/clock.ts';
import { envFlag, envNumber } from '../engine/config.ts';
import { createLogger } from '../engine/logger.ts';
import { DataDirInUse } from '../engine/persistence/data-dir-lock.ts';
import { openApiRoutes } from '../engine/http/openapi-routes.ts';
import { statusPageRoutes } from '../web/status-page/routes.ts';
import { deployGateRoutes } from '../domain/slo/routes.ts';
import { domainOperations, families } from '../resources/index.ts';
import { WEBHOOK_SOURCES } from '../webhooks/sources/index.ts';
import { WEBHOOK_ENTITIES } from '../webhooks/entities.ts';
import { WEBHOOK_AUDIT_LISTENERS, WEBHOOK_JOBS, WEBHOOK_OPERATIONS, webhookRouters, webhookStartup, type WebhookOptions } from '../webhooks/index.ts';
import { exportOperation } from '../export/export.ts';
import { DEFAULT_API_RATE_LIMIT, type RateLimit } from '../webhooks/limits.ts';
import { credentialLimiter } from '../webhooks/rate-limit.ts';
import { parsePrices } from '../domain/ai/prices.ts';
import { codeHostFromEnv } from '../outbound/net/code-host-app.ts';
import { checkOptionsFromEnv, checkWidening, resolveCheckOptions } from '../domain/checks/options.ts';
import { addressPolicy, networksFromSetting } from '../outbound/net/addresses.ts';
import { targetRefusal } from '../outbound/net/url-rules.ts';

/** `VIGIL_AI_BASE_URL`, `VIGIL_AI_API_KEY`, `VIGIL_AI_MODEL`: the deployment's own (platform) AI provider, when a base URL is set. */
function platformAi(env: NodeJS.ProcessEnv): { baseUrl: string; apiKey?: string; model?: string } | undefined {
  const baseUrl = env.VIGIL_AI_BASE_URL?.trim();
  if (!baseUrl) return undefined;
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) throw new Error('VIGIL_AI_BASE_URL must be an http(s) URL, such as https://api.example.com/v1');
  return { baseUrl, apiKey: env.VIGIL_AI_API_KEY || undefined, model: env.VIGIL_AI_MODEL || undefined };
}

/** `VIGIL_WEBHOOK_RATE_LIMIT`: requests per minute per organization and source (default 600). */
function webhookRateLimit(value: string | undefined): RateLimit | undefined {
  if (value === undefined || value === '') return undefined;
  const points = Number(value);
  if (!Number.isInteger(points) || points < 1) throw new Error(`VIGIL_WEBHOOK_RATE_LIMIT must be a whole number of requests per minute, at least 1 (got ${value})`);
  return { points, durationSeconds: 60 };
}

/** `VIGIL_API_RATE_LIMIT`: requests per minute per API key or personal token at REST and MCP (default 600; 0 turns it off). */
function apiRateLimit(value: string | undefined): RateLimit | null {
  if (value === undefined || value.trim() === '') return DEFAULT_API_RATE_LIMIT;
  const points = Number(value);
  if (!Number.isInteger(points) || points < 0) throw new Error(`VIGIL_API_RATE_LIMIT must be a whole number of requests per minute, or 0 to turn the limit off (got ${value})`);
  return points === 0 ? null : { points, durationSeconds: 60 };
}

/**
 * `VIGIL_WEBHOOK_RATE_LIMIT_STORE` (despite its name, also where `VIGIL_API_RATE_LIMIT` counts): memory (default),
 * postgres (shared by the instances of one database) or redis (shared by the instances pointed at `VIGIL_REDIS_URL`). The URL may hold a password: no message repeats it.
 */
function rateLimitStore(env: NodeJS.ProcessEnv): Pick<WebhookOptions, 'rateLimitStore' | 'redisUrl'> {
  const value = env.VIGIL_WEBHOOK_RATE_LIMIT_STORE;
  const redisUrl = env.VIGIL_REDIS_URL?.trim() || undefined;
  if (redisUrl && !isRedisUrl(redisUrl)) throw new Error('VIGIL_REDIS_URL must be a redis:// or rediss:// URL, such as redis://:password@redis.example.com:6379/0');
  if (value === undefined || value === '') {
    // a Redis URL alone would silently leave the counts per instance: say which store is meant
    if (redisUrl) throw new Error('VIGIL_REDIS_URL is set but VIGIL_WEBHOOK_RATE_LIMIT_STORE is not: set it to redis to share rate limits there');
    return { rateLimitStore: 'memory' };
  }
  if (value === 'memory') return { rateLimitStore: 'memory' };
  if (value === 'postgres') {
    if (!env.DATABASE_URL) throw new Error('VIGIL_WEBHOOK_RATE_LIMIT_STORE=postgres needs DATABASE_URL (the embedded database serves one instance)');
    return { rateLimitStore: 'postgres' };
  }
  if (value === 'redis') {
    if (!redisUrl) throw new Error('VIGIL_WEBHOOK_RATE_LIMIT_STORE=redis needs VIGIL_REDIS_URL (redis:// or rediss://)');
    return { rateLimitStore: 'redis', redisUrl };
  }
  throw new Error(`VIGIL_WEBHOOK_RATE_LIMIT_STORE must be memory, postgres or redis (got ${value})`);
}

/** redis://[user:password@]host[:port][/db] or rediss:// (TLS) */
function isRedisUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return /^rediss?:$/.test(url.protocol) && url.hostname !== '' && /^(\/\d*)?$/.test(url.pathname);
}

/** `VIGIL_CHAT_API_URL`: the chat Web API's base URL (default https://slack.com/api). */
function chatApi(value: string | undefined): { apiUrl: string } {
  const apiUrl = value?.trim() || 'https://slack.com/api';
  if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol)) throw new Error('VIGIL_CHAT_API_URL must be an http(s) URL, such as https://slack.com/api');
  return { apiUrl: apiUrl.replace(/\/+$/, '') };
}

/** `VIGIL_SMTP_URL` and `VIGIL_EMAIL_FROM`: outgoing mail; unset, email notifications are not sent. */
function emailFromEnv(env: NodeJS.ProcessEnv): { smtpUrl: string; from: string } | undefined {
  const smtpUrl = env.VIGIL_SMTP_URL?.trim();
  if (!smtpUrl) return undefined;
  if (!URL.canParse(smtpUrl) || !/^smtps?:$/.test(new URL(smtpUrl).protocol)) throw new Error('VIGIL_SMTP_URL must be an smtp:// or smtps:// URL, such as smtp://mail.example.com:587');
  return { smtpUrl, from: env.VIGIL_EMAIL_FROM?.trim() || 'Vigil <vigil@localhost>' };
}

/**
 * `VIGIL_OUTBOUND_ALLOW_LOOPBACK` (on lets outbound requests reach 127.0.0.0/8 and ::1; off, the default, refuses
 * them) and `VIGIL_OUTBOUND_ALLOWED_NETWORKS` (comma-separated CIDRs made reachable; empty by default). A malformed
 * network stops the start, naming the setting.
 */
function outboundFromEnv(env: NodeJS.ProcessEnv): { allowLoopback: boolean; allowedNetworks: string[] } {
  const allowLoopback = envFlag(env.VIGIL_OUTBOUND_ALLOW_LOOPBACK, 'VIGIL_OUTBOUND_ALLOW_LOOPBACK') ?? false;
  const allowedNetworks = networksFromSetting(env.VIGIL_OUTBOUND_ALLOWED_NETWORKS);
  addressPolicy(allowedNetworks, allowLoopback, 'VIGIL_OUTBOUND_ALLOWED_NETWORKS');
  return { allowLoopback, allowedNetworks };
}

export function serviceOptions(env: NodeJS.ProcessEnv = process.env) {
  const webhooks: WebhookOptions = {
    databaseUrl: env.DATABASE_URL || undefined,
    rateLimit: webhookRateLimit(env.VIGIL_WEBHOOK_RATE_LIMIT),
    ...rateLimitStore(env),
    checks: checkOptionsFromEnv(env),
    notify: { tickSeconds: envNumber(env.VIGIL_NOTIFY_TICK_SECONDS, 'VIGIL_NOTIFY_TICK_SECONDS', 0) },
  };
  const apiLimit = apiRateLimit(env.VIGIL_API_RATE_LIMIT);
  const outbound = outboundFromEnv(env);
  const checks = resolveCheckOptions(webhooks.checks);
  return {
    registry: createRegistry(families),
    entities: WEBHOOK_ENTITIES,
    operations: [...domainOperations, exportOperation, ...WEBHOOK_OPERATIONS],
    config: {
      publicUrl: env.PUBLIC_URL,
      trustPrincipalId: env.VIGIL_TRUST_PRINCIPAL_ID ?? 'vigil-platform',
      webhookSources: WEBHOOK_SOURCES,
      ai: platformAi(env),
      aiPrices: parsePrices(env.VIGIL_AI_PRICES),
      codeHost: codeHostFromEnv(env),
      outbound,
      chat: chatApi(env.VIGIL_CHAT_API_URL),
      email: emailFromEnv(env),
    },
    // refuse early: targets saved are judged by the same policies the requests are made under
    targets: targetRefusal({ outbound: addressPolicy(outbound.allowedNetworks, outbound.allowLoopback), check: checkWidening(checks) }),
    clock: systemClock,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR ?? './data',
    host: env.HOST ?? '127.0.0.1',
    port: Number(env.PORT ?? 8080),
    operatorToken: env.VIGIL_ADMIN_TOKEN || undefined,
    secretKey: env.VIGIL_SECRET_KEY || undefined,
    bootstrap: env.VIGIL_BOOTSTRAP !== 'off',
    authCacheMs: envNumber(env.VIGIL_AUTH_CACHE_MS, 'VIGIL_AUTH_CACHE_MS', 0),
    // off for a connection pooler in transaction mode that does not follow protocol-level prepared statements
    preparedStatements: envFlag(env.VIGIL_DATABASE_PREPARED_STATEMENTS, 'VIGIL_DATABASE_PREPARED_STATEMENTS') ?? true,
    routers: [openApiRoutes, statusPageRoutes, deployGateRoutes],
    jobs: WEBHOOK_JOBS,
    auditListeners: WEBHOOK_AUDIT_LISTENERS,
    // VIGIL_WORKERS=off: this instance serves HTTP and enqueues, another one works the jobs
    runWorkers: envFlag(env.VIGIL_WORKERS, 'VIGIL_WORKERS') ?? true,
    rawRouters: webhookRouters(webhooks),
    rateLimit: apiLimit ? credentialLimiter(apiLimit, webhooks) : undefined,
    onStart: webhookStartup(webhooks),
  };
}

export async function serveCommand(): Promise<void> {
  const log = createLogger();
  let running: Awaited<ReturnType<typeof serve>>;
  try {
    running = await serve({ ...serviceOptions(), log });
  } catch (error) {
    if (!(error instanceof DataDirInUse)) throw error;
    // a refusal meant for the operator: the sentence alone, no stack
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const lines = [`Vigil is serving at ${running.services.config.publicUrl}`];
  if (running.mintedOperatorToken) lines.push('', `Operator token (shown once; set VIGIL_ADMIN_TOKEN to choose your own): ${running.mintedOperatorToken}`);
  if (running.firstOrganization) {
    const first = running.firstOrganization;
    lines.push('', `First organization ${first.id} (business plan).`, `Its api:admin key (shown once): ${first.apiKey}`, 'Its webhook URLs:');
    for (const [source, url] of Object.entries(first.webhookUrls)) lines.push(`  ${source}: ${url}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  const stop = async () => {
    await running.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
