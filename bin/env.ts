/**
 * Every environment variable the service reads, read and checked here once: `readSettings(env)` answers one typed
 * settings object or throws a `SettingError` naming the variable. Nothing else reads `process.env` for a service
 * setting. Values that may hold a secret (URLs with passwords, keys, tokens) are never repeated in a message.
 */
import { createPrivateKey } from 'node:crypto';
import type { AiSettings } from '../domain/ai/config.ts';
import { parsePrices, type Price } from '../domain/ai/prices.ts';
import type { CheckOptions } from '../domain/checks/options.ts';
import { DEFAULT_PUSHOVER_API, type PushoverSettings } from '../domain/paging/channels/pushover-config.ts';
import { DEFAULT_TWILIO_API, type TwilioSettings } from '../domain/paging/channels/twilio-config.ts';
import type { ChatApiSettings } from '../outbound/chat/config.ts';
import type { EmailSettings } from '../outbound/email/config.ts';
import { addressPolicy, networksFromSetting } from '../outbound/net/addresses.ts';
import { DEFAULT_CODE_HOST_API_URL } from '../outbound/net/code-host-app.ts';
import type { CodeHostSettings, OutboundSettings } from '../outbound/net/config.ts';
import type { NotifyOptions } from '../outbound/tick.ts';
import { parseRoleMappings, type OidcSettings } from '../web/console/sso/config.ts';
import { ROLES, isRole } from '../engine/plans.ts';
import { DEFAULT_API_RATE_LIMIT, type RateLimit } from '../engine/rate-limit/limits.ts';

/** A deployment setting that cannot be used: the message names the variable (and never repeats a secret value). */
export class SettingError extends Error {
  variable: string;
  constructor(variable: string, message: string) {
    super(message);
    this.name = 'SettingError';
    this.variable = variable;
  }
}

export type RateLimitStore = 'memory' | 'postgres' | 'redis';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface Settings {
  /** `PORT` (default 8080; 0 picks a free port) and `HOST` (default 127.0.0.1) */
  port: number;
  host: string;
  /** `PUBLIC_URL` (default `http://<HOST>:<PORT>`) */
  publicUrl?: string;
  /** `DATABASE_URL` (PostgreSQL); unset or empty: embedded PGlite in `DATA_DIR` (default ./data) */
  databaseUrl?: string;
  dataDir: string;
  /** `VIGIL_DATABASE_PREPARED_STATEMENTS` (default on; off for a pooler in transaction mode) */
  preparedStatements: boolean;
  /** `VIGIL_ADMIN_TOKEN`, `VIGIL_SECRET_KEY` (32 bytes, base64): minted and stored when unset */
  operatorToken?: string;
  secretKey?: string;
  /** `VIGIL_BOOTSTRAP` (default on): the first organization on an empty database */
  bootstrap: boolean;
  /** `VIGIL_TRUST_PRINCIPAL_ID` (default vigil-platform) */
  trustPrincipalId: string;
  /** `VIGIL_AUTH_CACHE_MS` (the engine's default when unset) */
  authCacheMs?: number;
  /** `VIGIL_TRUSTED_PROXIES` (default 0): how many proxies in front append to X-Forwarded-For (the client's address) */
  trustedProxies: number;
  /** `VIGIL_WORKERS` (default on): off serves HTTP and enqueues, another instance works the jobs */
  runWorkers: boolean;
  /** `LOG_LEVEL` (default info) */
  logLevel: (typeof LOG_LEVELS)[number];
  /** `VIGIL_API_RATE_LIMIT`: per API key or personal token (default 600 a minute; null when 0 turns it off) */
  apiRateLimit: RateLimit | null;
  /** `VIGIL_WEBHOOK_RATE_LIMIT`, `VIGIL_WEBHOOK_RATE_LIMIT_STORE`, `VIGIL_REDIS_URL` (the store counts API limits too) */
  rateLimits: { webhookRateLimit?: RateLimit; rateLimitStore: RateLimitStore; redisUrl?: string };
  /** `VIGIL_CHECK_*` */
  checks: CheckOptions;
  /** `VIGIL_NOTIFY_TICK_SECONDS` */
  notify: NotifyOptions;
  /** `VIGIL_CALENDAR_REFRESH_SECONDS` (default 900; 0: no passes) */
  calendarRefreshSeconds: number;
  /** `VIGIL_AI_BASE_URL`, `VIGIL_AI_API_KEY`, `VIGIL_AI_MODEL`, `VIGIL_AI_PRICES` */
  ai?: AiSettings;
  aiPrices?: Record<string, Price>;
  /** `VIGIL_CODE_HOST_API_URL`, `VIGIL_CODE_HOST_APP_ID`, `VIGIL_CODE_HOST_APP_PRIVATE_KEY` */
  codeHost: CodeHostSettings;
  /** `VIGIL_OUTBOUND_ALLOW_LOOPBACK`, `VIGIL_OUTBOUND_ALLOWED_NETWORKS` */
  outbound: OutboundSettings & { allowLoopback: boolean; allowedNetworks: readonly string[] };
  /** `VIGIL_CHAT_API_URL` */
  chat: ChatApiSettings;
  /** `VIGIL_SMTP_URL`, `VIGIL_EMAIL_FROM` */
  email?: EmailSettings;
  /** `VIGIL_OIDC_*`: the deployment's OpenID Connect provider, when an issuer is set */
  oidc?: OidcSettings;
  /** `VIGIL_PUSHOVER_API_URL`, `VIGIL_PUSHOVER_APP_TOKEN` */
  pushover: PushoverSettings;
  /** `VIGIL_TWILIO_API_URL`, `VIGIL_TWILIO_ACCOUNT_SID`, `VIGIL_TWILIO_AUTH_TOKEN`, `VIGIL_TWILIO_FROM` */
  twilio: TwilioSettings;
}

