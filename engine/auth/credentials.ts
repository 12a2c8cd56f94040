/** Credential formats and scopes (DESIGN.md "Credentials"). */
import type { Role } from '../plans.ts';
import type { FieldError } from '../errors.ts';

export const API_KEY_PREFIX = 'vigil_ak_';
export const PERSONAL_TOKEN_PREFIX = 'vigil_pat_';
export const WEBHOOK_TOKEN_PREFIX = 'vigil_wh_';

/** Each scope acts as a role; the configuration API takes `api:*` scopes, the agent-tool endpoint `mcp:*`. */
export const SCOPE_ROLES: Record<string, { endpoint: 'rest' | 'mcp'; role: Role }> = {
  'api:config_read': { endpoint: 'rest', role: 'viewer' },
  'api:admin': { endpoint: 'rest', role: 'org_admin' },
  'mcp:read': { endpoint: 'mcp', role: 'viewer' },
  'mcp:write': { endpoint: 'mcp', role: 'member' },
  'mcp:admin': { endpoint: 'mcp', role: 'org_admin' },
};

/** A scope's entry, own keys only: "toString" or "__proto__" is no scope. */
function scopeOf(scope: string): { endpoint: 'rest' | 'mcp'; role: Role } | undefined {
  return Object.hasOwn(SCOPE_ROLES, scope) ? SCOPE_ROLES[scope] : undefined;
}

/** Field errors for a key's scopes: known, one endpoint only, and `api:config_read` alone. */
export function checkScopes(scopes: unknown): FieldError[] {
  if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((s) => typeof s === 'string')) {
    return [{ field: 'scopes', message: `must be a non-empty array of scopes (${Object.keys(SCOPE_ROLES).join(', ')})` }];
  }
  const unknown = scopes.filter((s) => !scopeOf(s));
  if (unknown.length) return [{ field: 'scopes', message: `holds unknown scopes; known: ${Object.keys(SCOPE_ROLES).join(', ')}` }];
  const endpoints = new Set(scopes.map((s) => scopeOf(s)!.endpoint));
  if (endpoints.size > 1) return [{ field: 'scopes', message: 'cannot mix api:* and mcp:* scopes; a key works at one endpoint' }];
  if (scopes.includes('api:config_read') && scopes.length > 1) return [{ field: 'scopes', message: 'api:config_read cannot be combined with another scope' }];
  return [];
}

export function endpointOfScopes(scopes: readonly string[]): 'rest' | 'mcp' | undefined {
  return scopeOf(scopes[0] ?? '')?.endpoint;
}

/** The highest role among a key's scopes. */
export function roleOfScopes(scopes: readonly string[]): Role {
  const order: Role[] = ['viewer', 'member', 'org_admin'];
  return scopes.map((s) => scopeOf(s)?.role ?? 'viewer').reduce((a, b) => (order.indexOf(b) > order.indexOf(a) ? b : a), 'viewer' as Role);
}
