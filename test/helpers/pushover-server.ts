/**
 * A local Pushover API (pushover.net/api, /api/receipts) on 127.0.0.1 for paging tests:
 * - `POST /1/messages.json` (form): an unknown application token or user key answers 400
 *   `{ token|user: "invalid", errors: [...], status: 0, request }`; priority 2 without retry ≥ 30 and expire ≤ 10800
 *   answers 400 likewise; otherwise `{ status: 1, request }`, with a 30-character `receipt` for priority 2;
 * - `GET /1/receipts/<receipt>.json?token=<app token>`: the receipt's state, `status: 1` and the integer fields
 *   acknowledged, acknowledged_at, acknowledged_by, expired, called_back…; an unknown receipt or another app's
 *   token answers 400 `{ status: 0, errors }`;
 * - `acknowledge(receipt)`: the person acknowledges in the app: the receipt is marked and, when the message had a
 *   callback URL, it is POSTed the form Pushover posts (receipt, acknowledged, acknowledged_at, acknowledged_by,
 *   acknowledged_by_device); answers the callback's status.
 * A scripted status answers the next call.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';

export interface PushoverMessage {
  form: Record<string, string>;
  receipt: string | null;
  acknowledged: boolean;
  acknowledgedAt: number;
  calledBack: boolean;
}

export interface PushoverServer {
  url: string;
  appTokens: Set<string>;
  users: Set<string>;
  messages: PushoverMessage[];
  receiptQueries: { receipt: string; token: string | null }[];
  script: number[];
  acknowledge(receipt: string): Promise<{ status: number; body: any } | null>;
  close(): Promise<void>;
}

const key = () => randomBytes(30).toString('base64').replace(/[^A-Za-z0-9]/g, '').padEnd(30, 'a').slice(0, 30);
export const pushoverKey = key;

export async function startPushover(options: { appTokens: string[]; users: string[] }): Promise<PushoverServer> {
  const fake: PushoverServer = {
    url: '',
    appTokens: new Set(options.appTokens),
    users: new Set(options.users),
    messages: [],
    receiptQueries: [],
    script: [],
    async acknowledge(receipt) {
      const message = fake.messages.find((m) => m.receipt === receipt);
      if (!message) throw new Error('no such receipt');
      message.acknowledged = true;
      message.acknowledgedAt = Math.floor(Date.now() / 1000);
      if (!message.form.callback) return null;
      const res = await fetch(message.form.callback, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ receipt, acknowledged: '1', acknowledged_at: String(message.acknowledgedAt), acknowledged_by: message.form.user!, acknowledged_by_device: 'phone' }).toString(),
      });
      message.calledBack = true;
      return { status: res.status, body: await res.json().catch(() => null) };
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
      const request = randomBytes(16).toString('hex');
      const answer = (status: number, body: Record<string, unknown>) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': request });
        res.end(JSON.stringify({ ...body, request }));
      };
      const invalid = (field: string, error: string) => answer(400, { [field]: 'invalid', errors: [error], status: 0 });
      const scripted = fake.script.shift();
      if (scripted !== undefined) return answer(scripted, { status: 0, errors: ['scripted failure'] });
      const url = new URL(req.url ?? '/', 'http://pushover.local');
      const receiptPath = /^\/1\/receipts\/([A-Za-z0-9]+)\.json$/.exec(url.pathname);
      if (req.method === 'GET' && receiptPath) {
        const token = url.searchParams.get('token');
        fake.receiptQueries.push({ receipt: receiptPath[1]!, token });
        const message = fake.messages.find((m) => m.receipt === receiptPath[1]);
        if (!token || !fake.appTokens.has(token)) return invalid('token', 'application token is invalid');
        if (!message || message.form.token !== token) return answer(400, { receipt: 'not found', errors: ['receipt not found; may be invalid or expired'], status: 0 });
        return answer(200, {
          status: 1, acknowledged: message.acknowledged ? 1 : 0, acknowledged_at: message.acknowledgedAt, acknowledged_by: message.acknowledged ? message.form.user : '',
          acknowledged_by_device: message.acknowledged ? 'phone' : '', last_delivered_at: 0, expired: 0, expires_at: 0, called_back: message.calledBack ? 1 : 0, called_back_at: 0,
        });
      }
      if (req.method !== 'POST' || url.pathname !== '/1/messages.json') return answer(404, { status: 0, errors: ['not found'] });
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      if (!form.token || !fake.appTokens.has(form.token)) return invalid('token', 'application token is invalid');
      if (!form.user || !fake.users.has(form.user)) return invalid('user', 'user identifier is not a valid user, group, or subscribed user key');
      if (!form.message) return invalid('message', 'message cannot be blank');
      const emergency = form.priority === '2';
      if (emergency && !(Number(form.retry) >= 30)) return invalid('retry', 'retry must be supplied with priority=2 and be at least 30 seconds');
      if (emergency && !(Number(form.expire) > 0 && Number(form.expire) <= 10800)) return invalid('expire', 'expire must be supplied with priority=2 and be at most 10800 seconds');
      const receipt = emergency ? key() : null;
      fake.messages.push({ form, receipt, acknowledged: false, acknowledgedAt: 0, calledBack: false });
      answer(200, { status: 1, ...(receipt ? { receipt } : {}) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return fake;
}
