/**
 * What the insights read from the stored history of one organization: alert fires and pages (alert_effects), the
 * alerts' latest cycles (alerts), incidents, and the schedules' shifts (domain/oncall). Each read takes the range
 * and the filters; the figures are figures.ts's.
 */
import type { Row } from '../../engine/descriptor.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import scheduleOverrides from '../../resources/schedule_overrides.ts';
import schedules from '../../resources/schedules.ts';
import { groupBySchedule, scheduleOf } from '../oncall/on-call.ts';
import { loadCalendars } from '../oncall/calendar.ts';
import { DAY } from '../oncall/zone.ts';
import { FLAP_FIRES, type Page, type Shift, type Spread } from './figures.ts';

export interface Filters {
  team_id?: string;
  service?: string;
  source?: string;
  severity?: string;
}


/**
 * The alert filters as SQL on `a` (alerts). An alert belongs to a team when one of its `routed` effects matched a
 * route of that team, or one of its pages paged that team.
 */
function alertFilter(f: Filters): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  for (const column of ['service', 'source', 'severity'] as const) {
    if (f[column] === undefined) continue;
    parts.push(`a.${column} = ?`);
    params.push(f[column]);
  }
  if (f.team_id !== undefined) {
    parts.push(`exists (select 1 from alert_effects t where t.alert_id = a.id and t.kind in ('routed', 'page')
      and (t.detail->>'team_id' = ? or t.detail->'team_ids' @> ?::jsonb))`);
    params.push(f.team_id, JSON.stringify([f.team_id]));
  }
  return { sql: parts.map((p) => ` and ${p}`).join(''), params };
}

const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
const utcDay = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);
/**
 * The alerts join, only when a filter reads the alert: without one the effects index alone answers. Naming the
 * organization on both sides lets the planner read only that organization's alerts (not hash every alert).
 */
/** Above this many alerts tied for the noisiest list, their alerts are read by one scan, not one look-up each. */
const FEW = 2000;
const joinAlerts = (filter: { sql: string }) => (filter.sql ? ' join alerts a on a.id = e.alert_id and a.organization_id = e.organization_id' : '');

/** What the fires (`page` and `page_skipped` effects) of alerts in scope in [from, to) add up to, counted in SQL. */
export interface FireFigures {
  fires: number;
  alerts_fired: number;
  /** fires per UTC day that had any (YYYY-MM-DD) */
  by_day: Map<string, number>;
  /** the `limit` alerts with most fires, most first (ties by fingerprint, in code-point order) */
  noisiest: (AlertRef & { fires: number })[];
  /** the `limit` alerts that fired FLAP_FIRES times on some UTC day: each with its worst day (the earliest of equals), that day's fires and how many days; most fires first (ties by fingerprint, in code-point order) */
  flapping: (AlertRef & { day: string; cycles: number; flapping_days: number })[];
}

export interface AlertRef {
  fingerprint: string;
  title: string;
  service: string | null;
}

/**
 * The fires read once (the effects index's range for the organization and kinds) and grouped in SQL: per alert and
 * UTC day, then per day, per alert, and the flapping days; only aggregates and the few ranked alerts come back,
 * ranked in SQL (fingerprints among equals in code-point order, `collate "C"`, the same on every database).
 * The noisiest are cut first to the alerts with at least the `limit`-th most fires; those are joined to their
 * alerts one by one when they are few, else (thousands tied, each fired once) by one hash join with the
 * organization's alerts: 16,000 look-ups by id took 110 ms on the benchmark.
 */
export async function fireFigures(services: Services, org: string, from: number, to: number, f: Filters, limit: number): Promise<FireFigures> {
  const filter = alertFilter(f);
  const [row] = await readStore(services).execute(
    `with f as materialized (
       select e.alert_id, e.at from alert_effects e${joinAlerts(filter)}
        where e.organization_id = ? and e.kind in ('page', 'page_skipped') and e.at >= ? and e.at < ?${filter.sql}
     ), per_day as (
       select alert_id, floor(extract(epoch from at) / 86400)::int as day, count(*)::int as n from f group by 1, 2
     ), per_alert as (
       select alert_id, sum(n)::int as fires from per_day group by alert_id
     ), flap_days as (
       select alert_id, day, n, count(*) over (partition by alert_id) as days, row_number() over (partition by alert_id order by n desc, day) as k
         from per_day where n >= ?
     ), flap as (
       select alert_id, day, n, days from flap_days where k = 1
     ), ranked as (
       select alert_id, fires from per_alert
        where fires >= coalesce((select fires from per_alert order by fires desc offset ? limit 1), 0)
     ), few as (
       select count(*) <= ${FEW} as yes from ranked
     )
     select (select count(*) from f)::int as fires, (select count(*) from per_alert)::int as alerts_fired,
       (select coalesce(json_agg(json_build_object('day', d.day, 'fires', d.n)), '[]') from (select day, sum(n)::int as n from per_day group by day) d) as by_day,
       (select coalesce(json_agg(t), '[]') from (select * from (
          select a.fingerprint, a.title, a.service, x.fires from ranked x join alerts a on a.id = x.alert_id and a.organization_id = ? where (select yes from few)
          union all
          select a.fingerprint, a.title, a.service, x.fires from ranked x join (select id, fingerprint, title, service from alerts where organization_id = ? offset 0) a on a.id = x.alert_id
           where not (select yes from few)
        ) u order by fires desc, fingerprint collate "C" limit ?) t) as noisiest,
       (select coalesce(json_agg(t), '[]') from (
          select a.fingerprint, a.title, a.service, x.day, x.n as cycles, x.days as flapping_days from flap x join alerts a on a.id = x.alert_id and a.organization_id = ?
           order by x.n desc, a.fingerprint collate "C" limit ?) t) as flapping`,
    [org, new Date(from), new Date(to), ...filter.params, FLAP_FIRES, limit - 1, org, org, limit, org, limit],
  );
  const days = json<{ day: number; fires: number }[]>(row!.by_day);
  return {
    fires: Number(row!.fires),
    alerts_fired: Number(row!.alerts_fired),
    by_day: new Map(days.map((d) => [utcDay(d.day), d.fires])),
    noisiest: json(row!.noisiest),
    flapping: json<(AlertRef & { day: number; cycles: number; flapping_days: number })[]>(row!.flapping).map((x) => ({ ...x, day: utcDay(x.day), flapping_days: Number(x.flapping_days) })),
  };
}

