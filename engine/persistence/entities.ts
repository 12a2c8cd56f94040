/**
 * Tables. The service's own tables are declared here; every family's table is derived from its descriptor:
 * one column per stored field, `organization_id` on every row, and a unique index for the natural key so
 * two racing creates cannot both win.
 */
import { EntitySchema } from '@mikro-orm/core';
import type { FamilyDescriptor } from '../descriptor.ts';
import { columnFor, isListField, planFields } from '../fields.ts';
import { jsonb, optionalTime as nullableTimestamp, text, time as timestamp, uuid } from './columns.ts';

export const OrganizationEntity = new EntitySchema<any>({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: { ...uuid, primary: true },
    name: text,
    plan: text,
    disabled: { type: 'boolean', default: false },
    features: { ...jsonb, default: '{}' },
    flags: { ...jsonb, default: '{}' },
    webhook_token_sealed: text,
    webhook_token_hash: { ...text, unique: true },
    previous_webhook_token_hash: { ...text, nullable: true, index: true },
    previous_valid_until: nullableTimestamp,
    created_at: timestamp,
    updated_at: timestamp,
  },
});

export const ApiKeyEntity = new EntitySchema<any>({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: { ...uuid, primary: true },
    organization_id: { ...uuid, index: true },
    name: text,
    scopes: jsonb,
    key_hash: { ...text, unique: true },
    created_at: timestamp,
    revoked_at: nullableTimestamp,
  },
});

export const UserEntity = new EntitySchema<any>({
  name: 'User',
  tableName: 'users',
  properties: {
    id: { ...uuid, primary: true },
    email: { ...text, unique: true },
    name: { ...text, nullable: true },
    created_at: timestamp,
    // console sign-in (engine/auth/passwords.ts): scrypt with its salt and parameters; null until the operator sets one
    password_hash: { ...text, nullable: true },
    password_changed_at: nullableTimestamp,
  },
});

/** One-time console sign-in links (engine/auth/sessions.ts): the token stored hashed, valid 24 hours, used once. */
export const SignInLinkEntity = new EntitySchema<any>({
  name: 'SignInLink',
  tableName: 'sign_in_links',
  properties: {
    id: { ...uuid, primary: true },
    user_id: { ...uuid, index: true },
    token_hash: { ...text, unique: true },
    created_at: timestamp,
    expires_at: timestamp,
    used_at: nullableTimestamp,
  },
});

/**
 * Console sessions (engine/auth/sessions.ts): the cookie's token stored hashed, the organization chosen in the
 * switcher, and when it was last used (idle expiry).
 */
export const ConsoleSessionEntity = new EntitySchema<any>({
  name: 'ConsoleSession',
  tableName: 'console_sessions',
  properties: {
    id: { ...uuid, primary: true },
    user_id: { ...uuid, index: true },
    organization_id: uuid,
    token_hash: { ...text, unique: true },
    created_at: timestamp,
    last_seen_at: timestamp,
    // opened by single sign-on (engine/auth/sso.ts): signing out ends the session at the identity provider too
    sso: { type: 'boolean', default: false },
    // opened by an organization's own provider: the session acts in that organization only (its provider vouches for
    // the person there, not in the person's other organizations)
    confined_to: { ...uuid, nullable: true },
  },
});

/**
 * Memberships are written by the operator API and may be served as a family too (a descriptor with
 * `table: 'memberships'`): the table has a family table's system columns, and the user's email beside the id.
 */
export const MembershipEntity = new EntitySchema<any>({
  name: 'Membership',
  tableName: 'memberships',
  properties: {
    id: { ...text, primary: true },
    organization_id: { ...uuid, index: true },
    user_id: { ...uuid, index: true },
    email: text,
    role: text,
    // the same system columns as a family table, so a descriptor can serve these rows too
    row_version: { type: 'integer', default: 1 },
    created_at: timestamp,
    updated_at: timestamp,
  },
  uniques: [{ properties: ['organization_id', 'user_id'] }],
});

export const PersonalTokenEntity = new EntitySchema<any>({
  name: 'PersonalToken',
  tableName: 'personal_tokens',
  properties: {
    id: { ...uuid, primary: true },
    user_id: { ...uuid, index: true },
    name: text,
    organizations: jsonb,
    max_role: text,
    token_hash: { ...text, unique: true },
    created_at: timestamp,
    revoked_at: nullableTimestamp,
    /** when the token last authenticated a request, written at most once a minute (engine/auth/personal-token.ts) */
    last_used_at: nullableTimestamp,
  },
});

