/**
 * The ntfy channel against a local ntfy server (test/helpers/ntfy-server.ts): a page is published as ntfy's JSON
 * (topic, title, message, priority 5 or 3, tags, click, an http Acknowledge action POSTing the page's link and an
 * Open view action), with the organization's access token only when the topic is on the server the token belongs to;
 * refusals (401, 403, 429, 500, an internal-network address) answer failed with a reason that holds no token.
 */
import t from 'tap';
import { ntfyChannel } from '../../../domain/paging/channels/ntfy.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { startNtfy } from '../../helpers/ntfy-server.ts';
import { pageMessage } from '../../helpers/page-message.ts';

const own = await startNtfy({ protected: ['vigil-ann'] });
const other = await startNtfy({ protected: ['locked'] });
t.teardown(() => Promise.all([own.close(), other.close()]));
const vigil = await startVigil();
t.teardown(() => vigil.close());
const services = vigil.running.services;
const ctx = () => ({ services, now: vigil.clock.now() });
const to = (address: string) => ({ id: 'cm-1', type: 'ntfy' as const, address, name: 'phone' });

async function orgWithToken(token = own.token) {
  const org = await vigil.organization();
  const api = await org.key();
  const put = await api.put(`${CONFIG}/paging_providers`, { ntfy_server: own.url, ntfy_access_token: token });
  if (put.status !== 200) throw new Error(JSON.stringify(put.body));
  return org;
}

t.test('a page is published as ntfy JSON to its server, with the token, the Acknowledge action and priority by urgency', async (t) => {
  const org = await orgWithToken();
  const message = pageMessage(org.id);
  const sent = await ntfyChannel.send(ctx(), to(`${own.url}/vigil-ann`), message);
  const request = own.requests.at(-1)!;
  t.equal(request.answered, 200);
  t.equal(sent.status, 'sent');
  t.match(sent.providerId, /^[A-Za-z0-9]{12}$/, 'the providerId is the id ntfy answered');
  t.equal(request.path, '/', 'published as JSON to the server root');
  t.equal(request.headers['content-type'], 'application/json');
  t.equal(request.headers.authorization, `Bearer ${own.token}`, 'the organization\'s token goes to its own server');
  t.same(request.published, {
    topic: 'vigil-ann', title: message.subject, message: message.text, priority: 5, tags: ['rotating_light', 'critical'], click: message.alerts[0]!.url,
    actions: [
      { action: 'http', label: 'Acknowledge', url: message.acknowledgeUrl, method: 'POST', clear: true },
      { action: 'view', label: 'Open', url: message.alerts[0]!.url },
    ],
  });

  const low = await ntfyChannel.send(ctx(), to(`${own.url}/vigil-ann`), pageMessage(org.id, { urgency: 'low', acknowledgeUrl: null, resolveUrl: null, alerts: [{ id: 'a', title: 'Slow', severity: 'warning', incidentId: null, url: null }] }));
  t.equal(low.status, 'sent');
  t.match(own.requests.at(-1)!.published, { priority: 3, tags: ['warning'] }, 'low urgency is priority 3');
  t.notOk('actions' in own.requests.at(-1)!.published! || 'click' in own.requests.at(-1)!.published!, 'no link, no action: none is sent');
});

t.test('the token goes only to its own server: a topic elsewhere is published without Authorization', async (t) => {
  const org = await orgWithToken();
  const open = await ntfyChannel.send(ctx(), to(`${other.url}/someone-else`), pageMessage(org.id));
  t.equal(open.status, 'sent');
  t.equal(other.requests.at(-1)!.headers.authorization, undefined, 'no Authorization header to another server');
  const locked = await ntfyChannel.send(ctx(), to(`${other.url}/locked`), pageMessage(org.id));
  t.same(locked, { status: 'failed', reason: 'the ntfy server answered 403 (the access token may not publish to this topic)' }, 'a protected topic there refuses, without the token');
  t.equal(other.requests.at(-1)!.headers.authorization, undefined);
  t.notOk(other.requests.some((r) => JSON.stringify(r.headers).includes(own.token)), 'the token never reached the other server');

  const noToken = await vigil.organization();
  const anonymous = await ntfyChannel.send(ctx(), to(`${own.url}/vigil-ann`), pageMessage(noToken.id));
  t.match(anonymous, { status: 'failed', reason: /answered 403/ }, 'an organization without a token is refused by a protected topic');
});

t.test('refusals answer failed with the status in words and no secret', async (t) => {
  const wrong = 'tk_wrongtokenwrongtokenwrong01';
  const org = await orgWithToken(wrong);
  const unauthorized = await ntfyChannel.send(ctx(), to(`${own.url}/vigil-ann`), pageMessage(org.id));
  t.same(unauthorized, { status: 'failed', reason: 'the ntfy server answered 401 (the topic needs an access token: set ntfy_server and ntfy_access_token for this server)' });
  t.notOk(JSON.stringify(unauthorized).includes(wrong));

  const good = await orgWithToken();
  own.script.push(429);
  t.same(await ntfyChannel.send(ctx(), to(`${own.url}/vigil-ann`), pageMessage(good.id)), { status: 'failed', reason: 'the ntfy server answered 429 (the server is rate limiting publishes)' });
  own.script.push(500);
  t.same(await ntfyChannel.send(ctx(), to(`${own.url}/vigil-ann`), pageMessage(good.id)), { status: 'failed', reason: 'the ntfy server answered 500' });

  const before = own.requests.length;
  const internal = await ntfyChannel.send(ctx(), to('https://10.0.0.5/vigil-ann'), pageMessage(good.id));
  t.same(internal, { status: 'failed', reason: 'the ntfy server could not be reached' }, 'an internal-network address is refused by the guarded client');
  t.equal(own.requests.length, before);
});
