/**
 * How the chat workspace signs the requests it sends to `POST /webhooks/chat/<token>` (Slack's request signing):
 * `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, "v0:<X-Slack-Request-Timestamp>:<raw body>")>`, the
 * timestamp (Unix seconds) within five minutes of the service's clock, compared in constant time. The secret is
 * the chat family's `signing_secret` (its one home). Unlike the other sources, a chat request is never accepted
 * unsigned: without a saved secret the handler refuses it (401), since a press acts as a member.
 */
import { createHmac } from 'node:crypto';
import type { Signing } from '../../domain/webhook-contract.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import chat from '../../resources/chat.ts';
import { hexMatches, TIMESTAMP_TOLERANCE_MS } from '../signing.ts';

export const chatSignature: Signing = {
  verify(raw, secret, header, now) {
    const value = header('x-slack-signature');
    if (!value) return 'missing';
    const timestamp = (header('x-slack-request-timestamp') ?? '').trim();
    const match = /^v0=(.*)$/.exec(value.trim());
    if (!match || !/^\d{1,12}$/.test(timestamp)) return 'mismatch';
    const expected = createHmac('sha256', secret).update(`v0:${timestamp}:`).update(raw).digest();
    if (!hexMatches(match[1]!, expected)) return 'mismatch';
    return Math.abs(now.getTime() - Number(timestamp) * 1000) <= TIMESTAMP_TOLERANCE_MS ? 'valid' : 'stale';
  },
  scheme: 'v0=<hex HMAC-SHA256 of v0:<timestamp>:<body>> (chat app signing secret)',
  headers: ['X-Slack-Signature', 'X-Slack-Request-Timestamp'],
  notes: 'X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<X-Slack-Request-Timestamp>:<body>">, the timestamp within 5 minutes',
  savedElsewhere: {
    savedIn: 'chat signing_secret',
    secretQuery: (services) => {
      const family = services.registry.family(chat);
      return { sql: `select c.signing_secret from "${tableName(family)}" c where c.organization_id::text = o.id::text and c.id::text = o.id::text`, params: [] };
    },
  },
  staleMessage: 'The X-Slack-Request-Timestamp is more than 5 minutes from the service\'s clock; chat requests are accepted only when fresh (replays are refused).',
  alwaysSigned: 'Chat requests must be signed: save the chat app\'s signing secret as chat.signing_secret (PUT /api/v1/config/chat). Nothing was changed.',
  // a timestamp is accepted up to 5 minutes either side of the clock: a signature can be fresh for 10 minutes
  onceWithinMs: 2 * TIMESTAMP_TOLERANCE_MS,
};