/** The variable's value with surrounding blanks dropped; undefined when unset or blank. */
function text(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** An on/off setting (`on`/`true`, `off`/`false`); undefined when unset; anything else is refused by name. */
export function envFlag(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  throw new SettingError(name, `${name} must be on or off (got ${value.slice(0, 40)})`);
}

/** A numeric setting of at least `min`; undefined when unset; anything else is refused by name. */
export function envNumber(value: string | undefined, name: string, min: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) throw new SettingError(name, `${name} must be a number of at least ${min} (got ${value.slice(0, 40)})`);
  return n;
}

/** An http(s) URL, or a refusal naming the variable without repeating the value (it may hold credentials). */
function httpUrl(value: string, name: string, example: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw new SettingError(name, `${name} must be an http(s) URL, such as ${example}`);
  return value;
}

/** A value another module checks by throwing a sentence that names the variable: the sentence, as a SettingError. */
function checked<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SettingError) throw error;
    throw new SettingError(name, error instanceof Error ? error.message : `${name} is not valid`);
  }
}

function port(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 8080;
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n > 65535) throw new SettingError('PORT', `PORT must be a whole number from 0 to 65535 (got ${value.slice(0, 40)})`);
  return n;
}

function host(value: string | undefined): string {
  if (value === undefined) return '127.0.0.1';
  if (value.trim() === '' || /\s/.test(value.trim())) throw new SettingError('HOST', 'HOST must be an address or host name to listen on, such as 127.0.0.1 or 0.0.0.0');
  return value.trim();
}

function databaseUrl(env: NodeJS.ProcessEnv): string | undefined {
  const value = text(env, 'DATABASE_URL');
  if (value === undefined) return undefined;
  // the URL may hold a password: the message never repeats it
  if (!URL.canParse(value) || !/^postgres(ql)?:$/.test(new URL(value).protocol)) {
    throw new SettingError('DATABASE_URL', 'DATABASE_URL must be a postgres:// or postgresql:// URL, such as postgres://vigil:password@db.example.com:5432/vigil (unset: the embedded database in DATA_DIR)');
  }
  return value;
}

