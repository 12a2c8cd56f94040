/**
 * The alert source parsers by URL segment (`POST /webhooks/<source>/<token>`). Each is pure — no HTTP, no
 * database — and never throws: whatever the body, it answers alerts, an SNS subscription message, or
 * `unreadable` with the reason (the HTTP layer answers 400 with it).
 */
import { parse as cloudAlarms } from './cloud-alarms.ts';
import { parse as cloudAudit } from './cloud-audit.ts';
import { parse as incidentPager } from './incident-pager.ts';
import { parse as metricDashboard } from './metric-dashboard.ts';
import { parse as monitoringA } from './monitoring-a.ts';
import { parse as monitoringB } from './monitoring-b.ts';
import { ALERT_SOURCES, type AlertSource, type Parser } from './types.ts';

export const ALERT_PARSERS: Readonly<Record<AlertSource, Parser>> = Object.freeze({
  'metric-dashboard': metricDashboard,
  'incident-pager': incidentPager,
  'monitoring-a': monitoringA,
  'monitoring-b': monitoringB,
  'cloud-alarms': cloudAlarms,
  'cloud-audit': cloudAudit,
});

export function isAlertSource(segment: string): segment is AlertSource {
  return (ALERT_SOURCES as readonly string[]).includes(segment);
}

/** The parser of an alert source segment, or undefined for any other segment. */
export function parserFor(segment: string): Parser | undefined {
  return isAlertSource(segment) ? ALERT_PARSERS[segment] : undefined;
}

export { ALERT_SOURCES, AlertEventSchema } from './types.ts';
export type { AlertEvent, AlertSeverity, AlertSource, AlertStatus, ParseResult, Parser } from './types.ts';
