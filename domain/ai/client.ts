/**
 * The one AI provider client. `complete` asks the organization's enabled `ai_providers` rows, lowest `priority`
 * first (ties by name), then — unless `own_providers_only` — the deployment's platform provider (`VIGIL_AI_*`),
 * and answers the first completion it gets. Per row:
 * - model: `model_overrides[purpose]`, else `model`; `auto` or null stand for the platform default model
 *   (`VIGIL_AI_MODEL`); with `auto_upgrade_model`, a row's own model that left the provider's list moves to its
 *   successor first (upgrade.ts);
 * - `max_tokens`, `temperature` (omitted when null), `timeout_ms` per attempt (defaults in providers.ts);
 * - `rate_limit_rpm`: a row out of requests this minute is skipped, not waited for (limiter.ts);
 * - the retry budget (`ai_settings.retry_budget`): extra attempts after a retryable failure — a provider that could
 *   not be reached (a refused address, a timeout, a failed connection alike), 429, 408 or 5xx (wire.ts) — with a
 *   short backoff (or the provider's Retry-After when it is at most
 *   `MAX_RETRY_WAIT_MS`; a longer one moves on at once); any other failure moves on at once.
 * The row's `name` is never sent; the key goes only in the Authorization header. With `anonymization_enabled`
 * every message is redacted first (redact.ts) and the answer's e-mail, IP and host placeholders are put back.
 * Each answer is written to the spend ledger (ledger.ts) before it is returned. No provider answering throws
 * `AiUnavailable`, whose message names each provider tried and why it failed (never a key, URL or prompt).
 * Call it outside any database transaction: it waits on the network and writes the ledger itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Services } from '../../engine/services.ts';
import type { AI_PURPOSES } from '../../resources/ai_providers.ts';
import { recordSpend } from './ledger.ts';
import { takeRequest } from './limiter.ts';
import { costOf } from './prices.ts';
import { baseUrlOf, DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_MS, enabledProviders, readAiSettings, type ProviderRow } from './providers.ts';
import { Redactor } from './redact.ts';
import { upgradedModel } from './upgrade.ts';
import { chatCompletion, type ChatMessage, type Endpoint, type ResponseFormat } from './wire.ts';
import { outboundHttp, type OutboundHttp } from '../../outbound/net/http.ts';

export type { ChatMessage, ResponseFormat } from './wire.ts';
export type AiPurpose = (typeof AI_PURPOSES)[number];

export interface CompleteRequest {
  /** the organization whose providers, settings and ledger are used */
  organization: { id: string };
  purpose: AiPurpose;
  messages: ChatMessage[];
  responseFormat?: ResponseFormat;
  /** what the call is for, kept on the ledger row (an investigation id, a fix request id) */
  reference?: string;
  /** share one across calls so a value gets the same placeholder in each (an investigation's agents) */
  redactor?: Redactor;
}

export interface AiAnswer {
  content: string;
  /** the provider row's name, or `platform` */
  provider: string;
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number };
  cost_usd: number;
}

export type AiUnavailableReason = 'no_provider' | 'all_failed';

export interface AttemptReport {
  provider: string;
  outcome: string;
}

/** No provider answered; `message` says why, provider by provider. */
export class AiUnavailable extends Error {
  readonly reason: AiUnavailableReason;
  readonly attempts: AttemptReport[];
  constructor(reason: AiUnavailableReason, message: string, attempts: AttemptReport[] = []) {
    super(message);
    this.name = 'AiUnavailable';
    this.reason = reason;
    this.attempts = attempts;
  }
}

export const PLATFORM = 'platform';
export const MAX_RETRY_WAIT_MS = 2000;
const BACKOFF_BASE_MS = 200;

interface Target {
  label: string;
  /** the rate-limit key; null: no limit */
  rowId: string | null;
  endpoint: Endpoint;
  model: string;
  max_tokens: number;
  temperature: number | null;
  timeout_ms: number;
  rate_limit_rpm: number | null;
}

type Tried = { ok: true; content: string; usage: AiAnswer['usage'] } | { ok: false; reason: string };

/** The organization's AI settings and enabled providers, and whether the deployment's platform provider may be used; throws `no_provider` when nothing could be asked. */
async function providersFor(services: Services, organizationId: string) {
  const [settings, rows] = await Promise.all([readAiSettings(services, organizationId), enabledProviders(services, organizationId)]);
  const platformAllowed = !settings.own_providers_only && Boolean(services.config.ai?.baseUrl);
  if (rows.length === 0 && !platformAllowed) {
    throw new AiUnavailable('no_provider', settings.own_providers_only
      ? 'No AI provider can be used: own_providers_only is on and the organization has no enabled AI provider. Add or enable one (ai_providers), or turn own_providers_only off.'
      : 'No AI provider can be used: the organization has no enabled AI provider and this deployment has no platform provider (VIGIL_AI_BASE_URL).');
  }
  return { settings, rows, platformAllowed };
}

/** Throws AiUnavailable (`no_provider`) when `complete` could ask no provider: checked before gathering what only an answer would use. */
export async function requireProvider(services: Services, organizationId: string): Promise<void> {
  await providersFor(services, organizationId);
}

