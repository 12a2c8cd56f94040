/** Plan, operation, feature and role checks, in the order the spec fixes. */
import type { Caller } from '../auth/caller.ts';
import { DEFAULT_ROLES, type FamilyDescriptor, type OperationName } from '../descriptor.ts';
import { ApiError } from '../errors.ts';
import { FEATURES, hasFeature, roleAtLeast, type Feature, type Role } from '../plans.ts';

/** Scopes that can only read: a write with one is refused as `read_only_key`. */
const READ_ONLY_SCOPES = new Set(['api:config_read', 'mcp:read']);

export function requireFeature(caller: Caller, feature: Feature): void {
  const org = caller.organization;
  if (!hasFeature(org.plan, org.features, feature)) {
    const label = FEATURES[feature].label;
    throw new ApiError('plan_required', `${label[0]!.toUpperCase()}${label.slice(1)} is not included in the ${org.plan} plan.`, {
      extra: { feature },
    });
  }
}

/** The endpoint's own feature (`config_api`, `mcp`); the console needs none. */
export function requireEndpoint(caller: Caller): void {
  if (caller.endpointFeature) requireFeature(caller, caller.endpointFeature);
}

export function requireRole(caller: Caller, need: Role, write = true): void {
  if (roleAtLeast(caller.role, need)) return;
  if (write && caller.credential.kind === 'api_key' && caller.credential.scopes.every((s) => READ_ONLY_SCOPES.has(s))) {
    throw new ApiError('read_only_key', 'This key is read-only; use a key with a write scope for this operation.');
  }
  throw new ApiError('forbidden', `This operation needs the ${need} role; the caller has ${caller.role}.`);
}

/** Whether the caller may change the family's rows (update, else create): who may see its credential URLs whole. */
export function canWrite(caller: Caller, family: FamilyDescriptor): boolean {
  const op = family.operations.includes('update') ? 'update' : 'create';
  return roleAtLeast(caller.role, family.roles?.[op] ?? DEFAULT_ROLES[op]);
}

const METHOD_OF: Record<OperationName, string> = { list: 'GET', read: 'GET', create: 'POST', update: 'PUT', delete: 'DELETE' };

export function authorize(caller: Caller, family: FamilyDescriptor, op: OperationName): void {
  requireEndpoint(caller);
  if (!family.operations.includes(op)) {
    const allowed = [...new Set(family.operations.map((o) => METHOD_OF[o]))];
    throw new ApiError('method_not_allowed', `${family.name} does not support ${op}; it supports ${family.operations.join(', ')}.`, {
      extra: { allowed },
      headers: { Allow: allowed.join(', ') },
    });
  }
  const feature = family.features?.[op];
  if (feature) requireFeature(caller, feature);
  requireRole(caller, family.roles?.[op] ?? DEFAULT_ROLES[op], op !== 'list' && op !== 'read');
}

/** Fields only a user credential may write (for example sign-up policies). */
export function checkUserTokenFields(caller: Caller, family: FamilyDescriptor, body: unknown): void {
  if (caller.credential.kind === 'personal_token' || caller.credential.kind === 'session' || !body || typeof body !== 'object') return;
  const named = (family.userTokenFields ?? []).filter((f) => f in (body as object));
  if (named.length) {
    throw new ApiError('user_token_required', `${named.join(' and ')} can only be changed with a personal access token (a user), not an organization key.`, {
      errors: named.map((field) => ({ field, message: 'needs a user token' })),
    });
  }
}
