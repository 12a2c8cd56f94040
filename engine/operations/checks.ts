/** Checks that run on the row about to be stored: rules, the validate hook, references, natural keys. */
import type { FamilyDescriptor, HookContext, Row, WriteStage } from '../descriptor.ts';
import { ApiError, validationFailed, type FieldError } from '../errors.ts';
import type { FamilyStore } from '../persistence/store.ts';
import { roleAtLeast } from '../plans.ts';
import type { Services } from '../services.ts';
import type { Caller } from '../auth/caller.ts';
import { userEmail } from './context.ts';
import type { Notice } from './types.ts';
import { project } from './project.ts';
import { isListField } from '../fields.ts';

/**
 * A family's `ownRows`: below the role named there, a person writes only rows that name them (the stored row and
 * the row as it will be); refused with 403 naming the field.
 */
export async function checkOwnRow(d: FamilyDescriptor, rows: Row[], ctx: HookContext): Promise<void> {
  const own = d.ownRows;
  if (!own || (roleAtLeast(ctx.caller.role, own.role) && !ctx.caller.ownRowsOnly)) return;
  const email = await ctx.lookup.callerEmail();
  const others = rows.some((row) => String(row[own.field] ?? '').toLowerCase() !== email);
  if (!email || others) {
    throw new ApiError('forbidden', `Writing ${d.name} for someone else needs the ${own.role} role; the caller has ${ctx.caller.role} and ${own.field} must be their own email.`, {
      errors: [{ field: own.field, message: email ? `must be your own email (${own.role} writes them for anyone)` : `needs a person's credential or the ${own.role} role` }],
    });
  }
}

/**
 * Whether the caller sees only the rows of `d` that name them: a private `ownRows` family below its role, or any
 * `ownRows` family on the person's own surface (`caller.ownRowsOnly`).
 */
export function seesOwnRowsOnly(d: FamilyDescriptor, caller: Caller): boolean {
  const own = d.ownRows;
  if (!own) return false;
  return caller.ownRowsOnly === true || (own.private === true && !roleAtLeast(caller.role, own.role));
}

/** Whether `row` is one the caller may see: always, unless they see their own rows only and it names someone else. */
export async function ownRowVisible(d: FamilyDescriptor, caller: Caller, store: FamilyStore, row: Row): Promise<boolean> {
  if (!seesOwnRowsOnly(d, caller)) return true;
  const email = await userEmail(store, caller.credential.userId);
  return email !== null && String(row[d.ownRows!.field] ?? '').toLowerCase() === email;
}

export async function checkRow(d: FamilyDescriptor, row: Row, stage: WriteStage): Promise<void> {
  await checkOwnRow(d, stage.existing ? [stage.existing, row] : [row], stage.ctx);
  const errors: FieldError[] = [];
  for (const rule of d.rules ?? []) errors.push(...rule.check(row));
  if (d.hooks?.validate) errors.push(...(await d.hooks.validate(row, stage)));
  if (errors.length) throw validationFailed(errors);
}

/**
 * Ids of another family's rows: each must be a row of the caller's organization. Ids that are not (unknown
 * or another organization's, treated alike) are refused, or left out and named, as the descriptor says.
 */
export async function resolveReferences(d: FamilyDescriptor, row: Row, input: Row, ctx: HookContext, store: FamilyStore, family: (name: string) => FamilyDescriptor): Promise<{ row: Row; notices: Notice[] }> {
  const notices: Notice[] = [];
  const errors: FieldError[] = [];
  const next = { ...row };
  for (const [field, ref] of Object.entries(d.references ?? {})) {
    if (!(field in input) || input[field] === null) continue;
    const many = Array.isArray(input[field]);
    const ids = (many ? (input[field] as string[]) : [input[field] as string]).filter((v, i, all) => all.indexOf(v) === i);
    // an archived row cannot be linked anew (rows already linked keep naming it)
    const target = family(ref.family);
    const known = new Set((await store.byIds(target, ctx.caller.organization.id, ids, target.archive?.field)).map((r) => r.id));
    const missing = ids.filter((id) => !known.has(id));
    if (many) next[field] = ids; // a list of ids names each row once
    if (!missing.length) continue;
    // ids are named by their place in the list, not repeated (a value sent may be huge or hostile)
    const at = many ? (input[field] as unknown[]).flatMap((id, i) => (known.has(id) ? [] : [`[${i}]`])) : [];
    const message = many
      ? `${at.length === 1 ? `the id at ${at[0]} is not an active row` : `the ids at ${at.join(', ')} are not active rows`} of ${ref.family} in this organization`
      : `is not an active row of ${ref.family} in this organization`;
    if (ref.unknown === 'refuse') {
      errors.push({ field, message });
    } else {
      notices.push({ field, message: `${message}; not linked` });
      next[field] = many ? ids.filter((id) => known.has(id)) : null;
    }
  }
  if (errors.length) throw validationFailed(errors);
  return { row: next, notices };
}