function secretKey(env: NodeJS.ProcessEnv): string | undefined {
  const value = text(env, 'VIGIL_SECRET_KEY');
  if (value !== undefined && Buffer.from(value, 'base64').length !== 32) {
    throw new SettingError('VIGIL_SECRET_KEY', 'VIGIL_SECRET_KEY must be 32 bytes, base64-encoded (openssl rand -base64 32).');
  }
  return value;
}

function logLevel(value: string | undefined): Settings['logLevel'] {
  if (value === undefined || value.trim() === '') return 'info';
  const level = LOG_LEVELS.find((l) => l === value.trim());
  if (!level) throw new SettingError('LOG_LEVEL', `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${value.slice(0, 40)})`);
  return level;
}

function publicUrl(env: NodeJS.ProcessEnv): string | undefined {
  const value = text(env, 'PUBLIC_URL');
  return value === undefined ? undefined : httpUrl(value, 'PUBLIC_URL', 'https://vigil.example.com');
}

/** `VIGIL_WEBHOOK_RATE_LIMIT`: requests per minute per organization and source (default 600). */
function webhookRateLimit(value: string | undefined): RateLimit | undefined {
  if (value === undefined || value === '') return undefined;
  const points = Number(value);
  if (!Number.isInteger(points) || points < 1) throw new SettingError('VIGIL_WEBHOOK_RATE_LIMIT', `VIGIL_WEBHOOK_RATE_LIMIT must be a whole number of requests per minute, at least 1 (got ${value.slice(0, 40)})`);
  return { points, durationSeconds: 60 };
}

/** `VIGIL_API_RATE_LIMIT`: requests per minute per API key or personal token at REST and MCP (default 600; 0 turns it off). */
function apiRateLimit(value: string | undefined): RateLimit | null {
  if (value === undefined || value.trim() === '') return DEFAULT_API_RATE_LIMIT;
  const points = Number(value);
  if (!Number.isInteger(points) || points < 0) throw new SettingError('VIGIL_API_RATE_LIMIT', `VIGIL_API_RATE_LIMIT must be a whole number of requests per minute, or 0 to turn the limit off (got ${value.slice(0, 40)})`);
  return points === 0 ? null : { points, durationSeconds: 60 };
}

/** redis://[user:password@]host[:port][/db] or rediss:// (TLS) */
function isRedisUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return /^rediss?:$/.test(url.protocol) && url.hostname !== '' && /^(\/\d*)?$/.test(url.pathname);
}

/**
 * `VIGIL_WEBHOOK_RATE_LIMIT_STORE` (despite its name, also where `VIGIL_API_RATE_LIMIT` counts): memory (default),
 * postgres (shared by the instances of one database) or redis (shared by the instances pointed at `VIGIL_REDIS_URL`).
 * The URL may hold a password: no message repeats it.
 */
