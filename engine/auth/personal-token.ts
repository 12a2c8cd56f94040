/**
 * Personal access tokens at the agent-tool endpoint: the user acts in one organization the token names,
 * with their membership role capped by the token's ceiling. A token covering several organizations picks
 * one with the `X-Vigil-Organization` header; one covering a single organization needs no header.
 *
 * A token's last use is recorded for its owner's list (domain/account): at most once a minute per token
 * (LAST_USED_EVERY_MS), and only when the stored time is older than that, so an agent's burst of requests reads
 * the token's row once per request and writes it at most once a minute.
 */
import { sqlExecutor } from '../persistence/sql.ts';
import { parseTimestamp } from '../persistence/store.ts';
import { randomUUID } from 'node:crypto';
import { currentRequestId, noteCaller } from '../observability/context.ts';
import { ApiError } from '../errors.ts';
import { generateToken, hashToken } from '../crypto.ts';
import { PERSONAL_TOKEN_PREFIX } from './credentials.ts';
import type { Database } from '../persistence/database.ts';
import { isRole, ROLES, type Feature, type Role } from '../plans.ts';
import { isUuid } from '../validation.ts';
import { organizationFromRow } from './authenticate.ts';
import type { Caller, Transport } from './caller.ts';

export const ORGANIZATION_HEADER = 'x-vigil-organization';
/** The ceilings a token may carry: a role, or `unlimited` (the membership's role as it is at each use). */
export const MAX_ROLES = ['viewer', 'member', 'org_admin', 'unlimited'] as const;
export type MaxRole = (typeof MAX_ROLES)[number];
/** last_used_at is written at most this often per token (the same cadence as a console session's last_seen_at). */
export const LAST_USED_EVERY_MS = 60_000;

/** A new token and the row that stores only its hash; the token itself is answered once and never kept. */
export function newPersonalToken(fields: { userId: string; name: string; organizations: readonly string[]; maxRole: MaxRole; now: Date }) {
  const token = generateToken(PERSONAL_TOKEN_PREFIX);
  const row = {
    id: randomUUID(), user_id: fields.userId, name: fields.name, organizations: [...new Set(fields.organizations.map((o) => o.toLowerCase()))],
    max_role: fields.maxRole, token_hash: hashToken(token), created_at: fields.now, revoked_at: null, last_used_at: null,
  };
  return { token, row };
}

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
  now: Date,
): Promise<Caller> {
  const sql = sqlExecutor(db);
  const [pat] = await sql('select id, user_id, organizations, max_role, last_used_at from personal_tokens where token_hash = ? and revoked_at is null', [hashToken(token)]);
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
  await noteUse(sql, String(pat.id), pat.last_used_at, now);
  return {
    organization,
    credential: { kind: 'personal_token', id: String(pat.id), userId: String(pat.user_id), scopes: [] },
    role: capped(isRole(row.role) ? row.role : 'viewer', String(pat.max_role)),
    transport,
    endpointFeature,
    requestId: currentRequestId() ?? randomUUID(),
  };
}

/**
 * Records the token's use when the stored time is missing or at least LAST_USED_EVERY_MS old; the condition is
 * repeated in the statement, so two instances racing write once between them.
 */
async function noteUse(sql: ReturnType<typeof sqlExecutor>, id: string, lastUsed: unknown, now: Date): Promise<void> {
  const parsed = parseTimestamp(lastUsed);
  const last = parsed instanceof Date ? parsed.getTime() : Number.NaN;
  if (Number.isFinite(last) && now.getTime() - last < LAST_USED_EVERY_MS) return;
  const before = new Date(now.getTime() - LAST_USED_EVERY_MS);
  await sql('update personal_tokens set last_used_at = ? where id = ? and (last_used_at is null or last_used_at <= ?)', [now, id, before]);
}
