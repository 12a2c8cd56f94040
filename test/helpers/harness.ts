/**
 * Starts a whole Vigil on a port of its own, on embedded PGlite in memory, or (with DATABASE_URL) on a
 * PostgreSQL database created for this run and dropped afterwards. Tests talk to it over HTTP.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadOrganization } from '../../engine/auth/authenticate.ts';
import type { Caller } from '../../engine/auth/caller.ts';
import type { Role } from '../../engine/plans.ts';
import { ManualClock } from '../../engine/clock.ts';
import type { ServiceConfig } from '../../engine/config.ts';
import type { FamilyDescriptor } from '../../engine/descriptor.ts';
import type { Logger } from '../../engine/logger.ts';
import { LogWatch } from './log-watch.ts';
import { createRegistry } from '../../engine/registry.ts';
import { serve, type RunningService } from '../../engine/server.ts';
import { families as allFamilies } from '../../resources/index.ts';
import type { WebhookOptions } from '../../webhooks/router.ts';
import type { JobHandler } from '../../engine/jobs/types.ts';
import type { Module } from '../../engine/module.ts';
import type { CheckOptions } from '../../domain/checks/options.ts';
import type { NotifyOptions } from '../../outbound/tick.ts';
import type { RateLimit } from '../../engine/rate-limit/limits.ts';
import { readSettings, type Settings } from '../../bin/env.ts';
import { modules as serviceModules } from '../../bin/modules.ts';
import { serviceOptions } from '../../bin/serve.ts';
import { allEntities } from '../../engine/persistence/entities.ts';
import { freshDataDir, type SchemaTemplate } from './pglite-template.ts';
import { schemaTemplate, templateDatabase } from './schema-template.ts';

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

export type Client = ReturnType<typeof client>;

export function client(base: string, token?: string) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const init: RequestInit = { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${base}${path}`, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) => call('POST', path, body, headers),
    put: (path: string, body?: unknown, headers?: Record<string, string>) => call('PUT', path, body, headers),
    patch: (path: string, body?: unknown, headers?: Record<string, string>) => call('PATCH', path, body, headers),
    del: (path: string, headers?: Record<string, string>) => call('DELETE', path, undefined, headers),
    call,
  };
}

/** A scratch PostgreSQL database (with DATABASE_URL), empty or a copy of `schema`'s template (schema-template.ts). */
export async function scratchDatabase(schema?: SchemaTemplate): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const base = process.env.DATABASE_URL;
  if (!base) return undefined;
  const name = `vigil_test_${randomBytes(6).toString('hex')}`;
  const template = schema ? ` template ${await templateDatabase(base, schema)}` : '';
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}${template}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** A database that outlives one service (restart tests): a scratch PostgreSQL database, or a PGlite data directory on disk. */
export interface Storage {
  databaseUrl?: string;
  dataDir: string;
  /** the VIGIL_SECRET_KEY every start on it uses unless told otherwise (a service refuses a key its secrets were not sealed with) */
  secretKey?: string;
  drop(): Promise<void>;
}

export async function scratchStorage(): Promise<Storage> {
  const secretKey = randomBytes(32).toString('base64');
  const scratch = await scratchDatabase();
  if (scratch) return { databaseUrl: scratch.url, dataDir: 'memory://', secretKey, drop: scratch.drop };
  const { dataDir, drop } = await freshDataDir();
  return { dataDir, secretKey, drop: async () => drop() };
}

/** The service's modules (bin/modules.ts), with a test's own job handlers replacing any of the same queue. */
function modulesWith(list: Module[], extra: JobHandler[] = []): Module[] {
  if (!extra.length) return list;
  const queues = new Set(extra.map((j) => j.queue));
  return [...list.map((m) => (m.jobs ? { ...m, jobs: m.jobs.filter((j) => !queues.has(j.queue)) } : m)), { name: 'test-jobs', jobs: extra }];
}

export const OPERATOR_TOKEN = 'test-operator-token';

export interface Vigil {
  url: string;
  clock: ManualClock;
  running: RunningService;
  operator: Client;
  /** an organization on `plan` with one key per scope set asked for */
  organization(plan?: string, features?: Record<string, boolean>): Promise<Organization>;
  close(): Promise<void>;
}

export interface Organization {
  id: string;
  webhookToken: string;
  /** a client holding a new key with these scopes */
  key(scopes?: string[]): Promise<Client & { keyId: string; token: string }>;
}