function rateLimits(env: NodeJS.ProcessEnv, database: string | undefined): Settings['rateLimits'] {
  const webhook = webhookRateLimit(env.VIGIL_WEBHOOK_RATE_LIMIT);
  const value = env.VIGIL_WEBHOOK_RATE_LIMIT_STORE;
  const redisUrl = text(env, 'VIGIL_REDIS_URL');
  const limits = (rateLimitStore: RateLimitStore, redis?: string) => ({ ...(webhook ? { webhookRateLimit: webhook } : {}), rateLimitStore, ...(redis ? { redisUrl: redis } : {}) });
  if (redisUrl && !isRedisUrl(redisUrl)) throw new SettingError('VIGIL_REDIS_URL', 'VIGIL_REDIS_URL must be a redis:// or rediss:// URL, such as redis://:password@redis.example.com:6379/0');
  if (value === undefined || value === '') {
    // a Redis URL alone would silently leave the counts per instance: say which store is meant
    if (redisUrl) throw new SettingError('VIGIL_REDIS_URL', 'VIGIL_REDIS_URL is set but VIGIL_WEBHOOK_RATE_LIMIT_STORE is not: set it to redis to share rate limits there');
    return limits('memory');
  }
  if (value === 'memory') return limits('memory');
  if (value === 'postgres') {
    if (!database) throw new SettingError('VIGIL_WEBHOOK_RATE_LIMIT_STORE', 'VIGIL_WEBHOOK_RATE_LIMIT_STORE=postgres needs DATABASE_URL (the embedded database serves one instance)');
    return limits('postgres');
  }
  if (value === 'redis') {
    if (!redisUrl) throw new SettingError('VIGIL_WEBHOOK_RATE_LIMIT_STORE', 'VIGIL_WEBHOOK_RATE_LIMIT_STORE=redis needs VIGIL_REDIS_URL (redis:// or rediss://)');
    return limits('redis', redisUrl);
  }
  throw new SettingError('VIGIL_WEBHOOK_RATE_LIMIT_STORE', `VIGIL_WEBHOOK_RATE_LIMIT_STORE must be memory, postgres or redis (got ${value.slice(0, 40)})`);
}

/** `VIGIL_CHECK_TICK_SECONDS`, `VIGIL_CHECK_FAILURES_TO_ALERT`, `VIGIL_CHECK_ALLOW_LOOPBACK`, `VIGIL_CHECK_ALLOW_PRIVATE`. */
function checks(env: NodeJS.ProcessEnv): CheckOptions {
  const options: CheckOptions = {
    tickSeconds: envNumber(env.VIGIL_CHECK_TICK_SECONDS, 'VIGIL_CHECK_TICK_SECONDS', 0),
    failuresToAlert: envNumber(env.VIGIL_CHECK_FAILURES_TO_ALERT, 'VIGIL_CHECK_FAILURES_TO_ALERT', 1),
    allowLoopback: envFlag(env.VIGIL_CHECK_ALLOW_LOOPBACK, 'VIGIL_CHECK_ALLOW_LOOPBACK'),
    allowPrivate: envFlag(env.VIGIL_CHECK_ALLOW_PRIVATE, 'VIGIL_CHECK_ALLOW_PRIVATE'),
  };
  if (options.failuresToAlert !== undefined && !Number.isInteger(options.failuresToAlert)) throw new SettingError('VIGIL_CHECK_FAILURES_TO_ALERT', 'VIGIL_CHECK_FAILURES_TO_ALERT must be a whole number');
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}

/** `VIGIL_AI_BASE_URL`, `VIGIL_AI_API_KEY`, `VIGIL_AI_MODEL`: the deployment's own (platform) AI provider, when a base URL is set. */
function ai(env: NodeJS.ProcessEnv): AiSettings | undefined {
  const baseUrl = text(env, 'VIGIL_AI_BASE_URL');
  if (!baseUrl) return undefined;
  httpUrl(baseUrl, 'VIGIL_AI_BASE_URL', 'https://api.example.com/v1');
  return { baseUrl, apiKey: env.VIGIL_AI_API_KEY || undefined, model: env.VIGIL_AI_MODEL || undefined };
}

/**
 * `VIGIL_CODE_HOST_API_URL` (default https://api.github.com; GitHub Enterprise Server: https://<host>/api/v3),
 * `VIGIL_CODE_HOST_APP_ID`, `VIGIL_CODE_HOST_APP_PRIVATE_KEY` (the PEM text; `\n` escapes accepted). The id and
 * key come together or not at all; a key that is not a private key stops the start, naming the variable only.
 */
