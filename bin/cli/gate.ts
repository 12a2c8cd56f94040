/**
 * `vigil gate check --service … [--environment …]`: the deploy gate for pipelines (the `check_deploy_gate`
 * operation, domain/slo/tools.ts, over GET /api/v1/config/deploy_gate with an organization key). Exit 0 when the
 * deploy may go ahead, 1 when it is held (the reasons on stderr) or the check could not be made, so a CI step
 * needs no hand-written curl.
 */
import { Option, type Command } from 'commander';
import { action, apiErrorLines, CliError } from './client.ts';

type Finding = { code: string; message: string };

export function registerGateCommands(program: Command): void {
  const gate = program.command('gate').description('the deploy gate, for CI pipelines');
  gate
    .command('check')
    .description('may this service deploy now? exit 0: allow; exit 1: hold (the reasons are printed) or the check failed')
    .requiredOption('--service <service>', 'the service as deploy events name it')
    .option('--environment <environment>', 'the environment deployed to (echoed; policies are per service)')
    .addOption(new Option('--key <key>', 'an organization API key (any configuration scope)').env('VIGIL_API_KEY'))
    .action(action(async (options, opts: { service: string; environment?: string; key?: string }) => {
      if (!opts.key) throw new CliError('no organization API key: pass --key <key> or set VIGIL_API_KEY.');
      const { httpConfigApi, PlanError } = await import('../../export/remote.ts');
      const query = new URLSearchParams({ service: opts.service, ...(opts.environment !== undefined ? { environment: opts.environment } : {}) });
      let answer;
      try {
        answer = await httpConfigApi(options.url, opts.key).call('GET', `/api/v1/config/deploy_gate?${query}`);
      } catch (error) {
        if (error instanceof PlanError) throw new CliError(error.message, error.details);
        throw error;
      }
      if (answer.status !== 200) throw apiErrorLines(answer.status, answer.body);
      const body = answer.body as { decision: string; reasons: Finding[]; advisories: Finding[] };
      const where = `${opts.service}${opts.environment ? ` (${opts.environment})` : ''}`;
      const advisories = body.advisories.map((a) => `  note: ${a.message} (${a.code})`);
      if (body.decision !== 'allow') {
        throw new CliError(`the deploy gate holds ${where}:`, [...body.reasons.map((r) => `  ${r.message} (${r.code})`), ...advisories]);
      }
      return { answer: body, lines: [`The deploy gate allows ${where}.`, ...advisories] };
    }));
}
