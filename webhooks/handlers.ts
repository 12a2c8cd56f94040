/**
 * What a source's handler receives and answers. The router does the shared work (User-Agent, body limit,
 * token, rate limit, signature, delivery log); a handler only turns an accepted request into an answer and an
 * outcome. Each source names its handler (sources/<segment>.ts).
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
