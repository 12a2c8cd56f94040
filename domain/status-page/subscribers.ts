/**
 * Email subscribers of a public status page, with double opt-in: a subscribe request (no credential, no CSRF token:
 * a forged one can only make the address receive one confirmation request) stores a pending row and mails a link
 * whose token is kept hashed and ends after CONFIRM_HOURS; following it confirms. One confirmation per address per
 * RESEND_MINUTES: further requests inside that time mail nothing, counted per mailbox (`a+x@` and `a+y@` are `a@`);
 * at most PAGE_CONFIRMATIONS_PER_HOUR per page, and SUBSCRIBE_LIMIT requests per client address (web/status-page);
 * a pending row never mailed goes after PENDING_HOURS.
 * The answer never says whether an address is known, or whether a bound held the mail back.
 * Every notice carries a one-click unsubscribe link: the subscriber's id with a MAC under the service's key, so it
 * needs nothing stored and cannot be made up for another subscriber.
 */
import { randomUUID } from 'node:crypto';
import { constantTimeEqual, generateToken, hashToken } from '../../engine/crypto.ts';
import { isEmail } from '../../engine/email.ts';
import type { FieldError } from '../../engine/errors.ts';
import { inTransaction } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { canSendMail, queueMail } from '../../outbound/mail.ts';
import { confirmationMail } from './mail.ts';
import { pageUrl, type PublishedPage } from './page.ts';

export const CONFIRM_HOURS = 48;
export const RESEND_MINUTES = 15;
/** Confirmations one page sends per hour at most (a flood of made-up addresses mails no more than this). */
export const PAGE_CONFIRMATIONS_PER_HOUR = 100;
/**
 * Subscribe requests (well-formed addresses) one client address may make in an hour, on any page: a tenth of a page's
 * hourly confirmations, so no one client can spend a page's quota and keep real subscribers from their mail.
 */
export const SUBSCRIBE_LIMIT = { points: 10, durationSeconds: 3600 } as const;
/** A pending row whose confirmation was never sent (the page's quota held it back) goes after this long. */
export const PENDING_HOURS = 24;
const MINUTE = 60_000;
const UNSUBSCRIBE_PURPOSE = 'status-page-unsubscribe';

/** Whether the page offers subscriptions: this deployment sends mail. */
export const subscriptionsOffered = (services: Services) => canSendMail(services);

/** An address one can mail (engine/email.ts), surrounding spaces aside. */
export function emailError(value: unknown): FieldError | null {
  if (typeof value !== 'string' || !isEmail(value.trim())) {
    return { field: 'email', message: 'must be an email address, such as you@example.com' };
  }
  return null;
}

/** The mailbox an address reaches: without its `+tag` (the address is lowercased already). */
export const mailboxOf = (email: string) => email.replace(/[+][^@]*@/, '@');

/** `queued`: a confirmation is on its way, or nothing needed sending (the caller cannot tell which); `unavailable`: this deployment sends no mail. */
export async function subscribe(services: Services, page: PublishedPage, rawEmail: unknown): Promise<'queued' | 'unavailable' | FieldError> {
  const invalid = emailError(rawEmail);
  if (invalid) return invalid;
  if (!canSendMail(services)) return 'unavailable';
  const email = String(rawEmail).trim().toLowerCase();
  const now = services.clock.now();
  const token = generateToken('spc_');
  await inTransaction(services, async (store) => {
    // personal data kept no longer than needed: pending addresses whose link ended go at the page's next request
    // and pending rows never mailed (held back by the page's quota) after PENDING_HOURS, so a flood leaves nothing behind
    await store.execute(
      `delete from status_page_subscribers where organization_id = ? and confirmed_at is null
        and (confirm_expires_at <= ? or (confirm_expires_at is null and created_at <= ?))`,
      [page.organizationId, now, new Date(now.getTime() - PENDING_HOURS * 60 * MINUTE)],
    );
    // the row first (a concurrent first request of the same address meets the unique key), then locked: two requests
    // at once are taken one after the other, so the second sees the first's confirmation and mails nothing
    await store.execute(
      'insert into status_page_subscribers (id, organization_id, email, created_at) values (?, ?, ?, ?) on conflict (organization_id, email) do nothing',
      [randomUUID(), page.organizationId, email, now],
    );
    const [row] = await store.execute(
      'select id, confirmed_at, confirmation_sent_at from status_page_subscribers where organization_id = ? and email = ? for update',
      [page.organizationId, email],
    );
    if (!row || row.confirmed_at) return; // already subscribed: nothing to confirm
    // one confirmation per mailbox per RESEND_MINUTES: `victim+1@…` and `victim+2@…` reach one mailbox, so they count as one
    const [recent] = await store.execute(
      `select count(*) as n from status_page_subscribers
        where organization_id = ? and regexp_replace(email, '[+][^@]*@', '@') = ? and confirmation_sent_at > ?`,
      [page.organizationId, mailboxOf(email), new Date(now.getTime() - RESEND_MINUTES * MINUTE)],
    );
    if (Number(recent?.n ?? 0) > 0) return;
    const [sent] = await store.execute(
      'select count(*) as n from status_page_subscribers where organization_id = ? and confirmation_sent_at > ?',
      [page.organizationId, new Date(now.getTime() - 60 * MINUTE)],
    );
    if (Number(sent?.n ?? 0) >= PAGE_CONFIRMATIONS_PER_HOUR) return; // the page's hourly bound: the same answer, no mail
    const expires = new Date(now.getTime() + CONFIRM_HOURS * 60 * MINUTE);
    await store.execute(
      'update status_page_subscribers set confirm_hash = ?, confirm_expires_at = ?, confirmation_sent_at = ? where id = ?',
      [hashToken(token), expires, now, row.id],
    );
    const link = `${pageUrl(services, page.slug)}/confirm?token=${encodeURIComponent(token)}`;
    await queueMail(services, store, [confirmationMail(email, page.title, link, CONFIRM_HOURS)]);
  });
  return 'queued';
}

/** Confirms the pending subscription the token names, if it has not ended; false for anything else. */
export async function confirm(services: Services, page: PublishedPage, token: unknown): Promise<boolean> {
  if (typeof token !== 'string' || !/^spc_[A-Za-z0-9_-]{10,100}$/.test(token)) return false;
  const now = services.clock.now();
  const rows = await inTransaction(services, (store) =>
    store.execute(
      `update status_page_subscribers set confirmed_at = ?, confirm_hash = null, confirm_expires_at = null
        where organization_id = ? and confirm_hash = ? and confirm_expires_at > ? and confirmed_at is null returning id`,
      [now, page.organizationId, hashToken(token), now],
    ));
  return rows.length === 1;
}

export function unsubscribeToken(services: Services, subscriberId: string): string {
  return `${subscriberId}.${services.secrets.sign(UNSUBSCRIBE_PURPOSE, subscriberId)}`;
}

export const unsubscribeUrl = (services: Services, slug: string, subscriberId: string) =>
  `${pageUrl(services, slug)}/unsubscribe?token=${encodeURIComponent(unsubscribeToken(services, subscriberId))}`;

/** Removes the subscriber the token names (a forged or altered token removes nothing). Answers whether the token was genuine. */
export async function unsubscribe(services: Services, page: PublishedPage, token: unknown): Promise<boolean> {
  if (typeof token !== 'string') return false;
  const match = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{20,100})$/.exec(token);
  if (!match || !constantTimeEqual(unsubscribeToken(services, match[1]!), token)) return false;
  await inTransaction(services, (store) => store.execute('delete from status_page_subscribers where organization_id = ? and id = ?', [page.organizationId, match[1]]));
  return true;
}
