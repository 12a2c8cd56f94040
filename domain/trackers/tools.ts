/**
 * `run_ticket_import` (agent tool): fetches what is already open in a tracker and runs every item through the
 * webhooks' sync (import.ts), for one tracker or for every enabled rule. Saving a rule imports nothing; this is
 * how what existed before the rule arrives. Records `last_run_at` and `last_run_counts` on each rule it ran —
 * read-only fields, so the rule's ETag and `updated_at` stay as they were — and one audit entry per rule
 * (`action:run_ticket_import`). Member role; needs ticket systems.
 */
import Type from 'typebox';
import { ApiError } from '../../engine/errors.ts';
import { recordAudit } from '../../engine/operations/audit.ts';
import { inTransaction } from '../../engine/operations/context.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { iso } from '../../engine/persistence/store.ts';
import { runImport, type RunResult } from './import.ts';
import { PROVIDERS, type Provider } from './item.ts';
import { enabledRules, importRule, recordRun, type ImportRule } from './rules.ts';
import ticketImportRules from '../../resources/ticket_import_rules.ts';

const COUNTS = Type.Object({
  fetched: Type.Integer(), created: Type.Integer(), updated: Type.Integer(), unchanged: Type.Integer(), ignored: Type.Integer(), errors: Type.Integer(),
});

export const runTicketImport: DomainOperation = {
  name: 'run_ticket_import',
  description:
    'Imports what is already open in a tracker: fetches the open items its ticket import rule names (Linear issues not completed or canceled; ' +
    'Jira issues whose status category is not Done; open GitHub issues of the repository) with the saved credentials, and gives each a card in ' +
    'triage with the item linked, exactly as the tracker webhooks do (an item already linked is kept in step, never duplicated; the fix label asks ' +
    'for a fix). provider: issue_tracker, sprint_tracker or code_host; omitted, every enabled rule runs. At most 1,000 items per tracker and run. ' +
    'Answers per tracker { provider, last_run_at, counts: { fetched, created, updated, unchanged, ignored, errors }, error? } and records ' +
    'last_run_at and last_run_counts on the rule (its ETag does not change).',
  input: Type.Object(
    { provider: Type.Optional(Type.Union(PROVIDERS.map((p) => Type.Literal(p)), { description: 'the tracker whose rule runs; omitted: every enabled rule' })) },
    { additionalProperties: false },
  ),
  role: 'member',
  kind: 'write',
  feature: 'ticket_systems',
  // it fetches from the trackers' APIs
  reachesOutside: true,
  answer: {
    schema: Type.Object({
      data: Type.Array(Type.Object({ provider: Type.String(), last_run_at: Type.String({ format: 'date-time' }), counts: COUNTS, error: Type.Optional(Type.String()) })),
    }),
  },
  async run(services, caller, input) {
    const organization = caller.organization;
    let rules: ImportRule[];
    if (typeof input.provider === 'string') {
      const provider = input.provider as Provider;
      const rule = await importRule(services, organization, provider);
      if (!rule) throw new ApiError('not_found', `There is no ${provider} ticket import rule; create it first (ticket_import_rules).`);
      if (!rule.enabled) {
        throw new ApiError('validation_failed', `provider ${provider}'s import rule is disabled; enable it first.`, {
          extra: { field: 'provider' }, errors: [{ field: 'provider', message: 'names a disabled import rule; enable it first' }],
        });
      }
      rules = [rule];
    } else rules = await enabledRules(services, organization);

    const data: (RunResult & { last_run_at: string })[] = [];
    for (const rule of rules) {
      const result = await runImport(services, organization, rule, services.clock.now());
      const at = services.clock.now();
      await inTransaction(services, async (store) => {
        const before = await recordRun(services, store.execute, organization.id, rule.provider, at, { ...result.counts });
        if (!before) return;
        await recordAudit(services, store, {
          caller, family: ticketImportRules.name, rowId: rule.provider, action: 'action:run_ticket_import', at,
          changes: {
            last_run_at: { before: iso(before.last_run_at), after: at.toISOString() },
            last_run_counts: { before: typeof before.last_run_counts === 'string' ? JSON.parse(before.last_run_counts) : (before.last_run_counts ?? null), after: result.counts },
          },
        });
      });
      data.push({ provider: result.provider, last_run_at: at.toISOString(), counts: result.counts, ...(result.error ? { error: result.error } : {}) });
    }
    return { json: { data } };
  },
};

export const TRACKER_OPERATIONS: DomainOperation[] = [runTicketImport];
