import Type from 'typebox';
import { defineFamily, nullable } from '../engine/descriptor.ts';
import { ALERT_SEVERITIES } from './alert_routes.ts';

export const HEARTBEAT_STATUSES = ['new', 'up', 'down'] as const;
/** a name goes in the ping URL as it is: letters, digits and `.`, `_`, `-` need no escaping */
const URL_SAFE_NAME = '^[A-Za-z0-9][A-Za-z0-9._-]*$';

export default defineFamily({
  name: 'heartbeats',
  description:
    'A dead man\'s switch: something that should ping Vigil every `interval_seconds` (a cron job, a backup, Alertmanager\'s always-firing Watchdog) ' +
    'pings `GET` or `POST /webhooks/heartbeat/<webhook token>/<name>`. When no ping arrives within `interval_seconds` + `grace_seconds` of the last one, ' +
    'Vigil raises one alert (source `heartbeat`, fingerprint `heartbeat:<id>`, with this `severity` and `service`) through the alert pipeline; the next ping resolves it. ' +
    '`name` is unique within the organization and goes in the URL as it is (letters, digits, `.`, `_`, `-`). A new heartbeat waits for its first ping before any deadline runs, ' +
    'so creating one never pages. `interval_seconds` is 30 seconds to 31 days; `grace_seconds` (0 to 7 days, default 300) absorbs a job\'s own run time and clock drift. ' +
    '`last_ping_at`, `next_due_at` (when the alert fires without a ping; null until the first) and `status` (`new` until the first ping, `up`, `down` while alerting) ' +
    'are read-only, written by pings and the deadline sweep, and never change the ETag; a changed interval or grace moves `next_due_at` within one sweep (a few seconds). ' +
    'Reading needs the viewer role; creating, changing and deleting the member role.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['name'],
  requiredOnCreate: ['name', 'interval_seconds'],
  order: [{ field: 'name', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, pattern: URL_SAFE_NAME, description: 'unique within the organization; the last segment of the ping URL' }),
    service: nullable(Type.String({ minLength: 1, maxLength: 200 }), { default: null, description: 'the service as alerts and deploy events name it; null links none' }),
    interval_seconds: Type.Integer({ minimum: 30, maximum: 2_678_400, description: 'how often a ping is expected' }),
    grace_seconds: Type.Integer({ minimum: 0, maximum: 604_800, default: 300, description: 'how long after interval_seconds a late ping is still on time' }),
    severity: Type.Union(ALERT_SEVERITIES.map((s) => Type.Literal(s)), { default: 'critical', description: 'the severity of the alert a missed ping raises (a silent pipeline means alerts are not arriving)' }),
    last_ping_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, default: null, description: 'when the last ping arrived; null until the first' }),
    next_due_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, default: null, description: 'the deadline: last_ping_at + interval_seconds + grace_seconds; null until the first ping' }),
    status: Type.Union(HEARTBEAT_STATUSES.map((s) => Type.Literal(s)), { readOnly: true, default: 'new', description: 'new until the first ping, up while pings arrive in time, down while its alert fires' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  examples: {
    valid: [
      { name: 'nightly-backup', service: 'billing', interval_seconds: 86_400, grace_seconds: 3600, severity: 'high' },
      { name: 'alertmanager.watchdog', interval_seconds: 60 },
    ],
    invalid: [
      { body: { interval_seconds: 60 }, field: 'name' },
      { body: { name: 'x' }, field: 'interval_seconds' },
      { body: { name: 'nightly backup', interval_seconds: 60 }, field: 'name' },
      { body: { name: 'x/y', interval_seconds: 60 }, field: 'name' },
      { body: { name: 'x', interval_seconds: 29 }, field: 'interval_seconds' },
      { body: { name: 'x', interval_seconds: 60, grace_seconds: -1 }, field: 'grace_seconds' },
      { body: { name: 'x', interval_seconds: 60, severity: 'page' }, field: 'severity' },
    ],
    update: { interval_seconds: 120, grace_seconds: 30 },
  },
});
