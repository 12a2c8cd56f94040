/**
 * What a status page's owner sets by hand, through the public surfaces: a component's manual status with its end
 * (configuration API → page), maintenance windows on the page ahead and while they run, and a running window muting
 * its components' alerts (an Alertmanager webhook → the alert, read through get_alert, names the window).
 */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';
import { setSloStatus } from '../helpers/status-page.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const MINUTE = 60_000;

const org = await vigil.organization();
const api = await org.key(['api:admin']);
const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
t.teardown(() => agent.close());

const sli = (await api.post(`${CONFIG}/slis`, { name: 'checkout availability', service: 'Checkout', indicator: 'availability' })).body.data;
const slo = (await api.post(`${CONFIG}/slos`, { name: 'checkout ok', sli_id: sli.id, target_percent: 99.9 })).body.data;
await setSloStatus(vigil, slo.id, 'ok');
const checkout = (await api.post(`${CONFIG}/status_page_components`, { display_name: 'Checkout', slo_ids: [slo.id] })).body.data;
const docs = (await api.post(`${CONFIG}/status_page_components`, { display_name: 'Docs' })).body.data;
t.equal((await api.put(`${CONFIG}/status_page_settings`, { title: 'Acme status', slug: 'acme-maint', public: true })).status, 200);

const page = async () => (await (await fetch(`${vigil.url}/status/acme-maint.json`)).json()) as any;
const html = async () => (await fetch(`${vigil.url}/status/acme-maint`)).text();
const component = async (name: string) => (await page()).components.find((c: { name: string }) => c.name === name);

