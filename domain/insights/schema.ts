/** The input and answer of `get_insights`, as TypeBox schemas: REST's query and OpenAPI, the agent tool's schemas. */
import Type, { type Static } from 'typebox';
import { ORGANIZATION } from '../../engine/operations/tool-schemas.ts';

const instant = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

export const INSIGHTS_INPUT = Type.Object(
  {
    from: Type.Optional(instant('the range\'s start, an instant with an offset (default: seven days before `to`)')),
    to: Type.Optional(instant('the range\'s end, excluded, an instant with an offset (default: now); after `from`, at most 366 days after it')),
    team_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'alerts a route of this team matched or a page of which paged it; schedules of this team' })),
    service: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'alerts of this service' })),
    source: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'alerts from this source' })),
    severity: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'alerts (and incidents) of this severity' })),
  },
  { additionalProperties: false },
);

const nullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });
const seconds = (what: string) => nullableNumber(`${what}, in seconds; null when nothing was measured`);
const SPREAD = Type.Object({ count: Type.Integer(), median: seconds('the median'), p90: seconds('the 90th percentile (nearest rank)') });
const TIMING = Type.Object({
  count: Type.Integer({ description: 'cycles measured' }),
  median: seconds('the median'),
  p90: seconds('the 90th percentile (nearest rank)'),
  previous: SPREAD,
  median_change: seconds('this range\'s median minus the previous range\'s'),
  p90_change: seconds('this range\'s 90th percentile minus the previous range\'s'),
});
const ALERT_REF = { fingerprint: Type.String(), title: Type.String(), service: Type.Union([Type.String(), Type.Null()]) };

export const INSIGHTS = Type.Object({
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  previous: Type.Object({ from: Type.String({ format: 'date-time' }), to: Type.String({ format: 'date-time' }) }, { description: 'the range of the same length just before' }),
  filters: Type.Record(Type.String(), Type.String()),
  alerts: Type.Object({
    fires: Type.Integer({ description: 'fires in the range (page or page_skipped effects)' }),
    alerts_fired: Type.Integer({ description: 'distinct alerts that fired in the range' }),
    raised: Type.Integer({ description: 'alerts whose latest raise is in the range' }),
    time_to_acknowledge: TIMING,
    time_to_resolve: TIMING,
    resolved_unacknowledged: Type.Integer({ description: 'alerts raised in the range that resolved with no acknowledgement' }),
    opened_incidents: Type.Integer({ description: 'distinct alerts that opened an incident in the range' }),
    incident_share: nullableNumber('opened_incidents / alerts_fired; null when nothing fired'),
  }),
  incidents: Type.Object({ opened: Type.Integer(), time_to_acknowledge: TIMING, time_to_resolve: TIMING }),
  volume_by_day: Type.Array(Type.Object({ day: Type.String({ description: 'a UTC day, YYYY-MM-DD' }), fires: Type.Integer() })),
  noisiest: Type.Array(Type.Object({ ...ALERT_REF, fires: Type.Integer() })),
  flapping: Type.Array(Type.Object({ ...ALERT_REF, day: Type.String(), cycles: Type.Integer({ description: 'fires that UTC day' }), flapping_days: Type.Integer() })),
  resolved_unacknowledged: Type.Array(Type.Object({ ...ALERT_REF }), { description: 'candidates to delete: alerts raised in the range that resolved with no one acknowledging' }),
  pages_by_person: Type.Array(Type.Object({ email: Type.String(), total: Type.Integer(), working_hours: Type.Integer(), off_hours: Type.Integer(), night: Type.Integer() })),
  on_call: Type.Array(Type.Object({ email: Type.String(), hours_on_call: Type.Number(), pages: Type.Integer() })),
});
export type Insights = Static<typeof INSIGHTS>;

export const INSIGHTS_ANSWER = Type.Object({ data: INSIGHTS, organization: ORGANIZATION });
