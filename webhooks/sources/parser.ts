/** What an alert source's parser answers: alerts, an SNS subscription message, or why the body is unreadable. */
import type { AlertEvent } from '../../domain/alerts/event.ts';

export type ParseResult =
  | { kind: 'alerts'; events: AlertEvent[] }
  | {
      kind: 'subscription';
      type: 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';
      subscribeUrl?: string;
      topicArn?: string;
      messageId: string;
    }
  | { kind: 'unreadable'; reason: string };

export type Parser = (body: unknown) => ParseResult;
