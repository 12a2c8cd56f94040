/** Builds the Koa app from a registry and serves it. The engine knows no family: it receives them. */
import http from 'node:http';
import type { MigrationObject } from '@mikro-orm/core';
import Koa from 'koa';
import type { Clock } from './clock.ts';
import type { ServiceConfig } from './config.ts';
import { SecretBox } from './crypto.ts';
import { SharedCache } from './persistence/shared-cache.ts';
import { shareClears } from './persistence/shared-clears.ts';
import type { Logger } from './logger.ts';
import { allEntities } from './persistence/entities.ts';
import { DEFAULT_DATA_DIR, migrate, openDatabase, startupLock, type Database } from './persistence/database.ts';
import { lockDataDir, type DataDirLock } from './persistence/data-dir-lock.ts';
import { DatabaseOutage } from './persistence/outage.ts';
import type { Registry } from './registry.ts';
import type { TargetCheck } from './targets.ts';
import type { DomainOperation, Services } from './services.ts';
import { BossJobQueue } from './jobs/queue.ts';
import { afterAnswerErrors, errorMiddleware, requireJson } from './http/errors.ts';
import { jsonBodyParser } from './http/body.ts';
import { auditLogOperation } from './operations/audit-log.ts';
import { domainRestPath } from './operations/domain.ts';
import { batchOperation } from './operations/batch.ts';
import { CONFIG_PREFIX, configApi, meApi } from './http/config-api.ts';
import { openApiRoutes } from './http/openapi-routes.ts';
import { checkModuleFamilies, checkModules, type Module } from './module.ts';
import type { CredentialLimiter, FailureLimiter } from './http/rate-limit.ts';
import { mcpEndpoint } from './mcp/endpoint.ts';
import { operatorApi, requireOperator } from './http/operator-api.ts';
import { accessMiddleware } from './observability/access.ts';
import { Metrics } from './observability/metrics.ts';
import { sqlExecutor } from './persistence/sql.ts';
import { firstOrganization, operatorToken, secretKey, type FirstOrganization } from './bootstrap.ts';

export interface ServeOptions {
  registry: Registry;
  config: Omit<ServiceConfig, 'publicUrl'> & { publicUrl?: string };
  /** the deployment's address policies for the targets a write sends (URLs the service calls, links): engine/targets.ts */
  targets: TargetCheck;
  clock: Clock;
  log: Logger;
  databaseUrl?: string;
  dataDir?: string;
  host?: string;
  port?: number;
  operatorToken?: string;
  secretKey?: string;
  bootstrap?: boolean;
  /** the parts of the service (bin/modules.ts): their tables, operations, jobs, routes, audit listeners and start/close hooks */
  modules?: readonly Module[];
  /** the committed migrations, run on start (bin/ hands in migrations/index.ts, as it hands in the registry) */
  migrations?: readonly MigrationObject[];
  /**
   * `entities` creates tables straight from the descriptors (tests of families not yet in a migration); `present`:
   * the database already holds exactly those tables (a test's copy of a template made from them)
   */
  schema?: 'migrations' | 'entities' | 'present';
  /** how long an API-key lookup is reused in this process (ms; 0 turns it off) */
  authCacheMs?: number;
  /** PostgreSQL: statements marked with prepared() are prepared on each connection (engine/persistence/prepared.ts); default true */
  preparedStatements?: boolean;
  /** largest JSON body accepted by the API */
  jsonLimit?: string;
  /**
   * how many proxies in front of the service append the client's address to X-Forwarded-For (default 0: the
   * connection's address is the client's). With N, a request's address is the Nth entry from the right — the one the
   * outermost trusted proxy wrote — so a client cannot choose it by sending the header itself.
   */
  trustedProxies?: number;
  /** whether this instance works jobs (default true); false serves HTTP only and still enqueues */
  runWorkers?: boolean;
  /** seconds between looks for due jobs (default 2; at least 0.5) */
  jobPollSeconds?: number;
  /** seconds between a job worker's own polls while notifications work (default 30; tests make it longer) */
  jobBackstopSeconds?: number;
  /**
   * the per-credential request limit of the configuration API and the agent-tool endpoint (engine/http/rate-limit.ts),
   * built once the services exist (its store may log and close with them); absent, requests are not limited
   */
  rateLimit?: (services: Services) => CredentialLimiter;
  /** failed operator authentications per client address (engine/http/operator-api.ts `OPERATOR_FAILURE_LIMIT`); absent, not limited */
  operatorFailures?: (services: Services) => FailureLimiter;
  /** the service's version, answered by /healthz and /readyz (package.json's, from bin/) */
  version?: string;
}

