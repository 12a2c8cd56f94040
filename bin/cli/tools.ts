/**
 * `vigil tools list` and `vigil tools call <tool> --input '<json>'`: the agent-tool endpoint (/api/mcp) from the
 * command line, as a person, with the personal access token they made on the console's Account page (`--personal-token`
 * or VIGIL_PERSONAL_TOKEN; an organization key with mcp:* scopes works too). The token acts as its owner in one
 * organization, with their role capped by its ceiling; one covering several organizations names the organization with
 * `--organization` (VIGIL_ORGANIZATION), sent as X-Vigil-Organization. It speaks MCP through the official SDK's client,
 * as an agent would, so every refusal is the one an agent gets (a viewer ceiling refuses a write: `forbidden`). The
 * configuration API, and so `plan`, `apply` and `gate`, refuse personal tokens (the spec): they take organization keys.
 */
import { Option, type Command } from 'commander';
import { action, CliError, type GlobalOptions } from './client.ts';

interface ToolOptions {
  personalToken?: string;
  organization?: string;
}

/** The refusal's own sentence when the endpoint answered `{ error, message }` at the HTTP level (401, 403, 429). */
function refusal(error: unknown): CliError {
  const text = error instanceof Error ? error.message : String(error);
  const json = /\{[\s\S]*\}\s*$/.exec(text)?.[0];
  if (json) {
    try {
      const body = JSON.parse(json) as { message?: unknown; error?: unknown };
      if (typeof body.message === 'string') return new CliError(body.message, typeof body.error === 'string' ? [`  (${body.error})`] : []);
    } catch {
      // not JSON after all: the SDK's own words below
    }
  }
  const cause = (error as { cause?: { code?: string; cause?: { code?: string } } }).cause;
  const code = cause?.code ?? cause?.cause?.code ?? (text === 'fetch failed' ? 'no answer' : undefined);
  return new CliError(code ? `could not reach the agent-tool endpoint (${code}). Is Vigil running? Check --url or VIGIL_URL.` : text);
}

async function connect(options: GlobalOptions, opts: ToolOptions) {
  if (!opts.personalToken) throw new CliError('no personal access token: pass --personal-token <token> or set VIGIL_PERSONAL_TOKEN (make one on the console\'s Account page).');
  let endpoint: URL;
  try {
    endpoint = new URL('/api/mcp', options.url);
  } catch {
    throw new CliError(`--url must be an absolute http(s) URL, not "${options.url}".`);
  }
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const headers: Record<string, string> = { authorization: `Bearer ${opts.personalToken}` };
  if (opts.organization) headers['x-vigil-organization'] = opts.organization;
  const client = new Client({ name: 'vigil-cli', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }));
  } catch (error) {
    throw refusal(error);
  }
  return client;
}

const credentialOptions = (command: Command) =>
  command
    .addOption(new Option('--personal-token <token>', 'your personal access token (vigil_pat_…), made on the console\'s Account page').env('VIGIL_PERSONAL_TOKEN'))
    .addOption(new Option('--organization <id>', 'the organization to act in, when the token covers several').env('VIGIL_ORGANIZATION'));

export function registerToolCommands(program: Command): void {
  const tools = program.command('tools').description('the agent-tool endpoint (/api/mcp), with your personal access token');
  credentialOptions(tools.command('list').description('the tools your token may call, each with what it does'))
    .action(action(async (options, opts: ToolOptions) => {
      const client = await connect(options, opts);
      try {
        // the request itself, not listTools(), which compiles a validator for every tool's output schema first
        const { ListToolsResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
        const { tools: list } = await client.request({ method: 'tools/list' }, ListToolsResultSchema);
        return { answer: list, lines: list.map((t) => `${t.name}  ${(t.description ?? '').split('. ')[0]}`) };
      } catch (error) {
        throw refusal(error);
      } finally {
        await client.close();
      }
    }));
  credentialOptions(tools.command('call').argument('<tool>', 'the tool\'s name (see `vigil tools list`)').description('calls one tool and prints its answer as JSON; a refusal exits 1 with its message'))
    .option('--input <json>', 'the tool\'s arguments as one JSON object', '{}')
    .action(action(async (options, name: string, opts: ToolOptions & { input: string }) => {
      let args: unknown;
      try {
        args = JSON.parse(opts.input);
      } catch {
        throw new CliError('--input must be a JSON object, such as \'{"limit": 5}\'.');
      }
      if (!args || typeof args !== 'object' || Array.isArray(args)) throw new CliError('--input must be a JSON object, such as \'{"limit": 5}\'.');
      const client = await connect(options, opts);
      let result;
      try {
        result = await client.callTool({ name, arguments: args as Record<string, unknown> });
      } catch (error) {
        throw refusal(error);
      } finally {
        await client.close();
      }
      const body = (result.structuredContent ?? {}) as { error?: unknown; message?: unknown; errors?: { field: string; message: string }[] };
      if (result.isError) {
        const fields = Array.isArray(body.errors) ? body.errors.map((e) => `  ${e.field}: ${e.message}`) : [];
        throw new CliError(`${typeof body.message === 'string' ? body.message : 'the tool refused'}${typeof body.error === 'string' ? ` (${body.error})` : ''}`, fields);
      }
      return { answer: body, lines: [JSON.stringify(body, null, 2)] };
    }));
}
