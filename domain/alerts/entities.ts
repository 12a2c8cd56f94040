/**
 * The tables the alert pipeline writes: alerts (one row per fingerprint and organization, kept across
 * fire/resolve cycles), the effects recorded on them, storms, incidents, investigation requests, and the AI
 * spend ledger the monthly budget check reads (filled with each provider call's cost by the investigations).
 */
import { EntitySchema } from '@mikro-orm/core';
import { uuid, text, time, optionalText, optionalTime } from '../../engine/persistence/columns.ts';

// insertion order, so rows written in the same millisecond still list newest first
const seq = { type: 'bigint', columnType: 'bigint', autoincrement: true, unique: true } as const;

export const AlertEntity = new EntitySchema<any>({
  name: 'Alert',
  tableName: 'alerts',
  properties: {
    id: { ...uuid, primary: true },
    seq,
    organization_id: uuid,
    fingerprint: text,
    source: text,
    title: text,
    service: optionalText,
    severity: text,
    /** the severity the alert's routes set when it last fired (domain/paging/routing.ts); null: the product's */
    severity_override: optionalText,
    summary: optionalText,
    labels: { type: 'json', columnType: 'jsonb' },
    url: optionalText,
    /** what the sender linked beside the alert (runbook, dashboard, panel, silence, source): `{ kind: url }` */
    links: { type: 'json', columnType: 'jsonb', nullable: true },
    external_id: optionalText,
    /** firing, acknowledged, resolved or muted */
    status: text,
    started_at: time,
    /** the last time it was raised loudly (paged, or grouped into a storm): what storms count */
    raised_at: optionalTime,
    acknowledged_at: optionalTime,
    resolved_at: optionalTime,
    last_received_at: time,
    /** firing deliveries received for it, repeats included */
    occurrences: { type: 'integer', default: 1 },
    /** whether a chat post opened a thread for it, which later events update */
    chat_thread: { type: 'boolean', default: false },
    muted_by: { ...uuid, nullable: true },
    storm_id: { ...uuid, nullable: true },
    incident_id: { ...uuid, nullable: true },
    /** the member a person assigned it to (assign_alert); null: nobody */
    assignee_id: { ...uuid, nullable: true },
    created_at: time,
    updated_at: time,
  },
  uniques: [{ properties: ['organization_id', 'fingerprint'] }],
  // no index on a column a repeat changes (updated_at, last_received_at, occurrences): repeats stay HOT updates
  // (the table's fillfactor leaves room for them, set in the migration)
  indexes: [
    { properties: ['organization_id', 'raised_at'] },
    // the storm check's "latest alert in a storm": read newest first from this index it stops at the first row,
    // whatever the statistics say (a table that grew by thousands in seconds is not analyzed yet, and then the
    // planner may scan every alert of the window instead)
    {
      name: 'alerts_storm_raised_at_index',
      expression: 'create index "alerts_storm_raised_at_index" on "alerts" ("organization_id", "raised_at") where "storm_id" is not null',
    },
    { properties: ['incident_id'] },
    { properties: ['storm_id'] },
    // list_alerts' pages (seq never changes, so repeats stay HOT)
    { properties: ['organization_id', 'seq'] },
  ],
});

export const AlertEffectEntity = new EntitySchema<any>({
  name: 'AlertEffect',
  tableName: 'alert_effects',
  properties: {
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, primary: true },
    organization_id: uuid,
    alert_id: uuid,
    at: time,
    kind: text,
    detail: { type: 'json', columnType: 'jsonb' },
  },
  // (organization_id, kind, at): insights read one organization's fires, pages and incident openings over a range
  // (domain/insights/history.ts); bench/insights.ts measures what it costs each effect written
  indexes: [{ properties: ['alert_id', 'seq'] }, { properties: ['organization_id', 'kind', 'at'] }],
});