export async function complete(services: Services, request: CompleteRequest, now: Date): Promise<AiAnswer> {
  const organizationId = request.organization.id;
  const { settings, rows, platformAllowed } = await providersFor(services, organizationId);
  const redactor = settings.anonymization_enabled ? (request.redactor ?? new Redactor()) : null;
  const messages = redactor ? request.messages.map((m) => ({ ...m, content: redactor.redact(m.content) })) : request.messages;
  const attempts: AttemptReport[] = [];

  const candidates = rows.map((row) => ({ label: row.name, target: () => rowTarget(services, organizationId, row, request.purpose, now) }));
  if (platformAllowed) candidates.push({ label: PLATFORM, target: async () => platformTarget(services) });
  for (const candidate of candidates) {
    const target = await candidate.target();
    if (typeof target === 'string') {
      attempts.push({ provider: candidate.label, outcome: target });
      continue;
    }
    const tried = await ask(outboundHttp(services), target, messages, request.responseFormat, settings.retry_budget);
    if (!tried.ok) {
      attempts.push({ provider: target.label, outcome: tried.reason });
      services.log.warn({ organization: organizationId, provider: target.label, purpose: request.purpose, reason: tried.reason }, 'AI provider did not answer');
      continue;
    }
    const cost = costOf(target.model, tried.usage, services.config.aiPrices);
    await recordSpend(services, {
      organizationId, purpose: request.purpose, reference: request.reference ?? null, provider: target.label, model: target.model,
      usage: tried.usage, cost_usd: cost.cost_usd, note: cost.note,
    }, now);
    return { content: redactor ? redactor.restore(tried.content) : tried.content, provider: target.label, model: target.model, usage: tried.usage, cost_usd: cost.cost_usd };
  }
  if (!platformAllowed) {
    attempts.push({ provider: PLATFORM, outcome: settings.own_providers_only ? 'not used: own_providers_only is on' : 'not configured (VIGIL_AI_BASE_URL)' });
  }
  throw new AiUnavailable('all_failed', `No AI provider answered: ${attempts.map((a) => `${a.provider}: ${a.outcome}`).join('; ')}.`, attempts);
}

/** The row ready to call, or why it cannot be. */
async function rowTarget(services: Services, organizationId: string, row: ProviderRow, purpose: AiPurpose, now: Date): Promise<Target | string> {
  const baseUrl = baseUrlOf(row);
  if (!baseUrl) return `skipped: a ${row.provider} provider needs a base_url`;
  let apiKey: string | null = null;
  if (row.api_key) {
    try {
      apiKey = services.secrets.open(row.api_key);
    } catch {
      return 'skipped: its stored key cannot be read (was VIGIL_SECRET_KEY changed?)';
    }
  }
  const endpoint = { baseUrl, apiKey };
  const pinned = row.model_overrides[purpose];
  let model: string | null;
  if (pinned && pinned !== 'auto') model = pinned;
  else if (pinned === 'auto') model = null;
  else model = await upgradedModel(services, organizationId, row, endpoint, now);
  if (model === null || model === 'auto') model = services.config.ai?.model ?? null;
  if (!model) return 'skipped: it names no model and the deployment has no platform default model (VIGIL_AI_MODEL)';
  return {
    label: row.name, rowId: row.id, endpoint, model, max_tokens: row.max_tokens ?? DEFAULT_MAX_TOKENS, temperature: row.temperature,
    timeout_ms: row.timeout_ms ?? DEFAULT_TIMEOUT_MS, rate_limit_rpm: row.rate_limit_rpm,
  };
}

function platformTarget(services: Services): Target | string {
  const platform = services.config.ai!;
  if (!platform.model) return 'skipped: the deployment sets no platform model (VIGIL_AI_MODEL)';
  return {
    label: PLATFORM, rowId: null, endpoint: { baseUrl: platform.baseUrl, apiKey: platform.apiKey ?? null }, model: platform.model,
    max_tokens: DEFAULT_MAX_TOKENS, temperature: null, timeout_ms: DEFAULT_TIMEOUT_MS, rate_limit_rpm: null,
  };
}

/** One provider: the first attempt and up to `retryBudget` more after retryable failures. */
async function ask(http: OutboundHttp, target: Target, messages: ChatMessage[], responseFormat: ResponseFormat | undefined, retryBudget: number): Promise<Tried> {
  const body = {
    model: target.model,
    messages,
    max_tokens: target.max_tokens,
    ...(target.temperature !== null ? { temperature: target.temperature } : {}),
    ...(responseFormat ? { response_format: responseFormat } : {}),
  };
  let reason = 'not tried';
  for (let attempt = 0; ; attempt++) {
    if (target.rowId && !(await takeRequest(target.rowId, target.rate_limit_rpm))) {
      const limited = `rate limit of ${target.rate_limit_rpm} requests per minute reached`;
      return { ok: false, reason: attempt === 0 ? `skipped: ${limited}` : `${reason}, then its ${limited}` };
    }
    const result = await chatCompletion(http, target.endpoint, body, target.timeout_ms);
    if (result.ok) return result;
    const tries = attempt + 1;
    reason = `${result.reason}${tries > 1 ? ` (${tries} attempts)` : ''}`;
    if (!result.retryable) return { ok: false, reason: `${reason}; not retried` };
    if (attempt >= retryBudget) return { ok: false, reason };
    const wait = result.retryAfterMs ?? BACKOFF_BASE_MS * 2 ** attempt;
    if (wait > MAX_RETRY_WAIT_MS) return { ok: false, reason: `${reason}; asked to wait ${Math.ceil(wait / 1000)} s, so not retried` };
    await sleep(wait);
  }
}
