/**
 * The Pushover channel against a local Pushover API (test/helpers/pushover-server.ts): a low-urgency page is a normal
 * push linking to the acknowledge link; a high-urgency page is an emergency (priority 2, retry, expire, a callback
 * URL with a token of its own); the organization's app token comes first, the operator's after. Pushover's callback
 * acknowledges the alert as the paged person (REST shows it; audited as credential kind page, transport pushover) only
 * after the receipts API confirms; a forged callback (wrong token, wrong receipt, or a receipt Pushover does not say
 * was acknowledged) changes nothing; refusals answer failed with Pushover's words and no token.
 */
import t from 'tap';
import { pushoverChannel } from '../../../domain/paging/channels/pushover.ts';
import { person } from '../../helpers/console.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { alertOrg } from '../../helpers/outbound.ts';
import { pageMessage } from '../../helpers/page-message.ts';
import { pushoverKey, startPushover } from '../../helpers/pushover-server.ts';

const ORG_TOKEN = pushoverKey();
const OPERATOR_TOKEN = pushoverKey();
const USER = pushoverKey();
const pushover = await startPushover({ appTokens: [ORG_TOKEN, OPERATOR_TOKEN], users: [USER] });
t.teardown(() => pushover.close());
const vigil = await startVigil({ pushover: { apiUrl: pushover.url, appToken: OPERATOR_TOKEN } });
t.teardown(() => vigil.close());
const services = vigil.running.services;
const ctx = () => ({ services, now: vigil.clock.now() });
const to = (address = USER) => ({ id: 'cm-1', type: 'pushover' as const, address, name: 'pushover' });

/** An organization with its own app token, a paged member and a firing alert. */
async function paged(name: string) {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const saved = await org.api.put(`${CONFIG}/paging_providers`, { pushover_app_token: ORG_TOKEN });
  if (saved.status !== 200) throw new Error(JSON.stringify(saved.body));
  const member = await person(vigil, { [org.id]: 'member' });
  await org.fire({ name, service: 'db' });
  const alert = await org.alert(name);
  const message = pageMessage(org.id, { userId: member.id, email: member.email, alerts: [{ id: alert.id, title: name, severity: 'critical', incidentId: null, url: `${vigil.url}/console/alerts/${alert.id}` }] });
  return { org, member, alert, message };
}

const statusOf = async (org: { api: any }, id: string) => (await org.api.get(`${CONFIG}/alerts/${id}`)).body.data.status as string;
const audit = async (org: { api: any }, id: string) => (await org.api.get(`${CONFIG}/audit_log`)).body.data.filter((e: any) => e.row_id === id && e.action === 'action:acknowledge_alert');
const callback = (url: string, form: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() }).then(async (r) => ({ status: r.status, body: await r.json() as any }));

t.test('a low-urgency page is a normal push linking to the acknowledge link, sent with the organization\'s token', async (t) => {
  const { org, message } = await paged('NormalPush');
  const sent = await pushoverChannel.send(ctx(), to(), { ...message, urgency: 'low' });
  t.equal(sent.status, 'sent');
  const form = pushover.messages.at(-1)!.form;
  t.same(form, {
    token: ORG_TOKEN, user: USER, title: message.subject, message: message.text, priority: '0', url: message.acknowledgeUrl, url_title: 'Acknowledge',
  }, 'the documented form');
  t.match(sent.providerId, /^[0-9a-f]{32}$/, 'the providerId is Pushover\'s request id');
  t.equal(await statusOf(org, message.alerts[0]!.id), 'firing', 'a normal push acknowledges nothing by itself');
});

t.test('without the organization\'s own token the operator\'s is used', async (t) => {
  const org = await vigil.organization();
  t.equal((await pushoverChannel.send(ctx(), to(), pageMessage(org.id, { urgency: 'low' }))).status, 'sent');
  t.equal(pushover.messages.at(-1)!.form.token, OPERATOR_TOKEN);
});

t.test('an emergency page: acknowledged in the app, Pushover calls back, the receipt is confirmed, the alert is acknowledged as the person', async (t) => {
  const { org, member, alert, message } = await paged('EmergencyAck');
  const sent = await pushoverChannel.send(ctx(), to(), message);
  const sentMessage = pushover.messages.at(-1)!;
  t.same(sent, { status: 'sent', providerId: sentMessage.receipt }, 'the providerId is the receipt');
  t.match(sentMessage.form, { priority: '2', retry: '60', expire: '3600', url: message.alerts[0]!.url, url_title: 'Open in Vigil' });
  t.match(sentMessage.form.callback, new RegExp(`^${vigil.url}/paging/pushover/vpo_[A-Za-z0-9_-]{32}$`), 'the callback is a Vigil URL with a token of its own');
  t.equal(await statusOf(org, alert.id), 'firing');

  const called = await pushover.acknowledge(sentMessage.receipt!);
  t.equal(called?.status, 200, 'the callback is answered 200');
  t.ok(pushover.receiptQueries.some((q) => q.receipt === sentMessage.receipt && q.token === ORG_TOKEN), 'the receipt was confirmed with the app token');
  t.equal(await statusOf(org, alert.id), 'acknowledged', 'REST shows the alert acknowledged');
  const entries = await audit(org, alert.id);
  t.equal(entries.length, 1);
  t.match(entries[0], { actor: { kind: 'page', id: member.id }, transport: 'pushover', changes: { status: { before: 'firing', after: 'acknowledged' } } }, 'audited as the paged person, credential kind page, transport pushover');

  const again = await callback(sentMessage.form.callback!, { receipt: sentMessage.receipt!, acknowledged: '1', acknowledged_at: '1', acknowledged_by: USER });
  t.equal(again.status, 200, 'a repeated callback is answered');
  t.equal((await audit(org, alert.id)).length, 1, 'and acts no second time');
});

