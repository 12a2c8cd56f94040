/** Operator operations on users, memberships and personal access tokens. */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/sql';
import { ApiError, notFound, validationFailed, type FieldError } from '../errors.ts';
import { isRole } from '../plans.ts';
import { MAX_ROLES, newPersonalToken, type MaxRole } from '../auth/personal-token.ts';
import { MembershipEntity, OrganizationEntity, PersonalTokenEntity, UserEntity } from '../persistence/entities.ts';
import type { Services } from '../services.ts';
import { isPlainObject, isUuid } from '../validation.ts';
import { isEmail } from '../email.ts';
import { passwordProblem } from '../auth/passwords.ts';
import { createSignInLink, endSessionsIn, storePassword } from '../auth/sessions.ts';
import { sqlExecutor } from '../persistence/sql.ts';

type Body = Record<string, unknown>;
const em = (services: Services) => services.db.em.fork() as EntityManager;

function objectBody(body: unknown): Body {
  if (!isPlainObject(body)) throw validationFailed([{ field: 'body', message: 'must be a JSON object' }]);
  return body;
}

export async function createUser(services: Services, raw: unknown): Promise<Body> {
  const body = objectBody(raw);
  const errors: FieldError[] = [];
  const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
  if (!isEmail(email)) errors.push({ field: 'email', message: 'must be an email address one can mail, such as you@example.com' });
  if (body.name !== undefined && (typeof body.name !== 'string' || body.name.length > 200)) errors.push({ field: 'name', message: 'must be a string of at most 200 characters' });
  if (errors.length) throw validationFailed(errors);
  const manager = em(services);
  const existing = (await manager.findOne(UserEntity, { email }, { disableIdentityMap: true })) as Body | null;
  if (existing) throw new ApiError('conflict', 'A user with that email already exists.', { data: { id: existing.id, email } });
  const id = randomUUID();
  await manager.insert(UserEntity, { id, email, name: (body.name as string | undefined) ?? null, created_at: services.clock.now() });
  return { id, email };
}

export async function putMember(services: Services, organizationId: string, userId: string, raw: unknown): Promise<Body> {
  const body = objectBody(raw);
  if (!isRole(body.role)) throw validationFailed([{ field: 'role', message: 'must be one of: viewer, member, org_admin' }]);
  const manager = em(services);
  if (!(await manager.count(OrganizationEntity, { id: organizationId }))) throw notFound('organization');
  const user = (await manager.findOne(UserEntity, { id: userId }, { disableIdentityMap: true })) as { email: string } | null;
  if (!user) throw notFound('user');
  const now = services.clock.now();
  const updated = await manager.nativeUpdate(MembershipEntity, { organization_id: organizationId, user_id: userId }, { role: body.role, updated_at: now });
  if (!updated) {
    await manager.insert(MembershipEntity, { id: randomUUID(), organization_id: organizationId, user_id: userId, email: user.email, role: body.role, row_version: 1, created_at: now, updated_at: now });
  }
  return { organization_id: organizationId, user_id: userId, role: body.role };
}

export async function deleteMember(services: Services, organizationId: string, userId: string): Promise<void> {
  const count = await em(services).nativeDelete(MembershipEntity, { organization_id: organizationId, user_id: userId });
  if (!count) throw notFound('membership');
  // their console sessions in that organization end now (a session checks its membership on every request too)
  await endSessionsIn(sqlExecutor(services.db), organizationId, userId);
}

/** `PUT /users/{id}/password`: sets the user's console password and ends every console session they have. */
export async function setPassword(services: Services, userId: string, raw: unknown): Promise<void> {
  const body = objectBody(raw);
  const unknown = Object.keys(body).filter((k) => k !== 'password');
  const errors: FieldError[] = unknown.map((field) => ({ field, message: 'is not a field of this call; send only password' }));
  const problem = passwordProblem(body.password);
  if (problem) errors.push({ field: 'password', message: problem });
  if (errors.length) throw validationFailed(errors);
  if (!(await em(services).count(UserEntity, { id: userId }))) throw notFound('user');
  await storePassword(services, userId, body.password as string);
}

/** `POST /users/{id}/sign_in_link`: a one-time link, valid 24 hours, where the user chooses a password. */
export async function signInLink(services: Services, userId: string): Promise<Body> {
  if (!(await em(services).count(UserEntity, { id: userId }))) throw notFound('user');
  const { token, expiresAt } = await createSignInLink(services, userId);
  return { url: `${services.config.publicUrl}/sign-in/${token}`, expires_at: expiresAt.toISOString() };
}

export async function createPersonalToken(services: Services, userId: string, raw: unknown): Promise<Body> {
  const body = objectBody(raw);
  const manager = em(services);
  if (!(await manager.count(UserEntity, { id: userId }))) throw notFound('user');
  const errors: FieldError[] = [];
  if (typeof body.name !== 'string' || !body.name.trim() || body.name.length > 200) errors.push({ field: 'name', message: 'must be a non-empty string of at most 200 characters' });
  const orgs = body.organizations;
  if (!Array.isArray(orgs) || orgs.length === 0 || !orgs.every(isUuid)) errors.push({ field: 'organizations', message: 'must be a non-empty array of organization ids' });
  const maxRole = body.max_role ?? 'unlimited';
  if (typeof maxRole !== 'string' || !(MAX_ROLES as readonly string[]).includes(maxRole)) errors.push({ field: 'max_role', message: `must be one of: ${MAX_ROLES.join(', ')}` });
  if (errors.length) throw validationFailed(errors);
  const known = await manager.count(OrganizationEntity, { id: { $in: orgs as string[] } });
  if (known !== new Set(orgs as string[]).size) throw validationFailed([{ field: 'organizations', message: 'names an organization that does not exist' }]);
  const { token, row } = newPersonalToken({ userId, name: body.name as string, organizations: orgs as string[], maxRole: maxRole as MaxRole, now: services.clock.now() });
  await manager.insert(PersonalTokenEntity, row);
  return { id: row.id, token };
}
