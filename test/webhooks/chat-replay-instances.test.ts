/**
 * Issue 41: a signed chat request accepted by one instance is refused as a replay by another serving the same
 * database: accepted signatures are remembered in the store both share (PostgreSQL), not in one process.
 */
import { createHmac } from 'node:crypto';
import t from 'tap';
import { startFakeChat } from '../helpers/fake-chat.ts';
import { CONFIG, scratchStorage, startVigil } from '../helpers/harness.ts';

const twoInstances = process.env.DATABASE_URL ? false : 'PostgreSQL only (set DATABASE_URL): the embedded database serves one instance';
const BOT = 'xoxb-replay-instances-token-7d1f';
const SECRET = 'chat-signing-secret-for-replays-0042';

t.test('a signed chat request accepted on one instance is refused on the other', { skip: twoInstances }, async (t) => {
  const chat = await startFakeChat({ token: BOT, channels: ['#ops'] });
  const storage = await scratchStorage();
  const settings = { storage, chat: { apiUrl: chat.url, responseOrigin: new URL(chat.url).origin } };
  const a = await startVigil(settings);
  const b = await startVigil(settings);
  t.teardown(async () => {
    await a.close();
    await b.close();
    await storage.drop();
    await chat.close();
  });
  const org = await a.organization();
  const api = await org.key(['api:admin']);
  t.equal((await api.put(`${CONFIG}/chat`, { workspace_id: 'T0REPLAY', bot_token: BOT, default_channel: '#ops', signing_secret: SECRET })).status, 200);

  const body = new URLSearchParams({ command: '/vigil', text: 'help', user_id: 'U1', team_id: 'T0REPLAY', trigger_id: '1.2.3' }).toString();
  const timestamp = Math.floor(a.clock.now().getTime() / 1000);
  const headers = {
    'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': `v0=${createHmac('sha256', SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`,
  };
  const send = async (url: string) => {
    const res = await fetch(`${url}/webhooks/chat/${org.webhookToken}`, { method: 'POST', headers, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  t.equal((await send(a.url)).status, 200, 'the first use, on instance A, is accepted');
  t.match(await send(b.url), { status: 401, body: { error: 'replayed' } }, 'the same request on instance B is a replay');
  t.match(await send(a.url), { status: 401, body: { error: 'replayed' } }, 'and on A again');
});
