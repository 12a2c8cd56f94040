/**
 * The Insights page over plain HTTP (no script needed): the range and filters read from the URL, the timings
 * table, each chart drawn as SVG with its title, axis titles and a table of its values, the bars in proportion to
 * the seeded fires, a refused range drawn as a 422 page naming the field, and the team plan told it sees 7 days.
 * Then the same page in Chromium at 1280 and 390 px: no horizontal scrolling, axe-core clean (skipped, saying why,
 * where no Chromium is installed).
 */
import t from 'tap';
import { axeViolations, browserSkip, openBrowser } from '../../helpers/browser.ts';
import { browserless, person, PASSWORD } from '../../helpers/console.ts';
import { startVigil } from '../../helpers/harness.ts';
import { alertOrg } from '../../helpers/outbound.ts';
import { stopChartRenderer } from '../../../engine/charts/render.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
t.teardown(stopChartRenderer);

const org = await alertOrg(vigil, { alert_refire_cooldown_minutes: 0, investigation_paused: true });
t.teardown(() => org.agent.close());
const me = await person(vigil, { [org.id]: 'viewer' });
// fires: 1 on 03-02, 2 on 03-03, 4 on 03-04 (one alert flapping)
const at = (iso: string) => vigil.clock.set(iso);
at('2026-03-02T09:00:00Z'); await org.fire({ name: 'DiskFull', severity: 'warning', service: 'db' });
at('2026-03-03T09:00:00Z'); await org.fire({ name: 'CpuHigh', severity: 'warning', service: 'web' });
at('2026-03-03T10:00:00Z'); await org.fire({ name: 'MemHigh', severity: 'warning', service: 'web' });
for (const hour of ['09', '10', '11', '12']) {
  at(`2026-03-04T${hour}:00:00Z`); await org.fire({ name: 'Flappy', severity: 'warning', service: 'web' });
  at(`2026-03-04T${hour}:05:00Z`); await org.resolve({ name: 'Flappy', severity: 'warning', service: 'web' });
}
at('2026-03-05T12:00:00Z');

const PAGE = '/insights?from=2026-03-02&to=2026-03-04';
const web = browserless(vigil.url);
await web.signIn(me.email, PASSWORD);