function codeHost(env: NodeJS.ProcessEnv): CodeHostSettings {
  const apiUrl = httpUrl(text(env, 'VIGIL_CODE_HOST_API_URL') ?? DEFAULT_CODE_HOST_API_URL, 'VIGIL_CODE_HOST_API_URL', 'https://api.github.com');
  const appId = text(env, 'VIGIL_CODE_HOST_APP_ID');
  const privateKey = text(env, 'VIGIL_CODE_HOST_APP_PRIVATE_KEY');
  if (Boolean(appId) !== Boolean(privateKey)) throw new SettingError(appId ? 'VIGIL_CODE_HOST_APP_PRIVATE_KEY' : 'VIGIL_CODE_HOST_APP_ID', 'Set both VIGIL_CODE_HOST_APP_ID and VIGIL_CODE_HOST_APP_PRIVATE_KEY, or neither.');
  if (privateKey) {
    try {
      createPrivateKey(privateKey.replace(/\\n/g, '\n'));
    } catch {
      throw new SettingError('VIGIL_CODE_HOST_APP_PRIVATE_KEY', 'VIGIL_CODE_HOST_APP_PRIVATE_KEY is not a PEM private key (paste the whole .pem file the code host gave for the app).');
    }
  }
  return { apiUrl: apiUrl.replace(/\/+$/, ''), appId, privateKey };
}

/**
 * `VIGIL_OUTBOUND_ALLOW_LOOPBACK` (on lets outbound requests reach 127.0.0.0/8 and ::1; off, the default, refuses
 * them) and `VIGIL_OUTBOUND_ALLOWED_NETWORKS` (comma-separated CIDRs made reachable; empty by default).
 */
function outbound(env: NodeJS.ProcessEnv): Settings['outbound'] {
  const allowLoopback = envFlag(env.VIGIL_OUTBOUND_ALLOW_LOOPBACK, 'VIGIL_OUTBOUND_ALLOW_LOOPBACK') ?? false;
  const allowedNetworks = networksFromSetting(env.VIGIL_OUTBOUND_ALLOWED_NETWORKS);
  checked('VIGIL_OUTBOUND_ALLOWED_NETWORKS', () => addressPolicy(allowedNetworks, allowLoopback, 'VIGIL_OUTBOUND_ALLOWED_NETWORKS'));
  return { allowLoopback, allowedNetworks };
}

/** `VIGIL_CHAT_API_URL`: the chat Web API's base URL (default https://slack.com/api); `VIGIL_CHAT_RESPONSE_URL`: where its response_urls live (default https://hooks.slack.com). */
function chat(env: NodeJS.ProcessEnv): ChatApiSettings {
  const apiUrl = httpUrl(text(env, 'VIGIL_CHAT_API_URL') ?? 'https://slack.com/api', 'VIGIL_CHAT_API_URL', 'https://slack.com/api');
  const responseUrl = text(env, 'VIGIL_CHAT_RESPONSE_URL') ?? 'https://hooks.slack.com';
  const responseOrigin = new URL(httpUrl(responseUrl, 'VIGIL_CHAT_RESPONSE_URL', 'https://hooks.slack.com')).origin;
  return { apiUrl: apiUrl.replace(/\/+$/, ''), responseOrigin };
}

/**
 * `VIGIL_PUSHOVER_API_URL`: Pushover's API (default https://api.pushover.net); `VIGIL_PUSHOVER_APP_TOKEN`: the
 * operator's application token (30 letters and digits), used by organizations without their own; unset, none.
 */
function pushover(env: NodeJS.ProcessEnv): PushoverSettings {
  const apiUrl = httpUrl(text(env, 'VIGIL_PUSHOVER_API_URL') ?? DEFAULT_PUSHOVER_API, 'VIGIL_PUSHOVER_API_URL', DEFAULT_PUSHOVER_API);
  const appToken = text(env, 'VIGIL_PUSHOVER_APP_TOKEN') ?? null;
  if (appToken !== null && !/^[A-Za-z0-9]{30}$/.test(appToken)) throw new SettingError('VIGIL_PUSHOVER_APP_TOKEN', 'VIGIL_PUSHOVER_APP_TOKEN must be a Pushover application token: 30 letters and digits, or unset');
  return { apiUrl: apiUrl.replace(/\/+$/, ''), appToken };
}

