/**
 * `apply_configuration_batch` (POST /api/v1/config/batch): a list of creates, updates and deletes applied in ONE
 * transaction, all or nothing. Each change runs through the ordinary pipeline (`execute`: feature, role, parse,
 * rules and hooks, references, natural keys including deployment-wide ones, If-Match) in the batch's transaction
 * (engine/operations/context.ts): first all at once, with no savepoint each and creates written as multi-row
 * statements; at the first refusal or failure that pass is rolled back and the batch runs again with each change a
 * savepoint, so every change is checked and every refusal reported, not only the first. The batch commits only when no change was refused and it is not a dry run; then its audit
 * entries (one per row, as any write) share the batch's `change_id`.
 *
 * `dry_run: true` runs the same batch and rolls it back whatever happens: what `vigil plan` asks, so every
 * refusal the apply would meet is known, with its reason, before anything moves.
 *
 * A create's id is known only once it ran, so a later change names it with `{ "$ref": "<ref>" }` in place of
 * the id (a field value, or an item of a list field), `<ref>` being that earlier change's `ref`.
 */
import { randomUUID } from 'node:crypto';
import Type from 'typebox';
import { publicOrganization, type Caller } from '../auth/caller.ts';
import type { Row } from '../descriptor.ts';
import { ApiError, validationFailed, type FieldError } from '../errors.ts';
import type { DomainOperation, Services } from '../services.ts';
import { BatchPassFailed, inBatch } from './context.ts';
import { execute } from './index.ts';
import { ORGANIZATION } from './tool-schemas.ts';

/** One request can carry a whole organization's configuration; the REST body limit of this route is raised to match. */
export const BATCH_MAX_CHANGES = 20_000;
export const BATCH_BODY_LIMIT = '32mb';

const CHANGE = Type.Object(
  {
    family: Type.String({ minLength: 1, maxLength: 100, description: 'the family, as in /api/v1/config/<family>' }),
    op: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')], { description: 'update of a singleton: no id' }),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'the row (update and delete of a collection; an upsert family creates by id with update)' })),
    if_match: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the ETag the row must still have, as the If-Match header of a single write' })),
    body: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'the body of the create or update; `{ "$ref": "<ref>" }` stands for the id an earlier create of this batch got' })),
    ref: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'a name later changes use to refer to the row this one writes' })),
  },
  { additionalProperties: false },
);

const OUTCOME = Type.Object({
  index: Type.Integer(),
  ref: Type.Union([Type.String(), Type.Null()]),
  family: Type.String(),
  op: Type.String(),
  status: Type.Integer({ description: 'the HTTP status the change alone would have answered' }),
  id: Type.Union([Type.String(), Type.Null()]),
  etag: Type.Union([Type.String(), Type.Null()]),
  data: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'the row as written (secrets as `<name>_set`), null for a delete or a refusal' }),
  error: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'the refusal, `{ error, message, errors? }`, as the single write would answer it' }),
});

export interface BatchChange {
  family: string;
  op: 'create' | 'update' | 'delete';
  id?: string;
  if_match?: string;
  body?: Row;
  ref?: string;
}

export interface BatchOutcome {
  index: number;
  ref: string | null;
  family: string;
  op: string;
  status: number;
  id: string | null;
  etag: string | null;
  data: Row | null;
  error: Record<string, unknown> | null;
}

const isRef = (v: unknown): v is { $ref: unknown } => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && '$ref' in v;

/** The body with `{ "$ref" }` values replaced by the ids earlier creates got; a ref that is not (yet) one is a field error. */
function resolveRefs(body: Row, ids: Map<string, string | null>): { body: Row; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const one = (value: unknown, field: string): unknown => {
    // a ref may stand anywhere in a value: inside a list or an object (an escalation policy's steps[i].targets[j].schedule_id)
    if (Array.isArray(value)) return value.map((v, i) => one(v, `${field}[${i}]`));
    if (value !== null && typeof value === 'object' && !isRef(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, one(v, `${field}.${k}`)]));
    if (!isRef(value)) return value;
    const ref = value.$ref;
    const id = typeof ref === 'string' ? ids.get(ref) : undefined;
    if (typeof ref !== 'string' || id === undefined) errors.push({ field, message: `refers to ${JSON.stringify(ref)}, which no earlier change of this batch names as its ref` });
    else if (id === null) errors.push({ field, message: `refers to ${ref}, whose change was refused` });
    return id ?? undefined;
  };
  const out: Row = {};
  for (const [field, value] of Object.entries(body)) out[field] = one(value, field);
  return { body: out, errors };
}

function refusalBody(error: ApiError): Record<string, unknown> {
  return error.toBody();
}

