/**
 * Console sign-in: passwords checked, one-time sign-in links, and server-side sessions. A session is a random
 * token in an HttpOnly cookie, stored only as its SHA-256 (like every token here), with the organization chosen in
 * the switcher. It resolves to the same `Caller` a personal token builds at the agent-tool endpoint (transport
 * `console`, the membership's role, no endpoint feature), so the console runs exactly the operations REST and MCP
 * run, under the same rules.
 *
 * A session ends:
 * - on sign-out (the row is deleted);
 * - after SESSION_IDLE_MINUTES without a request, or SESSION_MAX_HOURS after sign-in, whichever comes first
 *   (times from the injected clock);
 * - at once when the user's password changes (every session of the user is deleted);
 * - at once when the user is removed from the session's organization or that organization is disabled: each
 *   request checks the membership and the organization afresh, and the operator API deletes those sessions too.
 */
import { randomBytes, randomUUID, createHmac } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { constantTimeEqual, generateToken, hashToken } from '../crypto.ts';
import { currentRequestId, noteCaller } from '../observability/context.ts';
import { isRole, type Role } from '../plans.ts';
import { sqlExecutor, type SqlExecutor } from '../persistence/sql.ts';
import type { Services } from '../services.ts';
import { organizationFromRow } from './authenticate.ts';
import type { Caller, Organization } from './caller.ts';
import { decoyHash, hashPassword, verifyPassword } from './passwords.ts';

export const SESSION_TOKEN_PREFIX = 'vigil_cs_';
export const SIGN_IN_LINK_PREFIX = 'vigil_si_';
/** A session unused this long ends (an on-call shift with a break still fits). */
export const SESSION_IDLE_MINUTES = 12 * 60;
/** However active, a session ends this long after sign-in. */
export const SESSION_MAX_HOURS = 7 * 24;
export const SIGN_IN_LINK_HOURS = 24;
/** last_seen_at is written at most this often per session, so a page view is not a write each time. */
const TOUCH_EVERY_MS = 60_000;

export interface Membership {
  organization: Organization;
  role: Role;
}

export interface ConsoleSession {
  id: string;
  userId: string;
  email: string;
  /** the organizations the user belongs to (enabled ones), by name */
  memberships: Membership[];
  /** the user acting in the chosen organization */
  caller: Caller;
  /** the per-session CSRF token every console form carries */
  csrf: string;
}

/** The organizations (enabled) a user belongs to, by name. */
export async function membershipsOf(sql: SqlExecutor, userId: string): Promise<Membership[]> {
  const rows = await sql(
    `select o.id, o.name, o.plan, o.disabled, o.features, o.flags, m.role from memberships m join organizations o on o.id = m.organization_id
      where m.user_id = ? and o.disabled = false order by o.name, o.id`,
    [userId],
  );
  return rows.map((r) => ({ organization: organizationFromRow(r), role: isRole(r.role) ? r.role : 'viewer' }));
}

/**
 * The user an email and password name, or null for any mismatch (no such user, no password set, a wrong one):
 * the caller says the same either way, and a missing user costs a hash check too.
 */
export async function checkPassword(services: Services, email: string, password: string): Promise<string | null> {
  const [user] = await sqlExecutor(services.db)('select id, password_hash from users where email = ?', [email.trim().toLowerCase()]);
  const stored = (user?.password_hash as string | null | undefined) ?? (await decoyHash());
  const ok = await verifyPassword(password, stored);
  return ok && user?.password_hash ? String(user.id) : null;
}

/** Writes a password's hash and ends every session of the user (run inside the caller's transaction). */
async function writePassword(sql: SqlExecutor, userId: string, hash: string, now: Date): Promise<void> {
  await sql('update users set password_hash = ?, password_changed_at = ? where id = ?', [hash, now, userId]);
  await sql('delete from console_sessions where user_id = ?', [userId]);
}

/** Stores a new password and ends every session of the user, in one transaction (hashed before it opens). */
export async function storePassword(services: Services, userId: string, password: string): Promise<void> {
  const hash = await hashPassword(password);
  await services.db.em.getConnection().transactional((trx) => writePassword(sqlExecutor(services.db, trx), userId, hash, services.clock.now()));
}

/** A one-time link for the user to choose a password: only its hash is stored. */
export async function createSignInLink(services: Services, userId: string): Promise<{ token: string; expiresAt: Date }> {
  const token = generateToken(SIGN_IN_LINK_PREFIX);
  const now = services.clock.now();
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_HOURS * 3_600_000);
  await sqlExecutor(services.db)('insert into sign_in_links (id, user_id, token_hash, created_at, expires_at, used_at) values (?, ?, ?, ?, ?, null)', [
    randomUUID(), userId, hashToken(token), now, expiresAt,
  ]);
  return { token, expiresAt };
}

/** The user a sign-in link names while it is unused and unexpired, or null. */
export async function signInLinkUser(services: Services, token: string): Promise<{ userId: string; email: string } | null> {
  if (!token.startsWith(SIGN_IN_LINK_PREFIX) || token.length > 100) return null;
  const [row] = await sqlExecutor(services.db)(
    'select l.user_id, u.email from sign_in_links l join users u on u.id = l.user_id where l.token_hash = ? and l.used_at is null and l.expires_at > ?',
    [hashToken(token), services.clock.now()],
  );
  return row ? { userId: String(row.user_id), email: String(row.email) } : null;
}

