/**
 * The weekly insights mail: every Monday (UTC), the figures of the ISO week that ended — get_insights over
 * [Monday 00:00 UTC, the next Monday), the same numbers the console and REST answer — mailed to two audiences of
 * every organization whose plan has insights: its org admins get the organization's summary, and each team with
 * members (teams' `member_emails`, those still members of the organization) gets its own, get_insights filtered to
 * the team (`team_id`), mailed to its members. A person who is both gets both. A periodic pass
 * (engine/jobs/periodic.ts: one tick queued at a time however many instances share the database) reads "now" from
 * the injected clock (an organization whose settings say `insights_weekly_email: false` is skipped, teams and all);
 * each summary is claimed by inserting (organization, team or '' for the organization's, ISO week) into
 * `insights_weekly_mails` (its primary key) in the same transaction as its messages are queued, so two instances, a
 * retried pass or a restart never send one week twice, and a pass that missed Monday (the service was down) still
 * sends it later that week. Only the week just ended is ever mailed; a summary with nobody to mail is not claimed
 * (a team given members later that week still gets it).
 *
 * The mail shows the Insights page's charts (domain/insights/charts.ts) as PNG images inline (`cid:`), each with its
 * description as alt text and its table under it, for screen readers and for clients that block images; the plain
 * text part has the tables. The images are drawn when the mail is sent (outbound/email/direct.ts says why).
 */
import { EntitySchema } from '@mikro-orm/core';
import type { BarChart } from '../../engine/charts/chart.ts';
import { html, raw, type Html } from '../../engine/html.ts';
import { periodicPass } from '../../engine/jobs/periodic.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import { text, time, uuid } from '../../engine/persistence/columns.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { hasFeature, type Plan } from '../../engine/plans.ts';
import type { Services } from '../../engine/services.ts';
import { canSendMail, queueMail, type DirectMail, type MailImage } from '../../outbound/mail.ts';
import organizationSettings from '../../resources/organization_settings.ts';
import teams from '../../resources/teams.ts';
import { DAY } from '../oncall/zone.ts';
import { insightsCharts } from './charts.ts';
import { insightsOver } from './operation.ts';
import type { Insights } from './schema.ts';

export const WEEKLY_INSIGHTS_QUEUE = 'insights.weekly';
/** How often the pass looks for a week to mail (it sends at most one summary per audience and week). */
const TICK_SECONDS = 3600;
/** Rows of each ranked list in the mail (the page and the API have 20). */
const ROWS = 5;
/** The images' width in the mail, in CSS pixels (drawn at twice that): the common width of a mail's body. */
const IMAGE_WIDTH = 600;
/** The claim's `team_id` for the organization's own summary, to its admins. */
const WHOLE_ORGANIZATION = '';

export const WeeklyMailEntity = new EntitySchema<any>({
  name: 'InsightsWeeklyMail',
  tableName: 'insights_weekly_mails',
  properties: {
    organization_id: { ...uuid, primary: true },
    /** the team whose summary was mailed to its members; '' for the organization's, mailed to its admins */
    team_id: { ...text, primary: true, default: '' },
    /** the ISO week mailed, e.g. 2026-W12 */
    week: { ...text, primary: true },
    sent_at: time,
  },
});

/** The ISO week before the one `now` falls in (UTC): its range and its name (`2026-W12`). */
export function weekBefore(now: number): { from: number; to: number; week: string } {
  const today = Math.floor(now / DAY) * DAY;
  const weekday = (new Date(today).getUTCDay() + 6) % 7; // Monday 0
  const to = today - weekday * DAY;
  const from = to - 7 * DAY;
  const thursday = new Date(from + 3 * DAY);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY)) + 1;
  return { from, to, week: `${year}-W${String(week).padStart(2, '0')}` };
}

const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

/** A membership `p` listed by team `t` (its `member_emails`): a person listed who left the organization has none. */
const LISTED = 't.organization_id = p.organization_id and t.member_emails @> jsonb_build_array(p.email)';
const teamsTable = (services: Services) => `"${tableName(services.registry.family(teams))}"`;

/** Who a summary is for: the organization's admins, or one team's members. */
export type Audience = { organization: string } & ({ team: null } | { team: { id: string; name: string } });

/**
 * One pass: each summary of the week just ended not yet claimed, for each organization with insights: the
 * organization's, and each team's that has a member. Answers how many summaries were mailed.
 */