/**
 * `VIGIL_TWILIO_API_URL`: Twilio's REST API (default https://api.twilio.com), the only place the auth token is sent;
 * `VIGIL_TWILIO_ACCOUNT_SID` (AC and 32 hex digits), `VIGIL_TWILIO_AUTH_TOKEN` and `VIGIL_TWILIO_FROM` (E.164 or MG…):
 * the operator's account for sms and voice pages of organizations without their own; all three or none.
 */
function twilio(env: NodeJS.ProcessEnv): TwilioSettings {
  const apiUrl = httpUrl(text(env, 'VIGIL_TWILIO_API_URL') ?? DEFAULT_TWILIO_API, 'VIGIL_TWILIO_API_URL', DEFAULT_TWILIO_API);
  const accountSid = text(env, 'VIGIL_TWILIO_ACCOUNT_SID') ?? null;
  const authToken = text(env, 'VIGIL_TWILIO_AUTH_TOKEN') ?? null;
  const from = text(env, 'VIGIL_TWILIO_FROM') ?? null;
  if (accountSid !== null && !/^AC[0-9a-fA-F]{32}$/.test(accountSid)) throw new SettingError('VIGIL_TWILIO_ACCOUNT_SID', 'VIGIL_TWILIO_ACCOUNT_SID must be a Twilio account SID: AC and 32 hex digits, or unset');
  if (authToken !== null && (authToken.length < 16 || authToken.length > 128)) throw new SettingError('VIGIL_TWILIO_AUTH_TOKEN', 'VIGIL_TWILIO_AUTH_TOKEN must be the account\'s auth token (16 to 128 characters), or unset');
  if (from !== null && !/^(\+[1-9][0-9]{6,14}|MG[0-9a-fA-F]{32})$/.test(from)) throw new SettingError('VIGIL_TWILIO_FROM', 'VIGIL_TWILIO_FROM must be a number in E.164 (such as +14155552671) or a Messaging Service SID (MG and 32 hex digits), or unset');
  const set = [accountSid, authToken, from].filter((v) => v !== null).length;
  if (set !== 0 && set !== 3) {
    const missing = accountSid === null ? 'VIGIL_TWILIO_ACCOUNT_SID' : authToken === null ? 'VIGIL_TWILIO_AUTH_TOKEN' : 'VIGIL_TWILIO_FROM';
    throw new SettingError(missing, `${missing} is required while another VIGIL_TWILIO_ account setting is set: set VIGIL_TWILIO_ACCOUNT_SID, VIGIL_TWILIO_AUTH_TOKEN and VIGIL_TWILIO_FROM together`);
  }
  return { apiUrl: apiUrl.replace(/\/+$/, ''), accountSid, authToken, from };
}

/** `VIGIL_SMTP_URL` and `VIGIL_EMAIL_FROM`: outgoing mail; unset, email notifications are not sent. The URL may hold a password. */
function email(env: NodeJS.ProcessEnv): EmailSettings | undefined {
  const smtpUrl = text(env, 'VIGIL_SMTP_URL');
  if (!smtpUrl) return undefined;
  if (!URL.canParse(smtpUrl) || !/^smtps?:$/.test(new URL(smtpUrl).protocol)) throw new SettingError('VIGIL_SMTP_URL', 'VIGIL_SMTP_URL must be an smtp:// or smtps:// URL, such as smtp://mail.example.com:587');
  return { smtpUrl, from: text(env, 'VIGIL_EMAIL_FROM') ?? 'Vigil <vigil@localhost>' };
}

/** `VIGIL_TRUSTED_PROXIES`: a whole number of proxy hops, 0 (the default) trusting no X-Forwarded-For. */
function trustedProxies(value: string | undefined): number {
  const n = envNumber(value?.trim(), 'VIGIL_TRUSTED_PROXIES', 0) ?? 0;
  if (!Number.isInteger(n) || n > 10) throw new SettingError('VIGIL_TRUSTED_PROXIES', `VIGIL_TRUSTED_PROXIES must be a whole number of proxies from 0 to 10 (got ${String(value).slice(0, 40)})`);
  return n;
}

