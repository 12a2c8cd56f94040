/**
 * `metric-dashboard`: Grafana unified alerting's webhook contact point, and the Alertmanager webhook shape
 * (`version: "4"`, which Grafana's payload extends), both grouped: one request carries several alerts.
 *
 *   { receiver, status, orgId?, version, groupKey, groupLabels, commonLabels, commonAnnotations, externalURL,
 *     alerts: [{ status, labels, annotations, startsAt, endsAt, generatorURL, fingerprint,
 *                silenceURL?, dashboardURL?, panelURL?, values? }] }
 *
 * Status: each alert's own `status` (the group's when an alert has none): `firing` → firing, `resolved` →
 * resolved. Neither product has an acknowledged state.
 *
 * Fingerprint: `metric-dashboard:<alert.fingerprint>` (Grafana's and Alertmanager's hash of the alert's labels,
 * identical in the firing and the resolved delivery); when absent, a digest of the sorted labels.
 *
 * Severity, from the first of the labels `severity`, `priority`, `level` (then the same annotations):
 *   critical / crit / fatal / emergency / p0 / p1 / sev1 → critical
 *   high / error / major / page / p2 / sev2             → high
 *   warning / warn / medium / minor / p3 / sev3         → warning
 *   info / low / notice / none / p4 / p5                → info
 *   no such label, or a word not listed                 → warning
 *
 * Title: the `alertname` label (else the `summary` or `title` annotation). Summary: the `summary` annotation
 * (else `description`, `message`). Service: the `service` label (else `app`, `job`). URL: `generatorURL`.
 * Links, kept as sent (the console links the http(s) ones): `runbook` (the `runbook_url` annotation, Alertmanager's
 * and Grafana's convention), `dashboard`, `panel` and `silence` (Grafana's `dashboardURL`, `panelURL`,
 * `silenceURL`), `source` (`generatorURL`: the rule in Grafana, the expression in Prometheus); empty ones left out.
 * Labels: the alert's labels. Grafana's `values` and annotations stay out of the labels (values change on every
 * evaluation; annotations are prose).
 */
import { field, isoTime, isRecord, record, str, type Json } from '../../engine/payload.ts';
import {
  alerts,
  digest,
  event,
  fingerprint,
  id,
  Labels,
  MAX_ALERTS_PER_REQUEST,
  objectBody,
  safe,
  severityFromWord,
  unreadable,
} from './alert-parsing.ts';
import type { AlertEvent, AlertSeverity } from '../../domain/alerts/event.ts';
import type { ParseResult } from './parser.ts';
import { alertHandler } from '../alert-handler.ts';
import { signedWith } from '../signing.ts';
import { MiB, type WebhookSource } from './source.ts';

const SOURCE = 'metric-dashboard' as const;
const DEFAULT_SEVERITY: AlertSeverity = 'warning';

function severityOf(labels: Json, annotations: Json): AlertSeverity {
  for (const obj of [labels, annotations]) {
    for (const key of ['severity', 'priority', 'level']) {
      const sev = severityFromWord(str(obj, key));
      if (sev) return sev;
    }
  }
  return DEFAULT_SEVERITY;
}

/** Where the sender's links are, by the kind the alert keeps them under. */
const LINKS: readonly [kind: string, from: 'alert' | 'annotations', key: string][] = [
  ['runbook', 'annotations', 'runbook_url'], ['dashboard', 'alert', 'dashboardURL'], ['panel', 'alert', 'panelURL'], ['silence', 'alert', 'silenceURL'], ['source', 'alert', 'generatorURL'],
];

function linksOf(raw: Json, annotations: Json): Record<string, string> | undefined {
  const found = LINKS.flatMap(([kind, from, key]) => {
    const value = str(from === 'alert' ? raw : annotations, key, 4096);
    return value ? [[kind, value] as const] : [];
  });
  return found.length ? Object.fromEntries(found) : undefined;
}

function readAlert(raw: unknown, index: number, groupStatus: string | undefined): AlertEvent | string {
  const at = `alerts[${index}]`;
  if (!isRecord(raw)) return `${at} is not an object`;
  const status = str(raw, 'status') ?? groupStatus;
  if (status !== 'firing' && status !== 'resolved') {
    // the value sent is not repeated: it is the sender's text, and the log and the answer are ours
    return `${at}.status must be "firing" or "resolved"${status === undefined ? ' and is missing' : ''}`;
  }
  const labelsObj = record(raw, 'labels');
  const annotations = record(raw, 'annotations') ?? {};
  const own = id(field(raw, 'fingerprint'));
  if (!labelsObj && own === undefined) return `${at} has neither labels nor a fingerprint`;
  const labelObj = labelsObj ?? {};
  const labels = new Labels().setAll(labelObj).map;
  const key = own ?? digest(Object.keys(labelObj).sort().map((k) => `${k}=${String(labelObj[k])}`));

  const alertname = str(labelObj, 'alertname');
  const summaryAnn = str(annotations, 'summary');
  const title = alertname ?? summaryAnn ?? str(annotations, 'title') ?? `Alert ${key}`;
  const summary = (alertname ? summaryAnn : undefined) ?? str(annotations, 'description') ?? str(annotations, 'message');

  return event({
    fingerprint: fingerprint(SOURCE, key),
    status,
    title,
    source: SOURCE,
    severity: severityOf(labelObj, annotations),
    service: str(labelObj, 'service') ?? str(labelObj, 'app') ?? str(labelObj, 'job'),
    summary,
    labels,
    url: str(raw, 'generatorURL', 4096),
    links: linksOf(raw, annotations),
    started_at: isoTime(field(raw, 'startsAt')),
    ended_at: status === 'resolved' ? isoTime(field(raw, 'endsAt')) : undefined,
    external_id: own,
  });
}

function parseBody(body: unknown): ParseResult {
  const obj = objectBody(body, 'Grafana or Alertmanager');
  if (typeof obj === 'string') return unreadable(obj);
  const list = obj['alerts'];
  if (!Array.isArray(list)) return unreadable('alerts is missing: expected the `alerts` array of a Grafana or Alertmanager webhook');
  if (list.length > MAX_ALERTS_PER_REQUEST) return unreadable(`alerts has ${list.length} entries; at most ${MAX_ALERTS_PER_REQUEST} per request`);
  const groupStatus = str(obj, 'status');
  const events: AlertEvent[] = [];
  for (let i = 0; i < list.length; i++) {
    const e = readAlert(list[i], i, groupStatus);
    if (typeof e === 'string') return unreadable(e);
    events.push(e);
  }
  return alerts(events);
}

export const parse = safe(SOURCE, parseBody);

const product = 'Grafana or Alertmanager';

export const metricDashboard: WebhookSource = {
  segment: SOURCE,
  product,
  // a grouped Grafana or Alertmanager notification with many alerts stays well below 1 MiB
  bodyLimit: MiB,
  signing: signedWith('grafana-hmac', {
    notes: 'hex HMAC-SHA256 of the body in X-Grafana-Alerting-Signature (Grafana contact point "HMAC Signature"; optional Timestamp Header X-Grafana-Alerting-Timestamp, then "<timestamp>:<body>" is signed)',
    operatorSwitch: true,
    runbookSigned: true,
  }),
  parser: parse,
  handler: (options) => alertHandler({ product, parser: parse }, options),
};
