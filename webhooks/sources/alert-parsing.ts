/**
 * Helpers shared by the alert source parsers: safe reading of untrusted JSON, bounded strings, timestamps,
 * label maps with secrets removed, and the never-throw wrapper every `parse` goes through.
 */
import { createHash } from 'node:crypto';
import { httpUrl, isRecord, isSecretKey, text, type Json } from '../../engine/payload.ts';
import type { AlertEvent, AlertSeverity, AlertSource } from '../../domain/alerts/event.ts';
import type { ParseResult, Parser } from './parser.ts';

export const MAX_TITLE = 300;
export const MAX_SUMMARY = 4_000;
export const MAX_LABELS = 64;
export const MAX_LABEL_KEY = 128;
export const MAX_LABEL_VALUE = 1_024;
export const MAX_ID = 512;
export const MAX_URL = 2_048;
/** Grouped payloads (Grafana, Alertmanager) carrying more alerts than this are refused as unreadable. */
export const MAX_ALERTS_PER_REQUEST = 1_000;

/** An identifier: a string or number, never truncated (a truncated id would merge different alerts). */
export function id(value: unknown): string | undefined {
  const s = text(value, Number.MAX_SAFE_INTEGER);
  return s !== undefined && s.length <= MAX_ID ? s : undefined;
}

const SECRET_ASSIGNMENT =
  /\b([a-z0-9_-]{0,32}?(?:secret|token|password|passwd|pwd|api[_-]?key|apikey|access[_-]?key|signature|sig|credential)s?)([ \t]{0,8}[=:][ \t]{0,8})("[^"\n]{0,512}"|'[^'\n]{0,512}'|[^\s&,;"']{1,2048})/gi;
const BEARER = /\b(bearer|basic)[ \t]{1,8}[a-z0-9._~+/=-]{8,}/gi;

/** Removes values that look like credentials (`token=…`, `password: …`, `Bearer …`) from free text. */
export function scrub(value: string): string {
  return value
    .replace(SECRET_ASSIGNMENT, (_m, key: string, sep: string) => `${key}${sep}[redacted]`)
    .replace(BEARER, (_m, scheme: string) => `${scheme} [redacted]`);
}

/** Builds a label map: string values only, bounded, secrets under secret-looking keys replaced. */
export class Labels {
  readonly map: Record<string, string> = {};
  #count = 0;

  set(key: string, value: unknown): this {
    const k = text(key, MAX_LABEL_KEY);
    const v = text(value);
    if (k === undefined || v === undefined) return this;
    if (k === '__proto__') return this;
    if (!Object.hasOwn(this.map, k)) {
      if (this.#count >= MAX_LABELS) return this;
      this.#count++;
    }
    this.map[k] = isSecretKey(k) ? '[redacted]' : scrub(v);
    return this;
  }

  /** Copies the scalar entries of an object (nested objects and arrays are left out). */
  setAll(obj: Json | undefined, prefix = ''): this {
    if (!obj) return this;
    for (const key of Object.keys(obj)) this.set(prefix + key, obj[key]);
    return this;
  }
}

/** A severity from the words products and users put in labels and priorities. */
export function severityFromWord(word: string | undefined): AlertSeverity | undefined {
  if (!word) return undefined;
  const w = word.trim().toLowerCase();
  if (['critical', 'crit', 'fatal', 'emergency', 'emerg', 'alert', 'disaster', 'sev1', 'sev-1', 'sev0', 'p0', 'p1', '1', '0'].includes(w)) return 'critical';
  if (['high', 'error', 'err', 'major', 'severe', 'page', 'sev2', 'sev-2', 'p2', '2'].includes(w)) return 'high';
  if (['warning', 'warn', 'medium', 'moderate', 'minor', 'average', 'sev3', 'sev-3', 'p3', '3'].includes(w)) return 'warning';
  if (['info', 'information', 'informational', 'low', 'notice', 'none', 'ok', 'debug', 'sev4', 'sev-4', 'sev5', 'p4', 'p5', '4', '5'].includes(w)) return 'info';
  return undefined;
}

/** A short stable digest, for fingerprints of payloads that carry no id of their own. */
export function digest(parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

export function fingerprint(source: AlertSource, ...parts: string[]): string {
  return `${source}:${parts.join(':')}`;
}

/** Builds an event, dropping absent optional fields and bounding the texts. */
export function event(e: {
  fingerprint: string;
  status: AlertEvent['status'];
  title: string;
  source: AlertSource;
  severity: AlertSeverity;
  labels: Record<string, string>;
  service?: string | undefined;
  summary?: string | undefined;
  url?: string | undefined;
  started_at?: string | undefined;
  ended_at?: string | undefined;
  external_id?: string | undefined;
  links?: Record<string, string> | undefined;
}): AlertEvent {
  const out: AlertEvent = {
    fingerprint: e.fingerprint,
    status: e.status,
    title: text(scrub(e.title.slice(0, MAX_TITLE * 2)), MAX_TITLE) ?? e.source,
    source: e.source,
    severity: e.severity,
    labels: e.labels,
  };
  const service = e.service === undefined ? undefined : text(e.service, 200);
  if (service !== undefined) out.service = service;
  const summary = e.summary === undefined ? undefined : text(scrub(e.summary.slice(0, MAX_SUMMARY * 2)), MAX_SUMMARY);
  if (summary !== undefined) out.summary = summary;
  const url = e.url === undefined ? undefined : httpUrl(e.url);
  if (url !== undefined) out.url = url;
  if (e.started_at !== undefined) out.started_at = e.started_at;
  if (e.ended_at !== undefined) out.ended_at = e.ended_at;
  if (e.external_id !== undefined) out.external_id = e.external_id;
  // an http(s) link is cleaned as `url` is (no credentials); anything else is kept as text, which the console shows unlinked
  const links = Object.entries(e.links ?? {}).flatMap(([kind, v]) => {
    const kept = httpUrl(v) ?? text(v, MAX_URL);
    return kept === undefined ? [] : [[kind, kept] as const];
  });
  if (links.length) out.links = Object.fromEntries(links);
  return out;
}

export function unreadable(reason: string): ParseResult {
  return { kind: 'unreadable', reason };
}

export function alerts(events: AlertEvent[]): ParseResult {
  return { kind: 'alerts', events };
}

/** Every exported parser goes through this: whatever the input, an answer and never an exception. */
export function safe(name: string, parse: Parser): Parser {
  return (body: unknown): ParseResult => {
    try {
      return parse(body);
    } catch {
      return unreadable(`the ${name} payload could not be read`);
    }
  };
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value}`;
}

/** Reads an object body, or says what it was instead. */
export function objectBody(body: unknown, product: string): Json | string {
  if (!isRecord(body)) return `expected a JSON object from ${product}, got ${describe(body)}`;
  return body;
}
