/**
 * The words of the timeline, shared by both webhooks and the tools (the spec leaves them to us):
 *
 * - event types a `deployments` delivery may send: `deploy` (the default), `rollback`, `config_change`,
 *   `feature_flag`, `scale`, `restart`;
 * - event types only the `code-host` source writes, one per GitHub event: `code_push` (push to the default
 *   branch), `pull_request_merged`, `workflow_run` (a completed GitHub Actions run), `release` (published); a
 *   GitHub `deployment_status` is a deploy and is written as `deploy`, so `event_type=deploy` lists deploys
 *   whichever way they were reported;
 * - statuses: `started`, `in_progress`, `succeeded` (the default), `failed`, `cancelled`. The last three are
 *   terminal: a terminal entry is not put back to `started`/`in_progress` by a late or replayed delivery.
 *
 * Values are read without regard to case, with `-` or a space taken as `_`, and with the synonyms CI systems use
 * (below); anything else is refused, never guessed.
 */

export const DEPLOYMENT_EVENT_TYPES = ['deploy', 'rollback', 'config_change', 'feature_flag', 'scale', 'restart'] as const;
export const CODE_EVENT_TYPES = ['code_push', 'pull_request_merged', 'workflow_run', 'release'] as const;
export const EVENT_TYPES = [...DEPLOYMENT_EVENT_TYPES, ...CODE_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const STATUSES = ['started', 'in_progress', 'succeeded', 'failed', 'cancelled'] as const;
export type Status = (typeof STATUSES)[number];
export const TERMINAL_STATUSES: readonly Status[] = ['succeeded', 'failed', 'cancelled'];

export const TIMELINE_SOURCES = ['deployments', 'code-host'] as const;
export type TimelineSource = (typeof TIMELINE_SOURCES)[number];

/** Synonyms accepted on the `deployments` webhook, after lowercasing and `-`/space → `_`. */
export const EVENT_TYPE_SYNONYMS: Record<string, (typeof DEPLOYMENT_EVENT_TYPES)[number]> = {
  deployment: 'deploy',
  roll_back: 'rollback',
  config: 'config_change',
  configuration_change: 'config_change',
  flag: 'feature_flag',
  feature_flag_change: 'feature_flag',
  scaling: 'scale',
};

export const STATUS_SYNONYMS: Record<string, Status> = {
  start: 'started',
  pending: 'started',
  queued: 'started',
  running: 'in_progress',
  in_process: 'in_progress',
  success: 'succeeded',
  successful: 'succeeded',
  passed: 'succeeded',
  failure: 'failed',
  error: 'failed',
  errored: 'failed',
  canceled: 'cancelled',
  aborted: 'cancelled',
};

// synonyms are looked up as own keys: a sender's "constructor" is no synonym
const word = (value: string) => value.trim().toLowerCase().replace(/[\s-]+/g, '_');

export function deploymentEventType(value: string): (typeof DEPLOYMENT_EVENT_TYPES)[number] | undefined {
  const w = word(value);
  return (DEPLOYMENT_EVENT_TYPES as readonly string[]).includes(w) ? (w as (typeof DEPLOYMENT_EVENT_TYPES)[number]) : Object.hasOwn(EVENT_TYPE_SYNONYMS, w) ? EVENT_TYPE_SYNONYMS[w] : undefined;
}

export function status(value: string): Status | undefined {
  const w = word(value);
  return (STATUSES as readonly string[]).includes(w) ? (w as Status) : Object.hasOwn(STATUS_SYNONYMS, w) ? STATUS_SYNONYMS[w] : undefined;
}

/** Length limits of the text fields, in characters (refused above on `deployments`, cut on `code-host`). */
export const LIMITS = {
  name: 200,
  url: 2000,
  description: 4000,
  dedupKey: 200,
} as const;

/**
 * Text as PostgreSQL can hold it: NUL characters dropped, lone UTF-16 surrogates made U+FFFD, trimmed;
 * undefined when nothing is left.
 */
export function clean(value: string): string | undefined {
  const s = value.toWellFormed().replaceAll('\u0000', '').trim();
  return s === '' ? undefined : s;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;
const EARLIEST = Date.UTC(1990, 0, 1);
const LATEST = Date.UTC(2200, 0, 1);

/**
 * An ISO 8601 / RFC 3339 date-time with its offset (`Z`, `+02:00`, `+0200`, `+02`), seconds and fraction
 * optional; a real calendar date between 1990 and 2200. Anything else (no offset, a date alone, an epoch
 * number, 2026-02-30) is undefined.
 */
export function parseTimestamp(value: string): Date | undefined {
  const m = TIMESTAMP.exec(value.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const second = Number(m[6] ?? 0);
  const ms = Math.floor(Number(`0.${m[7] ?? '0'}`) * 1000);
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const offsetHours = m[10] === undefined ? 0 : Number(m[10]);
  const offsetMinutes = m[11] === undefined ? 0 : Number(m[11]);
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  // a leap second (:60) counts as the last instant of its minute
  const at = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), second === 60 ? 999 : ms) - offset;
  return at >= EARLIEST && at <= LATEST ? new Date(at) : undefined;
}
