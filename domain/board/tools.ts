/**
 * The ops board for agents: `list_cards` (also REST `GET /api/v1/config/cards`), `get_card` (with comments and
 * effects; also `GET /api/v1/config/cards/{card}`), `update_card` and `add_card_comment` — through cards.ts, the same operations as the tickets webhook,
 * so the same rules hold (statuses and synonyms, priorities, assignee matching, 404 for another organization's
 * card). Writes need the member role and are audit-logged (family `cards`).
 */
import Type from 'typebox';
import type { DomainOperation } from '../../engine/services.ts';
import { addComment, getCard, listCards, updateCard, type CardFilters } from './cards.ts';
import { CARD_FIELDS, checkKey } from './inputs.ts';
import { CARD_PRIORITIES, CARD_STATUSES, LIMITS } from './vocabulary.ts';
import { JSON_VALUE } from '../../engine/operations/tool-schemas.ts';
import { pageFields } from '../../engine/operations/page.ts';
import { RECORD_LIST_LIMITS, recordPageSchema } from '../../engine/operations/record-list.ts';

const CARD_REF = Type.String({ minLength: 1, maxLength: 100, description: 'the card id (uuid) or its key such as OPS-12 (any case)' });
const STATUS_WORDS =
  `${CARD_STATUSES.join(', ')}, or a usual synonym (open/new → triage, to do → todo, in progress/doing → in_progress, on hold → blocked, ` +
  'closed/resolved/complete → done); won\'t do, wontfix, cancelled or canceled archive the card (not counted as done)';

const CARD = Type.Object({
  id: Type.String(),
  key: Type.String({ description: '<PREFIX>-<number>' }),
  number: Type.Integer(),
  url: Type.String(),
  title: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  priority: Type.String({ description: CARD_PRIORITIES.join(', ') }),
  labels: Type.Array(Type.String()),
  service: Type.Union([Type.String(), Type.Null()]),
  assignee_email: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ description: `${CARD_STATUSES.join(', ')} or archived (won't do; distinct from done)` }),
  archived_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  dedup_key: Type.Union([Type.String(), Type.Null()], { description: 'the idempotency key it was created with' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const listCardsOperation = {
  name: 'list_cards',
  description:
    'Cards on the ops board, newest first. Archived (won\'t-do) cards are left out unless status is archived. ' +
    'Filters: status (a status or synonym), label (cards carrying it), service (exact), assignee_email (any case). Paged: pass `next_cursor` back as `cursor`.',
  input: Type.Object(
    {
      status: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: `only cards in this state: ${STATUS_WORDS}; or archived` })),
      label: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.label, description: 'only cards carrying this label' })),
      service: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.service, description: 'only cards of this service (exact)' })),
      assignee_email: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.email, description: 'only cards assigned to the member with this email (any case)' })),
      ...pageFields(RECORD_LIST_LIMITS),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  feature: 'ops_board',
  rest: { method: 'GET', path: 'cards' },
  answer: { schema: recordPageSchema(CARD) },
  async run(services, caller, input) {
    return { json: await listCards(services, caller.organization, input as CardFilters) };
  },
} satisfies DomainOperation;

export const getCardOperation = {
  name: 'get_card',
  description: 'One card by id or key (any case), with its comments in order and its effects (notification, chat_post, assignment_skipped, updated).',
  input: Type.Object({ card: CARD_REF }, { additionalProperties: false }),
  role: 'viewer',
  kind: 'read',
  feature: 'ops_board',
  rest: { method: 'GET', path: 'cards', param: 'card' },
  answer: {
    schema: Type.Object({
      data: Type.Intersect([
        CARD,
        Type.Object({
          comments: Type.Array(Type.Object({ id: Type.String(), body: Type.String(), author: Type.Union([Type.String(), Type.Null()]), comment_id: Type.Union([Type.String(), Type.Null()]), created_at: Type.String() })),
          effects: Type.Array(Type.Object({ kind: Type.String(), at: Type.String(), detail: Type.Record(Type.String(), JSON_VALUE()) })),
          people: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]), {
            description: 'the members the card names (its assignee, comment authors), by email: their name (null: none given)',
          }),
        }),
      ]),
    }),
  },
  async run(services, caller, input) {
    return { json: { data: await getCard(services, caller.organization, String(input.card)) } };
  },
} satisfies DomainOperation;

export const updateCardOperation = {
  name: 'update_card',
  description:
    'Changes a card (by id or key): only the fields given. ' +
    `status: ${STATUS_WORDS}; a status on an archived card brings it back. priority: ${CARD_PRIORITIES.join(', ')} (anything else is refused). ` +
    'labels replaces the list. assignee_email must be a member of the organization (never invites; null unassigns). ' +
    'null clears description and service. Answers { id, key, status, url }.',
  input: Type.Object(
    {
      card: CARD_REF,
      title: Type.Optional(CARD_FIELDS.title),
      description: Type.Optional(CARD_FIELDS.description),
      priority: Type.Optional(Type.String({ maxLength: 40, description: CARD_PRIORITIES.join(', ') })),
      labels: Type.Optional(CARD_FIELDS.labels),
      service: Type.Optional(CARD_FIELDS.service),
      assignee_email: Type.Optional(CARD_FIELDS.assignee_email),
      status: Type.Optional(Type.String({ maxLength: 40, description: STATUS_WORDS })),
    },
    { additionalProperties: false },
  ),
  role: 'member',
  kind: 'write',
  idempotent: true,
  feature: 'ops_board',
  answer: { schema: Type.Object({ data: Type.Object({ id: Type.String(), key: Type.String(), status: Type.String(), url: Type.String() }) }) },
  async run(services, caller, input) {
    const { card, ...fields } = input as Record<string, unknown>;
    const result = await updateCard(services, caller.organization, String(card), fields, services.clock.now(), caller);
    return { json: { data: result.body } };
  },
} satisfies DomainOperation;

export const addCardCommentOperation = {
  name: 'add_card_comment',
  additive: true,
  description:
    'Adds a comment to a card (by id or key; done and archived cards take comments too). author is a display name, not matched against members. ' +
    'comment_id makes a repeat a duplicate: the same id, no second comment.',
  input: Type.Object(
    {
      card: CARD_REF,
      body: Type.String({ minLength: 1, maxLength: LIMITS.comment }),
      author: Type.Optional(Type.String({ maxLength: LIMITS.author })),
      comment_id: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.key, description: 'letters, digits and . _ - : / + = @' })),
    },
    { additionalProperties: false },
  ),
  role: 'member',
  kind: 'write',
  feature: 'ops_board',
  answer: { schema: Type.Object({ data: Type.Object({ id: Type.String(), duplicate: Type.Boolean() }) }) },
  async run(services, caller, input) {
    const { card, comment_id, ...fields } = input as Record<string, unknown>;
    const key = comment_id === undefined ? null : checkKey(comment_id, 'comment_id');
    const result = await addComment(services, caller.organization, String(card), fields, key, services.clock.now(), caller);
    return { json: { data: { id: result.body.id, duplicate: result.duplicate } } };
  },
} satisfies DomainOperation;

export const BOARD_OPERATIONS: DomainOperation[] = [listCardsOperation, getCardOperation, updateCardOperation, addCardCommentOperation];
