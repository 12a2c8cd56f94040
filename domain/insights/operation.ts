/**
 * `get_insights`: how on call is going over a range (docs/insights.md defines every figure). REST serves it at
 * `GET /api/v1/config/insights` (JSON, or CSV with `Accept: text/csv`), the agent tools as `get_insights`, the
 * console's Insights page runs it too.
 */
import { publicOrganization, type Caller } from '../../engine/auth/caller.ts';
import type { Row } from '../../engine/descriptor.ts';
import { ApiError, validationFailed } from '../../engine/errors.ts';
import { hasFeature } from '../../engine/plans.ts';
import type { DomainOperation, Services } from '../../engine/services.ts';
import { DAY } from '../oncall/zone.ts';
import { compared, onCallLoad, pagesByPerson, volumeByDay } from './figures.ts';
import { alertCycles, alertsOpeningIncidents, fireFigures, incidentCycles, pages, shifts, type Filters } from './history.ts';
import { INSIGHTS_ANSWER, INSIGHTS_INPUT, type Insights } from './schema.ts';

/** The longest range one question may span: a year, leap day included. */
export const MAX_RANGE = 366 * DAY;
/** What a plan without `insights_history` (team) sees: the last seven days. */
export const RECENT = 7 * DAY;
/** Rows in each ranked list. */
const TOP = 20;

function instant(input: Row, field: 'from' | 'to', fallback: number): number {
  if (input[field] === undefined) return fallback;
  const text = String(input[field]);
  const at = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) throw validationFailed([{ field, message: 'must be an instant with an offset, such as 2030-01-08T09:00:00Z' }]);
  return at;
}

/** The range asked for, checked: `to` after `from`, at most a year, and within what the plan shows. */
export function rangeOf(caller: Caller, input: Row, now: number): { from: number; to: number } {
  const to = instant(input, 'to', now);
  const from = instant(input, 'from', to - RECENT);
  if (to <= from) throw validationFailed([{ field: 'to', message: 'must be after from' }]);
  if (to - from > MAX_RANGE) throw validationFailed([{ field: 'from', message: 'must be at most 366 days before to' }]);
  const org = caller.organization;
  if (!hasFeature(org.plan, org.features, 'insights_history') && from < now - RECENT) {
    throw new ApiError('plan_required', `Insights older than 7 days are not included in the ${org.plan} plan; ask for a range from ${new Date(now - RECENT).toISOString()} on.`, {
      extra: { feature: 'insights_history' },
    });
  }
  return { from, to };
}

const iso = (t: number) => new Date(t).toISOString();

export async function insights(services: Services, caller: Caller, input: Row): Promise<Insights> {
  const { from, to } = rangeOf(caller, input, services.clock.now().getTime());
  const filters: Filters = {};
  for (const key of ['team_id', 'service', 'source', 'severity'] as const) if (typeof input[key] === 'string') filters[key] = input[key] as string;
  return insightsOver(services, caller.organization.id, from, to, filters);
}

/** The figures of one organization over [from, to), a range already checked (the weekly mail's is the ISO week that ended). */
export async function insightsOver(services: Services, org: string, from: number, to: number, filters: Filters): Promise<Insights> {
  const before = from - (to - from);
  const [fired, raised, opening, incidentTimes, paged, onCall] = await Promise.all([
    fireFigures(services, org, from, to, filters, TOP),
    alertCycles(services, org, before, from, to, filters, TOP),
    alertsOpeningIncidents(services, org, from, to, filters),
    incidentCycles(services, org, before, from, to, filters),
    pages(services, org, from, to, filters),
    shifts(services, org, from, to, filters.team_id),
  ]);
  const alertsFired = fired.alerts_fired;
  return {
    from: iso(from), to: iso(to), previous: { from: iso(before), to: iso(from) },
    filters: filters as Record<string, string>,
    alerts: {
      fires: fired.fires,
      alerts_fired: alertsFired,
      raised: raised.current.raised,
      time_to_acknowledge: compared(raised.current.acknowledge, raised.previous.acknowledge),
      time_to_resolve: compared(raised.current.resolve, raised.previous.resolve),
      resolved_unacknowledged: raised.current.resolved_unacknowledged,
      opened_incidents: opening,
      incident_share: alertsFired ? Math.round((opening / alertsFired) * 1000) / 1000 : null,
    },
    incidents: {
      opened: incidentTimes.current.raised,
      time_to_acknowledge: compared(incidentTimes.current.acknowledge, incidentTimes.previous.acknowledge),
      time_to_resolve: compared(incidentTimes.current.resolve, incidentTimes.previous.resolve),
    },
    volume_by_day: volumeByDay(fired.by_day, from, to),
    noisiest: fired.noisiest,
    flapping: fired.flapping,
    resolved_unacknowledged: raised.unacknowledged,
    pages_by_person: pagesByPerson(paged, onCall.shifts, onCall.homes),
    on_call: onCallLoad(onCall.shifts, paged, from, to),
  };
}

