import Type from 'typebox';
import { defineFamily, nullable, type Rule } from '../engine/descriptor.ts';
import { ROLES } from '../engine/plans.ts';
import { targetUrl } from '../engine/targets.ts';

/**
 * The organization's own OpenID Connect provider (issue 39): people whose email domain is one of `allowed_domains`
 * sign in through it (web/console/sso/), become members just in time with the role their groups map to, and lose
 * access when their groups no longer map. One row per organization.
 */

const role = Type.Union(ROLES.map((r) => Type.Literal(r)));

const DOMAIN = '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$';

const providerComplete: Rule = {
  description: 'while issuer is set, client_id, client_secret and at least one of allowed_domains must be set too',
  fields: ['issuer', 'client_id', 'client_secret', 'allowed_domains'],
  check: (row) => {
    if (row.issuer == null) return [];
    const missing = ['client_id', 'client_secret'].filter((f) => row[f] == null);
    if (!Array.isArray(row.allowed_domains) || row.allowed_domains.length === 0) missing.push('allowed_domains');
    return missing.map((field) => ({ field, message: 'is required while issuer is set (the provider cannot be used without it)' }));
  },
};

const passwordNeedsProvider: Rule = {
  description: 'password_sign_in may be false only while issuer is set (members would have no way to sign in)',
  fields: ['password_sign_in', 'issuer'],
  check: (row) => (row.password_sign_in === false && row.issuer == null ? [{ field: 'password_sign_in', message: 'may be false only while issuer is set: members would have no way to sign in' }] : []),
};

export default defineFamily({
  name: 'sso_settings',
  singular: 'sso_settings',
  description:
    'The organization\'s own single sign-on provider (OpenID Connect, authorization code flow with PKCE). The sign-in page asks for an email ' +
    'and sends a person whose email domain is one of `allowed_domains` to `issuer` (discovery and keys are fetched through the guarded outbound ' +
    'client, under the deployment\'s outbound address policy). A domain belongs to at most one organization of the deployment: a domain another ' +
    'organization claims is refused with 422 naming `allowed_domains` (and nothing about that organization). The provider must vouch for the ' +
    'email (`email_verified` true). At each sign-in the person\'s groups (the claim `groups_claim`; a leading / is dropped) are looked up in ' +
    '`role_mappings` (group → viewer, member or org_admin; the highest wins), else `default_role`; with neither the sign-in is refused and any ' +
    'membership of the person here is removed and their sessions here end. A person the provider vouches for becomes a user and a member on ' +
    'first sign-in. `password_sign_in` false stops members below org_admin from signing in here with a password (org admins keep it for ' +
    'break-glass, and the operator\'s sign-in links always work). `client_secret` is write-only and sealed: answered only as `client_secret_set`, ' +
    'in the audit log only as (set), (changed) or (cleared); omitted keeps it, null removes it. Register at the provider the redirect URI ' +
    '`<PUBLIC_URL>/login/oidc/callback`. Reading needs the viewer role, changing the org admin role.',
  kind: 'singleton',
  operations: ['read', 'update'],
  roles: { update: 'org_admin' },
  uniqueAcrossOrganizations: ['allowed_domains'],
  fields: {
    issuer: nullable(targetUrl('outbound'), { default: null, description: 'the provider\'s issuer (discovery reads <issuer>/.well-known/openid-configuration); null: no provider' }),
    client_id: nullable(Type.String({ minLength: 1, maxLength: 255 }), { default: null, description: 'the client id registered at the provider' }),
    client_secret: nullable(Type.String({ minLength: 1, maxLength: 512, format: 'password' }), {
      writeOnly: true,
      description: 'write-only: the client secret registered at the provider; omitted keeps it; null removes it',
    }),
    client_secret_set: Type.Boolean({ readOnly: true, description: 'whether a client secret is stored' }),
    provider_name: Type.String({ minLength: 1, maxLength: 60, default: 'your identity provider', description: 'what the sign-in page\'s button says: "Sign in with <provider_name>"' }),
    allowed_domains: Type.Array(Type.String({ maxLength: 253, pattern: DOMAIN, 'x-format-description': 'a lower-case domain name such as example.com' }), {
      default: [],
      maxItems: 50,
      uniqueItems: true,
      description: 'the email domains whose people sign in through this provider (lower case); each belongs to one organization of the deployment',
    }),
    groups_claim: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_:./-]+$', default: 'groups', description: 'the ID token or userinfo claim holding the person\'s groups (a dotted path reaches into an object)' }),
    role_mappings: Type.Record(Type.String({ minLength: 1, maxLength: 200 }), role, {
      default: {},
      maxProperties: 200,
      description: 'group → role (viewer, member, org_admin); the highest role a person\'s groups map to wins',
    }),
    default_role: nullable(role, { default: null, description: 'the role of a person no mapping names; null refuses them' }),
    password_sign_in: Type.Boolean({ default: true, description: 'whether members below org_admin may sign in with a password' }),
    updated_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, description: 'null until the settings are first saved' }),
  },
  presence: { client_secret_set: 'client_secret' },
  rules: [providerComplete, passwordNeedsProvider],
  examples: {
    valid: [],
    invalid: [
      { body: { client_secret: 's'.repeat(513) }, field: 'client_secret' },
      { body: { issuer: 'https://login.example.com', client_id: null }, field: 'client_id' },
      { body: { issuer: 'ftp://login.example.com' }, field: 'issuer' },
      { body: { allowed_domains: ['Example.COM'] }, field: 'allowed_domains[0]' },
      { body: { role_mappings: { sre: 'owner' } }, field: 'role_mappings.sre' },
      { body: { default_role: 'admin' }, field: 'default_role' },
      { body: { password_sign_in: false }, field: 'password_sign_in' },
    ],
    // no domains here: the shared suites apply this body in several organizations of one deployment
    update: { client_id: 'vigil', client_secret: 'an-sso-client-secret-0123456789', groups_claim: 'roles', role_mappings: { sre: 'member', admins: 'org_admin' }, default_role: 'viewer' },
  },
});
