/**
 * The one way a row leaves the engine. Every outward representation (REST and MCP answers, the data of
 * 409/412 errors, audit entries, exports) is built from the readable fields only: write-only values are
 * never copied, and their presence flags are derived from what is stored.
 */
import { createHash } from 'node:crypto';
import type { FamilyDescriptor, ProjectionContext, Row } from '../descriptor.ts';
import type { FamilyStore } from '../persistence/store.ts';
import type { Registry } from '../registry.ts';
import { SecretBox } from '../crypto.ts';
import { maskCredentialFields } from '../credential-url.ts';
import { isWriteOnly, planFields, unwrapNullable } from '../fields.ts';
import type { ServiceConfig } from '../config.ts';

function outward(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

const NO_REFERENCES = () => [];

/**
 * `maskCredentials`: URLs that carry a credential (fields declared with `credentialUrl`) are masked — for a caller who
 * cannot write the family, and in exports.
 */
export function project(d: FamilyDescriptor, row: Row, base: { now: Date; config: ServiceConfig; referenced?: (row: Row, field: string) => Row[]; maskCredentials?: boolean }): Row {
  const out: Row = {};
  const ctx: ProjectionContext = { now: base.now, config: base.config, referenced: base.referenced ? (field) => base.referenced!(row, field) : NO_REFERENCES };
  for (const [name, schema] of Object.entries(d.fields)) {
    if (isWriteOnly(schema)) continue;
    const computed = d.computed?.[name];
    const presenceOf = d.presence?.[name];
    if (computed) out[name] = outward(computed(row, ctx));
    else if (presenceOf) out[name] = row[presenceOf] !== null && row[presenceOf] !== undefined;
    else if (row[name] === null || row[name] === undefined) out[name] = d.fallbacks?.[name] ?? null;
    else out[name] = base.maskCredentials ? maskCredentialFields(unwrapNullable(schema).inner, outward(row[name])) : outward(row[name]);
  }
  return out;
}

/** A row as it stands before anything is stored: schema defaults, nulls elsewhere. */
export function defaultRow(d: FamilyDescriptor): Row {
  const row: Row = { id: null, created_at: null, updated_at: null };
  for (const name of planFields(d).stored) {
    const schema = d.fields[name] as unknown as Record<string, unknown>;
    row[name] = 'default' in schema ? structuredClone(schema.default) : defaultFor(d, name);
  }
  return row;
}

function defaultFor(d: FamilyDescriptor, name: string): unknown {
  const { inner } = unwrapNullable(d.fields[name]!);
  return inner.type === 'array' ? [] : null;
}

/** Canonical JSON (sorted keys), so equal values hash and compare equal. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Row)[k]]));
    }
    return v;
  });
}

/** The configuration a caller can set, with secrets as their keyed digests: what the ETag follows. */
export function settableConfig(d: FamilyDescriptor, row: Row): Row {
  const config: Row = {};
  for (const name of planFields(d).writable) {
    const value = row[name] ?? null;
    config[name] = isWriteOnly(d.fields[name]!) && typeof value === 'string' ? `digest:${SecretBox.digestOf(value)}` : value;
  }
  return config;
}

export function etagOf(d: FamilyDescriptor, row: Row): string {
  return `"${createHash('sha256').update(canonical(settableConfig(d, row))).digest('base64url').slice(0, 27)}"`;
}

/**
 * Strong comparison against an `If-Match` header (or the agent tools' `if_match`); `*` matches any stored row. An
 * entity tag is quoted (RFC 9110), but clients and agents often pass the bare value they read: a tag sent without its
 * quotes is the same tag, not a stale one.
 */
export function ifMatchHolds(header: string | undefined, current: string): boolean {
  if (header === undefined) return true;
  const tags = header.split(',').map((t) => t.trim()).map((t) => (t === '*' || /^"[^"]*"$/.test(t) ? t : `"${t}"`));
  return tags.includes('*') || tags.includes(current);
}

/**
 * For families whose computed fields read referenced rows: loads every referenced row of `rows` with one
 * query per referenced family, and answers the lookup `project` hands to computed fields.
 */
export async function referenceLoader(registry: Registry, store: FamilyStore, d: FamilyDescriptor, organizationId: string, rows: Row[]) {
  if (!d.computed || !d.references) return undefined;
  const loaded = new Map<string, Map<unknown, Row>>();
  for (const [field, ref] of Object.entries(d.references)) {
    const ids = [...new Set(rows.flatMap((r) => (Array.isArray(r[field]) ? (r[field] as unknown[]) : [r[field]])).filter((v) => typeof v === 'string'))];
    const target = registry.get(ref.family)!;
    const found = await store.byIds(target, organizationId, ids);
    loaded.set(field, new Map(found.map((r) => [r.id, r])));
  }
  return (row: Row, field: string): Row[] => {
    const byId = loaded.get(field);
    const value = row[field];
    const ids = Array.isArray(value) ? value : [value];
    return byId ? ids.map((id) => byId.get(id)).filter((r): r is Row => r !== undefined) : [];
  };
}
