/** The operator commands of `vigil`: global options and every call of the operator API. */
import { Option, type Command } from 'commander';
import { DEFAULT_URL } from './client.ts';
import { registerGateCommands } from './gate.ts';
import { registerImportCommands } from './import.ts';
import { registerOrganizationCommands } from './organizations.ts';
import { registerPlanCommands } from './plan.ts';
import { registerToolCommands } from './tools.ts';
import { registerUserCommands } from './users.ts';

export function registerOperatorCommands(program: Command): Command {
  program
    .addOption(new Option('--url <url>', 'the Vigil service').env('VIGIL_URL').default(DEFAULT_URL))
    .addOption(new Option('--token <token>', 'the operator token').env('VIGIL_ADMIN_TOKEN'))
    .option('--json', 'print the raw JSON answer');
  registerOrganizationCommands(program);
  registerUserCommands(program);
  registerPlanCommands(program);
  registerGateCommands(program);
  registerToolCommands(program);
  registerImportCommands(program);
  return program;
}
