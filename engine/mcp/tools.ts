/**
 * Agent tools, generated from the registry and the domain operations (never listed by hand): for every
 * family `list_<plural>`, `get_<singular>`, `create_<singular>`, `update_<singular>`, `delete_<singular>`
 * as its operations allow, its named actions, and every domain operation. Each tool calls the same
 * operation the REST route calls, so refusals, plan limits and audit entries are the same.
 */
import Type, { type TSchema } from 'typebox';
import type { Caller } from '../auth/caller.ts';
import { publicOrganization } from '../auth/caller.ts';
import { actionTransports, DEFAULT_ROLES, type FamilyDescriptor, type OperationName, type Row } from '../descriptor.ts';
import { validationFailed } from '../errors.ts';
import { planFields, withConfiguredValues } from '../fields.ts';
import type { ServiceConfig } from '../config.ts';
import { FEATURES } from '../plans.ts';
import { execute, type Services } from '../operations/index.ts';
import { executeAction } from '../operations/action.ts';
import { executeDomain, takesIdempotencyKey } from '../operations/domain.ts';
import type { DomainOperation } from '../services.ts';
import { IDEMPOTENCY_KEY_MAX } from '../operations/idempotency.ts';
import { MOVE_INPUT } from '../operations/rows.ts';
import { listAnswer, NEXT_CURSOR, pageFields } from '../operations/page.ts';
import { listLimits } from '../operations/read.ts';
import { ORGANIZATION, readableRow } from '../operations/tool-schemas.ts';
import { checkBody } from '../validation.ts';
import type { Registry } from '../registry.ts';
import { portableSchema, withoutDefault } from './portable.ts';

type Json = Record<string, unknown>;

export interface Tool {
  name: string;
  description: string;
  inputSchema: Json;
  outputSchema?: Json;
  annotations: { title?: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  call(services: Services, caller: Caller, args: Json): Promise<ToolAnswer>;
}

/** A tool's structuredContent, and whether it is the stored answer of an earlier call with its idempotency key. */
export interface ToolAnswer {
  body: Json;
  replayed?: true;
}

export function singularOf(d: FamilyDescriptor): string {
  if (d.singular) return d.singular;
  if (d.kind === 'singleton') return d.name;
  return d.name.endsWith('ies') ? `${d.name.slice(0, -3)}y` : d.name.replace(/s$/, '');
}

const object = (properties: Record<string, unknown>, required: string[] = [], additionalProperties = false): Json => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  additionalProperties,
});

const ID = { type: 'string', minLength: 1, description: 'the row id, as list and get answer it' };
const IF_MATCH = {
  type: 'string', minLength: 1,
  description: 'the etag of a previous read, with or without its quotes; the write is refused (precondition_failed) if the row changed since; "*" only requires that the row exists',
};
const IDEMPOTENCY_KEY = {
  type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: '^[\\x20-\\x7e]+$',
  description: 'a key of your choosing (a UUID) that makes a retry safe: repeated with the same arguments within 24 hours, the first answer comes back and nothing is done again; with other arguments it is refused',
};
const ADDRESSING = Type.Object({ id: Type.Optional(Type.String({ minLength: 1 })), if_match: Type.Optional(Type.String({ minLength: 1 })) }, { additionalProperties: false });

/** The tools that take an idempotency key get it beside their own input fields (it is not part of the body). */
const withKey = (schema: Json): Json => ({ ...schema, properties: { ...(schema.properties as Json | undefined), idempotency_key: IDEMPOTENCY_KEY } });

const FIELD_ERROR = object({ field: { type: 'string' }, message: { type: 'string' } }, ['field', 'message'], true);

/**
 * A tool error carries the same body REST answers (the SDK's client checks it against the output schema too). `data`
 * is what a refusal shows: a family's row (the one holding the natural key, or the current one of a stale if_match;
 * null when the id has no row). Other members (`retry_after`, `allowed`) are allowed beside.
 */