export async function runBatch(services: Services, caller: Caller, changes: BatchChange[], dryRun: boolean): Promise<{ changeId: string; committed: boolean; outcomes: BatchOutcome[] }> {
  const refs = new Set<string>();
  const duplicate: FieldError[] = [];
  changes.forEach((c, i) => {
    if (c.ref === undefined) return;
    if (refs.has(c.ref)) duplicate.push({ field: `changes[${i}].ref`, message: `names ${c.ref}, which an earlier change already names` });
    refs.add(c.ref);
  });
  if (duplicate.length) throw validationFailed(duplicate);
  const changeId = randomUUID();
  return inBatch(services, changeId, async (savepoints) => {
    const ids = new Map<string, string | null>();
    const outcomes: BatchOutcome[] = [];
    for (const [index, change] of changes.entries()) {
      const base = { index, ref: change.ref ?? null, family: change.family, op: change.op };
      try {
        const resolved = resolveRefs(change.body ?? {}, ids);
        if (resolved.errors.length) throw validationFailed(resolved.errors);
        const result = await execute(services, caller, {
          family: change.family,
          op: change.op,
          id: change.id,
          ifMatch: change.if_match,
          body: change.op === 'delete' ? undefined : resolved.body,
        });
        if (change.ref !== undefined) ids.set(change.ref, result.id ?? change.id ?? null);
        outcomes.push({ ...base, status: result.status, id: result.id ?? change.id ?? null, etag: result.etag ?? null, data: result.data ?? null, error: null });
      } catch (error) {
        // without savepoints a failed change may have left the transaction half-written or aborted: run it all again with them
        if (!savepoints) throw new BatchPassFailed();
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        if (change.ref !== undefined) ids.set(change.ref, null);
        outcomes.push({ ...base, status: error.status, id: change.id ?? null, etag: null, data: null, error: refusalBody(error) });
      }
    }
    const committed = !dryRun && outcomes.every((o) => o.error === null);
    return { commit: committed, result: { changeId, committed, outcomes } };
  });
}

export const batchOperation: DomainOperation = {
  name: 'apply_configuration_batch',
  description:
    'Applies a list of configuration changes (create, update, delete of any family, each with its optional If-Match as `if_match`) in ONE ' +
    'transaction: all of them or none. Every change runs through the same checks as its single write, and every refusal is answered ' +
    '(`changes[i].error`), not only the first; if any is refused nothing changes. The audit entries of an applied batch share its `change_id`. ' +
    'With `dry_run: true` the batch is checked the same way and always rolled back: it answers what applying it would meet. ' +
    'A later change names the id of an earlier create as `{ "$ref": "<ref>" }`, `<ref>` being that create\'s `ref`. ' +
    'Each change needs the role and plan feature its single write needs.',
  input: Type.Object(
    {
      changes: Type.Array(CHANGE, { minItems: 1, maxItems: BATCH_MAX_CHANGES, description: 'applied in this order' }),
      dry_run: Type.Optional(Type.Boolean({ default: false, description: 'check every change, then roll back' })),
    },
    { additionalProperties: false },
  ),
  // every write needs a member at least (a read-only key or a viewer is refused up front, dry run or not: each change
  // would meet the same refusal first); beyond that, each change is authorized as its own write
  role: 'member',
  kind: 'write',
  rest: { method: 'POST', path: 'batch', bodyLimit: BATCH_BODY_LIMIT },
  answer: {
    // a refused batch answers its first refusal's status
    refusals: ['not_found', 'conflict', 'precondition_failed'],
    schema: Type.Object({
      organization: ORGANIZATION,
      change_id: Type.Union([Type.String(), Type.Null()], { description: 'the audit entries\' change id; null when nothing was committed' }),
      dry_run: Type.Boolean(),
      committed: Type.Boolean({ description: 'true: every change is applied; false: none is' }),
      refused: Type.Integer({ description: 'how many changes were refused' }),
      changes: Type.Array(OUTCOME),
      note: Type.Union([Type.String(), Type.Null()], { description: 'why nothing was committed, when nothing was' }),
    }),
  },
  async run(services, caller, input) {
    const dryRun = input.dry_run === true;
    const { changeId, committed, outcomes } = await runBatch(services, caller, input.changes as BatchChange[], dryRun);
    const refused = outcomes.filter((o) => o.error !== null);
    const answer = {
      organization: publicOrganization(caller.organization),
      change_id: committed ? changeId : null,
      dry_run: dryRun,
      committed,
      refused: refused.length,
      changes: outcomes,
    };
    if (dryRun || committed) return { json: { ...answer, note: dryRun ? 'a dry run: every change was checked, then rolled back' : null } };
    // nothing was committed: answer as the first refusal would, with every change's outcome
    const first = refused[0]!;
    const error = first.error as { error: ApiError['code']; message: string };
    // every refused change named, its fields under changes[i]; one line for a refusal without field errors (412, 404, 403)
    const errors = refused.flatMap((o) => {
      const e = o.error as { message: string; errors?: FieldError[] };
      return e.errors?.length ? e.errors.map((f) => ({ field: `changes[${o.index}].${f.field}`, message: f.message })) : [{ field: `changes[${o.index}]`, message: e.message }];
    });
    throw new ApiError(error.error, `The batch was not applied: ${refused.length} of ${outcomes.length} changes were refused, so nothing changed. The first, changes[${first.index}] (${first.op} ${first.family}${first.id ? ` ${first.id}` : ''}): ${error.message}`, {
      errors,
      extra: { ...answer, note: 'nothing was committed' },
    });
  },
};
