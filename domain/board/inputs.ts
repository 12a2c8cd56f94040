/**
 * What a card write accepts, as TypeBox schemas checked by the engine's validation (the same checks and messages
 * as every other JSON surface), and the refusal they produce: 422 `{ error, message, field, errors }` naming the
 * field (a label's problem is the `labels` field's). Messages say what is expected and never repeat the value.
 *
 * A sender's text is cleaned before it is checked (a ticket system cannot be asked to fix its payload): NUL
 * dropped, lone surrogates made U+FFFD, spaces around trimmed; a blank optional text is no value.
 */
import Type, { type Static, type TSchema } from 'typebox';
import { nullable } from '../../engine/descriptor.ts';
import { ApiError, type FieldError } from '../../engine/errors.ts';
import { describeSchema, unwrapNullable } from '../../engine/fields.ts';
import { checkBody, checkValue, isPlainObject } from '../../engine/validation.ts';
import { CARD_PRIORITIES, CARD_STATUSES, LIMITS, priorityOf, statusOf } from './vocabulary.ts';

type Json = Record<string, unknown>;

/** The fields of a card a write may set, shared by the webhook and the agent tools. */
export const CARD_FIELDS = {
  title: Type.String({ minLength: 1, maxLength: LIMITS.title }),
  description: nullable(Type.String({ maxLength: LIMITS.description })),
  labels: Type.Array(Type.String({ minLength: 1, maxLength: LIMITS.label }), { maxItems: LIMITS.labels }),
  service: nullable(Type.String({ maxLength: LIMITS.service })),
  assignee_email: nullable(Type.String({ maxLength: LIMITS.email })),
};

const STATUS_VALUES = [...CARD_STATUSES, 'archived'] as const;

/** A card the webhook opens: `priority` is not checked (anything but a known word becomes normal: cards.ts). */
export const OpenCardInput = Type.Object({
  title: CARD_FIELDS.title,
  description: Type.Optional(CARD_FIELDS.description),
  labels: Type.Optional(CARD_FIELDS.labels),
  service: Type.Optional(CARD_FIELDS.service),
  assignee_email: Type.Optional(CARD_FIELDS.assignee_email),
});

/** An update, after its words are read (statusOf, priorityOf): unknown words are refused, never guessed. */
export const UpdateCardInput = Type.Object({
  title: Type.Optional(CARD_FIELDS.title),
  description: Type.Optional(CARD_FIELDS.description),
  labels: Type.Optional(CARD_FIELDS.labels),
  service: Type.Optional(CARD_FIELDS.service),
  assignee_email: Type.Optional(CARD_FIELDS.assignee_email),
  priority: Type.Optional(Type.Union(CARD_PRIORITIES.map((p) => Type.Literal(p)))),
  status: Type.Optional(Type.Union(STATUS_VALUES.map((s) => Type.Literal(s)))),
});

export const CommentInput = Type.Object({
  body: Type.String({ minLength: 1, maxLength: LIMITS.comment }),
  author: Type.Optional(nullable(Type.String({ maxLength: LIMITS.author }))),
});

/** An idempotency key: a dedup_key, comment_id, Idempotency-Key header or SNS MessageId. */
export const IdempotencyKey = Type.String({
  minLength: 1, maxLength: LIMITS.key, pattern: '^[\\p{L}\\p{Nd}._\\-:/+=@]+$',
  'x-format-description': `a string of 1 to ${LIMITS.key} letters, digits and . _ - : / + = @`,
});

export const UPDATABLE = ['title', 'description', 'priority', 'labels', 'service', 'assignee_email', 'status'] as const;

/** What a field's refusal adds to its schema's sentence. */
const HINTS: Record<string, string> = {
  status: ', or a usual synonym (open, to do, in progress, on hold, closed, resolved, won\'t do, …)',
};

// ——— refusals ———

/** 422 naming the field to fix: `{ error, message, field, errors: [{ field, message }] }`. */
export function refused(field: string, message: string): ApiError {
  return new ApiError('validation_failed', `${field} ${message}.`, { extra: { field }, errors: [{ field, message }] });
}