/** The shortest operator token accepted: 32 characters (a guessable one would open the whole back office). */
export const MIN_OPERATOR_TOKEN = 32;

/** `VIGIL_ADMIN_TOKEN`: unset mints one; a short one is refused (never echoed: it is a credential). */
function operatorToken(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (value.length < MIN_OPERATOR_TOKEN) throw new SettingError('VIGIL_ADMIN_TOKEN', `VIGIL_ADMIN_TOKEN must be at least ${MIN_OPERATOR_TOKEN} characters (openssl rand -hex 32), or unset to have one minted`);
  return value;
}

const OIDC_VARIABLES = [
  'VIGIL_OIDC_CLIENT_ID', 'VIGIL_OIDC_CLIENT_SECRET', 'VIGIL_OIDC_SCOPES', 'VIGIL_OIDC_ORGANIZATION', 'VIGIL_OIDC_GROUPS_CLAIM',
  'VIGIL_OIDC_ROLE_MAPPINGS', 'VIGIL_OIDC_DEFAULT_ROLE', 'VIGIL_OIDC_ALLOWED_DOMAINS', 'VIGIL_OIDC_NAME',
] as const;

/** A host name a browser and this service both read as this machine: an http issuer is accepted there only. */
const isLoopbackHost = (host: string) => host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

/**
 * `VIGIL_OIDC_*`: the deployment's OpenID Connect provider. Unset issuer: none, and then every other OIDC variable
 * must be unset too (a half-configured sign-in stops the start). The issuer is https (http only on a loopback host,
 * for trying it out); the client id, secret and organization are required; mappings, default role and domains are
 * checked here. The client secret is never repeated.
 */
function oidc(env: NodeJS.ProcessEnv): OidcSettings | undefined {
  const values = Object.fromEntries(OIDC_VARIABLES.map((name) => [name, text(env, name)])) as Record<(typeof OIDC_VARIABLES)[number], string | undefined>;
  const issuer = text(env, 'VIGIL_OIDC_ISSUER');
  if (!issuer) {
    const stray = OIDC_VARIABLES.find((name) => values[name] !== undefined);
    if (stray) throw new SettingError(stray, `${stray} is set but VIGIL_OIDC_ISSUER is not: set the issuer to sign in with OpenID Connect, or unset ${stray}`);
    return undefined;
  }
  const url = URL.canParse(issuer) ? new URL(issuer) : null;
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) || url.username || url.password || url.search || url.hash) {
    throw new SettingError('VIGIL_OIDC_ISSUER', 'VIGIL_OIDC_ISSUER must be the provider\'s https issuer URL, such as https://login.example.com/realms/acme (http only on localhost)');
  }
  for (const name of ['VIGIL_OIDC_CLIENT_ID', 'VIGIL_OIDC_CLIENT_SECRET', 'VIGIL_OIDC_ORGANIZATION'] as const) {
    if (!values[name]) throw new SettingError(name, `${name} is required with VIGIL_OIDC_ISSUER`);
  }
  const scopes = (values.VIGIL_OIDC_SCOPES ?? 'openid email profile').split(/[\s,]+/).filter(Boolean);
  if (scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) throw new SettingError('VIGIL_OIDC_SCOPES', 'VIGIL_OIDC_SCOPES must be scope names separated by spaces or commas, such as openid email profile groups');
  const mappings = parseRoleMappings(values.VIGIL_OIDC_ROLE_MAPPINGS ?? '');
  if (typeof mappings === 'string') throw new SettingError('VIGIL_OIDC_ROLE_MAPPINGS', `VIGIL_OIDC_ROLE_MAPPINGS: ${mappings}, such as vigil-admins=org_admin,sre=member`);
  const defaultRole = values.VIGIL_OIDC_DEFAULT_ROLE ?? null;
  if (defaultRole !== null && !isRole(defaultRole)) throw new SettingError('VIGIL_OIDC_DEFAULT_ROLE', `VIGIL_OIDC_DEFAULT_ROLE must be one of ${ROLES.join(', ')}, or unset to refuse a person no mapping names`);
  const domains = (values.VIGIL_OIDC_ALLOWED_DOMAINS ?? '').split(',').map((d) => d.trim().toLowerCase().replace(/^@/, '')).filter(Boolean);
  if (domains.some((d) => !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/.test(d))) {
    throw new SettingError('VIGIL_OIDC_ALLOWED_DOMAINS', 'VIGIL_OIDC_ALLOWED_DOMAINS must be email domains separated by commas, such as example.com,example.org');
  }
  const groupsClaim = values.VIGIL_OIDC_GROUPS_CLAIM ?? 'groups';
  if (groupsClaim.length > 200) throw new SettingError('VIGIL_OIDC_GROUPS_CLAIM', 'VIGIL_OIDC_GROUPS_CLAIM must be a claim name of at most 200 characters');
  return {
    issuer,
    clientId: values.VIGIL_OIDC_CLIENT_ID!,
    clientSecret: values.VIGIL_OIDC_CLIENT_SECRET!,
    scopes: scopes.includes('openid') ? scopes : ['openid', ...scopes],
    organization: values.VIGIL_OIDC_ORGANIZATION!,
    groupsClaim,
    roleMappings: mappings,
    defaultRole,
    allowedDomains: [...new Set(domains)],
    name: (values.VIGIL_OIDC_NAME ?? url.hostname).slice(0, 80),
  };
}

