/**
 * A local Twilio REST API (twilio.com/docs/messaging/api/message-resource, /docs/voice/api/call-resource) on
 * 127.0.0.1 for paging tests, and Twilio's side of the webhooks:
 * - `POST /2010-04-01/Accounts/<AccountSid>/Messages.json` and `/Calls.json`: HTTP Basic auth (the account SID and
 *   its auth token) else 401 `{ code: 20003, message: "Authenticate", more_info, status: 401 }`; a form-encoded body;
 *   a `To` that is not E.164, or is listed in `invalidNumbers`, answers 400 `{ code: 21211, message: "The 'To' number
 *   <To> is not a valid phone number.", … }` (Twilio echoes the number); a message needs From or
 *   MessagingServiceSid (21603) and Body (21602), a call From and Url or Twiml (21205); otherwise 201 with the
 *   resource's JSON (`sid` SM…/CA… and 32 hex digits, `status: "queued"`, account_sid, to, from…).
 * - `status(sid, status)`, `reply(...)`, `press(...)`: post to Vigil what Twilio posts (a status callback, an
 *   incoming text, a Gather's digits), form-encoded and signed with X-Twilio-Signature: base64 HMAC-SHA1, keyed by the
 *   auth token, of the full URL followed by each POST parameter's name and value sorted by name (twilioSignature,
 *   written here from Twilio's description, not the SDK's code, and checked against Twilio's documented example).
 * A scripted status (`script`) answers the next API call with Twilio's error JSON; `hang` makes the next one never answer.
 */
import http from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';

export interface TwilioRequest {
  resource: 'Messages' | 'Calls';
  accountSid: string;
  /** the Basic auth's password as sent */
  authToken: string | null;
  form: Record<string, string>;
  /** every value of a repeated field (StatusCallbackEvent) */
  all: Record<string, string[]>;
  sid: string | null;
  status: number;
}

