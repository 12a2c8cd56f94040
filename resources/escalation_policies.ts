import Type from 'typebox';
import { defineFamily, nullable, type Row, type Rule, type WriteStage } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';
import { emailSchema, normalEmail } from './team_members.ts';

/** How many times the whole policy may run again while nobody acknowledges. */
export const MAX_REPEAT = 9;
export const MAX_STEPS = 20;

// one object with three optional keys rather than a union of three: every surface (the console's form, HCL, typed
// clients) handles it, and the count keeps it to exactly one
const target = Type.Object(
  {
    schedule_id: Type.Optional(Type.String({ minLength: 1, description: 'whoever this schedule (a schedules id of this organization) has on call when the step starts' })),
    email: Type.Optional(emailSchema('a member of the organization')),
    team_id: Type.Optional(Type.String({ minLength: 1, description: 'every member of this team (a teams id of this organization) when the step starts' })),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1, description: 'exactly one of { schedule_id }, { email } or { team_id }' },
);

export const stepSchema = Type.Object(
  {
    delay_minutes: Type.Integer({ minimum: 0, maximum: 1440, description: 'minutes after the step before it started, unacknowledged, that this one starts; 0 for the first' }),
    targets: Type.Optional(Type.Array(target, { maxItems: 20, description: 'who this step notifies (stored as [] when left out); a step that resolves to nobody is recorded and the next starts at once' })),
  },
  { additionalProperties: false },
);

export interface PolicyTarget {
  schedule_id?: string;
  email?: string;
  team_id?: string;
}
export interface PolicyStep {
  delay_minutes: number;
  targets: PolicyTarget[];
}

const stepsOf = (row: Row): PolicyStep[] => (Array.isArray(row.steps) ? (row.steps as PolicyStep[]) : []);

const firstStepNow: Rule = {
  description: 'the first step\'s delay_minutes must be 0 (it starts when the page does)',
  fields: ['steps'],
  check: (row) => {
    const first = stepsOf(row)[0];
    return first && first.delay_minutes !== 0 ? [{ field: 'steps[0].delay_minutes', message: 'must be 0: the first step starts when the page does' }] : [];
  },
};

/** Every schedule, team and email a changed step list names must exist in the organization, named by its place. */
async function targetsExist(row: Row, stage: WriteStage): Promise<FieldError[]> {
  if (stage.op === 'update' && JSON.stringify(row.steps) === JSON.stringify(stage.existing?.steps)) return [];
  const targets = stepsOf(row).flatMap((s, i) => (s.targets ?? []).map((t, j) => ({ t, at: `steps[${i}].targets[${j}]` })));
  if (!targets.length) return [];
  const ids = (key: 'schedule_id' | 'team_id') => [...new Set(targets.flatMap(({ t }) => (t[key] ? [t[key]!] : [])))];
  const [schedules, teams, members] = await Promise.all([
    ids('schedule_id').length ? stage.ctx.lookup.rows('schedules') : [],
    ids('team_id').length ? stage.ctx.lookup.rows('teams') : [],
    targets.some(({ t }) => t.email) ? stage.ctx.lookup.rows('team_members') : [],
  ]);
  const known = (rows: Row[], key: string) => new Set(rows.map((r) => String(r[key])));
  const [s, t, m] = [known(schedules, 'id'), known(teams, 'id'), known(members, 'email')];
  return targets.flatMap(({ t: target, at }): FieldError[] => {
    if (target.schedule_id !== undefined && !s.has(target.schedule_id)) return [{ field: `${at}.schedule_id`, message: 'is not a schedule of this organization' }];
    if (target.team_id !== undefined && !t.has(target.team_id)) return [{ field: `${at}.team_id`, message: 'is not a team of this organization' }];
    if (target.email !== undefined && !m.has(target.email)) return [{ field: `${at}.email`, message: 'is not a member of this organization; add it through team_members first' }];
    return [];
  });
}

