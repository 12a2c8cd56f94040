/**
 * Email: pages and verification codes through the deployment's SMTP transport (outbound/mail.ts). Mail is queued in
 * the transaction that writes the notification (or the code), so a message exists exactly when its row does.
 */
import { ApiError } from '../../../engine/errors.ts';
import { html } from '../../../engine/html.ts';
import { canSendMail, queueMail } from '../../../outbound/mail.ts';
import type { Channel } from './channel.ts';

export const emailChannel: Channel = {
  type: 'email',
  sendsInTransaction: true,
  async send({ services, store }, to, message) {
    if (!canSendMail(services) || !store) return { status: 'failed', reason: 'email_not_configured' };
    const links = [message.acknowledgeUrl && `Acknowledge: ${message.acknowledgeUrl}`, message.resolveUrl && `Resolve: ${message.resolveUrl}`].filter(Boolean);
    const text = links.length ? `${message.text}\n${links.join('\n')}\n` : message.text;
    const body = html`<!doctype html><html><head><meta charset="utf-8"><title>${message.subject}</title></head><body style="font-family: sans-serif">
<p>${message.text.split('\n')[0]}</p><ul>${message.alerts.map((a) => html`<li>[${a.severity}] ${a.title}${a.url ? html` — <a href="${a.url}">open</a>` : ''}</li>`)}</ul>
${message.acknowledgeUrl ? html`<p><a href="${message.acknowledgeUrl}">Acknowledge</a>${message.resolveUrl ? html` · <a href="${message.resolveUrl}">Resolve</a>` : ''}</p>` : html`<p>Acknowledge it in Vigil to stop the escalation.</p>`}
</body></html>`.text;
    await queueMail(services, store, [{ to: to.address, subject: message.subject, text, html: body }]);
    return { status: 'queued' };
  },
  async sendVerification({ services, store }, message) {
    if (!canSendMail(services)) {
      throw new ApiError('validation_failed', 'No outgoing mail is configured on this deployment, so no code can be emailed; the operator sets VIGIL_SMTP_URL.', {
        errors: [{ field: 'type', message: 'no email transport configured' }],
      });
    }
    const subject = 'Your Vigil verification code';
    const text = `Your code to verify "${message.name}" for paging is ${message.code}. It works for ${message.minutes} minutes.\n\nIf you did not ask for it, ignore this message.`;
    const body = html`<!doctype html><html><head><meta charset="utf-8"><title>${subject}</title></head><body style="font-family: sans-serif">
<p>Your code to verify “${message.name}” for paging is</p><p style="font-size: 24px; letter-spacing: 4px"><strong>${message.code}</strong></p>
<p>It works for ${String(message.minutes)} minutes. If you did not ask for it, ignore this message.</p></body></html>`.text;
    await queueMail(services, store, [{ to: message.address, subject, text, html: body }]);
  },
};
