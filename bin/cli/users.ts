/** `vigil user …`, `vigil member …`, `vigil token …`: users, memberships and personal access tokens. */
import { Option, type Command } from 'commander';
import { action, operatorCall, path } from './client.ts';
import { importPeople } from './people.ts';
import { readPassword } from './password.ts';

type Json = Record<string, any>;

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function registerUserCommands(program: Command): void {
  const user = program.command('user').alias('users').description('users');
  user
    .command('create')
    .description('create a user')
    .requiredOption('--email <email>', 'their email address')
    .option('--name <name>', 'their name')
    .action(action(async (options, opts: { email: string; name?: string }) => {
      const answer = (await operatorCall(options, 'POST', '/users', { email: opts.email, ...(opts.name !== undefined ? { name: opts.name } : {}) })) as Json;
      return { answer, lines: [`Created user ${answer.id} (${answer.email}).`] };
    }));

  user
    .command('import <people-file>')
    .description('create the people of a `vigil import` (people.json): users, memberships with their role, then their contact methods (unverified) and notification rules')
    .requiredOption('--org <org-id>', 'the organization they join')
    .action(action(async (options, file: string, opts: { org: string }) => importPeople(options, file, opts.org)));

  user
    .command('set-password <user-id>')
    .description('set a user\'s console password (asked for, or read from standard input; never an argument); ends their console sessions')
    .action(action(async (options, userId: string) => {
      const password = await readPassword();
      await operatorCall(options, 'PUT', path('users', userId, 'password'), { password });
      return { answer: undefined, lines: [`The password of user ${userId} is set; their console sessions have ended.`] };
    }));
  user
    .command('sign-in-link <user-id>')
    .description('a one-time link (valid 24 hours) where the user chooses a console password')
    .action(action(async (options, userId: string) => {
      const answer = (await operatorCall(options, 'POST', path('users', userId, 'sign_in_link'))) as Json;
      return { answer, lines: [`Sign-in link for user ${userId} (one use, until ${answer.expires_at}):`, answer.url] };
    }));

  const member = program.command('member').description('memberships of users in organizations');
  member
    .command('set <org-id> <user-id>')
    .description('add a user to an organization, or change their role')
    .addOption(new Option('--role <role>', 'their role').choices(['viewer', 'member', 'org_admin']).makeOptionMandatory())
    .action(action(async (options, orgId: string, userId: string, opts: { role: string }) => {
      const answer = (await operatorCall(options, 'PUT', path('organizations', orgId, 'members', userId), { role: opts.role })) as Json;
      return { answer, lines: [`User ${answer.user_id} is ${answer.role} in organization ${answer.organization_id}.`] };
    }));
  member
    .command('remove <org-id> <user-id>')
    .description('remove a user from an organization; their personal tokens stop working there')
    .action(action(async (options, orgId: string, userId: string) => {
      const answer = await operatorCall(options, 'DELETE', path('organizations', orgId, 'members', userId));
      return { answer, lines: [`Removed user ${userId} from organization ${orgId}; their personal tokens no longer work there.`] };
    }));

  const token = program.command('token').description('personal access tokens (for the agent-tool endpoint)');
  token
    .command('create <user-id>')
    .description('create a personal access token for a user')
    .requiredOption('--name <name>', 'its name')
    .requiredOption('--org <org-id>', 'an organization it may act in (repeatable)', collect)
    .addOption(new Option('--max-role <role>', 'a ceiling on the user\'s role').choices(['viewer', 'member', 'org_admin', 'unlimited']))
    .action(action(async (options, userId: string, opts: { name: string; org: string[]; maxRole?: string }) => {
      const body = { name: opts.name, organizations: opts.org, ...(opts.maxRole ? { max_role: opts.maxRole } : {}) };
      const answer = (await operatorCall(options, 'POST', path('users', userId, 'tokens'), body)) as Json;
      return { answer, lines: [`Personal access token ${answer.id} "${opts.name}":`, answer.token, 'This token is shown once: store it now.'] };
    }));
}
