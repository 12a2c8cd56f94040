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
import type { Cycle, Fire, Page, Shift } from './figures.ts';

export interface Filters {
  team_id?: string;
  service?: string;
  source?: string;
  severity?: string;
}

const ms = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string | Date).getTime());

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

/** Every fire of an alert in scope in [from, to): its `page` or `page_skipped` effect. */
export async function fires(services: Services, org: string, from: number, to: number, f: Filters): Promise<Fire[]> {
  const filter = alertFilter(f);
  const rows = await readStore(services).execute(
    `select e.alert_id, e.at, a.fingerprint, a.title, a.service from alert_effects e join alerts a on a.id = e.alert_id
      where e.organization_id = ? and e.kind in ('page', 'page_skipped') and e.at >= ? and e.at < ?${filter.sql}`,
    [org, new Date(from), new Date(to), ...filter.params],
  );
  return rows.map((r: Row) => ({ alert_id: String(r.alert_id), at: ms(r.at)!, fingerprint: String(r.fingerprint), title: String(r.title), service: (r.service as string | null) ?? null }));
}

/** Alerts in scope whose latest raise falls in [from, to), with that cycle's acknowledgement and resolution. */
export async function cycles(services: Services, org: string, from: number, to: number, f: Filters): Promise<(Cycle & { fingerprint: string; title: string; service: string | null })[]> {
  const filter = alertFilter(f);
  const rows = await readStore(services).execute(
    `select a.fingerprint, a.title, a.service, a.raised_at, a.acknowledged_at, a.resolved_at from alerts a
      where a.organization_id = ? and a.raised_at >= ? and a.raised_at < ?${filter.sql}`,
    [org, new Date(from), new Date(to), ...filter.params],
  );
  return rows.map((r: Row) => ({
    fingerprint: String(r.fingerprint), title: String(r.title), service: (r.service as string | null) ?? null,
    raised: ms(r.raised_at)!, acknowledged: ms(r.acknowledged_at), resolved: ms(r.resolved_at),
  }));
}

/** Distinct alerts in scope that opened an incident (`incident_opened`) in [from, to). */
export async function alertsOpeningIncidents(services: Services, org: string, from: number, to: number, f: Filters): Promise<number> {
  const filter = alertFilter(f);
  const [row] = await readStore(services).execute(
    `select count(distinct e.alert_id) as n from alert_effects e join alerts a on a.id = e.alert_id
      where e.organization_id = ? and e.kind = 'incident_opened' and e.at >= ? and e.at < ?${filter.sql}`,
    [org, new Date(from), new Date(to), ...filter.params],
  );
  return Number(row?.n ?? 0);
}

/** Incidents opened in [from, to) with one alert in scope (any incident when no alert filter is given), severity by their own. */
export async function incidents(services: Services, org: string, from: number, to: number, f: Filters): Promise<Cycle[]> {
  const { severity, ...byAlert } = f;
  const filter = alertFilter(byAlert);
  const params: unknown[] = [org, new Date(from), new Date(to)];
  let sql = 'select i.opened_at, i.acknowledged_at, i.closed_at from incidents i where i.organization_id = ? and i.opened_at >= ? and i.opened_at < ?';
  if (severity !== undefined) {
    sql += ' and i.severity = ?';
    params.push(severity);
  }
  if (filter.sql) {
    sql += ` and exists (select 1 from alerts a where a.incident_id = i.id${filter.sql})`;
    params.push(...filter.params);
  }
  const rows = await readStore(services).execute(sql, params);
  return rows.map((r: Row) => ({ raised: ms(r.opened_at)!, acknowledged: ms(r.acknowledged_at), resolved: ms(r.closed_at) }));
}

/** Pages to people in [from, to) for alerts in scope: one per (escalation, step, loop, person) of `notified` effects. */
export async function pages(services: Services, org: string, from: number, to: number, f: Filters): Promise<Page[]> {
  const filter = alertFilter(f);
  const rows = await readStore(services).execute(
    `select e.detail->>'email' as email, min(e.at) as at from alert_effects e join alerts a on a.id = e.alert_id
      where e.organization_id = ? and e.kind = 'notified' and e.at >= ? and e.at < ?${filter.sql}
      group by e.detail->>'escalation_id', e.detail->>'step', e.detail->>'loop', e.detail->>'email'`,
    [org, new Date(from), new Date(to), ...filter.params],
  );
  return rows.filter((r: Row) => typeof r.email === 'string').map((r: Row) => ({ email: String(r.email), at: ms(r.at)! }));
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
  const out: Shift[] = [];
  const homes = new Map<string, string>();
  for (const schedule of rows) {
    const zone = String(schedule.time_zone);
    for (const layer of (schedule.layers as { participants?: string[] }[]) ?? []) for (const p of layer.participants ?? []) if (!homes.has(p)) homes.set(p, zone);
    for (const s of scheduleOf(schedule, bySchedule.get(String(schedule.id)) ?? [], from, to).shifts) out.push({ email: s.email, start: s.start, end: s.end, zone });
  }
  return { shifts: out, homes };
}
