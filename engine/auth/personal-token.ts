/**
 * Personal access tokens at the agent-tool endpoint: the user acts in one organization the token names,
 * with their membership role capped by the token's ceiling. A token covering several organizations picks
 * one with the `X-Vigil-Organization` header; one covering a single organization needs no header.
 */
import { sqlExecutor } from '../persistence/sql.ts';
import { randomUUID } from 'node:crypto';
import { currentRequestId, noteCaller } from '../observability/context.ts';
import { ApiError } from '../errors.ts';
import { hashToken } from '../crypto.ts';
import type { Database } from '../persistence/database.ts';
import { isRole, ROLES, type Feature, type Role } from '../plans.ts';
import { isUuid } from '../validation.ts';
import { organizationFromRow } from './authenticate.ts';
import type { Caller, Transport } from './caller.ts';

export const ORGANIZATION_HEADER = 'x-vigil-organization';

function capped(role: Role, ceiling: string): Role {
  if (!isRole(ceiling)) return role;
  return ROLES.indexOf(role) <= ROLES.indexOf(ceiling) ? role : ceiling;
}

export async function authenticatePersonalToken(
  db: Database,
  token: string,
  organizationHeader: string | undefined,
  transport: Transport,
  /** null: an endpoint on every plan (the person's own surface) */
  endpointFeature: Feature | null,
): Promise<Caller> {
  const sql = sqlExecutor(db);
  const [pat] = await sql('select id, user_id, organizations, max_role from personal_tokens where token_hash = ? and revoked_at is null', [hashToken(token)]);
  if (!pat) throw new ApiError('unauthorized', 'Send a valid credential as "Authorization: Bearer <token>"; this one is missing, unknown or revoked.', { headers: { 'WWW-Authenticate': 'Bearer' } });
  const covered = (typeof pat.organizations === 'string' ? JSON.parse(pat.organizations) : pat.organizations) as string[];
  const chosen = organizationHeader?.trim().toLowerCase() || (covered.length === 1 ? covered[0] : undefined);
  if (!chosen) {
    throw new ApiError('bad_request', `This token covers several organizations; name the one to act in with the ${ORGANIZATION_HEADER} header.`);
  }
  if (!isUuid(chosen) || !covered.includes(chosen)) throw new ApiError('forbidden', 'This personal token does not cover that organization.');
  const [row] = await sql(
    `select o.id, o.name, o.plan, o.disabled, o.features, o.flags, m.role
       from organizations o join memberships m on m.organization_id = o.id and m.user_id = ?
      where o.id = ?`,
    [pat.user_id, chosen],
  );
  if (!row) throw new ApiError('forbidden', 'The token\'s user is not a member of that organization.');
  const organization = organizationFromRow(row);
  if (organization.disabled) throw new ApiError('organization_disabled', 'This organization is disabled; its keys and tokens do not work.');
  noteCaller(organization.id, String(pat.id));
  return {
    organization,
    credential: { kind: 'personal_token', id: String(pat.id), userId: String(pat.user_id), scopes: [] },
    role: capped(isRole(row.role) ? row.role : 'viewer', String(pat.max_role)),
    transport,
    endpointFeature,
    requestId: currentRequestId() ?? randomUUID(),
  };
}
