/**
 * `get_alert_escalation` (REST `GET /api/v1/config/alerts/{id}/escalation`): where the paging of one alert stands —
 * each escalation for it or its incident (one per team paged), its policy as snapshotted, the step and loop it is at,
 * the next step's deadline, why it stopped, and every person notified at each step with the notification's state.
 */
import Type from 'typebox';
import { ApiError } from '../../engine/errors.ts';
import { readStore } from '../../engine/operations/context.ts';
import { literals, time, JSON_VALUE } from '../../engine/operations/tool-schemas.ts';
import { iso, jsonValue } from '../../engine/persistence/store.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { isUuid } from '../../engine/validation.ts';
import { ESCALATIONS, NOTIFICATIONS } from './escalation-entities.ts';

const NOTIFICATION = Type.Object({
  step: Type.Integer({ description: 'the step (0 the first)' }),
  loop: Type.Integer({ description: 'the repeat it was in (0: the first run)' }),
  email: Type.String({ description: 'the person notified' }),
  contact_method_id: Type.Union([Type.String(), Type.Null()], { description: 'the contact method; null: the account email (the person had no usable rule for the urgency)' }),
  method: Type.String({ description: 'the contact method\'s name, or "account email"' }),
  fallback: Type.Union([Type.Literal('no_rule'), Type.Literal('unverified'), Type.Literal('not_configured'), Type.Null()], {
    description: 'why the account email was used: no rule for the urgency, the rules\' methods not verified, or their providers not set up; null otherwise',
  }),
  type: Type.String({ description: 'the contact method\'s type, which names its channel' }),
  send_after: Type.String({ format: 'date-time', description: 'when it is due: the step plus the rule\'s delay, moved by a bundle window or a limit' }),
  status: literals(
    ['pending', 'limited', 'sending', 'queued', 'sent', 'failed', 'unknown', 'cancelled', 'not_sent'],
    'pending (waiting for its rule\'s delay or its bundle), limited (held by the method\'s limit: goes out in one summary), sending (with the provider), ' +
      'queued (handed to the email transport), sent (the provider accepted it), failed (reason), unknown (the provider call was cut short: not retried), ' +
      'cancelled (the escalation stopped first), not_sent (older rows: reason)',
  ),
  reason: Type.Union([Type.String(), Type.Null()]),
  channel: Type.Union([Type.String(), Type.Null()], { description: 'the channel it went out on' }),
  created_at: Type.String({ format: 'date-time' }),
  sent_at: time('when it was handed to its channel'),
});

const ESCALATION = Type.Object({
  id: Type.String(),
  subject: literals(['alert', 'incident'], 'what it escalates: the alert, or the incident the alert was in when it paged (one escalation per incident and team)'),
  subject_id: Type.String(),
  team_id: Type.String(),
  policy_id: Type.Union([Type.String(), Type.Null()], { description: 'the escalation policy; null: the team\'s old escalation list implied it' }),
  policy: Type.Record(Type.String(), JSON_VALUE(), { description: '{ name, steps, repeat } as they stood when the page started' }),
  state: literals(['active', 'stopped', 'done'], 'active, stopped (acknowledged, resolved, muted) or done (every step and repeat ran: reason exhausted)'),
  reason: Type.Union([Type.String(), Type.Null()]),
  step: Type.Integer({ description: 'the next step to start (active), or the step it stopped at' }),
  loop: Type.Integer(),
  next_at: time('when the next step starts; null once stopped or done'),
  started_at: Type.String({ format: 'date-time' }),
  notifications: Type.Array(NOTIFICATION),
});

export const getAlertEscalation = {
  name: 'get_alert_escalation',
  description:
    'Where the paging of one alert stands: each escalation for it (or for its incident, which escalates once for all its alerts), one per team ' +
    'paged, with its policy, state, step, loop, next deadline, and who was notified at which step. An empty list: nothing paged a team for it.',
  input: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'the alert id' }) }, { additionalProperties: false }),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'alerts', param: 'id', action: 'escalation' },
  answer: { schema: Type.Object({ data: Type.Array(ESCALATION) }) },
  async run(services, caller, input) {
    const id = String((input as { id: string }).id);
    const missing = new ApiError('not_found', 'No alert with that id exists in this organization.');
    if (!isUuid(id)) throw missing;
    const sql = readStore(services).execute;
    const org = caller.organization.id;
    const [alert] = await sql('select id, incident_id from alerts where organization_id = ? and id = ?', [org, id]);
    if (!alert) throw missing;
    const rows = await sql(
      `select * from ${ESCALATIONS} where organization_id = ? and (alert_id = ? or subject_id = ? or subject_id = ?) order by started_at, id`,
      [org, id, id, (alert.incident_id as string | null) ?? id],
    );
    const notes = rows.length
      ? await sql(`select * from ${NOTIFICATIONS} where organization_id = ? and escalation_id in (${rows.map(() => '?').join(', ')}) order by loop, step, created_at, email, send_after`, [org, ...rows.map((r) => r.id)])
      : [];
    const data = rows.map((r) => ({
      id: String(r.id), subject: r.subject_kind as 'alert' | 'incident', subject_id: String(r.subject_id), team_id: String(r.team_id),
      policy_id: (r.policy_id as string | null) ?? null, policy: jsonValue(r.policy) as Record<string, unknown>, state: r.state as 'active' | 'stopped' | 'done',
      reason: (r.reason as string | null) ?? null, step: Number(r.step), loop: Number(r.loop), next_at: iso(r.next_at), started_at: iso(r.started_at)!,
      notifications: notes.filter((n) => n.escalation_id === r.id).map((n) => ({
        step: Number(n.step), loop: Number(n.loop), email: String(n.email), contact_method_id: n.method_key === 'account' ? null : String(n.method_key),
        method: (n.method_name as string | null) ?? 'account email', fallback: (n.fallback as 'no_rule' | null) ?? null, type: String(n.contact_type), send_after: iso(n.send_after)!,
        status: n.status as 'pending', reason: (n.reason as string | null) ?? null,
        channel: (n.channel as string | null) ?? null, created_at: iso(n.created_at)!, sent_at: iso(n.sent_at),
      })),
    }));
    return { json: { data } };
  },
} satisfies DomainOperation;