export interface RunningService {
  url: string;
  services: Services;
  /** printed once on first start */
  mintedOperatorToken?: string;
  firstOrganization?: FirstOrganization | null;
  /** stops accepting, lets requests in flight finish (at most `graceMs`, default 10 s) and running jobs (30 s), closes the database */
  close(graceMs?: number): Promise<void>;
}

export async function serve(options: ServeOptions): Promise<RunningService> {
  const modules = options.modules ?? [];
  checkModules(modules);
  checkModuleFamilies(modules, options.registry);
  if ((options.schema ?? 'migrations') === 'migrations' && !options.migrations?.length) throw new Error('serve runs the migrations it is handed: give `migrations` (bin/ hands in migrations/index.ts), or schema: \'entities\'.');
  // the embedded database serves one process: refuse a second one before it opens the files (data-dir-lock.ts)
  const dirLock = lockDataDir(options.databaseUrl ? 'memory://' : (options.dataDir ?? DEFAULT_DATA_DIR));
  try {
    const outage = new DatabaseOutage(options.log, options.clock);
    const db = await openDatabase({
      databaseUrl: options.databaseUrl, dataDir: options.dataDir, preparedStatements: options.preparedStatements, entities: allEntities(options.registry.families, modules.flatMap((m) => m.entities ?? [])),
      onConnect: () => outage.reachable(), migrations: options.migrations ?? [],
    });
    // instances starting at once take turns at the start-up writes (migrations, minted keys, the first organization)
    const startup = await startupLock(options.databaseUrl);
    try {
      return await start(options, modules, db, dirLock, outage);
    } finally {
      await startup.release();
    }
  } catch (error) {
    dirLock.release();
    throw error;
  }
}

/** The port could not be taken: a sentence for the operator (the address, and why), not a stack. */
export class ListenRefused extends Error {}

const LISTEN_REASONS: Record<string, string> = {
  EADDRINUSE: 'another process is listening there; stop it or set PORT (or HOST) to a free address',
  EACCES: 'permission denied (a port below 1024 needs privileges); set PORT to 1024 or above',
  EADDRNOTAVAIL: 'no network interface of this machine has that address; set HOST to one it has (or 0.0.0.0)',
};

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) => {
      const reason = LISTEN_REASONS[error.code ?? ''] ?? error.message;
      reject(new ListenRefused(`Vigil cannot listen on ${host.includes(':') ? `[${host}]` : host}:${port}: ${reason}.`));
    };
    server.once('error', refused);
    server.listen(port, host, () => {
      server.off('error', refused);
      resolve();
    });
  });
}

/** Tables (from the migrations, or the entities for tests) and the secret box; a key that cannot open the stored secrets stops the start. */
async function prepareDatabase(options: ServeOptions, db: Database): Promise<SecretBox> {
  if (options.schema === 'entities') await db.schema.create();
  else if (options.schema !== 'present') await migrate(db);
  return new SecretBox(await secretKey(db, options.secretKey).catch(async (error: unknown) => {
    await db.close();
    throw error;
  }));
}

/** The HTTP server, listening; on a refused port, the queue and the database are closed again before the refusal is thrown. */
async function listening(options: ServeOptions, host: string, jobs: BossJobQueue, db: Database): Promise<http.Server> {
  // Node's 5 s keep-alive races clients that reuse an idle connection: a request sent as the server drops it is
  // reset (ECONNRESET), seen in the suite under load. Idle connections stay 65 s, past the usual proxy's 60 s, so
  // the client side closes first; close() still ends idle ones at once.
  const server = http.createServer({ keepAliveTimeout: 65_000 });
  try {
    await listen(server, options.port ?? 8080, host);
  } catch (error) {
    await jobs.stop();
    await db.close();
    throw error;
  }
  return server;
}