const errorBody = (data?: Json): Json =>
  object({ error: { type: 'string' }, message: { type: 'string' }, errors: { type: 'array', items: FIELD_ERROR }, ...(data ? { data } : {}) }, ['error', 'message'], true);

/** Tool answers: the success shape, or the error body. */
function output(success: Json, errorData?: Json): Json {
  return { type: 'object', anyOf: [success, errorBody(errorData)] };
}

const rowSchema = (d: FamilyDescriptor): Json => readableRow(d) as unknown as Json;
/** a refusal's `data`: the row, or null (a stale if_match on an id that has no row) */
const refusedRow = (d: FamilyDescriptor): Json => ({ anyOf: [rowSchema(d), { type: 'null' }] });

/** An update's fields carry no `default`: defaults belong to create (see withoutDefault). */
function inputFields(d: FamilyDescriptor, op: 'create' | 'update'): Record<string, TSchema | Json> {
  return Object.fromEntries(
    planFields(d).writable.filter((f) => op === 'create' || !d.createOnly?.includes(f)).map((f) => [f, op === 'create' ? d.fields[f]! : withoutDefault(d.fields[f]!)]),
  );
}

/**
 * The arguments that name the row (`id`, `if_match`), checked by the engine's validator like a body: one of the wrong
 * type is refused naming it, never turned into a string or skipped. Whether an id is needed at all is the operation's
 * rule (engine/operations: a collection's get, update and delete refuse a missing id).
 */
function addressing(args: Json): { id?: string; ifMatch?: string } {
  const names = ['id', 'if_match'].filter((name) => args[name] !== undefined);
  const errors = checkBody(ADDRESSING, Object.fromEntries(names.map((name) => [name, args[name]])));
  if (errors.length) throw validationFailed(errors);
  return { id: args.id as string | undefined, ifMatch: args.if_match as string | undefined };
}

function needs(d: FamilyDescriptor, op: OperationName): string {
  const feature = d.features?.[op];
  const role = d.roles?.[op] ?? DEFAULT_ROLES[op];
  return ` Role: ${role}.${feature ? ` Needs ${FEATURES[feature].label}.` : ''}`;
}

function describe(d: FamilyDescriptor): string {
  const rules = (d.rules ?? []).map((r) => ` Rule: ${r.description}.`).join('');
  return `${d.description}${rules}`;
}

const single = (d: FamilyDescriptor) =>
  output(object({ data: rowSchema(d), organization: ORGANIZATION, etag: { type: 'string' }, notices: { type: 'array', items: FIELD_ERROR } }, ['data', 'organization'], false), refusedRow(d));