export const AuditEntryEntity = new EntitySchema<any>({
  name: 'AuditEntry',
  tableName: 'audit_log',
  properties: {
    id: { ...uuid, primary: true },
    // insertion order, so entries written in the same millisecond still list newest first
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, unique: true },
    organization_id: uuid,
    at: timestamp,
    actor_kind: text,
    actor_id: text,
    transport: text,
    family: text,
    row_id: { ...text, nullable: true },
    action: text,
    changes: jsonb,
    // the entries of one batch apply (POST /batch) share it; null for a single write
    change_id: { ...uuid, nullable: true },
  },
  // newest first per organization; and one row's entries (an incident's timeline reads the actions on it and its alerts)
  indexes: [{ properties: ['organization_id', 'seq'] }, { properties: ['organization_id', 'family', 'row_id'] }],
});

export const SystemSettingEntity = new EntitySchema<any>({
  name: 'SystemSetting',
  tableName: 'system_settings',
  properties: {
    key: { ...text, primary: true },
    value: text,
  },
});

/** Idempotency keys (operations/idempotency.ts): one claim per organization and key, its answer once done. */
export const IdempotencyKeyEntity = new EntitySchema<any>({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  properties: {
    organization_id: { ...uuid, primary: true },
    key: { ...text, primary: true },
    fingerprint: text,
    claim: uuid,
    state: text,
    // the answer as JSON text (not jsonb, which reorders keys): a replay answers the same bytes
    result: { ...text, nullable: true },
    created_at: { ...timestamp, index: true },
  },
});

export const CORE_ENTITIES = [
  OrganizationEntity, ApiKeyEntity, UserEntity, MembershipEntity, PersonalTokenEntity, AuditEntryEntity, SystemSettingEntity, IdempotencyKeyEntity,
  SignInLinkEntity, ConsoleSessionEntity,
];

export function tableName(family: FamilyDescriptor): string {
  return family.table ?? `cfg_${family.name}`;
}

export function entityName(family: FamilyDescriptor): string {
  return tableName(family).replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
}

const built = new WeakMap<FamilyDescriptor, EntitySchema>();

/** The family's table, built once per descriptor. */
/** Engine tables a family may be served from (descriptor `table`), with the columns they offer. */
export const SHARED_TABLES: Record<string, EntitySchema> = { memberships: MembershipEntity };

export function familyEntity(family: FamilyDescriptor): EntitySchema {
  if (family.table) return SHARED_TABLES[family.table]!;
  let entity = built.get(family);
  if (!entity) built.set(family, (entity = buildFamilyEntity(family)));
  return entity;
}

/** Whether the family's table holds its natural key with a unique index (one built here; a `table` of its own may not). */
export function naturalKeyIndexed(family: FamilyDescriptor): boolean {
  return !family.table && family.kind === 'collection' && Boolean(family.naturalKey?.length) && !family.naturalKeyWhile;
}

function buildFamilyEntity(family: FamilyDescriptor): EntitySchema {
  const properties: Record<string, object> = {
    // ids are unique per organization (some are natural, such as a tracker kind), so the key is the pair
    organization_id: { ...uuid, primary: true },
    id: { ...text, primary: true },
    row_version: { type: 'integer', default: 1 },
    created_at: timestamp,
    updated_at: timestamp,
  };
  for (const name of planFields(family).stored) {
    if (name in properties) continue;
    properties[name] = { ...columnFor(family.fields[name]!), nullable: !family.naturalKey?.includes(name) };
  }
  const uniques: { properties: string[] }[] = naturalKeyIndexed(family) ? [{ properties: ['organization_id', ...family.naturalKey!] }] : [];
  // a list field's values are checked under a lock (operations/checks.ts): no index holds "no element shared"
  for (const name of family.uniqueAcrossOrganizations ?? []) if (!isListField(family.fields[name]!)) uniques.push({ properties: [name] });
  return new EntitySchema<any>({
    name: entityName(family),
    tableName: tableName(family),
    properties: properties as never,
    uniques,
  });
}

/** Every table: the engine's own, each family's, and those of other parts (webhooks, …). */
export function allEntities(families: readonly FamilyDescriptor[], extra: readonly EntitySchema[] = []): EntitySchema[] {
  return [...CORE_ENTITIES, ...families.filter((f) => !f.table).map(familyEntity), ...extra];
}