/** The engine's field errors, one per top-level field (a label's problem is `labels`'), as one 422. */
function refusedFields(schema: TSchema, errors: FieldError[]): ApiError {
  const properties = (schema as unknown as { properties: Record<string, TSchema> }).properties;
  const byField = new Map<string, string>();
  for (const error of errors) {
    const field = error.field.split(/[.[]/)[0]!;
    if (byField.has(field)) continue;
    const fieldSchema = properties[field];
    // a list's error may speak of one item: say what the whole field must be
    const message = fieldSchema && isList(fieldSchema) ? describeField(fieldSchema) : error.message;
    byField.set(field, `${message}${HINTS[field] ?? ''}`);
  }
  const list = [...byField].map(([field, message]) => ({ field, message }));
  const first = list[0]!;
  const message = list.length === 1 ? `${first.field} ${first.message}.` : `The request was refused; fix these fields: ${list.map((e) => e.field).join(', ')}.`;
  return new ApiError('validation_failed', message, { extra: { field: first.field }, errors: list });
}

const isList = (schema: TSchema) => unwrapNullable(schema).inner.items !== undefined;

function describeField(schema: TSchema): string {
  const items = unwrapNullable(schema).inner.items as TSchema | undefined;
  const base = describeSchema(schema);
  return items ? `${base}, each ${describeSchema(items).replace(/^must be /, '')}` : base;
}

/** The value checked against the schema, or a 422 naming the field. */
function accepted<T>(schema: TSchema, value: Json): T {
  const errors = checkBody(schema, value);
  if (errors.length) throw refusedFields(schema, errors);
  return value as T;
}

/** An idempotency key, checked; `field` names where it came from. */
export function checkKey(value: unknown, field: string): string {
  const errors = checkValue(field, IdempotencyKey, value);
  if (errors.length) throw refused(field, errors[0]!.message);
  return value as string;
}

// ——— a sender's text, cleaned ———

/** A string as PostgreSQL can hold it (no NUL, no lone surrogate), trimmed; undefined for anything else. */
export function clean(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.toWellFormed().replaceAll('\u0000', '').trim();
}

/** A text field as sent, cleaned: absent (undefined or null) → not set; not a string → left for the schema to refuse. */
function text(value: unknown, blank: 'null' | 'keep'): unknown {
  if (value === null || value === undefined) return undefined;
  const s = clean(value);
  if (s === undefined) return value;
  return s === '' && blank === 'null' ? null : s;
}

function labels(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  return Array.isArray(value) ? value.map((item) => clean(item) ?? item) : value;
}

const has = (obj: Json, key: string) => Object.hasOwn(obj, key) && obj[key] !== undefined;

/** Drops what was not sent, so `Type.Optional` reads "not given". */
function present(fields: Json): Json {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

// ——— the inputs ———

/** A card to open, as checked, with what was not sent filled in (null, no labels). */
export type OpenFields = Required<Static<typeof OpenCardInput>>;

/** The fields of a card to open, cleaned and checked. */
export function openFields(input: Json): OpenFields {
  const fields = accepted<Static<typeof OpenCardInput>>(OpenCardInput, present({
    title: text(input.title, 'keep'), description: text(input.description, 'null'), labels: labels(input.labels),
    service: text(input.service, 'null'), assignee_email: text(input.assignee_email, 'null'),
  }));
  return {
    title: fields.title, description: fields.description ?? null, labels: [...new Set(fields.labels ?? [])], service: fields.service ?? null,
    assignee_email: fields.assignee_email ?? null,
  };
}

export type UpdateFields = Static<typeof UpdateCardInput>;

/** The fields an update sets, cleaned and checked; its words read (a status synonym, a priority in any case). */
export function updateFields(input: unknown): UpdateFields {
  if (!isPlainObject(input)) throw refused('body', 'must be a JSON object');
  const sent: Json = {};
  if (has(input, 'title')) sent.title = text(input.title, 'keep') ?? null;
  if (has(input, 'description')) sent.description = text(input.description, 'null') ?? null;
  if (has(input, 'service')) sent.service = text(input.service, 'null') ?? null;
  if (has(input, 'assignee_email')) sent.assignee_email = text(input.assignee_email, 'null') ?? null;
  if (has(input, 'labels')) sent.labels = labels(input.labels) ?? [];
  if (has(input, 'priority')) sent.priority = priorityOf(input.priority) ?? input.priority;
  if (has(input, 'status')) sent.status = statusOf(input.status) ?? input.status;
  if (Object.keys(sent).length === 0) throw refused('body', `names no field a card update changes; send one or more of ${UPDATABLE.join(', ')}`);
  const fields = accepted<UpdateFields>(UpdateCardInput, sent);
  if (fields.labels) fields.labels = [...new Set(fields.labels)];
  return fields;
}

/** A comment's fields, cleaned and checked. */
export function commentFields(input: Json): { body: string; author: string | null } {
  const fields = accepted<{ body: string; author?: string | null }>(CommentInput, present({ body: text(input.body, 'keep'), author: text(input.author, 'null') }));
  return { body: fields.body, author: fields.author ?? null };
}
