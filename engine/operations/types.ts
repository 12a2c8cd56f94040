import type { Clock } from '../clock.ts';
import type { AuditListener } from './audit.ts';
import type { DomainOperation } from './domain.ts';
import type { KeyRecord } from '../auth/authenticate.ts';
import type { CredentialCache } from '../auth/credential-cache.ts';
import type { ServiceConfig } from '../config.ts';
import type { SecretBox } from '../crypto.ts';
import type { OperationName, Row } from '../descriptor.ts';
import type { FieldError } from '../errors.ts';
import type { CredentialLimiter } from '../http/rate-limit.ts';
import type { Logger } from '../logger.ts';
import type { JobQueue } from '../jobs/types.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Database } from '../persistence/database.ts';
import type { DatabaseOutage } from '../persistence/outage.ts';
import type { Registry } from '../registry.ts';
import type { TargetCheck } from '../targets.ts';

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
  credentials: CredentialCache<KeyRecord>;
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

export interface OperationRequest {
  family: string;
  op: OperationName;
  id?: string;
  body?: unknown;
  /** the `If-Match` header as sent */
  ifMatch?: string;
  /** lists: include archived rows */
  includeArchived?: boolean;
  /** lists: the page size and the previous page's `next_cursor`, as sent (checked by the list: 422 naming them) */
  limit?: unknown;
  cursor?: unknown;
  /** the `Idempotency-Key` header (MCP: `idempotency_key`) as sent; only creates use it */
  idempotencyKey?: unknown;
}

/** Something the caller should know beside a successful answer (an unlinked id, a move that moved nothing). */
export type Notice = FieldError;

export interface OperationResult {
  status: 200 | 201 | 204;
  data?: Row;
  /** a list page; `next_cursor` is null on the last page */
  list?: { data: Row[]; next_cursor: string | null };
  etag?: string;
  /** the row id, for the transport's Location header */
  id?: string;
  notices?: Notice[];
  /** the stored answer of an earlier request with the same idempotency key (`Idempotent-Replayed: true`) */
  replayed?: true;
}
