/**
 * The weekly insights mail: every Monday (UTC), the figures of the ISO week that ended — get_insights over
 * [Monday 00:00 UTC, the next Monday), the same numbers the console and REST answer — mailed to each organization
 * admin of every organization whose plan has insights. A periodic pass (engine/jobs/periodic.ts: one tick queued at a
 * time however many instances share the database) reads "now" from the injected clock (an organization whose settings
 * say `insights_weekly_email: false` is skipped); each mail is claimed by
 * inserting (organization, ISO week) into `insights_weekly_mails` (its primary key) in the same transaction as the
 * messages are queued, so two instances, a retried pass or a restart never send one week twice, and a pass that
 * missed Monday (the service was down) still sends it later that week. Only the week just ended is ever mailed.
 *
 * No chart is drawn into the mail: the service has no SVG-to-PNG renderer among its dependencies (resvg, sharp), so
 * the mail carries the figures as tables and links to the Insights page, where the charts are.
 */
import { EntitySchema } from '@mikro-orm/core';
import { html, raw, type Html } from '../../engine/html.ts';
import { periodicPass } from '../../engine/jobs/periodic.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import { text, time, uuid } from '../../engine/persistence/columns.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { hasFeature, type Plan } from '../../engine/plans.ts';
import type { Services } from '../../engine/services.ts';
import { canSendMail, queueMail, type DirectMail } from '../../outbound/mail.ts';
import organizationSettings from '../../resources/organization_settings.ts';
import { DAY } from '../oncall/zone.ts';
import { insightsOver } from './operation.ts';
import type { Insights } from './schema.ts';

export const WEEKLY_INSIGHTS_QUEUE = 'insights.weekly';
/** How often the pass looks for a week to mail (it sends at most one per organization and week). */
const TICK_SECONDS = 3600;
/** Rows of each ranked list in the mail (the page and the API have 20). */
const ROWS = 5;