/** Seconds from raise to acknowledgement and to resolution over cycles raised in one range, as Spreads, counted in SQL. */
export interface CycleFigures {
  current: { raised: number; acknowledge: Spread; resolve: Spread; resolved_unacknowledged: number };
  previous: { acknowledge: Spread; resolve: Spread };
}

/**
 * Timings of the cycles `source` selects (columns raised r, acknowledged k, resolved s) raised in [before, to), split at
 * `from`: count, median and 90th percentile (nearest rank: percentile_disc, the smallest value with at least that
 * share at or below it) of each end at or after the raise, in seconds.
 */
async function cycleFigures(services: Services, source: string, params: unknown[]): Promise<{ figures: CycleFigures; rows: Row }> {
  const [row] = await readStore(services).execute(
    `with c as materialized (${source}), d as (
       select r >= ? as current, k, s, case when k >= r then extract(epoch from k - r)::float8 end as ack, case when s >= r then extract(epoch from s - r)::float8 end as res from c
     ), g as (
       select current, count(*)::int as raised, count(*) filter (where s is not null and k is null)::int as unacknowledged,
              count(ack)::int as ack_count, percentile_disc(0.5) within group (order by ack) as ack_median, percentile_disc(0.9) within group (order by ack) as ack_p90,
              count(res)::int as res_count, percentile_disc(0.5) within group (order by res) as res_median, percentile_disc(0.9) within group (order by res) as res_p90
         from d group by current
     )
     select (select coalesce(json_agg(g), '[]') from g) as groups${source.includes('fingerprint') ? `,
       (select coalesce(json_agg(json_build_object('fingerprint', u.fingerprint, 'title', u.title, 'service', u.service) order by u.fingerprint collate "C"), '[]')
          from (select distinct fingerprint collate "C" as fingerprint, title, service from c where r >= ? and s is not null and k is null order by 1 limit ?) u) as unacknowledged` : ''}`,
    params,
  );
  const groups = json<Record<string, number | boolean | null>[]>(row!.groups);
  const of = (current: boolean) => groups.find((g) => g.current === current);
  const spreadOf = (g: Record<string, number | boolean | null> | undefined, end: 'ack' | 'res'): Spread => ({
    count: Number(g?.[`${end}_count`] ?? 0),
    median: (g?.[`${end}_median`] as number | null | undefined) ?? null,
    p90: (g?.[`${end}_p90`] as number | null | undefined) ?? null,
  });
  const now = of(true);
  const then = of(false);
  return {
    figures: {
      current: { raised: Number(now?.raised ?? 0), acknowledge: spreadOf(now, 'ack'), resolve: spreadOf(now, 'res'), resolved_unacknowledged: Number(now?.unacknowledged ?? 0) },
      previous: { acknowledge: spreadOf(then, 'ack'), resolve: spreadOf(then, 'res') },
    },
    rows: row!,
  };
}

/**
 * Cycles of alerts in scope raised in [before, to): each alert's latest (the alert row) and the ones that ended when
 * it was raised again (`cycle_ended` effects, recorded at the new raise, so at or after the ended cycle's raise: the
 * effects index reads them from `before` on). Their timings split at `from`, and the first `limit` alerts (by
 * fingerprint, in code-point order) with a cycle raised from `from` on that resolved with no acknowledgement.
 */
