/**
 * Where an organization's AI work may go, read once per call: its `ai_settings` (defaults when never written) and
 * its enabled `ai_providers` rows, lowest `priority` first, ties by name. Rows are read through the registry's
 * descriptors, so they are exactly what the configuration API stores; stored keys are opened here and nowhere else.
 *
 * Base URLs: a row's `base_url` wins. Without one, a kind with a public OpenAI-compatible endpoint uses it
 * (`KIND_BASE_URLS`); `self_hosted`, `gateway`, `cloud_platform` and `framework` have no public default (the
 * endpoint is the customer's own deployment) and a row of those kinds without `base_url` is skipped with a reason.
 */
import type { Row } from '../../engine/descriptor.ts';
import { defaultRow } from '../../engine/operations/project.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import aiProviders, { type PROVIDER_KINDS } from '../../resources/ai_providers.ts';
import aiSettings, { DEFAULT_RETRY_BUDGET } from '../../resources/ai_settings.ts';
import { jsonValue } from '../../engine/persistence/store.ts';

export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** The public OpenAI-compatible endpoint of each kind that has one (the neutral kind names' usual vendors). */
export const KIND_BASE_URLS: Partial<Record<ProviderKind, string>> = {
  vendor_a: 'https://api.openai.com/v1',
  vendor_b: 'https://api.anthropic.com/v1',
  vendor_c: 'https://generativelanguage.googleapis.com/v1beta/openai',
  aggregator: 'https://openrouter.ai/api/v1',
};

/** Used when a row (or the platform) leaves them null. */
export const DEFAULT_MAX_TOKENS = 4096;
export const DEFAULT_TIMEOUT_MS = 60_000;

export interface ProviderRow {
  id: string;
  name: string;
  provider: ProviderKind;
  /** sealed, as stored */
  api_key: string | null;
  base_url: string | null;
  model: string | null;
  model_overrides: Record<string, string>;
  auto_upgrade_model: boolean;
  enabled: boolean;
  priority: number;
  max_tokens: number | null;
  temperature: number | null;
  timeout_ms: number | null;
  rate_limit_rpm: number | null;
}

export interface AiSettings {
  own_providers_only: boolean;
  anonymization_enabled: boolean;
  retry_budget: number;
  multi_agent_investigation: boolean;
}


function providerRow(r: Row): ProviderRow {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    id: String(r.id), name: String(r.name), provider: r.provider as ProviderKind, api_key: (r.api_key as string | null) ?? null,
    base_url: (r.base_url as string | null) ?? null, model: (r.model as string | null) ?? null,
    model_overrides: (jsonValue(r.model_overrides) as Record<string, string> | null) ?? {}, auto_upgrade_model: r.auto_upgrade_model === true,
    enabled: r.enabled !== false, priority: Number(r.priority ?? 1), max_tokens: num(r.max_tokens), temperature: num(r.temperature),
    timeout_ms: num(r.timeout_ms), rate_limit_rpm: num(r.rate_limit_rpm),
  };
}

export async function readAiSettings(services: Services, organizationId: string): Promise<AiSettings> {
  const d = services.registry.family(aiSettings);
  const stored = (await readStore(services).get(d, organizationId, organizationId)) ?? {};
  const defaults = defaultRow(d);
  const pick = (k: string) => stored[k] ?? defaults[k];
  return {
    own_providers_only: pick('own_providers_only') === true,
    anonymization_enabled: pick('anonymization_enabled') === true,
    retry_budget: typeof stored.retry_budget === 'number' ? stored.retry_budget : DEFAULT_RETRY_BUDGET,
    multi_agent_investigation: pick('multi_agent_investigation') === true,
  };
}

/** Enabled rows in the order the router tries them. */
export async function enabledProviders(services: Services, organizationId: string): Promise<ProviderRow[]> {
  const rows = (await readStore(services).list(services.registry.family(aiProviders), organizationId)).map(providerRow);
  // sorted here, not by the database: names compare by code point whatever the database's collation
  return rows.filter((r) => r.enabled).sort((a, b) => a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function baseUrlOf(row: Pick<ProviderRow, 'base_url' | 'provider'>): string | undefined {
  return row.base_url ?? KIND_BASE_URLS[row.provider];
}
