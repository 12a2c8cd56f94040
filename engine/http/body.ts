/**
 * The JSON body parser of the configuration API, the agent-tool endpoint and the operator API. Two refusals on top
 * of @koa/bodyparser's own (413 too large, 400 not JSON), and a clear 415 for a Content-Encoding it does not decode:
 * - a body whose Content-Encoding (gzip, deflate, br) does not decode: 400 `bad_request`, as a webhook whose body
 *   cannot be read (zlib's error carries no HTTP status, so it would otherwise be a 500);
 * - a body nested deeper than MAX_JSON_DEPTH arrays and objects: 400 `bad_request`, before anything walks it (the
 *   validator and the NUL check recurse; 20,000 levels overflow the stack). JSON.parse itself copes with any depth.
 */
import { bodyParser } from '@koa/bodyparser';
import type { Context, Next } from 'koa';
import { ApiError } from '../errors.ts';
import { nestedDeeperThan } from '../validation.ts';

/** How deep a JSON body may nest (the top level is 1; for the agent-tool endpoint, the JSON-RPC envelope counts). */
export const MAX_JSON_DEPTH = 64;

/** The Content-Encodings the body parser decodes (one at a time); any other is 415 before reading. */
const DECODED = ['gzip', 'deflate', 'br', 'identity'];

export function jsonBodyParser(options: { limit: string }) {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: options.limit,
    encoding: 'utf-8',
    // errors with an HTTP status (size, JSON syntax) go on to the error middleware as they are; zlib's have none
    onError: (error) => {
      if ((error as { status?: unknown }).status !== undefined) throw error;
      throw new ApiError('bad_request', 'The request body does not decode as its Content-Encoding says; send it encoded as declared, or without Content-Encoding.');
    },
  });
  return (ctx: Context, next: Next) => {
    const encoding = ctx.get('content-encoding').trim().toLowerCase();
    if (encoding && !DECODED.includes(encoding) && ['POST', 'PUT', 'PATCH'].includes(ctx.method)) {
      throw new ApiError('unsupported_media_type', `The body's Content-Encoding is not one this API decodes; send ${DECODED.join(', ')} or none.`);
    }
    return parse(ctx, async () => {
      if (nestedDeeperThan((ctx.request as unknown as { body?: unknown }).body, MAX_JSON_DEPTH)) {
        throw new ApiError('bad_request', `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
      }
      await next();
    });
  };
}