export interface TwilioServer {
  url: string;
  accounts: Map<string, string>;
  invalidNumbers: Set<string>;
  requests: TwilioRequest[];
  script: number[];
  hang: boolean;
  /** Twilio's incoming-text webhook: signed unless `signature` is given (null: no header) */
  post(url: string, form: Record<string, string>, options?: { token?: string; signature?: string | null }): Promise<{ status: number; text: string }>;
  status(sid: string, status: string, extra?: Record<string, string>): Promise<{ status: number; text: string }>;
  reply(to: { url: string; accountSid: string; from: string; to: string; body: string }): Promise<{ status: number; text: string }>;
  press(sid: string, digits: string, options?: { signature?: string | null }): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

export const twilioSid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;
export const twilioToken = () => randomBytes(16).toString('hex');

/** X-Twilio-Signature: base64(HMAC-SHA1(authToken, url + each param's name and value, sorted by name)). */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = url + Object.keys(params).sort().map((k) => k + params[k]).join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

const error = (status: number, code: number, message: string) => ({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
const E164 = /^\+[1-9][0-9]{6,14}$/;

export async function startTwilio(options: { accounts: [string, string][] }): Promise<TwilioServer> {
  const sent = (sid: string) => fake.requests.find((r) => r.sid === sid);
  const tokenOf = (accountSid: string) => fake.accounts.get(accountSid) ?? '';
  const fake: TwilioServer = {
    url: '',
    accounts: new Map(options.accounts),
    invalidNumbers: new Set(),
    requests: [],
    script: [],
    hang: false,
    async post(url, form, { token, signature } = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'TwilioProxy/1.1' };
      const signed = signature === undefined ? twilioSignature(token ?? tokenOf(form.AccountSid ?? ''), url, form) : signature;
      if (signed !== null) headers['x-twilio-signature'] = signed;
      const res = await fetch(url, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
      return { status: res.status, text: await res.text() };
    },
    async status(sid, status, extra = {}) {
      const request = sent(sid);
      if (!request) throw new Error('no such sid');
      const { form } = request;
      const fields: Record<string, string> = request.resource === 'Messages'
        ? { AccountSid: request.accountSid, MessageSid: sid, SmsSid: sid, MessageStatus: status, SmsStatus: status, To: form.To!, From: form.From ?? '', ApiVersion: '2010-04-01' }
        : { AccountSid: request.accountSid, CallSid: sid, CallStatus: status, To: form.To!, From: form.From!, Direction: 'outbound-api', ApiVersion: '2010-04-01' };
      return fake.post(form.StatusCallback!, { ...fields, ...extra });
    },
    async reply({ url, accountSid, from, to, body }) {
      return fake.post(url, { AccountSid: accountSid, MessageSid: twilioSid('SM'), SmsSid: twilioSid('SM'), From: from, To: to, Body: body, NumMedia: '0', ApiVersion: '2010-04-01' });
    },
    async press(sid, digits, { signature } = {}) {
      const request = sent(sid);
      if (!request || request.resource !== 'Calls') throw new Error('no such call');
      const action = /<Gather [^>]*action="([^"]+)"/.exec(request.form.Twiml ?? '')?.[1]?.replaceAll('&amp;', '&');
      if (!action) throw new Error('the call has no Gather action');
      return fake.post(action, { AccountSid: request.accountSid, CallSid: sid, CallStatus: 'in-progress', Digits: digits, From: request.form.From!, To: request.form.To!, Direction: 'outbound-api', ApiVersion: '2010-04-01' }, { signature });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: Record<string, unknown>) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      };
      const path = /^\/2010-04-01\/Accounts\/([^/]+)\/(Messages|Calls)\.json$/.exec(new URL(req.url ?? '/', 'http://twilio.local').pathname);
      if (req.method !== 'POST' || !path) return answer(404, error(404, 20404, 'The requested resource was not found'));
      const accountSid = path[1]!;
      const resource = path[2] as 'Messages' | 'Calls';
      const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const all: Record<string, string[]> = {};
      for (const [k, v] of params) (all[k] ??= []).push(v);
      const form = Object.fromEntries(params);
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const [user, ...rest] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
      const authToken = basic ? rest.join(':') : null;
      const request: TwilioRequest = { resource, accountSid, authToken, form, all, sid: null, status: 0 };
      fake.requests.push(request);
      const reply = (status: number, body: Record<string, unknown>) => {
        request.status = status;
        answer(status, body);
      };
      if (fake.hang) {
        fake.hang = false;
        return;
      }
      const scripted = fake.script.shift();
      if (scripted !== undefined) return reply(scripted, error(scripted, scripted >= 500 ? 20500 : 20001, scripted >= 500 ? 'Internal Server Error' : 'Scripted failure'));
      if (user !== accountSid || !fake.accounts.has(accountSid) || fake.accounts.get(accountSid) !== authToken) return reply(401, error(401, 20003, 'Authenticate'));
      if (!form.To || !E164.test(form.To) || fake.invalidNumbers.has(form.To)) return reply(400, error(400, 21211, `The 'To' number ${form.To ?? ''} is not a valid phone number.`));
      if (resource === 'Messages') {
        if (!form.From && !form.MessagingServiceSid) return reply(400, error(400, 21603, 'A \'From\' phone number is required.'));
        if (!form.Body) return reply(400, error(400, 21602, 'Message body is required.'));
      } else {
        if (!form.From) return reply(400, error(400, 21213, 'No \'From\' number is specified'));
        if (!form.Url && !form.Twiml) return reply(400, error(400, 21205, 'Url parameter is required.'));
      }
      request.sid = twilioSid(resource === 'Messages' ? 'SM' : 'CA');
      const now = new Date().toUTCString();
      reply(201, {
        sid: request.sid, account_sid: accountSid, to: form.To, from: form.From ?? null, status: 'queued', date_created: now, date_updated: now,
        api_version: '2010-04-01', uri: `/2010-04-01/Accounts/${accountSid}/${resource}/${request.sid}.json`,
        ...(resource === 'Messages' ? { body: form.Body, messaging_service_sid: form.MessagingServiceSid ?? null, num_segments: '1', direction: 'outbound-api' } : { direction: 'outbound-api' }),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return fake;
}
