/**
 * The console's on-call pages over HTTP, as a browser without JavaScript sees them: the On call page (now, until,
 * next for a seeded schedule; my next shifts), the schedule page (the SVG timeline with a row per layer, overrides and
 * final, each shift titled; the table of final shifts), the override form (a success shown on the schedule, a refusal
 * shown inline with what was typed and nothing saved, a forged form refused), a viewer's pages without forms, and the
 * feed rotation showing its address once, the address working and the older one refused.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { browserless, person, PASSWORD } from '../../helpers/console.ts';
import { onCallOrganization } from '../../helpers/oncall.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const { org, api, me, ben } = await onCallOrganization(vigil);
// the harness's clock stands at 2026-03-01T12:00Z: I am on call from 09:00 that day to 09:00 the next, then ben
const schedule = (await api.post(`${CONFIG}/schedules`, {
  name: 'Payments primary', time_zone: 'UTC',
  layers: [{ name: 'Daily', participants: [me.email, ben.email], rotation: { unit: 'daily', length: 1 }, handoff: '2026-03-01T09:00' }],
})).body.data;
const web = browserless(vigil.url);
t.equal((await web.signIn(me.email, PASSWORD)).status, 303);
const overrides = async () => (await api.get(`${CONFIG}/schedule_overrides`)).body.data as { email: string; start: string; end: string; replaces: string | null }[];

t.test('the On call page: now, until, next, and my next shifts', async (t) => {
  const page = await web.get('/oncall');
  t.equal(page.status, 200);
  t.match(page.text, /<a href="\/oncall" aria-current="page">On call<\/a>/, 'in the navigation');
  const row = /<tr><th scope="row"><a href="\/oncall\/schedules\/[^"]+">Payments primary<\/a><\/th>[\s\S]*?<\/tr>/.exec(page.text)?.[0] ?? '';
  t.match(row, me.email, 'on call now');
  t.match(row, 'datetime="2026-03-02T09:00:00.000Z"', 'until the handoff');
  t.match(row, ben.email, 'next');
  const mine = page.text.slice(page.text.indexOf('My next shifts'));
  t.match(mine, 'datetime="2026-03-03T09:00:00.000Z"', 'my shift two days on is listed');
  t.notMatch(mine, ben.email, 'ben\'s shifts are not mine');
});

t.test('the schedule page: the SVG timeline and its text equivalent', async (t) => {
  const page = await web.get(`/oncall/schedules/${schedule.id}`);
  t.equal(page.status, 200);
  t.notMatch(page.text, /<script/i, 'no script');
  const svg = /<svg[\s\S]*?<\/svg>/.exec(page.text)?.[0] ?? '';
  t.match(svg, /role="img" aria-label="Payments primary: /);
  for (const label of ['Daily', 'Overrides', 'Final']) t.match(svg, `>${label}</text>`, `a row labelled ${label}`);
  t.match(svg, `<title>${me.email}: 2026-03-01 12:00 UTC to 2026-03-02 09:00 UTC</title>`, 'each shift says who and when');
  t.match(svg, `>${ben.email.split('@')[0]}</text>`, 'a day-long shift has the name written in');
  t.equal((svg.match(/<rect /g) ?? []).length, 30, '15 pieces on the layer row and 15 on the final row, none on the overrides row');
  t.match(page.text, /<caption>Final shifts, the next 14 days<\/caption>/);
});

t.test('the override form: added, or refused inline with what was typed', async (t) => {
  let page = await web.get(`/oncall/schedules/${schedule.id}`);
  const csrf = web.field(page.text, '_csrf');
  const refused = await web.post(`/oncall/schedules/${schedule.id}/overrides`, { _csrf: csrf, email: me.email, replaces: ben.email, start: '2026-03-02 17:00', end: '2026-03-02 10:00' });
  t.equal(refused.status, 422);
  t.match(refused.text, /role="alert"[\s\S]*<strong>end<\/strong>/, 'end is named');
  t.match(refused.text, 'value="2026-03-02 17:00"', 'what was typed is kept');
  t.match(refused.text, '<svg', 'on the schedule page itself');
  t.same(await overrides(), [], 'nothing saved');

  const forged = await web.post(`/oncall/schedules/${schedule.id}/overrides`, { _csrf: 'nope', email: me.email, start: '2026-03-02 10:00', end: '2026-03-02 17:00' });
  t.equal(forged.status, 403);

  const done = await web.post(`/oncall/schedules/${schedule.id}/overrides`, { _csrf: csrf, email: me.email, replaces: ben.email, start: '2026-03-02 10:00', end: '2026-03-02 17:00' });
  t.equal(done.status, 303);
  t.same((await overrides()).map((o) => [o.email, o.replaces, o.start, o.end]), [[me.email, ben.email, '2026-03-02T10:00:00.000Z', '2026-03-02T17:00:00.000Z']]);
  page = await web.get(done.location!);
  t.match(page.text, 'The override was added.');
  t.match(page.text, `<title>${me.email}: 2026-03-02 10:00 UTC to 2026-03-02 17:00 UTC</title>`, 'drawn on the overrides and final rows');

  const other = await web.post(`/oncall/schedules/${schedule.id}/overrides`, { _csrf: csrf, email: ben.email, start: '2026-03-04 10:00', end: '2026-03-04 17:00' });
  t.equal(other.status, 403, 'a member may not put someone else on call, as over REST');
});

t.test('rotating a feed shows the new address once; the older one stops working', async (t) => {
  const page = await web.get(`/oncall/schedules/${schedule.id}`);
  const csrf = web.field(page.text, '_csrf');
  const urlOf = (text: string) => /id="feed-url" readonly value="([^"]+)"/.exec(text)?.[1] ?? '';
  const first = await web.post('/oncall/feeds', { _csrf: csrf, schedule_id: schedule.id });
  t.equal(first.status, 200);
  t.match(first.text, 'shown once');
  const old = new URL(urlOf(first.text));
  t.equal((await fetch(`${vigil.url}${old.pathname}`)).status, 200);
  const second = await web.post('/oncall/feeds', { _csrf: csrf, schedule_id: schedule.id });
  const fresh = new URL(urlOf(second.text));
  t.not(fresh.pathname, old.pathname);
  t.equal((await fetch(`${vigil.url}${old.pathname}`)).status, 404, 'the old address is dead');
  const feed = await fetch(`${vigil.url}${fresh.pathname}`);
  t.match(await feed.text(), `On call: ${me.email}`);
  t.notMatch((await web.get(`/oncall/schedules/${schedule.id}`)).text, fresh.pathname, 'not shown again');
  const personal = await web.post('/oncall/feeds', { _csrf: csrf });
  t.match(personal.text, /\/calendar\/vcal_[^"]+\.ics/, 'my own feed');
});

t.test('a viewer sees the pages without the forms', async (t) => {
  const viewer = await person(vigil, { [org.id]: 'viewer' });
  const theirs = browserless(vigil.url);
  t.equal((await theirs.signIn(viewer.email, PASSWORD)).status, 303);
  const page = await theirs.get(`/oncall/schedules/${schedule.id}`);
  t.equal(page.status, 200);
  t.match(page.text, '<svg');
  t.notMatch(page.text, /Add override|Take this shift|New address/, 'no override form, no take buttons, no feed rotation');
  t.notMatch((await theirs.get('/oncall')).text, 'New address', 'no feed rotation on the On call page');
});
