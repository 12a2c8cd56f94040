/**
 * Operator operations: organizations, plans and features, API keys, webhook tokens. What a hosted service
 * does in its own back office, for a self-hosted operator and for black-box tests.
 */
import { sqlExecutor } from '../persistence/sql.ts';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/sql';
import { ApiError, notFound, validationFailed, type FieldError } from '../errors.ts';
import { generateToken, hashToken } from '../crypto.ts';
import { isFeature, isPlan, hasFeature, FEATURES } from '../plans.ts';
import { checkScopes, endpointOfScopes, API_KEY_PREFIX, WEBHOOK_TOKEN_PREFIX } from '../auth/credentials.ts';
import { organizationFromRow } from '../auth/authenticate.ts';
import { endSessionsIn } from '../auth/sessions.ts';
import { ApiKeyEntity, OrganizationEntity } from '../persistence/entities.ts';
import type { Organization } from '../auth/caller.ts';
import type { Services } from '../services.ts';
import { isPlainObject } from '../validation.ts';
import { mergeFlags } from './organization-flags.ts';

export const WEBHOOK_GRACE_MS = 72 * 60 * 60 * 1000;

type Body = Record<string, unknown>;
const em = (services: Services) => services.db.em.fork() as EntityManager;

function requireString(body: Body, field: string, errors: FieldError[], max = 200): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '' || value.length > max) errors.push({ field, message: `must be a non-empty string of at most ${max} characters` });
  return typeof value === 'string' ? value.trim() : '';
}

export function webhookUrls(services: Services, token: string): Record<string, string> {
  return Object.fromEntries(services.config.webhookSources.map(({ segment }) => [segment, `${services.config.publicUrl}/webhooks/${segment}/${token}`]));
}

export async function organizationView(services: Services, id: string): Promise<Body> {
  const row = (await em(services).findOne(OrganizationEntity, { id }, { disableIdentityMap: true })) as Body | null;
  if (!row) throw notFound('organization');
  const org = organizationFromRow(row);
  const token = services.secrets.open(String(row.webhook_token_sealed));
  return {
    id: org.id,
    name: org.name,
    plan: org.plan,
    disabled: org.disabled,
    features: Object.fromEntries(Object.keys(FEATURES).map((f) => [f, hasFeature(org.plan, org.features, f as never)])),
    feature_overrides: org.features,
    flags: row.flags ?? {},
    webhook_token: token,
    webhook_urls: webhookUrls(services, token),
    previous_webhook_token_valid_until: row.previous_valid_until ? (row.previous_valid_until as Date).toISOString() : null,
    created_at: (row.created_at as Date).toISOString(),
  };
}

/** Every organization, oldest first: what `vigil org list` shows. No webhook token: it is a credential (`org show` gives it). */
export async function listOrganizations(services: Services): Promise<Body> {
  const rows = (await em(services).find(OrganizationEntity, {}, { orderBy: { created_at: 'asc', id: 'asc' }, disableIdentityMap: true })) as Body[];
  const data = rows.map((row) => ({ id: row.id, name: row.name, plan: row.plan, disabled: row.disabled, created_at: (row.created_at as Date).toISOString() }));
  return { data };
}

/** An organization's API keys, newest first: id, name, scopes and times only; a key is never stored, only its hash, and the hash is not answered. */
export async function listApiKeys(services: Services, organizationId: string): Promise<Body> {
  const manager = em(services);
  if (!(await manager.findOne(OrganizationEntity, { id: organizationId }, { disableIdentityMap: true }))) throw notFound('organization');
  const rows = (await manager.find(ApiKeyEntity, { organization_id: organizationId }, { orderBy: { created_at: 'desc', id: 'asc' }, disableIdentityMap: true })) as Body[];
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : null);
  const data = rows.map((row) => ({ id: row.id, name: row.name, scopes: row.scopes, created_at: iso(row.created_at), revoked_at: iso(row.revoked_at) }));
  return { data };
}

export async function createOrganization(services: Services, body: unknown): Promise<Body> {
  if (!isPlainObject(body)) throw validationFailed([{ field: 'body', message: 'must be a JSON object' }]);
  const errors: FieldError[] = [];
  const name = requireString(body, 'name', errors);
  const plan = body.plan ?? 'business';
  if (!isPlan(plan)) errors.push({ field: 'plan', message: 'must be one of: free, team, business, enterprise' });
  if (errors.length) throw validationFailed(errors);
  const token = generateToken(WEBHOOK_TOKEN_PREFIX);
  const now = services.clock.now();
  const id = randomUUID();
  await em(services).insert(OrganizationEntity, {
    id, name, plan, disabled: false, features: {}, flags: {},
    webhook_token_sealed: services.secrets.seal(token), webhook_token_hash: hashToken(token),
    previous_webhook_token_hash: null, previous_valid_until: null, created_at: now, updated_at: now,
  });
  return organizationView(services, id);
}