/** Every setting of the service from `env` (default: the process's environment), each checked once. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const database = databaseUrl(env);
  const tick = envNumber(env.VIGIL_NOTIFY_TICK_SECONDS, 'VIGIL_NOTIFY_TICK_SECONDS', 0);
  return {
    port: port(env.PORT),
    host: host(env.HOST),
    publicUrl: publicUrl(env),
    databaseUrl: database,
    dataDir: text(env, 'DATA_DIR') ?? './data',
    preparedStatements: envFlag(env.VIGIL_DATABASE_PREPARED_STATEMENTS, 'VIGIL_DATABASE_PREPARED_STATEMENTS') ?? true,
    operatorToken: operatorToken(env.VIGIL_ADMIN_TOKEN),
    secretKey: secretKey(env),
    bootstrap: envFlag(env.VIGIL_BOOTSTRAP, 'VIGIL_BOOTSTRAP') ?? true,
    trustPrincipalId: text(env, 'VIGIL_TRUST_PRINCIPAL_ID') ?? 'vigil-platform',
    authCacheMs: envNumber(env.VIGIL_AUTH_CACHE_MS, 'VIGIL_AUTH_CACHE_MS', 0),
    runWorkers: envFlag(env.VIGIL_WORKERS, 'VIGIL_WORKERS') ?? true,
    trustedProxies: trustedProxies(env.VIGIL_TRUSTED_PROXIES),
    logLevel: logLevel(env.LOG_LEVEL),
    apiRateLimit: apiRateLimit(env.VIGIL_API_RATE_LIMIT),
    rateLimits: rateLimits(env, database),
    checks: checks(env),
    notify: tick === undefined ? {} : { tickSeconds: tick },
    calendarRefreshSeconds: envNumber(env.VIGIL_CALENDAR_REFRESH_SECONDS, 'VIGIL_CALENDAR_REFRESH_SECONDS', 0) ?? 900,
    ai: ai(env),
    aiPrices: checked('VIGIL_AI_PRICES', () => parsePrices(env.VIGIL_AI_PRICES)),
    codeHost: codeHost(env),
    outbound: outbound(env),
    chat: chat(env),
    email: email(env),
    oidc: oidc(env),
    pushover: pushover(env),
    twilio: twilio(env),
  };
}
