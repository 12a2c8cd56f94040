import Type from 'typebox';
import { defineFamily, nullable, type Rule } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';

export const ALERT_SEVERITIES = ['critical', 'high', 'warning', 'info'] as const;
const MATCH_FIELDS = ['source', 'service', 'severity', 'title', 'label'] as const;
const OPERATORS = ['equals', 'contains', 'regex'] as const;

interface Matcher {
  field: string;
  operator: string;
  value: string;
  label_key?: string;
}

/** Groups that repeat a repeated token ("(a+)+", "(\w*)*"): the shape that makes a backtracking match take exponential time. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*](?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,\})/;

function regexProblem(pattern: string): string | null {
  try {
    new RegExp(pattern);
  } catch {
    return 'must be a valid regular expression (JavaScript syntax)';
  }
  return NESTED_QUANTIFIER.test(pattern) ? 'must not repeat a repeated group such as (a+)+, which can take exponential time to match' : null;
}

const matcherRules: Rule = {
  description:
    'each matcher must give label_key when its field is label and only then; a regex value must compile and must not nest quantifiers; ' +
    `a severity compared with equals must be one of ${ALERT_SEVERITIES.join(', ')}`,
  fields: ['matchers'],
  check: (row) =>
    ((row.matchers as Matcher[] | null) ?? []).flatMap((m, i): FieldError[] => {
      const at = `matchers[${i}]`;
      const errors: FieldError[] = [];
      if (m.field === 'label' && m.label_key === undefined) errors.push({ field: `${at}.label_key`, message: 'is required when field is label' });
      if (m.field !== 'label' && m.label_key !== undefined) errors.push({ field: `${at}.label_key`, message: 'applies only when field is label' });
      const problem = m.operator === 'regex' ? regexProblem(m.value) : null;
      if (problem) errors.push({ field: `${at}.value`, message: problem });
      if (m.field === 'severity' && m.operator === 'equals' && !(ALERT_SEVERITIES as readonly string[]).includes(m.value)) {
        errors.push({ field: `${at}.value`, message: `must be one of: ${ALERT_SEVERITIES.join(', ')}` });
      }
      return errors;
    }),
};

const teamWhenPaging: Rule = {
  description: 'team_id must be set when pages is true',
  fields: ['team_id', 'pages'],
  check: (row) => (row.pages === true && (row.team_id === null || row.team_id === undefined) ? [{ field: 'team_id', message: 'is required when pages is true; set pages to false for a route that pages no one' }] : []),
};

export default defineFamily({
  name: 'alert_routes',
  description:
    'An ordered alert routing rule. Incoming alerts are compared with the enabled routes in their public order (`position`, 1 first); the first route whose ' +
    'matchers all match wins and evaluation stops, unless that route has `continue: true`, in which case later routes are evaluated too and every matching ' +
    'route applies. An alert is routed each time it fires (new, or back from resolved); its effects record each matched route and team (`routed`), and repeats keep that routing. ' +
    'An alert no route matches is recorded and pages no one (an organization with no enabled route pages without naming a team). Outbound rules are separate: they have ' +
    'their own filters. A matcher compares one alert attribute (`source`, `service`, `severity`, `title`, ' +
    'or the label named by `label_key`) with `value`: `equals` and `contains` ignore case; `regex` is a JavaScript regular expression (at most 200 characters, ' +
    'no nested quantifiers such as (a+)+) tested against the attribute, refused as `matchers[i].value` when it does not compile. A route pages its team ' +
    '(`team_id`, a team of this organization: an unknown or foreign id is refused) through the team\'s escalation when `pages` is true (the default, which ' +
    'needs a team); with `pages` false it only records the alert for the team, or silences it when no team is set. `severity_override` replaces the ' +
    'alert\'s severity (null keeps it). New routes are appended last; `move: up|down` on update shifts one place. `matchers` (1..20) is replaced whole when ' +
    'sent. The name is the natural key. Deleting a team leaves its routes, which then page no one until changed.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['name'],
  requiredOnCreate: ['name', 'matchers'],
  positioned: { field: 'position' },
  references: { team_id: { family: 'teams', unknown: 'refuse' } },
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'unique within the organization' }),
    position: Type.Integer({ readOnly: true, description: 'evaluation order, 1 first; new routes are appended; change it with move' }),
    enabled: Type.Boolean({ default: true, description: 'a disabled route is skipped' }),
    matchers: Type.Array(
      Type.Object(
        {
          field: Type.Union(MATCH_FIELDS.map((f) => Type.Literal(f)), { description: 'the alert attribute compared' }),
          operator: Type.Union(OPERATORS.map((o) => Type.Literal(o)), { description: 'equals and contains ignore case; regex is a JavaScript regular expression' }),
          value: Type.String({ minLength: 1, maxLength: 200 }),
          label_key: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'the label compared; required when field is label, refused otherwise' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 20, description: 'all must match (AND); 1..20; replaced whole when sent' },
    ),
    team_id: nullable(Type.String({ minLength: 1 }), { default: null, description: 'the team paged (a teams id of this organization); required when pages is true' }),
    pages: Type.Boolean({ default: true, description: 'page the team through its escalation; false only records the alert' }),
    severity_override: nullable(Type.Union(ALERT_SEVERITIES.map((s) => Type.Literal(s))), { default: null, description: 'replaces the alert\'s severity; null keeps it' }),
    continue: Type.Boolean({ default: false, description: 'keep evaluating later routes after this one matched' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [matcherRules, teamWhenPaging],
  examples: {
    valid: [
      {
        name: 'Payments critical',
        team_id: '$ref:teams',
        matchers: [{ field: 'service', operator: 'equals', value: 'payments' }, { field: 'severity', operator: 'equals', value: 'critical' }],
      },
      { name: 'Synthetic noise', pages: false, continue: true, matchers: [{ field: 'label', label_key: 'env', operator: 'regex', value: '^(staging|dev)-\\d+$' }] },
    ],
    invalid: [
      { body: { matchers: [{ field: 'title', operator: 'contains', value: 'disk' }], pages: false }, field: 'name' },
      { body: { name: 'x', pages: false }, field: 'matchers' },
      { body: { name: 'x', pages: false, matchers: [] }, field: 'matchers' },
      { body: { name: 'x', pages: false, matchers: [{ field: 'title', operator: 'regex', value: '(unclosed' }] }, field: 'matchers[0].value' },
      { body: { name: 'x', pages: false, matchers: [{ field: 'title', operator: 'regex', value: '(a+)+$' }] }, field: 'matchers[0].value' },
      { body: { name: 'x', pages: false, matchers: [{ field: 'label', operator: 'equals', value: 'prod' }] }, field: 'matchers[0].label_key' },
      { body: { name: 'x', pages: false, matchers: [{ field: 'host', operator: 'equals', value: 'a' }] }, field: 'matchers[0].field' },
      { body: { name: 'x', matchers: [{ field: 'title', operator: 'contains', value: 'disk' }] }, field: 'team_id' },
      { body: { name: 'x', team_id: 'no-such-team', matchers: [{ field: 'title', operator: 'contains', value: 'disk' }] }, field: 'team_id' },
      { body: { name: 'x', pages: false, severity_override: 'urgent', matchers: [{ field: 'title', operator: 'contains', value: 'disk' }] }, field: 'severity_override' },
    ],
    update: { enabled: false, severity_override: 'high' },
  },
});
