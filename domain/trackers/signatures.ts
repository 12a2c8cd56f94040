/**
 * The trackers' webhook signatures (the `signing` of webhooks/sources/issue-tracker.ts and sprint-tracker.ts), checked
 * by the router with the secret saved on the
 * tracker's `ticket_integrations` row (`signing_secret`, its one home). While a secret is saved every delivery
 * must be signed (401 otherwise); without one the token alone is enough. The secret is checked whether or not the
 * row is `enabled` (that flag is about using the credentials): to stop checking, clear `signing_secret`.
 *
 * - `issue-tracker` (Linear): `Linear-Signature: <hex HMAC-SHA256 of the raw body>` with the webhook's signing
 *   secret. The body's `webhookTimestamp` (Unix milliseconds, when Linear sent it) must be within five minutes of
 *   the service's clock, as Linear advises against replays; a signed body without one is refused too.
 * - `sprint-tracker` (Jira Cloud admin webhooks saved with a secret): `X-Hub-Signature: sha256=<hex HMAC-SHA256 of
 *   the raw body>` (WebSub's `method=signature`). Jira signs nothing else, so there is no timestamp to check; a
 *   replayed delivery changes nothing the sync has not already applied, and an older state is ignored (sync.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import ticketIntegrations from '../../resources/ticket_integrations.ts';
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import type { Signing } from '../webhook-contract.ts';

/** How far Linear's `webhookTimestamp` may be from the service's clock. */
export const LINEAR_TIMESTAMP_TOLERANCE_MS = 5 * 60 * 1000;

type Header = (name: string) => string | undefined;

function hexMatches(candidate: string, raw: Buffer, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(raw).digest();
  const trimmed = candidate.trim();
  if (!/^[0-9a-fA-F]+$/.test(trimmed) || trimmed.length !== expected.length * 2) return false;
  return timingSafeEqual(Buffer.from(trimmed, 'hex'), expected);
}

function secretOf(provider: 'issue_tracker' | 'sprint_tracker') {
  return (services: Services) => {
    const family = services.registry.family(ticketIntegrations);
    return { sql: `select t.signing_secret from "${tableName(family)}" t where t.organization_id = o.id and t.provider = ?`, params: [provider] };
  };
}

/** `webhookTimestamp` of a Linear body, read without trusting its shape. */
function linearTimestamp(raw: Buffer): number | undefined {
  try {
    const body = JSON.parse(raw.toString('utf8')) as { webhookTimestamp?: unknown };
    return typeof body?.webhookTimestamp === 'number' && Number.isFinite(body.webhookTimestamp) ? body.webhookTimestamp : undefined;
  } catch {
    return undefined;
  }
}

export const linearSignature: Signing = {
  verify(raw, secret, header: Header, now) {
    const value = header('linear-signature');
    if (!value) return 'missing';
    if (!hexMatches(value, raw, secret)) return 'mismatch';
    const sent = linearTimestamp(raw);
    return sent !== undefined && Math.abs(now.getTime() - sent) <= LINEAR_TIMESTAMP_TOLERANCE_MS ? 'valid' : 'stale';
  },
  scheme: 'hex HMAC-SHA256 of the body (Linear webhook signing secret)',
  headers: ['Linear-Signature'],
  notes: 'Linear-Signature: <hex HMAC-SHA256 of the body>, with webhookTimestamp in the body within 5 minutes',
  savedElsewhere: { savedIn: 'ticket_integrations issue_tracker signing_secret', secretQuery: secretOf('issue_tracker') },
  staleMessage: 'The delivery\'s webhookTimestamp is missing or more than 5 minutes from the service\'s clock; Linear deliveries are accepted only when fresh (replays are refused).',
};

export const jiraSignature: Signing = {
  verify(raw, secret, header: Header) {
    const value = header('x-hub-signature');
    if (!value) return 'missing';
    const match = /^sha256=(.*)$/i.exec(value.trim());
    return match && hexMatches(match[1]!, raw, secret) ? 'valid' : 'mismatch';
  },
  scheme: 'sha256=<hex HMAC-SHA256 of the body> (Jira admin webhook secret)',
  headers: ['X-Hub-Signature'],
  notes: 'X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>',
  savedElsewhere: { savedIn: 'ticket_integrations sprint_tracker signing_secret', secretQuery: secretOf('sprint_tracker') },
};
