/**
 * A person's own personal access tokens (the spec's "Authentication" 5–7): made on the Account page, for the CLI and
 * agents at the agent-tool endpoint. The maker chooses the organizations the token may act in (among their own
 * memberships) and a ceiling — viewer, member, org_admin, or unlimited (the membership's role at each use) — no higher
 * than their role in each organization chosen; the ceiling only ever lowers what the membership allows
 * (engine/auth/personal-token.ts applies it at each use, against the membership as it is then).
 *
 * The token is answered once, by the create, and only its SHA-256 is kept: no list, page, log line, audit entry or
 * idempotency record holds it (the console passes no idempotency key, and no other transport serves the create).
 * The three operations are the person's, not the organization's: each acts only on the signed-in person's own tokens
 * (another person's token id is "not found", as an unknown one), needs nothing above viewer, and is served by the
 * console only (`agentTool: false`, no REST): a credential never mints or manages credentials, so a leaked token
 * cannot make itself a successor or revoke its owner's other tokens (docs/decisions.md).
 */
import Type from 'typebox';
import type { Caller } from '../../engine/auth/caller.ts';
import { MAX_ROLES, newPersonalToken, type MaxRole } from '../../engine/auth/personal-token.ts';
import { membershipsOf } from '../../engine/auth/sessions.ts';
import { ApiError, validationFailed } from '../../engine/errors.ts';
import { sqlExecutor } from '../../engine/persistence/sql.ts';
import { iso, jsonValue } from '../../engine/persistence/store.ts';
import { ROLES } from '../../engine/plans.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { isUuid } from '../../engine/validation.ts';

/** Active tokens one person may hold at once: enough for every machine and agent, not a table anyone can fill. */
export const MAX_ACTIVE_TOKENS = 50;

const maxRole = Type.Union(MAX_ROLES.map((r) => Type.Literal(r)), {
  description: 'the ceiling: viewer (read only), member (can operate), org_admin, or unlimited (your role in each organization, as it is at each use)',
});

const TOKEN = Type.Object({
  id: Type.String(),
  name: Type.String(),
  organizations: Type.Array(Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()], { description: 'null: you are no longer a member' }) })),
  max_role: maxRole,
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'the last request it authenticated, to the minute; null: never used' }),
});

/** The person behind the caller: a signed-in person in the console, the only one who makes and manages their tokens. */
function personOf(caller: Caller): string {
  if (caller.credential.kind !== 'session' || !caller.credential.userId) {
    throw new ApiError('forbidden', 'Personal access tokens are made and revoked by their owner on the console\'s Account page.');
  }
  return caller.credential.userId;
}

export const listPersonalTokens: DomainOperation = {
  name: 'list_personal_tokens',
  description: 'Your own personal access tokens that are not revoked, newest first: name, organizations, ceiling, when made and last used. Never the token itself.',
  input: Type.Object({}, { additionalProperties: false }),
  role: 'viewer',
  kind: 'read',
  agentTool: false,
  answer: { schema: Type.Object({ data: Type.Array(TOKEN) }) },
  async run(services, caller) {
    const userId = personOf(caller);
    const sql = sqlExecutor(services.db);
    const rows = await sql('select id, name, organizations, max_role, created_at, last_used_at from personal_tokens where user_id = ? and revoked_at is null order by created_at desc, id', [userId]);
    const names = new Map((await membershipsOf(sql, userId)).map((m) => [m.organization.id, m.organization.name]));
    const data = rows.map((row) => ({
      id: String(row.id),
      name: String(row.name),
      organizations: (jsonValue(row.organizations) as string[]).map((id) => ({ id, name: names.get(id) ?? null })),
      max_role: String(row.max_role),
      created_at: iso(row.created_at),
      last_used_at: iso(row.last_used_at),
    }));
    return { json: { data } };
  },
};

