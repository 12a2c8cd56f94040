/**
 * The webhook channel against a local receiver (test/helpers/receiver.ts): the page is POSTed as JSON (the alerts, the
 * person, the urgency, acknowledge_url and resolve_url) signed exactly like outbound deliveries, which the
 * `standardwebhooks` package verifies with the organization's webhook_signing_secret; without a secret it goes
 * unsigned; a refusal (500, a redirect, an internal-network address) answers failed with a reason.
 */
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { webhookChannel } from '../../../domain/paging/channels/webhook.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { pageMessage } from '../../helpers/page-message.ts';
import { startReceiver } from '../../helpers/receiver.ts';

const SECRET = `whsec_${Buffer.from('paging-webhook-signing-key-0042').toString('base64')}`;
const receiver = await startReceiver(200);
t.teardown(() => receiver.close());
const vigil = await startVigil();
t.teardown(() => vigil.close());
// webhook-timestamp comes from the service's clock: a receiver checks it against its own
vigil.clock.set(new Date());
const services = vigil.running.services;
const ctx = () => ({ services, now: vigil.clock.now() });
const to = (address: string) => ({ id: 'cm-1', type: 'webhook' as const, address, name: 'my pager' });

t.test('the page is POSTed as signed JSON that standardwebhooks verifies', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  t.equal((await api.put(`${CONFIG}/paging_providers`, { webhook_signing_secret: SECRET })).status, 200);
  t.equal((await api.get(`${CONFIG}/paging_providers`)).body.data.webhook_signing_secret_set, true, 'answered only as set');
  const message = pageMessage(org.id, { userId: '6f1c9a1e-8d47-4b2a-9a55-0c3f2f2b7e11', urgency: 'low' });
  const sent = await webhookChannel.send(ctx(), to(`${receiver.url}/pages`), message);
  t.same(sent, { status: 'sent', providerId: message.bundleId });
  const request = receiver.requests.at(-1)!;
  t.equal(request.path, '/pages');
  t.equal(request.headers['content-type'], 'application/json');
  t.equal(request.headers['webhook-id'], message.bundleId, 'webhook-id is the page, the same if it is sent again');
  const verified = new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>) as any;
  t.same(verified, {
    type: 'page', page_id: message.bundleId, sent_at: vigil.clock.now().toISOString(), urgency: 'low',
    person: { user_id: message.userId, email: message.email }, subject: message.subject, text: message.text,
    alerts: message.alerts.map((a) => ({ id: a.id, title: a.title, severity: a.severity, incident_id: null, url: a.url })),
    acknowledge_url: message.acknowledgeUrl, resolve_url: message.resolveUrl,
  }, 'the signature verifies and the body names the alerts, the person, the urgency and the ways back');
  t.throws(() => new Webhook(SECRET).verify(request.body.replace('"low"', '"high"'), request.headers as Record<string, string>), 'a changed body does not verify');
  t.throws(() => new Webhook(`whsec_${Buffer.from('another-secret-entirely-000000').toString('base64')}`).verify(request.body, request.headers as Record<string, string>), 'another secret does not verify');
});

t.test('without a signing secret the page goes unsigned', async (t) => {
  const org = await vigil.organization();
  const sent = await webhookChannel.send(ctx(), to(`${receiver.url}/unsigned`), pageMessage(org.id));
  t.equal(sent.status, 'sent');
  const request = receiver.requests.at(-1)!;
  t.equal(request.headers['webhook-signature'], undefined);
  t.ok(request.headers['webhook-id'] && request.headers['webhook-timestamp'], 'the id and timestamp are there');
});

t.test('refusals answer failed with a reason', async (t) => {
  const org = await vigil.organization();
  receiver.script.push(500);
  t.same(await webhookChannel.send(ctx(), to(`${receiver.url}/pages`), pageMessage(org.id)), { status: 'failed', reason: 'the webhook receiver answered 500' });
  receiver.script.push(410);
  t.same(await webhookChannel.send(ctx(), to(`${receiver.url}/pages`), pageMessage(org.id)), { status: 'failed', reason: 'the webhook receiver answered 410' });
  receiver.script.push({ redirect: 'https://elsewhere.example.com/', status: 302 });
  t.same(await webhookChannel.send(ctx(), to(`${receiver.url}/pages`), pageMessage(org.id)), { status: 'failed', reason: 'the webhook receiver answered 302 (a redirect, which a page does not follow)' });
  const before = receiver.requests.length;
  t.same(await webhookChannel.send(ctx(), to('https://10.1.2.3/hook'), pageMessage(org.id)), { status: 'failed', reason: 'the webhook receiver could not be reached' }, 'an internal-network address is refused');
  t.same(await webhookChannel.send(ctx(), to('http://169.254.169.254/latest/meta-data'), pageMessage(org.id)), { status: 'failed', reason: 'the webhook receiver could not be reached' }, 'the cloud metadata address is refused');
  t.equal(receiver.requests.length, before);
});
