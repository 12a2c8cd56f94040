/**
 * Request signing of the inbound webhooks: the generic verifiers, keyed by scheme, and the check the router runs.
 * Which source signs how is a fact of the source (`signing` on its WebhookSource, sources/<segment>.ts); a source
 * whose secret is saved in request_signing names one of the schemes below, a source whose secret is kept elsewhere
 * (the trackers' on ticket_integrations) brings its own verifier and the query that reads its secret. Every check
 * runs over the raw request bytes and compares in constant time.
 *
 * - `pagerduty-v3`: `X-PagerDuty-Signature: v1=<hex HMAC-SHA256 of the body>`; during a secret rotation PagerDuty
 *   sends several comma-separated signatures, and any one matching is enough.
 * - `grafana-hmac`: the hex HMAC-SHA256 of the body in `X-Grafana-Alerting-Signature`; with the timestamp header
 *   `X-Grafana-Alerting-Timestamp`, `<timestamp>:<body>` is signed and the timestamp must be within five minutes of
 *   the service's clock (replays are refused).
 * - `github-sha256`: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`.
 * - `shared-secret-header`: for senders that cannot compute a per-request signature and send fixed headers: the
 *   secret itself as `Authorization: Bearer <secret>` or `X-Vigil-Signature-Secret: <secret>`.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Organization } from '../engine/auth/caller.ts';
import type { Services } from '../engine/services.ts';
import type { HeaderGetter, Signing, Verifier } from '../domain/webhook-contract.ts';
import { tableName } from '../engine/persistence/entities.ts';
import requestSigning from '../resources/request_signing.ts';

/** How far a signed Grafana timestamp may be from the service's clock. */
export const TIMESTAMP_TOLERANCE_MS = 5 * 60 * 1000;

const hmacHex = (secret: string, ...parts: (string | Buffer)[]) => {
  const mac = createHmac('sha256', secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
};

/** A hex signature against the expected digest, in constant time (malformed hex never matches). */
export function hexMatches(candidate: string, expected: Buffer): boolean {
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

const pagerduty: Verifier = (raw, secret, header) => {
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
};

const grafana: Verifier = (raw, secret, header, now) => {
  const value = header('x-grafana-alerting-signature');
  if (!value) return 'missing';
  const timestamp = header('x-grafana-alerting-timestamp');
  if (timestamp !== undefined) {
    const seconds = Number(timestamp);
    if (!/^\d{1,12}$/.test(timestamp.trim()) || Math.abs(now.getTime() - seconds * 1000) > TIMESTAMP_TOLERANCE_MS) return 'mismatch';
    return hexMatches(value, hmacHex(secret, `${timestamp.trim()}:`, raw)) ? 'valid' : 'mismatch';
  }
  return hexMatches(value, hmacHex(secret, raw)) ? 'valid' : 'mismatch';
};

const github: Verifier = (raw, secret, header) => {
  const value = header('x-hub-signature-256');
  if (!value) return 'missing';
  const match = /^sha256=(.*)$/.exec(value.trim());
  return match && hexMatches(match[1]!, hmacHex(secret, raw)) ? 'valid' : 'mismatch';
};

const sharedSecret: Verifier = (_raw, secret, header) => {
  const custom = header('x-vigil-signature-secret');
  const bearer = /^Bearer\s+(.+)$/i.exec(header('authorization') ?? '')?.[1];
  const candidate = custom ?? bearer;
  if (candidate === undefined || candidate.trim() === '') return 'missing';
  return secretMatches(candidate.trim(), secret) ? 'valid' : 'mismatch';
};

/** The schemes a secret saved in request_signing is checked in, with the headers each reads. */
const SCHEMES = {
  'pagerduty-v3': { verify: pagerduty, headers: ['X-PagerDuty-Signature'] },
  'grafana-hmac': { verify: grafana, headers: ['X-Grafana-Alerting-Signature'] },
  'github-sha256': { verify: github, headers: ['X-Hub-Signature-256'] },
  'shared-secret-header': { verify: sharedSecret, headers: ['Authorization', 'X-Vigil-Signature-Secret'] },
} as const satisfies Record<string, { verify: Verifier; headers: readonly string[] }>;

export type SigningScheme = keyof typeof SCHEMES;

/** A source signed in one of the schemes above, with its secret saved in request_signing. */
export function signedWith(scheme: SigningScheme, facts: { notes: string; operatorSwitch?: boolean; runbookSigned?: boolean }): Signing {
  return { scheme, headers: SCHEMES[scheme].headers, verify: SCHEMES[scheme].verify, ...facts };
}

/** The query reading a source's sealed secret: its own, or its request_signing row's while saved and enabled. */
export function secretQuery(services: Services, segment: string, signing: Signing): { sql: string; params: unknown[] } | undefined {
  if (signing.savedElsewhere) return signing.savedElsewhere.secretQuery(services);
  const family = services.registry.family(requestSigning);
  return {
    sql: `select s.secret from "${tableName(family)}" s where s.organization_id = o.id and s.source = ? and s.enabled is not false`,
    params: [segment],
  };
}

export interface SignatureOutcome {
  /** the 401 to answer, or null when the request may go on */
  refusal: { status: 401; body: { error: 'unauthorized'; message: string } } | null;
  /** whether the request carried a valid signature */
  signed: boolean;
}

const unauthorized = (message: string): SignatureOutcome => ({ refusal: { status: 401, body: { error: 'unauthorized', message } }, signed: false });

/**
 * One request against its source's signing: with a saved secret it must carry a valid signature; without one, the
 * token alone is enough unless the source must be signed under an approved automatic runbook.
 */
export function checkSignature(
  services: Services, organization: Organization, segment: string, signing: Signing | null, sealedSecret: unknown, raw: Buffer, header: HeaderGetter,
): SignatureOutcome {
  if (!signing) return { refusal: null, signed: false };
  const secret = typeof sealedSecret === 'string' ? services.secrets.open(sealedSecret) : null;
  const headers = signing.headers.join(' or ');
  const where = signing.savedElsewhere ? ` (${signing.savedElsewhere.savedIn})` : '';
  if (secret !== null) {
    const verdict = signing.verify(raw, secret, header, services.clock.now());
    if (verdict === 'valid') return { refusal: null, signed: true };
    if (verdict === 'missing') {
      return unauthorized(`A signing secret is saved for ${segment}${where}, so every request must be signed (${signing.scheme}, in ${headers}); this one is not.`);
    }
    if (verdict === 'stale') return unauthorized(signing.staleMessage ?? `The ${segment} delivery is too old to accept; replays are refused.`);
    return unauthorized(`The signature in ${headers} does not match this request and the signing secret saved for ${segment}${where}.`);
  }
  if (signing.alwaysSigned) return unauthorized(signing.alwaysSigned);
  if (signing.runbookSigned && organization.flags.automatic_runbook_approved === true) {
    return unauthorized(
      `This organization has an approved runbook that runs automatically, so ${segment} requests must be signed: ` +
        `save a signing secret in request_signing for ${segment} and configure the sender to sign (${headers}).`,
    );
  }
  return { refusal: null, signed: false };
}
