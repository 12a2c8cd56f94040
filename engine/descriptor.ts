/**
 * A family descriptor is data: TypeBox field schemas plus flags the engine reads everywhere (REST, MCP,
 * OpenAPI, tables, audit, export). Behaviour that flags cannot express goes in a few named hooks whose
 * timing is in their name. The engine never branches on a family's name.
 */
import Type, { type TSchema, type TSchemaOptions } from 'typebox';
import type { FieldError } from './errors.ts';
import type { Feature, Role } from './plans.ts';
import type { Caller, Transport } from './auth/caller.ts';
import type { ServiceConfig } from './config.ts';
import type { TargetCheck } from './targets.ts';

export const OPERATIONS = ['list', 'read', 'create', 'update', 'delete'] as const;
export type OperationName = (typeof OPERATIONS)[number];
export type WriteOperation = 'create' | 'update' | 'delete';

/** A stored row as the engine hands it to hooks: field values plus `id`, `created_at`, `updated_at`. */
export type Row = Record<string, unknown>;

export interface ProjectionContext {
  now: Date;
  config: ServiceConfig;
  /** the rows of the organization that a reference field of this row names (those that exist) */
  referenced(field: string): Row[];
}

export interface HookContext {
  caller: Caller;
  now: Date;
  config: ServiceConfig;
  /** Reads rows of any family of the same organization, inside the running transaction. */
  lookup: RowLookup;
  /** why a value may not be saved as this target under the deployment's address policies (engine/targets.ts), or null */
  targets: TargetCheck;
}

export interface RowLookup {
  /** Rows of `family` in the caller's organization whose `field` equals `value` (all rows when omitted). */
  rows(family: string, where?: Row): Promise<Row[]>;
  /** The organization's singleton row of `family`, or null when none is stored. */
  singleton(family: string): Promise<Row | null>;
  /** A user of the deployment by email (case-insensitive), or null: users are created by the operator only. */
  userByEmail(email: string): Promise<{ id: string; email: string } | null>;
  /** The calling person's email (lowercased), or null when the caller is no person (a key, the service itself). */
  callerEmail(): Promise<string | null>;
}

/** A cross-field rule: a value with a description that documents itself in OpenAPI and MCP. */
export interface Rule {
  /** reads as "must …" */
  description: string;
  fields: string[];
  check(row: Row): FieldError[];
}

export interface WriteStage {
  op: 'create' | 'update';
  /** the stored row, on update */
  existing?: Row;
  ctx: HookContext;
}

export interface FamilyHooks {
  /**
   * Runs after the input passed schema validation and was merged over the stored row; returns the row to
   * store (normalization, per-key merges, values looked up in the database). Must not mutate its arguments.
   * Runs inside the transaction.
   */
  prepare?(row: Row, input: Row, stage: WriteStage): Row | Promise<Row>;
  /** Cross-row checks that need the database (inside the transaction); returns field errors. */
  validate?(row: Row, stage: WriteStage): Promise<FieldError[]> | FieldError[];
  /** Checks before a row is deleted or archived (inside the transaction); field errors refuse it with 422. */
  validateDelete?(row: Row, ctx: HookContext): Promise<FieldError[]> | FieldError[];
  /** Side effects after the transaction committed; failures are logged, never undo the write. */
  afterCommit?(event: { op: 'create' | 'update' | 'delete' | 'action'; row: Row; ctx: HookContext }): Promise<void> | void;
}

export interface ActionDescriptor {
  description: string;
  input: TSchema;
  role: Role;
  feature?: Feature;
  /**
   * Where the action is served (default `['mcp']`, an agent tool). `['rest']`: only as
   * `POST /api/v1/config/<family>/{id}/<action>`, never listed or callable on the agent-tool endpoint.
   */
  transports?: readonly Transport[];
  /** Returns the changes to apply to the row (state fields included); the engine persists and audits them. */
  run(row: Row, input: Row, ctx: HookContext): Row | Promise<Row>;
}

export interface ReferenceRule {
  family: string;
  /** `drop`: ids that are not rows of the organization are left out and named in the answer; `refuse`: 422 */
  unknown: 'drop' | 'refuse';
}

export interface ConditionalKey {
  /** when the natural key holds, in words ("while the mute is in force") */
  description: string;
  holds(row: Row, now: Date): boolean;
}

export interface Examples {
  /** bodies that create rows (each with a distinct natural key) */
  valid: Row[];
  /** bodies refused on create, with the field the refusal must name */
  invalid: { body: Row; field: string }[];
  /** a body that changes a row created from valid[0] (omit for families without update) */
  update?: Row;
  /**
   * Families whose rows must exist before the valid bodies can be created (a validate hook checks for them):
   * a test first creates each collection's valid examples and applies each singleton's `update`, in this order.
   */
  requires?: readonly string[];
  /** users (emails) the deployment must have before the examples can be created; the operator creates users */
  users?: readonly string[];
}

