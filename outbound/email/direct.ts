/**
 * Mail to one person who asked for it (a status page subscriber), not to the organization's notification
 * recipients: one job per message on the `email.direct` queue, sent through the same SMTP transport as the email
 * notices (transport.ts), with the headers the sender chose (List-Unsubscribe, RFC 8058). The message (its address
 * and the links with their tokens) is sealed in the job's data with the service's secret box, so the job table holds
 * neither in clear. A failed try is retried by the queue; the error kept is mailError's (no credential, no address).
 *
 * A mail may carry charts shown inline (`images`: the HTML's `<img src="cid:…">`). The job holds each chart's data
 * and they are drawn to PNG when the message is sent, not when it is queued: a chart's data is a few hundred bytes
 * where its PNG is tens of kilobytes, sealed and stored once per recipient in the job table, and the renderer
 * remembers a chart by its specification, so the same summary mailed to a team's ten people is drawn once.
 */
import { renderChartPng } from '../../engine/charts/render.ts';
import type { BarChart } from '../../engine/charts/chart.ts';
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
  /** charts the HTML shows inline, each as `<img src="cid:<cid>">`: drawn to PNG at send time, attached with that Content-ID */
  images?: MailImage[];
}

export interface MailImage {
  /** the Content-ID, `name@domain` (unique within the message) */
  cid: string;
  /** the attachment's file name, for a client that lists it (ends in .png) */
  filename: string;
  chart: BarChart;
}

const CID = /^[A-Za-z0-9._-]{1,100}@[A-Za-z0-9.-]{1,100}$/;
const isImage = (i: unknown): i is MailImage => {
  const d = i as Record<string, unknown> | null;
  return !!d && typeof d.cid === 'string' && CID.test(d.cid) && typeof d.filename === 'string' && !!d.chart && typeof d.chart === 'object';
};

const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

function isMail(data: unknown): data is DirectMail {
  const d = data as Record<string, unknown> | null;
  return !!d && ['to', 'subject', 'text', 'html'].every((k) => typeof d[k] === 'string') && (d.images === undefined || (Array.isArray(d.images) && d.images.every(isImage)));
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
    // a chart that cannot be drawn fails the try (retried), rather than sending a mail with a broken picture
    const attachments = await Promise.all((mail.images ?? []).map(async (i) => ({
      filename: oneLine(i.filename), content: (await renderChartPng(i.chart)).png, cid: i.cid, contentType: 'image/png', contentDisposition: 'inline' as const,
    })));
    try {
      await transportFor(email.smtpUrl).sendMail({
        from: email.from, to: mail.to, subject: oneLine(mail.subject), text: mail.text, html: mail.html,
        headers: { 'Auto-Submitted': 'auto-generated', ...headers }, ...(attachments.length ? { attachments } : {}),
      });
    } catch (error) {
      throw new Error(mailError(error, email.smtpUrl));
    }
  },
};
