/**
 * A tracker item as the sync sees it, whichever tracker it came from, and the mapping helpers the three readers
 * share. Readers (linear.ts, jira.ts, github-issues.ts) are pure and never throw.
 *
 * Status: each tracker's own category gives the card status; the state's name refines it only within that
 * category (Jira "Blocked" in progress → blocked, Linear "Backlog" → backlog, Jira "Won't Do" done → archived),
 * so a custom name can never move an item across categories.
 */
import { statusOf, type CardPriority, type CardStatus } from '../board/vocabulary.ts';
import { isRecord } from '../../engine/payload.ts';

export const PROVIDERS = ['issue_tracker', 'sprint_tracker', 'code_host'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** The fix label (the spec's neutral stand-in): an item carrying it also asks for a fix pull request. */
export const FIX_LABEL = 'svc-fix';

export interface TrackerItem {
  provider: Provider;
  /** the tracker's own stable id */
  externalId: string;
  /** ENG-123, OPS-7, owner/repo#12 */
  identifier: string;
  title: string;
  description: string | null;
  url: string | null;
  labels: string[];
  /** values the rule's project (or repo) may name: a Linear team's key and id, a Jira project's key and id, a repository's owner/name */
  projects: string[];
  /** Jira's issue type; null elsewhere */
  itemType: string | null;
  /** the card status the tracker's state maps to; null when it maps to none */
  status: CardStatus | null;
  /** the tracker's own words for the state, for the delivery log */
  state: string | null;
  /** null when the tracker has no priority (GitHub issues) */
  priority: CardPriority | null;
  /** removed or deleted in the tracker */
  removed: boolean;
  /** the item's own last-change time */
  updatedAt: Date | null;
  /** the code host's repository (owner/name), which a fix targets */
  repo: string | null;
}

export type ReadResult = { kind: 'item'; item: TrackerItem } | { kind: 'ignored'; reason: string };

export const ignored = (reason: string): ReadResult => ({ kind: 'ignored', reason });


/** Card limits (cards.ts): longer tracker text is cut, never refused. */
const MAX_TITLE = 500;
const MAX_DESCRIPTION = 60_000;
const MAX_LABELS = 50;
const MAX_LABEL = 100;

/** A string as PostgreSQL can hold it, trimmed and cut to `max`; undefined for anything else or blank. */
export function text(value: unknown, max = 500): string | undefined {
  if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) return undefined;
  const s = String(value).toWellFormed().replaceAll('\u0000', '').trim();
  if (s === '') return undefined;
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

export const title = (value: unknown, fallback: string) => text(value, MAX_TITLE) ?? fallback;
export const description = (value: unknown) => text(value, MAX_DESCRIPTION) ?? null;

/** Label names from `[{ name }]`, `{ nodes: [{ name }] }` or `["name"]`: distinct, at most 50 of ≤100 characters. */
export function labelNames(value: unknown): string[] {
  const list = isRecord(value) && Array.isArray(value.nodes) ? value.nodes : value;
  if (!Array.isArray(list)) return [];
  const out: string[] = [];
  for (const entry of list) {
    const name = text(isRecord(entry) ? entry.name : entry, MAX_LABEL);
    if (name && !out.includes(name)) out.push(name);
    if (out.length === MAX_LABELS) break;
  }
  return out;
}

export function time(value: unknown): Date | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value);
  if (typeof value !== 'string') return null;
  // Jira writes offsets without a colon: 2026-03-01T12:00:00.000+0000
  const date = new Date(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(date.getTime()) ? null : date;
}

export const httpUrl = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
};

/** Statuses a state's name may pick within its category. */
export const NOT_STARTED: readonly CardStatus[] = ['backlog', 'triage', 'todo', 'blocked'];
export const IN_PROGRESS: readonly CardStatus[] = ['in_progress', 'blocked'];
export const FINISHED: readonly CardStatus[] = ['done', 'archived'];

/** The category's status, refined by the state's name when that name means a status the category allows. */
export function refine(base: CardStatus, name: unknown, allowed: readonly CardStatus[]): CardStatus {
  const named = statusOf(name);
  return named !== undefined && allowed.includes(named) ? named : base;
}

export const hasLabel = (item: TrackerItem, label: string) => item.labels.some((l) => l.toLowerCase() === label.toLowerCase());
