/**
 * `monitoring-b`: New Relic workflow webhook destinations. One issue notification per request; the workflow's
 * default payload template is
 *
 *   { "id": {{ json issueId }}, "issueUrl": {{ json issuePageUrl }}, "title": {{ json annotations.title.[0] }},
 *     "priority": {{ json priority }}, "impactedEntities": {{ json entitiesData.names }},
 *     "totalIncidents": {{ json totalIncidents }}, "state": {{ json state }}, "trigger": {{ json triggerEvent }},
 *     "isCorrelated": {{ json isCorrelated }}, "createdAt": {{ createdAt }}, "updatedAt": {{ updatedAt }},
 *     "sources": {{ json accumulations.source }}, "alertPolicyNames": {{ json accumulations.policyName }},
 *     "alertConditionNames": {{ json accumulations.conditionName }}, "workflowName": {{ json workflowName }} }
 *
 * Also read: `issueId` for `id`, `issuePageUrl` for `issueUrl`, and an `accumulations` object
 * (`{{ json accumulations }}`) with `conditionName`, `policyName` and `tag.<name>` (or `tag: { <name> }`)
 * lists, whose tags become labels. A title given as a list uses its first entry.
 *
 * Status, from `state`: ACTIVATED, CREATED → firing; ACKNOWLEDGED and INVESTIGATING (someone has taken it up, New
 * Relic's workflow "Investigating" trigger) → acknowledged; CLOSED → resolved.
 *
 * Fingerprint: `monitoring-b:<issueId>` (the issue id, the same in every notification of that issue).
 *
 * Severity, from `priority`: CRITICAL → critical, HIGH → high, MEDIUM → warning, LOW → info; missing → high.
 *
 * Title: `title`, else the first condition name. Summary: the condition description when sent, else the
 * policies and conditions involved. Service: the `service` tag (else `appName`, `service.name`). URL: `issueUrl`.
 * Started: `createdAt`; ended (when closed): `updatedAt` (epoch milliseconds, as New Relic sends them).
 */
import { field, isoTime, record, text, type Json } from '../../engine/payload.ts';
import { alerts, event, fingerprint, id, Labels, objectBody, safe, severityFromWord, unreadable } from './alert-parsing.ts';
import type { AlertSeverity, EventStatus } from '../../domain/alerts/event.ts';
import type { ParseResult } from './parser.ts';
import { alertHandler } from '../alert-handler.ts';
import { signedWith } from '../signing.ts';
import { MiB, type WebhookSource } from './source.ts';

const SOURCE = 'monitoring-b' as const;

const STATES: Record<string, EventStatus> = {
  ACTIVATED: 'firing',
  CREATED: 'firing',
  ACKNOWLEDGED: 'acknowledged',
  INVESTIGATING: 'acknowledged',
  CLOSED: 'resolved',
};

/** A scalar, or the first scalar of a list (workflow variables are often lists). */
function first(value: unknown, max?: number): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value.slice(0, 50)) {
      const s = text(item, max);
      if (s !== undefined) return s;
    }
    return undefined;
  }
  return text(value, max);
}

function list(value: unknown, max = 10): string[] {
  const items = Array.isArray(value) ? value.slice(0, 50) : [value];
  const out: string[] = [];
  for (const item of items) {
    const s = text(item, 200);
    if (s !== undefined && !out.includes(s)) out.push(s);
    if (out.length >= max) break;
  }
  return out;
}

function get(obj: Json, ...keys: string[]): unknown {
  for (const k of keys) {
    const val = field(obj, k);
    if (val !== undefined && val !== null && val !== '') return val;
  }
  return undefined;
}

function severityOf(priority: string | undefined): AlertSeverity {
  switch (priority?.toUpperCase()) {
    case 'CRITICAL':
      return 'critical';
    case 'HIGH':
      return 'high';
    case 'MEDIUM':
      return 'warning';
    case 'LOW':
      return 'info';
    default:
      return severityFromWord(priority) ?? 'high';
  }
}