/** What every operation, route and job is handed (Services), and the hooks that run at close. */
function makeServices(options: ServeOptions, modules: readonly Module[], parts: { db: Database; config: ServiceConfig; secrets: SecretBox; jobs: BossJobQueue; outage: DatabaseOutage }) {
  const { db } = parts;
  const closeHooks: (() => Promise<void>)[] = [];
  const services: Services = {
    ...parts,
    registry: options.registry,
    clock: options.clock,
    log: options.log,
    credentials: new SharedCache(options.authCacheMs ?? 2000),
    rows: new SharedCache(options.authCacheMs ?? 2000),
    domain: checkDomainOperations(options.registry, [auditLogOperation, batchOperation, ...modules.flatMap((m) => m.operations ?? [])]),
    auditListeners: modules.flatMap((m) => m.auditListeners ?? []),
    targets: options.targets,
    metrics: new Metrics(async () =>
      (await sqlExecutor(db)('select name as queue, state, count(*)::int as count from pgboss.job group by name, state', [])).map((r) => ({
        queue: String(r.queue), state: String(r.state), count: Number(r.count),
      }))),
    onClose: (hook) => void closeHooks.push(hook),
  };
  services.rateLimit = options.rateLimit?.(services);
  return { services, closeHooks };
}

/** Where the service stands: ready once workers and modules started, closing once close() began (so balancers drain first). */
interface Lifecycle {
  ready: boolean;
  closing: boolean;
}

/** /healthz, /readyz and /metrics: answered before any other route. */
function probes(options: ServeOptions, services: Services, lifecycle: Lifecycle, operatorHash: string, operatorFailures: FailureLimiter | undefined): Koa.Middleware {
  const { db } = services;
  const version = options.version ? { version: options.version } : {};
  return async (ctx, next) => {
    if (ctx.path === '/healthz') {
      await db.em.fork().execute('select 1');
      ctx.body = { status: 'ok', ...version };
      return;
    }
    if (ctx.path === '/readyz') {
      // migrations ran before the server listened; the database must answer now (an outage answers 503 through errorMiddleware)
      await db.em.fork().execute('select 1');
      const state = lifecycle.closing ? 'closing' : lifecycle.ready ? 'ready' : 'starting';
      ctx.status = state === 'ready' ? 200 : 503;
      ctx.body = { status: state, ...version };
      return;
    }
    if (ctx.path === '/metrics' && ctx.method === 'GET') {
      // Prometheus text format, behind the operator token
      await requireOperator(ctx, operatorHash, operatorFailures);
      ctx.type = services.metrics.registry.contentType;
      ctx.body = await services.metrics.registry.metrics();
      return;
    }
    await next();
  };
}

/** The Koa application: access log and errors, the probes, the modules' raw routes, JSON bodies, then every API. */
function makeApp(options: ServeOptions, modules: readonly Module[], services: Services, lifecycle: Lifecycle, operatorHash: string, operatorFailures: FailureLimiter | undefined): Koa {
  const { config } = services;
  const routeNames = {
    configPaths: new Set([...options.registry.families.map((f) => f.name), ...services.domain.flatMap((op) => (op.rest ? [op.rest.path] : []))]),
    webhookSources: new Set(config.webhookSources.map((s) => s.segment)),
  };
  const app = new Koa();
  if (options.trustedProxies) {
    app.proxy = true;
    app.maxIpsCount = options.trustedProxies;
  }
  app.on('error', afterAnswerErrors(options.log));
  app.use(accessMiddleware(options.log, services.metrics, () => routeNames));
  app.use(errorMiddleware(options.log, services.outage));
  // reached over https: browsers keep to https for a year (not for subdomains, which may be other services)
  if (config.publicUrl.startsWith('https:')) {
    app.use((ctx, next) => {
      ctx.set('Strict-Transport-Security', 'max-age=31536000');
      return next();
    });
  }
  app.use(probes(options, services, lifecycle, operatorHash, operatorFailures));
  for (const make of modules.flatMap((m) => m.rawRoutes ?? [])) app.use(make(services).routes());
  app.use(requireJson);
  const parseJson = jsonBodyParser({ limit: options.jsonLimit ?? '1mb' });
  // an operation may raise the limit for its own REST path (the batch apply carries a whole configuration)
  const raised = new Map<string, ReturnType<typeof jsonBodyParser>>(services.domain.flatMap((op) => (op.rest?.bodyLimit ? [[`${CONFIG_PREFIX}/${op.rest.path}`, jsonBodyParser({ limit: op.rest.bodyLimit })] as const] : [])));
  app.use((ctx, next) => (raised.get(ctx.path) ?? parseJson)(ctx, next));
  // the engine's own OpenAPI document and reference page first, then the modules' routes
  for (const make of [openApiRoutes, ...modules.flatMap((m) => m.routes ?? [])]) app.use(make(services).routes());
  app.use(configApi(services));
  app.use(meApi(services));
  app.use(mcpEndpoint(services));
  app.use(operatorApi(services, operatorHash, operatorFailures).routes());
  return app;
}

