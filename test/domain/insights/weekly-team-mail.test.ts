/**
 * The weekly insights mail to the team, with its charts inline, through a real SMTP server on 127.0.0.1
 * (test/helpers/smtp.ts): a week in which two teams' routes matched different alerts on different days, and pages
 * went to one person of each. The admins get the organization's summary; each team's members get that team's
 * (its own figures); a team with no member, or whose only listed member left the organization, gets none; a
 * person in both audiences gets both; repeated and concurrent passes mail each once; a team given a member later
 * that week is mailed then. Every mail's HTML shows PNG parts by Content-ID, with alt text and the table under
 * each; the fires-by-day PNG, decoded, draws each audience's own days with bars in proportion, and its title's text.
 */
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { person } from '../../helpers/console.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { drainJobs } from '../../helpers/jobs.ts';
import { alertOrg } from '../../helpers/outbound.ts';
import { barsOf, decodePng, inkIn } from '../../helpers/png.ts';
import { startSmtp, type Mail } from '../../helpers/smtp.ts';
import { stopChartRenderer } from '../../../engine/charts/render.ts';
import { sqlExecutor } from '../../../engine/persistence/sql.ts';
import { recordEffects } from '../../../domain/paging/effects.ts';
import { runWeeklyInsights } from '../../../domain/insights/weekly.ts';

const smtp = await startSmtp();
t.teardown(() => smtp.close());
const vigil = await startVigil({ email: { smtpUrl: smtp.url, from: 'Vigil <vigil@acme.example>' } });
t.teardown(() => vigil.close());
t.teardown(stopChartRenderer);
const services = vigil.running.services;
const at = (iso: string) => vigil.clock.set(iso);

const org = await alertOrg(vigil, { alert_refire_cooldown_minutes: 0, investigation_paused: true });
t.teardown(() => org.agent.close());
await person(vigil, { [org.id]: 'org_admin' }, 'admin@example.com');
await person(vigil, { [org.id]: 'org_admin' }, 'carol@example.com');
await person(vigil, { [org.id]: 'member' }, 'alice@example.com');
await person(vigil, { [org.id]: 'member' }, 'bob@example.com');
const leaver = await person(vigil, { [org.id]: 'member' }, 'dave@example.com');

const payments = await org.create('teams', { name: 'Payments', member_emails: ['alice@example.com', 'carol@example.com'] });
const platform = await org.create('teams', { name: 'Platform', member_emails: ['bob@example.com'] });
const empty = await org.create('teams', { name: 'Empty' });
await org.create('teams', { name: 'Gone', member_emails: ['dave@example.com'] });
const left = await vigil.operator.del(`/api/admin/v1/organizations/${org.id}/members/${leaver.id}`);
if (left.status >= 300) throw new Error(JSON.stringify(left.body));
// routes that name the team without paging it (the pages below are written as the escalation engine writes them)
await org.create('alert_routes', { name: 'Payments', team_id: payments.id, pages: false, matchers: [{ field: 'service', operator: 'equals', value: 'payments' }] });
await org.create('alert_routes', { name: 'Platform', team_id: platform.id, pages: false, matchers: [{ field: 'service', operator: 'equals', value: 'platform' }] });

/** `count` fire-and-resolve cycles of the alert on that UTC day, an hour apart from 09:00 */
async function cycles(name: string, service: string, day: string, count: number) {
  for (let i = 0; i < count; i++) {
    at(`${day}T${String(9 + i).padStart(2, '0')}:00:00Z`); await org.fire({ name, severity: 'warning', service });
    at(`${day}T${String(9 + i).padStart(2, '0')}:10:00Z`); await org.resolve({ name, severity: 'warning', service });
  }
}
// the week 2026-03-09 (Monday) to 03-16: Payments' alert on Monday (2) and Tuesday (4), Platform's on Wednesday (1) and Thursday (3)
await cycles('CardDeclines', 'payments', '2026-03-09', 2);
await cycles('CardDeclines', 'payments', '2026-03-10', 4);
await cycles('BuildSlow', 'platform', '2026-03-11', 1);
await cycles('BuildSlow', 'platform', '2026-03-12', 3);
// pages in working hours (UTC: neither has a schedule): alice three for CardDeclines, bob one for BuildSlow
const sql = sqlExecutor(services.db);
const escalation = randomUUID();
let step = 0;
async function paged(email: string, alert: string, iso: string) {
  const alertId = (await org.alert(alert)).id as string;
  await recordEffects(sql, new Date(iso), [{ organizationId: org.id, alertId, kind: 'notified', detail: { escalation_id: escalation, step: ++step, loop: 0, email, channel: 'sms', queued: true } }]);
}
await paged('alice@example.com', 'CardDeclines', '2026-03-09T10:01:00Z');
await paged('alice@example.com', 'CardDeclines', '2026-03-10T10:01:00Z');
await paged('alice@example.com', 'CardDeclines', '2026-03-10T11:01:00Z');
await paged('bob@example.com', 'BuildSlow', '2026-03-12T10:01:00Z');

