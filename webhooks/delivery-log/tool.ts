/** `list_webhook_deliveries` (also REST `GET /api/v1/config/webhook_deliveries`): the delivery log, newest first. */
import Type from 'typebox';
import type { DomainOperation } from '../../engine/services.ts';
import { JSON_VALUE } from '../../engine/operations/tool-schemas.ts';
import { pageFields } from '../../engine/operations/page.ts';
import { equalTo, NEWEST_FIRST, RECORD_LIST_LIMITS, recordPage, recordPageSchema, type RecordList } from '../../engine/operations/record-list.ts';
import { SEGMENTS } from '../sources/index.ts';

const DELIVERY = Type.Object({
  id: Type.String(),
  source: Type.String(),
  received_at: Type.String({ format: 'date-time' }),
  status: Type.Integer({ description: 'the HTTP status answered' }),
  outcome: Type.String({ description: 'what became of it: created, resolved, muted, cooldown, duplicate, refused: signature, refused: rate limit, no handler yet, …' }),
  detail: Type.Union([Type.String(), Type.Null()], { description: 'the refusal\'s message, when refused' }),
  size: Type.Integer({ description: 'body size in bytes' }),
  headers: Type.Record(Type.String(), Type.String(), { description: 'the allow-listed request headers (never Authorization or signatures)' }),
  payload: JSON_VALUE('the JSON body with credential-like members removed; null after 7 days'),
});

const DELIVERIES: RecordList = {
  name: 'webhook_deliveries',
  // as text, parsed here: a driver may or may not have parsed json already, and a JSON string body is a string either way
  select: 'seq, id, source, received_at, status, outcome, detail, size, headers::text as headers, payload::text as payload',
  from: 'webhook_deliveries',
  keys: NEWEST_FIRST,
  limits: RECORD_LIST_LIMITS,
};

export const listWebhookDeliveries = {
  name: 'list_webhook_deliveries',
  description:
    'The organization\'s recent inbound webhook deliveries, newest first: source, time, the status answered and the outcome ' +
    '(created, resolved, muted, cooldown, duplicate, refused: signature, refused: rate limit, refused: too large, no handler yet, …), ' +
    'so you can see why an alert did or did not page. Payloads are kept 7 days with credentials removed; rows 30 days. Paged: pass `next_cursor` back as `cursor`.',
  input: Type.Object(
    {
      source: Type.Optional(Type.Union(SEGMENTS.map((s) => Type.Literal(s)), { description: 'only this source' })),
      outcome: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'only this outcome (exact)' })),
      ...pageFields(RECORD_LIST_LIMITS),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'webhook_deliveries' },
  answer: { schema: recordPageSchema(DELIVERY) },
  async run(services, caller, input) {
    const filters = equalTo(input, { source: 'source', outcome: 'outcome' });
    return { json: await recordPage(services, DELIVERIES, caller.organization.id, filters, input, (rows) => rows.map(deliveryView)) };
  },
} satisfies DomainOperation;

const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : null);

function deliveryView(r: Record<string, unknown>) {
  return {
    id: String(r.id),
    source: String(r.source),
    received_at: new Date(r.received_at as string).toISOString(),
    status: Number(r.status),
    outcome: String(r.outcome),
    detail: (r.detail as string | null) ?? null,
    size: Number(r.size),
    headers: parse(r.headers) ?? {},
    payload: parse(r.payload) ?? null,
  };
}
