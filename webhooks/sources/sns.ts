/**
 * Amazon SNS HTTP(S) delivery envelopes, shared by `cloud-alarms` and `cloud-audit`.
 *
 *   { Type: "Notification", MessageId, TopicArn, Subject?, Message: "<JSON text>", Timestamp,
 *     SignatureVersion, Signature, SigningCertURL, UnsubscribeURL }
 *   { Type: "SubscriptionConfirmation" | "UnsubscribeConfirmation", MessageId, Token, TopicArn, Message,
 *     SubscribeURL, Timestamp, SignatureVersion, Signature, SigningCertURL }
 *
 * Confirmations are returned as `subscription` results with the SubscribeURL exactly as sent: checking it is an
 * https URL on an SNS host, fetching it and verifying signatures is the HTTP layer's work. The `Token` is never
 * copied anywhere. A body without `Type` is read as the message itself (SNS raw message delivery, or a direct
 * post); the HTTP layer, which sees the body too, decides whether such payloads are allowed.
 */
import { field, isRecord, str, type Json } from '../../engine/payload.ts';
import { id, objectBody, unreadable } from './alert-parsing.ts';
import type { ParseResult } from './parser.ts';

/** SNS messages are at most 256 KiB. */
const MAX_MESSAGE = 262_144;

export type SnsRead = { kind: 'message'; message: Json } | ParseResult;

export function readSns(body: Json): SnsRead {
  const type = field(body, 'Type');
  if (type === undefined) return { kind: 'message', message: body };
  if (typeof type !== 'string') return unreadable('Type must be a string (an SNS message type)');
  const messageId = id(field(body, 'MessageId'));
  const topicArn = str(body, 'TopicArn', 512);
  if (type === 'SubscriptionConfirmation' || type === 'UnsubscribeConfirmation') {
    if (!messageId) return unreadable(`MessageId is missing from the SNS ${type}`);
    const subscribeUrl = str(body, 'SubscribeURL', 4096);
    return {
      kind: 'subscription',
      type,
      messageId,
      ...(subscribeUrl !== undefined ? { subscribeUrl } : {}),
      ...(topicArn !== undefined ? { topicArn } : {}),
    };
  }
  if (type !== 'Notification') {
    return unreadable(`SNS Type is not Notification, SubscriptionConfirmation or UnsubscribeConfirmation`);
  }
  if (!messageId) return unreadable('MessageId is missing from the SNS Notification');
  const raw = field(body, 'Message');
  if (isRecord(raw)) return { kind: 'message', message: raw };
  if (typeof raw !== 'string' || raw.trim() === '') return unreadable('Message is missing from the SNS Notification');
  if (raw.length > MAX_MESSAGE) return unreadable(`Message is longer than SNS allows (${MAX_MESSAGE} bytes)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return unreadable('Message of the SNS Notification is not JSON');
  }
  if (!isRecord(parsed)) return unreadable('Message of the SNS Notification is not a JSON object');
  return { kind: 'message', message: parsed };
}

/** A parser of a product that delivers through SNS: the envelope is read here, its message by `readMessage`. */
export function throughSns(readMessage: (message: Json) => ParseResult): (body: unknown) => ParseResult {
  return (body) => {
    const obj = objectBody(body, 'Amazon SNS');
    if (typeof obj === 'string') return unreadable(obj);
    const read = readSns(obj);
    return read.kind === 'message' ? readMessage(read.message) : read;
  };
}