type Flat = Record<string, string | number | boolean | null>;

/** The answer as one long table: each figure a row (figure, subject, measure, value), for a spreadsheet's pivot. */
export function insightsRows(json: Record<string, unknown>): Flat[] {
  const d = json.data as Insights;
  const rows: Flat[] = [];
  const add = (figure: string, subject: string | null, measure: string, value: number | null) => rows.push({ figure, subject, measure, value });
  for (const [kind, group] of [['alerts', d.alerts], ['incidents', d.incidents]] as const) {
    for (const end of ['time_to_acknowledge', 'time_to_resolve'] as const) {
      const t = group[end];
      for (const m of ['count', 'median', 'p90', 'median_change', 'p90_change'] as const) add(`${kind}.${end}`, null, m, t[m]);
      for (const m of ['count', 'median', 'p90'] as const) add(`${kind}.${end}`, null, `previous_${m}`, t.previous[m]);
    }
  }
  for (const m of ['fires', 'alerts_fired', 'raised', 'resolved_unacknowledged', 'opened_incidents', 'incident_share'] as const) add('alerts', null, m, d.alerts[m]);
  add('incidents', null, 'opened', d.incidents.opened);
  for (const v of d.volume_by_day) add('volume_by_day', v.day, 'fires', v.fires);
  for (const n of d.noisiest) add('noisiest', n.fingerprint, 'fires', n.fires);
  for (const f of d.flapping) add('flapping', f.fingerprint, `cycles on ${f.day}`, f.cycles);
  for (const u of d.resolved_unacknowledged) add('resolved_unacknowledged', u.fingerprint, 'alerts', 1);
  for (const p of d.pages_by_person) for (const m of ['total', 'working_hours', 'off_hours', 'night'] as const) add('pages_by_person', p.email, m, p[m]);
  for (const o of d.on_call) {
    add('on_call', o.email, 'hours_on_call', o.hours_on_call);
    add('on_call', o.email, 'pages', o.pages);
  }
  return rows;
}

export const getInsights: DomainOperation = {
  name: 'get_insights',
  description:
    'How on call is going over a range (default: the last 7 days; at most 366 days; the team plan sees the last 7 days only): time to acknowledge and ' +
    'to resolve (median and 90th percentile, in seconds, beside the range before) for alerts and incidents; fires by day; the noisiest and flapping alerts; ' +
    'alerts resolved with no one acknowledging; the share of alerts that opened incidents; pages by person in working hours, off hours and at night ' +
    '(in their schedule\'s zone); hours on call per person. Filters: team_id, service, source, severity. REST answers CSV to `Accept: text/csv`.',
  input: INSIGHTS_INPUT,
  role: 'viewer',
  kind: 'read',
  feature: 'insights',
  rest: { method: 'GET', path: 'insights' },
  answer: { schema: INSIGHTS_ANSWER, refusals: ['plan_required'] },
  csv: insightsRows,
  async run(services, caller, input) {
    return { json: { data: await insights(services, caller, input), organization: publicOrganization(caller.organization) } };
  },
};
