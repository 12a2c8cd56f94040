/**
 * Standard Webhooks signing (standardwebhooks.com), the one scheme Vigil signs what it sends with: outbound
 * deliveries and webhook pages. Headers `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.
 */
import { Webhook } from 'standardwebhooks';

/** A `whsec_` secret is base64 after the prefix; any other is used as its UTF-8 bytes. */
export function standardWebhookSigner(secret: string): Webhook {
  if (secret.startsWith('whsec_')) {
    try {
      return new Webhook(secret);
    } catch {
      // not base64 after all: its bytes, as with any other secret
    }
  }
  return new Webhook(new Uint8Array(Buffer.from(secret, 'utf8')), { format: 'raw' });
}

/** The id and timestamp headers, and the signature when there is a secret. */
export function standardWebhookHeaders(secret: string | null, id: string, now: Date, body: string): Record<string, string> {
  const headers: Record<string, string> = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)) };
  if (secret !== null) headers['webhook-signature'] = standardWebhookSigner(secret).sign(id, now, body);
  return headers;
}
