/**
 * What the alert pipeline obeys, read once per delivery: the organization's settings (the spec's
 * organization_settings, defaults when never written: organization/settings.ts) and the mutes in force. The
 * month's AI spend for the budget check is ai/spend.ts's. Reads go through the registry's descriptors, so the
 * settings are exactly what the configuration API answers.
 */
import type { FamilyDescriptor } from '../../engine/descriptor.ts';
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { selectRow, type RowQuery } from '../../engine/persistence/sql.ts';
import { jsonValue, type SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import organizationSettings from '../../resources/organization_settings.ts';
import alertMutes from '../../resources/alert_mutes.ts';
import { settingsOf, settingsSelect, type Settings } from '../organization/settings.ts';

export interface Mute {
  id: string;
  pattern: string;
}

export interface Policy {
  settings: Settings;
  mutes: Mute[];
}


function family(services: Services, name: string): FamilyDescriptor {
  const d = services.registry.get(name);
  if (!d) throw new Error(`the alert pipeline needs the ${name} family`);
  return d;
}

/** Settings and in-force mutes in one round trip. */
export function readPolicy(services: Services, sql: Sql, organizationId: string, now: Date): Promise<Policy> {
  return selectRow(sql, policyQuery(services, organizationId, now));
}

/** The policy's select, to be read alone or together with another (selectRows). */
export function policyQuery(services: Services, organizationId: string, now: Date): RowQuery<Policy> {
  const settingsFamily = family(services, organizationSettings.name);
  const mutesFamily = family(services, alertMutes.name);
  return {
    sql: `select ${settingsSelect(settingsFamily)} as settings,
                 (select coalesce(json_agg(json_build_object('id', m.id, 'pattern', m.pattern)), '[]'::json)
                    from "${tableName(mutesFamily)}" m where m.organization_id = ? and (m.ends_at is null or m.ends_at > ?)) as mutes`,
    params: [organizationId, organizationId, organizationId, now],
    read(row) {
      return { settings: settingsOf(settingsFamily, jsonValue(row?.settings)), mutes: (jsonValue(row?.mutes) ?? []) as Mute[] };
    },
  };
}
