/**
 * What a visitor of a public status page may see, read by slug with no credential. Everything leaves through
 * `PublicPage`, built field by field: no row ids, no organization id, no SLO data beyond a component's status.
 */
import { createHash } from 'node:crypto';
import type { Row } from '../../engine/descriptor.ts';
import { project, referenceLoader } from '../../engine/operations/project.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { parseTimestamp } from '../../engine/persistence/store.ts';
import { publishedPage } from '../../domain/status-page/page.ts';
import statusPageComponents from '../../resources/status_page_components.ts';
import statusPageIncidents from '../../resources/status_page_incidents.ts';
import statusPageMaintenances, { maintenanceState } from '../../resources/status_page_maintenances.ts';

/** The most incidents one page lists (open ones first); a page is read often and must stay small. */
export const MAX_INCIDENTS = 50;

export interface PublicComponent {
  name: string;
  description: string | null;
  /** the manual status while in force, else the worst status of the linked SLOs; null when neither (the spec: it reports nothing) */
  status: string | null;
  /** the public note of a manual status in force */
  note: string | null;
}

export interface PublicMaintenance {
  /** opaque and stable across edits */
  key: string;
  title: string;
  message: string;
  /** scheduled, in_progress or completed, at the time of the read */
  state: string;
  starts_at: string;
  ends_at: string;
  components: string[];
  /** when it was posted (a feed entry's id and `published`) and last changed (its `updated`) */
  posted_at: string;
  updated_at: string;
}

export interface PublicUpdate {
  at: string;
  status: string;
  message: string;
}

/** An opaque, stable key of a notice (a hash of its row id: the id itself never leaves): a feed entry's id, a page anchor. */
const publicKey = (id: unknown) => createHash('sha256').update(`status-page-notice:${String(id)}`).digest('hex').slice(0, 24);

export interface PublicIncident {
  /** opaque and stable across edits */
  key: string;
  title: string;
  status: string;
  impact: string;
  started_at: string;
  resolved_at: string | null;
  /** names of the affected components, archived ones included */
  components: string[];
  /** oldest first, as posted */
  updates: PublicUpdate[];
}

export interface PublicPage {
  slug: string;
  title: string;
  support_url: string | null;
  history_days: number;
  components: PublicComponent[];
  open_incidents: PublicIncident[];
  resolved_incidents: PublicIncident[];
  /** windows running or ahead (soonest first), then those ended within the history (latest first) */
  maintenances: PublicMaintenance[];
}

const iso = (value: unknown): string | null => {
  const parsed = parseTimestamp(value);
  return parsed instanceof Date ? parsed.toISOString() : null;
};

/** The family the service runs with (a test may replace it), or none when it is not registered. */
/** The page published under `slug`, or null: unknown, private, disabled and unlicensed pages look the same. */
export async function loadStatusPage(services: Services, slug: string): Promise<PublicPage | null> {
  const components = services.registry.family(statusPageComponents);
  const incidents = services.registry.family(statusPageIncidents);
  const published = await publishedPage(services, slug);
  if (!published) return null;
  const store = readStore(services);
  const orgId = published.organizationId;
  // archived components are read too: past incidents still name them
  const rows = await store.list(components, orgId, { orderBy: { position: 'asc' } });
  const referenced = await referenceLoader(services.registry, store, components, orgId, rows);
  const ctx = { now: services.clock.now(), config: services.config, referenced };
  const names = new Map(rows.map((r) => [r.id, String(r.display_name)]));
  const listed = rows
    .filter((r) => r.archived_at === null)
    .map((r): PublicComponent => {
      const shown = project(components, r, ctx);
      const manual = shown.status !== null && shown.status === r.manual_status;
      return {
        name: String(shown.display_name), description: (shown.description as string | null) ?? null, status: (shown.status as string | null) ?? null,
        note: manual ? ((r.manual_status_note as string | null) ?? null) : null,
      };
    });

  const historyDays = published.historyDays;
  const since = new Date(ctx.now.getTime() - historyDays * 86_400_000).toISOString();
  const records = await store.execute(
    `select "id", "title", "status", "impact", "component_ids", "updates", "started_at", "resolved_at" from "${tableName(incidents)}"
      where "organization_id" = ? and ("resolved_at" is null or "resolved_at" >= ?)
      order by ("resolved_at" is null) desc, "started_at" desc, "id" asc limit ${MAX_INCIDENTS}`,
    [orgId, since],
  );
  const shown = records.map((r) => publicIncident(r, names));
  const windows = services.registry.family(statusPageMaintenances);
  const maintenances = (await store.execute(
    `select "id", "title", "message", "component_ids", "starts_at", "ends_at", "created_at", "updated_at" from "${tableName(windows)}"
      where "organization_id" = ? and "ends_at" >= ? order by "starts_at" desc, "id" asc limit ${MAX_INCIDENTS}`,
    [orgId, since],
  )).map((r) => publicMaintenance(r, names, ctx.now));
  // the latest windows (by start), answered soonest first while ahead or running, latest first once over
  const current = maintenances.filter((m) => m.state !== 'completed').reverse();
  const past = maintenances.filter((m) => m.state === 'completed');
  return {
    slug,
    title: published.title,
    support_url: published.supportUrl,
    history_days: historyDays,
    components: listed,
    open_incidents: shown.filter((i) => i.resolved_at === null),
    resolved_incidents: shown.filter((i) => i.resolved_at !== null),
    maintenances: [...current, ...past],
  };
}

function publicMaintenance(r: Row, names: Map<unknown, string>, now: Date): PublicMaintenance {
  const ids = Array.isArray(r.component_ids) ? r.component_ids : [];
  return {
    key: publicKey(r.id),
    title: String(r.title),
    message: String(r.message ?? ''),
    state: maintenanceState(r, now),
    starts_at: iso(r.starts_at) ?? '',
    ends_at: iso(r.ends_at) ?? '',
    components: ids.map((id) => names.get(id)).filter((n): n is string => n !== undefined),
    posted_at: iso(r.created_at) ?? '',
    updated_at: iso(r.updated_at) ?? '',
  };
}

function publicIncident(r: Row, names: Map<unknown, string>): PublicIncident {
  const ids = Array.isArray(r.component_ids) ? r.component_ids : [];
  const updates = Array.isArray(r.updates) ? (r.updates as Row[]) : [];
  return {
    key: publicKey(r.id),
    title: String(r.title),
    status: String(r.status),
    impact: String(r.impact),
    started_at: iso(r.started_at) ?? '',
    resolved_at: iso(r.resolved_at),
    components: ids.map((id) => names.get(id)).filter((n): n is string => n !== undefined),
    updates: updates.map((u) => ({ at: String(u.at), status: String(u.status), message: String(u.message) })),
  };
}
