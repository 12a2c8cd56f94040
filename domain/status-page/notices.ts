/**
 * Subscribers are told of what the public page shows changing: an incident opened, updated (a new public update or
 * status) or resolved, and a maintenance window scheduled or changed. An audit listener: the mails are queued inside
 * the write's transaction, so they go out only if it commits. Only while the page is public. One mail per confirmed
 * subscriber, each with its own unsubscribe link.
 */
import type { AuditListener, Services } from '../../engine/services.ts';
import type { Row } from '../../engine/descriptor.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import type { FamilyStore, SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import type { AuditEntry } from '../../engine/operations/audit-entry.ts';
import { parseTimestamp } from '../../engine/persistence/store.ts';
import statusPageComponents from '../../resources/status_page_components.ts';
import statusPageIncidents from '../../resources/status_page_incidents.ts';
import statusPageMaintenances from '../../resources/status_page_maintenances.ts';
import statusPageSettings from '../../resources/status_page_settings.ts';
import { canSendMail, queueMail } from '../../outbound/mail.ts';
import { noticeMail, type Notice } from './mail.ts';
import { pageUrl } from './page.ts';
import { unsubscribeUrl } from './subscribers.ts';

const STATUS: Record<string, string> = { investigating: 'Investigating', identified: 'Identified', monitoring: 'Monitoring', resolved: 'Resolved' };
const utc = (value: unknown) => {
  const d = parseTimestamp(value);
  return d instanceof Date ? `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC` : String(value);
};

async function componentNames(services: Services, sql: Sql, organizationId: string, ids: unknown): Promise<string[]> {
  if (!Array.isArray(ids) || ids.length === 0) return [];
  const family = services.registry.family(statusPageComponents);
  const rows = await sql(`select "id", "display_name" from "${tableName(family)}" where "organization_id" = ?`, [organizationId]);
  const names = new Map(rows.map((r) => [String(r.id), String(r.display_name)]));
  return ids.map((id) => names.get(String(id))).filter((n): n is string => n !== undefined);
}

function incidentNotice(row: Row, action: string, changed: string[], affects: string[]): Notice | null {
  const status = String(row.status);
  const updates = Array.isArray(row.updates) ? (row.updates as Row[]) : [];
  let what: string;
  if (action === 'create') what = status === 'resolved' ? 'Incident resolved' : 'New incident';
  else if (changed.includes('status') && status === 'resolved') what = 'Incident resolved';
  else if (changed.includes('updates') || changed.includes('status')) what = 'Incident updated';
  else return null; // a title, impact or component edit posts nothing to the page's timeline
  const latest = updates.at(-1);
  return {
    what, title: String(row.title),
    lines: [`Status: ${STATUS[status] ?? status}`, affects.length ? `Affects: ${affects.join(', ')}` : '', latest ? String(latest.message) : ''].filter(Boolean),
  };
}

function maintenanceNotice(row: Row, action: string, changed: string[], affects: string[]): Notice | null {
  if (action !== 'create' && !changed.some((f) => ['title', 'message', 'starts_at', 'ends_at', 'component_ids'].includes(f))) return null;
  return {
    what: action === 'create' ? 'Maintenance scheduled' : 'Maintenance changed', title: String(row.title),
    lines: [`From ${utc(row.starts_at)} to ${utc(row.ends_at)}`, affects.length ? `Affects: ${affects.join(', ')}` : '', String(row.message ?? '')].filter(Boolean),
  };
}

const noticeKind = (family: string) => (family === statusPageIncidents.name ? 'incident' : family === statusPageMaintenances.name ? 'maintenance' : null);

export const notifySubscribers: AuditListener = {
  concerns: (services, entry) => noticeKind(entry.family) !== null && (entry.action === 'create' || entry.action === 'update') && canSendMail(services),
  record,
};

async function record(services: Services, store: FamilyStore, entry: AuditEntry): Promise<void> {
  const kind = noticeKind(entry.family);
  if (!kind || !entry.rowId || (entry.action !== 'create' && entry.action !== 'update') || !canSendMail(services)) return;
  const family = services.registry.get(entry.family);
  if (!family) return;
  const page = await publicPageOf(services, store.execute, entry.organizationId);
  if (!page) return;
  const [row] = await store.execute(`select * from "${tableName(family)}" where "organization_id" = ? and "id" = ?`, [entry.organizationId, entry.rowId]);
  if (!row) return;
  const affects = await componentNames(services, store.execute, entry.organizationId, row.component_ids);
  const changed = Object.keys(entry.changes);
  const notice = kind === 'incident' ? incidentNotice(row, entry.action, changed, affects) : maintenanceNotice(row, entry.action, changed, affects);
  if (!notice) return;
  await mailSubscribers(services, store.execute, entry.organizationId, page, notice);
}

/** One notice to every confirmed subscriber of the page, each with its own unsubscribe link, queued through `sql`'s transaction. */
export async function mailSubscribers(services: Services, sql: Sql, organizationId: string, page: { slug: string; title: string }, notice: Notice): Promise<void> {
  const subscribers = await sql('select id, email from status_page_subscribers where organization_id = ? and confirmed_at is not null order by seq', [organizationId]);
  await queueMail(services, { execute: sql }, subscribers.map((s) =>
    noticeMail(String(s.email), page.title, pageUrl(services, page.slug), unsubscribeUrl(services, page.slug, String(s.id)), notice)));
}

/** The page of an organization while it is public, or null. */
export async function publicPageOf(services: Services, sql: Sql, organizationId: string): Promise<{ slug: string; title: string } | null> {
  const settings = services.registry.family(statusPageSettings);
  const [page] = await sql(`select "slug", "title" from "${tableName(settings)}" where "organization_id" = ? and "public" = true and "slug" is not null`, [organizationId]);
  return page ? { slug: String(page.slug), title: String(page.title ?? 'Status') } : null;
}

export { componentNames };