export async function runWeeklyInsights(services: Services): Promise<number> {
  if (!canSendMail(services)) return 0;
  const now = services.clock.now();
  const { from, to, week } = weekBefore(now.getTime());
  const settings = tableName(services.registry.family(organizationSettings));
  const claimed = (team: string) => `exists (select 1 from insights_weekly_mails m where m.organization_id = o.id and m.team_id = ${team} and m.week = ?)`;
  const hasMember = `exists (select 1 from memberships p where ${LISTED})`;
  // the organizations with a summary left to mail this week, with the teams that have one
  const orgs = await readStore(services).execute(
    `select * from (
       select o.id, o.name, o.plan, o.features, not ${claimed('?')} as whole,
              coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name) order by t.name) from ${teamsTable(services)} t
                         where t.organization_id = o.id and ${hasMember} and not ${claimed('t.id')}), '[]') as teams
         from organizations o
        where o.disabled = false and not exists (select 1 from "${settings}" s where s.organization_id = o.id and s.insights_weekly_email = false)
     ) pending where whole or json_array_length(teams) > 0 order by id`,
    [WHOLE_ORGANIZATION, week, week],
  );
  let mailed = 0;
  for (const org of orgs) {
    if (!hasFeature(String(org.plan) as Plan, json<Record<string, boolean>>(org.features) ?? {}, 'insights')) continue;
    const audiences: Audience[] = [
      ...(org.whole === true || org.whole === 't' ? [{ organization: String(org.name), team: null }] : []),
      ...json<{ id: string; name: string }[]>(org.teams).map((team) => ({ organization: String(org.name), team })),
    ];
    for (const audience of audiences) if (await mailSummary(services, String(org.id), audience, { from, to, week, now })) mailed++;
  }
  return mailed;
}

/** One audience's summary: its figures, then in one transaction its recipients, its claim and its messages. Answers whether it was mailed. */
async function mailSummary(services: Services, org: string, audience: Audience, when: { from: number; to: number; week: string; now: Date }): Promise<boolean> {
  const { from, to, week, now } = when;
  const team = audience.team?.id;
  const figures = await insightsOver(services, org, from, to, team === undefined ? {} : { team_id: team });
  return inTransaction(services, async (store) => {
    const people = team === undefined
      ? await store.execute("select email from memberships where organization_id = ? and role = 'org_admin' order by email", [org])
      : await store.execute(
        `select p.email from memberships p join ${teamsTable(services)} t on ${LISTED} where t.organization_id = ? and t.id = ? order by p.email`,
        [org, team],
      );
    if (!people.length) return false;
    const claim = await store.execute(
      'insert into insights_weekly_mails (organization_id, team_id, week, sent_at) values (?, ?, ?, ?) on conflict do nothing returning week',
      [org, team ?? WHOLE_ORGANIZATION, week, now],
    );
    if (claim.length === 0) return false;
    const query = new URLSearchParams({ from: iso(from), to: iso(to - DAY), ...(team === undefined ? {} : { team_id: team }) });
    const link = `${services.config.publicUrl.replace(/\/$/, '')}/insights?${query.toString()}`;
    await queueMail(services, store, people.map((p) => weeklyMail(String(p.email), audience, week, figures, link)));
    return true;
  });
}

const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

/** Seconds as people read them: 45 s, 2 min 30 s, 3 h 5 min; a dash when nothing was measured. */
export function duration(seconds: number | null): string {
  if (seconds === null) return '–';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
  const minutes = Math.round(s / 60);
  return minutes % 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes / 60} h`;
}

const oneLine = (s: string, max = 200) => {
  const line = s.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** A table of the mail; `chart`: the picture shown above it, whose values the table lists, and its name (the file's, the Content-ID's). */
type Table = { caption: string; head: string[]; rows: (string | number)[][]; chart?: { name: string; chart: BarChart } };

/** The mail's tables: the same figures as get_insights (docs/insights.md), durations written for people. */
export function weeklyTables(d: Insights): Table[] {
  const timing = (name: string, t: Insights['alerts']['time_to_acknowledge']) =>
    [name, duration(t.median), duration(t.p90), t.count, duration(t.previous.median), duration(t.previous.p90)];
  const charts = insightsCharts(d, { top: ROWS, outerWidth: IMAGE_WIDTH });
  const tables: Table[] = [
    {
      caption: 'Alerts',
      head: ['figure', 'value'],
      rows: [
        ['fires', d.alerts.fires], ['alerts that fired', d.alerts.alerts_fired], ['cycles raised', d.alerts.raised],
        ['cycles resolved with no acknowledgement', d.alerts.resolved_unacknowledged], ['alerts that opened an incident', d.alerts.opened_incidents],
        ['incidents opened', d.incidents.opened],
      ],
    },
    {
      caption: 'Response times (the week before beside them)',
      head: ['', 'median', '90th percentile', 'measured', 'median before', '90th before'],
      rows: [
        timing('alerts: time to acknowledge', d.alerts.time_to_acknowledge), timing('alerts: time to resolve', d.alerts.time_to_resolve),
        timing('incidents: time to acknowledge', d.incidents.time_to_acknowledge), timing('incidents: time to resolve', d.incidents.time_to_resolve),
      ],
    },
    { caption: 'Fires by day (UTC)', head: ['day', 'fires'], rows: d.volume_by_day.map((v) => [v.day, v.fires]), chart: { name: 'fires-by-day', chart: charts.volume } },
  ];
  if (d.noisiest.length) {
    tables.push({
      caption: 'Noisiest alerts', head: ['alert', 'service', 'fires'], rows: d.noisiest.slice(0, ROWS).map((n) => [n.title, n.service ?? '', n.fires]),
      chart: { name: 'noisiest-alerts', chart: charts.noisiest },
    });
  }
  if (d.flapping.length) tables.push({ caption: 'Flapping alerts', head: ['alert', 'worst day', 'fires that day'], rows: d.flapping.slice(0, ROWS).map((f) => [f.title, f.day, f.cycles]) });
  if (d.pages_by_person.length) {
    tables.push({
      caption: 'Pages by person', head: ['person', 'pages', 'working hours', 'off hours', 'night'], rows: d.pages_by_person.map((p) => [p.email, p.total, p.working_hours, p.off_hours, p.night]),
      chart: { name: 'pages-by-person', chart: charts.pages },
    });
  }
  if (d.on_call.length) {
    tables.push({ caption: 'Hours on call', head: ['person', 'hours', 'pages'], rows: d.on_call.map((o) => [o.email, o.hours_on_call, o.pages]), chart: { name: 'hours-on-call', chart: charts.oncall } });
  }
  return tables;
}

/** constant markup: the cells' style */
const rawAttr = raw('style="border: 1px solid #ccc; padding: 4px 8px; text-align: left"');

/** The chart's Content-ID in a mail of `week` (unique within the message). */
const cidOf = (name: string, week: string) => `${name}-${week}@insights.vigil`;

/** The table, with its chart above it: the PNG at its CSS width, its description as the alt text a client shows when it blocks images. */
function tableHtml(t: Table, week: string): Html {
  const picture = t.chart
    ? html`<p style="margin: 16px 0 0"><img src="cid:${cidOf(t.chart.name, week)}" width="${String(IMAGE_WIDTH)}" alt="${t.chart.chart.description}" style="display: block; width: 100%; max-width: ${String(IMAGE_WIDTH)}px; height: auto; border: 0"></p>`
    : '';
  return html`${picture}<table style="border-collapse: collapse; margin: 12px 0"><caption style="text-align: left; font-weight: bold; padding: 4px 0">${t.caption}</caption>
