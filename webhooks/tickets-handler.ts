/**
 * The `tickets` webhook: the ops board's three endpoints, mapped to the board's operations (domain/board/cards.ts).
 *
 *   POST /webhooks/tickets/<token>                          open a card       201 { id, key, url, dedup_key, duplicate: false }
 *   POST /webhooks/tickets/<token>/<card-id-or-key>         update a card     200 { id, key, status, url }
 *   POST /webhooks/tickets/<token>/<card-id-or-key>/comments add a comment    201 { id }
 *
 * The router has already done the shared work (User-Agent, the 65,536-byte limit → 413, the token → 404, the
 * rate limit → 429 with "retry in N seconds" and Retry-After). Here, in order: the plan (403 without
 * `ops_board`), the SNS signature when the operator switched checking on for `tickets` (organization flag
 * `signing_enabled_sources` naming `tickets`; `true` does not cover it, as scripts and agents call it directly; then
 * every tickets request must be a signed SNS message, else 401), the body (a JSON object; 422 `body` otherwise), an SNS envelope (a SubscriptionConfirmation is
 * confirmed like the cloud alert sources'; a Notification's `Message` is the card, read as JSON, or as plain text:
 * `Subject` (else its first line) the title and the text the description, and its `MessageId` is the idempotency
 * key unless the header or the message names one), the idempotency key, then the operation.
 *
 * Delivery-log outcomes: created, duplicate, updated, commented, subscription confirmed, unsubscribed,
 * refused: <field> (422), refused: plan (403), refused: signature (401), refused: card not found (404), refused: invalid confirmation
 * address (400), refused: confirmation failed (502).
 */
import { ApiError } from '../engine/errors.ts';
import type { WebhookAnswer, WebhookHandler, WebhookRequest } from '../domain/webhook-contract.ts';
import type { SnsHttp } from './sns-trust.ts';
import { snsTopic } from './sns-topic.ts';
import { isRecord } from '../engine/payload.ts';
import { addComment, openCard, requireBoard, updateCard } from '../domain/board/cards.ts';
import { checkKey, clean, refused } from '../domain/board/inputs.ts';
import { LIMITS } from '../domain/board/vocabulary.ts';

export interface BoardHandlerOptions {
  /** how SNS subscription addresses are fetched (tests inject one) */
  snsHttp?: SnsHttp;
}

type Json = Record<string, unknown>;

type Read =
  | { kind: 'fields'; fields: Json; messageId: string | null }
  | { kind: 'subscription'; type: 'SubscriptionConfirmation' | 'UnsubscribeConfirmation'; subscribeUrl: string | undefined };

const SNS_TYPES = ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'];

/** The card's fields: the body itself, or the message of an SNS envelope. */
function readBody(body: unknown): Read {
  if (!isRecord(body)) throw refused('body', 'must be a JSON object');
  if (typeof body.Type !== 'string' || !SNS_TYPES.includes(body.Type) || typeof body.MessageId !== 'string') {
    return { kind: 'fields', fields: body, messageId: null };
  }
  if (body.Type !== 'Notification') {
    return { kind: 'subscription', type: body.Type as 'SubscriptionConfirmation', subscribeUrl: typeof body.SubscribeURL === 'string' ? body.SubscribeURL : undefined };
  }
  const message = body.Message;
  let fields: Json;
  if (isRecord(message)) fields = message;
  else if (typeof message !== 'string' || message.trim() === '') throw refused('Message', 'of the SNS notification is empty');
  else {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      parsed = undefined;
    }
    if (isRecord(parsed)) fields = parsed;
    else {
      // a plain-text message (an alarm's text): Subject, else its first line, is the title
      const text = clean(message) ?? '';
      const subject = clean(body.Subject);
      const title = subject || text.split('\n')[0]!.trim();
      fields = { title: title.length > LIMITS.title ? `${title.slice(0, LIMITS.title - 1)}…` : title, description: text };
    }
  }
  return { kind: 'fields', fields, messageId: body.MessageId };
}

/** The key in effect: the Idempotency-Key header, else the body's own field, else the SNS MessageId. */
function keyOf(request: WebhookRequest, fields: Json, bodyField: string, messageId: string | null): string | null {
  const header = request.header('idempotency-key');
  if (header !== undefined) return checkKey(header, 'Idempotency-Key');
  if (fields[bodyField] !== undefined && fields[bodyField] !== null) return checkKey(fields[bodyField], bodyField);
  if (messageId !== null) return checkKey(messageId, 'MessageId');
  return null;
}

function refusal(error: ApiError): WebhookAnswer {
  const field = typeof error.extra?.field === 'string' ? error.extra.field : undefined;
  const outcome = error.code === 'validation_failed' && field ? `refused: ${field}`
    : error.code === 'not_found' ? 'refused: card not found'
      : error.code === 'plan_required' ? 'refused: plan'
        : `refused: ${error.code}`;
  return { status: error.status, body: error.toBody(), headers: error.headers, outcome, detail: error.message };
}

export function boardHandler(options: BoardHandlerOptions = {}): WebhookHandler {
  const topic = snsTopic(options.snsHttp);

  return async (request) => {
    const { services, organization, receivedAt } = request;
    try {
      requireBoard(organization);
      const unsigned = await topic.check(request, 'tickets', true);
      if (unsigned) return unsigned;
      const read = readBody(request.body);
      if (read.kind === 'subscription') {
        if (read.type === 'UnsubscribeConfirmation') return { status: 200, body: { status: 'ok' }, outcome: 'unsubscribed' };
        return await topic.confirm(services, read.subscribeUrl, { status: 'ok' });
      }
      const { fields, messageId } = read;
      if (request.card === undefined) {
        const result = await openCard(services, organization, fields, keyOf(request, fields, 'dedup_key', messageId), receivedAt);
        return {
          status: result.status, body: result.body, outcome: result.duplicate ? 'duplicate' : 'created',
          ...(result.notices.length ? { detail: result.notices.join('; ') } : {}),
        };
      }
      if (request.comments) {
        const result = await addComment(services, organization, request.card, fields, keyOf(request, fields, 'comment_id', messageId), receivedAt);
        return { status: result.status, body: result.body, outcome: result.duplicate ? 'duplicate' : 'commented' };
      }
      const result = await updateCard(services, organization, request.card, fields, receivedAt);
      return { status: 200, body: result.body, outcome: 'updated', detail: result.changed.length ? `changed: ${result.changed.join(', ')}` : 'nothing changed' };
    } catch (error) {
      if (error instanceof ApiError) return refusal(error);
      throw error;
    }
  };
}
