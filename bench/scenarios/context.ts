/** What every scenario module gets from `bench/run.ts`, and what it hands back: pairs of measured runs. */
import type { Options } from 'autocannon';
import type { Child, Measured, Observer } from '../lib.ts';

export interface BenchContext {
  /** the one Vigil child every scenario runs against (bench/servers/vigil-webhooks.ts: the service as deployed) */
  vigil: Child;
  operatorToken: string;
  watch: Observer;
  /** starts a bare server child from bench/servers/; stopped by the caller's `stop()` or at the end of the run */
  bare(file: string): Promise<Child>;
  /** measures the bare target (and the floor, given one), then Vigil's, one after the other in this run */
  pair(spec: PairSpec): Promise<Pair>;
  /** seconds each target of a pair is loaded, warm-ups included: what a scenario that uses rows up sizes its seed by */
  secondsPerTarget: number;
}

export interface PairSpec {
  key: string;
  name: string;
  bare: { child: Child; options: Omit<Options, 'duration'> };
  vigil: Omit<Options, 'duration'>;
  /** what a request of each is, for the report */
  describe: { vigil: string; bare: string };
  /**
   * A third target that takes turns with the other two in every round (bare, floor, Vigil): the least any request
   * of the kind costs (issue 23: one bare insert, the floor of any write), which Vigil's req/s is also divided by.
   */
  floor?: { child: Child; options: Omit<Options, 'duration'>; describe: string };
}

/** The floor's figures: its runs, and Vigil's req/s over its req/s (the median of the rounds', each round's in order). */
export interface Floor {
  describe: string;
  measured: Measured;
  ratio: number;
  rounds: number[];
}

export interface Pair {
  key: string;
  name: string;
  describe: { vigil: string; bare: string };
  bare: Measured;
  vigil: Measured;
  /** Vigil req/s over bare req/s: the median of the rounds' ratios */
  ratio: number;
  /** each round's ratio, in order */
  rounds: number[];
  /** the spec's floor, measured in the same rounds */
  floor?: Floor;
  /** what the tables recorded, in sentences */
  notes: string[];
  /** checks that failed (the run is then not valid) */
  failures: string[];
  /** BENCH_SQL: the Vigil child's statements per answered request, most time first */
  sql?: { sql: string; perRequest: number; msPerRequest: number }[];
}

export const hex = (n: number) => n.toString(16).padStart(12, '0');

/** One JSON request to a server; throws unless it answers `status` (or one of them). Paths with a webhook token are shown without it. */
export async function call(url: string, method: string, token: string | undefined, body: unknown, status: number | number[], headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (![status].flat().includes(res.status)) throw new Error(`${method} ${new URL(url).pathname.replace(/vigil_wh_\w+/, '<token>')}: expected ${status}, got ${res.status} ${text.slice(0, 500)}`);
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

/** An organization through the operator API and, given scopes, a key of it. */
export async function organization(ctx: BenchContext, name: string, plan: string, scopes?: string[]) {
  const url = ctx.vigil.info.url;
  const org = await call(`${url}/api/admin/v1/organizations`, 'POST', ctx.operatorToken, { name, plan }, 201);
  const key = scopes && (await call(`${url}/api/admin/v1/organizations/${org.id}/api_keys`, 'POST', ctx.operatorToken, { name: 'bench', scopes }, 201));
  return { id: org.id as string, webhookToken: org.webhook_token as string, key: key?.key as string };
}
