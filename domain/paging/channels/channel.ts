/**
 * The seam between the escalation engine and the ways a page reaches a phone: one `Channel` per contact method type,
 * each in its own file here, listed in index.ts. The engine (notify.ts) decides who is paged on which method and
 * when, bundles alerts, applies limits and records every attempt; a channel only turns one message into one provider
 * request (through the one guarded client, services.outbound) and says what the provider answered.
 *
 * A channel never reads or writes the notification rows, and never throws for a provider's refusal or an outage: it
 * answers `failed` with a reason in words (no secret in it), which the timeline shows.
 */
import type { FamilyStore } from '../../../engine/persistence/store.ts';
import type { Services } from '../../../engine/services.ts';
import type { ContactType } from '../../../resources/contact_methods.ts';

/** One alert of a message (a bundle carries several). */
export interface PagedAlert {
  id: string;
  title: string;
  severity: string;
  incidentId: string | null;
  /** the alert's console page, when the deployment has a public URL */
  url: string | null;
}

/** What one person receives on one contact method: one or more alerts paged together. */
export interface PageMessage {
  organizationId: string;
  /** the notification bundle: callbacks and replies name it back */
  bundleId: string;
  userId: string | null;
  email: string;
  urgency: 'high' | 'low';
  alerts: PagedAlert[];
  /** one line, for a subject, a push title or an sms */
  subject: string;
  /** plain text, for a body */
  text: string;
  /**
   * The way back: a one-time signed URL whose GET shows an Acknowledge button and whose POST acknowledges every alert
   * of the message as the person (domain/alerts/page-actions.ts); null when the deployment has no public URL.
   */
  acknowledgeUrl: string | null;
  /** the same, resolving */
  resolveUrl: string | null;
}

/** The contact method a message goes to (the account email, `id` null, when the person has no usable rule). */
export interface ContactTarget {
  id: string | null;
  type: ContactType;
  address: string;
  name: string;
}

export interface SendContext {
  services: Services;
  /** the transaction the notification's row is written in: set only for channels with `sendsInTransaction` */
  store?: FamilyStore;
  now: Date;
}

export interface SendResult {
  /** `queued`: handed to a transport that delivers later (mail); `sent`: the provider accepted it; `failed`: not sent */
  status: 'queued' | 'sent' | 'failed';
  /** the provider's id for it (a Twilio SID, a Pushover receipt): status callbacks find the attempt by it */
  providerId?: string;
  /** why not sent, in words for the timeline (`twilio_not_configured`, `provider answered 401`): never a secret */
  reason?: string;
}

/** A verification code to send (sms, voice and email methods are verified before a page uses them). */
export interface VerificationMessage {
  type: ContactType;
  address: string;
  code: string;
  /** the method's label, for the message */
  name: string;
  minutes: number;
}

export interface Channel {
  type: ContactType;
  /**
   * Send inside the notification's transaction (mail is queued in the same transaction as its row, so neither is
   * without the other); otherwise the engine sends after its row committed as `sending` and records the result.
   */
  sendsInTransaction?: boolean;
  /** At most this many messages per contact method in `perMinutes`; beyond it the person gets one summary when the window ends. */
  limit?: { messages: number; perMinutes: number };
  send(ctx: SendContext, to: ContactTarget, message: PageMessage): Promise<SendResult>;
  /**
   * Whether the organization (or the deployment for it) has what this channel needs to send (a provider account).
   * Absent: always. The engine asks it when a step plans a person's contacts: a person whose every method is on a
   * channel not set up gets the account email instead, with `fallback: not_configured` (notify.ts).
   */
  configured?(services: Services, organizationId: string, store: FamilyStore): Promise<boolean>;
  /**
   * Sends a verification code (types that are verified). Throws an ApiError a person can act on when it cannot be
   * sent (no provider configured); runs inside the transaction that stored the code.
   */
  sendVerification?(ctx: SendContext & { store: FamilyStore; organizationId: string }, message: VerificationMessage): Promise<void>;
}
