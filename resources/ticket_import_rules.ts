import Type from 'typebox';
import { defineFamily, featureFor, type Row, type Rule, type WriteStage } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';

export const TRACKERS = ['issue_tracker', 'sprint_tracker', 'code_host'] as const;
type Tracker = (typeof TRACKERS)[number];

/** The keys of `config` each tracker has (spec "Keys of config per tracker"). */
export const CONFIG_KEYS: Record<Tracker, readonly string[]> = {
  code_host: ['repo', 'label'],
  issue_tracker: ['project', 'label'],
  sprint_tracker: ['project', 'item_type'],
};

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

const configKeys: Rule = {
  description: `config must hold only its tracker's keys (${TRACKERS.map((t) => `${t}: ${CONFIG_KEYS[t].join(', ')}`).join('; ')}), with repo written owner/name`,
  fields: ['config', 'provider'],
  check: (row) => {
    const keys = CONFIG_KEYS[row.provider as Tracker] ?? [];
    const errors: FieldError[] = [];
    for (const [key, value] of Object.entries((row.config as Record<string, string> | null) ?? {})) {
      if (!keys.includes(key)) errors.push({ field: `config.${key}`, message: `is not a key of the ${String(row.provider)} tracker; it has ${keys.join(' and ')}` });
      else if (key === 'repo' && !REPO.test(value)) errors.push({ field: 'config.repo', message: 'must be a repository written owner/name' });
    }
    return errors;
  },
};

/** The tracker's prerequisite: saved credentials, or (code_host) a connected app installation. */
async function prerequisite(row: Row, stage: WriteStage): Promise<FieldError[]> {
  const needed = stage.op === 'create' || row.enabled === true;
  if (!needed) return [];
  const provider = String(row.provider);
  if (provider === 'code_host') {
    const settings = await stage.ctx.lookup.singleton('code_host_settings');
    if (settings?.installation_id) return [];
    return [{ field: 'provider', message: 'code_host needs the code-host app installation connected first: set installation_id in code_host_settings' }];
  }
  if ((await stage.ctx.lookup.rows('ticket_integrations', { provider })).length) return [];
  return [{ field: 'provider', message: `${provider} needs its credentials saved first: create its ticket_integrations row (configure_ticket_integration)` }];
}

export default defineFamily({
  name: 'ticket_import_rules',
  description:
    'The standing rule that imports one tracker\'s issues as cards in `triage` on the operations board, with the tracker item linked. ' +
    'One rule per tracker (`issue_tracker`, `sprint_tracker`, `code_host`); the path id is the tracker kind, a second create for the same ' +
    'tracker answers 409 with the existing rule, and a tracker without a rule is absent from the list and answers 404. ' +
    'Saving a rule imports nothing by itself: it governs what arrives from then on, and the agent-tool operation `run_ticket_import` fetches ' +
    'what is already open (and sets the read-only `last_run_at` and `last_run_counts`, null until then). ' +
    '`config` says what to import: code_host has `repo` (owner/name) and `label`; issue_tracker has `project` (the tracker\'s own key or id) ' +
    'and `label`; sprint_tracker has `project` and `item_type`. A label or item type narrows the rule to issues that carry it. Every value is a ' +
    'non-blank string and a key the tracker does not have is refused by name (`config.<key>`). A sent `config` is rebuilt whole (a key left ' +
    'out is dropped, `{}` clears); an update that omits `config` keeps it. Choices where the spec is silent: updates use `PUT /ticket_import_rules/{tracker}`; ' +
    'issue_tracker and sprint_tracker rules need the tracker\'s ticket_integrations row and code_host needs code_host_settings.installation_id, ' +
    'checked on create and on every update that leaves the rule enabled (disabling, or changing a disabled rule, is always allowed), ' +
    'refused as field `provider`. When `enabled` is false the rule is kept and nothing is imported. Every operation but delete needs the ticket ' +
    'systems feature; delete is allowed on any plan, and cards already imported stay on the board.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  features: featureFor('ticket_systems', ['delete']),
  id: { from: ['provider'] },
  naturalKey: ['provider'],
  requiredOnCreate: ['provider'],
  createOnly: ['provider'],
  fields: {
    id: Type.String({ readOnly: true, description: 'the tracker kind' }),
    provider: Type.Union(TRACKERS.map((k) => Type.Literal(k)), { description: 'the tracker; one rule each; set on create only' }),
    config: Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', 'x-format-description': 'a non-blank string of at most 500 characters' }), {
      default: {},
      description: 'what to import; keys per tracker (code_host: repo, label; issue_tracker: project, label; sprint_tracker: project, item_type); rebuilt whole when sent; {} clears',
    }),
    enabled: Type.Boolean({ default: true, description: 'when false the rule is kept and nothing is imported' }),
    last_run_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { readOnly: true, description: 'when run_ticket_import last ran; null until then' }),
    last_run_counts: Type.Union([Type.Record(Type.String(), Type.Integer({ minimum: 0 })), Type.Null()], { readOnly: true, description: 'what the last run did; null until then' }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [configKeys],
  hooks: { validate: prerequisite },
  examples: {
    valid: [
      { provider: 'code_host', config: { repo: 'acme/checkout', label: 'incident' } },
      { provider: 'issue_tracker', config: { project: 'OPS' }, enabled: false },
    ],
    invalid: [
      { body: { config: {} }, field: 'provider' },
      { body: { provider: 'pager' }, field: 'provider' },
      { body: { provider: 'code_host', config: { repo: 'checkout' } }, field: 'config.repo' },
      { body: { provider: 'code_host', config: { project: 'OPS' } }, field: 'config.project' },
      { body: { provider: 'code_host', config: { label: '  ' } }, field: 'config.label' },
      { body: { provider: 'code_host', config: { label: 7 } }, field: 'config.label' },
    ],
    update: { config: { repo: 'acme/payments' }, enabled: false },
    requires: ['code_host_settings', 'ticket_integrations'],
  },
});
