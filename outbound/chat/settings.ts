/**
 * The organization's chat connection as the chat side uses it (resources/chat.ts), with the descriptor's defaults
 * for fields never saved, and how an alert's channel is named from `alert_channel_pattern`.
 */
import { defaultRow } from '../../engine/operations/project.ts';
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import chat from '../../resources/chat.ts';

export interface ChatSettings {
  /** a workspace and a bot token are stored */
  connected: boolean;
  default_channel: string | null;
  alert_channel_pattern: string;
  thread_per_alert: boolean;
  incident_channel_prefix: string;
}

const MAX_CHANNEL = 80;

/** The chat settings, or null when the workspace is not connected. */
export async function readChatSettings(services: Services, sql: Sql, organizationId: string): Promise<ChatSettings | null> {
  const family = services.registry.family(chat);
  const [row] = await sql(
    `select workspace_id, bot_token is not null as token_set, default_channel, alert_channel_pattern, thread_per_alert, incident_channel_prefix
       from "${tableName(family)}" where organization_id = ? and id = ?`,
    [organizationId, organizationId],
  );
  if (!row || row.workspace_id === null || row.workspace_id === undefined || !(row.token_set === true || row.token_set === 't')) return null;
  const defaults = defaultRow(family) as Record<string, unknown>;
  const pick = <T>(name: string): T => (row[name] ?? defaults[name]) as T;
  return {
    connected: true,
    default_channel: (row.default_channel as string | null) ?? null,
    alert_channel_pattern: pick<string>('alert_channel_pattern') ?? '#alerts-{service}',
    thread_per_alert: pick<boolean>('thread_per_alert') !== false,
    incident_channel_prefix: pick<string>('incident_channel_prefix') ?? 'inc-',
  };
}

/** One placeholder's value as a channel name takes it: lowercased, anything but a-z, 0-9, - and _ turned into -. */
const slug = (value: string | null | undefined) => (value ?? '').toLowerCase().replace(/[^a-z0-9_-]/g, '-');

/**
 * The channel an alert goes to: the pattern filled with the alert's service, severity and environment (the
 * `environment` or `env` label), normalised as the chat descriptor says: repeated and trailing - dropped, at most
 * 80 characters (the # included).
 */
export function alertChannel(pattern: string, alert: { service?: string | null; severity?: string | null; labels?: Record<string, string> | null }): string {
  const values: Record<string, string> = {
    service: slug(alert.service),
    severity: slug(alert.severity),
    environment: slug(alert.labels?.environment ?? alert.labels?.env),
  };
  const filled = pattern.replace(/\{([a-z_]+)\}/g, (_, name: string) => values[name] ?? '');
  const name = filled.replace(/^#/, '').replace(/-{2,}/g, '-').slice(0, MAX_CHANNEL - 1).replace(/-+$/, '');
  return `#${name}`;
}