/** 409 with the existing row when another row already holds the natural key. */
/** `self`: the id of the row being updated, which may keep its own key. */
export async function checkNaturalKey(services: Services, d: FamilyDescriptor, store: FamilyStore, row: Row, ctx: HookContext, self?: unknown): Promise<void> {
  const key = d.naturalKey;
  if (!key?.length) return;
  if (d.naturalKeyWhile) await store.lockFamily(d, ctx.caller.organization.id);
  const where = Object.fromEntries(key.map((f) => [f, row[f]]));
  const holders = (await store.list(d, ctx.caller.organization.id, { where })).filter(
    (other) => other.id !== self && (!d.naturalKeyWhile || d.naturalKeyWhile.holds(other, ctx.now)),
  );
  if (holders.length) throw conflict(services, d, holders[0]!, ctx.now);
}

export function conflict(services: Services, d: FamilyDescriptor, existing: Row, now: Date): ApiError {
  const key = (d.naturalKey ?? []).join(' and ');
  const condition = d.naturalKeyWhile ? ` ${d.naturalKeyWhile.description}` : '';
  return new ApiError('conflict', `A row of ${d.name} with the same ${key} already exists${condition}; nothing was overwritten.`, {
    data: project(d, existing, { now, config: services.config }),
  });
}

/** A value another organization holds is refused by name (422), without a word about that organization. */
export async function checkUniqueAcrossOrganizations(d: FamilyDescriptor, store: FamilyStore, organizationId: string, row: Row, existing: Row | undefined): Promise<void> {
  const errors: FieldError[] = [];
  for (const field of d.uniqueAcrossOrganizations ?? []) {
    const value = row[field];
    if (isListField(d.fields[field]!)) {
      // no index holds "no element shared": the writer holds the family's deployment-wide lock (uniqueListWrite)
      const before = new Set(Array.isArray(existing?.[field]) ? (existing[field] as unknown[]) : []);
      const added = (Array.isArray(value) ? value : []).map((v, i) => [v, i] as const).filter(([v]) => !before.has(v));
      if (added.length) await store.lockFamily(d, DEPLOYMENT_LOCK);
      for (const [v, i] of added) {
        if (await store.heldInListElsewhere(d, organizationId, field, v)) errors.push({ field, message: `entry ${i + 1} is already claimed by another organization; each value may belong to one organization of the deployment` });
      }
      continue;
    }
    if (value === null || value === undefined || (existing && existing[field] === value)) continue;
    if (await store.takenElsewhere(d, organizationId, field, value)) errors.push({ field, message: 'is already taken; choose another' });
  }
  if (errors.length) throw validationFailed(errors);
}

/** The lock key of a family's deployment-wide values (an organization id is a uuid, so it cannot collide). */
const DEPLOYMENT_LOCK = 'deployment';

/** Whether a write of the family must run in a transaction: it checks list values no index holds (above). */
export const uniqueListWrite = (d: FamilyDescriptor): boolean => (d.uniqueAcrossOrganizations ?? []).some((f) => isListField(d.fields[f]!));

export function takenError(d: FamilyDescriptor): ApiError {
  return validationFailed((d.uniqueAcrossOrganizations ?? []).map((field) => ({ field, message: 'is already taken; choose another' })));
}

/**
 * The 412 of an `If-Match` that does not hold, the same for every write: the current row, projected like every answer,
 * in `data`, and a message that says nothing was changed. With no row under the id (an update that would create it),
 * `data` is null and the message says so: `If-Match`, even `*`, asks for a stored row (RFC 9110 §13.1.1), and there is none.
 */
export function preconditionFailed(services: Services, d: FamilyDescriptor, current: Row | null, now: Date, nothing: 'written' | 'deleted' = 'written'): ApiError {
  if (current === null) {
    return new ApiError('precondition_failed', `No row of ${d.name} exists with that id, so If-Match (which names a stored row) cannot hold; send the write without it to create the row. Nothing was ${nothing}.`, { data: null });
  }
  return new ApiError('precondition_failed', `The row changed since that ETag was read; read it again and retry. Nothing was ${nothing}.`, {
    data: project(d, current, { now, config: services.config }),
  });
}
