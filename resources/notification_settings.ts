import Type from 'typebox';
import { defineFamily, nullable, type Row, type Rule } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';
import { ianaTimezone, uniqueItems } from '../engine/rules.ts';
import { EVENT_KINDS } from './outbound_rules.ts';
import { emailSchema } from './team_members.ts';

export const NOTIFY_CHANNELS = ['email', 'chat', 'outbound'] as const;
type EventKind = (typeof EVENT_KINDS)[number];

/** Out of the box: chat and outbound for every kind; email for what someone must act on. */
const ACT_ON: readonly EventKind[] = ['alert.fired', 'incident.opened', 'fix_request.finished'];
const DEFAULT_CHANNELS = Object.fromEntries(EVENT_KINDS.map((k) => [k, ACT_ON.includes(k) ? ['email', 'chat', 'outbound'] : ['chat', 'outbound']]));

const channelList = Type.Array(Type.Union(NOTIFY_CHANNELS.map((c) => Type.Literal(c))), { maxItems: NOTIFY_CHANNELS.length });
const HH_MM = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', 'x-format-description': 'a time of day written HH:MM (24-hour, 00:00 to 23:59)' });

const uniqueChannels: Rule = {
  description: 'channels must not repeat a channel under one event kind',
  fields: ['channels'],
  check: (row) => {
    const errors: FieldError[] = [];
    for (const [kind, list] of Object.entries((row.channels ?? {}) as Row)) {
      if (Array.isArray(list) && new Set(list).size !== list.length) errors.push({ field: `channels.${kind}`, message: 'must not repeat a channel' });
    }
    return errors;
  },
};

const zone = ianaTimezone('quiet_hours.timezone');
const quietHours: Rule = {
  description: 'quiet_hours must name an IANA time zone and an end that differs from its start',
  fields: ['quiet_hours'],
  check: (row) => {
    const q = row.quiet_hours as { start: string; end: string; timezone: string } | null;
    if (!q) return [];
    const errors = zone.check({ 'quiet_hours.timezone': q.timezone });
    if (q.start === q.end) errors.push({ field: 'quiet_hours.end', message: 'must differ from quiet_hours.start' });
    return errors;
  },
};

export default defineFamily({
  name: 'notification_settings',
  description:
    'Which events notify whom, and how: one row per organization, read by anyone and changed field by field by an org admin. ' +
    `\`channels\` maps each event kind (${EVENT_KINDS.join(', ')}) to the channels it uses: \`email\` mails \`email_recipients\`, \`chat\` posts through the chat connection, ` +
    'and `outbound` lets the event reach the outbound rules that select it (leave it out to stop a kind going out without touching the rules). ' +
    'A sent `channels` map merges per event kind: kinds it does not name keep their channels, `[]` silences a kind, and a key that is no event kind is refused by name (`channels.<key>`). ' +
    'In-app notifications are always raised and are not configured here. ' +
    '`email_recipients` (at most 50, stored lowercased, none repeated) is the full list and is replaced whole when sent; addresses are checked as email addresses only, ' +
    'not against the organization\'s members; with none listed, email notifications go nowhere. ' +
    '`quiet_hours` `{ start, end, timezone }` (HH:MM, an IANA zone; start and end must differ; an end before the start spans midnight) holds email and chat notifications ' +
    'while in force and sends them together when it ends; outbound deliveries are never held, so paging integrations keep working. null (the default) means no quiet hours; a sent object replaces the stored one. ' +
    '`digest` batches email: off (one email per event, the default), hourly, or daily at `digest_hour` (0..23, default 9) in the organization\'s time zone ' +
    '(organization_settings.timezone); `digest_hour` is kept but unused unless digest is daily. Chat and outbound are never batched. ' +
    '`updated_at` is null until the first change is stored.',
  kind: 'singleton',
  operations: ['read', 'update'],
  roles: { update: 'org_admin' },
  fields: {
    channels: Type.Object(Object.fromEntries(EVENT_KINDS.map((k) => [k, Type.Optional(channelList)])), {
      additionalProperties: false,
      default: DEFAULT_CHANNELS,
      description: 'event kind → channels (email, chat, outbound); merged per kind when sent; [] silences a kind; every kind is answered',
    }),
    email_recipients: Type.Array(emailSchema(), {
      maxItems: 50,
      default: [],
      description: 'who the email channel mails, at most 50; validated as email addresses only; stored lowercased; the full list, replaced when sent',
    }),
    quiet_hours: nullable(
      Type.Object(
        { start: HH_MM, end: HH_MM, timezone: Type.String({ minLength: 1, maxLength: 64, description: 'an IANA time zone name, e.g. Europe/Berlin' }) },
        { additionalProperties: false },
      ),
      { default: null, description: 'when email and chat notifications are held; an end before the start spans midnight; null means none' },
    ),
    digest: Type.Union([Type.Literal('off'), Type.Literal('hourly'), Type.Literal('daily')], { default: 'off', description: 'batches email notifications: off, hourly, or daily at digest_hour' }),
    digest_hour: Type.Integer({ minimum: 0, maximum: 23, default: 9, description: 'hour of the daily digest in the organization\'s time zone; applies only when digest is daily' }),
    updated_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, description: 'null until the settings are first saved' }),
  },
  rules: [uniqueChannels, uniqueItems('email_recipients'), quietHours],
  hooks: {
    prepare: (row, input, stage) => {
      const next: Row = { ...row };
      if ('channels' in input) next.channels = { ...((stage.existing?.channels as Row | undefined) ?? DEFAULT_CHANNELS), ...(input.channels as Row) };
      if (Array.isArray(input.email_recipients)) next.email_recipients = input.email_recipients.map((e) => String(e).toLowerCase());
      return next;
    },
  },
  examples: {
    valid: [],
    invalid: [
      { body: { channels: { 'alert.exploded': ['email'] } }, field: 'channels.alert.exploded' },
      { body: { channels: { 'alert.fired': ['pigeon'] } }, field: 'channels.alert.fired[0]' },
      { body: { channels: { 'alert.fired': ['chat', 'chat'] } }, field: 'channels.alert.fired' },
      { body: { email_recipients: ['not-an-email'] }, field: 'email_recipients[0]' },
      { body: { email_recipients: ['a@example.com', 'A@example.com'] }, field: 'email_recipients' },
      { body: { quiet_hours: { start: '22:00', end: '22:00', timezone: 'UTC' } }, field: 'quiet_hours.end' },
      { body: { quiet_hours: { start: '24:00', end: '07:00', timezone: 'UTC' } }, field: 'quiet_hours.start' },
      { body: { quiet_hours: { start: '22:00', end: '07:00', timezone: 'Mars/Olympus' } }, field: 'quiet_hours.timezone' },
      { body: { digest: 'weekly' }, field: 'digest' },
      { body: { digest_hour: 24 }, field: 'digest_hour' },
    ],
    update: {
      email_recipients: ['oncall@acme.example'],
      quiet_hours: { start: '22:00', end: '07:00', timezone: 'Europe/Berlin' },
      digest: 'daily',
      digest_hour: 8,
    },
  },
});
