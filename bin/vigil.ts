#!/usr/bin/env node
/** `vigil serve` runs the service; the other commands wrap the operator API for people. */
import { Command } from 'commander';
import { registerOperatorCommands } from './cli/commands.ts';
import { VERSION } from './version.ts';

const program = new Command('vigil').description('Vigil: self-hostable incident-response automation').version(VERSION);
program
  .command('serve')
  .description('serve the API, the agent-tool endpoint and the webhooks')
  // loaded only here, so operator commands start without the engine
  .action(async () => (await import('./serve.ts')).serveCommand());
registerOperatorCommands(program);

/** Runs the command line `argv` names; bin/vigil.js (the installed `vigil`) calls it on the sources or the bundle. */
export async function run(argv: string[]): Promise<void> {
  await program.parseAsync(argv);
}

if (import.meta.main) await run(process.argv);
