/**
 * Trust in Amazon SNS deliveries for `cloud-alarms` and `cloud-audit`: confirming a subscription and verifying
 * message signatures. Pure logic; the HTTP client (the guarded outbound client in the service) and the clock are
 * injected.
 *
 * The rules follow AWS's "Verifying the signatures of Amazon SNS messages" and the official validators
 * (aws-js-sns-message-validator, the PHP SDK's MessageValidator):
 * - The certificate is fetched only over https from an SNS host (`sns.<region>.amazonaws.com[.cn]`) and a `.pem`
 *   path. The certificate itself is self-asserted, so that URL check (with TLS to AWS) is what makes it trusted;
 *   anything else in the message could be forged by whoever posts to us.
 * - The string to sign is `<Key>\n<Value>\n` for fixed keys in byte order: Notification signs Message, MessageId,
 *   Subject (if present), Timestamp, TopicArn, Type; the two confirmation types sign Message, MessageId,
 *   SubscribeURL, Timestamp, Token, TopicArn, Type.
 * - SignatureVersion "1" is SHA1withRSA, "2" is SHA256withRSA; the Signature is base64.
 *
 * Neither function throws: a verdict or a result with a short reason is always returned, and no reason ever
 * contains a SubscribeURL's query string (it carries the subscription Token).
 */
import { createVerify, X509Certificate } from 'node:crypto';

/**
 * The one GET used here: the service hands in the guarded outbound client's (sns-topic.ts), tests a fake. `signal`
 * and `timeoutMs` say the same deadline, for clients that take either.
 */
export type SnsHttp = (
  url: string,
  init: { signal: AbortSignal; timeoutMs: number },
) => Promise<{ ok: boolean; status: number; text(): Promise<string> }>;

export type SnsVerdict = { valid: true } | { valid: false; reason: string };
export type SnsConfirmation = { ok: true } | { ok: false; reason: string };

export type SnsVerifierOptions = {
  http: SnsHttp;
  /** how long a fetched certificate is reused (default one hour) */
  cacheTtlMs?: number;
  /** how many certificate URLs are remembered (default 100); the oldest fetch is dropped first */
  maxCached?: number;
  now?: () => number;
  /** limit on one certificate fetch (default 10 s) */
  timeoutMs?: number;
};

export type SnsVerifier = { verify(envelope: unknown): Promise<SnsVerdict> };

const DEFAULT_TIMEOUT_MS = 10_000;

// Every AWS region name has at least one dash (us-east-1, us-gov-west-1, cn-north-1); no leading, trailing or
// doubled dashes. Anchored at both ends so neither a prefix (evilsns.) nor a suffix (.evil.example) gets through.
const SNS_HOST = /^sns\.[a-z0-9]+(?:-[a-z0-9]+)+\.amazonaws\.com(?:\.cn)?$/;

function parseSnsUrl(url: string): URL | undefined {
  if (typeof url !== 'string') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  // `port` is '' for the scheme's default (443), so an explicit :443 is still accepted.
  if (parsed.protocol !== 'https:' || parsed.username || parsed.password || parsed.port) return undefined;
  return SNS_HOST.test(parsed.hostname) ? parsed : undefined;
}

/** An https URL on an Amazon SNS endpoint (`sns.<region>.amazonaws.com` or `.amazonaws.com.cn`), port 443. */
export function isSnsUrl(url: string): boolean {
  return parseSnsUrl(url) !== undefined;
}

/**
 * A reason for a GET that got no answer: one for every cause (the client's log says which), never the URL. The
 * hosts are Amazon's, but what a caller reads should not depend on how our network failed.
 */
const UNREACHABLE = 'Amazon SNS could not be reached';

/**
 * Confirms an SNS subscription by GETting its SubscribeURL. The caller should check `isSnsUrl` first; this
 * refuses other URLs as well, because following an attacker's URL from our network would be a request forgery.
 */
export async function confirmSubscription(
  subscribeUrl: string,
  http: SnsHttp,
  options: { timeoutMs?: number } = {},
): Promise<SnsConfirmation> {
  if (!isSnsUrl(subscribeUrl)) {
    return { ok: false, reason: 'the SubscribeURL is not an https URL on an Amazon SNS host' };
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    const res = await http(subscribeUrl, { signal: AbortSignal.timeout(timeoutMs), timeoutMs });
    // Reading the body lets fetch reuse the connection; its content does not matter.
    await res.text().catch(() => undefined);
    if (!res.ok) return { ok: false, reason: `Amazon SNS refused the subscription confirmation (HTTP ${res.status})` };
    return { ok: true };
  } catch {
    return { ok: false, reason: `the subscription could not be confirmed: ${UNREACHABLE}` };
  }
}

const TYPES = ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'] as const;
const ALGORITHMS: Record<string, string> = { '1': 'RSA-SHA1', '2': 'RSA-SHA256' };
const NOTIFICATION_KEYS = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'];
const CONFIRMATION_KEYS = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
// An RSA signature of up to 8192 bits; strict base64 because Buffer.from would silently skip junk.
const BASE64 = /^[A-Za-z0-9+/]{4,1400}={0,2}$/;

