/**
 * The contract between the inbound webhooks (webhooks/: the router, the sources) and the handlers that implement
 * it, some of which are the domain's own (deployments, code-host events, tracker events, fix requests): what a
 * handler receives and answers, and how a source's requests are signed. Types only, here so that the domain
 * implements the contract without importing webhooks/, which imports the domain.
 *
 * The router does the shared work (User-Agent, body limit, token, rate limit, signature, delivery log); a handler
 * only turns an accepted request into an answer and an outcome. Each source names its handler and its signing
 * (webhooks/sources/<segment>.ts); the verifiers of the schemes are webhooks/signing.ts.
 */
import type { Organization } from '../engine/auth/caller.ts';
import type { Services } from '../engine/services.ts';

export interface WebhookRequest {
  services: Services;
  organization: Organization;
  /** the source's URL segment */
  source: string;
  /** the bytes as sent */
  raw: Buffer;
  /** the body parsed as JSON, or undefined when it is empty or not JSON */
  body: unknown;
  /** a request header (lowercase name), or undefined */
  header(name: string): string | undefined;
  /** the tickets sub-paths: `/<token>/<card>` and `/<token>/<card>/comments` */
  card?: string;
  comments?: boolean;
  /** a source with a name path (`/<token>/<name>`): the name, decoded */
  name?: string;
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
  /**
   * work that must not delay the answer (a chat press's private reply through `response_url`: the chat product
   * gives up after 3 s): run once the answer is written; it must not throw
   */
  afterAnswer?: () => Promise<void>;
}

export type WebhookHandler = (request: WebhookRequest) => Promise<WebhookAnswer>;

/** `stale`: a valid signature over a delivery too old to accept. */
export type Verdict = 'valid' | 'missing' | 'mismatch' | 'stale';

export type HeaderGetter = (name: string) => string | undefined;

export type Verifier = (raw: Buffer, secret: string, header: HeaderGetter, now: Date) => Verdict;

/** A scalar subquery answering the source's sealed secret or null; it names the organization `o`. */
export type SecretQuery = (services: Services) => { sql: string; params: unknown[] } | undefined;

/** How one source's requests are signed: every fact the router, request_signing and the refusals need. */
export interface Signing {
  /** the scheme's name, named in refusals (and answered as request_signing's `scheme`) */
  scheme: string;
  /** the headers that carry the signature, named in refusals; the first is answered as `signature_header` */
  headers: readonly string[];
  /** how the sender signs, in words (request_signing's refusals list it) */
  notes: string;
  verify: Verifier;
  /** where the secret is saved when not in request_signing, and how it is read */
  savedElsewhere?: { savedIn: string; secretQuery: SecretQuery };
  /** request_signing refuses a secret until the operator switched signing on for the organization ("contact support") */
  operatorSwitch?: boolean;
  /** requests must be signed once the organization has an approved runbook that runs automatically */
  runbookSigned?: boolean;
  /** the refusal of a `stale` verdict */
  staleMessage?: string;
  /**
   * the source is never accepted unsigned (a chat press acts as a member): without a saved secret every request is
   * 401 with this message, refused before the rate limit counts it
   */
  alwaysSigned?: string;
  /**
   * a valid signature is accepted once: it is remembered this long (its timestamp's tolerance on either side) in the
   * store every instance shares, and a second use is 401 `replayed`
   */
  onceWithinMs?: number;
}