t.test('a manual status overrides the computed one until its end, then the computed one shows again', async (t) => {
  t.same(await component('Checkout'), { name: 'Checkout', description: null, status: 'ok', note: null });
  const until = new Date(vigil.clock.now().getTime() + 30 * MINUTE).toISOString();
  const set = await api.put(`${CONFIG}/status_page_components/${checkout.id}`, { manual_status: 'breaching', manual_status_until: until, manual_status_note: 'Card payments <fail>' });
  t.equal(set.status, 200);
  t.match(set.body.data, { manual_status: 'breaching', status: 'breaching', computed_status: 'ok' });
  t.same(await component('Checkout'), { name: 'Checkout', description: null, status: 'breaching', note: 'Card payments <fail>' });
  const text = await html();
  t.match(text, /Disrupted/);
  t.match(text, /Card payments &#60;fail&#62;/, 'the note is escaped text');
  t.notMatch(text, /<fail>/);

  const audit = await api.get(`${CONFIG}/audit_log?limit=5`);
  t.equal(audit.status, 200);
  t.match(JSON.stringify(audit.body.data), /manual_status/, 'the override is audited as an update');

  vigil.clock.advance(29 * MINUTE);
  t.equal((await component('Checkout')).status, 'breaching', 'still in force just before its end');
  vigil.clock.advance(1 * MINUTE);
  t.same(await component('Checkout'), { name: 'Checkout', description: null, status: 'ok', note: null }, 'at its end the computed status is back, with no write');
  t.equal((await api.get(`${CONFIG}/status_page_components/${checkout.id}`)).body.data.status, 'ok');

  // without an end it holds until cleared; clearing clears the end and the note
  await api.put(`${CONFIG}/status_page_components/${docs.id}`, { manual_status: 'maintenance', manual_status_note: 'Rebuilding the index' });
  vigil.clock.advance(7 * 24 * 60 * MINUTE);
  t.equal((await component('Docs')).status, 'maintenance');
  const cleared = await api.put(`${CONFIG}/status_page_components/${docs.id}`, { manual_status: null });
  t.match(cleared.body.data, { manual_status: null, manual_status_until: null, manual_status_note: null, status: null });
  t.same(await component('Docs'), { name: 'Docs', description: null, status: null, note: null });
});

t.test('manual status refusals name the field and change nothing', async (t) => {
  const before = (await api.get(`${CONFIG}/status_page_components/${checkout.id}`)).body.data;
  const past = new Date(vigil.clock.now().getTime() - MINUTE).toISOString();
  for (const [body, field] of [
    [{ manual_status: 'down' }, 'manual_status'],
    [{ manual_status: 'at_risk', manual_status_until: past }, 'manual_status_until'],
    [{ manual_status_note: 'a note alone' }, 'manual_status_note'],
    [{ manual_status: 'ok', manual_status_note: 'n'.repeat(281) }, 'manual_status_note'],
    [{ manual_status: 'ok', manual_status_until: 'tomorrow' }, 'manual_status_until'],
  ] as const) {
    const answer = await api.put(`${CONFIG}/status_page_components/${checkout.id}`, body);
    t.equal(answer.status, 422, JSON.stringify(body));
    t.equal(answer.body.errors?.[0]?.field, field);
  }
  t.same((await api.get(`${CONFIG}/status_page_components/${checkout.id}`)).body.data, before);
});

const UA = { 'user-agent': 'Alertmanager/0.27.0', 'content-type': 'application/json' };
const fire = (name: string, service: string) =>
  fetch(`${vigil.url}/webhooks/metric-dashboard/${org.webhookToken}`, {
    method: 'POST', headers: UA,
    body: JSON.stringify({
      version: '4', groupKey: '{}:{alertname="x"}', truncatedAlerts: 0, status: 'firing', receiver: 'vigil', groupLabels: {}, commonLabels: {},
      commonAnnotations: {}, externalURL: 'http://alertmanager.example.com:9093',
      alerts: [{
        status: 'firing', labels: { alertname: name, severity: 'critical', service }, annotations: { summary: `${name} summary` },
        startsAt: '2026-03-01T11:59:00.000Z', endsAt: '0001-01-01T00:00:00Z', generatorURL: 'http://prometheus.example.com:9090/graph', fingerprint: name.toLowerCase(),
      }],
    }),
  });
const alert = async (name: string) => (await agent.call('get_alert', { fingerprint: `metric-dashboard:${name.toLowerCase()}` })).body.data;

t.test('a maintenance window: scheduled ahead, in progress while it runs (muting its components\' alerts), past after', async (t) => {
  const start = new Date(vigil.clock.now().getTime() + 60 * MINUTE);
  const end = new Date(start.getTime() + 60 * MINUTE);
  const created = await api.post(`${CONFIG}/status_page_maintenances`, {
    title: 'Payment provider switch', message: 'Checkout may be slow.', component_ids: [checkout.id], starts_at: start.toISOString(), ends_at: end.toISOString(),
  });
  t.equal(created.status, 201);
  t.match(created.body.data, { state: 'scheduled', mute_alerts: true, component_ids: [checkout.id] });
  const windowId = created.body.data.id;

  let shown = (await page()).maintenances;
  t.match(shown, [{ title: 'Payment provider switch', state: 'scheduled', components: ['Checkout'], message: 'Checkout may be slow.' }]);
  t.notOk(JSON.stringify(await page()).includes(windowId), 'no row id on the page');
  t.match(await html(), /Scheduled maintenance[\s\S]*Payment provider switch[\s\S]*Scheduled/);

  // before it runs, an alert of the service pages as usual
  await fire('CheckoutSlowEarly', 'checkout');
  t.equal((await alert('CheckoutSlowEarly')).status, 'firing', 'a scheduled window mutes nothing yet');

  vigil.clock.set(start);
  shown = (await page()).maintenances;
  t.match(shown, [{ state: 'in_progress' }]);
  t.match(await html(), /In progress/);
  t.equal((await api.get(`${CONFIG}/status_page_maintenances/${windowId}`)).body.data.state, 'in_progress');

  t.equal((await fire('CheckoutSlow', 'CHECKOUT')).status, 200);
  const muted = await alert('CheckoutSlow');
  t.equal(muted.status, 'muted', 'an alert of a component\'s service is muted while the window runs (service compared without case)');
  t.equal(muted.muted_by, windowId);
  t.same(muted.effects.find((e: { kind: string }) => e.kind === 'muted')?.detail, { maintenance_id: windowId, maintenance: 'Payment provider switch' });
  t.same(muted.effects.filter((e: { kind: string }) => e.kind === 'page_skipped').map((e: { detail: { reason: string } }) => e.detail.reason), ['muted']);

  await fire('SearchDown', 'search');
  t.equal((await alert('SearchDown')).status, 'firing', 'another service is not muted');
  t.equal((await alert('CheckoutSlowEarly')).status, 'firing', 'an alert that already fired stays as it is');

  vigil.clock.set(end);
  await fire('CheckoutSlowAfter', 'checkout');
  t.equal((await alert('CheckoutSlowAfter')).status, 'firing', 'the end is exclusive: at it nothing is muted');
  shown = (await page()).maintenances;
  t.match(shown, [{ state: 'completed' }]);
  t.match(await html(), /Past maintenance[\s\S]*Payment provider switch/);
  t.match(await html(), /No maintenance is scheduled/);
});

t.test('a window with mute_alerts false, or one whose components have no SLO, mutes nothing', async (t) => {
  const start = vigil.clock.now();
  const end = new Date(start.getTime() + 60 * MINUTE).toISOString();
  await api.post(`${CONFIG}/status_page_maintenances`, { title: 'Quiet', component_ids: [checkout.id], starts_at: start.toISOString(), ends_at: end, mute_alerts: false });
  await api.post(`${CONFIG}/status_page_maintenances`, { title: 'Docs only', component_ids: [docs.id], starts_at: start.toISOString(), ends_at: end });
  await fire('CheckoutLoud', 'checkout');
  t.equal((await alert('CheckoutLoud')).status, 'firing');
});

t.test('maintenance refusals name the field and store nothing', async (t) => {
  const before = (await api.get(`${CONFIG}/status_page_maintenances`)).body.data.length;
  for (const [body, field] of [
    [{ title: 't', starts_at: '2030-01-10T03:00:00Z', ends_at: '2030-01-10T04:00:00+02:00' }, 'ends_at'],
    [{ title: 't', starts_at: '2030-01-10T03:00:00Z', ends_at: '2030-01-10T03:00:00Z' }, 'ends_at'],
    [{ title: '', starts_at: '2030-01-10T03:00:00Z', ends_at: '2030-01-10T04:00:00Z' }, 'title'],
    [{ title: 't', starts_at: '2030-01-10T03:00:00Z', ends_at: '2030-01-10T04:00:00Z', mute_alerts: 'yes' }, 'mute_alerts'],
  ] as const) {
    const answer = await api.post(`${CONFIG}/status_page_maintenances`, body);
    t.equal(answer.status, 422, JSON.stringify(body));
    t.equal(answer.body.errors?.[0]?.field, field);
  }
  t.equal((await api.get(`${CONFIG}/status_page_maintenances`)).body.data.length, before);
});