export const WeeklyMailEntity = new EntitySchema<any>({
  name: 'InsightsWeeklyMail',
  tableName: 'insights_weekly_mails',
  properties: {
    organization_id: { ...uuid, primary: true },
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

/** One pass: each organization with insights whose mail for the week just ended is not yet claimed. Answers how many organizations were mailed. */
export async function runWeeklyInsights(services: Services): Promise<number> {
  if (!canSendMail(services)) return 0;
  const now = services.clock.now();
  const { from, to, week } = weekBefore(now.getTime());
  const settings = tableName(services.registry.family(organizationSettings));
  const orgs = await readStore(services).execute(
    `select o.id, o.name, o.plan, o.features from organizations o
      where o.disabled = false and not exists (select 1 from insights_weekly_mails m where m.organization_id = o.id and m.week = ?)
        and not exists (select 1 from "${settings}" s where s.organization_id = o.id and s.insights_weekly_email = false) order by o.id`,
    [week],
  );
  let mailed = 0;
  for (const org of orgs) {
    if (!hasFeature(String(org.plan) as Plan, json<Record<string, boolean>>(org.features) ?? {}, 'insights')) continue;
    const id = String(org.id);
    const figures = await insightsOver(services, id, from, to, {});
    await inTransaction(services, async (store) => {
      const claimed = await store.execute('insert into insights_weekly_mails (organization_id, week, sent_at) values (?, ?, ?) on conflict do nothing returning week', [id, week, now]);
      if (claimed.length === 0) return;
      const admins = await store.execute("select email from memberships where organization_id = ? and role = 'org_admin' order by email", [id]);
      const link = `${services.config.publicUrl.replace(/\/$/, '')}/insights?from=${iso(from)}&to=${iso(to - DAY)}`;
      await queueMail(services, store, admins.map((a) => weeklyMail(String(a.email), String(org.name), week, figures, link)));
      if (admins.length) mailed++;
    });
  }
  return mailed;
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

type Table = { caption: string; head: string[]; rows: (string | number)[][] };

/** The mail's tables: the same figures as get_insights (docs/insights.md), durations written for people. */
export function weeklyTables(d: Insights): Table[] {
  const timing = (name: string, t: Insights['alerts']['time_to_acknowledge']) =>
    [name, duration(t.median), duration(t.p90), t.count, duration(t.previous.median), duration(t.previous.p90)];
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
    { caption: 'Fires by day (UTC)', head: ['day', 'fires'], rows: d.volume_by_day.map((v) => [v.day, v.fires]) },
  ];
  if (d.noisiest.length) tables.push({ caption: 'Noisiest alerts', head: ['alert', 'service', 'fires'], rows: d.noisiest.slice(0, ROWS).map((n) => [n.title, n.service ?? '', n.fires]) });
  if (d.flapping.length) tables.push({ caption: 'Flapping alerts', head: ['alert', 'worst day', 'fires that day'], rows: d.flapping.slice(0, ROWS).map((f) => [f.title, f.day, f.cycles]) });
  if (d.pages_by_person.length) {
    tables.push({ caption: 'Pages by person', head: ['person', 'pages', 'working hours', 'off hours', 'night'], rows: d.pages_by_person.map((p) => [p.email, p.total, p.working_hours, p.off_hours, p.night]) });
  }
  if (d.on_call.length) tables.push({ caption: 'Hours on call', head: ['person', 'hours', 'pages'], rows: d.on_call.map((o) => [o.email, o.hours_on_call, o.pages]) });
  return tables;
}

/** constant markup: the cells' style */
const rawAttr = raw('style="border: 1px solid #ccc; padding: 4px 8px; text-align: left"');

function tableHtml(t: Table): Html {
  return html`<table style="border-collapse: collapse; margin: 12px 0"><caption style="text-align: left; font-weight: bold; padding: 4px 0">${t.caption}</caption>
<thead><tr>${t.head.map((h) => html`<th ${rawAttr}>${h}</th>`)}</tr></thead>
<tbody>${t.rows.map((r) => html`<tr>${r.map((c) => html`<td ${rawAttr}>${c}</td>`)}</tr>`)}</tbody></table>`;
}

export function weeklyMail(to: string, organization: string, week: string, d: Insights, link: string): DirectMail {
  const subject = oneLine(`Vigil insights for ${organization}: week ${week}`);
  const tables = weeklyTables(d);
  const range = `${d.from.slice(0, 10)} to ${iso(Date.parse(d.to) - DAY)} (UTC)`;
  const text = [
    `How on call went in ${organization}, ${range}.`,
    ...tables.map((t) => [t.caption, ...t.rows.map((r) => `  ${r.filter((c) => c !== '').join(' · ')}`)].join('\n')),
    `The charts and every figure: ${link}`,
    '-- ',
    `You receive this because you are an admin of ${organization} in Vigil.`,
  ].join('\n\n');
  const body = html`<!doctype html><html><head><meta charset="utf-8"><title>${subject}</title></head><body style="font-family: sans-serif; line-height: 1.4">
<h2>${subject}</h2><p>How on call went, ${range}.</p>${tables.map(tableHtml)}
<p><a href="${link}">The charts and every figure on the Insights page</a></p>
<p style="color: #666; font-size: 12px">You receive this because you are an admin of ${organization} in Vigil.</p></body></html>`.text;
  return { to, subject, text, html: body };
}

const pass = periodicPass(WEEKLY_INSIGHTS_QUEUE, TICK_SECONDS, runWeeklyInsights);
export const weeklyInsightsJob = pass.job;
/** The module's start-up hook: seeds the pass (`VIGIL_CHECK_TICK_SECONDS` 0: no passes, tests run them by hand). */
export const seedWeeklyInsights = (services: Services) => pass.seed(services, services.config.checks?.tickSeconds === 0 ? 0 : TICK_SECONDS);
