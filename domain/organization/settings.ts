/**
 * The organization's settings (organization_settings) as the domain reads them: each field stored, or its default when
 * never written, so they are exactly what the configuration API answers. Read by the alert pipeline (with its mutes,
 * alerts/policy.ts) and by the AI spend ledger (ai/ledger.ts), which may not import each other both ways.
 */
import Type, { type Static } from 'typebox';
import type { FamilyDescriptor } from '../../engine/descriptor.ts';
import { defaultRow } from '../../engine/operations/project.ts';
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { jsonValue, type SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import organizationSettings from '../../resources/organization_settings.ts';

const SettingsSchema = Type.Object(organizationSettings.fields);
export type Settings = Static<typeof SettingsSchema>;

/** A select of the stored settings row as JSON (null when never written); its two parameters: the organization's id, twice. */
export function settingsSelect(family: FamilyDescriptor): string {
  return `(select row_to_json(s) from "${tableName(family)}" s where s.organization_id = ? and s.id = ?)`;
}

/** The settings from the stored row (`settingsSelect`'s value), defaults for what was never written. */
export function settingsOf(family: FamilyDescriptor, stored: unknown): Settings {
  const row = (stored ?? {}) as Record<string, unknown>;
  const defaults = defaultRow(family);
  return Object.fromEntries(Object.keys(organizationSettings.fields).map((k) => [k, row[k] ?? defaults[k]])) as Settings;
}

/** The organization's settings, read alone. */
export async function readSettings(services: Services, sql: Sql, organizationId: string): Promise<Settings> {
  const family = services.registry.family(organizationSettings);
  const [row] = await sql(`select ${settingsSelect(family)} as settings`, [organizationId, organizationId]);
  return settingsOf(family, jsonValue(row?.settings));
}
