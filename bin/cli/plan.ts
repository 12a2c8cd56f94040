/**
 * `vigil plan <file>` and `vigil apply <file>`: configuration as code against one organization, through its
 * configuration API with an organization API key (`--key` or VIGIL_API_KEY). The logic is in export/; this
 * file reads the file, prints the plan and the outcome. A file mistake is printed as `file:line: message`.
 * `apply` applies what `plan` shows without asking (it is meant for CI as much as for people).
 */
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { globalOptions, reportFailure } from './client.ts';
import { fieldArgument } from '../../engine/config-arguments.ts';
import type { Plan } from '../../export/plan.ts';
import type { ApplyResult } from '../../export/apply.ts';

interface Flags {
  key?: string;
  prune?: boolean;
  replaceSecrets?: boolean;
}

class Failure extends Error {
  readonly lines: string[];
  constructor(lines: string[]) {
    super(lines[0]);
    this.lines = lines;
  }
}

const MAX = 160;
const clip = (text: string) => (text.length > MAX ? `${text.slice(0, MAX - 1)}…` : text);

function show(value: unknown, reference: (v: unknown) => string | undefined): string {
  const ref = reference(value);
  if (ref) return ref;
  if (Array.isArray(value)) return `[${value.map((v) => show(v, reference)).join(', ')}]`;
  // a reference nested in a value (a policy step's schedule_id) is shown by address too
  return JSON.stringify(value, (_key, v) => reference(v) ?? v) ?? 'null';
}

export function planLines(plan: Plan, file: string, referenceOf: (v: unknown) => string | undefined): string[] {
  const at = (line?: number) => (line ? `  (${file}:${line})` : '');
  const lines = [`Organization "${plan.organization.name}" (${plan.organization.id})`, ''];
  for (const a of plan.actions) {
    const sign = { create: '+', update: '~', delete: '-' }[a.action];
    lines.push(`  ${sign} ${a.action} ${a.address}${a.id && a.action !== 'create' ? ` (id ${a.id})` : ''}${at(a.line)}`);
    for (const c of a.changes) {
      const after = show(c.after, referenceOf);
      lines.push(clip(a.action === 'create' ? `      ${fieldArgument(c.field)} = ${after}` : `      ${fieldArgument(c.field)}: ${show(c.before, referenceOf)} → ${after}`));
    }
    if (a.mayBeRefused) lines.push(`      (skipped if the service refuses it: ${a.mayBeRefused})`);
  }
  if (plan.refusals.length) {
    lines.push('', `Refused by the service's dry run (${plan.refusals.length}); an apply would change nothing until they are fixed:`);
    for (const r of plan.refusals) {
      lines.push(`  x ${r.action} ${r.address}${at(r.line)}: ${r.reason}`);
      for (const d of r.details) lines.push(`      ${d}`);
    }
  }
  if (plan.skipped.length) {
    lines.push('', 'Cannot be applied (listed, not failed):');
    for (const s of plan.skipped) lines.push(`  ! ${s.address}${at(s.line)}: ${s.reason}`);
  }
  if (plan.kept.length) {
    lines.push('', `In the organization but not in the file (kept; --prune deletes them): ${plan.kept.length}`);
    for (const address of plan.kept) lines.push(`    ${address}`);
  }
  if (plan.warnings.length) lines.push('', 'Warnings:', ...plan.warnings.map((w) => `  ${w}`));
  const count = (kind: string) => plan.actions.filter((a) => a.action === kind).length;
  lines.push('');
  if (plan.actions.length === 0) lines.push(`No changes: the organization matches the file (${plan.unchanged} unchanged${plan.skipped.length ? `, ${plan.skipped.length} listed above` : ''}).`);
  else lines.push(`Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete; ${plan.skipped.length} cannot be applied; ${plan.unchanged} unchanged.`);
  return lines;
}

function resultLines(result: ApplyResult, file: string): string[] {
  const lines = ['', ...result.done.map((d) => `  ${d}`)];
  if (result.skipped.length) lines.push('', 'Skipped while applying:', ...result.skipped.map((s) => `  ! ${s.address}${s.line ? ` (${file}:${s.line})` : ''}: ${s.reason}`));
  if (result.warnings.length) lines.push('', 'Warnings:', ...result.warnings.map((w) => `  ${w}`));
  lines.push('', result.stopped ? 'Apply refused: nothing was changed.' : `Apply complete: ${result.done.length} change(s) in one transaction (change id ${result.changeId}).`);
  return lines;
}

