/**
 * `auto_upgrade_model`: before a row's own `model` is used (not a per-purpose pin), the provider's model list
 * (`GET {base_url}/models`, read at most once per `CHECK_INTERVAL_MS` per row in this process) is checked. When
 * the configured model is no longer listed, its successor is the newest listed model of the same family: the
 * configured id with its trailing date, release-tag and version parts removed (`model-large-2024-01` → `model-large`,
 * `gpt-4o-2024-05-13` → `gpt-4o`, `gpt-4-0613` → `gpt-4`; a two-part `gpt-4` stays itself), matching every listed id that is that family or starts with it and a `-`.
 * Newest is the largest `created` when the provider reports it, else the largest id in natural order. No candidate,
 * or a list that cannot be read: nothing changes.
 *
 * The move is a compare-and-set on the row (two instances never both move it), bumps its version (ETag) and
 * `updated_at`, and writes an audit entry by the system caller: actor `{ kind: "system", id: "auto_upgrade_model" }`,
 * transport `system`, action `update`, change `model: { before, after }`.
 */
import type { Caller } from '../../engine/auth/caller.ts';
import { diffRows, recordAudit } from '../../engine/operations/audit.ts';
import { inTransaction } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import aiProviders from '../../resources/ai_providers.ts';
import type { ProviderRow } from './providers.ts';
import { listModels, type Endpoint, type ListedModel } from './wire.ts';
import { outboundHttp } from '../../outbound/net/http.ts';

export const CHECK_INTERVAL_MS = 60 * 60_000;
const LIST_TIMEOUT_MS = 10_000;

const checkedAt = new Map<string, number>();

/** Parts that date or tag a release, always dropped; short numbers are dropped only while two parts remain (`gpt-4` stays). */
const RELEASE_PART = /^(?:\d{4,8}|latest|preview|exp|experimental)$/i;
const SHORT_NUMBER = /^(?:\d{1,3}|v\d+(?:\.\d+)*)$/i;

export function modelFamily(model: string): string {
  const parts = model.split('-');
  while (parts.length > 1 && (RELEASE_PART.test(parts.at(-1)!) || (parts.length > 2 && SHORT_NUMBER.test(parts.at(-1)!)))) parts.pop();
  return parts.join('-');
}

export function successorOf(model: string, listed: readonly ListedModel[]): string | undefined {
  const base = modelFamily(model);
  const candidates = listed.filter((m) => m.id !== model && (m.id === base || m.id.startsWith(`${base}-`)));
  if (candidates.length === 0) return undefined;
  const byId = (a: ListedModel, b: ListedModel) => a.id.localeCompare(b.id, 'en', { numeric: true });
  candidates.sort((a, b) => (a.created ?? -Infinity) - (b.created ?? -Infinity) || byId(a, b));
  return candidates.at(-1)!.id;
}

const SYSTEM_ID = 'auto_upgrade_model';

function systemCaller(organizationId: string): Caller {
  return {
    organization: { id: organizationId, name: '', plan: 'business', disabled: false, features: {}, flags: {} },
    credential: { kind: 'system', id: SYSTEM_ID, scopes: [] },
    role: 'org_admin',
    transport: 'system',
    endpointFeature: 'config_api',
    requestId: SYSTEM_ID,
  };
}

/** The model to use for the row: its own, or the successor it was just moved to. */
export async function upgradedModel(services: Services, organizationId: string, row: ProviderRow, endpoint: Endpoint, now: Date): Promise<string | null> {
  const model = row.model;
  if (!row.auto_upgrade_model || model === null || model === 'auto') return model;
  const key = `${row.id}:${model}`;
  const last = checkedAt.get(key);
  if (last !== undefined && now.getTime() - last < CHECK_INTERVAL_MS) return model;
  checkedAt.set(key, now.getTime());
  const listed = await listModels(outboundHttp(services), endpoint, Math.min(row.timeout_ms ?? LIST_TIMEOUT_MS, LIST_TIMEOUT_MS));
  if (!listed || listed.some((m) => m.id === model)) return model;
  const next = successorOf(model, listed);
  if (!next) {
    services.log.warn({ organization: organizationId, provider_id: row.id }, 'configured AI model is no longer listed and has no successor');
    return model;
  }
  const d = services.registry.family(aiProviders);
  const moved = await inTransaction(services, async (store) => {
    const existing = await store.get(d, organizationId, row.id, true);
    if (!existing || existing.model !== model) return (existing?.model as string | null | undefined) ?? model; // someone else moved or changed it
    const written = await store.update(d, existing, { model: next }, now);
    await recordAudit(services, store, { caller: systemCaller(organizationId), family: d.name, rowId: row.id, action: 'update', changes: diffRows(d, existing, written), at: now });
    return next;
  });
  services.log.info({ organization: organizationId, provider_id: row.id, from: model, to: moved }, 'AI model auto-upgraded');
  return moved;
}
