/**
 * Writing a timeline entry: one statement, `insert … on conflict (organization_id, source, dedup_key) do update`,
 * so deliveries of one key that race (a CI run's start and end, GitHub redelivering) make one entry whatever their
 * number or order, with no lock taken by hand. Without a key every delivery is a new entry.
 *
 * On an update a field the later delivery did not send keeps its earlier value (a CI run's start says who and
 * which version, its end says how it went); event type and status fall back to their defaults only when the entry
 * is created. A terminal status (succeeded, failed, cancelled) is not put back to started or in_progress by a
 * delivery that arrives late or is replayed; another terminal status does replace it (a re-run). `details` are
 * merged key by key. `occurred_at` is recomputed: completed_at, else started_at, else the first delivery's time.
 */
import { randomUUID } from 'node:crypto';
import type { SqlExecutor } from '../../engine/persistence/store.ts';
import { TERMINAL_STATUSES, type EventType, type Status, type TimelineSource } from './vocabulary.ts';

/** The optional text columns, in table order. */
export const TEXT_COLUMNS = [
  'environment', 'version', 'previous_version', 'deployed_by', 'description', 'commit_sha', 'repo_full_name',
  'pr_url', 'compare_url', 'run_url', 'branch', 'author',
] as const;
export type TextColumn = (typeof TEXT_COLUMNS)[number];

/** One delivery's view of an entry; `undefined` is "not sent". */
export interface EntryDraft {
  source: TimelineSource;
  dedup_key?: string | undefined;
  service: string;
  /** undefined: keep the entry's (on create: the default) */
  event_type?: EventType | undefined;
  status?: Status | undefined;
  fields: Partial<Record<TextColumn, string>>;
  started_at?: Date | undefined;
  completed_at?: Date | undefined;
  details?: Record<string, unknown> | undefined;
}

export interface Recorded {
  id: string;
  action: 'created' | 'updated';
}

export const DEFAULT_EVENT_TYPE: EventType = 'deploy';
export const DEFAULT_STATUS: Status = 'succeeded';

const TERMINAL = TERMINAL_STATUSES.map((s) => `'${s}'`).join(', ');

const COLUMNS = ['id', 'organization_id', 'source', 'dedup_key', 'event_type', 'status', 'service', ...TEXT_COLUMNS,
  'started_at', 'completed_at', 'occurred_at', 'details', 'created_at', 'updated_at'] as const;

const UPSERT = `
  insert into timeline_entries as t (${COLUMNS.join(', ')})
  values (${COLUMNS.map((c) => (c === 'details' ? '?::jsonb' : '?')).join(', ')})
  on conflict (organization_id, source, dedup_key) do update set
    event_type = coalesce(?::text, t.event_type),
    status = case when ?::text is null then t.status
                  when t.status in (${TERMINAL}) and ?::text not in (${TERMINAL}) then t.status
                  else ?::text end,
    service = excluded.service,
    ${TEXT_COLUMNS.map((c) => `${c} = coalesce(excluded.${c}, t.${c})`).join(',\n    ')},
    started_at = coalesce(excluded.started_at, t.started_at),
    completed_at = coalesce(excluded.completed_at, t.completed_at),
    occurred_at = coalesce(excluded.completed_at, t.completed_at, excluded.started_at, t.started_at, t.created_at),
    details = case when excluded.details is null then t.details else coalesce(t.details, '{}'::jsonb) || excluded.details end,
    updated_at = excluded.updated_at
  returning t.id, (t.xmax = 0) as inserted`;

/** Creates the entry, or updates the one with the same key (on `sql`: the connection, or a transaction). */
export async function recordEntry(sql: SqlExecutor, organizationId: string, draft: EntryDraft, now: Date): Promise<Recorded> {
  const values: Record<(typeof COLUMNS)[number], unknown> = {
    id: randomUUID(),
    organization_id: organizationId,
    source: draft.source,
    dedup_key: draft.dedup_key ?? null,
    event_type: draft.event_type ?? DEFAULT_EVENT_TYPE,
    status: draft.status ?? DEFAULT_STATUS,
    service: draft.service,
    ...Object.fromEntries(TEXT_COLUMNS.map((c) => [c, draft.fields[c] ?? null])),
    started_at: draft.started_at ?? null,
    completed_at: draft.completed_at ?? null,
    occurred_at: draft.completed_at ?? draft.started_at ?? now,
    details: draft.details ? JSON.stringify(draft.details) : null,
    created_at: now,
    updated_at: now,
  } as Record<(typeof COLUMNS)[number], unknown>;
  const sentStatus = draft.status ?? null;
  const [row] = await sql(UPSERT, [
    ...COLUMNS.map((c) => values[c]),
    draft.event_type ?? null, sentStatus, sentStatus, sentStatus,
  ]);
  return { id: String(row!.id), action: row!.inserted === true || row!.inserted === 't' ? 'created' : 'updated' };
}
