/** `vigil org …`, `vigil key …`, `vigil webhook …`, `vigil audit`: organizations and their credentials. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { action, CliError, operatorCall, path } from './client.ts';
import { parseFlag } from './flag-values.ts';

type Json = Record<string, any>;

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

function parseFeature(value: string, previous: Record<string, boolean | null> = {}): Record<string, boolean | null> {
  const match = /^([^=]+)=(on|off|plan)$/.exec(value);
  if (!match) throw new InvalidArgumentError('write it as <feature>=on, <feature>=off or <feature>=plan (back to the plan).');
  return { ...previous, [match[1]!]: match[2] === 'plan' ? null : match[2] === 'on' };
}

export function organizationLines(org: Json): string[] {
  const features = Object.entries((org.features ?? {}) as Record<string, boolean>);
  const overrides = Object.entries((org.feature_overrides ?? {}) as Record<string, boolean>);
  const flags = Object.entries((org.flags ?? {}) as Record<string, unknown>);
  const lines = [
    `Organization ${org.id} "${org.name}"`,
    `  plan:      ${org.plan}${org.disabled ? ' (disabled)' : ''}`,
    `  features:  ${features.filter(([, on]) => on).map(([f]) => f).join(', ') || '(none)'}`,
  ];
  if (overrides.length) lines.push(`  overrides: ${overrides.map(([f, on]) => `${f}=${on ? 'on' : 'off'}`).join(', ')}`);
  if (flags.length) lines.push(`  flags:     ${flags.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')}`);
  lines.push(`  created:   ${org.created_at}`, `  webhook token: ${org.webhook_token}`);
  if (org.previous_webhook_token_valid_until) lines.push(`  previous webhook token valid until ${org.previous_webhook_token_valid_until}`);
  for (const [source, url] of Object.entries((org.webhook_urls ?? {}) as Record<string, string>)) lines.push(`  webhook ${source}: ${url}`);
  return lines;
}

export function registerOrganizationCommands(program: Command): void {
  const org = program.command('org').description('create, show and change organizations');
  org
    .command('create')
    .description('create an organization (plan: free, team, business, enterprise; default business)')
    .requiredOption('--name <name>', 'its name')
    .option('--plan <plan>', 'its plan')
    .action(action(async (options, opts: { name: string; plan?: string }) => {
      const answer = (await operatorCall(options, 'POST', '/organizations', { name: opts.name, ...(opts.plan !== undefined ? { plan: opts.plan } : {}) })) as Json;
      return { answer, lines: [`Created organization ${answer.id}.`, ...organizationLines(answer)] };
    }));
  org
    .command('list')
    .description('list every organization: id, name, plan, whether disabled, created (no credentials)')
    .action(action(async (options) => {
      const answer = (await operatorCall(options, 'GET', '/organizations')) as Json;
      const rows = (answer.data ?? []) as Json[];
      const lines = rows.map((o) => [o.id, o.plan, o.disabled ? 'disabled' : 'enabled', o.created_at, JSON.stringify(o.name)].join('  '));
      return { answer, lines: lines.length ? lines : ['No organizations.'] };
    }));
  org
    .command('show <org-id>')
    .description('show an organization, its features, webhook token and webhook URLs')
    .action(action(async (options, id: string) => {
      const answer = (await operatorCall(options, 'GET', path('organizations', id))) as Json;
      return { answer, lines: organizationLines(answer) };
    }));
  org
    .command('update <org-id>')
    .description('change an organization\'s name, plan, status, features or flags')
    .option('--name <name>', 'a new name')
    .option('--plan <plan>', 'a new plan')
    .addOption(new Option('--disable', 'disable it: its keys, tokens and webhooks stop working').conflicts('enable'))
    .addOption(new Option('--enable', 'enable it again').conflicts('disable'))
    .option('--feature <name=on|off|plan>', 'switch a feature on or off, or back to the plan (repeatable)', parseFeature)
    .option('--flag <key=value>', 'set a flag by its type: true/false, a number, a comma list, or null to remove it (repeatable)', parseFlag)
    .action(action(async (options, id: string, opts: { name?: string; plan?: string; disable?: boolean; enable?: boolean; feature?: Json; flag?: Json }) => {
      const body: Json = {};
      if (opts.name !== undefined) body.name = opts.name;
      if (opts.plan !== undefined) body.plan = opts.plan;
      if (opts.disable) body.disabled = true;
      if (opts.enable) body.disabled = false;
      if (opts.feature) body.features = opts.feature;
      if (opts.flag) body.flags = opts.flag;
      if (!Object.keys(body).length) throw new CliError('nothing to change: pass --name, --plan, --disable, --enable, --feature or --flag.');
      const answer = (await operatorCall(options, 'PATCH', path('organizations', id), body)) as Json;
      return { answer, lines: [`Updated organization ${answer.id}.`, ...organizationLines(answer)] };
    }));

  const key = program.command('key').description('organization API keys');
  key
    .command('create <org-id>')
    .description('create an API key (scopes: api:admin | api:config_read, or mcp:read, mcp:write, mcp:admin)')
    .requiredOption('--name <name>', 'its name')
    .requiredOption('--scope <scope>', 'a scope (repeatable)', collect)
    .action(action(async (options, id: string, opts: { name: string; scope: string[] }) => {
      const answer = (await operatorCall(options, 'POST', path('organizations', id, 'api_keys'), { name: opts.name, scopes: opts.scope })) as Json;
      return {
        answer,
        lines: [`API key ${answer.id} "${answer.name}" (${(answer.scopes as string[]).join(', ')}):`, answer.key, 'This key is shown once: store it now.'],
      };
    }));
  key
    .command('list <org-id>')
    .description('list an organization\'s API keys: id, name, scopes, created, revoked (never a key: only its hash is stored)')
    .action(action(async (options, id: string) => {
      const answer = (await operatorCall(options, 'GET', path('organizations', id, 'api_keys'))) as Json;
      const rows = (answer.data ?? []) as Json[];
      const lines = rows.map((k) => [k.id, (k.scopes as string[]).join(','), k.created_at, k.revoked_at ? `revoked ${k.revoked_at}` : 'active', JSON.stringify(k.name)].join('  '));
      return { answer, lines: lines.length ? lines : ['No API keys.'] };
    }));
  key
    .command('revoke <org-id> <key-id>')
    .description('revoke an API key; it stops working at once')
    .action(action(async (options, id: string, keyId: string) => {
      const answer = await operatorCall(options, 'DELETE', path('organizations', id, 'api_keys', keyId));
      return { answer, lines: [`Revoked API key ${keyId}; it no longer works.`] };
    }));

  const webhook = program.command('webhook').description('an organization\'s webhook token');
  webhook
    .command('rotate <org-id>')
    .description('issue a new webhook token; the previous one keeps working for 72 hours')
    .action(action(async (options, id: string) => {
      const answer = (await operatorCall(options, 'POST', path('organizations', id, 'webhook_token', 'rotate'))) as Json;
      const lines = [`New webhook token: ${answer.webhook_token}`];
      for (const [source, url] of Object.entries((answer.webhook_urls ?? {}) as Record<string, string>)) lines.push(`  ${source}: ${url}`);
      lines.push(`The previous token keeps working until ${answer.previous_valid_until}; \`vigil webhook revoke-previous ${id}\` ends it now.`);
      return { answer, lines };
    }));
  webhook
    .command('revoke-previous <org-id>')
    .description('end the previous webhook token\'s grace period now')
    .action(action(async (options, id: string) => {
      const answer = await operatorCall(options, 'POST', path('organizations', id, 'webhook_token', 'revoke_previous'));
      return { answer, lines: [`The previous webhook token of organization ${id} no longer works.`] };
    }));

  program
    .command('audit <org-id>')
    .description('an organization\'s audit log, newest first: time, actor, transport, family, row, action. One page (1000 entries) unless --all')
    .option('--limit <n>', 'entries per page (1 to 1000; default 1000)')
    .option('--cursor <cursor>', 'start at this page (the next_cursor a previous run printed)')
    .option('--all', 'follow every page to the end of the log')
    .action(action(async (options, id: string, opts: { limit?: string; cursor?: string; all?: boolean }) => {
      // the operator API refuses a bad limit or cursor (422 naming it); the CLI only passes them on
      const page = (cursor: string | undefined) => {
        const query = new URLSearchParams({ ...(opts.limit !== undefined ? { limit: opts.limit } : {}), ...(cursor !== undefined ? { cursor } : {}) }).toString();
        return operatorCall(options, 'GET', `${path('organizations', id, 'audit_log')}${query ? `?${query}` : ''}`) as Promise<Json>;
      };
      let answer = await page(opts.cursor);
      if (opts.all) {
        const data = [...(answer.data ?? [])] as Json[];
        while (answer.next_cursor) {
          answer = await page(answer.next_cursor as string);
          data.push(...((answer.data ?? []) as Json[]));
        }
        answer = { data, next_cursor: null, truncated: false };
      }
      const entries = (answer.data ?? []) as Json[];
      const lines = entries.map((e) => [e.at, `${e.actor?.kind}:${e.actor?.id}`, e.transport, e.family, e.row_id ?? '-', e.action].join('  '));
      if (!lines.length) lines.push('No audit entries.');
      if (answer.next_cursor) lines.push(`More entries follow: add --cursor ${answer.next_cursor} for the next page, or --all for every page.`);
      return { answer, lines };
    }));
}