export const createPersonalToken: DomainOperation = {
  name: 'create_personal_token',
  description: 'Makes a personal access token for the agent-tool endpoint, acting as you in the organizations chosen (among yours) with at most the ceiling chosen. The token is answered this once.',
  input: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 200, description: 'what it is for (a laptop, an agent); shown in your list' }),
    organizations: Type.Array(Type.String(), { minItems: 1, maxItems: 100, description: 'the ids of the organizations it may act in; you must be a member of each' }),
    max_role: maxRole,
  }, { additionalProperties: false }),
  role: 'viewer',
  kind: 'write',
  agentTool: false,
  answer: { schema: Type.Object({ data: Type.Object({ id: Type.String(), name: Type.String(), max_role: maxRole, token: Type.String({ description: 'shown once; only its hash is kept' }) }) }) },
  async run(services, caller, input) {
    const userId = personOf(caller);
    const sql = sqlExecutor(services.db);
    const name = String(input.name).trim();
    const chosen = [...new Set((input.organizations as string[]).map((o) => o.trim().toLowerCase()))];
    const ceiling = input.max_role as MaxRole;
    // a session confined to one organization (opened by its own sign-in provider) makes tokens for that one only
    const confinedTo = caller.credential.confinedTo;
    const memberships = (await membershipsOf(sql, userId)).filter((m) => !confinedTo || m.organization.id === confinedTo);
    const errors = [];
    if (!name) errors.push({ field: 'name', message: 'must not be blank' });
    const roleIn = new Map(memberships.map((m) => [m.organization.id, m]));
    if (chosen.some((id) => !isUuid(id) || !roleIn.has(id))) {
      errors.push({ field: 'organizations', message: 'names an organization you are not a member of; choose among your organizations' });
    } else if (ceiling !== 'unlimited') {
      const above = chosen.map((id) => roleIn.get(id)!).filter((m) => ROLES.indexOf(m.role) < ROLES.indexOf(ceiling));
      if (above.length) {
        errors.push({ field: 'max_role', message: `is above your role in ${above.map((m) => `${m.organization.name} (${m.role})`).join(', ')}; a token cannot do more than you` });
      }
    }
    if (errors.length) throw validationFailed(errors);
    const [{ count }] = (await sql('select count(*)::int as count from personal_tokens where user_id = ? and revoked_at is null', [userId])) as [{ count: number }];
    if (Number(count) >= MAX_ACTIVE_TOKENS) {
      throw validationFailed([{ field: 'name', message: `you hold ${MAX_ACTIVE_TOKENS} tokens, the most one person may; revoke one you no longer use first` }]);
    }
    const { token, row } = newPersonalToken({ userId, name, organizations: chosen, maxRole: ceiling, now: services.clock.now() });
    await sql(
      'insert into personal_tokens (id, user_id, name, organizations, max_role, token_hash, created_at, revoked_at, last_used_at) values (?, ?, ?, ?, ?, ?, ?, null, null)',
      [row.id, row.user_id, row.name, JSON.stringify(row.organizations), row.max_role, row.token_hash, row.created_at],
    );
    return { json: { data: { id: row.id, name, max_role: ceiling, token } } };
  },
};

export const revokePersonalToken: DomainOperation = {
  name: 'revoke_personal_token',
  description: 'Revokes one of your personal access tokens: it stops working at once. Another person\'s token, or one already revoked, is not found.',
  input: Type.Object({ id: Type.String({ minLength: 1, description: 'the token\'s id, from your list' }) }, { additionalProperties: false }),
  role: 'viewer',
  kind: 'write',
  idempotent: true,
  agentTool: false,
  answer: { schema: Type.Object({ data: Type.Object({ id: Type.String(), revoked_at: Type.String({ format: 'date-time' }) }) }), refusals: ['not_found'] },
  async run(services, caller, input) {
    const userId = personOf(caller);
    const id = String(input.id).trim().toLowerCase();
    const now = services.clock.now();
    const revoked = isUuid(id)
      ? await sqlExecutor(services.db)('update personal_tokens set revoked_at = ? where id = ? and user_id = ? and revoked_at is null returning id', [now, id, userId])
      : [];
    if (!revoked.length) throw new ApiError('not_found', 'You have no token with that id; it may have been revoked already.');
    return { json: { data: { id, revoked_at: now.toISOString() } } };
  },
};

export const ACCOUNT_OPERATIONS: readonly DomainOperation[] = [listPersonalTokens, createPersonalToken, revokePersonalToken];
