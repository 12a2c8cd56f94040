/**
 * Reading untrusted JSON payloads (webhook bodies, tracker and code-host events): own keys only, bounded and
 * well-formed text, timestamps in the forms products send, URLs without credentials. Nothing here knows a product.
 */

const MAX_TEXT = 1_024;
const MAX_URL = 2_048;

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own property only (no prototype keys such as `constructor` or `__proto__`). */
export function field(obj: Json, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

export function record(obj: Json, key: string): Json | undefined {
  const v = field(obj, key);
  return isRecord(v) ? v : undefined;
}

/** A non-empty trimmed string (numbers and booleans are written as text), else undefined. */
export function text(value: unknown, max = MAX_TEXT): string | undefined {
  let s: string | undefined;
  if (typeof value === 'string') s = value;
  else if (typeof value === 'number' && Number.isFinite(value)) s = String(value);
  else if (typeof value === 'bigint' || typeof value === 'boolean') s = String(value);
  if (s === undefined) return undefined;
  // PostgreSQL holds neither NUL nor a lone UTF-16 surrogate: a stray one must not make a delivery fail
  s = s.toWellFormed().replaceAll('\u0000', '').trim();
  if (s === '') return undefined;
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

export function str(obj: Json, key: string, max?: number): string | undefined {
  return text(field(obj, key), max);
}

const SECRET_KEY = /(secret|token|passw(or)?d|passwd|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|authorization|auth[_-]?header|signature|cookie)/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** ISO 8601 from an ISO-ish string or an epoch (milliseconds, or seconds when small); undefined otherwise. */
export function isoTime(value: unknown): string | undefined {
  let ms: number;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string' && /^\d{9,16}$/.test(value.trim())) ms = Number(value.trim());
  else if (typeof value === 'string' && value.length <= 64) ms = Date.parse(value.trim());
  else return undefined;
  if (!Number.isFinite(ms)) return undefined;
  if (typeof value !== 'string' || /^\d+$/.test(value.trim())) {
    if (ms < 1e11) ms *= 1000; // epoch seconds
  }
  // Go's zero time (0001-01-01T00:00:00Z, Grafana's "no end yet") and anything absurd count as absent.
  if (ms < Date.UTC(1990, 0, 1) || ms > Date.UTC(2200, 0, 1)) return undefined;
  return new Date(ms).toISOString();
}

/** An http(s) URL with credential-looking query values removed, else undefined. */
export function httpUrl(value: unknown): string | undefined {
  const s = text(value, MAX_URL);
  if (s === undefined || !/^https?:\/\//i.test(s)) return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return undefined;
  }
  u.username = '';
  u.password = '';
  for (const key of [...u.searchParams.keys()]) {
    if (isSecretKey(key)) u.searchParams.set(key, 'redacted');
  }
  return u.toString();
}
