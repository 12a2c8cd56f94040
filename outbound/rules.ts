/**
 * What an organization's outbound rules send where, read once per batch of events (one round trip). An event reaches the configs of the rules that:
 * are enabled, name its kind, point at an enabled config, and whose filters it passes (each given list must
 * hold the event's attribute; an event without that attribute fails the filter) — unless the organization's
 * `notification_settings.channels` leave `outbound` out for the kind. Several rules naming one config make one
 * delivery. A `pager` config takes alert and incident events only (it has no way to say anything else).
 */
import { defaultRow } from '../engine/operations/project.ts';
import type { FamilyDescriptor } from '../engine/descriptor.ts';
import type { Services } from '../engine/services.ts';
import { tableName } from '../engine/persistence/entities.ts';
import { selectRow, type RowQuery } from '../engine/persistence/sql.ts';
import { jsonValue, type SqlExecutor as Sql } from '../engine/persistence/store.ts';
import type { OutboundEvent } from './events.ts';
import outboundRules from '../resources/outbound_rules.ts';
import outboundConfigs from '../resources/outbound_configs.ts';
import notificationSettings from '../resources/notification_settings.ts';
import chatFamily from '../resources/chat.ts';

export interface OutboundRule {
  id: string;
  events: string[];
  config_id: string;
  config_kind: string;
  filters: { services?: string[]; severities?: string[]; sources?: string[] };
}

export interface OutboundRules {
  rules: OutboundRule[];
  /** event kinds whose notification channels include `outbound` */
  outboundKinds: ReadonlySet<string>;
  /** event kinds posted to chat: their channels include `chat` and the chat workspace is connected */
  chatKinds?: ReadonlySet<string>;
  /** the chat workspace is connected (bot token and workspace set): why a kind is not posted, when it is not */
  chatConnected?: boolean;
  /** event kinds mailed: their channels include `email` and there is a recipient */
  emailKinds?: ReadonlySet<string>;
}

export interface Target {
  configId: string;
  ruleIds: string[];
}

const PAGER_KINDS = /^(alert|incident)\./;

const table = (services: Services, family: FamilyDescriptor) => `"${tableName(services.registry.family(family))}"`;

/** The rules' statement. */
function statement(services: Services): string {
  const [rules, configs, settings, chat] = [outboundRules, outboundConfigs, notificationSettings, chatFamily].map((d) => table(services, d));
  return `select
    (select coalesce(json_agg(json_build_object('id', r.id, 'events', r.events, 'config_id', r.outbound_config_id, 'config_kind', c.kind, 'filters', r.filters)), '[]'::json)
       from ${rules} r join ${configs} c on c.organization_id = r.organization_id and c.id = r.outbound_config_id and coalesce(c.enabled, true)
      where r.organization_id = ? and coalesce(r.enabled, true)) as rules,
    (select s.channels from ${settings} s where s.organization_id = ? and s.id = ?) as channels,
    (select coalesce(jsonb_array_length(s.email_recipients), 0) > 0 from ${settings} s where s.organization_id = ? and s.id = ?) as mails,
    (select c.workspace_id is not null and c.bot_token is not null from ${chat} c where c.organization_id = ? and c.id = ?) as chat_connected`;
}

export interface OrganizationOutbound {
  rules: OutboundRules;
}


/** The organization's outbound rules, in one round trip. */
export function readOutbound(services: Services, sql: Sql, organizationId: string): Promise<OrganizationOutbound> {
  return selectRow(sql, outboundQuery(services, organizationId));
}

/** readOutbound's select, to be read alone or together with another (selectRows). */
export function outboundQuery(services: Services, organizationId: string): RowQuery<OrganizationOutbound> {
  const params: unknown[] = Array(7).fill(organizationId);
  const settings = services.registry.family(notificationSettings);
  return {
    sql: statement(services),
    params,
    read(row) {
      const rules = (jsonValue(row?.rules) ?? []) as OutboundRule[];
      const defaults = defaultRow(settings).channels as Record<string, string[]>;
      const channels = { ...defaults, ...((jsonValue(row?.channels) ?? {}) as Record<string, string[]>) };
      const kindsUsing = (channel: string) => new Set(Object.entries(channels).filter(([, list]) => Array.isArray(list) && list.includes(channel)).map(([kind]) => kind));
      const none = new Set<string>();
      return {
        rules: {
          rules,
          outboundKinds: kindsUsing('outbound'),
          chatKinds: row?.chat_connected === true ? kindsUsing('chat') : none,
          chatConnected: row?.chat_connected === true,
          emailKinds: row?.mails === true ? kindsUsing('email') : none,
        },
      };
    },
  };
}

function passes(list: string[] | undefined, value: string | null): boolean {
  if (!list || list.length === 0) return true;
  return value !== null && list.includes(value);
}

/** The configs an event goes to, each once, with the rules that chose it. */
export function targetsOf(outbound: OutboundRules, event: OutboundEvent): Target[] {
  if (outbound.rules.length === 0 || !outbound.outboundKinds.has(event.type)) return [];
  const byConfig = new Map<string, string[]>();
  const { service, severity, source } = event.attributes;
  for (const rule of outbound.rules) {
    if (!rule.events.includes(event.type)) continue;
    if (rule.config_kind === 'pager' && !PAGER_KINDS.test(event.type)) continue;
    const f = rule.filters ?? {};
    if (!passes(f.services, service) || !passes(f.severities, severity) || !passes(f.sources, source)) continue;
    byConfig.set(rule.config_id, [...(byConfig.get(rule.config_id) ?? []), rule.id]);
  }
  return [...byConfig].map(([configId, ruleIds]) => ({ configId, ruleIds }));
}