export interface FamilyDescriptor {
  name: string;
  /** one row's name in tool names (`get_<singular>`); derived from the name when omitted */
  singular?: string;
  /** one paragraph: what a row is, and the decisions taken where the spec is silent */
  description: string;
  kind: 'collection' | 'singleton';
  fields: Record<string, TSchema>;
  /**
   * Fields whose allowed values are the deployment's, not the family's (the webhook sources its configuration
   * names): each is published as the field's `enum`, computed from the configuration the service runs with, wherever
   * schemas are published (the OpenAPI document, the agent tools' schemas). The family's own hooks still check a
   * value, so their refusal can say more than a schema's.
   */
  configuredValues?: Record<string, (config: ServiceConfig) => readonly string[]>;
  /** rows live in a table the engine already has (`memberships`), shared with the operator API */
  table?: string;
  /** operations that exist; others answer 405 */
  operations: readonly OperationName[];
  requiredOnCreate?: readonly string[];
  /** accepted on create, refused on update (like RequiresReplace) */
  createOnly?: readonly string[];
  naturalKey?: readonly string[];
  /**
   * fields whose value no two organizations may share (a public slug): a unique index across the whole
   * deployment; a value another organization holds is refused with 422 naming the field, never a 409 that
   * would show that organization's row. A list field: no value in the list may be in another organization's list
   * (the email domains a sign-in provider claims); no index can hold that, so such a write takes a deployment-wide
   * lock per family and runs in a transaction
   */
  uniqueAcrossOrganizations?: readonly string[];
  /** a natural key that holds only under a condition: enforced by a per-organization lock, not an index */
  naturalKeyWhile?: ConditionalKey;
  /**
   * How a row's id is made: a generated uuid (default), or the values of fields joined by `/`.
   * `upsert`: an update of an id that does not exist yet creates it from the id's parts.
   */
  id?: { from: readonly string[]; upsert?: boolean };
  features?: Partial<Record<OperationName, Feature>>;
  roles?: Partial<Record<OperationName, Role>>;
  /** presence flags answered instead of secrets or beside nullable settings: `{ api_key_set: 'api_key' }` */
  presence?: Record<string, string>;
  /** read-only values computed at answer time from the stored row (and the rows its references name) */
  computed?: Record<string, (row: Row, ctx: ProjectionContext) => unknown>;
  /** the value answered when a nullable setting is stored as null */
  fallbacks?: Record<string, unknown>;
  /** values minted once, when the row is first stored */
  generated?: Record<string, () => unknown>;
  /** singleton rows are stored on their first read (their generated values must stay stable) */
  persistOnFirstRead?: boolean;
  references?: Record<string, ReferenceRule>;
  /**
   * ids held inside a field's value (an escalation policy's `steps[].targets[].schedule_id`): `path` is the field, then
   * the keys inside it (lists are walked through). The export writes them as references to the rows' blocks; the
   * family's own hooks check them on write.
   */
  nestedReferences?: readonly { path: readonly string[]; family: string }[];
  /** delete archives instead: sets this timestamp; archived rows refuse updates and leave the default list */
  archive?: { field: string };
  /** rows keep a public order in this read-only integer field; create appends; update accepts `move: up|down` */
  positioned?: { field: string };
  /** list order (default: creation order) */
  order?: readonly { field: string; direction: 'asc' | 'desc' }[];
  /** the rows one list page holds when the caller sends no `limit` (default 500; at most 500, the most any page holds) */
  defaultLimit?: number;
  /**
   * rows a person may write for themselves: a caller below `role` creates, changes and deletes only rows whose
   * `field` is their own email (before and after the change); a caller with no email (a key) needs `role`.
   * `private`: reads too: below `role` a caller sees only rows naming them (a key, no person, sees none); another's
   * row answers 404, as if it did not exist. Families with ownRows are also served at the person's own surface
   * (/api/v1/me/<family>), where the caller sees and writes only their own rows whatever their role.
   */
  ownRows?: { field: string; role: Role; private?: boolean };
  /** fields that only a user credential (personal token) may write */
  userTokenFields?: readonly string[];
  /**
   * rows that decide how requests authenticate (signing secrets, …): every committed write clears the
   * per-process credential cache, as operator changes do
   */
  authenticates?: boolean;
  /**
   * rows other writes consult (the rules an audit listener reads to decide whether a change concerns it): the
   * engine keeps each organization's rows in memory (`cachedRows`, engine/operations/cached-rows.ts), cleared by
   * every committed write of the family here and on every other instance
   */
  cachedRows?: boolean;
  rules?: readonly Rule[];
  hooks?: FamilyHooks;
  actions?: Record<string, ActionDescriptor>;
  examples: Examples;
}

/** The transports an action is served on: `mcp` unless the descriptor says otherwise. */
export function actionTransports(action: ActionDescriptor): readonly Transport[] {
  return action.transports ?? ['mcp'];
}

export function defineFamily<const D extends FamilyDescriptor>(descriptor: D): D {
  return descriptor;
}

/** A family list's page when no `limit` is sent: the whole list, as before lists were paged, up to the most a page holds. */
export const DEFAULT_LIST_LIMIT = 500;

export const DEFAULT_ROLES: Record<OperationName, Role> = {
  list: 'viewer',
  read: 'viewer',
  create: 'member',
  update: 'member',
  delete: 'member',
};

/** Every operation needs the same feature, except the ones named. */
export function featureFor(feature: Feature, except: readonly OperationName[] = []): Partial<Record<OperationName, Feature>> {
  return Object.fromEntries(OPERATIONS.filter((op) => !except.includes(op)).map((op) => [op, feature]));
}

/** `T | null`, the nullable field of the descriptors (`anyOf` in JSON Schema). */
export function nullable<T extends TSchema>(schema: T, options: TSchemaOptions = {}) {
  return Type.Union([schema, Type.Null()], options);
}
