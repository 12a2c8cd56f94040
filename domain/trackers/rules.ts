/**
 * Which items a tracker's import rule names (`ticket_import_rules`, one rule per tracker; the spec's `config`
 * keys). Every comparison ignores case.
 *
 * - issue_tracker: `project` is the Linear team's key or id; `label` narrows to issues carrying that label.
 * - sprint_tracker: `project` is the Jira project's key or id; `item_type` narrows to that issue type.
 * - code_host: `repo` is the repository (owner/name); `label` narrows to issues carrying that label.
 *
 * A key left out does not narrow: a rule without `project` (or `repo`) names every item the webhook sends,
 * which is then scoped by the webhook itself (a Linear team's webhook, a Jira webhook's JQL, one repository's hook).
 */
import type { Organization } from '../../engine/auth/caller.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import type { SqlExecutor } from '../../engine/persistence/store.ts';
import type { Provider, TrackerItem } from './item.ts';
import ticketImportRules from '../../resources/ticket_import_rules.ts';


export interface ImportRule {
  provider: Provider;
  config: Record<string, string>;
  enabled: boolean;
}

const parsed = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

/** The tracker's rule, or null when the organization has none. */
export async function importRule(services: Services, organization: Organization, provider: Provider): Promise<ImportRule | null> {
  const family = services.registry.family(ticketImportRules);
  const [row] = await readStore(services).list(family, organization.id, { where: { provider } });
  if (!row) return null;
  const config = parsed(row.config);
  return { provider, config: config && typeof config === 'object' ? (config as Record<string, string>) : {}, enabled: row.enabled !== false };
}

/** The enabled rules of the organization, in tracker order. */
export async function enabledRules(services: Services, organization: Organization): Promise<ImportRule[]> {
  const family = services.registry.family(ticketImportRules);
  const rows = await readStore(services).list(family, organization.id, { where: { enabled: true } });
  return rows.map((row) => ({ provider: row.provider as Provider, config: (parsed(row.config) ?? {}) as Record<string, string>, enabled: true }));
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** null when the rule names the item; otherwise why not, in words. */
export function mismatch(rule: ImportRule, item: TrackerItem): string | null {
  const { project, repo, label, item_type: itemType } = rule.config;
  const scope = project ?? repo;
  if (scope !== undefined && !item.projects.some((p) => same(p, scope))) {
    const what = item.provider === 'code_host' ? 'repository' : 'project';
    return `the ${item.provider} rule imports ${what} ${scope}; ${item.identifier} is in ${item.projects[0] ?? 'none'}`;
  }
  if (label !== undefined && !item.labels.some((l) => same(l, label))) return `the ${item.provider} rule imports items labelled ${label}; ${item.identifier} does not carry it`;
  if (itemType !== undefined && !(item.itemType !== null && same(item.itemType, itemType))) {
    return `the ${item.provider} rule imports items of type ${itemType}; ${item.identifier} is ${item.itemType ?? 'of no type'}`;
  }
  return null;
}

/**
 * Records what a run of run_ticket_import did, without touching the rule's configuration: `last_run_at` and
 * `last_run_counts` are read-only, so neither the ETag (which follows the settable fields) nor `updated_at` (when
 * the configuration last changed) moves. Routine activity, as the spec says, does not change the ETag.
 * Answers the values before, for the audit entry.
 */
export async function recordRun(services: Services, sql: SqlExecutor, organizationId: string, provider: Provider, at: Date, counts: Record<string, number>): Promise<Record<string, unknown> | undefined> {
  const family = services.registry.family(ticketImportRules);
  const table = `"${tableName(family)}"`;
  const [before] = await sql(`select "last_run_at", "last_run_counts" from ${table} where "organization_id" = ? and "provider" = ? for update`, [organizationId, provider]);
  if (!before) return undefined;
  await sql(`update ${table} set "last_run_at" = ?, "last_run_counts" = ?::jsonb where "organization_id" = ? and "provider" = ?`, [at, JSON.stringify(counts), organizationId, provider]);
  return before;
}
