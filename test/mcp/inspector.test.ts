/**
 * Issue 21: a real, strict MCP client reads every tool. The MCP Inspector's CLI (the package's own bin, as its users
 * run it) lists the tools with `--strict` — every schema portable, no warning — and calls a few, checking each answer
 * against the tool's output schema. The tool list it reads is the whole list: a tool it could not parse would be left out.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { buildTools } from '../../engine/mcp/tools.ts';
import { startVigil } from '../helpers/harness.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const org = await vigil.organization('enterprise');
const admin = await org.key(['mcp:admin']);

const require = createRequire(import.meta.url);
const INSPECTOR = join(dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), require('@modelcontextprotocol/inspector/package.json').bin['mcp-inspector']);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** the Inspector's CLI against this Vigil as the org admin's key; asynchronous, so the server in this process answers */
async function inspector(...args: string[]): Promise<Run> {
  const argv = [INSPECTOR, '--cli', `${vigil.url}/api/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${admin.token}`, ...args];
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, argv, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** every member named `key` anywhere in a schema */
function everywhere(node: unknown, key: string, found: unknown[] = []): unknown[] {
  if (Array.isArray(node)) node.forEach((n) => everywhere(n, key, found));
  else if (typeof node === 'object' && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === key) found.push(v);
      // a property's schema, not a keyword: `properties.format` is a field named format
      if (k === 'properties') Object.values(v as object).forEach((p) => everywhere(p, key, found));
      else everywhere(v, key, found);
    }
  }
  return found;
}

t.test('tools/list --strict: no warning, no error, and every tool is there', async (t) => {
  const run = await inspector('--method', 'tools/list', '--strict');
  t.equal(run.code, 0, run.stderr);
  t.notMatch(run.stderr, /Warning|Error|portability/, 'the strict check reports nothing');
  const { tools } = JSON.parse(run.stdout) as { tools: { name: string; inputSchema: object; outputSchema?: object; annotations: Record<string, unknown> }[] };
  const expected = buildTools(vigil.running.services.registry, vigil.running.services.domain, vigil.running.services.config).map((tool) => tool.name).sort();
  t.same(tools.map((tool) => tool.name).sort(), expected, 'the Inspector read every tool the endpoint serves');
  for (const tool of tools) {
    t.ok(tool.outputSchema, `${tool.name}: declares its answer`);
    t.equal(typeof tool.annotations.openWorldHint, 'boolean', `${tool.name}: says whether it reaches outside`);
    t.notOk(everywhere([tool.inputSchema, tool.outputSchema], 'format').some((f) => f === 'password'), `${tool.name}: no OpenAPI-only format`);
    if (tool.name.startsWith('update_')) t.same(everywhere(tool.inputSchema, 'default'), [], `${tool.name}: no defaults (they belong to create)`);
  }
  const open = tools.filter((tool) => tool.annotations.openWorldHint).map((tool) => tool.name).sort();
  const reaching = vigil.running.services.domain.filter((op) => op.reachesOutside).map((op) => op.name).sort();
  t.same(open, reaching, 'openWorldHint exactly on the operations declared to reach outside');
  t.ok(open.includes('run_ticket_import') && open.includes('redeliver'), 'the ticket import and a redelivery reach outside');
  t.notOk(open.some((name) => /^(list|get|create|update|delete)_/.test(name) && !vigil.running.services.domain.some((op) => op.name === name)), 'family tools stay inside');
});

t.test('tools/call: answers match their output schemas (the Inspector validates each)', async (t) => {
  const calls: [string, string[]][] = [
    ['create_team', ['name=sre', 'description=on call']],
    ['list_teams', []],
    ['list_audit_log', ['limit=5']],
    ['resolve_service_bindings', ['service=checkout']],
    ['export_configuration', []],
    ['list_alerts', []],
  ];
  for (const [tool, args] of calls) {
    const run = await inspector('--method', 'tools/call', '--tool-name', tool, ...(args.length ? ['--tool-arg', ...args] : []));
    t.equal(run.code, 0, `${tool}: ${run.stderr}`);
    t.notMatch(run.stderr, /Warning|outputSchema|output schema|does not match/i, `${tool}: no warning`);
    const result = JSON.parse(run.stdout) as { isError?: boolean; structuredContent?: unknown };
    t.notOk(result.isError, `${tool}: not a tool error`);
    t.ok(result.structuredContent, `${tool}: structured content`);
  }
  const team = JSON.parse((await inspector('--method', 'tools/call', '--tool-name', 'list_teams')).stdout).structuredContent.data[0];
  const got = await inspector('--method', 'tools/call', '--tool-name', 'get_team', '--tool-arg', `id=${team.id}`);
  t.equal(got.code, 0, got.stderr);
  t.equal(JSON.parse(got.stdout).structuredContent.data.name, 'sre');
});