async function start(options: ServeOptions, modules: readonly Module[], db: Database, dirLock: DataDirLock, outage: DatabaseOutage): Promise<RunningService> {
  const secrets = await prepareDatabase(options, db);
  const jobs = await BossJobQueue.start({ db, databaseUrl: options.databaseUrl, handlers: modules.flatMap((m) => m.jobs ?? []), log: options.log, outage });
  const host = options.host ?? '127.0.0.1';
  const server = await listening(options, host, jobs, db);
  const port = (server.address() as { port: number }).port;
  const config: ServiceConfig = { ...options.config, publicUrl: (options.config.publicUrl ?? `http://${host}:${port}`).replace(/\/$/, '') };
  const { services, closeHooks } = makeServices(options, modules, { db, config, secrets, jobs, outage });
  const operatorFailures = options.operatorFailures?.(services);
  if (options.databaseUrl) {
    const shared = await shareClears(options.databaseUrl, [services.credentials, services.rows], options.log, outage);
    closeHooks.push(() => shared.close());
  }
  const operator = await operatorToken(db, options.operatorToken);
  const first = options.bootstrap === false ? null : await firstOrganization(services);

  const lifecycle: Lifecycle = { ready: false, closing: false };
  const handle = makeApp(options, modules, services, lifecycle, operator.hash, operatorFailures).callback();
  // once closing, each answer ends its connection, so keep-alive clients open new ones (refused) instead of
  // sending more requests on a connection that is about to be cut
  server.on('request', (req, res) => {
    if (lifecycle.closing) res.setHeader('Connection', 'close');
    return handle(req, res);
  });
  if (options.runWorkers !== false) await jobs.work(services, { pollSeconds: options.jobPollSeconds ?? 2, backstopSeconds: options.jobBackstopSeconds });
  for (const m of modules) await m.onStart?.(services);
  lifecycle.ready = true;

  return {
    url: `http://${host}:${port}`,
    services,
    mintedOperatorToken: operator.minted,
    firstOrganization: first,
    close: async (graceMs = 10_000) => {
      // stop accepting; requests in flight finish (idle keep-alive connections close now), up to graceMs
      lifecycle.closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(cut);
      await Promise.allSettled([...closeHooks.map((hook) => hook()), ...modules.flatMap((m) => (m.onClose ? [m.onClose(services)] : []))]);
      // running jobs finish first: they need the database
      await jobs.stop();
      await db.close();
      dirLock.release();
    },
  };
}

/** Domain operations need unique names and REST paths that no family uses. */
function checkDomainOperations(registry: Registry, operations: DomainOperation[]): DomainOperation[] {
  const names = new Set<string>();
  for (const op of operations) {
    if (names.has(op.name)) throw new Error(`Domain operation ${op.name} is registered twice.`);
    names.add(op.name);
    // under a family's path only as a view or an action of one of its rows (`GET /schedules/{id}/shifts`), never over its CRUD
    const family = op.rest ? registry.get(op.rest.path) : undefined;
    if (family && (op.rest!.action === undefined || Object.hasOwn(family.actions ?? {}, op.rest!.action))) {
      throw new Error(`Domain operation ${op.name}: REST path ${op.rest!.path} is a family's.`);
    }
    if (op.rest?.action !== undefined && (op.rest.param === undefined || !/^[a-z][a-z0-9_]*$/.test(op.rest.action))) {
      throw new Error(`Domain operation ${op.name}: a REST action or view is on one row (give param) named in snake_case.`);
    }
    const served = op.rest && operations.find((other) => other !== op && other.rest && domainRestPath(other) === domainRestPath(op));
    if (served) throw new Error(`Domain operations ${served.name} and ${op.name} are served at one REST path.`);
  }
  return operations;
}