const mailsTo = (email: string) => smtp.messages.filter((m) => m.to.includes(email));
const subjects = (email: string) => mailsTo(email).map((m) => m.subject).sort();
const ORG_SUBJECT = /^Vigil insights for [^(]+: week 2026-W11$/;

/** The mail's inline images: each <img> of the HTML with its alt text and the PNG part its cid: names. */
function images(mail: Mail) {
  return [...mail.html.matchAll(/<img src="cid:([^"]+)" width="(\d+)" alt="([^"]*)"/g)].map((m) => ({
    cid: m[1]!, width: Number(m[2]), alt: m[3]!, part: mail.attachments.find((a) => a.cid === m[1]),
  }));
}

/** The fires-by-day picture of a mail, decoded. */
function firesByDay(mail: Mail) {
  const image = images(mail).find((i) => i.cid.startsWith('fires-by-day-'));
  if (!image?.part) throw new Error('no fires-by-day image');
  return decodePng(image.part.content);
}

t.test('admins get the organization\'s summary, each team\'s members their team\'s; once however many passes', async (t) => {
  at('2026-03-16T01:00:00Z');
  const passes = await Promise.all([runWeeklyInsights(services), runWeeklyInsights(services)]);
  t.equal(passes[0]! + passes[1]!, 3, 'two passes at once: the organization\'s summary and two teams\' (no mail for a team with no member, nor one whose member left)');
  t.equal(await runWeeklyInsights(services), 0, 'a later pass that week mails nothing');
  await drainJobs(services);

  t.same(subjects('admin@example.com').length, 1);
  t.match(subjects('admin@example.com')[0], ORG_SUBJECT, 'an admin in no team: the organization\'s');
  t.match(subjects('alice@example.com'), [/^Vigil insights for the team Payments \(.+\): week 2026-W11$/], 'alice: her team\'s only');
  t.equal(subjects('alice@example.com').length, 1);
  t.match(subjects('bob@example.com'), [/^Vigil insights for the team Platform \(.+\): week 2026-W11$/], 'bob: his team\'s');
  t.equal(subjects('carol@example.com').length, 2, 'carol, an admin in Payments: both');
  t.equal(mailsTo('dave@example.com').length, 0, 'nobody who left the organization');
  t.equal(smtp.messages.length, 5, 'two admins, two of Payments, one of Platform');

  const whole = mailsTo('admin@example.com')[0]!;
  const mine = mailsTo('alice@example.com')[0]!;
  const theirs = mailsTo('bob@example.com')[0]!;
  t.match(whole.text, /fires · 10\r?\n/, 'the organization: every fire');
  t.match(mine.text, /fires · 6\r?\n/, 'Payments: its alert\'s six');
  t.match(theirs.text, /fires · 4\r?\n/, 'Platform: its alert\'s four');
  t.match(mine.text, /CardDeclines · payments · 6/);
  t.notMatch(mine.text, /BuildSlow/, 'nothing of another team\'s alerts');
  t.match(mine.text, /alice@example\.com · 3 · 3 · 0 · 0/, 'Payments\' pages: alice\'s three, in working hours');
  t.notMatch(mine.text, /bob@example\.com/);
  t.match(theirs.text, /bob@example\.com · 1 · 1 · 0 · 0/);
  t.match(mine.text, /You receive this because you are a member of the team Payments in .+ in Vigil\./, 'the footer says why');
  t.match(whole.text, /You receive this because you are an admin of .+ in Vigil\./);
  t.match(mine.html, new RegExp(`/insights\\?from=2026-03-09&#38;to=2026-03-15&#38;team_id=${payments.id}"`), 'the link opens the page filtered to the team');
});

t.test('the charts are inline PNGs by Content-ID, each with alt text and its table under it, drawing each audience\'s own figures', async (t) => {
  for (const mail of smtp.messages) {
    const shown = images(mail);
    t.same(shown.map((i) => i.cid.replace(/-2026-W11@insights\.vigil$/, '')), ['fires-by-day', 'noisiest-alerts', 'pages-by-person', 'hours-on-call'], `${mail.subject}: the Insights page's four charts`);
    t.equal(mail.attachments.length, shown.length, 'one image part per picture, none unreferenced');
    for (const image of shown) {
      t.ok(image.part, `${image.cid} is a part of the message`);
      t.equal(image.part?.contentType, 'image/png');
      t.match(image.part?.disposition, /^inline/);
      t.ok(image.alt.length > 20, 'alt text describes the picture');
      t.equal(image.width, 600);
      const png = decodePng(image.part!.content);
      t.equal(png.width, 1200, 'drawn at twice its shown width');
      t.ok(image.part!.content.length < 100_000, `${image.cid}: ${image.part!.content.length} bytes`);
      t.ok(inkIn(png, 0, 0, png.width, 40) > 300, 'its title is drawn as text');
    }
    const caption = mail.html.indexOf('>Fires by day (UTC)</caption>');
    const picture = mail.html.indexOf('src="cid:fires-by-day-');
    t.ok(picture > 0 && caption > picture, 'the table follows its chart');
  }

  const proportions = (mail: Mail) => {
    const bars = barsOf(firesByDay(mail), '#0072B2');
    const unit = Math.min(...bars.map((b) => b.height));
    return { bars, ratios: bars.map((b) => Math.round((b.height / unit) * 4) / 4) };
  };
  const whole = proportions(mailsTo('admin@example.com')[0]!);
  t.same(whole.ratios, [2, 4, 1, 3], 'the organization\'s days: 2, 4, 1 and 3 fires, bars in proportion');
  const mine = proportions(mailsTo('alice@example.com')[0]!);
  const theirs = proportions(mailsTo('bob@example.com')[0]!);
  t.same(mine.ratios, [1, 2], 'Payments: Monday\'s 2 and Tuesday\'s 4');
  t.same(theirs.ratios, [1, 3], 'Platform: Wednesday\'s 1 and Thursday\'s 3');
  t.same(mine.bars.map((b) => b.from), whole.bars.slice(0, 2).map((b) => b.from), 'Payments\' bars stand on Monday and Tuesday');
  t.same(theirs.bars.map((b) => b.from), whole.bars.slice(2).map((b) => b.from), 'Platform\'s on Wednesday and Thursday');
  const picture = (mail: Mail) => images(mail)[0]!.part!.content;
  const carols = mailsTo('carol@example.com');
  const carolsTeam = carols.find((m) => m.subject.includes('Payments'))!;
  const carolsOrg = carols.find((m) => m !== carolsTeam)!;
  t.ok(picture(carolsTeam).equals(picture(mailsTo('alice@example.com')[0]!)) && picture(carolsOrg).equals(picture(mailsTo('admin@example.com')[0]!)),
    'the same summary draws the same picture for each of its people');
});

t.test('a team given a member later that week is mailed then; the organization setting turns every summary off', async (t) => {
  smtp.messages.length = 0;
  const joined = await org.api.put(`${CONFIG}/teams/${empty.id}`, { member_emails: ['alice@example.com'] });
  t.equal(joined.status, 200, JSON.stringify(joined.body));
  at('2026-03-18T09:00:00Z');
  t.equal(await runWeeklyInsights(services), 1, 'the team now has a member: its week goes out');
  await drainJobs(services);
  t.match(smtp.messages.map((m) => [m.to, m.subject]), [[['alice@example.com'], /^Vigil insights for the team Empty /]]);
  t.match(smtp.messages[0]!.text, /fires · 0\r?\n/, 'no route of it matched anything');

  smtp.messages.length = 0;
  const off = await org.api.put(`${CONFIG}/organization_settings`, { insights_weekly_email: false });
  t.equal(off.status, 200);
  at('2026-03-23T06:00:00Z');
  t.equal(await runWeeklyInsights(services), 0, 'turned off: neither the admins\' nor any team\'s');
  await drainJobs(services);
  t.equal(smtp.messages.length, 0);
  await org.api.put(`${CONFIG}/organization_settings`, { insights_weekly_email: true });
  t.equal(await runWeeklyInsights(services), 4, 'on again: the organization\'s and three teams\' for W12');
});
