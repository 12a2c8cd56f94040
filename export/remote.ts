/**
 * The configuration API over HTTP, as `vigil plan` and `vigil apply` use it: one call, JSON or text back. Plain
 * `fetch`, not the service's guarded client (outbound/net): this runs on the person's own machine against the Vigil
 * they name with --url, an address no organization or payload chose, and often a loopback or private one that the
 * guarded client's address policy exists to refuse.
 */
import type { Row } from '../engine/descriptor.ts';

export const CONFIG_PREFIX = '/api/v1/config';

/** A failure to report to a person: a sentence, and detail lines (one per refused field). */
export class PlanError extends Error {
  readonly details: string[];
  /** the service's error code, when the service refused */
  readonly code: string | undefined;
  constructor(message: string, details: string[] = [], code?: string) {
    super(message);
    this.details = details;
    this.code = code;
  }
}

export interface Answer {
  status: number;
  /** parsed JSON, or undefined */
  body: any;
  text: string;
  etag?: string;
}

export interface ConfigApi {
  call(method: string, path: string, body?: Row, headers?: Record<string, string>): Promise<Answer>;
}

/** `error: message` and `field: message` lines of an API refusal. */
export function refusal(answer: Answer): { message: string; details: string[] } {
  const body = (answer.body && typeof answer.body === 'object' ? answer.body : {}) as { error?: unknown; message?: unknown; errors?: unknown };
  const message = typeof body.message === 'string' ? body.message : `the service answered HTTP ${answer.status}`;
  const details = Array.isArray(body.errors) ? (body.errors as { field: unknown; message: unknown }[]).map((e) => `${String(e.field)}: ${String(e.message)}`) : [];
  return { message: typeof body.error === 'string' ? `${message} (${body.error})` : message, details };
}

/** The path of a row (or a singleton, without an id) of a family. */
export function rowPath(family: string, id?: string): string {
  return `${CONFIG_PREFIX}/${family}${id === undefined ? '' : `/${encodeURIComponent(id)}`}`;
}

export function httpConfigApi(url: string, key: string): ConfigApi {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new PlanError(`--url must be an absolute http(s) URL, not "${url}".`);
  }
  const root = base.toString().replace(/\/+$/, '');
  return {
    async call(method, path, body, headers = {}) {
      let res: Response;
      try {
        res = await fetch(`${root}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/plain', ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
          body: body ? JSON.stringify(body) : undefined,
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new PlanError(`could not reach Vigil at ${root} (${cause?.code ?? cause?.message ?? (error as Error).message}). Is it running? Check --url or VIGIL_URL.`);
      }
      const text = await res.text();
      let parsed: unknown;
      if ((res.headers.get('content-type') ?? '').includes('json') && text) {
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON after all */
        }
      }
      if (res.status === 401) throw new PlanError(`the organization API key was refused: ${refusal({ status: 401, body: parsed, text }).message}`);
      return { status: res.status, body: parsed, text, etag: res.headers.get('etag') ?? undefined };
    },
  };
}
