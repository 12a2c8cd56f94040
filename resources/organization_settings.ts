import Type from 'typebox';
import { defineFamily } from '../engine/descriptor.ts';
import { ianaTimezone } from '../engine/rules.ts';

export default defineFamily({
  name: 'organization_settings',
  description:
    'The organization\'s alerting, investigation and incident policies: one row per organization, read and replaced field by field. ' +
    'The sign-up policies (restrict_domain_signups, social_joins_enabled) can only be changed by a user (personal access token), never by an organization key.',
  kind: 'singleton',
  operations: ['read', 'update'],
  roles: { update: 'org_admin' },
  fields: {
    timezone: Type.String({ default: 'UTC', minLength: 1, maxLength: 64, description: 'an IANA time zone name, e.g. Europe/Berlin' }),
    alert_storm_threshold: Type.Integer({ minimum: 3, default: 10, description: 'alerts inside the storm window that make a storm' }),
    alert_storm_window_seconds: Type.Integer({ minimum: 60, maximum: 3600, default: 300 }),
    alert_grouping_ai_enabled: Type.Boolean({ default: true }),
    alert_refire_cooldown_minutes: Type.Integer({
      minimum: 0, maximum: 1440, default: 30,
      description: 'after an alert resolves, a re-fire inside the cooldown stays quiet: it updates the existing chat thread, pages no one, starts no investigation and reaches no outbound rule; 0 means every re-fire pages',
    }),
    automation_approval_ttl_minutes: Type.Integer({ minimum: 5, maximum: 1440, default: 60 }),
    investigation_cooldown_minutes: Type.Integer({ minimum: 0, maximum: 1440, default: 15, description: '0 disables the cooldown' }),
    investigation_paused: Type.Boolean({ default: false }),
    auto_open_incidents: Type.Boolean({ default: false }),
    auto_close_incidents: Type.Boolean({ default: false }),
    incident_severity_floor: Type.Union([Type.Literal('critical'), Type.Literal('high')], { default: 'critical' }),
    monthly_ai_budget_usd: Type.Union([Type.Number({ minimum: 1 }), Type.Null()], { default: null, description: 'null means no budget' }),
    ai_budget_warn_percent: Type.Integer({ minimum: 1, maximum: 100, default: 80 }),
    insights_weekly_email: Type.Boolean({ default: true, description: 'every Monday, mail the insights of the week that ended, with their charts, to the organization admins (the whole organization) and to each team\'s members (that team) (plans with insights); false turns every one off' }),
    restrict_domain_signups: Type.Boolean({ default: false, description: 'needs a user token to change' }),
    social_joins_enabled: Type.Boolean({ default: true, description: 'needs a user token to change' }),
    updated_at: Type.String({ format: 'date-time', readOnly: true, description: 'when a change was last stored; the organization\'s creation time until the first change' }),
  },
  userTokenFields: ['restrict_domain_signups', 'social_joins_enabled'],
  rules: [ianaTimezone('timezone')],
  examples: {
    valid: [],
    invalid: [
      { body: { alert_storm_threshold: 2 }, field: 'alert_storm_threshold' },
      { body: { alert_storm_window_seconds: 3601 }, field: 'alert_storm_window_seconds' },
      { body: { timezone: 'Mars/Olympus' }, field: 'timezone' },
    ],
    update: { alert_storm_threshold: 5, timezone: 'Europe/Berlin' },
  },
});
