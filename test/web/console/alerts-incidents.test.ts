/**
 * The console's alert and incident pages over plain HTTP: signed out → the sign-in form; /alerts filtered and paged by
 * the API's cursor; an alert's effects in order; a member's acknowledge / unacknowledge / resolve / reopen / assign
 * through the operations (REST reads the result, the audit log says console, the effects say by whom); the incident
 * list and page with its timeline, and its acknowledge, severity, assign, note (sent twice: one note), resolve and
 * reopen; refusals: a viewer sees no buttons and a forged POST is the operation's 403, a wrong CSRF token 403, another
 * organization's alert or incident 404, a resolved alert's acknowledge 409, bad filters 422 naming the field.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { browserless, person, PASSWORD, type Person } from '../../helpers/console.ts';
import { alertOrg, type AlertOrg } from '../../helpers/outbound.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const ADMIN = '/api/admin/v1';

async function org(settings: Record<string, unknown> = {}): Promise<AlertOrg> {
  const o = await alertOrg(vigil, settings);
  t.teardown(() => o.agent.close());
  return o;
}

const ops = await org({ auto_open_incidents: true, auto_close_incidents: true });
const other = await org({ auto_open_incidents: true });
await ops.fire({ name: 'DiskFull', service: 'db', severity: 'critical' }, { name: 'SlowSearch', service: 'search', severity: 'warning' });
await other.fire({ name: 'ForeignAlert', service: 'db', severity: 'critical' });
const disk = await ops.alert('DiskFull');
const search = await ops.alert('SlowSearch');
const foreign = await other.alert('ForeignAlert');
const member = await person(vigil, { [ops.id]: 'member' }, undefined, 'Dana Ortiz');
const named = `Dana Ortiz (${member.email}) (you)`;
const viewer = await person(vigil, { [ops.id]: 'viewer' });

async function signedIn(who: Person) {
  const web = browserless(vigil.url);
  const answer = await web.signIn(who.email, PASSWORD);
  if (answer.status !== 303) throw new Error(`sign-in failed: ${answer.status}`);
  return web;
}
const alertOver = async (id: string) => (await ops.api.get(`${CONFIG}/alerts/${id}`)).body.data;
const incidentOver = async (id: string) => (await ops.api.get(`${CONFIG}/incidents/${id}`)).body.data;

t.test('signed out: the alert and incident pages send the browser to sign in; a POST changes nothing', async (t) => {
  const web = browserless(vigil.url);
  for (const page of ['/alerts?status=firing', `/alerts/${disk.id}`, '/incidents', `/incidents/${disk.incident_id}`]) {
    const answer = await web.get(page);
    t.equal(answer.status, 303, page);
    t.equal(answer.location, `/login?next=${encodeURIComponent(page)}`);
  }
  t.equal((await web.post(`/alerts/${disk.id}/acknowledge`, {})).status, 303);
  t.equal((await alertOver(disk.id)).status, 'firing');
});

t.test('the navigation names every section; /alerts lists, filters and pages by the API\'s cursor', async (t) => {
  const web = await signedIn(member);
  const all = await web.get('/alerts');
  t.equal(all.status, 200);
  for (const [path, label] of [['/board', 'Board'], ['/alerts', 'Alerts'], ['/incidents', 'Incidents'], ['/deployments', 'Deployments'], ['/deliveries', 'Deliveries']]) {
    t.match(all.text, `<a href="${path}"${path === '/alerts' ? ' aria-current="page"' : ''}>${label}`);
  }
  t.match(all.text, 'Alerts <span class="count">2<span class="visually-hidden"> unacknowledged</span></span>', 'what waits, counted in the navigation');
  t.match(all.text, `<a href="/alerts/${disk.id}">DiskFull</a>`);
  t.match(all.text, `<a href="/alerts/${search.id}">SlowSearch</a>`);
  t.notMatch(all.text, 'ForeignAlert', "no other organization's alert");
  const bySearch = await web.get('/alerts?service=search&status=&source=&since=');
  t.match(bySearch.text, 'SlowSearch');
  t.notMatch(bySearch.text, 'DiskFull');
  t.match((await web.get('/alerts?status=resolved')).text, 'No alerts match.');
  t.match((await web.get('/alerts?source=metric-dashboard&since=2026-03-01')).text, 'DiskFull', 'since as a date, read as UTC');
  t.notMatch((await web.get('/alerts?since=2030-01-01T00:00')).text, 'DiskFull', 'since as a date and time');
  const badSince = await web.get('/alerts?since=yesterday');
  t.equal(badSince.status, 422, "a bad since is the operation's 422");
  t.match(badSince.text, /since/);
  t.equal((await web.get('/alerts?status=sideways')).status, 422);

  const many = await org();
  await many.fire(...Array.from({ length: 52 }, (_, i) => ({ name: `Bulk${i}`, service: 'bulk' })));
  const lots = await person(vigil, { [many.id]: 'viewer' });
  const reader = await signedIn(lots);
  const first = await reader.get('/alerts?service=bulk');
  t.equal((first.text.match(/<tr><td><a href="\/alerts\//g) ?? []).length, 50, 'a page of 50');
  const next = /<a href="(\/alerts\?[^"]+)">Next page<\/a>/.exec(first.text)?.[1]?.replaceAll('&#38;', '&');
  t.ok(next, 'a Next page link from next_cursor');
  t.match(next, 'service=bulk', 'keeping the filter');
  const second = await reader.get(next!);
  t.equal(second.status, 200);
  t.equal((second.text.match(/<tr><td><a href="\/alerts\//g) ?? []).length, 2, 'the rest');
  t.notMatch(second.text, 'Next page', 'the last page has no Next');
  t.equal((await reader.get('/alerts?service=other&cursor=' + encodeURIComponent(new URLSearchParams(next!.split('?')[1]).get('cursor')!))).status, 422, 'a cursor of other filters is refused');
});

t.test('a member acts on an alert: each button runs the operation; REST, the effects and the audit log agree', async (t) => {
  const web = await signedIn(member);
  const page = await web.get(`/alerts/${disk.id}`);
  t.equal(page.status, 200);
  t.match(page.text, '<h2 id="effects">What Vigil did</h2>');
  t.match(page.text, 'Opened an incident');
  t.match(page.text, `<a href="/incidents/${disk.incident_id}">DiskFull</a>`);
  t.match(page.text, `action="/alerts/${disk.id}/acknowledge"`);
  t.match(page.text, `action="/alerts/${disk.id}/resolve"`);
  t.notMatch(page.text, `action="/alerts/${disk.id}/reopen"`, 'a firing alert offers no reopen');
  const csrf = web.field(page.text, '_csrf');

  t.equal((await web.post(`/alerts/${disk.id}/acknowledge`, { _csrf: 'forged' })).status, 403, 'a wrong CSRF token');
  t.equal((await alertOver(disk.id)).status, 'firing', 'nothing changed');

  const acked = await web.post(`/alerts/${disk.id}/acknowledge`, { _csrf: csrf });
  t.equal(acked.status, 303);
  t.equal(acked.location, `/alerts/${disk.id}?saved=acknowledge`);
  t.equal((await alertOver(disk.id)).status, 'acknowledged', 'REST reads the acknowledgement');
  const log = await vigil.operator.get(`${ADMIN}/organizations/${ops.id}/audit_log`);
  t.match(log.body.data[0], { transport: 'console', actor: { kind: 'session', id: member.id }, family: 'alerts', action: 'action:acknowledge_alert' });
  const after = await web.get(acked.location!);
  t.match(after.text, 'The alert was acknowledged.');
  t.match(after.text, `action="/alerts/${disk.id}/unacknowledge"`);

  t.equal((await web.post(`/alerts/${disk.id}/unacknowledge`, { _csrf: csrf })).status, 303);
  t.equal((await alertOver(disk.id)).status, 'firing');
  t.equal((await web.post(`/alerts/${disk.id}/assign`, { _csrf: csrf, assignee: member.email })).status, 303);
  t.match((await alertOver(disk.id)).assignee, { id: member.id, email: member.email });
  const stranger = await web.post(`/alerts/${disk.id}/assign`, { _csrf: csrf, assignee: 'nobody@example.com' });
  t.equal(stranger.status, 422, 'an assignee who is not a member');
  t.match(stranger.text, /assignee/);

  t.equal((await web.post(`/alerts/${search.id}/resolve`, { _csrf: csrf })).status, 303);
  t.equal((await alertOver(search.id)).status, 'resolved');
  const conflict = await web.post(`/alerts/${search.id}/acknowledge`, { _csrf: csrf });
  t.equal(conflict.status, 409, 'a resolved alert cannot be acknowledged');
  t.match(conflict.text, 'Reopen it first');
  t.equal((await web.post(`/alerts/${search.id}/reopen`, { _csrf: csrf })).status, 303);
  t.equal((await alertOver(search.id)).status, 'firing', 'reopened: it fires again');
  const reopened = await web.get(`/alerts/${search.id}`);
  t.match(reopened.text, new RegExp(`· No one to page: no route matched</li>.*· Not posted to chat: chat not configured</li>.*· Chat thread not updated: chat not configured <span class="muted">by ${named.replace(/[().]/g, '\\$&')}</span>.*· Not paged: it fired again inside the re-fire cooldown <span class="muted">by ${named.replace(/[().]/g, '\\$&')}</span>`, 's'),
    'every effect in order, a person\'s naming who (the reopen fired inside the re-fire cooldown: not paged, and why)');
  t.match(reopened.text, /<h2 id="inv">Investigation<\/h2>.*<strong>failed<\/strong>.*No AI provider can be used/s, 'the investigation and its outcome');

  t.equal((await web.get(`/alerts/${foreign.id}`)).status, 404, "another organization's alert");
  t.equal((await web.post(`/alerts/${foreign.id}/acknowledge`, { _csrf: csrf })).status, 404);
  t.equal((await other.alert('ForeignAlert')).status, 'firing');
  t.equal((await web.get('/alerts/not-an-id')).status, 404);
  t.equal((await web.post(`/alerts/${disk.id}/explode`, { _csrf: csrf })).status, 404, 'an unknown action');
});

t.test('the incident: list, timeline, and a member\'s acknowledge, severity, assign, note, resolve and reopen', async (t) => {
  const web = await signedIn(member);
  const id = disk.incident_id as string;
  const list = await web.get('/incidents');
  t.equal(list.status, 200);
  t.match(list.text, `<a href="/incidents/${id}">DiskFull</a>`);
  t.notMatch(list.text, 'ForeignAlert');
  t.match((await web.get('/incidents?status=closed')).text, 'No incidents match.');
  t.match((await web.get('/incidents?service=db&severity=critical')).text, 'DiskFull');
  t.equal((await web.get('/incidents?severity=loud')).status, 422);

  const page = await web.get(`/incidents/${id}`);
  t.equal(page.status, 200);
  t.match(page.text, '<h2 id="timeline">Timeline</h2>');
  t.match(page.text, 'DiskFull started firing');
  t.match(page.text, `acknowledge alert <span class="muted">by ${named} (console)</span>`, 'the earlier action on its alert, by name and email');
  t.notMatch(page.text, new RegExp(`>[^<]*${member.id}`), 'the person\'s id is in no text of the page');
  const csrf = web.field(page.text, '_csrf');
  const key = web.field(page.text, 'key');

  t.equal((await web.post(`/incidents/${id}/acknowledge`, { _csrf: csrf })).status, 303);
  t.match(await incidentOver(id), { acknowledged_by: { kind: 'session', id: member.id } });
  t.equal((await web.post(`/incidents/${id}/severity`, { _csrf: csrf, severity: 'high' })).status, 303);
  t.equal((await incidentOver(id)).severity, 'high');
  const badSeverity = await web.post(`/incidents/${id}/severity`, { _csrf: csrf, severity: 'loud' });
  t.equal(badSeverity.status, 422);
  t.match(badSeverity.text, /severity/);
  t.equal((await web.post(`/incidents/${id}/assign`, { _csrf: csrf, assignee: member.email.toUpperCase() })).status, 303);
  t.equal((await incidentOver(id)).assignee.id, member.id);
  const note = { _csrf: csrf, key, body: 'Rolling back <b>v2</b>' };
  t.equal((await web.post(`/incidents/${id}/note`, note)).status, 303);
  t.equal((await web.post(`/incidents/${id}/note`, note)).status, 303, 'the same form again');
  const notes = (await incidentOver(id)).timeline.filter((e: any) => e.kind === 'note');
  t.equal(notes.length, 1, 'one note');
  t.equal((await web.post(`/incidents/${id}/note`, { _csrf: csrf, key: 'another', body: '   ' })).status, 422, 'a blank note');

  const resolved = await web.post(`/incidents/${id}/resolve`, { _csrf: csrf });
  t.equal(resolved.status, 303);
  t.equal(resolved.location, `/incidents/${id}?saved=resolve`);
  t.match(await incidentOver(id), { status: 'closed', resolved_by: { kind: 'session', id: member.id } });
  const closed = await web.get(resolved.location!);
  t.match(closed.text, 'The incident was resolved.');
  t.match(closed.text, 'Rolling back &#60;b&#62;v2&#60;/b&#62;', 'the note, escaped, in the timeline');
  t.match(closed.text, `action="/incidents/${id}/reopen"`);
  t.notMatch(closed.text, `action="/incidents/${id}/acknowledge"`, 'a closed incident offers no acknowledge');
  t.equal((await web.post(`/incidents/${id}/acknowledge`, { _csrf: csrf })).status, 409, 'acknowledging a closed incident');
  t.equal((await web.post(`/incidents/${id}/reopen`, { _csrf: csrf })).status, 303);
  t.equal((await incidentOver(id)).status, 'open');

  t.equal((await web.get(`/incidents/${foreign.incident_id}`)).status, 404, "another organization's incident");
  t.equal((await web.post(`/incidents/${foreign.incident_id}/resolve`, { _csrf: csrf })).status, 404);
  t.equal((await web.get('/incidents/not-an-id')).status, 404);
});

t.test('a viewer sees no buttons on the alert and incident pages; a forged POST with a good token is refused', async (t) => {
  const web = await signedIn(viewer);
  const alertPage = await web.get(`/alerts/${disk.id}`);
  const incidentPage = await web.get(`/incidents/${disk.incident_id}`);
  for (const page of [alertPage, incidentPage]) {
    t.equal(page.status, 200);
    t.notMatch(page.text, /action="\/(alerts|incidents)\/[^"]+\/[a-z]+"/, 'no action forms');
    t.notMatch(page.text, /<button type="submit">(Acknowledge|Unacknowledge|Resolve|Reopen|Assign|Set severity|Add note)/);
  }
  const csrf = web.field(alertPage.text, '_csrf');
  const before = (await alertOver(disk.id)).status;
  for (const [path, form] of [
    [`/alerts/${disk.id}/acknowledge`, {}], [`/alerts/${disk.id}/resolve`, {}], [`/alerts/${disk.id}/assign`, { assignee: viewer.email }],
    [`/incidents/${disk.incident_id}/resolve`, {}], [`/incidents/${disk.incident_id}/note`, { body: 'sneaky' }], [`/incidents/${disk.incident_id}/severity`, { severity: 'info' }],
  ] as const) {
    const forged = await web.post(path, { _csrf: csrf, ...form });
    t.equal(forged.status, 403, `${path} refused`);
    t.match(forged.text, /needs the member role/);
  }
  t.equal((await alertOver(disk.id)).status, before, 'unchanged');
  t.notOk((await incidentOver(disk.incident_id)).timeline.some((e: any) => e.kind === 'note' && e.detail.body === 'sneaky'));
});

t.test("times on the alert and incident pages are in the organization's time zone", async (t) => {
  t.equal((await ops.api.put(`${CONFIG}/organization_settings`, { timezone: 'Europe/Berlin' })).status, 200);
  const web = await signedIn(member);
  const berlin = '<time datetime="2026-03-01T12:00:00.000Z">2026-03-01 13:00 CET</time>';
  for (const page of ['/alerts', `/alerts/${disk.id}`, '/incidents', `/incidents/${disk.incident_id}`]) t.match((await web.get(page)).text, berlin, page);
  t.equal((await ops.api.put(`${CONFIG}/organization_settings`, { timezone: 'UTC' })).status, 200);
});

t.test('no secret in the alert and incident pages; hostile input never a 500', async (t) => {
  const web = await signedIn(member);
  const webhookToken = (await vigil.operator.get(`${ADMIN}/organizations/${ops.id}`)).body.webhook_token as string;
  const secrets: string[] = [(ops.api as typeof ops.api & { token: string }).token, webhookToken, web.cookies.get('vigil_session')!, PASSWORD];
  t.ok(secrets.every((s) => typeof s === 'string' && s.length > 8), 'each secret is known');
  for (const page of ['/alerts', `/alerts/${disk.id}`, '/incidents', `/incidents/${disk.incident_id}`]) {
    const text = (await web.get(page)).text;
    for (const secret of secrets) t.notOk(text.includes(secret), `${page} holds no secret`);
  }
  for (const path of ['/alerts?status[]=x', '/alerts?cursor=%FF%FE', `/alerts?service=${'s'.repeat(5000)}`, `/alerts/${'a'.repeat(5000)}`, '/incidents?since=%00', '/incidents?cursor=garbage', '/incidents/..%2F..']) {
    const answer = await web.get(path);
    t.ok(answer.status >= 200 && answer.status < 500, `${path.slice(0, 50)} → ${answer.status}`);
  }
  const csrf = await web.csrf();
  for (const [path, form] of [
    [`/alerts/${disk.id}/assign`, { assignee: 'a'.repeat(400) }], [`/incidents/${disk.incident_id}/note`, { body: 'x'.repeat(20_000) }],
    [`/incidents/${disk.incident_id}/severity`, { severity: '\u0000' }], ['/alerts/%00/acknowledge', {}],
  ] as const) {
    const answer = await web.post(path, { _csrf: csrf, ...form });
    t.ok(answer.status >= 400 && answer.status < 500, `${path} → ${answer.status}`);
  }
});
