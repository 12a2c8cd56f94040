/**
 * The weekly insights mail, through a real SMTP server on 127.0.0.1 (test/helpers/smtp.ts), its pass run by hand
 * with the injected clock: the ISO week that ended is mailed once to each organization admin (not to members, not
 * to an organization whose plan has no insights), however many passes run at once; its figures are get_insights'
 * over that week, its charts inline as PNG parts; a hostile alert title arrives escaped; the next week is mailed
 * again. Teams' summaries and the pictures' content: weekly-team-mail.test.ts.
 */
import t from 'tap';
import { person } from '../../helpers/console.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { drainJobs } from '../../helpers/jobs.ts';
import { alertOrg } from '../../helpers/outbound.ts';
import { startSmtp } from '../../helpers/smtp.ts';
import { runWeeklyInsights, weekBefore, weeklyTables } from '../../../domain/insights/weekly.ts';

const smtp = await startSmtp();
t.teardown(() => smtp.close());
const vigil = await startVigil({ email: { smtpUrl: smtp.url, from: 'Vigil <vigil@acme.example>' } });
t.teardown(() => vigil.close());
const services = vigil.running.services;
const at = (iso: string) => vigil.clock.set(iso);

const HOSTILE = '<script>alert(1)</script> & "Disk"';
const org = await alertOrg(vigil, { alert_refire_cooldown_minutes: 0, investigation_paused: true });
t.teardown(() => org.agent.close());
await person(vigil, { [org.id]: 'org_admin' }, 'admin@example.com');
await person(vigil, { [org.id]: 'org_admin' }, 'second-admin@example.com');
await person(vigil, { [org.id]: 'member' }, 'member@example.com');
const free = await vigil.organization('free');
await person(vigil, { [free.id]: 'org_admin' }, 'free-admin@example.com');

const ack = async (name: string) => {
  const res = await org.api.post(`${CONFIG}/alerts/${(await org.alert(name)).id}/acknowledge`, {});
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
};
// the week 2026-03-09 (Monday) to 03-16: two full cycles of the hostile alert, one of Cpu never acknowledged
at('2026-03-10T10:00:00Z'); await org.fire({ name: HOSTILE, severity: 'warning', service: 'db' });
at('2026-03-10T10:02:00Z'); await ack(HOSTILE);
at('2026-03-10T10:30:00Z'); await org.resolve({ name: HOSTILE, severity: 'warning', service: 'db' });
at('2026-03-11T09:00:00Z'); await org.fire({ name: HOSTILE, severity: 'warning', service: 'db' });
at('2026-03-11T09:10:00Z'); await ack(HOSTILE);
at('2026-03-11T10:00:00Z'); await org.resolve({ name: HOSTILE, severity: 'warning', service: 'db' });
at('2026-03-12T08:00:00Z'); await org.fire({ name: 'Cpu', severity: 'warning', service: 'web' });
at('2026-03-12T08:05:00Z'); await org.resolve({ name: 'Cpu', severity: 'warning', service: 'web' });

t.test('the ISO week before now, in UTC', async (t) => {
  t.same(weekBefore(Date.parse('2026-03-16T00:30:00Z')), { from: Date.parse('2026-03-09T00:00:00Z'), to: Date.parse('2026-03-16T00:00:00Z'), week: '2026-W11' });
  t.equal(weekBefore(Date.parse('2026-03-22T23:59:59Z')).week, '2026-W11', 'all week long, the week before is the same');
  t.equal(weekBefore(Date.parse('2027-01-04T08:00:00Z')).week, '2026-W53', '2026 has 53 ISO weeks');
  t.equal(weekBefore(Date.parse('2026-01-05T08:00:00Z')).week, '2026-W01', 'week 1 began on Monday 2025-12-29');
});

