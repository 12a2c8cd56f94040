/**
 * `cloud-alarms`: Amazon CloudWatch alarm state changes delivered by an SNS topic's HTTPS subscription. The SNS
 * envelope (see sns.ts) carries the alarm as JSON text in `Message`:
 *
 *   { AlarmName, AlarmDescription, AWSAccountId, AlarmConfigurationUpdatedTimestamp?, NewStateValue,
 *     NewStateReason, StateChangeTime, Region ("US East (N. Virginia)"), AlarmArn?, OldStateValue,
 *     OKActions, AlarmActions, InsufficientDataActions,
 *     Trigger?: { MetricName, Namespace, StatisticType, Statistic, Unit, Dimensions: [{ name, value }], Period,
 *                 EvaluationPeriods, ComparisonOperator, Threshold, … } }   (composite alarms: AlarmRule instead)
 *
 * SubscriptionConfirmation / UnsubscribeConfirmation envelopes are answered as `subscription` results.
 *
 * Status, from `NewStateValue`: ALARM → firing; OK → resolved; INSUFFICIENT_DATA → firing (at warning
 * severity: the metric stopped reporting, which is worth a look but is not the alarm's own condition).
 *
 * Fingerprint: `cloud-alarms:<AWSAccountId>:<Region>:<AlarmName>` (one alert per alarm; the ALARM and the later
 * OK notification share it).
 *
 * Severity: CloudWatch alarms carry none, so the alarm description may name one — `severity:critical`,
 * `severity=high`, `[warning]`, … (critical, high, warning, info) — and otherwise ALARM (and its OK) → high;
 * INSUFFICIENT_DATA → warning.
 *
 * Title: `AlarmName`. Summary: the description, then `NewStateReason`. Service: a `service:<name>` word in the
 * description, else the `ServiceName` or `FunctionName` dimension. URL: the CloudWatch console page of the
 * alarm (when `AlarmArn` gives its region code). Labels: account, region, state, previous state, namespace,
 * metric, and the metric's dimensions.
 */
import { field, isoTime, isRecord, record, str, text, type Json } from '../../engine/payload.ts';
import { alerts, event, fingerprint, id, Labels, safe, severityFromWord, unreadable } from './alert-parsing.ts';
import { throughSns } from './sns.ts';
import type { AlertSeverity, EventStatus } from '../../domain/alerts/event.ts';
import type { ParseResult } from './parser.ts';
import { alertHandler } from '../alert-handler.ts';
import { MiB, type WebhookSource } from './source.ts';

const SOURCE = 'cloud-alarms' as const;

const STATES: Record<string, EventStatus> = { ALARM: 'firing', OK: 'resolved', INSUFFICIENT_DATA: 'firing' };

function severityOf(state: string, description: string | undefined): AlertSeverity {
  const m = description ? /(?:\bseverity\s*[:=]\s*|\[)(critical|high|warning|info)\b/i.exec(description) : null;
  const named = severityFromWord(m?.[1]);
  if (state === 'INSUFFICIENT_DATA') return named === 'info' ? 'info' : 'warning';
  return named ?? 'high';
}

function dimensions(trigger: Json | undefined): [string, string][] {
  const dims = trigger ? field(trigger, 'Dimensions') : undefined;
  if (!Array.isArray(dims)) return [];
  const out: [string, string][] = [];
  for (const d of dims.slice(0, 30)) {
    if (!isRecord(d)) continue;
    const name = str(d, 'name', 128) ?? str(d, 'Name', 128);
    const value = str(d, 'value') ?? str(d, 'Value');
    if (name && value) out.push([name, value]);
  }
  return out;
}

/** `arn:aws:cloudwatch:us-east-1:123456789012:alarm:name` → its region code. */
function regionCode(arn: string | undefined): string | undefined {
  const parts = arn?.split(':');
  return parts && parts.length >= 7 && parts[0] === 'arn' && /^[a-z]{2}(-[a-z]+)+-\d$/.test(parts[3]) ? parts[3] : undefined;
}

function readAlarm(message: Json): ParseResult {
  const name = id(field(message, 'AlarmName'));
  if (!name) return unreadable('AlarmName is missing: expected a CloudWatch alarm notification in the SNS Message');
  const state = str(message, 'NewStateValue', 40);
  if (!state || !Object.hasOwn(STATES, state)) return unreadable('NewStateValue must be ALARM, OK or INSUFFICIENT_DATA');
  const status = STATES[state];
  const account = id(field(message, 'AWSAccountId')) ?? '';
  const region = str(message, 'Region', 100) ?? '';
  const arn = id(field(message, 'AlarmArn'));
  const code = regionCode(arn);
  const description = str(message, 'AlarmDescription', 4000);
  const reason = str(message, 'NewStateReason', 4000);
  const trigger = record(message, 'Trigger');
  const dims = dimensions(trigger);

  const labels = new Labels()
    .set('account', account)
    .set('region', code ?? region)
    .set('state', state)
    .set('previous_state', str(message, 'OldStateValue', 40))
    .set('namespace', trigger ? str(trigger, 'Namespace') : undefined)
    .set('metric', trigger ? str(trigger, 'MetricName') : undefined);
  for (const [k, v] of dims) labels.set(k, v);

  const service =
    (description ? /\bservice\s*[:=]\s*([A-Za-z0-9._-]+)/i.exec(description)?.[1] : undefined) ??
    dims.find(([k]) => k === 'ServiceName')?.[1] ??
    dims.find(([k]) => k === 'FunctionName')?.[1];
  const changed = isoTime(field(message, 'StateChangeTime'));

  return alerts([
    event({
      fingerprint: fingerprint(SOURCE, account, region, name),
      status,
      title: name,
      source: SOURCE,
      severity: severityOf(state, description),
      service,
      summary: [description, reason].filter((s) => s !== undefined).join('\n') || undefined,
      labels: labels.map,
      url: code ? `https://${code}.console.aws.amazon.com/cloudwatch/home?region=${code}#alarmsV2:alarm/${encodeURIComponent(name)}` : undefined,
      started_at: status === 'firing' ? changed : undefined,
      ended_at: status === 'resolved' ? changed : undefined,
      external_id: arn ?? text(name),
    }),
  ]);
}

export const parse = safe(SOURCE, throughSns(readAlarm));

const product = 'CloudWatch alarm (SNS)';

export const cloudAlarms: WebhookSource = {
  segment: SOURCE,
  product,
  // SNS messages are at most 256 KiB; the envelope adds little
  bodyLimit: MiB,
  // the notification topic's own signature, checked by the handler when the operator switched it on
  signing: null,
  parser: parse,
  handler: (options) => alertHandler({ product, parser: parse, topic: true }, options),
};