/** Uses the link once: the password is stored (ending other sessions) and the link spent, together; false when it was no longer valid. */
export async function useSignInLink(services: Services, token: string, password: string): Promise<string | null> {
  // hashed before the transaction: PGlite has one connection, and scrypt takes a while
  const hash = await hashPassword(password);
  const now = services.clock.now();
  return services.db.em.getConnection().transactional(async (trx) => {
    const sql = sqlExecutor(services.db, trx);
    const [row] = await sql('update sign_in_links set used_at = ? where token_hash = ? and used_at is null and expires_at > ? returning user_id', [now, hashToken(token), now]);
    if (!row) return null;
    await writePassword(sql, String(row.user_id), hash, now);
    return String(row.user_id);
  });
}

/**
 * Opens a session in the user's first organization (by name), or in `options.organizationId` when they are a member
 * of it; null when the user belongs to none that is enabled. `options.sso`: opened by single sign-on, so signing
 * out also ends the session at the identity provider.
 */
export async function openSession(services: Services, userId: string, options: { organizationId?: string; sso?: boolean; confine?: boolean } = {}): Promise<string | null> {
  const sql = sqlExecutor(services.db);
  const memberships = await membershipsOf(sql, userId);
  const first = memberships.find((m) => m.organization.id === options.organizationId) ?? (options.confine ? undefined : memberships[0]);
  if (!first) return null;
  const token = generateToken(SESSION_TOKEN_PREFIX);
  const now = services.clock.now();
  await sql('insert into console_sessions (id, user_id, organization_id, token_hash, created_at, last_seen_at, sso, confined_to) values (?, ?, ?, ?, ?, ?, ?, ?)', [
    randomUUID(), userId, first.organization.id, hashToken(token), now, now, options.sso === true, options.confine ? first.organization.id : null,
  ]);
  return token;
}

/** The CSRF token of a session: derived from its secret token, so it needs no storage and dies with the session. */
export function csrfOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('vigil console csrf').digest('base64url');
}

export function csrfMatches(sessionToken: string, sent: unknown): boolean {
  return typeof sent === 'string' && constantTimeEqual(csrfOf(sessionToken), sent);
}

/**
 * The signed-in person a session token names, acting in the chosen organization; null when the token is unknown,
 * expired, or no longer backed by a membership of an enabled organization (such a session is deleted).
 */
export async function resolveSession(services: Services, token: string | undefined): Promise<ConsoleSession | null> {
  if (!token || !token.startsWith(SESSION_TOKEN_PREFIX) || token.length > 100) return null;
  const sql = sqlExecutor(services.db);
  const [row] = await sql(
    'select s.id, s.user_id, s.organization_id, s.confined_to, s.created_at, s.last_seen_at, u.email from console_sessions s join users u on u.id = s.user_id where s.token_hash = ?',
    [hashToken(token)],
  );
  if (!row) return null;
  const now = services.clock.now().getTime();
  const lastSeen = new Date(row.last_seen_at as string).getTime();
  const created = new Date(row.created_at as string).getTime();
  const confinedTo = row.confined_to ? String(row.confined_to) : undefined;
  // a confined session sees (and may switch to) its one organization only
  const memberships = (await membershipsOf(sql, String(row.user_id))).filter((m) => !confinedTo || m.organization.id === confinedTo);
  const chosen = memberships.find((m) => m.organization.id === String(row.organization_id));
  if (now - lastSeen > SESSION_IDLE_MINUTES * 60_000 || now - created > SESSION_MAX_HOURS * 3_600_000 || !chosen) {
    await sql('delete from console_sessions where id = ?', [row.id]);
    return null;
  }
  if (now - lastSeen > TOUCH_EVERY_MS) await sql('update console_sessions set last_seen_at = ? where id = ?', [new Date(now), row.id]);
  noteCaller(chosen.organization.id, String(row.id));
  return {
    id: String(row.id),
    userId: String(row.user_id),
    email: String(row.email),
    memberships,
    csrf: csrfOf(token),
    caller: {
      organization: chosen.organization,
      credential: { kind: 'session', id: String(row.id), userId: String(row.user_id), scopes: [], ...(confinedTo ? { confinedTo } : {}) },
      role: chosen.role,
      transport: 'console',
      endpointFeature: null,
      requestId: currentRequestId() ?? randomUUID(),
    },
  };
}

/** Switches the session to another organization of the user's; 404 when the user is not a member of it. */
export async function chooseOrganization(services: Services, session: ConsoleSession, organizationId: string): Promise<void> {
  if (!session.memberships.some((m) => m.organization.id === organizationId)) {
    throw new ApiError('not_found', 'You are not a member of that organization.');
  }
  await sqlExecutor(services.db)('update console_sessions set organization_id = ? where id = ?', [organizationId, session.id]);
}

/**
 * Ends the session a token names; answers whether it was opened by the deployment's single sign-on (false when there
 * was none), and the organization whose own provider opened it (`confinedTo`), if one did.
 */
export async function endSession(services: Services, token: string): Promise<{ sso: boolean; confinedTo?: string }> {
  const [row] = await sqlExecutor(services.db)('delete from console_sessions where token_hash = ? returning sso, confined_to', [hashToken(token)]);
  return { sso: row?.sso === true, ...(row?.confined_to ? { confinedTo: String(row.confined_to) } : {}) };
}

/** Ends sessions at once: a user's in one organization (removed from it), or everyone's in one (disabled). */
export async function endSessionsIn(sql: SqlExecutor, organizationId: string, userId?: string): Promise<void> {
  if (userId) await sql('delete from console_sessions where organization_id = ? and user_id = ?', [organizationId, userId]);
  else await sql('delete from console_sessions where organization_id = ?', [organizationId]);
}

/** A random token for forms that come before a session (sign-in): double-submitted as cookie and field. */
export const preSessionToken = () => randomBytes(24).toString('base64url');
