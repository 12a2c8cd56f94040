/**
 * The escalation engine's tables. An escalation is a row per (organization, subject, team): the alert or incident it
 * pages for, the policy as it stood when the page started (`policy`, a snapshot: editing a policy changes later pages,
 * not running ones), the step and loop it is at, and `next_at`, the deadline of its next step, claimed with
 * `FOR UPDATE SKIP LOCKED` (escalations.ts). A notification is a row per (escalation, step, loop, person, contact method), written in
 * the same transaction that runs the step, before anything is sent (notify.ts): a step run twice finds it and sends
 * nothing again.
 */
import { EntitySchema } from '@mikro-orm/core';

const uuid = { type: 'string', columnType: 'uuid' } as const;
const text = { type: 'string', columnType: 'text' } as const;
const time = { type: 'Date', columnType: 'timestamptz' } as const;

export const EscalationEntity = new EntitySchema<any>({
  name: 'PagingEscalation',
  tableName: 'paging_escalations',
  properties: {
    id: { ...uuid, primary: true },
    organization_id: uuid,
    /** alert or incident */
    subject_kind: text,
    subject_id: uuid,
    /** the alert whose page started it (its effects carry the escalation: the alert's and the incident's timeline) */
    alert_id: uuid,
    /** the team paged; the key with the subject (one escalation per incident and team) */
    team_id: text,
    /** the escalation_policies row, or null when the team's `escalation` list implied the policy */
    policy_id: { ...text, nullable: true },
    /** { steps, repeat } as they stood when the page started */
    policy: { type: 'json', columnType: 'jsonb' },
    step: { type: 'integer', columnType: 'integer' },
    loop: { type: 'integer', columnType: 'integer' },
    /** the next step's deadline; null once stopped or done */
    next_at: { ...time, nullable: true },
    /** active, stopped (acknowledged, resolved) or done (every step and repeat ran) */
    state: text,
    reason: { ...text, nullable: true },
    started_at: time,
    updated_at: time,
  },
  uniques: [{ properties: ['organization_id', 'subject_id', 'team_id'] }],
  indexes: [{ properties: ['state', 'next_at'] }, { properties: ['organization_id', 'alert_id'] }],
});

export const NotificationEntity = new EntitySchema<any>({
  name: 'PagingNotification',
  tableName: 'paging_notifications',
  properties: {
    escalation_id: { ...uuid, primary: true },
    step: { type: 'integer', columnType: 'integer', primary: true },
    loop: { type: 'integer', columnType: 'integer', primary: true },
    email: { ...text, primary: true },
    /** the contact method's id, or `account` for the account email (a person with no usable rule, and rows older than rules) */
    method_key: { ...text, primary: true, default: 'account' },
    organization_id: uuid,
    user_id: { ...uuid, nullable: true },
    alert_id: uuid,
    incident_id: { ...uuid, nullable: true },
    urgency: text,
    /** the contact method's type (the channel), address and label as they were when the step ran */
    contact_type: { ...text, default: 'email' },
    address: { ...text, nullable: true },
    method_name: { ...text, nullable: true },
    /**
     * why the account email was used (method_key `account`): `no_rule` (no rule for the urgency), `unverified` (the rules'
     * methods are not verified), `not_configured` (their channels' providers are not set up); null otherwise
     */
    fallback: { ...text, nullable: true },
    /**
     * pending (waiting for its rule's delay or its bundle), limited (held by the method's limit: goes out in a summary),
     * sending (handed to a provider after its row committed), queued (handed to the email transport), sent, failed (reason),
     * unknown (a provider call cut short by a crash: not retried), cancelled (the escalation stopped first); not_sent: older rows
     */
    status: text,
    reason: { ...text, nullable: true },
    channel: { ...text, nullable: true },
    /** when it is due: the step's time plus the rule's delay, moved on by a bundle window or a limit */
    send_after: time,
    created_at: time,
    sent_at: { ...time, nullable: true },
    /** the notifications sent as one message share it (a paging_bundles row) */
    bundle_id: { ...uuid, nullable: true },
  },
  // (organization_id, email, method_key): a person's method's due rows, claimed per group (dispatch.ts), in a table of every page
  indexes: [{ properties: ['status', 'send_after'] }, { properties: ['organization_id', 'alert_id'] }, { properties: ['bundle_id'] }, { properties: ['organization_id', 'email', 'method_key', 'send_after'] }],
});

/**
 * One message to one person on one contact method (one or more alerts): what bundling and limits count, what a
 * provider's id names back (`recordDeliveryStatus`) and what a page link acts on (`acted_at`: a link works once).
 */
export const BundleEntity = new EntitySchema<any>({
  name: 'PagingBundle',
  tableName: 'paging_bundles',
  properties: {
    id: { ...uuid, primary: true },
    organization_id: uuid,
    user_id: { ...uuid, nullable: true },
    email: text,
    method_key: text,
    channel: text,
    /** sending, queued, sent, failed, unknown; a provider's later report in delivery */
    status: text,
    reason: { ...text, nullable: true },
    provider_id: { ...text, nullable: true },
    delivery: { ...text, nullable: true },
    /** a summary of pages held by the method's limit */
    summary: { type: 'boolean', columnType: 'boolean', default: false },
    sent_at: time,
    /** when a page link of this message was used (a link works once) */
    acted_at: { ...time, nullable: true },
  },
  indexes: [{ properties: ['organization_id', 'email', 'method_key', 'sent_at'] }, { properties: ['channel', 'provider_id'] }, { properties: ['status', 'sent_at'] }],
});

export const PAGING_ENTITIES = [EscalationEntity, NotificationEntity, BundleEntity];
export const ESCALATIONS = EscalationEntity.meta.tableName;
export const NOTIFICATIONS = NotificationEntity.meta.tableName;
export const BUNDLES = BundleEntity.meta.tableName;
