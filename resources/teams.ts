import Type from 'typebox';
import { defineFamily, nullable, type Row, type Rule, type WriteStage } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';
import { ianaTimezone, uniqueItems } from '../engine/rules.ts';
import { emailSchema, normalEmail } from './team_members.ts';

const emails = (value: unknown): string[] => (Array.isArray(value) ? value.map(normalEmail) : []);

const escalationSubset: Rule = {
  description: 'escalation must name only emails that are in member_emails',
  fields: ['escalation', 'member_emails'],
  check: (row) => {
    const members = new Set(emails(row.member_emails));
    return emails(row.escalation).flatMap((email, i) => (members.has(email) ? [] : [{ field: `escalation[${i}]`, message: 'is not in member_emails; the escalation order can only name the team\'s members' }]));
  },
};

/** Every email of a sent member list must be a member of the organization (team_members). */
async function membersOfOrganization(row: Row, stage: WriteStage): Promise<FieldError[]> {
  const sent = emails(row.member_emails);
  if (stage.op === 'update' && stage.existing && JSON.stringify(sent) === JSON.stringify(stage.existing.member_emails)) return [];
  if (!sent.length) return [];
  const known = new Set((await stage.ctx.lookup.rows('team_members', { email: { $in: sent } })).map((m) => m.email));
  return sent.flatMap((email, i) => (known.has(email) ? [] : [{ field: `member_emails[${i}]`, message: 'is not a member of this organization; add it through team_members first' }]));
}

export default defineFamily({
  name: 'teams',
  description:
    'A team: a group of the organization\'s members that alert routes page. `member_emails` names its members (each must be a row of team_members, ' +
    'named `member_emails[i]` when not; stored lowercased) and `escalation` is the paging order: the first email is paged first and each next one when the ' +
    'page is not acknowledged; every email in it must be in `member_emails`, and an empty escalation pages every member at once. Both lists are replaced whole ' +
    'when sent (send them together when removing someone who is in the escalation) and kept when omitted; neither may repeat an email. The whole list is ' +
    'checked whenever a changed list is sent, so a person who later leaves the organization stays listed (and is skipped when paging) until the list is next changed. ' +
    '`timezone` (an IANA name, default UTC) is the team\'s working time zone, used to show on-call times. The name is the natural key (1..100 characters, may be renamed). ' +
    '`escalation_policy_id` names the escalation policy (escalation_policies) an alert route that pages this team pages through. `escalation` is ' +
    'replaced by it and kept for compatibility: a team without a policy pages through the policy its `escalation` list implies (one step per ' +
    'email, 15 minutes apart; an empty list: every member at once). ' +
    'Deleting a team leaves alert routes that name it, which then page no one. Every write needs the org admin role.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  roles: { create: 'org_admin', update: 'org_admin', delete: 'org_admin' },
  naturalKey: ['name'],
  requiredOnCreate: ['name'],
  order: [{ field: 'name', direction: 'asc' }],
  references: { escalation_policy_id: { family: 'escalation_policies', unknown: 'refuse' } },
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'unique within the organization' }),
    description: nullable(Type.String({ maxLength: 255 }), { default: null, description: 'at most 255 characters; null clears' }),
    member_emails: Type.Array(emailSchema(), { maxItems: 200, default: [], description: 'the team\'s members, each a member of the organization (team_members); replaced whole when sent' }),
    escalation: Type.Array(emailSchema(), {
      maxItems: 200, default: [],
      description: 'replaced by escalation_policy_id, kept for compatibility: used only while the team has no policy (one step per email, 15 minutes apart; [] pages every member at once); only emails in member_emails; replaced whole when sent',
    }),
    escalation_policy_id: nullable(Type.String({ minLength: 1 }), { default: null, description: 'the escalation policy pages to this team go through (an escalation_policies id of this organization); null: the escalation list' }),
    timezone: Type.String({ minLength: 1, maxLength: 64, default: 'UTC', description: 'an IANA time zone name, e.g. Europe/Berlin; default UTC' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [uniqueItems('member_emails'), uniqueItems('escalation'), escalationSubset, ianaTimezone('timezone')],
  hooks: {
    prepare: (row: Row) => ({ ...row, member_emails: emails(row.member_emails), escalation: emails(row.escalation) }),
    validate: membersOfOrganization,
  },
  examples: {
    users: ['conformance-member@example.com', 'conformance-admin@example.com'],
    requires: ['team_members'],
    valid: [
      { name: 'Payments', description: 'payments on-call', timezone: 'Europe/Berlin' },
      { name: 'Platform', member_emails: ['conformance-member@example.com', 'conformance-admin@example.com'], escalation: ['conformance-admin@example.com'] },
    ],
    invalid: [
      { body: {}, field: 'name' },
      { body: { name: '' }, field: 'name' },
      { body: { name: 'x', description: 'd'.repeat(256) }, field: 'description' },
      { body: { name: 'x', timezone: 'Mars/Olympus' }, field: 'timezone' },
      { body: { name: 'x', escalation_policy_id: 'no-such-policy' }, field: 'escalation_policy_id' },
      { body: { name: 'x', member_emails: ['not-an-email'] }, field: 'member_emails[0]' },
      { body: { name: 'x', member_emails: ['stranger@example.com'] }, field: 'member_emails[0]' },
      { body: { name: 'x', member_emails: ['conformance-member@example.com'], escalation: ['conformance-admin@example.com'] }, field: 'escalation[0]' },
    ],
    update: { description: 'payments and billing on-call', timezone: 'America/New_York' },
  },
});
