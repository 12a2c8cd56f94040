/**
 * The inbound webhook sources, one entry per URL segment (`POST /webhooks/<segment>/<token>`): adding a source is
 * one file (sources/<segment>.ts, a WebhookSource) and one entry here. Everything else is derived from this list:
 * the router's routes and limits, the ready-made URLs and the signable sources the engine is told of, the delivery
 * log's source filter.
 */
import type { WebhookSourceFacts } from '../../engine/config.ts';
import { chatSource } from './chat.ts';
import { cloudAlarms } from './cloud-alarms.ts';
import { cloudAudit } from './cloud-audit.ts';
import { codeHost } from './code-host.ts';
import { deployments } from './deployments.ts';
import { events } from './events.ts';
import { fixRequests } from './fix-requests.ts';
import { heartbeat } from './heartbeat.ts';
import { incidentPager } from './incident-pager.ts';
import { issueTracker } from './issue-tracker.ts';
import { metricDashboard } from './metric-dashboard.ts';
import { monitoringA } from './monitoring-a.ts';
import { monitoringB } from './monitoring-b.ts';
import type { WebhookSource } from './source.ts';
import { sprintTracker } from './sprint-tracker.ts';
import { tickets } from './tickets.ts';

export const SOURCES: readonly WebhookSource[] = Object.freeze([
  metricDashboard,
  incidentPager,
  monitoringA,
  monitoringB,
  cloudAlarms,
  cloudAudit,
  events,
  deployments,
  codeHost,
  tickets,
  issueTracker,
  sprintTracker,
  fixRequests,
  chatSource,
  heartbeat,
]);

const BY_SEGMENT = new Map(SOURCES.map((s) => [s.segment, s]));

/** The source served at a URL segment, or undefined (a Map: `__proto__` and friends are not segments). */
export function sourceAt(segment: string): WebhookSource | undefined {
  return BY_SEGMENT.get(segment);
}

/** Every URL segment, in the list's order. */
export const SEGMENTS: readonly string[] = SOURCES.map((s) => s.segment);

/**
 * What the engine is told of the sources (ServiceConfig.webhookSources): the segments, for the ready-made URLs and
 * metrics, and for a source whose secret is saved in request_signing, its scheme, so that family can accept,
 * describe and refuse sources without knowing any.
 */
export const WEBHOOK_SOURCES: readonly WebhookSourceFacts[] = SOURCES.map(({ segment, signing }) => ({
  segment,
  ...(signing && !signing.savedElsewhere
    ? { signing: { scheme: signing.scheme, header: signing.headers[0]!, notes: signing.notes, operatorSwitch: signing.operatorSwitch === true } }
    : {}),
}));

export type { ParseResult, Parser } from './parser.ts';
export type { SourceOptions, WebhookSource } from './source.ts';
