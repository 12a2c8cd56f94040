/**
 * The operator API over HTTP for the CLI: global options, one call, and how a refusal is shown. Plain `fetch`, not the
 * service's guarded client (outbound/net): the operator's own command against the Vigil they name with --url (by
 * default a loopback address the guarded client's policy refuses); no organization or payload chose it.
 */
import type { Command } from 'commander';

export const OPERATOR_PREFIX = '/api/admin/v1';
export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface GlobalOptions {
  url: string;
  token?: string;
  json?: boolean;
}

/**
 * Text with the userinfo of every URL in it replaced (`https://ops:pw@vigil…` → `https://***@vigil…`), also when the
 * scheme is missing (`ops:pw@vigil…`): a password given in `--url` or `VIGIL_URL` is never repeated in a message.
 */
export function redactUserinfo(text: string): string {
  return text.replace(/:\/\/[^\s/@"']+@/g, '://***@').replace(/(^|[\s"'(])[^\s/@"':]+:[^\s/@"']*@/g, '$1***@');
}

/** Writes a failure's lines to stderr, userinfo redacted, and sets exit code 1. */
export function reportFailure(lines: string[]): void {
  process.stderr.write(`${lines.map(redactUserinfo).join('\n')}\n`);
  process.exitCode = 1;
}

/** A failure the CLI reports: the lines go to stderr and the process exits 1. */
export class CliError extends Error {
  readonly lines: string[];
  constructor(message: string, details: string[] = []) {
    super(message);
    this.lines = [`error: ${message}`, ...details];
  }
}

interface FieldError {
  field: string;
  message: string;
}

/** `error: <message>` and one line per refused field. */
export function apiErrorLines(status: number, body: unknown): CliError {
  const b = (body && typeof body === 'object' ? body : {}) as { error?: unknown; message?: unknown; errors?: unknown };
  const message = typeof b.message === 'string' ? b.message : `the service answered HTTP ${status}${typeof b.error === 'string' ? ` (${b.error})` : ''}.`;
  const details = Array.isArray(b.errors)
    ? (b.errors as FieldError[]).filter((e) => e && typeof e === 'object').map((e) => `  ${String(e.field)}: ${String(e.message)}`)
    : [];
  return new CliError(message, details);
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

function baseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`--url must be an absolute http(s) URL such as ${DEFAULT_URL}, not "${raw}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`--url must be an http or https URL, not "${raw}".`);
  return url.toString().replace(/\/+$/, '');
}

/** Joins path segments, each percent-encoded (ids come from the command line). */
export function path(...segments: string[]): string {
  return segments.map((s) => `/${encodeURIComponent(s)}`).join('');
}

/** One operator call; answers the parsed JSON body (undefined for 204) or throws a CliError. */
export async function operatorCall(options: GlobalOptions, method: string, route: string, body?: unknown): Promise<unknown> {
  if (!options.token) throw new CliError('no operator token: pass --token <token> or set VIGIL_ADMIN_TOKEN.');
  const { status, parsed } = await vigilRequest(options.url, options.token, method, `${OPERATOR_PREFIX}${route}`, body);
  if (status < 200 || status > 299) throw apiErrorLines(status, parsed);
  return parsed;
}

/** One call to Vigil with a bearer credential (the operator token, or an organization key): the status and the parsed body. */
export async function vigilRequest(url: string, credential: string, method: string, route: string, body?: unknown): Promise<{ status: number; parsed: unknown }> {
  const base = baseUrl(url);
  const headers: Record<string, string> = { authorization: `Bearer ${credential}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${base}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new CliError(`could not reach Vigil at ${base} (${why}). Is it running? Check --url or VIGIL_URL.`);
  }
  const text = await res.text();
  let parsed: unknown;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new CliError(`${base} answered HTTP ${res.status} with something that is not JSON; is --url pointing at Vigil?`);
    }
  }
  return { status: res.status, parsed };
}

/** Runs an action: prints the raw JSON (`--json`) or the human lines; a CliError goes to stderr with exit code 1. */
export function action<A extends unknown[]>(
  run: (options: GlobalOptions, ...args: A) => Promise<{ answer: unknown; lines: string[] }>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const command = args[args.length - 1] as Command;
    try {
      const options = globalOptions(command);
      const { answer, lines } = await run(options, ...args);
      if (options.json) {
        if (answer !== undefined) process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
      } else if (lines.length) {
        process.stdout.write(`${lines.join('\n')}\n`);
      }
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      reportFailure(error.lines);
    }
  };
}
