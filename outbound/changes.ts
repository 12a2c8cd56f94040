/**
 * Change notifications: every audited change of a configuration family (a family served under /api/v1/config;
 * cards and deliveries are not configuration) is announced by the organization's enabled `change_notifications`
 * rows whose `families` hold it (or `*`) and whose `actions` hold its action (`action` stands for every named
 * action), either as a chat post or as a `config.changed` event to an outbound config. Runs as an audit listener
 * inside the change's transaction, so an announcement is queued exactly when the change commits. Secrets appear
 * exactly as in the audit entry: (set), (changed), (cleared).
 */
import type { AuditEntry } from '../engine/operations/audit-entry.ts';
import type { AuditFacts, AuditListener, Services } from '../engine/services.ts';
import { cachedRows } from '../engine/operations/cached-rows.ts';
import { tableName } from '../engine/persistence/entities.ts';
import { jsonValue, type FamilyStore, type SqlExecutor as Sql } from '../engine/persistence/store.ts';
import { enqueueChatPost } from './chat/notices.ts';
import { configChangedEvent, type ConfigChange } from './events.ts';
import { OutboundBatch } from './publish.ts';
import changeNotifications from '../resources/change_notifications.ts';
import outboundConfigs from '../resources/outbound_configs.ts';

interface Announcement {
  id: string;
  families: string[];
  actions: string[];
  destination_kind: 'chat' | 'outbound';
  chat_channel: string | null;
  outbound_config_id: string | null;
  config_kind: string | null;
}

const MAX_FIELDS = 20;
const MAX_VALUE = 120;

/** The enabled rows that announce this change. */
async function announcements(services: Services, sql: Sql, entry: AuditEntry): Promise<Announcement[]> {
  const family = services.registry.family(changeNotifications);
  const configs = services.registry.family(outboundConfigs);
  const rows = await sql(
    `select n.id, n.families, n.actions, n.destination_kind, n.chat_channel, n.outbound_config_id, c.kind as config_kind
       from "${tableName(family)}" n
       left join "${tableName(configs)}" c on c.organization_id = n.organization_id and c.id = n.outbound_config_id
      where n.organization_id = ? and coalesce(n.enabled, true)`,
    [entry.organizationId],
  );
  return rows
    .map((r) => ({ ...r, families: jsonValue(r.families) ?? ['*'], actions: jsonValue(r.actions) ?? [] }) as Announcement)
    .filter((n) => announces(n, entry));
}

/** Whether a rule (enabled) announces a change of this family and action. */
function announces(rule: { families?: unknown; actions?: unknown }, entry: AuditFacts): boolean {
  const families = (jsonValue(rule.families) ?? ['*']) as string[];
  const action = entry.action.startsWith('action:') ? 'action' : entry.action;
  return (families.includes('*') || families.includes(entry.family)) && ((jsonValue(rule.actions) ?? []) as string[]).includes(action);
}

/** The row's natural key as people name it (its current value, or its last one for a delete). */
async function rowName(services: Services, sql: Sql, entry: AuditEntry): Promise<string | null> {
  const d = services.registry.get(entry.family);
  const key = d?.naturalKey;
  if (!d || !key || key.length === 0 || !entry.rowId) return null;
  const [row] = await sql(`select ${key.map((k) => `"${k}"`).join(', ')} from "${tableName(d)}" where organization_id = ? and id = ?`, [entry.organizationId, entry.rowId]);
  const value = (field: string) => {
    if (row) return row[field];
    const change = entry.changes[field];
    return typeof change === 'object' && change !== null ? change.before : null;
  };
  const parts = key.map(value).filter((v) => v !== null && v !== undefined);
  return parts.length ? parts.map(String).join(' / ') : null;
}

const shown = (v: unknown) => {
  const text = v === null || v === undefined ? '∅' : typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
};

/** The one message a person reads: what changed, by whom, through which transport. */
export function changeText(change: ConfigChange): string {
  const subject = `${change.family}${change.row_name ? ` "${change.row_name}"` : change.row_id ? ` ${change.row_id}` : ''}`;
  const fields = Object.entries(change.changes);
  const lines = fields.slice(0, MAX_FIELDS).map(([field, c]) => (typeof c === 'string' ? `• ${field}: ${c}` : `• ${field}: ${shown((c as { before: unknown }).before)} → ${shown((c as { after: unknown }).after)}`));
  if (fields.length > MAX_FIELDS) lines.push(`• … and ${fields.length - MAX_FIELDS} more fields`);
  return [`Configuration change: ${subject} ${change.action} by ${change.actor.kind} ${change.actor.id} via ${change.transport}`, ...lines].join('\n');
}

/** Asked before every audited write: the organization's rules, from memory. */
async function concerns(services: Services, entry: AuditFacts): Promise<boolean> {
  const family = services.registry.family(changeNotifications);
  if (!services.registry.get(entry.family)) return false;
  const rules = await cachedRows(services, family, entry.organizationId);
  return rules.some((rule) => rule.enabled !== false && announces(rule, entry));
}

async function record(services: Services, store: FamilyStore, entry: AuditEntry): Promise<void> {
  if (!services.registry.get(entry.family)) return;
  const matched = await announcements(services, store.execute, entry);
  if (matched.length === 0) return;
  const change: ConfigChange = {
    family: entry.family,
    row_id: entry.rowId,
    row_name: await rowName(services, store.execute, entry),
    action: entry.action,
    actor: entry.actor,
    transport: entry.transport,
    at: entry.at.toISOString(),
    changes: entry.changes,
  };
  const now = services.clock.now();
  const outbound = new OutboundBatch(entry.organizationId, { rules: [], outboundKinds: new Set() });
  const sentTo = new Set<string>();
  for (const n of matched) {
    if (n.destination_kind === 'chat' && n.chat_channel) {
      if (sentTo.has(n.chat_channel)) continue;
      sentTo.add(n.chat_channel);
      await enqueueChatPost(services, store, entry.organizationId, { channel: n.chat_channel, text: changeText(change) }, now);
    } else if (n.destination_kind === 'outbound' && n.outbound_config_id && n.config_kind !== null && n.config_kind !== 'pager') {
      // a pager takes alerts and incidents only; a config deleted since is absent from the join
      if (sentTo.has(n.outbound_config_id)) continue;
      sentTo.add(n.outbound_config_id);
      outbound.addTo(configChangedEvent(change, now), n.outbound_config_id);
    }
  }
  await outbound.enqueue(services, store, now);
}

export const announceChange: AuditListener = { concerns, record };
