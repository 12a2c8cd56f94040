/**
 * An organization's `notification_settings` as the notifiers use them: every event kind's channels (defaults
 * filled in for kinds never saved), the email recipients, quiet hours and the email digest, with the
 * organization's time zone (the daily digest's hour is read in it). One round trip; the defaults of a family
 * this service does not serve (none are configured) when the family is absent.
 */
import { defaultRow } from '../../engine/operations/project.ts';
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { jsonValue, type SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import type { QuietHours } from './quiet-hours.ts';
import notificationSettings from '../../resources/notification_settings.ts';
import organizationSettings from '../../resources/organization_settings.ts';

export type NotifyChannel = 'email' | 'chat' | 'outbound';

export interface NotificationSettings {
  channels: Record<string, NotifyChannel[]>;
  email_recipients: string[];
  quiet_hours: QuietHours | null;
  digest: 'off' | 'hourly' | 'daily';
  digest_hour: number;
  /** organization_settings.timezone (UTC when unset) */
  timezone: string;
}


export async function readNotificationSettings(services: Services, sql: Sql, organizationId: string): Promise<NotificationSettings> {
  const family = services.registry.family(notificationSettings);
  const organization = services.registry.family(organizationSettings);
  const defaults = defaultRow(family) as Record<string, unknown>;
  const [row] = await sql(
    `select (select row_to_json(n) from "${tableName(family)}" n where n.organization_id = ? and n.id = ?) as settings,
            (select o.timezone from "${tableName(organization)}" o where o.organization_id = ? and o.id = ?) as timezone`,
    [organizationId, organizationId, organizationId, organizationId],
  );
  const saved = (jsonValue(row?.settings) ?? {}) as Record<string, unknown>;
  const pick = <T>(name: string, fallback: T): T => (saved[name] ?? defaults[name] ?? fallback) as T;
  return {
    channels: { ...((defaults.channels ?? {}) as Record<string, NotifyChannel[]>), ...((jsonValue(saved.channels) ?? {}) as Record<string, NotifyChannel[]>) },
    email_recipients: jsonValue(pick('email_recipients', [])) as string[],
    quiet_hours: (jsonValue(saved.quiet_hours) ?? null) as QuietHours | null,
    digest: pick('digest', 'off'),
    digest_hour: Number(pick('digest_hour', 9)),
    timezone: typeof row?.timezone === 'string' && row.timezone ? row.timezone : 'UTC',
  };
}
