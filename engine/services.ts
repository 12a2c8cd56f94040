/**
 * What every operation, job and listener runs against (`Services`), with the contracts it lists that receive it
 * back: domain operations and audit listeners. One file, so the types that name each other do not form an import
 * cycle; what they name besides (the job queue, the audit entry, the rate limiter) lives apart and imports none of
 * this.
 */
import type { TSchema } from 'typebox';
import type { KeyRecord } from './auth/authenticate.ts';
import type { Caller } from './auth/caller.ts';
import type { SharedCache } from './persistence/shared-cache.ts';
import type { Clock } from './clock.ts';
import type { ErrorCode } from './errors.ts';
import type { ServiceConfig } from './config.ts';
import type { SecretBox } from './crypto.ts';
import type { Row } from './descriptor.ts';
import type { CredentialLimiter } from './http/rate-limit.ts';
import type { JobQueue } from './jobs/queue-types.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './observability/metrics.ts';
import type { AuditEntry } from './operations/audit-entry.ts';
import type { Database } from './persistence/database.ts';
import type { DatabaseOutage } from './persistence/outage.ts';
import type { FamilyStore } from './persistence/store.ts';
import type { Feature, Role } from './plans.ts';
import type { Registry } from './registry.ts';
import type { TargetCheck } from './targets.ts';

/** What every operation runs against; built once at start-up. */
export interface Services {
  db: Database;
  registry: Registry;
  clock: Clock;
  config: ServiceConfig;
  secrets: SecretBox;
  log: Logger;
  /** operations beyond family CRUD (the audit log, the export, …), served by REST and the agent-tool endpoint */
  domain: readonly DomainOperation[];
  /** API-key lookups, cleared by every operator change */
  credentials: SharedCache<KeyRecord>;
  /** each organization's rows of the families that are `cachedRows`, by `<family>:<organization>` */
  rows: SharedCache<Row[]>;
  /** the durable background job queue (engine/jobs): enqueue with `send`, inside a transaction through its store */
  jobs: JobQueue;
  /** whether the database is reachable: turns connection failures into 503 `unavailable`, logging an outage once */
  outage: DatabaseOutage;
  /** Prometheus metrics of this service (GET /metrics) */
  metrics: Metrics;
  /** judges the targets a write sends (URLs the service calls, links) under the deployment's address policies */
  targets: TargetCheck;
  /** told of every audit entry inside its write's transaction (change notifications) */
  auditListeners: readonly AuditListener[];
  /** the per-credential request limit of REST and MCP (engine/http/rate-limit.ts); absent when the limit is off */
  rateLimit?: CredentialLimiter;
  /**
   * registers what `close()` runs once no request is in flight, before the jobs stop and the database closes:
   * parts that hold connections of their own (the rate-limit store's Redis client) let them go there
   */
  onClose(hook: () => Promise<void>): void;
}

/** JSON for REST's body and MCP's structuredContent, or a document (such as an HCL file) as text. */
export type DomainResult = { json: Record<string, unknown> } | { text: string; contentType: string };

export interface DomainOperation {
  /** the agent tool's name, snake_case */
  name: string;
  description: string;
  /** an object schema; REST takes it from the query string (GET) or the body (POST) */
  input: TSchema;
  role: Role;
  feature?: Feature;
  /** `read` operations answer viewers and read-only keys; `write` ones refuse read-only keys */
  kind: 'read' | 'write';
  /** a write that leaves the same state when repeated with the same input (the agent tool's idempotentHint) */
  idempotent?: boolean;
  /** a write that only adds (a comment, an entry) and never changes or removes what is there (destructiveHint false) */
  additive?: boolean;
  /**
   * where REST serves it under /api/v1/config; absent: agent tool only. With `param`, REST serves
   * `/<path>/{<param>}` and the segment is that input field (`get_alert`: GET /alerts/{id}). With `action` too, an
   * action on that one row: `POST /<path>/{<param>}/<action>` (`acknowledge_alert`: POST /alerts/{id}/acknowledge),
   * the body holding the rest of the input. A GET with `action` is a view of one row, and may sit under a family's
   * path (`GET /schedules/{id}/shifts`), its other input from the query string.
   */
  rest?: {
    method: 'GET' | 'POST';
    path: string;
    param?: string;
    action?: string;
    /** a JSON body limit above the API's own (1mb), for an operation whose one request carries a whole configuration */
    bodyLimit?: string;
  };
  /**
   * what a success answers: a JSON schema (OpenAPI's answer, the agent tool's output schema), or a document's content
   * type (the tool then answers `{ content_type, text }`). Required, and one of the two must be given (checked when
   * the tools are built), so an agent and a typed client know every answer. `refusals`: what it may refuse with
   * beyond what every operation may (validation, roles, a row of the path not found), so REST documents them.
   */
  answer: { schema?: TSchema; contentType?: string; refusals?: readonly ErrorCode[] };
  /**
   * it reaches outside the service when it runs (a tracker's API, a receiver's URL, an AI provider): the agent tool's
   * `openWorldHint`. Absent: it reads and writes this service's own data only.
   */
  reachesOutside?: true;
  /**
   * `false`: not an agent tool — an operation only a person in the console runs (making their own personal access
   * token: a credential never mints credentials). Without `rest` too, the console is its one transport.
   */
  agentTool?: false;
  /**
   * the answer as flat records for a spreadsheet: REST answers `text/csv` (one column per key, in first-seen order)
   * when the request's Accept prefers it to JSON (engine/http/csv.ts). Absent: JSON only.
   */
  csv?(json: Record<string, unknown>): Record<string, string | number | boolean | null>[];
  run(services: Services, caller: Caller, input: Row): Promise<DomainResult>;
}

/**
 * Told of the audit entries that concern it, inside the write's transaction (`store`), after the entry is written:
 * what it enqueues commits or rolls back with the change. Other parts register listeners in their module's
 * `auditListeners` (engine/module.ts).
 *
 * `concerns` is asked before the write, with what the entry will say of it: a write no listener is concerned with
 * is written in one statement, without a transaction around it (engine/operations/write.ts). It should answer from
 * the entry and memory (`cachedRows`), not a query per write; answering true when unsure is always safe.
 */
export interface AuditListener {
  concerns(services: Services, entry: AuditFacts): boolean | Promise<boolean>;
  record(services: Services, store: FamilyStore, entry: AuditEntry): Promise<void>;
}

/** What a write's audit entry will say before it is written. */
export type AuditFacts = Pick<AuditEntry, 'organizationId' | 'family' | 'action'>;
