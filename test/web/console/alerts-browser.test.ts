/**
 * Acting on an alert in a real browser (Chromium through playwright-core, JavaScript off, as the console needs none):
 * a member opens /alerts, the alert, presses Acknowledge, and the consequences are read over REST — the alert's
 * `chat_thread_update` effect naming the person, the `alert.acknowledged` outbound delivery an outbound rule
 * subscribed to, the audit entry with transport console; a viewer sees no action button on the alert and incident
 * pages. Skipped, saying why, where no Chromium is installed.
 */
import t from 'tap';
import { browserSkip, openBrowser } from '../../helpers/browser.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { startFakeChat } from '../../helpers/fake-chat.ts';
import { person, PASSWORD } from '../../helpers/console.ts';
import { alertOrg, effects } from '../../helpers/outbound.ts';
import { startReceiver } from '../../helpers/receiver.ts';

const BOT = 'xoxb-console-browser-token-7f3a91';

t.test('acknowledging an alert in Chromium', { skip: browserSkip() }, async (t) => {
  const chat = await startFakeChat({ token: BOT, channels: ['#ops'] });
  t.teardown(() => chat.close());
  const vigil = await startVigil({ chat: { apiUrl: chat.url, retryDelaysSeconds: [0.2] } });
  t.teardown(() => vigil.close());
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const o = await alertOrg(vigil, { auto_open_incidents: true });
  t.teardown(() => o.agent.close());
  t.equal((await o.api.put(`${CONFIG}/chat`, { workspace_id: 'T0CHAT', bot_token: BOT, default_channel: '#ops' })).status, 200);
  const config = await o.create('outbound_configs', { name: 'events', kind: 'webhook', url: `${receiver.url}/events` });
  await o.create('outbound_rules', { name: 'acknowledgements', events: ['alert.acknowledged'], outbound_config_id: config.id });
  await o.fire({ name: 'CheckoutLatency', service: 'checkout', severity: 'critical' });
  const alert = await o.alert('CheckoutLatency');
  t.equal(alert.status, 'firing');
  const member = await person(vigil, { [o.id]: 'member' });
  const viewer = await person(vigil, { [o.id]: 'viewer' });

  const { context, close } = await openBrowser({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
  t.teardown(close);
  const signIn = async (email: string, next: string) => {
    const tab = await context.newPage();
    await tab.goto(`${vigil.url}/login?next=${encodeURIComponent(next)}`);
    await tab.getByLabel('Email').fill(email);
    await tab.getByLabel('Password').fill(PASSWORD);
    await tab.getByRole('button', { name: 'Sign in' }).click();
    return tab;
  };

  const tab = await signIn(member.email, '/alerts?status=firing');
  t.equal(tab.url(), `${vigil.url}/alerts?status=firing`);
  await tab.getByRole('link', { name: 'CheckoutLatency' }).click();
  t.equal(tab.url(), `${vigil.url}/alerts/${alert.id}`);
  await tab.getByRole('button', { name: 'Acknowledge', exact: true }).click();
  t.match(await tab.getByRole('status').innerText(), 'The alert was acknowledged.');
  t.match(await tab.locator('dl.facts').last().innerText(), /Status\s+acknowledged/);
  t.match(await tab.locator('section', { has: tab.getByRole('heading', { name: 'What Vigil did' }) }).innerText(), `Chat thread updated: acknowledged by ${member.email} (you)`);
  t.equal(await tab.getByRole('button', { name: 'Acknowledge', exact: true }).count(), 0, 'no second Acknowledge');
  t.equal(await tab.getByRole('button', { name: 'Unacknowledge' }).count(), 1, 'Unacknowledge instead');

  const rest = (await o.api.get(`${CONFIG}/alerts/${alert.id}`)).body.data;
  t.equal(rest.status, 'acknowledged', 'REST reads the acknowledgement');
  t.same(effects(rest, 'chat_thread_update'), [{ reason: 'acknowledged', queued: true, by: { kind: 'session', id: member.id, name: null, email: member.email } }], 'its chat thread hears of it, naming the person');
  const deliveries = await o.deliveries({ event_type: 'alert.acknowledged' });
  t.same(deliveries.map((d: any) => d.subject_id), [alert.id], 'alert.acknowledged is enqueued for the subscribed outbound config');
  const log = await vigil.operator.get(`/api/admin/v1/organizations/${o.id}/audit_log`);
  t.match(log.body.data[0], { transport: 'console', actor: { kind: 'session', id: member.id }, family: 'alerts', action: 'action:acknowledge_alert', row_id: alert.id });

  // a viewer, in a fresh browser: the same pages, no action button, and a forged POST refused by the operation
  const { context: viewing, close: closeViewing } = await openBrowser({ javaScriptEnabled: false });
  t.teardown(closeViewing);
  const look = await viewing.newPage();
  await look.goto(`${vigil.url}/login?next=${encodeURIComponent(`/alerts/${alert.id}`)}`);
  await look.getByLabel('Email').fill(viewer.email);
  await look.getByLabel('Password').fill(PASSWORD);
  await look.getByRole('button', { name: 'Sign in' }).click();
  t.equal(look.url(), `${vigil.url}/alerts/${alert.id}`);
  for (const path of [`/alerts/${alert.id}`, `/incidents/${alert.incident_id}`]) {
    await look.goto(`${vigil.url}${path}`);
    t.equal(await look.getByRole('heading', { level: 1 }).count(), 1, path);
    for (const name of ['Acknowledge', 'Unacknowledge', 'Resolve', 'Reopen', 'Assign', 'Set severity', 'Add note']) {
      t.equal(await look.getByRole('button', { name, exact: true }).count(), 0, `${path}: no ${name}`);
    }
    t.equal(await look.getByRole('button', { name: 'Sign out' }).count(), 1);
  }
  const csrf = await look.locator('input[name="_csrf"]').first().getAttribute('value');
  const forged = await viewing.request.post(`${vigil.url}/alerts/${alert.id}/resolve`, { form: { _csrf: csrf! }, maxRedirects: 0 });
  t.equal(forged.status(), 403, 'refused by the operation');
  t.equal((await o.api.get(`${CONFIG}/alerts/${alert.id}`)).body.data.status, 'acknowledged', 'unchanged');
});
