/**
 * The numbers of the webhook endpoints (the spec leaves all but the tickets body limit to us).
 *
 * Body limits, in bytes, checked from `Content-Length` before reading and again while reading (a chunked body
 * is cut off at the limit; 413 without reading further):
 * - tickets (three endpoints): 65,536 — the spec's value;
 * - alert sources (dashboard, pager, monitoring-a/-b, cloud alarms/audit): 1 MiB — a grouped Grafana or
 *   Alertmanager notification with many alerts stays well below it; SNS messages are at most 256 KiB;
 * - code-host: 5 MiB — GitHub push and pull-request payloads can be a few megabytes (GitHub's own cap is 25 MB,
 *   which would let one request hold too much memory);
 * - issue-tracker and sprint-tracker: 1 MiB — tracker issue payloads carry change logs and descriptions;
 * - deployments and fix-requests: 64 KiB — a few short fields each.
 *
 * Rate limit: 600 requests per minute per organization and source (10 a second sustained; a storm of single-alert
 * deliveries fits, a runaway sender does not). Over it: 429 `rate_limited` with `Retry-After` in seconds.
 */
import type { WEBHOOK_SOURCES } from './sources.ts';

export type WebhookSource = (typeof WEBHOOK_SOURCES)[number];

const KiB = 1024;
const MiB = 1024 * KiB;

export const BODY_LIMITS: Record<WebhookSource, number> = {
  'metric-dashboard': MiB,
  'incident-pager': MiB,
  'monitoring-a': MiB,
  'monitoring-b': MiB,
  'cloud-alarms': MiB,
  'cloud-audit': MiB,
  deployments: 64 * KiB,
  'code-host': 5 * MiB,
  tickets: 65_536,
  'issue-tracker': MiB,
  'sprint-tracker': MiB,
  'fix-requests': 64 * KiB,
};

/** Sources that also take `/<token>/<card>` and `/<token>/<card>/comments`. */
export const SOURCES_WITH_CARD_PATHS: readonly WebhookSource[] = ['tickets'];

export interface RateLimit {
  /** requests allowed per organization and source in one window */
  points: number;
  /** the window, in seconds */
  durationSeconds: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { points: 600, durationSeconds: 60 };

/**
 * The configuration API's and agent-tool endpoint's limit per API key or personal token (`VIGIL_API_RATE_LIMIT`):
 * 600 a minute, 10 a second sustained — an agent or a Terraform run with parallel requests fits, a runaway loop
 * does not.
 */
export const DEFAULT_API_RATE_LIMIT: RateLimit = { points: 600, durationSeconds: 60 };