export async function alertCycles(services: Services, org: string, before: number, from: number, to: number, f: Filters, limit: number): Promise<CycleFigures & { unacknowledged: AlertRef[] }> {
  const filter = alertFilter(f);
  const { figures, rows } = await cycleFigures(
    services,
    `select a.fingerprint, a.title, a.service, a.raised_at as r, a.acknowledged_at as k, a.resolved_at as s from alerts a
      where a.organization_id = ? and a.raised_at >= ? and a.raised_at < ?${filter.sql}
     union all
     select a.fingerprint, a.title, a.service, e.r, e.k, e.s from (
       select e.alert_id, (e.detail->>'raised_at')::timestamptz as r, (e.detail->>'acknowledged_at')::timestamptz as k, (e.detail->>'resolved_at')::timestamptz as s
         from alert_effects e where e.organization_id = ? and e.kind = 'cycle_ended' and e.at >= ?
     ) e join alerts a on a.id = e.alert_id and a.organization_id = ?
      where e.r >= ? and e.r < ?${filter.sql}`,
    [org, new Date(before), new Date(to), ...filter.params, org, new Date(before), org, new Date(before), new Date(to), ...filter.params, new Date(from), new Date(from), limit],
  );
  return { ...figures, unacknowledged: json(rows.unacknowledged) };
}

/** Distinct alerts in scope that opened an incident (`incident_opened`) in [from, to). */
export async function alertsOpeningIncidents(services: Services, org: string, from: number, to: number, f: Filters): Promise<number> {
  const filter = alertFilter(f);
  const [row] = await readStore(services).execute(
    `select count(distinct e.alert_id) as n from alert_effects e${joinAlerts(filter)}
      where e.organization_id = ? and e.kind = 'incident_opened' and e.at >= ? and e.at < ?${filter.sql}`,
    [org, new Date(from), new Date(to), ...filter.params],
  );
  return Number(row?.n ?? 0);
}

/** Incidents opened in [before, to) with one alert in scope (any incident when no alert filter is given), severity by their own: their timings split at `from`. */
export async function incidentCycles(services: Services, org: string, before: number, from: number, to: number, f: Filters): Promise<CycleFigures> {
  const { severity, ...byAlert } = f;
  const filter = alertFilter(byAlert);
  const params: unknown[] = [org, new Date(before), new Date(to)];
  let sql = 'select i.opened_at as r, i.acknowledged_at as k, i.closed_at as s from incidents i where i.organization_id = ? and i.opened_at >= ? and i.opened_at < ?';
  if (severity !== undefined) {
    sql += ' and i.severity = ?';
    params.push(severity);
  }
  if (filter.sql) {
    sql += ` and exists (select 1 from alerts a where a.incident_id = i.id${filter.sql})`;
    params.push(...filter.params);
  }
  return (await cycleFigures(services, sql, [...params, new Date(from)])).figures;
}

/**
 * Pages to people in [from, to) for alerts in scope: one per (escalation, step, loop, person) of `notified` effects,
 * grouped in SQL; each person's pages come back as one array of instants (ms), since the zone a page is read in
 * comes from the schedules' shifts (figures.ts, with the zone rules the schedules use).
 */
export async function pages(services: Services, org: string, from: number, to: number, f: Filters): Promise<Page[]> {
  const filter = alertFilter(f);
  const rows = await readStore(services).execute(
    `select p.email, json_agg(p.at) as at from (
       select e.detail->>'email' as email, floor(extract(epoch from min(e.at)) * 1000)::float8 as at from alert_effects e${joinAlerts(filter)}
        where e.organization_id = ? and e.kind = 'notified' and e.at >= ? and e.at < ?${filter.sql}
        group by e.detail->>'escalation_id', e.detail->>'step', e.detail->>'loop', e.detail->>'email'
     ) p where p.email is not null group by p.email`,
    [org, new Date(from), new Date(to), ...filter.params],
  );
  return rows.flatMap((r: Row) => json<number[]>(r.at).map((at) => ({ email: String(r.email), at })));
}

/**
 * The final shifts of the organization's schedules (one team's with `team_id`) over [from, to), each with its
 * schedule's zone; and each person's home zone: the zone of the first schedule (by name) that lists them.
 */
export async function shifts(services: Services, org: string, from: number, to: number, teamId: string | undefined): Promise<{ shifts: Shift[]; homes: Map<string, string> }> {
  const store = readStore(services);
  const rows = await store.list(schedules, org, { where: teamId === undefined ? {} : { team_id: teamId }, orderBy: { name: 'asc' } });
  const overrides = rows.length ? await store.list(scheduleOverrides, org, { where: { schedule_id: { $in: rows.map((r) => r.id) }, end: { $gt: new Date(from) } } }) : [];
  const bySchedule = groupBySchedule(overrides);
  const following = rows.filter((r) => Array.isArray(r.layers) && (r.layers as { ical_url?: unknown }[]).some((l) => l.ical_url)).map((r) => String(r.id));
  if (following.length) await loadCalendars(services, org, following);
  const out: Shift[] = [];
  const homes = new Map<string, string>();
  for (const schedule of rows) {
    const zone = String(schedule.time_zone);
    for (const layer of (schedule.layers as { participants?: string[] }[]) ?? []) for (const p of layer.participants ?? []) if (!homes.has(p)) homes.set(p, zone);
    for (const s of scheduleOf(schedule, bySchedule.get(String(schedule.id)) ?? [], from, to).shifts) out.push({ email: s.email, start: s.start, end: s.end, zone });
  }
  return { shifts: out, homes };
}