function familyTools(d: FamilyDescriptor): Tool[] {
  const tools: Tool[] = [];
  const singular = singularOf(d);
  const collection = d.kind === 'collection';
  const answer = async (services: Services, caller: Caller, request: Parameters<typeof execute>[2]): Promise<ToolAnswer> => {
    const result = await execute(services, caller, request);
    const organization = publicOrganization(caller.organization);
    if (result.list) return { body: { organization, ...listAnswer(result.list) } };
    if (result.status === 204) return { body: { organization, deleted: { family: d.name, id: request.id ?? null } } };
    const body = { data: result.data, organization, ...(result.etag ? { etag: result.etag } : {}), ...(result.notices ? { notices: result.notices } : {}) };
    return { body, ...(result.replayed ? { replayed: true } : {}) };
  };
  const idInput = (args: Json) => (collection ? addressing(args).id : undefined);
  // a family's tools read and write this service's own rows: a closed world
  const hints = (readOnlyHint: boolean, destructiveHint: boolean, idempotentHint: boolean) => ({ readOnlyHint, destructiveHint, idempotentHint, openWorldHint: false });

  if (collection && d.operations.includes('list')) {
    tools.push({
      name: `list_${d.name}`,
      description: `Lists the organization's ${d.name}.${needs(d, 'list')} ${describe(d)}`,
      inputSchema: object({ ...(d.archive ? { include_archived: { type: 'boolean', description: 'include archived rows' } } : {}), ...pageFields(listLimits(d)) }),
      outputSchema: output(object({ organization: ORGANIZATION, data: { type: 'array', items: rowSchema(d) }, next_cursor: NEXT_CURSOR, truncated: { type: 'boolean', description: 'true when a next page exists (next_cursor is not null)' } }, ['organization', 'data', 'next_cursor', 'truncated'])),
      annotations: { title: `List ${d.name}`, ...hints(true, false, true) },
      call: (services, caller, args) => answer(services, caller, { family: d.name, op: 'list', includeArchived: args.include_archived === true, limit: args.limit, cursor: args.cursor }),
    });
  }
  if (d.operations.includes('read')) {
    tools.push({
      name: `get_${singular}`,
      description: `Reads ${collection ? `one row of ${d.name} by id` : `the organization's ${d.name}`}; answers its etag for if_match.${needs(d, 'read')} ${describe(d)}`,
      inputSchema: collection ? object({ id: ID }, ['id']) : object({}),
      outputSchema: single(d),
      annotations: { title: `Get ${singular}`, ...hints(true, false, true) },
      call: (services, caller, args) => answer(services, caller, { family: d.name, op: 'read', id: idInput(args) }),
    });
  }
  if (d.operations.includes('create')) {
    tools.push({
      name: `create_${singular}`,
      description: `Creates a row of ${d.name}.${needs(d, 'create')} ${describe(d)}`,
      inputSchema: withKey(object(inputFields(d, 'create'), [...(d.requiredOnCreate ?? [])])),
      outputSchema: single(d),
      annotations: { title: `Create ${singular}`, ...hints(false, false, false) },
      call: (services, caller, { idempotency_key, ...body }) => answer(services, caller, { family: d.name, op: 'create', body, idempotencyKey: idempotency_key }),
    });
  }
  if (d.operations.includes('update')) {
    const extra: Record<string, unknown> = { ...(collection ? { id: ID } : {}), if_match: IF_MATCH, ...(d.positioned ? { move: MOVE_INPUT } : {}) };
    tools.push({
      name: `update_${singular}`,
      description: `Changes ${collection ? 'one row' : 'the setting'} of ${d.name}: send only the fields to change.${d.id?.upsert ? ' An id that has no row yet creates it.' : ''}${needs(d, 'update')} ${describe(d)}`,
      inputSchema: object({ ...extra, ...inputFields(d, 'update') }, collection ? ['id'] : []),
      outputSchema: single(d),
      annotations: { title: `Update ${singular}`, ...hints(false, true, true) },
      call: (services, caller, { id, if_match, ...body }) => {
        const named = addressing({ id, if_match });
        return answer(services, caller, { family: d.name, op: 'update', id: collection ? named.id : undefined, body, ifMatch: named.ifMatch });
      },
    });
  }
  if (d.operations.includes('delete')) {
    tools.push({
      name: `delete_${singular}`,
      description: `${d.archive ? 'Archives' : 'Deletes'} one row of ${d.name}.${needs(d, 'delete')} ${describe(d)}`,
      inputSchema: object({ id: ID, if_match: IF_MATCH }, ['id']),
      outputSchema: output(object({ organization: ORGANIZATION, deleted: object({ family: { type: 'string', const: d.name }, id: { type: 'string' } }, ['family', 'id']) }, ['organization', 'deleted']), refusedRow(d)),
      annotations: { title: `Delete ${singular}`, ...hints(false, true, true) },
      call: (services, caller, args) => {
        const named = addressing(args);
        return answer(services, caller, { family: d.name, op: 'delete', id: named.id, ifMatch: named.ifMatch });
      },
    });
  }
  for (const [name, action] of Object.entries(d.actions ?? {})) {
    if (!actionTransports(action).includes('mcp')) continue;
    const input = action.input as unknown as { properties?: Json; required?: string[] };
    const keyFields = Object.fromEntries((d.naturalKey ?? []).map((f) => [f, { ...(d.fields[f] as unknown as Json), readOnly: undefined }]));
    tools.push({
      name,
      description: `${action.description} Names the ${singular} by id${d.naturalKey ? ` or by ${d.naturalKey.join(' and ')}` : ''}. Role: ${action.role}.`,
      inputSchema: withKey(object({ id: ID, ...keyFields, ...(input.properties ?? {}) }, input.required ?? [])),
      outputSchema: single(d),
      annotations: { title: name, ...hints(false, true, true) },
      call: async (services, caller, { id, if_match, idempotency_key, ...rest }) => {
        const named = addressing({ id, if_match });
        const key = Object.fromEntries((d.naturalKey ?? []).filter((f) => f in rest).map((f) => [f, rest[f]]));
        const body = Object.fromEntries(Object.entries(rest).filter(([f]) => !(f in key)));
        const result = await executeAction(services, caller, {
          family: d.name, action: name, id: named.id, key: Object.keys(key).length ? (key as Row) : undefined, body,
          ifMatch: named.ifMatch, idempotencyKey: idempotency_key,
        });
        const answer = { data: result.data, organization: publicOrganization(caller.organization), ...(result.etag ? { etag: result.etag } : {}) };
        return { body: answer, ...(result.replayed ? { replayed: true } : {}) };
      },
    });
  }
  return tools;
}

