/**
 * What a source's handler receives and answers. The router does the shared work (User-Agent, body limit,
 * token, rate limit, signature, delivery log); a handler only turns an accepted request into an answer and an
 * outcome. Handlers are handed to `webhookRoutes` as a map, source by source; a source without one answers
 * 200 `{ status: "ok", processed: 0, total: 0 }` and is logged as `no handler yet`.
 */
import type { Organization } from '../engine/auth/caller.ts';
import type { Services } from '../engine/operations/types.ts';
import type { WebhookSource } from './limits.ts';

export interface WebhookRequest {
  services: Services;
  organization: Organization;
  source: WebhookSource;
  /** the bytes as sent */
  raw: Buffer;
  /** the body parsed as JSON, or undefined when it is empty or not JSON */
  body: unknown;
  /** a request header (lowercase name), or undefined */
  header(name: string): string | undefined;
  /** the tickets sub-paths: `/<token>/<card>` and `/<token>/<card>/comments` */
  card?: string;
  comments?: boolean;
  receivedAt: Date;
  /** whether the request carried a valid signature (false when the source has no signing secret) */
  signed: boolean;
}

export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
  /** what became of the delivery, for the log: created, resolved, muted, cooldown, duplicate, ignored, … */
  outcome: string;
  /** a sentence for the log, such as a refusal's reason */
  detail?: string;
  headers?: Record<string, string>;
}

export type WebhookHandler = (request: WebhookRequest) => Promise<WebhookAnswer>;

/**
 * How the router checks a source whose signing secret is kept elsewhere than request_signing (a tracker's secret
 * on its ticket_integrations row): the sealed secret is read in the token lookup's round trip, and while one is
 * saved every request must pass `verify` or is answered 401. Without a saved secret the token alone is enough.
 */
export interface SignatureCheck {
  /** a scalar subquery answering the sealed secret or null; it names the organization `o` */
  secretQuery(services: Services): { sql: string; params: unknown[] } | undefined;
  /** one request against the opened secret: `stale` is a valid signature over a delivery too old to accept */
  verify(raw: Buffer, secret: string, header: (name: string) => string | undefined, now: Date): 'valid' | 'missing' | 'mismatch' | 'stale';
  /** for refusals: the scheme, the headers that carry the signature, where the secret is saved, why stale */
  scheme: string;
  headers: string[];
  savedIn: string;
  staleMessage?: string;
}

export type SignatureChecks = Partial<Record<WebhookSource, SignatureCheck>>;

export type WebhookHandlers = Partial<Record<WebhookSource, WebhookHandler>>;