t.test('the week that ended is mailed once to each admin, with get_insights\' figures, escaped', async (t) => {
  at('2026-03-15T23:59:00Z');
  t.equal(await runWeeklyInsights(services), 1, 'on Sunday night the week before (W10, nothing in it) is mailed');
  await drainJobs(services);
  smtp.messages.length = 0;

  at('2026-03-16T00:30:00Z');
  const passes = await Promise.all([runWeeklyInsights(services), runWeeklyInsights(services)]);
  t.equal(passes[0]! + passes[1]!, 1, 'two passes at once mail the organization once');
  t.equal(await runWeeklyInsights(services), 0, 'a later pass that week mails nothing');
  await drainJobs(services);
  t.same(smtp.messages.map((m) => m.to).flat().sort(), ['admin@example.com', 'second-admin@example.com'], 'each admin once; no member; no admin of a plan without insights');
  const mail = smtp.messages.find((m) => m.to.includes('admin@example.com'))!;
  t.match(mail.subject, /week 2026-W11$/);

  const rest = (await org.api.get(`${CONFIG}/insights?from=2026-03-09T00:00:00Z&to=2026-03-16T00:00:00Z`)).body.data;
  t.match(rest.alerts, { fires: 3, alerts_fired: 2, raised: 3, resolved_unacknowledged: 1 });
  t.match(rest.alerts.time_to_acknowledge, { count: 2, median: 120, p90: 600 }, 'both cycles of the hostile alert: 2 and 10 minutes');
  t.match(rest.alerts.time_to_resolve, { count: 3, median: 1800, p90: 3600 }, '5, 30 and 60 minutes');
  for (const table of weeklyTables(rest)) {
    for (const row of table.rows) t.ok(mail.text.includes(`  ${row.filter((c) => c !== '').join(' · ')}`), `the text has ${table.caption}: ${row.join(' · ')}`);
  }
  t.match(mail.text, /fires · 3\r?\n/);
  t.match(mail.text, /alerts: time to acknowledge · 2 min · 10 min · 2 · – · –/);
  t.match(mail.text, /alerts: time to resolve · 30 min · 1 h · 3/);
  t.match(mail.html, /<td [^>]*>alerts: time to acknowledge<\/td><td [^>]*>2 min<\/td><td [^>]*>10 min<\/td>/);
  t.notMatch(mail.html, /<script>/, 'the alert title is not markup');
  t.ok(mail.html.includes('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;Disk&#34;'), 'it is text, every character escaped');
  t.match(mail.html, /href="http[^"]*\/insights\?from=2026-03-09&#38;to=2026-03-15"/, 'a link to the Insights page over the same days');
  const shown = [...mail.html.matchAll(/<img src="cid:([^"]+)"/g)].map((m) => m[1]);
  t.same(shown, ['fires-by-day-2026-W11@insights.vigil', 'noisiest-alerts-2026-W11@insights.vigil'], 'the charts of its figures inline (no page this week: no pages chart)');
  t.same(mail.attachments.map((a) => [a.cid, a.contentType]), shown.map((cid) => [cid, 'image/png']), 'each a PNG part of the message under its Content-ID');
  t.match(mail.text, /You receive this because you are an admin of .+ in Vigil\. You can turn the weekly mail off/, 'the plain text part stays, its footer saying why');
});

t.test('the next week is mailed again; an organization that turned the mail off gets none', async (t) => {
  smtp.messages.length = 0;
  at('2026-03-23T06:00:00Z');
  t.equal(await runWeeklyInsights(services), 1);
  await drainJobs(services);
  t.equal(smtp.messages.length, 2);
  t.match(smtp.messages[0]!.subject, /week 2026-W12$/);
  t.match(smtp.messages[0]!.text, /fires · 0\r?\n/);

  const off = await org.api.put(`${CONFIG}/organization_settings`, { insights_weekly_email: false });
  t.equal(off.status, 200);
  t.equal(off.body.data.insights_weekly_email, false);
  const bad = await org.api.put(`${CONFIG}/organization_settings`, { insights_weekly_email: 'no' });
  t.equal(bad.status, 422);
  t.match(bad.body, { errors: [{ field: 'insights_weekly_email' }] }, 'a value that is not a boolean is refused naming the field');
  at('2026-03-30T06:00:00Z');
  t.equal(await runWeeklyInsights(services), 0, 'turned off: no mail for W13');
  await org.api.put(`${CONFIG}/organization_settings`, { insights_weekly_email: true });
  t.equal(await runWeeklyInsights(services), 1, 'on again within the week: W13 goes out');
  await drainJobs(services);
  t.equal(smtp.messages.length, 4);
});
