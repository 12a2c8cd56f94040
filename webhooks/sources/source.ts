/**
 * One inbound webhook source: every fact of `POST /webhooks/<segment>/<token>` in one object, one file per source
 * (sources/<segment>.ts) and one entry in the list (sources/index.ts). The router, the ready-made URLs, the body
 * limits, request_signing's signable sources and the refusals all read these objects; nothing else names a source.
 */
import type { Signing, WebhookHandler } from '../../domain/webhook-contract.ts';
import type { SnsTopic } from '../sns-topic.ts';
import type { SnsHttp } from '../sns-trust.ts';
import type { Parser } from './parser.ts';

/** What the handlers may be given when the routes are built (tests inject SNS's HTTP). */
export interface SourceOptions {
  /** how SNS subscription addresses and signing certificates are fetched */
  snsHttp?: SnsHttp;
  /** built once by the router: the alert sources a topic delivers to share it, and so its certificate cache */
  snsTopic?: SnsTopic;
}

export interface WebhookSource {
  /** the URL segment, `POST /webhooks/<segment>/<token>` */
  segment: string;
  /** the product (or kind of sender) the source reads, as named in answers and the delivery log */
  product: string;
  /**
   * the largest body accepted, in bytes: checked from `Content-Length` before reading and again while reading;
   * over it, 413 without reading further
   */
  bodyLimit: number;
  /** the source also takes `/<token>/<card>` and `/<token>/<card>/comments` */
  cardPaths?: boolean;
  /** the source takes `/<token>/<name>` (the handler receives `name`; the bare `/<token>` reaches it without one) */
  namePath?: boolean;
  /**
   * a body that is not JSON but UTF-8 text is kept in the delivery log as that text (credential-like `name=` values
   * removed, NUL dropped): a cron job's output posted to a heartbeat. Off for sources whose text bodies carry
   * credentials (chat's form posts hold a reply URL that is itself one).
   */
  keepsText?: boolean;
  /** the methods the source accepts (default POST only): GET for senders that can only fetch a URL */
  methods?: readonly ('GET' | 'POST')[];
  /** how requests are signed, or null: the token alone (or, for topic sources, the topic's own signature, checked by the handler) */
  signing: Signing | null;
  /** alert sources: reads the product's payload as alert events (pure, never throws) */
  parser?: Parser;
  /**
   * also served at a fixed path that carries the token in the body (PagerDuty's `POST /v2/enqueue`, `routing_key`),
   * for senders whose host can be changed but whose path cannot; the same steps, the token read from the JSON body
   */
  tokenInBody?: {
    path: string;
    /** the token the body carries, or undefined */
    token(body: unknown): string | undefined;
    /**
     * the token read from the raw bytes without parsing them (a bounded scan), or undefined when that cannot be done
     * safely; the parsed body's token must then agree (`token`)
     */
    scan?(raw: Buffer): string | undefined;
    /** the answer when the body carries no token (`sent` false) or one that selects no organization */
    refusal(sent: boolean): { status: number; body: Record<string, unknown> };
  };
  /** the domain's handler of an accepted request, built once when the routes are */
  handler(options: SourceOptions): WebhookHandler;
}

export const KiB = 1024;
export const MiB = 1024 * KiB;
