/**
 * A real SMTP server (smtp-server) on 127.0.0.1 that keeps every message it accepts, decoded enough to read:
 * envelope, headers, subject, the text and HTML parts, and the other parts (inline images) as bytes with their headers. It can require a login and refuse the next messages
 * (a reply code of the test's choosing), to test failures and recovery.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Mail {
  /** the envelope: MAIL FROM and every RCPT TO */
  from: string;
  to: string[];
  headers: Record<string, string>;
  subject: string;
  text: string;
  html: string;
  /** every part that is neither the text nor the HTML (multipart/related's images), decoded */
  attachments: Attachment[];
  raw: string;
}

export interface Attachment {
  contentType: string;
  /** the Content-ID without its angle brackets; '' when none */
  cid: string;
  /** Content-Disposition as sent (inline; filename=…) */
  disposition: string;
  content: Buffer;
}

export interface Smtp {
  /** smtp://[user:pass@]127.0.0.1:<port> */
  url: string;
  messages: Mail[];
  /** messages refused so far */
  refused: number;
  /** refuses the next `count` messages (to `to`, when given) with `code` (451: try later) and `reply` as the server's text */
  refuseNext(count: number, options?: { code?: number; reply?: string; to?: string }): void;
  close(): Promise<void>;
}

function splitHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function decodeBody(body: string, encoding: string | undefined): string {
  const e = (encoding ?? '7bit').toLowerCase();
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') {
    const s = body.replace(/=\r?\n/g, '');
    const bytes: Buffer[] = [];
    for (let i = 0; i < s.length; i++) {
      const hex = s.slice(i + 1, i + 3);
      if (s[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
        bytes.push(Buffer.from([parseInt(hex, 16)]));
        i += 2;
      } else bytes.push(Buffer.from(s[i]!, 'utf8'));
    }
    return Buffer.concat(bytes).toString('utf8');
  }
  return body;
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= / =?UTF-8?B?…?=) in a header. */
function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([qb])\?([^?]*)\?=\s*/gi, (_, kind: string, text: string) =>
    kind.toLowerCase() === 'b' ? Buffer.from(text, 'base64').toString('utf8') : decodeBody(text.replace(/_/g, ' '), 'quoted-printable'));
}

/** The text and HTML parts of a message (single part, or nested multipart: alternative, related, mixed), and the others. */
function parts(headers: Record<string, string>, body: string): { text: string; html: string; attachments: Attachment[] } {
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!boundary) {
    const encoding = headers['content-transfer-encoding'];
    if (!type.startsWith('text/')) {
      const content = (encoding ?? '').toLowerCase() === 'base64' ? Buffer.from(body.replace(/\s+/g, ''), 'base64') : Buffer.from(body, 'latin1');
      const cid = (headers['content-id'] ?? '').replace(/^<|>$/g, '');
      return { text: '', html: '', attachments: [{ contentType: type.split(';')[0]!.trim(), cid, disposition: headers['content-disposition'] ?? '', content }] };
    }
    const decoded = decodeBody(body, encoding);
    return type.startsWith('text/html') ? { text: '', html: decoded, attachments: [] } : { text: decoded, html: '', attachments: [] };
  }
  const found = { text: '', html: '', attachments: [] as Attachment[] };
  for (const chunk of body.split(`--${boundary}`).slice(1)) {
    if (chunk.startsWith('--')) break;
    const at = chunk.indexOf('\r\n\r\n');
    if (at < 0) continue;
    const h = splitHeaders(chunk.slice(0, at).replace(/^\r\n/, ''));
    const inner = parts(h, chunk.slice(at + 4).replace(/\r\n$/, ''));
    found.text ||= inner.text;
    found.html ||= inner.html;
    found.attachments.push(...inner.attachments);
  }
  return found;
}

export function parseMail(raw: string, from: string, to: string[]): Mail {
  const at = raw.indexOf('\r\n\r\n');
  const headers = splitHeaders(raw.slice(0, at));
  const { text, html, attachments } = parts(headers, raw.slice(at + 4));
  return { from, to, headers, subject: decodeWords(headers.subject ?? ''), text, html, attachments, raw };
}

export async function startSmtp(options: { auth?: { user: string; pass: string } } = {}): Promise<Smtp> {
  const messages: Mail[] = [];
  let refuse = 0;
  let refuseCode = 451;
  let refuseReply = 'Mailbox busy, try again later';
  let refuseTo: string | undefined;
  const state = { refused: 0 };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address);
        if (refuse > 0 && (refuseTo === undefined || to.includes(refuseTo))) {
          refuse--;
          state.refused++;
          return callback(Object.assign(new Error(refuseReply), { responseCode: refuseCode }));
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        messages.push(parseMail(Buffer.concat(chunks).toString('utf8'), from, to));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  const login = options.auth ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@` : '';
  return {
    url: `smtp://${login}127.0.0.1:${port}`,
    messages,
    get refused() {
      return state.refused;
    },
    refuseNext(count, { code = 451, reply = 'Mailbox busy, try again later', to } = {}) {
      refuse = count;
      refuseCode = code;
      refuseReply = reply;
      refuseTo = to;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