<thead><tr>${t.head.map((h) => html`<th ${rawAttr}>${h}</th>`)}</tr></thead>
<tbody>${t.rows.map((r) => html`<tr>${r.map((c) => html`<td ${rawAttr}>${c}</td>`)}</tr>`)}</tbody></table>`;
}

/** One person's mail of a summary: its subject, the tables as text, and as HTML with the charts inline; the footer says why they receive it. */
export function weeklyMail(to: string, audience: Audience, week: string, d: Insights, link: string): DirectMail {
  const { organization, team } = audience;
  const subject = oneLine(team ? `Vigil insights for the team ${team.name} (${organization}): week ${week}` : `Vigil insights for ${organization}: week ${week}`);
  const tables = weeklyTables(d);
  const range = `${d.from.slice(0, 10)} to ${iso(Date.parse(d.to) - DAY)} (UTC)`;
  const scope = team
    ? `How on call went for the team ${team.name} in ${organization} (the alerts its routes matched or that paged it, and its schedules), ${range}.`
    : `How on call went in ${organization}, ${range}.`;
  const why = team
    ? `You receive this because you are a member of the team ${team.name} in ${organization} in Vigil. An org admin can turn the weekly mail off in the organization's settings (insights_weekly_email).`
    : `You receive this because you are an admin of ${organization} in Vigil. You can turn the weekly mail off in the organization's settings (insights_weekly_email).`;
  const text = [
    scope,
    ...tables.map((t) => [t.caption, ...t.rows.map((r) => `  ${r.filter((c) => c !== '').join(' · ')}`)].join('\n')),
    `The charts and every figure: ${link}`,
    '-- ',
    why,
  ].join('\n\n');
  const body = html`<!doctype html><html><head><meta charset="utf-8"><title>${subject}</title></head><body style="font-family: sans-serif; line-height: 1.4">
<h2>${subject}</h2><p>${scope}</p>${tables.map((t) => tableHtml(t, week))}
<p><a href="${link}">Every figure on the Insights page</a></p>
<p style="color: #666; font-size: 12px">${why}</p></body></html>`.text;
  const images: MailImage[] = tables.flatMap((t) => (t.chart ? [{ cid: cidOf(t.chart.name, week), filename: `${t.chart.name}-${week}.png`, chart: t.chart.chart }] : []));
  return { to, subject, text, html: body, images };
}

const pass = periodicPass(WEEKLY_INSIGHTS_QUEUE, TICK_SECONDS, runWeeklyInsights);
export const weeklyInsightsJob = pass.job;
/** The module's start-up hook: seeds the pass (`VIGIL_CHECK_TICK_SECONDS` 0: no passes, tests run them by hand). */
export const seedWeeklyInsights = (services: Services) => pass.seed(services, services.config.checks?.tickSeconds === 0 ? 0 : TICK_SECONDS);