t.test('a forged callback changes nothing', async (t) => {
  const { org, alert, message } = await paged('ForgedCallback');
  await pushoverChannel.send(ctx(), to(), message);
  const sentMessage = pushover.messages.at(-1)!;
  const url = sentMessage.form.callback!;
  const form = { receipt: sentMessage.receipt!, acknowledged: '1', acknowledged_at: '1772366400', acknowledged_by: USER };
  const queries = pushover.receiptQueries.length;

  const wrongToken = await callback(url.replace(/vpo_.*$/, 'vpo_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), form);
  t.equal(wrongToken.status, 404, 'an unknown token is 404');
  const wrongReceipt = await callback(url, { ...form, receipt: pushoverKey() });
  t.equal(wrongReceipt.status, 404, 'another receipt on the right URL is 404');
  t.equal(pushover.receiptQueries.length, queries, 'neither asked Pushover anything');

  const unconfirmed = await callback(url, form);
  t.equal(unconfirmed.status, 403, 'a receipt Pushover does not say was acknowledged is 403');
  t.match(unconfirmed.body, { error: 'forbidden' });
  t.equal(pushover.receiptQueries.length, queries + 1, 'Pushover was asked');
  t.equal(await statusOf(org, alert.id), 'firing', 'the alert is still firing');
  t.same(await audit(org, alert.id), [], 'nothing audited');

  // the real acknowledgement still works afterwards
  t.equal((await pushover.acknowledge(sentMessage.receipt!))?.status, 200);
  t.equal(await statusOf(org, alert.id), 'acknowledged');
});

t.test('refusals answer failed with Pushover\'s words and no secret', async (t) => {
  const { org, message } = await paged('RefusedPush');
  const stranger = pushoverKey();
  const badUser = await pushoverChannel.send(ctx(), to(stranger), message);
  t.same(badUser, { status: 'failed', reason: 'Pushover answered 400 (user identifier is not a valid user, group, or subscribed user key)' });
  t.notOk(JSON.stringify(badUser).includes(ORG_TOKEN));
  const [row] = await services.db.em.getConnection().execute('select count(*)::int as n from paging_pushover_receipts where organization_id = ? and receipt is null', [org.id]);
  t.equal(Number(row.n), 0, 'a refused emergency leaves no callback behind');

  pushover.script.push(500);
  t.same(await pushoverChannel.send(ctx(), to(), message), { status: 'failed', reason: 'Pushover answered 500 (scripted failure)' });

  t.equal((await org.api.put(`${CONFIG}/paging_providers`, { pushover_app_token: pushoverKey() })).status, 200);
  const badToken = await pushoverChannel.send(ctx(), to(), message);
  t.same(badToken, { status: 'failed', reason: 'Pushover answered 400 (application token is invalid)' });

  const unset = { ...services, config: { ...services.config, pushover: { apiUrl: pushover.url, appToken: null } } };
  const other = await vigil.organization();
  t.match(await pushoverChannel.send({ services: unset, now: vigil.clock.now() }, to(), pageMessage(other.id)), { status: 'failed', reason: /^pushover_not_configured/ }, 'no token anywhere: not configured');

  const unreachable = { ...services, config: { ...services.config, pushover: { apiUrl: 'https://10.0.0.9', appToken: OPERATOR_TOKEN } } };
  t.same(await pushoverChannel.send({ services: unreachable, now: vigil.clock.now() }, to(), pageMessage(other.id, { urgency: 'low' })), { status: 'failed', reason: 'Pushover could not be reached' }, 'an address the guarded client refuses');
});

t.test('a callback is kept a week: a later page prunes it', async (t) => {
  const { org, alert, message } = await paged('OldCallback');
  await pushoverChannel.send(ctx(), to(), message);
  const old = pushover.messages.at(-1)!;
  vigil.clock.advance(8 * 24 * 3600_000);
  await pushoverChannel.send(ctx(), to(), { ...message, bundleId: crypto.randomUUID() });
  old.acknowledged = true;
  const late = await callback(old.form.callback!, { receipt: old.receipt!, acknowledged: '1', acknowledged_at: '1', acknowledged_by: USER });
  t.equal(late.status, 404, 'a week-old callback no longer acts');
  t.equal(await statusOf(org, alert.id), 'firing');
});