/** A document answer (the HCL export) comes to an agent as its content type and text. */
const DOCUMENT = object({ content_type: { type: 'string' }, text: { type: 'string' } }, ['content_type', 'text']);

function domainTool(operation: DomainOperation): Tool {
  const keyed = takesIdempotencyKey(operation);
  const { schema, contentType } = operation.answer;
  if (!schema && !contentType) throw new Error(`The domain operation ${operation.name} declares no answer: give answer.schema (or answer.contentType for a document).`);
  return {
    name: operation.name,
    description: `${operation.description} Role: ${operation.role}.${operation.feature ? ` Needs ${FEATURES[operation.feature].label}.` : ''}`,
    inputSchema: keyed ? withKey(operation.input as unknown as Json) : (operation.input as unknown as Json),
    outputSchema: output(schema ? (schema as unknown as Json) : DOCUMENT),
    annotations: {
      title: operation.name, readOnlyHint: operation.kind === 'read', destructiveHint: operation.kind === 'write' && !operation.additive,
      idempotentHint: operation.kind === 'read' || operation.idempotent === true, openWorldHint: operation.reachesOutside === true,
    },
    call: async (services, caller, args) => {
      const { idempotency_key, ...input } = args;
      const result = await executeDomain(services, caller, operation, keyed ? input : args, keyed ? idempotency_key : undefined);
      const body = 'json' in result ? result.json : { content_type: result.contentType, text: result.text };
      return { body, ...(result.replayed ? { replayed: true } : {}) };
    },
  };
}

export function buildTools(registry: Registry, domain: readonly DomainOperation[], config: ServiceConfig): Tool[] {
  // the families as this deployment publishes them: fields whose values its configuration decides carry them as enum
  const families = registry.families.map((family) => withConfiguredValues(family, config));
  const tools = [...families.flatMap(familyTools), ...domain.filter((op) => op.agentTool !== false).map(domainTool)].map((tool) => ({
    ...tool,
    inputSchema: portableSchema(tool.inputSchema),
    ...(tool.outputSchema ? { outputSchema: portableSchema(tool.outputSchema) } : {}),
  }));
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) throw new Error(`Two agent tools are named ${tool.name}.`);
    seen.add(tool.name);
  }
  return tools;
}

