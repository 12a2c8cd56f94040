/**
 * `get_attention`: what needs someone now — the open incidents and the alerts firing that nobody acknowledged,
 * most severe first and, within a severity, firing longest first; with how many of each there are, so a console's
 * navigation and an agent can say "3 incidents, 12 alerts" without paging. `mine` keeps those assigned to the caller
 * (a person: a console session or a personal token; a key has no person, so none are its).
 */
import Type from 'typebox';
import { readStore } from '../../engine/operations/context.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { ALERT_SEVERITIES } from '../../resources/alert_routes.ts';
import { INCIDENT, INCIDENT_COLUMNS, toIncident } from './incidents.ts';
import { namePeople } from './people.ts';
import { ALERT, ALERT_COLUMNS, toAlert } from './tools.ts';

const MAX = 200;
/** most severe first: the severities' own order (critical … info) as a SQL expression */
const SEVERITY_RANK = `case severity ${ALERT_SEVERITIES.map((s, i) => `when '${s}' then ${i}`).join(' ')} else ${ALERT_SEVERITIES.length} end`;

export const listAttention: DomainOperation = {
  name: 'get_attention',
  description:
    'What needs someone now: the open incidents and the unacknowledged alerts (firing, not muted), most severe first and then firing ' +
    'longest first, with their counts. `mine: true` keeps those assigned to you (a person\'s credential). At most `limit` of each (default 100).',
  input: Type.Object(
    {
      mine: Type.Optional(Type.Boolean({ description: 'only those assigned to the calling person' })),
      limit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX, description: `at most this many of each (default 100, at most ${MAX}); 0 answers the counts alone` })),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'attention' },
  answer: {
    schema: Type.Object({
      counts: Type.Object({ incidents: Type.Integer(), alerts: Type.Integer() }, { description: 'how many there are in all (with `mine`, of yours)' }),
      incidents: Type.Array(INCIDENT, { description: 'open incidents, most severe and then oldest first' }),
      alerts: Type.Array(ALERT, { description: 'firing alerts nobody acknowledged, most severe and then longest firing first' }),
    }),
  },
  async run(services, caller, input) {
    const sql = readStore(services).execute;
    const org = caller.organization.id;
    const limit = typeof input.limit === 'number' ? input.limit : 100;
    // a key has no person: `mine` is then nobody's (a user id never equals the empty string)
    const mine = input.mine === true ? [caller.credential.userId ?? ''] : [];
    const assigned = mine.length ? ' and assignee_id::text = ?' : '';
    const incidentWhere = `organization_id = ? and status = 'open'${assigned}`;
    const alertWhere = `organization_id = ? and status = 'firing'${assigned}`;
    const [counts] = await sql(
      `select (select count(*) from incidents where ${incidentWhere}) as incidents, (select count(*) from alerts where ${alertWhere}) as alerts`,
      [org, ...mine, org, ...mine],
    );
    const incidents = limit === 0 ? [] : (await sql(`select ${INCIDENT_COLUMNS} from incidents where ${incidentWhere} order by ${SEVERITY_RANK}, opened_at, seq limit ${limit}`, [org, ...mine])).map(toIncident);
    const alerts = limit === 0 ? [] : (await sql(`select ${ALERT_COLUMNS} from alerts where ${alertWhere} order by ${SEVERITY_RANK}, coalesce(raised_at, started_at), seq limit ${limit}`, [org, ...mine])).map(toAlert);
    await namePeople(sql, org, incidents.flatMap((i) => [i.acknowledged_by, i.resolved_by]));
    return { json: { counts: { incidents: Number(counts?.incidents ?? 0), alerts: Number(counts?.alerts ?? 0) }, incidents, alerts } };
  },
};
