/**
 * The JSON body parser of the configuration API, the agent-tool endpoint and the operator API. Two refusals on top
 * of @koa/bodyparser's own (413 too large, 400 not JSON, 415 an unknown Content-Encoding):
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

export function undecodableBody(): ApiError {
  return new ApiError('bad_request', 'The request body does not decode as its Content-Encoding says (gzip, deflate or br); send it encoded as declared, or without Content-Encoding.');
}

export function jsonBodyParser(options: { limit: string }) {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: options.limit,
    encoding: 'utf-8',
    // errors with an HTTP status (size, JSON syntax, unknown encoding) go on to the error middleware as they are
    onError: (error) => {
      throw (error as { status?: unknown }).status === undefined ? undecodableBody() : error;
    },
  });
  return (ctx: Context, next: Next) =>
    parse(ctx, async () => {
      if (nestedDeeperThan((ctx.request as unknown as { body?: unknown }).body, MAX_JSON_DEPTH)) {
        throw new ApiError('bad_request', `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
      }
      await next();
    });
}