export const AlertStormEntity = new EntitySchema<any>({
  name: 'AlertStorm',
  tableName: 'alert_storms',
  properties: {
    id: { ...uuid, primary: true },
    organization_id: uuid,
    started_at: time,
    incident_id: { ...uuid, nullable: true },
  },
  // a storm's alerts and whether it is still active are read from its alerts (storm_id, raised_at), so alerts
  // joining a storm write nothing shared
  indexes: [{ properties: ['organization_id', 'started_at'] }],
});

export const IncidentEntity = new EntitySchema<any>({
  name: 'Incident',
  tableName: 'incidents',
  properties: {
    id: { ...uuid, primary: true },
    seq,
    organization_id: uuid,
    title: text,
    severity: text,
    /** open or closed */
    status: text,
    opened_at: time,
    closed_at: optionalTime,
    storm_id: { ...uuid, nullable: true },
    /** when a person acknowledged it (acknowledge_incident), beside `status`; null: not acknowledged */
    acknowledged_at: optionalTime,
    /** who acknowledged it: `{ kind, id }` as the audit log names actors */
    acknowledged_by: { type: 'json', columnType: 'jsonb', nullable: true },
    /** the member it is assigned to; null: nobody */
    assignee_id: { ...uuid, nullable: true },
    /** who closed it by hand (resolve_incident, or resolving its last alert); null when its alerts' sources closed it */
    resolved_by: { type: 'json', columnType: 'jsonb', nullable: true },
  },
  indexes: [{ properties: ['organization_id', 'seq'] }],
});

/** Notes people add to an incident (add_incident_note), in its timeline. */
export const IncidentNoteEntity = new EntitySchema<any>({
  name: 'IncidentNote',
  tableName: 'incident_notes',
  properties: {
    id: { ...uuid, primary: true },
    seq,
    organization_id: uuid,
    incident_id: uuid,
    /** the author as the audit log names actors */
    author_kind: text,
    author_id: text,
    body: text,
    created_at: time,
  },
  indexes: [{ properties: ['incident_id', 'seq'] }],
});

export const InvestigationEntity = new EntitySchema<any>({
  name: 'Investigation',
  tableName: 'investigations',
  properties: {
    id: { ...uuid, primary: true },
    seq,
    organization_id: uuid,
    alert_id: { ...uuid, nullable: true },
    storm_id: { ...uuid, nullable: true },
    /** automatic (the alert pipeline) or a person's request */
    trigger: text,
    /** requested until an investigator picks it up, then running, then completed or failed (domain/ai/investigations.ts) */
    status: text,
    requested_at: time,
    started_at: optionalTime,
    finished_at: optionalTime,
    /** what the investigation found: summary, likely cause, evidence, next steps, and each agent's answer */
    findings: { type: 'json', columnType: 'jsonb', nullable: true },
    /** why it failed (no provider answered, the alert is gone), in a sentence */
    failure_reason: optionalText,
  },
  // (organization_id, seq): list_investigations pages newest first
  indexes: [{ properties: ['organization_id', 'alert_id', 'requested_at'] }, { properties: ['status', 'seq'] }, { properties: ['organization_id', 'seq'] }],
});

export const AiSpendEntity = new EntitySchema<any>({
  name: 'AiSpend',
  tableName: 'ai_spend',
  properties: {
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, primary: true },
    organization_id: uuid,
    occurred_at: time,
    cost_usd: { type: 'decimal', columnType: 'numeric(14,6)' },
    /** what the call was for: investigation, fix request, … */
    purpose: text,
    reference: optionalText,
    /** the provider row's name, or `platform` (domain/ai/ledger.ts) */
    provider: optionalText,
    model: optionalText,
    prompt_tokens: { type: 'integer', default: 0 },
    completion_tokens: { type: 'integer', default: 0 },
    /** `unpriced` when the price table did not know the model (cost 0) */
    note: optionalText,
  },
  indexes: [{ properties: ['organization_id', 'occurred_at'] }],
});

export const ALERT_ENTITIES: EntitySchema[] = [AlertEntity, AlertEffectEntity, AlertStormEntity, IncidentEntity, IncidentNoteEntity, InvestigationEntity, AiSpendEntity];
