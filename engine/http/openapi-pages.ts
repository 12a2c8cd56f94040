/** The OpenAPI side of paged lists: the `limit` and `cursor` query parameters, the page's answer and its Link header. */
import { CURSOR, limitSchema, NEXT_CURSOR, type PageLimits } from '../operations/page.ts';
import { copy, type Json } from './openapi-schemas.ts';

export function pageParameters(limits: PageLimits): Json[] {
  const { description: limitText, ...limit } = copy(limitSchema(limits)) as unknown as Json;
  const { description: cursorText, ...cursor } = copy(CURSOR) as unknown as Json;
  return [
    { name: 'limit', in: 'query', required: false, description: `${limitText}; outside that range (or not a whole number) is 422 naming \`limit\``, schema: limit },
    { name: 'cursor', in: 'query', required: false, description: `${cursorText}; a cursor that was altered or issued for another list is 422 naming \`cursor\``, schema: cursor },
  ];
}

/** RFC 8288: the next page's URL, on every page but the last. */
export const LINK_HEADER: Json = {
  description: 'The next page: `<URL>; rel="next"` (RFC 8288), the same request with `cursor` set to `next_cursor`. Absent on the last page.',
  schema: { type: 'string' },
};

/** The members every page answers beside its rows. */
export function pageMembers(): Json {
  return {
    next_cursor: copy(NEXT_CURSOR) as unknown as Json,
    truncated: { type: 'boolean', description: 'true when a next page exists (`next_cursor` is not null); kept for clients written before lists were paged' },
  };
}

/** Whether a domain operation's answer is a page (it answers `next_cursor`). */
export function answersPage(schema: Json | undefined): boolean {
  return Boolean(schema && typeof schema.properties === 'object' && schema.properties !== null && 'next_cursor' in (schema.properties as Json));
}
