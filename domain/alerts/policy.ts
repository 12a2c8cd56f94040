/**
 * What the alert pipeline obeys, read once per delivery: the organization's settings (the spec's
 * organization_settings, defaults when never written: organization/settings.ts) and the mutes in force. The
 * month's AI spend for the budget check is ai/spend.ts's. Reads go through the registry's descriptors, so the
 * settings are exactly what the configuration API answers.
 */
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { selectRow, type RowQuery } from '../../engine/persistence/sql.ts';
import { jsonValue, type SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import organizationSettings from '../../resources/organization_settings.ts';
import alertMutes from '../../resources/alert_mutes.ts';
import slis from '../../resources/slis.ts';
import slos from '../../resources/slos.ts';
import statusPageComponents from '../../resources/status_page_components.ts';
import statusPageMaintenances from '../../resources/status_page_maintenances.ts';
import { settingsOf, settingsSelect, type Settings } from '../organization/settings.ts';

/**
 * What silences an alert: an alert mute (its `pattern` in the alert's title, source or fingerprint) or a running
 * maintenance window that mutes alerts (`maintenance` names it; the alert's `service` among its `services`, lowercased).
 */
export interface Mute {
  id: string;
  pattern?: string;
  services?: string[];
  /** the maintenance window's title, when the mute is one */
  maintenance?: string;
}

export interface Policy {
  settings: Settings;
  mutes: Mute[];
}


/** Settings and in-force mutes in one round trip. */
export function readPolicy(services: Services, sql: Sql, organizationId: string, now: Date): Promise<Policy> {
  return selectRow(sql, policyQuery(services, organizationId, now));
}

/** The policy's select, to be read alone or together with another (selectRows). */
export function policyQuery(services: Services, organizationId: string, now: Date): RowQuery<Policy> {
  const settingsFamily = services.registry.family(organizationSettings);
  const mutesFamily = services.registry.family(alertMutes);
  const windows = maintenanceSelect(services, organizationId, now);
  return {
    sql: `select ${settingsSelect(settingsFamily)} as settings,
                 (select coalesce(json_agg(json_build_object('id', m.id, 'pattern', m.pattern)), '[]'::json)
                    from "${tableName(mutesFamily)}" m where m.organization_id = ? and (m.ends_at is null or m.ends_at > ?)) as mutes,
                 ${windows.sql} as maintenances`,
    params: [organizationId, organizationId, organizationId, now, ...windows.params],
    read(row) {
      const mutes = (jsonValue(row?.mutes) ?? []) as Mute[];
      const running = ((jsonValue(row?.maintenances) ?? []) as Mute[]).filter((m) => (m.services ?? []).length > 0);
      return { settings: settingsOf(settingsFamily, jsonValue(row?.settings)), mutes: [...mutes, ...running] };
    },
  };
}

/**
 * The running maintenance windows that mute alerts, each with the services its components stand for: the
 * services of the SLIs the components' linked SLOs measure.
 */
function maintenanceSelect(services: Services, organizationId: string, now: Date): { sql: string; params: unknown[] } {
  const [windows, components, objectives, indicators] = [statusPageMaintenances, statusPageComponents, slos, slis].map((d) => services.registry.family(d));
  return {
    sql: `(select coalesce(json_agg(json_build_object('id', w.id, 'maintenance', w.title, 'services',
              (select coalesce(json_agg(distinct lower(i.service)), '[]'::json)
                 from "${tableName(components)}" c
                 join "${tableName(objectives)}" o on o.organization_id = c.organization_id and c.slo_ids @> jsonb_build_array(o.id)
                 join "${tableName(indicators)}" i on i.organization_id = o.organization_id and i.id = o.sli_id
                where c.organization_id = w.organization_id and w.component_ids @> jsonb_build_array(c.id)))), '[]'::json)
         from "${tableName(windows)}" w
        where w.organization_id = ? and w.mute_alerts = true and w.starts_at <= ? and w.ends_at > ?)`,
    params: [organizationId, now, now],
  };
}
