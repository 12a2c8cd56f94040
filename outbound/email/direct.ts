/**
 * Mail to one person who asked for it (a status page subscriber), not to the organization's notification
 * recipients: one job per message on the `email.direct` queue, sent through the same SMTP transport as the email
 * notices (transport.ts), with the headers the sender chose (List-Unsubscribe, RFC 8058). The message (its address
 * and the links with their tokens) is sealed in the job's data with the service's secret box, so the job table holds
 * neither in clear. A failed try is retried by the queue; the error kept is mailError's (no credential, no address).
 */
import type { JobHandler } from '../../engine/jobs/types.ts';
import type { Services } from '../../engine/services.ts';
import { mailError, transportFor } from './transport.ts';

export const DIRECT_MAIL_QUEUE = 'email.direct';

export interface DirectMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** extra headers (List-Unsubscribe and List-Unsubscribe-Post); values are one line */
  headers?: Record<string, string>;
}

const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

function isMail(data: unknown): data is DirectMail {
  const d = data as Record<string, unknown> | null;
  return !!d && ['to', 'subject', 'text', 'html'].every((k) => typeof d[k] === 'string');
}

/** The job's data: the message sealed. */
export const sealMail = (services: Services, mail: DirectMail) => ({ sealed: services.secrets.seal(JSON.stringify(mail)) });

function openMail(services: Services, data: unknown): DirectMail | null {
  const sealed = (data as { sealed?: unknown } | null)?.sealed;
  if (typeof sealed !== 'string') return null;
  try {
    const mail: unknown = JSON.parse(services.secrets.open(sealed));
    return isMail(mail) ? mail : null;
  } catch {
    return null; // sealed under another key (rotated): unreadable for good
  }
}

export const directMailJob: JobHandler = {
  queue: DIRECT_MAIL_QUEUE,
  retryLimit: 5,
  retryDelay: 60,
  retryBackoff: true,
  async handle(job, services: Services) {
    const email = services.config.email;
    const mail = openMail(services, job.data);
    if (!email || !mail) return; // nothing to send with, or nothing sendable: retrying would not help
    const headers = Object.fromEntries(Object.entries(mail.headers ?? {}).map(([k, v]) => [oneLine(k), oneLine(String(v))]));
    try {
      await transportFor(email.smtpUrl).sendMail({
        from: email.from, to: mail.to, subject: oneLine(mail.subject), text: mail.text, html: mail.html,
        headers: { 'Auto-Submitted': 'auto-generated', ...headers },
      });
    } catch (error) {
      throw new Error(mailError(error, email.smtpUrl));
    }
  },
};