/** Own properties only: an envelope is parsed JSON, and inherited names are never SNS fields. */
function own(obj: object, key: string): unknown {
  return Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

function stringToSign(envelope: object, type: string): string | { reason: string } {
  let text = '';
  for (const key of type === 'Notification' ? NOTIFICATION_KEYS : CONFIRMATION_KEYS) {
    const value = own(envelope, key);
    // Subject is optional; SNS leaves it out rather than signing an empty one.
    if (key === 'Subject' && (value === undefined || value === null)) continue;
    if (typeof value !== 'string') return { reason: `${key} is missing from the signed SNS ${type} or is not a string` };
    text += `${key}\n${value}\n`;
  }
  return text;
}

const invalid = (reason: string): SnsVerdict => ({ valid: false, reason });

export function createSnsVerifier(options: SnsVerifierOptions): SnsVerifier {
  const http = options.http;
  const ttl = options.cacheTtlMs ?? 60 * 60 * 1000;
  const maxCached = options.maxCached ?? 100;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Map order is insertion order, and an entry is re-inserted on refetch, so the first key is the oldest fetch.
  const cache = new Map<string, { cert: X509Certificate; expires: number }>();
  const inFlight = new Map<string, Promise<X509Certificate | { reason: string }>>();

  async function download(url: string): Promise<X509Certificate | { reason: string }> {
    let pem: string;
    try {
      const res = await http(url, { signal: AbortSignal.timeout(timeoutMs), timeoutMs });
      if (!res.ok) {
        await res.text().catch(() => undefined);
        return { reason: `the signing certificate could not be fetched (HTTP ${res.status})` };
      }
      pem = await res.text();
    } catch {
      return { reason: `the signing certificate could not be fetched (${UNREACHABLE})` };
    }
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(pem);
    } catch {
      return { reason: 'the signing certificate is not a PEM X.509 certificate' };
    }
    if (maxCached > 0) {
      cache.delete(url);
      while (cache.size >= maxCached) cache.delete(cache.keys().next().value!);
      cache.set(url, { cert, expires: now() + ttl });
    }
    return cert;
  }

  function certificate(url: string): Promise<X509Certificate | { reason: string }> {
    const hit = cache.get(url);
    if (hit && now() < hit.expires) return Promise.resolve(hit.cert);
    let pending = inFlight.get(url);
    if (!pending) {
      // `download` never rejects, so sharing the promise cannot leak an unhandled rejection.
      pending = download(url).finally(() => inFlight.delete(url));
      inFlight.set(url, pending);
    }
    return pending;
  }

  async function check(envelope: unknown): Promise<SnsVerdict> {
    if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
      return invalid('the message is not signed (it is not a JSON object)');
    }
    const fields = ['Type', 'SignatureVersion', 'Signature', 'SigningCertURL'] as const;
    const missing = fields.filter((key) => {
      const value = own(envelope, key);
      return typeof value !== 'string' || value === '';
    });
    if (missing.length > 0) return invalid(`the message is not signed (no ${missing.join(', ')})`);
    const type = own(envelope, 'Type') as string;
    const version = own(envelope, 'SignatureVersion') as string;
    const signature = own(envelope, 'Signature') as string;
    const certUrl = own(envelope, 'SigningCertURL') as string;

    if (!(TYPES as readonly string[]).includes(type)) return invalid('the SNS Type is not one that SNS signs');
    const algorithm = Object.hasOwn(ALGORITHMS, version) ? ALGORITHMS[version] : undefined;
    if (!algorithm) return invalid('this SignatureVersion is not supported (only "1" and "2")');
    if (!BASE64.test(signature)) return invalid('the Signature is not base64');
    const parsed = parseSnsUrl(certUrl);
    // No query either: SNS certificate URLs have none, and the .pem check is on the path alone.
    if (!parsed || !parsed.pathname.endsWith('.pem') || parsed.search) {
      return invalid('the SigningCertURL is not an https .pem URL on an Amazon SNS host');
    }
    const text = stringToSign(envelope, type);
    if (typeof text !== 'string') return invalid(text.reason);

    const cert = await certificate(parsed.href);
    if (!(cert instanceof X509Certificate)) return invalid(cert.reason);
    const at = now();
    if (at < cert.validFromDate.getTime() || at > cert.validToDate.getTime()) {
      return invalid('the signing certificate is outside its validity period');
    }
    // SNS signs with RSA only; an EC key would let "RSA-SHA1" verify an ECDSA signature.
    if (cert.publicKey.asymmetricKeyType !== 'rsa') return invalid('the signing certificate does not hold an RSA key');
    const ok = createVerify(algorithm).update(text, 'utf8').verify(cert.publicKey, Buffer.from(signature, 'base64'));
    return ok ? { valid: true } : invalid('the signature does not match the message');
  }

  return {
    async verify(envelope) {
      try {
        return await check(envelope);
      } catch {
        return invalid('the message signature could not be checked');
      }
    },
  };
}
