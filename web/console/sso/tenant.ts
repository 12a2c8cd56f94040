/**
 * An organization's own OpenID Connect provider (resources/sso_settings.ts): found by an email's domain or by the
 * organization, with its sealed client secret opened here (and handed only to the provider's token endpoint), and
 * its `OidcClient`, whose every request (discovery, JWKS, token, userinfo) goes through the guarded outbound client:
 * the issuer is an address an organization chose.
 */
import type * as client from 'openid-client';
import { isRole, type Role } from '../../../engine/plans.ts';
import { tableName } from '../../../engine/persistence/entities.ts';
import { sqlExecutor } from '../../../engine/persistence/sql.ts';
import type { Services } from '../../../engine/services.ts';
import { outboundHttp } from '../../../outbound/net/http.ts';
import ssoSettings from '../../../resources/sso_settings.ts';
import { OidcClient } from './oidc.ts';

export interface TenantProvider {
  organizationId: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  name: string;
  allowedDomains: readonly string[];
  groupsClaim: string;
  roleMappings: ReadonlyMap<string, Role>;
  defaultRole: Role | null;
  passwordSignIn: boolean;
  /** the stored row's version: a changed row gets a new client (and discovery) */
  version: number;
}

const COLUMNS = ['organization_id', 'issuer', 'client_id', 'client_secret', 'provider_name', 'allowed_domains', 'groups_claim', 'role_mappings', 'default_role', 'password_sign_in', 'row_version'];
const columns = (alias: string) => COLUMNS.map((c) => `${alias}.${c}`).join(', ');
/** a token endpoint's or discovery's answer is small; more is refused */
const MAX_ANSWER_BYTES = 256 * 1024;
const TIMEOUT_MS = 10_000;

function providerOf(services: Services, row: Record<string, unknown>): TenantProvider | null {
  if (typeof row.issuer !== 'string' || typeof row.client_id !== 'string' || typeof row.client_secret !== 'string') return null;
  const parse = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);
  const domains = parse(row.allowed_domains);
  const mappings = parse(row.role_mappings) ?? {};
  return {
    organizationId: String(row.organization_id),
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: services.secrets.open(row.client_secret),
    name: typeof row.provider_name === 'string' ? row.provider_name : 'your identity provider',
    allowedDomains: Array.isArray(domains) ? domains.map(String) : [],
    groupsClaim: typeof row.groups_claim === 'string' ? row.groups_claim : 'groups',
    roleMappings: new Map(Object.entries(mappings as Record<string, unknown>).filter((e): e is [string, Role] => isRole(e[1]))),
    defaultRole: isRole(row.default_role) ? row.default_role : null,
    passwordSignIn: row.password_sign_in !== false,
    version: Number(row.row_version ?? 0),
  };
}

/** The family's table; null when the service runs without the family (a test serving a few families). */
function table(services: Services): string | null {
  const family = services.registry.get(ssoSettings.name);
  return family ? `"${tableName(family)}"` : null;
}

/** The provider of the organization that claims this email's domain (a domain belongs to one organization), or null. */
export async function providerForEmail(services: Services, email: string): Promise<TenantProvider | null> {
  const normal = email.trim().toLowerCase();
  const domain = normal.slice(normal.lastIndexOf('@') + 1);
  const from = table(services);
  if (!normal.includes('@') || !domain || !from) return null;
  const rows = await sqlExecutor(services.db)(
    `select ${columns('s')} from ${from} s join organizations o on o.id = s.organization_id
      where s.allowed_domains @> ?::jsonb and s.issuer is not null and o.disabled = false limit 1`,
    [JSON.stringify([domain])],
  );
  return rows[0] ? providerOf(services, rows[0]) : null;
}

/** The organization's provider, or null when it has none set up. */
export async function providerOfOrganization(services: Services, organizationId: string): Promise<TenantProvider | null> {
  const from = table(services);
  if (!from) return null;
  const rows = await sqlExecutor(services.db)(`select ${columns('s')} from ${from} s where organization_id = ? and id = ?`, [organizationId, organizationId]);
  return rows[0] ? providerOf(services, rows[0]) : null;
}

/** Whether any organization of the deployment has its own provider (the sign-in page then offers single sign-on). */
export async function anyTenantProvider(services: Services): Promise<boolean> {
  const from = table(services);
  return from !== null && (await sqlExecutor(services.db)(`select 1 from ${from} where issuer is not null limit 1`, [])).length > 0;
}

/** Of the organizations given, those whose settings refuse a password sign-in to a person with that role. */
export async function passwordRefusedIn(services: Services, memberships: readonly { organizationId: string; role: Role }[]): Promise<Set<string>> {
  const below = memberships.filter((m) => m.role !== 'org_admin').map((m) => m.organizationId);
  const from = table(services);
  if (!below.length || !from) return new Set();
  const rows = await sqlExecutor(services.db)(
    `select organization_id from ${from} where organization_id in (${below.map(() => '?').join(', ')}) and password_sign_in = false and issuer is not null`,
    below,
  );
  return new Set(rows.map((r) => String(r.organization_id)));
}

/** `fetch` for openid-client through the guarded outbound client: address policy, pinned connection, no redirect. */
export function guardedFetch(services: Services): client.CustomFetch {
  const http = outboundHttp(services);
  return async (url, options) => {
    const body = options.body;
    const answer = await http.request({
      url,
      method: options.method,
      headers: options.headers,
      body: body === undefined || body === null ? undefined : typeof body === 'string' ? body : body instanceof URLSearchParams ? body.toString() : Buffer.from(body as ArrayBuffer),
      purpose: 'single sign-on provider',
      timeoutMs: TIMEOUT_MS,
      maxRedirects: 0,
      maxResponseBytes: MAX_ANSWER_BYTES,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
    const empty = answer.status === 204 || answer.status === 304 || answer.status < 200;
    return new Response(empty ? null : new Uint8Array(answer.body), { status: answer.status, headers });
  };
}

/** One client per organization and stored settings, so discovery is cached between sign-ins. */
export class TenantClients {
  readonly #clients = new Map<string, { version: number; issuer: string; client: OidcClient }>();
  readonly #services: Services;

  constructor(services: Services) {
    this.#services = services;
  }

  for(provider: TenantProvider): OidcClient {
    const held = this.#clients.get(provider.organizationId);
    if (held && held.version === provider.version && held.issuer === provider.issuer) return held.client;
    const made = new OidcClient(
      { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, scopes: ['openid', 'email', 'profile'], scopesIfSupported: ['groups'], groupsClaim: provider.groupsClaim },
      this.#services.clock,
      guardedFetch(this.#services),
    );
    this.#clients.set(provider.organizationId, { version: provider.version, issuer: provider.issuer, client: made });
    return made;
  }
}
