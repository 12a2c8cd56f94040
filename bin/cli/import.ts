/**
 * `vigil import pagerduty|opsgenie --url <API base> --token <API key> --out <folder>`: reads another tool's REST API and writes
 * vigil.tf, people.json and REPORT.md (importers/). `--url` and `--token` here name the source, not Vigil: they must
 * be given on the command line (VIGIL_URL and VIGIL_ADMIN_TOKEN, which set Vigil's, are never sent to the source).
 * A refusal stops the import with one sentence naming the call, exit code 1, and the folder as it was.
 */
import type { Command } from 'commander';
import { reportFailure } from './client.ts';

interface Flags {
  out: string;
  asOf?: string;
}

const SOURCES = ['pagerduty', 'opsgenie', 'grafana-oncall'] as const;

export function registerImportCommands(program: Command): void {
  program
    .command('import <source>')
    .description(`read another tool's configuration through its REST API (${SOURCES.join(', ')}) and write vigil.tf, people.json and REPORT.md into --out`)
    .requiredOption('--out <folder>', 'where the files are written (created when missing; other files in it are left alone)')
    .option('--as-of <instant>', 'the instant taken as now: overrides and maintenance windows that ended before it are not carried (default: now)')
    .addHelpText('after', '\n--url is the source\'s API base (https://api.pagerduty.com, https://api.opsgenie.com, Grafana OnCall: https://oncall.example.com/api/v1) and --token its API key (an Opsgenie GenieKey, an OnCall API token); both are required here.')
    .action(async (source: string, flags: Flags, command: Command) => {
      const root = command.parent!;
      const fromCli = (name: string) => root.getOptionValueSource(name) === 'cli';
      const { url, token } = root.opts<{ url?: string; token?: string }>();
      const fail = (message: string) => reportFailure([`error: ${message}`]);
      if (!(SOURCES as readonly string[]).includes(source)) return fail(`unknown source "${source}": one of ${SOURCES.join(', ')}.`);
      if (!fromCli('url') || !url) return fail('--url <the source API\'s address> is required, e.g. --url https://api.pagerduty.com.');
      if (!fromCli('token') || !token) return fail('--token <the source\'s API key> is required.');
      const now = flags.asOf ? new Date(flags.asOf) : new Date();
      if (Number.isNaN(now.getTime())) return fail('--as-of must be an instant such as 2027-01-10T00:00:00Z.');
      const { ImportFailure, renderFiles, writeOutput } = await import('../../importers/core.ts');
      const { run, PRODUCT } = source === 'opsgenie'
        ? await import('../../importers/opsgenie.ts').then((m) => ({ run: m.importOpsgenie, PRODUCT: m.PRODUCT }))
        : source === 'grafana-oncall'
        ? await import('../../importers/grafana-oncall.ts').then((m) => ({ run: m.importGrafanaOnCall, PRODUCT: m.PRODUCT }))
        : await import('../../importers/pagerduty.ts').then((m) => ({ run: m.importPagerDuty, PRODUCT: m.PRODUCT }));
      try {
        const result = await run({ url, token, now });
        await writeOutput(flags.out, renderFiles(PRODUCT, url, result));
        const counts = (o: string) => result.report.lines.filter((l) => l.outcome === o).length;
        process.stdout.write(`Read ${result.report.lines.length} objects from ${PRODUCT}: ${counts('carried')} carried, ${counts('approximate')} approximately, ${counts('not carried')} not carried (REPORT.md says which and why).\n` +
          `Wrote vigil.tf, people.json and REPORT.md to ${flags.out}.\n`);
      } catch (error) {
        if (error instanceof ImportFailure) return fail(error.message);
        throw error;
      }
    });
}