function parseBody(body: unknown): ParseResult {
  const obj = objectBody(body, 'New Relic');
  if (typeof obj === 'string') return unreadable(obj);
  const issueId = id(get(obj, 'id', 'issueId'));
  if (!issueId) return unreadable('id is missing: expected the New Relic workflow payload\'s "id": {{ json issueId }}');
  const state = text(field(obj, 'state'), 40)?.toUpperCase();
  if (!state) return unreadable('state is missing: expected "state": {{ json state }} (ACTIVATED, ACKNOWLEDGED, INVESTIGATING, CLOSED, CREATED)');
  if (!Object.hasOwn(STATES, state)) return unreadable(`state is not a New Relic issue state (ACTIVATED, ACKNOWLEDGED, INVESTIGATING, CLOSED, CREATED)`);
  const status = STATES[state];

  const acc = record(obj, 'accumulations') ?? {};
  const conditions = list(get(obj, 'alertConditionNames', 'conditionNames') ?? get(acc, 'conditionName'));
  const policies = list(get(obj, 'alertPolicyNames', 'policyNames') ?? get(acc, 'policyName'));
  const entities = list(get(obj, 'impactedEntities') ?? get(acc, 'entityName'));
  const sources = list(get(obj, 'sources') ?? get(acc, 'source'));

  const labels = new Labels();
  const tags: Record<string, string> = {};
  const nestedTags = record(acc, 'tag');
  if (nestedTags) {
    for (const k of Object.keys(nestedTags).slice(0, 50)) {
      const val = first(nestedTags[k]);
      if (val !== undefined) tags[k] = val;
    }
  }
  for (const k of Object.keys(acc).slice(0, 200)) {
    if (k.startsWith('tag.') && k.length > 4) {
      const val = first(acc[k]);
      if (val !== undefined) tags[k.slice(4)] = val;
    }
  }
  for (const [k, val] of Object.entries(tags)) labels.set(k, val);
  labels
    .set('priority', text(field(obj, 'priority'), 20))
    .set('state', state)
    .set('condition', conditions.join(', '))
    .set('policy', policies.join(', '))
    .set('entities', entities.join(', '))
    .set('sources', sources.join(', '))
    .set('workflow', text(field(obj, 'workflowName'), 200))
    .set('total_incidents', field(obj, 'totalIncidents'));

  const title = first(field(obj, 'title'), 1000) ?? conditions[0] ?? `New Relic issue ${issueId}`;
  const description = first(get(obj, 'conditionDescription', 'description') ?? get(acc, 'conditionDescription'), 4000);
  const summaryParts = [policies.length ? `Policy: ${policies.join(', ')}` : '', conditions.length ? `Condition: ${conditions.join(', ')}` : ''].filter(Boolean);
  const service = tags['service'] ?? tags['appName'] ?? tags['service.name'];

  return alerts([
    event({
      fingerprint: fingerprint(SOURCE, issueId),
      status,
      title,
      source: SOURCE,
      severity: severityOf(text(field(obj, 'priority'), 20)),
      service,
      summary: description ?? (summaryParts.length ? summaryParts.join('; ') : undefined),
      labels: labels.map,
      url: text(get(obj, 'issueUrl', 'issuePageUrl'), 4096),
      started_at: isoTime(field(obj, 'createdAt')),
      ended_at: status === 'resolved' ? isoTime(field(obj, 'updatedAt')) ?? isoTime(field(obj, 'closedAt')) : undefined,
      external_id: issueId,
    }),
  ]);
}

export const parse = safe(SOURCE, parseBody);

const product = 'New Relic webhook';

export const monitoringB: WebhookSource = {
  segment: SOURCE,
  product,
  // one issue per delivery, with its accumulated fields: far below 1 MiB
  bodyLimit: MiB,
  signing: signedWith('shared-secret-header', {
    notes: 'the secret itself as Authorization: Bearer <secret> or X-Vigil-Signature-Secret: <secret> (New Relic webhook destination auth or custom header)',
    operatorSwitch: true,
    runbookSigned: true,
  }),
  parser: parse,
  handler: (options) => alertHandler({ product, parser: parse }, options),
};
