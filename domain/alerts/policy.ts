/**
 * What the alert pipeline obeys, read once per delivery: the organization's settings (the spec's
 * organization_settings, defaults when never written), the mutes in force, and the month's AI spend for the
 * budget check. Reads go through the registry's descriptors, so the settings are exactly what the
 * configuration API answers.
 */
import Type, { type Static } from 'typebox';
import type { FamilyDescriptor } from '../../engine/descriptor.ts';
import { defaultRow } from '../../engine/operations/project.ts';
import type { Services } from '../../engine/operations/types.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { selectRow, type RowQuery } from '../../engine/persistence/sql.ts';
import { jsonValue, type SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import organizationSettings from '../../resources/organization_settings.ts';
import type { AlertEvent } from '../../webhooks/sources/types.ts';
import { offsetAt, wallClock } from '../../engine/wall-clock.ts';
import alertMutes from '../../resources/alert_mutes.ts';

const SettingsSchema = Type.Object(organizationSettings.fields);
export type Settings = Static<typeof SettingsSchema>;

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
    sql: `select (select row_to_json(s) from "${tableName(settingsFamily)}" s where s.organization_id = ? and s.id = ?) as settings,
                 (select coalesce(json_agg(json_build_object('id', m.id, 'pattern', m.pattern)), '[]'::json)
                    from "${tableName(mutesFamily)}" m where m.organization_id = ? and (m.ends_at is null or m.ends_at > ?)) as mutes`,
    params: [organizationId, organizationId, organizationId, now],
    read(row) {
      const stored = (jsonValue(row?.settings) ?? {}) as Record<string, unknown>;
      const defaults = defaultRow(settingsFamily);
      const settings = Object.fromEntries(Object.keys(organizationSettings.fields).map((k) => [k, stored[k] ?? defaults[k]])) as Settings;
      return { settings, mutes: (jsonValue(row?.mutes) ?? []) as Mute[] };
    },
  };
}

/** The mute in force whose pattern is in the alert's title, source or fingerprint (any case), if any. */
export function matchingMute(mutes: readonly Mute[], event: Pick<AlertEvent, 'title' | 'source' | 'fingerprint'>): Mute | undefined {
  const haystacks = [event.title, event.source, event.fingerprint].map((s) => s.toLowerCase());
  return mutes.find((m) => haystacks.some((h) => h.includes(m.pattern.toLowerCase())));
}

/** The first instant of the current month in the organization's time zone (UTC when the zone is unknown). */
export function monthStart(now: Date, timeZone: string): Date {
  const zone = safeZone(timeZone);
  const { year, month } = wallClock(now, zone);
  const guess = Date.UTC(year, month - 1, 1);
  // the zone's offset at the guess, then again at the corrected instant (a DST change can fall in between)
  let start = guess - offsetAt(guess, zone);
  start = guess - offsetAt(start, zone);
  return new Date(start);
}

function safeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}

/** The AI spend recorded in the ledger since the start of the organization's month, in USD. */
export async function monthSpend(sql: Sql, organizationId: string, since: Date): Promise<number> {
  const [row] = await sql('select coalesce(sum(cost_usd), 0)::float8 as spent from ai_spend where organization_id = ? and occurred_at >= ?', [organizationId, since]);
  return Number(row?.spent ?? 0);
}
