import Type from 'typebox';
import { defineFamily, type Row, nullable } from '../engine/descriptor.ts';
import { validationFailed } from '../engine/errors.ts';

const time = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string | Date).getTime());

/** A freeze is in force while one is set (a reason is stored) and its `freeze_until`, if any, is still ahead. */
export function frozenAt(row: Row, now: Date): boolean {
  if (row.freeze_reason === null || row.freeze_reason === undefined) return false;
  const until = time(row.freeze_until);
  return until === null || until > now.getTime();
}

/** An override is in force while one is set and its `override_until` is still ahead (an override always lapses). */
export function overrideActiveAt(row: Row, now: Date): boolean {
  const until = time(row.override_until);
  return row.override_allow !== null && row.override_allow !== undefined && until !== null && until > now.getTime();
}

/** The longest an override may last: it answers one incident or release, not a standing exemption. */
export const OVERRIDE_MAX_HOURS = 72;

export default defineFamily({
  name: 'deploy_policies',
  description:
    'The deploy gate of one service, named as deploy events and the gate API name it; one policy per service. ' +
    'A disabled policy gates nothing and the service falls back to the defaults. `error_budget_threshold` (percent, default 10) holds a deploy while less of an SLO\'s budget remains; 0 switches that block off. ' +
    'With `burn_rate_block_enabled` or `incident_block_enabled` off, the gate reports that condition as an advisory instead of holding. `service` may be renamed by update. ' +
    'The freeze is state, not configuration: it is set and cleared only by the actions `set_deploy_freeze` (a reason, and an optional `until` that must be in the future; ' +
    'a new freeze replaces the one in force) and `clear_deploy_freeze`, never by PUT, and it does not change the ETag. A disabled policy may hold a freeze, which gates nothing until the policy is enabled again. ' +
    '`frozen` is computed: true while a freeze is set and its `freeze_until` is null (frozen until cleared) or still ahead; once `freeze_until` passes the policy reads ' +
    'not frozen, while `freeze_reason` and `freeze_until` keep describing the lapsed freeze until it is cleared or replaced. Clearing a policy that holds no freeze changes nothing and is not audited. ' +
    'The override is set and cleared only by the org-admin REST actions `POST /deploy_policies/{id}/set_deploy_override` (`allow`, a `reason`, an `until` at most ' +
    `${OVERRIDE_MAX_HOURS} h ahead) and \`POST /deploy_policies/{id}/clear_deploy_override\`; both are audited and neither is an agent tool (the spec). ` +
    'While `override_active` (set, and `override_until` still ahead) the gate allows (`override_allow` true) or holds (false) whatever else holds, and says so; `override_by` is the credential that set it.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['service'],
  requiredOnCreate: ['service'],
  fields: {
    id: Type.String({ readOnly: true }),
    service: Type.String({ minLength: 1, maxLength: 200, description: 'spelled as deploy events and the gate API name it; one policy per service; an update renames' }),
    enabled: Type.Boolean({ default: true, description: 'a disabled policy gates nothing and the service falls back to defaults' }),
    error_budget_threshold: Type.Number({
      minimum: 0, maximum: 100, default: 10,
      description: 'percent; hold a deploy while less of an SLO\'s error budget than this remains; 0 switches the budget block off',
    }),
    burn_rate_block_enabled: Type.Boolean({ default: true, description: 'hold a deploy while an SLO burns budget fast; when off, the gate reports it as an advisory' }),
    incident_block_enabled: Type.Boolean({ default: true, description: 'hold a deploy while a critical incident affecting the service is open; when off, it becomes an advisory' }),
    frozen: Type.Boolean({ readOnly: true, description: 'whether a deploy freeze is in force now: set, and freeze_until null or still ahead' }),
    freeze_reason: nullable(Type.String(), { default: null, readOnly: true, description: 'why the last freeze was set; null when none is set' }),
    freeze_until: nullable(Type.String({ format: 'date-time' }), { default: null, readOnly: true, description: 'when the last freeze lapses; null means frozen until cleared (or no freeze)' }),
    override_active: Type.Boolean({ readOnly: true, default: false, description: 'whether an audited override is in force: set, and override_until still ahead' }),
    override_allow: nullable(Type.Boolean(), { default: null, readOnly: true, description: 'whether the override lets deploys through (true) or holds them (false)' }),
    override_by: nullable(Type.String(), { default: null, readOnly: true, description: 'who set the override' }),
    override_until: nullable(Type.String({ format: 'date-time' }), { default: null, readOnly: true, description: 'when the override lapses' }),
    override_reason: nullable(Type.String(), { default: null, readOnly: true, description: 'why the override was set' }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  computed: { frozen: (row, { now }) => frozenAt(row, now), override_active: (row, { now }) => overrideActiveAt(row, now) },
  actions: {
    set_deploy_freeze: {
      description: 'Freezes deploys of the service: with `until`, until that time (which must be in the future); without, until cleared. Replaces a freeze in force.',
      role: 'member',
      input: Type.Object(
        {
          reason: Type.String({ minLength: 1, maxLength: 500, description: 'why deploys are frozen' }),
          until: Type.Optional(Type.String({ format: 'date-time', description: 'when the freeze lapses; omitted means until cleared' })),
        },
        { additionalProperties: false },
      ),
      run: (_row, input, ctx) => {
        const until = input.until === undefined ? null : new Date(String(input.until));
        if (until && until.getTime() <= ctx.now.getTime()) throw validationFailed([{ field: 'until', message: 'must be in the future' }]);
        return { freeze_reason: input.reason, freeze_until: until };
      },
    },
    clear_deploy_freeze: {
      description: 'Lifts the deploy freeze of the service (a lapsed one too); a policy without a freeze is left as it is.',
      role: 'member',
      input: Type.Object({}, { additionalProperties: false }),
      run: () => ({ freeze_reason: null, freeze_until: null }),
    },
    set_deploy_override: {
      description:
        `Overrides the gate of the service until \`until\` (in the future, at most ${OVERRIDE_MAX_HOURS} h ahead): \`allow: true\` lets deploys through, \`allow: false\` holds them, ` +
        'whatever else holds. Replaces an override in force. REST only, org admins, audited.',
      role: 'org_admin',
      transports: ['rest'],
      input: Type.Object(
        {
          allow: Type.Boolean({ description: 'true lets deploys through; false holds them' }),
          reason: Type.String({ minLength: 1, maxLength: 500, description: 'why the gate is overridden' }),
          until: Type.String({ format: 'date-time', description: `when the override lapses; at most ${OVERRIDE_MAX_HOURS} h ahead` }),
        },
        { additionalProperties: false },
      ),
      run: (_row, input, ctx) => {
        const until = new Date(String(input.until));
        const ahead = until.getTime() - ctx.now.getTime();
        if (!(ahead > 0)) throw validationFailed([{ field: 'until', message: 'must be in the future' }]);
        if (ahead > OVERRIDE_MAX_HOURS * 3_600_000) throw validationFailed([{ field: 'until', message: `must be at most ${OVERRIDE_MAX_HOURS} hours ahead` }]);
        const by = ctx.caller.credential.kind === 'personal_token' ? `user:${ctx.caller.credential.userId ?? ctx.caller.credential.id}` : `${ctx.caller.credential.kind}:${ctx.caller.credential.id}`;
        return { override_allow: input.allow, override_reason: input.reason, override_until: until, override_by: by };
      },
    },
    clear_deploy_override: {
      description: 'Lifts the gate override of the service (a lapsed one too). REST only, org admins, audited.',
      role: 'org_admin',
      transports: ['rest'],
      input: Type.Object({}, { additionalProperties: false }),
      run: () => ({ override_allow: null, override_reason: null, override_until: null, override_by: null }),
    },
  },
  examples: {
    valid: [
      { service: 'checkout-api' },
      { service: 'billing-worker', enabled: true, error_budget_threshold: 25.5, burn_rate_block_enabled: false, incident_block_enabled: true },
    ],
    invalid: [
      { body: {}, field: 'service' },
      { body: { service: '' }, field: 'service' },
      { body: { service: 's'.repeat(201) }, field: 'service' },
      { body: { service: 'x', error_budget_threshold: 101 }, field: 'error_budget_threshold' },
      { body: { service: 'x', error_budget_threshold: -1 }, field: 'error_budget_threshold' },
      { body: { service: 'x', frozen: true }, field: 'frozen' },
    ],
    update: { error_budget_threshold: 5, incident_block_enabled: false },
  },
});
