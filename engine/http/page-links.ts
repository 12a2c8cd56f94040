/** REST's side of paged lists: `limit` and `cursor` from the query string, and the next page as an RFC 8288 Link. */
import type { Context } from 'koa';

/** The next page's URL: the same query with the answered cursor; nothing on the last page. */
export function linkNext(ctx: Context, publicUrl: string, cursor: unknown): void {
  if (typeof cursor !== 'string') return;
  const query = new URLSearchParams(ctx.querystring);
  query.set('cursor', cursor);
  ctx.set('Link', `<${publicUrl}${ctx.path}?${query.toString()}>; rel="next"`);
}

/** The page asked for: a whole-number `limit` is read as a number, anything else stays text for the check to name. */
export function pageQuery(ctx: Context): { limit: unknown; cursor: unknown } {
  const last = (name: string) => {
    const raw = ctx.query[name];
    return Array.isArray(raw) ? raw[raw.length - 1] : raw;
  };
  const limit = last('limit');
  return { limit: limit !== undefined && /^-?\d+$/.test(limit) ? Number(limit) : limit, cursor: last('cursor') };
}
