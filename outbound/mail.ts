/**
 * The domain's way to mail one person who asked for it (a status page's subscribers): queued inside the caller's
 * transaction (it commits or rolls back with the change that caused it) and sent by the email part's `email.direct`
 * job through the one SMTP transport (email/direct.ts).
 */
import type { Services } from '../engine/services.ts';
import type { SqlExecutor as Sql } from '../engine/persistence/store.ts';
import { DIRECT_MAIL_QUEUE, sealMail, type DirectMail } from './email/direct.ts';

export type { DirectMail, MailImage } from './email/direct.ts';

/** Whether this instance can mail: outgoing mail is configured and the direct-mail job is served. */
export const canSendMail = (services: Services) => Boolean(services.config.email?.smtpUrl) && services.jobs?.queues.includes(DIRECT_MAIL_QUEUE) === true;

export async function queueMail(services: Services, store: { execute: Sql }, mails: readonly DirectMail[]): Promise<void> {
  for (const mail of mails) await services.jobs.send(DIRECT_MAIL_QUEUE, sealMail(services, mail), { store });
}