/** The plan as JSON: references as `<address>.id`, write-only values never present (only "(sensitive value)"). */
function planJson(plan: Plan, referenceOf: (v: unknown) => string | undefined): unknown {
  const plain = (v: unknown): unknown => referenceOf(v) ?? (Array.isArray(v) ? v.map(plain) : v);
  return {
    organization: plan.organization,
    actions: plan.actions.map((a) => ({
      action: a.action, address: a.address, id: a.id ?? null, line: a.line ?? null,
      changes: a.changes.map((c) => ({ field: c.field, ...(a.action === 'create' ? {} : { before: plain(c.before) }), after: plain(c.after) })),
      ...(a.mayBeRefused ? { may_be_refused: a.mayBeRefused } : {}),
    })),
    refusals: plan.refusals.map(({ address, line, action, status, reason, details }) => ({ address, line: line ?? null, action, status, reason, details })),
    skipped: plan.skipped, kept: plan.kept, warnings: plan.warnings, unchanged: plan.unchanged,
  };
}

async function run(command: Command, file: string, flags: Flags, apply: boolean): Promise<void> {
  const options = globalOptions(command);
  const key = flags.key ?? process.env.VIGIL_API_KEY;
  if (!key) throw new Failure(['error: no organization API key: pass --key <key> or set VIGIL_API_KEY.']);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Failure([`error: could not read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`]);
  }
  // loaded here, so the other commands start without the engine
  const [{ families }, { ConfigFileError, readConfigFile, Reference }, { checkedPlan }, { planAndApply }, { httpConfigApi, PlanError }] = await Promise.all([
    import('../../resources/index.ts'), import('../../export/config-file.ts'), import('../../export/batch.ts'), import('../../export/apply.ts'), import('../../export/remote.ts'),
  ]);
  const referenceOf = (v: unknown) => (v instanceof Reference ? `${v.address}.id` : undefined);
  try {
    const config = readConfigFile(text, families);
    const api = httpConfigApi(options.url, key);
    const planOptions = { prune: flags.prune, replaceSecrets: flags.replaceSecrets, env: process.env };
    // plan: checked by the service's dry run; apply: sent at once, a refused batch (one transaction) changing nothing
    const { plan, result } = apply ? await planAndApply(api, families, config, planOptions) : { plan: await checkedPlan(api, families, config, planOptions), result: undefined };
    if (options.json) process.stdout.write(`${JSON.stringify({ plan: planJson(plan, referenceOf), ...(result ? { apply: result } : {}) }, null, 2)}\n`);
    else process.stdout.write(`${[...planLines(plan, file, referenceOf), ...(result ? resultLines(result, file) : [])].join('\n')}\n`);
    if (result?.stopped) throw new Failure([`error: ${result.stopped.message}`, ...result.stopped.details.map((d) => `  ${d}`)]);
    if (plan.refusals.length) {
      throw new Failure([`error: the service would refuse ${plan.refusals.length} change${plan.refusals.length === 1 ? '' : 's'} of this plan (listed above)${apply ? ', so nothing was applied' : ''}.`]);
    }
  } catch (error) {
    if (error instanceof ConfigFileError) throw new Failure([`${file}:${error.line ?? 1}${error.column ? `:${error.column}` : ''}: ${error.message}`]);
    if (error instanceof PlanError) throw new Failure([`error: ${error.message}`, ...error.details.map((d) => `  ${d}`)]);
    throw error;
  }
}

function handler(apply: boolean) {
  return async (file: string, flags: Flags, command: Command) => {
    try {
      await run(command, file, flags, apply);
    } catch (error) {
      if (!(error instanceof Failure)) throw error;
      reportFailure(error.lines);
    }
  };
}

export function registerPlanCommands(program: Command): void {
  const key = () => new Option('--key <key>', 'an organization API key (api:admin; api:config_read may plan)').env('VIGIL_API_KEY');
  program
    .command('plan <file>')
    .description('show what applying an HCL configuration file (such as an export) would change in the organization of --key')
    .addOption(key())
    .option('--prune', 'also plan to delete rows that no block of the file names')
    .option('--replace-secrets', 'plan to send every write-only value the file gives, even where one is stored')
    .action(handler(false));
  program
    .command('apply <file>')
    .description('apply an HCL configuration file to the organization of --key: create, update (with If-Match) and, with --prune, delete')
    .addOption(key())
    .option('--prune', 'delete rows that no block of the file names (archived and history rows are kept)')
    .option('--replace-secrets', 'send every write-only value the file gives, even where one is stored')
    .action(handler(true));
}