export async function patchOrganization(services: Services, id: string, body: unknown): Promise<Body> {
  if (!isPlainObject(body)) throw validationFailed([{ field: 'body', message: 'must be a JSON object' }]);
  const manager = em(services);
  const row = (await manager.findOne(OrganizationEntity, { id }, { disableIdentityMap: true })) as Body | null;
  if (!row) throw notFound('organization');
  const errors: FieldError[] = [];
  const changes: Body = {};
  for (const key of Object.keys(body)) if (!['name', 'plan', 'disabled', 'features', 'flags'].includes(key)) errors.push({ field: key, message: 'is not a field of an organization' });
  if ('name' in body) changes.name = requireString(body, 'name', errors);
  if ('plan' in body) {
    if (isPlan(body.plan)) changes.plan = body.plan;
    else errors.push({ field: 'plan', message: 'must be one of: free, team, business, enterprise' });
  }
  if ('disabled' in body) {
    if (typeof body.disabled === 'boolean') changes.disabled = body.disabled;
    else errors.push({ field: 'disabled', message: 'must be true or false' });
  }
  if ('features' in body) {
    const features = body.features;
    if (!isPlainObject(features)) errors.push({ field: 'features', message: 'must be an object of feature: true | false | null' });
    else {
      const next = { ...(row.features as Body) };
      for (const [feature, on] of Object.entries(features)) {
        if (!isFeature(feature)) errors.push({ field: `features.${feature}`, message: `is not a feature (${Object.keys(FEATURES).join(', ')})` });
        else if (on === null) delete next[feature];
        else if (typeof on === 'boolean') next[feature] = on;
        else errors.push({ field: `features.${feature}`, message: 'must be true, false or null (back to the plan)' });
      }
      changes.features = next;
    }
  }
  if ('flags' in body) {
    const merged = mergeFlags((row.flags ?? {}) as Body, body.flags, services.config.webhookSources.map((s) => s.segment));
    errors.push(...merged.errors);
    changes.flags = merged.flags;
  }
  if (errors.length) throw validationFailed(errors);
  await manager.nativeUpdate(OrganizationEntity, { id }, { ...changes, updated_at: services.clock.now() });
  // a disabled organization's console sessions end now (a session checks its organization on every request too)
  if (changes.disabled === true) await endSessionsIn(sqlExecutor(services.db), id);
  return organizationView(services, id);
}

export async function createApiKey(services: Services, organizationId: string, body: unknown): Promise<Body> {
  if (!isPlainObject(body)) throw validationFailed([{ field: 'body', message: 'must be a JSON object' }]);
  const manager = em(services);
  const row = (await manager.findOne(OrganizationEntity, { id: organizationId }, { disableIdentityMap: true })) as Body | null;
  if (!row) throw notFound('organization');
  const errors: FieldError[] = [];
  const name = requireString(body, 'name', errors);
  errors.push(...checkScopes(body.scopes));
  if (errors.length) throw validationFailed(errors);
  const scopes = body.scopes as string[];
  const org = organizationFromRow(row);
  const feature = endpointOfScopes(scopes) === 'mcp' ? 'mcp' : 'config_api';
  if (!hasFeature(org.plan, org.features, feature)) {
    throw new ApiError('plan_required', `${feature === 'mcp' ? 'The agent-tool server' : 'The configuration API'} is not included in the ${org.plan} plan, so its scopes cannot be granted.`);
  }
  const key = generateToken(API_KEY_PREFIX);
  const id = randomUUID();
  await manager.insert(ApiKeyEntity, { id, organization_id: organizationId, name, scopes, key_hash: hashToken(key), created_at: services.clock.now(), revoked_at: null });
  return { id, name, scopes, key };
}

export async function revokeApiKey(services: Services, organizationId: string, keyId: string): Promise<void> {
  const count = await em(services).nativeUpdate(ApiKeyEntity, { id: keyId, organization_id: organizationId, revoked_at: null }, { revoked_at: services.clock.now() });
  if (count === 0) throw notFound('active API key');
}

export async function rotateWebhookToken(services: Services, organizationId: string): Promise<Body> {
  const manager = em(services);
  const row = (await manager.findOne(OrganizationEntity, { id: organizationId }, { disableIdentityMap: true })) as Body | null;
  if (!row) throw notFound('organization');
  const token = generateToken(WEBHOOK_TOKEN_PREFIX);
  const now = services.clock.now();
  const validUntil = new Date(now.getTime() + WEBHOOK_GRACE_MS);
  await manager.nativeUpdate(OrganizationEntity, { id: organizationId }, {
    webhook_token_sealed: services.secrets.seal(token), webhook_token_hash: hashToken(token),
    previous_webhook_token_hash: row.webhook_token_hash, previous_valid_until: validUntil, updated_at: now,
  });
  return { webhook_token: token, webhook_urls: webhookUrls(services, token), previous_valid_until: validUntil.toISOString() };
}

export async function revokePreviousWebhookToken(services: Services, organizationId: string): Promise<void> {
  const count = await em(services).nativeUpdate(OrganizationEntity, { id: organizationId }, { previous_webhook_token_hash: null, previous_valid_until: null });
  if (count === 0) throw notFound('organization');
}

/**
 * The organization a webhook token selects (current, or previous inside its grace), with one query; or null.
 * `also` is a scalar subquery the caller needs in the same round trip (it may name the organization as `o`);
 * `current` is false for a previous token inside its grace.
 */
export async function organizationByWebhookToken(
  services: Services,
  token: string,
  also?: { sql: string; params: unknown[] },
): Promise<{ organization: Organization; also: unknown; current: boolean } | null> {
  const hash = hashToken(token);
  const [row] = await sqlExecutor(services.db)(
    `select o.id, o.name, o.plan, o.disabled, o.features, o.flags, ${also ? `(${also.sql})` : 'null'} as also,
            o.webhook_token_hash = ? as current from organizations o
      where o.disabled = false and (o.webhook_token_hash = ? or (o.previous_webhook_token_hash = ? and o.previous_valid_until > ?))`,
    [...(also?.params ?? []), hash, hash, hash, services.clock.now()],
  );
  return row ? { organization: organizationFromRow(row), also: row.also, current: row.current === true } : null;
}