export default defineFamily({
  name: 'escalation_policies',
  singular: 'escalation_policy',
  description:
    'An escalation policy: who is paged, in which order, when an alert route pages a team whose `escalation_policy_id` names it. `steps` run in ' +
    'order: each starts `delay_minutes` after the one before it (0 for the first) unless the alert (or its incident) was acknowledged or resolved, ' +
    'and notifies its `targets` as resolved when it starts: `{ schedule_id }` whoever that schedule has on call then, `{ email }` that member, ' +
    '`{ team_id }` every member of that team. A step that resolves to nobody is recorded and the next starts at once. `repeat` (0..9) is how many ' +
    'times the whole policy runs again after its last step while nobody acknowledges (the first step of a repeat starts the last step\'s ' +
    'following delay later: the first step\'s delay is 0, so a repeat waits as long as the last step did). Unknown schedules, teams and emails ' +
    'are refused (422 naming `steps[i].targets[j].<key>`). A schedule or team deleted later resolves to nobody. The name is the natural key. ' +
    'On every plan; writes need the org admin role.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  roles: { create: 'org_admin', update: 'org_admin', delete: 'org_admin' },
  naturalKey: ['name'],
  requiredOnCreate: ['name', 'steps'],
  order: [{ field: 'name', direction: 'asc' }],
  nestedReferences: [{ path: ['steps', 'targets', 'schedule_id'], family: 'schedules' }, { path: ['steps', 'targets', 'team_id'], family: 'teams' }],
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'unique within the organization' }),
    description: nullable(Type.String({ maxLength: 1000 }), { default: null }),
    steps: Type.Array(stepSchema, { minItems: 1, maxItems: MAX_STEPS, description: 'in paging order; replaced whole when sent' }),
    repeat: Type.Integer({ minimum: 0, maximum: MAX_REPEAT, default: 0, description: 'how many times the whole policy runs again while nobody acknowledges (0..9)' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [firstStepNow],
  hooks: {
    prepare: (row: Row) =>
      row.steps === undefined ? row : {
        ...row,
        steps: stepsOf(row).map((s) => ({ ...s, targets: (s.targets ?? []).map((t) => (typeof t?.email === 'string' ? { ...t, email: normalEmail(t.email) } : t)) })),
      },
    validate: targetsExist,
  },
  examples: {
    users: ['conformance-member@example.com', 'conformance-admin@example.com'],
    requires: ['team_members'],
    valid: [
      { name: 'Payments', description: 'member first, then the admin', steps: [{ delay_minutes: 0, targets: [{ email: 'conformance-member@example.com' }] }, { delay_minutes: 15, targets: [{ email: 'conformance-admin@example.com' }] }], repeat: 1 },
      { name: 'Platform', steps: [{ delay_minutes: 0, targets: [{ email: 'conformance-admin@example.com' }] }] },
    ],
    invalid: [
      { body: { steps: [{ delay_minutes: 0, targets: [] }] }, field: 'name' },
      { body: { name: 'x' }, field: 'steps' },
      { body: { name: 'x', steps: [{ delay_minutes: 5, targets: [] }] }, field: 'steps[0].delay_minutes' },
      { body: { name: 'x', steps: [{ delay_minutes: 0, targets: [{ email: 'stranger@example.com' }] }] }, field: 'steps[0].targets[0].email' },
      { body: { name: 'x', steps: [{ delay_minutes: 0, targets: [{ schedule_id: 'no-such-schedule' }] }] }, field: 'steps[0].targets[0].schedule_id' },
      { body: { name: 'x', steps: [{ delay_minutes: 0, targets: [{ team_id: 'no-such-team' }] }] }, field: 'steps[0].targets[0].team_id' },
      { body: { name: 'x', steps: [{ delay_minutes: 0, targets: [] }], repeat: 10 }, field: 'repeat' },
    ],
    update: { description: 'the admin straight away', repeat: 2 },
  },
});
