/**
 * Acting on a page from wherever it landed (a signed link in an email or a push, an SMS reply, a key pressed on a call,
 * a push action or a provider's receipt callback): the person the page went to acknowledges or resolves its alerts
 * through the very operations REST and MCP run (acknowledge_alert / resolve_alert, or the incident's for an alert in
 * one, so the incident's escalation stops too), audited with the person as actor (credential kind `page`) and the
 * channel as transport. Their role is checked as for any request: a viewer who was paged can read but not change.
 */
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../engine/auth/caller.ts';
import { loadOrganization } from '../../engine/auth/authenticate.ts';
import { ApiError } from '../../engine/errors.ts';
import { executeDomain } from '../../engine/operations/domain.ts';
import { readStore } from '../../engine/operations/context.ts';
import { MembershipEntity } from '../../engine/persistence/entities.ts';
import { isRole } from '../../engine/plans.ts';
import type { Services } from '../../engine/services.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { acknowledgeAlert, resolveAlert } from './alert-actions.ts';
import { acknowledgeIncident, resolveIncident } from './incident-actions.ts';

/** The channels a page is answered through, each a transport in the audit log beside rest, mcp, console and chat. */
declare module '../../engine/auth/caller.ts' {
  interface PartTransports {
    email: true;
    sms: true;
    voice: true;
    ntfy: true;
    pushover: true;
    webhook: true;
  }
}

export type PageChannel = 'email' | 'sms' | 'voice' | 'ntfy' | 'pushover' | 'webhook';
export type PageAction = 'acknowledge' | 'resolve';

const OPERATIONS: Record<PageAction, { alert: DomainOperation; incident: DomainOperation }> = {
  acknowledge: { alert: acknowledgeAlert, incident: acknowledgeIncident },
  resolve: { alert: resolveAlert, incident: resolveIncident },
};

export interface PageActionResult {
  /** alert ids now acknowledged (or resolved), including those that already were */
  done: string[];
  /** alert ids the action did not apply to, with the reason in words (resolved already, no such alert, the role) */
  refused: { id: string; reason: string }[];
}

/** The paged person as a Caller, or null when they are no longer a member of the organization (or it is disabled). */
export async function pagedPerson(services: Services, organizationId: string, userId: string, via: PageChannel, reference: string): Promise<Caller | null> {
  const organization = await loadOrganization(services.db, organizationId);
  if (!organization || organization.disabled) return null;
  const [member] = await readStore(services).execute(
    `select role from ${MembershipEntity.meta.tableName} where organization_id = ? and user_id = ?`, [organizationId, userId],
  );
  if (!member) return null;
  return {
    organization,
    credential: { kind: 'page', id: `${via}:${reference}`, userId, scopes: [] },
    role: isRole(member.role) ? member.role : 'viewer',
    transport: via,
    endpointFeature: null,
    requestId: randomUUID(),
  };
}

/**
 * Acknowledges (or resolves) the alerts of a page as `caller`: an alert in an incident through the incident's
 * operation, once per incident. Never throws for one alert's refusal: each is answered in `refused`.
 */
export async function actOnPage(services: Services, caller: Caller, alertIds: readonly string[], action: PageAction): Promise<PageActionResult> {
  const result: PageActionResult = { done: [], refused: [] };
  const rows = alertIds.length
    ? await readStore(services).execute(
        `select id, incident_id from alerts where organization_id = ? and id in (${alertIds.map(() => '?').join(', ')})`,
        [caller.organization.id, ...alertIds],
      )
    : [];
  const incidentOf = new Map(rows.map((r) => [String(r.id), (r.incident_id as string | null) ?? null]));
  const incidentsDone = new Map<string, string | null>();
  for (const id of alertIds) {
    if (!incidentOf.has(id)) {
      result.refused.push({ id, reason: 'no such alert any more' });
      continue;
    }
    const incidentId = incidentOf.get(id) ?? null;
    try {
      if (incidentId) {
        if (!incidentsDone.has(incidentId)) {
          try {
            await executeDomain(services, caller, OPERATIONS[action].incident, { id: incidentId });
            incidentsDone.set(incidentId, null);
          } catch (error) {
            incidentsDone.set(incidentId, reasonOf(error));
          }
        }
        const reason = incidentsDone.get(incidentId);
        if (reason) result.refused.push({ id, reason });
        else result.done.push(id);
      } else {
        await executeDomain(services, caller, OPERATIONS[action].alert, { id });
        result.done.push(id);
      }
    } catch (error) {
      result.refused.push({ id, reason: reasonOf(error) });
    }
  }
  return result;
}

function reasonOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  throw error;
}