/** The heights of one chart's bars, in order: the chart is the SVG under the heading with this id. */
function barsOf(page: string, heading: string): number[] {
  const section = page.split(`<h2 id="${heading}">`)[1]!.split('</section>')[0]!;
  return [...section.matchAll(/aria-roledescription="bar" d="M[-\d.]+,[-\d.]+h[\d.]+v([\d.]+)h/g)].map((m) => Number(m[1]));
}

t.test('the page draws the seeded figures, each chart beside its table', async (t) => {
  const page = await web.get(PAGE);
  t.equal(page.status, 200);
  t.match(page.text, 'From 2026-03-02T00:00:00.000Z to 2026-03-05T00:00:00.000Z', 'the URL\'s days, the last one included');
  t.match(page.text, /<input id="f-from" name="from" type="date" value="2026-03-02">/, 'the form shows the range asked for');
  t.match(page.text, /<input id="f-to" name="to" type="date" value="2026-03-04">/);
  for (const title of ['Alert fires by day', 'Noisiest alerts', 'How fast', 'Flapping alerts']) t.match(page.text, `>${title}</h2>`);
  t.match(page.text, /<svg role="img" aria-label="Fires per UTC day from 2026-03-02 to 2026-03-04: 7 in all\."/, 'the chart is an image with a name');
  t.match(page.text, '>Day (UTC)</text>', 'the x axis has its title');
  t.match(page.text, /<caption>Fires by day<\/caption>.*<tr><td>2026-03-03<\/td><td>2<\/td><\/tr>/s, 'the values are a table under it');
  const bars = barsOf(page.text, 'volume');
  t.equal(bars.length, 3, 'a bar a day');
  t.same(bars.map((h) => Math.round((h / bars[0]!) * 100) / 100), [1, 2, 4], 'bar heights in proportion to 1, 2 and 4 fires');
  const noisiest = barsOf(page.text, 'noisiest');
  t.same(noisiest.map((h) => Math.round(h / noisiest.at(-1)!)), [4, 1, 1, 1], 'Flappy first, four times as high');
  t.match(page.text, /Flappy <code>metric-dashboard:flappy<\/code><\/td><td>2026-03-04<\/td><td>4<\/td>/, 'the flapping alert, its day and its fires');
  t.match(page.text, 'Pages by person</h2><p class="muted">Nothing in this range.', 'a chart with no values says so instead');
});

t.test('filters in the URL narrow the page', async (t) => {
  const page = await web.get(`${PAGE}&service=db`);
  t.equal(page.status, 200);
  t.match(page.text, 'Fires per UTC day from 2026-03-02 to 2026-03-04: 1 in all.');
  t.match(page.text, /<input id="f-service" name="service" type="text" value="db">/);
  t.notMatch(page.text, 'metric-dashboard:flappy');
});

t.test('a refused range is a 422 page naming the field', async (t) => {
  const page = await web.get('/insights?from=2026-03-04&to=2026-03-01');
  t.equal(page.status, 422);
  t.match(page.text, /<strong>to<\/strong>: must be after from/);
});

t.test('the team plan sees the last 7 days, and is told so; the free plan has no insights', async (t) => {
  const team = await vigil.organization('team');
  const teamPerson = await person(vigil, { [team.id]: 'viewer' });
  const teamWeb = browserless(vigil.url);
  await teamWeb.signIn(teamPerson.email, PASSWORD);
  const page = await teamWeb.get('/insights');
  t.equal(page.status, 200);
  t.match(page.text, 'Your plan shows the last 7 days.');
  t.equal((await teamWeb.get('/insights?from=2026-02-20&to=2026-02-25')).status, 403, 'an older range is refused');
  const free = await vigil.organization('free');
  const freePerson = await person(vigil, { [free.id]: 'viewer' });
  const freeWeb = browserless(vigil.url);
  await freeWeb.signIn(freePerson.email, PASSWORD);
  const refused = await freeWeb.get('/insights');
  t.equal(refused.status, 403);
  t.match(refused.text, 'Insights is not included in the free plan.');
});

t.test('a team\'s and a service\'s page show their last 30 days, with a link to /insights filtered to them', async (t) => {
  const team = await org.create('teams', { name: 'Api' });
  await org.create('alert_routes', { name: 'Api', team_id: team.id, matchers: [{ field: 'service', operator: 'equals', value: 'api' }] });
  at('2026-03-05T12:00:00Z'); await org.fire({ name: 'ApiDown', severity: 'warning', service: 'api' });
  at('2026-03-05T12:02:00Z'); await org.resolve({ name: 'ApiDown', severity: 'warning', service: 'api' });
  at('2026-03-05T12:10:00Z');
  const teamPage = await web.get(`/config/teams/${team.id}`);
  t.equal(teamPage.status, 200);
  const panel = (text: string) => text.split('<h2 id="insights-panel">')[1]?.split('</section>')[0] ?? '';
  const teamPanel = panel(teamPage.text);
  t.match(teamPanel, /^Insights: the last 30 days<\/h2>/, 'the panel is there, over the last 30 days');
  t.match(teamPanel, '<dt>Alerts</dt><dd>1 fired (1 fire)</dd>', 'only the alert the team\'s route matched');
  t.match(teamPanel, '<dt>Median time to acknowledge</dt><dd>–</dd>', 'nobody acknowledged it');
  t.match(teamPanel, '<dt>Median time to resolve</dt><dd>2 min</dd>');
  t.match(teamPanel, 'ApiDown <code>metric-dashboard:apidown</code>, 1 fire');
  t.match(teamPanel, `<a href="/insights?from=2026-02-03&#38;to=2026-03-05&#38;team_id=${team.id}">All insights for this team</a>`);
  const linked = await web.get(`/insights?from=2026-02-03&to=2026-03-05&team_id=${team.id}`);
  t.match(linked.text, /Fires per UTC day from 2026-02-03 to 2026-03-05: 1 in all\./, 'the link opens the same figures on the Insights page');

  const binding = await org.api.put('/api/v1/config/service_bindings/web', {});
  t.equal(binding.status, 200, JSON.stringify(binding.body));
  const servicePanel = panel((await web.get('/config/service_bindings/web')).text);
  t.match(servicePanel, '<dt>Alerts</dt><dd>3 fired (6 fires)</dd>', 'CpuHigh, MemHigh and Flappy four times');
  t.match(servicePanel, '<dt>Median time to resolve</dt><dd>5 min</dd>', 'Flappy\'s latest cycle, the only one resolved');
  t.match(servicePanel, 'Flappy <code>metric-dashboard:flappy</code>, 4 fires');
  t.match(servicePanel, '<a href="/insights?from=2026-02-03&#38;to=2026-03-05&#38;service=web">All insights for this service</a>');

  const other = await org.create('teams', { name: 'Quiet' });
  const quiet = panel((await web.get(`/config/teams/${other.id}`)).text);
  t.match(quiet, '<dt>Alerts</dt><dd>0 fired (0 fires)</dd>', 'a team no route names has nothing');
  t.match(quiet, '<dt>Noisiest alert</dt><dd>none</dd>');

  const teamOrg = await vigil.organization('team', { config_api: true });
  const teamApi = await teamOrg.key(['api:admin']);
  const small = await teamApi.post('/api/v1/config/teams', { name: 'Small' });
  t.equal(small.status, 201, JSON.stringify(small.body));
  const teamPerson = await person(vigil, { [teamOrg.id]: 'viewer' });
  const teamWeb = browserless(vigil.url);
  await teamWeb.signIn(teamPerson.email, PASSWORD);
  const teamPlanPage = await teamWeb.get(`/config/teams/${small.body.data.id}`);
  t.equal(teamPlanPage.status, 200, 'the team plan sees the panel over what it may see');
  t.match(teamPlanPage.text, 'Insights: the last 7 days</h2>');
  const freeOrg = await vigil.organization('free', { config_api: true });
  const freeApi = await freeOrg.key(['api:admin']);
  const freeTeam = await freeApi.post('/api/v1/config/teams', { name: 'Free' });
  const freePerson = await person(vigil, { [freeOrg.id]: 'viewer' });
  const freeWeb = browserless(vigil.url);
  await freeWeb.signIn(freePerson.email, PASSWORD);
  const freePage = await freeWeb.get(`/config/teams/${freeTeam.body.data.id}`);
  t.equal(freePage.status, 200, 'the free plan\'s team page still opens');
  t.notMatch(freePage.text, 'insights-panel', 'with no panel: the plan has no insights');
  teamPageUrl = `/config/teams/${team.id}`;
});

let teamPageUrl = '';

t.test('in Chromium at 1280 and 390 px: no horizontal scrolling, axe-core clean', { skip: browserSkip() }, async (t) => {
  const { context, close } = await openBrowser({ viewport: { width: 1280, height: 900 } });
  t.teardown(close);
  const tab = await context.newPage();
  await tab.goto(`${vigil.url}/login?next=${encodeURIComponent(PAGE)}`);
  await tab.getByLabel('Email').fill(me.email);
  await tab.getByLabel('Password').fill(PASSWORD);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  t.equal(new URL(tab.url()).pathname, '/insights');
  t.equal(await tab.getByRole('img', { name: /Fires per UTC day/ }).count(), 1, 'the chart is an image with a name');
  t.equal(await tab.getByRole('link', { name: 'Insights' }).getAttribute('aria-current'), 'page', 'the navigation marks the section');
  for (const width of [1280, 390]) {
    await tab.setViewportSize({ width, height: 900 });
    await tab.goto(`${vigil.url}${PAGE}`);
    t.ok(await tab.evaluate((w) => document.scrollingElement!.scrollWidth <= w, width), `${width} px: no horizontal scrolling`);
    t.same(await axeViolations(context, `${vigil.url}${PAGE}`), [], `${width} px: axe`);
  }
  if (teamPageUrl) t.same(await axeViolations(context, `${vigil.url}${teamPageUrl}`), [], 'a team page with its insights panel: axe');
  // the form keeps the range in the URL: a person's choice is a link
  await tab.getByLabel('Service').fill('web');
  await tab.getByRole('button', { name: 'Show' }).click();
  t.match(tab.url(), /\/insights\?from=2026-03-02&to=2026-03-04&service=web/);
});
