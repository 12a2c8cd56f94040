/**
 * The deployment's own OpenID Connect provider (`VIGIL_OIDC_*`, read and checked in bin/env.ts), declared on the
 * engine's ServiceConfig, and the reading of a role-mapping list (`group=role,…`), which is pure and shared.
 */
import { ROLES, isRole, type Role } from '../../../engine/plans.ts';

export interface OidcSettings {
  /** the issuer URL; discovery reads `<issuer>/.well-known/openid-configuration` */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** requested scopes; always holds `openid` */
  scopes: readonly string[];
  /** the organization people join: its id or its exact name */
  organization: string;
  /** the ID token or userinfo claim that holds the person's groups */
  groupsClaim: string;
  /** group → role; the highest role mapped from a person's groups wins */
  roleMappings: ReadonlyMap<string, Role>;
  /** the role of a person no mapping names; null refuses them */
  defaultRole: Role | null;
  /** email domains accepted (lower case); empty: any domain the provider vouches for */
  allowedDomains: readonly string[];
  /** what the sign-in page's link says: "Sign in with <name>" */
  name: string;
}

declare module '../../../engine/config.ts' {
  interface ServiceConfig {
    /** the deployment's OpenID Connect provider; absent: password and sign-in link only */
    oidc?: OidcSettings;
  }
}

/**
 * `group=role,…` as a map, or a sentence saying what is wrong (never repeating the whole value). A group may hold
 * any character but `,` and `=`; blanks around each part are dropped; a group named twice is refused.
 */
export function parseRoleMappings(value: string): Map<string, Role> | string {
  const mappings = new Map<string, Role>();
  for (const part of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.lastIndexOf('=');
    const group = part.slice(0, eq).trim();
    const role = part.slice(eq + 1).trim();
    if (eq <= 0 || !group) return `each entry must be group=role (entry ${mappings.size + 1} is not)`;
    if (!isRole(role)) return `the role of entry ${mappings.size + 1} must be one of ${ROLES.join(', ')}`;
    if (mappings.has(group)) return `entry ${mappings.size + 1} names a group already mapped`;
    mappings.set(group, role);
  }
  return mappings;
}

/** The role a person's groups map to (the highest), else the default; null when neither gives one. */
export function mappedRole(groups: readonly string[], mappings: ReadonlyMap<string, Role>, defaultRole: Role | null): Role | null {
  let best: Role | null = null;
  for (const group of groups) {
    const role = mappings.get(group);
    if (role && (best === null || ROLES.indexOf(role) > ROLES.indexOf(best))) best = role;
  }
  return best ?? defaultRole;
}
