/**
 * What the delivery log keeps of a request: the payload only up to PAYLOAD_KEPT_BYTES of JSON, with every member
 * whose name suggests a credential replaced by "(removed)"; of the headers only an allow-list, so
 * `Authorization`, signature headers and anything unknown are never stored.
 */

export const PAYLOAD_KEPT_BYTES = 256 * 1024;

/** Request headers worth keeping to explain a delivery; nothing that can authenticate is in this list. */
export const KEPT_HEADERS = [
  'user-agent', 'content-type', 'content-length', 'idempotency-key',
  'x-github-event', 'x-github-delivery', 'x-github-hook-id',
  'x-pagerduty-webhook-id', 'x-webhook-id',
  'x-amz-sns-message-type', 'x-amz-sns-message-id', 'x-amz-sns-topic-arn',
  'x-request-id', 'x-grafana-alerting-timestamp',
] as const;

// routing_key / service_key / integration_key: the Events API's credential, which for Vigil is the webhook token
const CREDENTIAL_NAME = /secret|password|passwd|token|signature|authorization|api[-_]?key|credential|private[-_]?key|(?:routing|service|integration)[-_]?key/i;

/** A URL query parameter whose name suggests a credential (an SNS SubscribeURL's `Token`, `?api_key=`, …). */
const CREDENTIAL_PARAM = /([?&](?:[\w.-]*(?:secret|password|token|signature|api[-_]?key|credential)[\w.-]*)=)[^&#\s"]*/gi;

/** jsonb holds neither NUL (`\u0000`, dropped) nor a lone UTF-16 surrogate (made U+FFFD). */
const withoutNul = (s: string) => s.toWellFormed().replaceAll('\u0000', '');

/** A copy of a parsed payload with credential-like members (and credential-like URL parameters) replaced. */
export function scrub(value: unknown, depth = 0): unknown {
  if (depth > 32) return '(too deep)';
  if (typeof value === 'string') return withoutNul(value.includes('=') ? value.replace(CREDENTIAL_PARAM, '$1(removed)') : value);
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [withoutNul(k), CREDENTIAL_NAME.test(k) ? '(removed)' : scrub(v, depth + 1)]));
  }
  return value;
}

export function keptHeaders(get: (name: string) => string | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = get(name);
    if (value !== undefined && value !== '') kept[name] = value.slice(0, 500);
  }
  return kept;
}

/** UTF-8 text, or undefined for bytes that are not. */
function utf8(raw: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return undefined;
  }
}

/**
 * What is stored of a body: its scrubbed JSON; with `keepsText`, text that is not JSON as a JSON string (credential-like
 * `name=value` pairs removed, as in URLs); else a note when it was not JSON; nothing when too large.
 */
export function keptPayload(raw: Buffer | null, parsed: unknown, keepsText = false): unknown {
  if (raw === null) return null;
  if (raw.length > PAYLOAD_KEPT_BYTES) return { '(not kept)': `the body is larger than ${PAYLOAD_KEPT_BYTES} bytes` };
  if (parsed !== undefined) return scrub(parsed);
  if (raw.length === 0) return null;
  const text = keepsText ? utf8(raw) : undefined;
  if (text === undefined) return { '(not kept)': keepsText ? 'the body is not UTF-8 text' : 'the body is not JSON' };
  // a leading separator lets the URL-parameter rule see the first `name=` of a form-encoded body too
  return (scrub(`&${text}`) as string).slice(1);
}