/** Families served: every registered one, plus `extra` ones (a family not in resources/index.ts yet, or a throwaway). */
export function familiesWith(extra: FamilyDescriptor[] = []): FamilyDescriptor[] {
  const names = new Set(extra.map((f) => f.name));
  return [...allFamilies.filter((f) => !names.has(f.name)), ...extra];
}

export async function startVigil(
  options: {
    families?: FamilyDescriptor[];
    extraFamilies?: FamilyDescriptor[];
    /**
     * the modules mounted instead of the service's list (bin/modules.ts): a test serving fewer families mounts fewer
     * modules, since a module whose families are not served stops the start
     */
    modules?: Module[];
    publicUrl?: string;
    /** the webhooks module's options (handlers, signatures and rate limits replaced), and the checks' and periodic pass's */
    webhooks?: WebhookOptions & { checks?: CheckOptions; notify?: NotifyOptions };
    /** job handlers beside (or replacing, by queue) the modules' */
    jobs?: JobHandler[];
    runWorkers?: boolean;
    /** seconds between looks for due jobs (default 0.5, the shortest pg-boss allows) */
    jobPollSeconds?: number;
    /** seconds between a job worker's own polls while notifications work (engine default 30) */
    jobBackstopSeconds?: number;
    /** a database kept after `close` (the caller drops it); tables come from the migrations then, so a restart finds them */
    storage?: Storage;
    /** the platform AI provider (VIGIL_AI_*) and price table (VIGIL_AI_PRICES) */
    ai?: ServiceConfig['ai'];
    aiPrices?: ServiceConfig['aiPrices'];
    /** the code-host app (VIGIL_CODE_HOST_*): API base URL, app id, private key */
    codeHost?: ServiceConfig['codeHost'];
    /** outbound requests: loopback is allowed here (local receivers) unless a test says otherwise */
    outbound?: ServiceConfig['outbound'];
    /** the chat Web API (a local fake) and outgoing mail (a local SMTP server) */
    chat?: ServiceConfig['chat'];
    email?: ServiceConfig['email'];
    /** where the service logs (default: a LogWatch that fails close() when a line holds a secret) */
    log?: Logger;
    /** VIGIL_SECRET_KEY (default: the storage's, else a new one) */
    secretKey?: string;
    /**
     * VIGIL_API_RATE_LIMIT, counted in the webhooks' store (default: a limit no test reaches, so every request passes
     * through the step and its fields; null turns it off)
     */
    apiRateLimit?: RateLimit | null;
    /** VIGIL_TRUSTED_PROXIES: proxies whose X-Forwarded-For entries name the client */
    trustedProxies?: number;
    /** what the engine is told of the webhook sources (default: the service's, WEBHOOK_SOURCES) */
    webhookSources?: ServiceConfig['webhookSources'];
    /** VIGIL_OIDC_*: the deployment's OpenID Connect provider (a local one, test/helpers/oidc-provider.ts) */
    oidc?: Settings['oidc'];
    /** VIGIL_PUSHOVER_*: Pushover's API (a local one, test/helpers/pushover-server.ts) and the operator's app token */
    pushover?: Settings['pushover'];
    /** VIGIL_TWILIO_*: Twilio's API (a local one, test/helpers/twilio-server.ts) and the operator's account */
    twilio?: Settings['twilio'];
  } = {},
): Promise<Vigil> {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const watch = options.log ? null : new LogWatch();
  watch?.remember(OPERATOR_TOKEN);
  // the service's own families and modules (bin/serve.ts's), unless the test gives its own
  const registry = createRegistry(options.families ?? familiesWith(options.extraFamilies));
  const modules = modulesWith(options.modules ?? serviceModules(), options.jobs);
  // a new database starts with its tables, copied from a template made once for exactly these entities
  // (schema-template.ts), unless the test keeps its database across restarts: that one runs the migrations
  const schema = options.storage ? undefined : await schemaTemplate(allEntities(registry.families, modules.flatMap((m) => m.entities ?? [])));
  const scratch = options.storage ? { url: options.storage.databaseUrl, drop: async () => {} } : await scratchDatabase(schema);
  // PGlite: a copy of an initialised cluster rather than memory://, where every start pays initdb (pglite-template.ts)
  const local = options.storage || scratch?.url ? undefined : await freshDataDir(schema);
  // the service starts from bin/serve.ts's options for the settings a deployment would give (readSettings of an
  // empty environment, with the test's values), and the test's own parts replaced:
  // on PostgreSQL the tests count rate limits in the shared table, so that store is proven too;
  // no background check passes unless a test asks for them: seeded checks would reach out to their example URLs;
  // checks, like outbound requests, may reach loopback (local targets) unless a test says otherwise
  const { checks: checkOptions, notify, rateLimit: webhookRateLimit, rateLimitStore, redisUrl, ...sources } = options.webhooks ?? {};
  const defaults = readSettings({});
  const settings: Settings = {
    ...defaults,
    port: 0,
    publicUrl: options.publicUrl,
    databaseUrl: scratch?.url,
    dataDir: options.storage?.dataDir ?? local?.dataDir ?? 'memory://',
    operatorToken: OPERATOR_TOKEN,
    secretKey: options.secretKey ?? options.storage?.secretKey ?? randomBytes(32).toString('base64'),
    bootstrap: false,
    trustPrincipalId: 'arn-test-principal',
    trustedProxies: options.trustedProxies ?? 0,
    runWorkers: options.runWorkers ?? true,
    // default: a limit no test reaches, so every request passes through the step and its fields; null turns it off
    apiRateLimit: options.apiRateLimit === undefined ? { points: 1_000_000, durationSeconds: 3600 } : options.apiRateLimit,
    rateLimits: { webhookRateLimit, rateLimitStore: rateLimitStore ?? (scratch ? 'postgres' : 'memory'), redisUrl },
    checks: { tickSeconds: 0, allowLoopback: true, ...checkOptions },
    notify: { tickSeconds: 0, ...notify },
    calendarRefreshSeconds: 0,
    ai: options.ai,
    aiPrices: options.aiPrices,
    codeHost: options.codeHost ?? defaults.codeHost,
    outbound: { ...defaults.outbound, allowLoopback: true, ...options.outbound },
    chat: options.chat ?? defaults.chat,
    email: options.email,
    oidc: options.oidc,
    pushover: options.pushover ?? defaults.pushover,
    twilio: options.twilio ?? defaults.twilio,
  };
  const service = serviceOptions(settings, sources);
  const running = await serve({
    ...service,
    ...(options.webhookSources ? { config: { ...service.config, webhookSources: options.webhookSources } } : {}),
    registry,
    modules,
    clock,
    log: options.log ?? watch!.log,
    schema: options.storage ? 'migrations' : 'present',
    // the shortest poll pg-boss allows, so a job that starts later (a retry, a delay) is picked up within a second
    jobPollSeconds: options.jobPollSeconds ?? 0.5,
    jobBackstopSeconds: options.jobBackstopSeconds,
  });
  if (watch) watch.watchSeals(running.services.secrets);
  const operator = client(running.url, OPERATOR_TOKEN);
  return {
    url: running.url,
    clock,
    running,
    operator,
    async organization(plan = 'business', features) {
      const created = await operator.post('/api/admin/v1/organizations', { name: `org ${randomBytes(3).toString('hex')}`, plan });
      if (created.status !== 201) throw new Error(`organization not created: ${JSON.stringify(created.body)}`);
      const id = created.body.id as string;
      watch?.remember(created.body.webhook_token);
      if (features) await operator.patch(`/api/admin/v1/organizations/${id}`, { features });
      return {
        id,
        webhookToken: created.body.webhook_token,
        async key(scopes = ['api:admin']) {
          const made = await operator.post(`/api/admin/v1/organizations/${id}/api_keys`, { name: 'test key', scopes });
          if (made.status !== 201) throw new Error(`key not created: ${JSON.stringify(made.body)}`);
          watch?.remember(made.body.key);
          return Object.assign(client(running.url, made.body.key), { keyId: made.body.id as string, token: made.body.key as string });
        },
      };
    },
    async close() {
      await running.close();
      await scratch?.drop();
      local?.drop();
      const leaks = watch?.leaks() ?? [];
      if (leaks.length) throw new Error(`${leaks.length} log line(s) hold a secret the test stored: ${[...new Set(leaks)].join('; ')}`);
    },
  };
}

export const CONFIG = '/api/v1/config';

/**
 * A caller for operation-layer tests of what has no HTTP route yet (actions reach users through the
 * agent-tool endpoint): an mcp key of the organization with the given role.
 */
export async function agentCaller(vigil: Vigil, organizationId: string, role: Role = 'member'): Promise<Caller> {
  const organization = await loadOrganization(vigil.running.services.db, organizationId);
  if (!organization) throw new Error('no such organization');
  const scope = { viewer: 'mcp:read', member: 'mcp:write', org_admin: 'mcp:admin' }[role];
  return { organization, credential: { kind: 'api_key', id: 'test-key', scopes: [scope] }, role, transport: 'mcp', endpointFeature: 'mcp', requestId: 'test' };
}
