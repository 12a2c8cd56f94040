/**
 * What an investigation shows the provider, gathered from the organization's own rows (never another's):
 * - the alert (title, source, service, severity, summary, labels, status, times, occurrences);
 * - its recent re-fires: the alert's effects of the last `REFIRE_WINDOW_HOURS` (pages, skipped pages, thread
 *   updates…), and, for a storm, the storm's other alerts;
 * - changes to its service from `CHANGE_WINDOW_HOURS` before it was raised until now: deployments and code-host
 *   events of the timeline (newest first, at most `MAX_CHANGES`);
 * - related cards: the service's cards on the ops board that are not archived (most recently changed first, at most
 *   `MAX_CARDS`; descriptions cut to 500 characters);
 * - the service's resolved telemetry bindings (override, discovery, convention), environment from the alert's
 *   `environment` or `env` label.
 * An alert without a service gets no changes, cards or bindings: nothing ties them to it.
 */
import { loggedError } from '../../engine/logger.ts';
import { iso, jsonValue, parseTimestamp, type SqlExecutor } from '../../engine/persistence/store.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import serviceBindings from '../../resources/service_bindings.ts';
import { convention, discovered, resolve } from '../service-bindings/discovery.ts';

export const REFIRE_WINDOW_HOURS = 24;
export const CHANGE_WINDOW_HOURS = 6;
export const MAX_CHANGES = 50;
export const MAX_CARDS = 10;
const MAX_EFFECTS = 50;
const HOUR = 3_600_000;

/** Drops null fields: a shorter prompt that says the same. */
const compact = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null && v !== undefined));

export interface Evidence {
  alert: Record<string, unknown> & { id: string; title: string; service: string | null; storm_id: string | null };
  refires: { occurrences: number; effects: Record<string, unknown>[] };
  storm: { id: string; alerts: Record<string, unknown>[] } | null;
  changes: Record<string, unknown>[];
  cards: Record<string, unknown>[];
  bindings: { service: string; environment: string; fields: Record<string, unknown> } | null;
}

export async function gatherEvidence(services: Services, organizationId: string, alertId: string, stormId: string | null, now: Date): Promise<Evidence | null> {
  const sql = readStore(services).execute;
  const [a] = await sql(
    `select id, fingerprint, source, title, service, severity, summary, labels, url, status, started_at, raised_at, acknowledged_at, resolved_at,
            last_received_at, occurrences, storm_id from alerts where organization_id = ? and id = ?`,
    [organizationId, alertId],
  );
  if (!a) return null;
  const labels = (jsonValue(a.labels) ?? {}) as Record<string, string>;
  const service = (a.service as string | null) ?? null;
  const alert = {
    ...compact({
      id: String(a.id), fingerprint: a.fingerprint, source: a.source, title: String(a.title), service, severity: a.severity, summary: a.summary,
      labels, url: a.url, status: a.status, started_at: iso(a.started_at), raised_at: iso(a.raised_at), acknowledged_at: iso(a.acknowledged_at),
      resolved_at: iso(a.resolved_at), last_received_at: iso(a.last_received_at),
    }),
    id: String(a.id), title: String(a.title), service, storm_id: stormId ?? ((a.storm_id as string | null) ?? null),
  };
  const raised = (parseTimestamp(a.raised_at ?? a.started_at) as Date | null) ?? now;
  const [effects, storm, changes, cards, bindings] = await Promise.all([
    sql(`select kind, at, detail from alert_effects where alert_id = ? and organization_id = ? and at >= ? order by seq desc limit ${MAX_EFFECTS}`,
      [alert.id, organizationId, new Date(now.getTime() - REFIRE_WINDOW_HOURS * HOUR)]),
    alert.storm_id ? stormAlerts(sql, organizationId, alert.storm_id, alert.id) : Promise.resolve(null),
    service ? serviceChanges(sql, organizationId, service, new Date(raised.getTime() - CHANGE_WINDOW_HOURS * HOUR)) : Promise.resolve([]),
    service ? serviceCards(sql, organizationId, service) : Promise.resolve([]),
    service ? serviceBindingsOf(services, organizationId, service, labels.environment ?? labels.env ?? '') : Promise.resolve(null),
  ]);
  return {
    alert,
    refires: {
      occurrences: Number(a.occurrences),
      effects: effects.reverse().map((e) => ({ at: iso(e.at), kind: e.kind, ...((jsonValue(e.detail) as Record<string, unknown> | null) ?? {}) })),
    },
    storm,
    changes,
    cards,
    bindings,
  };
}

async function stormAlerts(sql: SqlExecutor, organizationId: string, stormId: string, alertId: string): Promise<Evidence['storm']> {
  const rows = await sql(
    'select title, service, severity, status, raised_at from alerts where organization_id = ? and storm_id = ? and id <> ? order by raised_at desc nulls last limit 20',
    [organizationId, stormId, alertId],
  );
  return { id: stormId, alerts: rows.map((r) => compact({ title: r.title, service: r.service, severity: r.severity, status: r.status, raised_at: iso(r.raised_at) })) };
}

async function serviceChanges(sql: SqlExecutor, organizationId: string, service: string, since: Date): Promise<Record<string, unknown>[]> {
  const rows = await sql(
    `select source, event_type, status, environment, version, previous_version, deployed_by, description, commit_sha, repo_full_name, pr_url,
            branch, author, occurred_at from timeline_entries
      where organization_id = ? and service = ? and occurred_at >= ? order by occurred_at desc, seq desc limit ${MAX_CHANGES}`,
    [organizationId, service, since],
  );
  return rows.map((r) => compact({ ...r, occurred_at: iso(r.occurred_at) }));
}

async function serviceCards(sql: SqlExecutor, organizationId: string, service: string): Promise<Record<string, unknown>[]> {
  const rows = await sql(
    `select key, title, status, priority, labels, description, updated_at from cards
      where organization_id = ? and service = ? and status <> 'archived' order by updated_at desc, seq desc limit ${MAX_CARDS}`,
    [organizationId, service],
  );
  return rows.map((r) => compact({
    key: r.key, title: r.title, status: r.status, priority: r.priority, labels: jsonValue(r.labels),
    description: typeof r.description === 'string' ? r.description.slice(0, 500) : null, updated_at: iso(r.updated_at),
  }));
}

async function serviceBindingsOf(services: Services, organizationId: string, service: string, environment: string): Promise<Evidence['bindings']> {
  try {
    const id = environment ? `${service}/${environment}` : service;
    const override = await readStore(services).get(services.registry.family(serviceBindings), organizationId, id);
    const fields = resolve(override, await discovered(organizationId, service, environment), convention(service, environment));
    return { service, environment, fields };
  } catch (error) {
    // a discovery provider that fails costs the investigation its bindings, not the investigation
    if (!services.outage.noted(error)) services.log.warn({ organization: organizationId, err: loggedError(error) }, 'service bindings could not be resolved for an investigation');
    return null;
  }
}
