/**
 * The SMTP transport (nodemailer), made once per process and SMTP URL, and the text a failed send leaves in
 * `last_error`: built from the error's code and the server's reply only, with the URL's user name and password
 * removed wherever they could appear (a server may echo the login), so the credentials reach neither the table
 * nor a log line. nodemailer's own logger stays off: it would write the SMTP dialogue, AUTH included.
 */
import nodemailer, { type Transporter } from 'nodemailer';

const transports = new Map<string, Transporter>();

/** Bounded waits, so a send settles well within the job's expiry (email-send.ts). */
const TIMEOUTS = { connectionTimeout: 20_000, greetingTimeout: 20_000, socketTimeout: 60_000 };
const ERROR_KEPT = 300;

export function transportFor(smtpUrl: string): Transporter {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    transport = nodemailer.createTransport({ url: smtpUrl, ...TIMEOUTS, logger: false, debug: false });
    transports.set(smtpUrl, transport);
  }
  return transport;
}

/** The URL's credentials in every form a reply could carry them: as written, decoded, and in base64 (AUTH). */
function credentials(smtpUrl: string): string[] {
  let user = '';
  let pass = '';
  try {
    const url = new URL(smtpUrl);
    user = decodeURIComponent(url.username);
    pass = decodeURIComponent(url.password);
  } catch {
    return [];
  }
  const forms = [user, pass, encodeURIComponent(pass), Buffer.from(pass).toString('base64'), Buffer.from(`\u0000${user}\u0000${pass}`).toString('base64')];
  return [...new Set(forms)].filter((s) => s.length >= 3).sort((a, b) => b.length - a.length);
}

/** What went wrong, for `last_error` and the log: the server's reply code and text, or the failure's code. */
export function mailError(error: unknown, smtpUrl: string): string {
  const e = (error ?? {}) as { code?: unknown; responseCode?: unknown; response?: unknown; command?: unknown };
  const code = typeof e.code === 'string' && /^[A-Z_]{2,32}$/.test(e.code) ? e.code : null;
  let text: string;
  if (typeof e.responseCode === 'number') {
    const reply = typeof e.response === 'string' ? e.response : String(e.responseCode);
    const command = typeof e.command === 'string' && /^[A-Z ]{2,16}$/.test(e.command) ? ` to ${e.command}` : '';
    text = `the SMTP server answered${command}: ${reply}`;
  } else {
    text = `the SMTP server could not be reached or did not answer${code ? ` (${code})` : ''}`;
  }
  for (const secret of credentials(smtpUrl)) text = text.replaceAll(secret, '(removed)');
  text = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return text.length > ERROR_KEPT ? `${text.slice(0, ERROR_KEPT - 1)}…` : text;
}
