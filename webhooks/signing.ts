/**
 * Request signing of the inbound webhooks: which sources can be signed, each product's own scheme, and the
 * verifiers. Every check runs over the raw request bytes and compares in constant time.
 *
 * - `incident-pager` — PagerDuty v3 webhooks: `X-PagerDuty-Signature: v1=<hex HMAC-SHA256 of the body>`; during a
 *   secret rotation PagerDuty sends several comma-separated signatures, and any one matching is enough.
 * - `metric-dashboard` — Grafana alerting's webhook contact point "HMAC Signature": the hex HMAC-SHA256 of the body
 *   in `X-Grafana-Alerting-Signature` (Grafana's default header name). When the contact point's "Timestamp Header"
 *   is set to `X-Grafana-Alerting-Timestamp`, Grafana signs `<timestamp>:<body>` instead; such a timestamp must be
 *   within five minutes of the service's clock (replays are refused).
 * - `code-host` — GitHub's `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`.
 * - `monitoring-a` / `monitoring-b` — Datadog's webhook integration and New Relic's workflow webhook cannot compute
 *   a per-request signature; they send fixed custom headers. The secret itself travels as
 *   `Authorization: Bearer <secret>` or `X-Vigil-Signature-Secret: <secret>`.
 *
 * The cloud sources (`cloud-alarms`, `cloud-audit`) are not here: they rely on the notification topic's own
 * message signature (SNS), checked by their handler. The other sources (deployments, tickets, trackers, fix
 * requests) take the token alone.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNING_SCHEMES = {
  'metric-dashboard': { scheme: 'grafana-hmac', header: 'X-Grafana-Alerting-Signature', operatorSwitch: true },
  'incident-pager': { scheme: 'pagerduty-v3', header: 'X-PagerDuty-Signature', operatorSwitch: false },
  'monitoring-a': { scheme: 'shared-secret-header', header: 'Authorization', operatorSwitch: true },
  'monitoring-b': { scheme: 'shared-secret-header', header: 'Authorization', operatorSwitch: true },
  'code-host': { scheme: 'github-sha256', header: 'X-Hub-Signature-256', operatorSwitch: false },
} as const;

export type SignableSource = keyof typeof SIGNING_SCHEMES;
export type SigningScheme = (typeof SIGNING_SCHEMES)[SignableSource]['scheme'];
export const SIGNABLE_SOURCES = Object.keys(SIGNING_SCHEMES) as SignableSource[];

/** Sources whose requests must be signed once the organization has an approved runbook that runs automatically. */
export const RUNBOOK_SIGNED_SOURCES: readonly string[] = ['metric-dashboard', 'incident-pager', 'monitoring-a', 'monitoring-b'];

/** Sources whose secret the operator must switch on first (the spec's "contacting support"). */
export const OPERATOR_SWITCHED_SOURCES = SIGNABLE_SOURCES.filter((s) => SIGNING_SCHEMES[s].operatorSwitch);

export const isSignable = (source: string): source is SignableSource => Object.hasOwn(SIGNING_SCHEMES, source);

/** How far a signed Grafana timestamp may be from the service's clock. */
export const TIMESTAMP_TOLERANCE_MS = 5 * 60 * 1000;

export type Verdict = 'valid' | 'missing' | 'mismatch';

export type HeaderGetter = (name: string) => string | undefined;

const hmacHex = (secret: string, ...parts: (string | Buffer)[]) => {
  const mac = createHmac('sha256', secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
};

/** A hex signature against the expected digest, in constant time (malformed hex never matches). */
function hexMatches(candidate: string, expected: Buffer): boolean {
  const trimmed = candidate.trim();
  if (!/^[0-9a-fA-F]+$/.test(trimmed) || trimmed.length !== expected.length * 2) return false;
  return timingSafeEqual(Buffer.from(trimmed, 'hex'), expected);
}

/** A secret sent as is: both sides hashed first, so the comparison takes the same time whatever the lengths. */
function secretMatches(candidate: string, secret: string): boolean {
  const a = createHash('sha256').update(candidate).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}

function pagerduty(raw: Buffer, secret: string, header: HeaderGetter): Verdict {
  const value = header('x-pagerduty-signature');
  if (!value) return 'missing';
  const expected = hmacHex(secret, raw);
  let matched = false;
  // every candidate is compared (no early exit), so the time does not depend on which one matched
  for (const part of value.split(',')) {
    const [version, signature] = part.trim().split('=', 2);
    if (version === 'v1' && signature !== undefined && hexMatches(signature, expected)) matched = true;
  }
  return matched ? 'valid' : 'mismatch';
}

function grafana(raw: Buffer, secret: string, header: HeaderGetter, now: Date): Verdict {
  const value = header('x-grafana-alerting-signature');
  if (!value) return 'missing';
  const timestamp = header('x-grafana-alerting-timestamp');
  if (timestamp !== undefined) {
    const seconds = Number(timestamp);
    if (!/^\d{1,12}$/.test(timestamp.trim()) || Math.abs(now.getTime() - seconds * 1000) > TIMESTAMP_TOLERANCE_MS) return 'mismatch';
    return hexMatches(value, hmacHex(secret, `${timestamp.trim()}:`, raw)) ? 'valid' : 'mismatch';
  }
  return hexMatches(value, hmacHex(secret, raw)) ? 'valid' : 'mismatch';
}

function github(raw: Buffer, secret: string, header: HeaderGetter): Verdict {
  const value = header('x-hub-signature-256');
  if (!value) return 'missing';
  const match = /^sha256=(.*)$/.exec(value.trim());
  return match && hexMatches(match[1]!, hmacHex(secret, raw)) ? 'valid' : 'mismatch';
}

function sharedSecret(secret: string, header: HeaderGetter): Verdict {
  const custom = header('x-vigil-signature-secret');
  const bearer = /^Bearer\s+(.+)$/i.exec(header('authorization') ?? '')?.[1];
  const candidate = custom ?? bearer;
  if (candidate === undefined || candidate.trim() === '') return 'missing';
  return secretMatches(candidate.trim(), secret) ? 'valid' : 'mismatch';
}

/** Checks one request against the source's scheme with the saved secret. */
export function verifySignature(source: SignableSource, raw: Buffer, secret: string, header: HeaderGetter, now: Date): Verdict {
  switch (SIGNING_SCHEMES[source].scheme) {
    case 'pagerduty-v3':
      return pagerduty(raw, secret, header);
    case 'grafana-hmac':
      return grafana(raw, secret, header, now);
    case 'github-sha256':
      return github(raw, secret, header);
    case 'shared-secret-header':
      return sharedSecret(secret, header);
  }
}

/** The headers that carry the signature of a source (named in refusals). */
export function signatureHeaders(source: SignableSource): string[] {
  switch (SIGNING_SCHEMES[source].scheme) {
    case 'pagerduty-v3':
      return ['X-PagerDuty-Signature'];
    case 'grafana-hmac':
      return ['X-Grafana-Alerting-Signature'];
    case 'github-sha256':
      return ['X-Hub-Signature-256'];
    case 'shared-secret-header':
      return ['Authorization', 'X-Vigil-Signature-Secret'];
  }
}
