import Type from 'typebox';
import { defineFamily, nullable } from '../engine/descriptor.ts';
import { uniqueItems } from '../engine/rules.ts';

export const OVERSEER_MODES = ['off', 'observe', 'approve', 'enforce'] as const;
export const AUTOMATED_ACTION_KINDS = ['remediation', 'rollback', 'scale', 'restart', 'config_change', 'fix_pull_request'] as const;

export default defineFamily({
  name: 'overseer_settings',
  description:
    'The overseer: the oversight agent that reviews the automated actions Vigil is about to take (remediation, rollback, scale, restart, config_change, ' +
    'fix_pull_request) and approves or blocks them. One row per organization, read and changed field by field; an omitted field keeps its value, and ' +
    'a read before the first change answers the defaults with `updated_at` null. `mode`: `off` reviews nothing; `observe` (the default) reviews every ' +
    'action and records its verdict but blocks nothing; `approve` holds the kinds listed in `action_kinds_requiring_approval` until a person approves them ' +
    '(an approval not given within organization_settings.automation_approval_ttl_minutes blocks the action) and lets other kinds run after review; ' +
    '`enforce` also blocks, whatever its kind, any action the overseer judges unsafe. The list matters only in approve and enforce, and may be empty: ' +
    'approve with an empty list holds nothing for a person, so it acts like observe plus the hourly cap (allowed on purpose, for a gradual rollout). ' +
    '`max_automated_actions_per_hour` caps automated actions in any rolling hour in every mode, off included; past it actions are blocked, and 0 ' +
    'blocks every automated action. With `notify_on_block` a notification is posted whenever an action is blocked (by the overseer, the cap, or an ' +
    'approval that expired). The list is replaced whole when sent and may not repeat a kind. Changing needs the org admin role.',
  kind: 'singleton',
  operations: ['read', 'update'],
  roles: { update: 'org_admin' },
  fields: {
    mode: Type.Union(OVERSEER_MODES.map((m) => Type.Literal(m)), { default: 'observe', description: 'off, observe (default), approve or enforce' }),
    action_kinds_requiring_approval: Type.Array(Type.Union(AUTOMATED_ACTION_KINDS.map((k) => Type.Literal(k))), {
      maxItems: AUTOMATED_ACTION_KINDS.length,
      default: ['rollback', 'config_change'],
      description: 'kinds held for a person\'s approval in approve and enforce modes; replaced whole when sent; may be empty; default rollback and config_change',
    }),
    max_automated_actions_per_hour: Type.Integer({ minimum: 0, maximum: 1000, default: 20, description: 'cap per rolling hour, in every mode; 0 blocks every automated action' }),
    notify_on_block: Type.Boolean({ default: true, description: 'post a notification when an action is blocked' }),
    updated_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, description: 'null until the settings are first saved' }),
  },
  rules: [uniqueItems('action_kinds_requiring_approval')],
  examples: {
    valid: [],
    invalid: [
      { body: { mode: 'yolo' }, field: 'mode' },
      { body: { action_kinds_requiring_approval: ['delete_everything'] }, field: 'action_kinds_requiring_approval[0]' },
      { body: { action_kinds_requiring_approval: ['rollback', 'rollback'] }, field: 'action_kinds_requiring_approval' },
      { body: { max_automated_actions_per_hour: 1001 }, field: 'max_automated_actions_per_hour' },
      { body: { max_automated_actions_per_hour: -1 }, field: 'max_automated_actions_per_hour' },
      { body: { max_automated_actions_per_hour: 2.5 }, field: 'max_automated_actions_per_hour' },
      { body: { notify_on_block: 'yes' }, field: 'notify_on_block' },
    ],
    update: { mode: 'approve', action_kinds_requiring_approval: ['rollback', 'scale', 'fix_pull_request'], max_automated_actions_per_hour: 5 },
  },
});
