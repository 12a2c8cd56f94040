/**
 * What a person (or an agent) does to an alert: acknowledge, un-acknowledge, resolve, reopen (each run through the
 * pipeline as the source's event of the same meaning, with the same consequences: alerts/pipeline.ts `actOnAlerts`),
 * and assign. REST: `POST /api/v1/config/alerts/{id}/<action>`; MCP: the tool of the same name.
 *
 * Each sets a state, so each is idempotent: a repeat that finds the alert where the action leads answers 200 with the
 * alert and does nothing (no effect, no event, no audit entry). An action that cannot lead there from the alert's state
 * (acknowledging a resolved alert) is 409 `conflict` with the alert in `data`. Every change is audited (family
 * `alerts`, action `action:<name>`) with its actor, who is also `by` on every effect it had.
 */
import Type from 'typebox';
import type { Caller } from '../../engine/auth/caller.ts';
import { ApiError } from '../../engine/errors.ts';
import { actorOf, recordAudit } from '../../engine/operations/audit.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { DomainOperation, Services } from '../../engine/services.ts';
import { isUuid } from '../../engine/validation.ts';
import { ASSIGNEE_INPUT, AUDITED, findMember } from './people.ts';
import { actOnAlerts } from './pipeline.ts';
import type { PersonAction } from './rules.ts';
import { ALERT_ANSWER, readAlert } from './tools.ts';

const ID = Type.String({ minLength: 1, maxLength: 100, description: 'the alert id (list_alerts, get_alert)' });
const missing = () => new ApiError('not_found', 'No alert with that id exists in this organization.');

/** The alert as get_alert answers it, after the action (committed). */
async function answer(services: Services, caller: Caller, id: string) {
  const data = await readAlert(readStore(services).execute, caller.organization.id, { id });
  if (!data) throw missing();
  return { json: { data } };
}

/** Why the action does not apply to an alert in this state (409). */
const CONFLICTS: Partial<Record<PersonAction, string>> = {
  acknowledge: 'The alert is resolved: there is nothing to acknowledge. Reopen it first (reopen_alert) if it needs attention again.',
  unacknowledge: 'The alert is resolved: there is no acknowledgement to take back. Reopen it (reopen_alert) if it needs attention again.',
};

function pipelineAction(name: string, action: PersonAction, description: string): DomainOperation {
  return {
    name,
    description,
    input: Type.Object({ id: ID }, { additionalProperties: false }),
    role: 'member',
    kind: 'write',
    idempotent: true,
    // its consequences leave the service: chat thread updates, outbound events, a reopen's page
    reachesOutside: true,
    rest: { method: 'POST', path: 'alerts', param: 'id', action },
    answer: { schema: ALERT_ANSWER },
    async run(services, caller, input) {
      const id = String(input.id);
      if (!isUuid(id)) throw missing();
      const now = services.clock.now();
      const by = actorOf(caller);
      await actOnAlerts(services, caller.organization, by, now, async (actions, store) => {
        const result = await actions.act(id, action);
        if (result === null) throw missing();
        if (result.outcome === 'conflict') {
          throw new ApiError('conflict', CONFLICTS[action] ?? 'The alert is not in a state this action applies to.', { data: await readAlert(store.execute, caller.organization.id, { id }) });
        }
        if (result.outcome === 'unchanged') return;
        await recordAudit(services, store, { caller, family: AUDITED.alerts, rowId: id, action: `action:${name}`, changes: { status: { before: result.from, after: result.to } }, at: now });
      });
      return answer(services, caller, id);
    },
  };
}

export const acknowledgeAlert = pipelineAction('acknowledge_alert', 'acknowledge',
  'Acknowledges an alert (firing or muted → acknowledged), as an acknowledgement from the pager does: its chat thread is updated and ' +
  'alert.acknowledged goes to the outbound rules (for an alert that was announced). Already acknowledged: answers it unchanged. ' +
  'A resolved alert is refused (409 conflict). Answers the alert as get_alert does.');

export const unacknowledgeAlert = pipelineAction('unacknowledge_alert', 'unacknowledge',
  'Takes an acknowledgement back (acknowledged → firing), as the pager\'s un-acknowledge does: its chat thread hears of it; nobody is paged ' +
  'again. Not acknowledged (firing or muted): answers it unchanged. A resolved alert is refused (409 conflict). Answers the alert as get_alert does.');

export const resolveAlert = pipelineAction('resolve_alert', 'resolve',
  'Resolves an alert, as a resolved event from its source does: its chat thread is updated, alert.resolved goes out, and its incident closes ' +
  '(incident.closed) when auto_close_incidents is on and none of its other alerts still fires. Already resolved: answers it unchanged. ' +
  'Answers the alert as get_alert does.');

export const reopenAlert = pipelineAction('reopen_alert', 'reopen',
  'Reopens a resolved alert: it fires again, exactly as if its source had sent it firing again — a matching mute keeps it quiet, inside ' +
  'alert_refire_cooldown_minutes it fires quietly (chat thread only), otherwise it pages (or joins a storm), may request an investigation and ' +
  'opens or rejoins an incident. Not resolved: answers it unchanged. Answers the alert as get_alert does.');

export const assignAlert: DomainOperation = {
  name: 'assign_alert',
  description:
    'Assigns an alert to a member of the organization (by user id or email), or unassigns it (assignee null). Assigning it to whom it is ' +
    'assigned already answers it unchanged. Answers the alert as get_alert does.',
  input: Type.Object({ id: ID, assignee: ASSIGNEE_INPUT }, { additionalProperties: false }),
  role: 'member',
  kind: 'write',
  idempotent: true,
  rest: { method: 'POST', path: 'alerts', param: 'id', action: 'assign' },
  answer: { schema: ALERT_ANSWER },
  async run(services, caller, input) {
    const id = String(input.id);
    if (!isUuid(id)) throw missing();
    const now = services.clock.now();
    await inTransaction(services, async (store) => {
      const [row] = await store.execute('select assignee_id from alerts where organization_id = ? and id = ? for update', [caller.organization.id, id]);
      if (!row) throw missing();
      const assignee = await findMember(store.execute, caller.organization.id, input.assignee as string | null);
      const before = (row.assignee_id as string | null) ?? null;
      if (before === assignee) return;
      await store.execute('update alerts set assignee_id = ?, updated_at = ? where id = ?', [assignee, now, id]);
      await recordAudit(services, store, { caller, family: AUDITED.alerts, rowId: id, action: 'action:assign_alert', changes: { assignee: { before, after: assignee } }, at: now });
    });
    return answer(services, caller, id);
  },
};

export const ALERT_ACTIONS: DomainOperation[] = [acknowledgeAlert, unacknowledgeAlert, resolveAlert, reopenAlert, assignAlert];
