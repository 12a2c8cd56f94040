/**
 * `mcp`: an agent's tool call — `tools/call` of `list_teams` through `POST /api/mcp` with an `mcp:read` key
 * (authentication, the plan's `mcp`, the MCP SDK's stateless Streamable HTTP transport, the list operation) —
 * against bench/servers/bare-mcp.ts answering the same JSON-RPC shape with one select. The organization has
 * TEAMS teams, the same count as the bare table. A tool error answers 200, so every body is checked.
 */
import { fileURLToPath } from 'node:url';
import { call, organization, type BenchContext, type Pair } from './context.ts';

export const KEYS = ['mcp'];
const TEAMS = 5;
const server = fileURLToPath(new URL('../servers/bare-mcp.ts', import.meta.url));
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_teams', arguments: {} } });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
/** a tool result, not a tool error nor a JSON-RPC error */
const isToolResult = (body: string) => body.includes('"result"') && !body.includes('"isError":true') && body.includes('"structuredContent"');

export async function run(ctx: BenchContext): Promise<Pair[]> {
  const v = ctx.vigil.info.url;
  const admin = await organization(ctx, 'bench mcp', 'business', ['api:admin']);
  for (let i = 1; i <= TEAMS; i++) await call(`${v}/api/v1/config/teams`, 'POST', admin.key, { name: `team ${i}` }, 201);
  const reader = await call(`${v}/api/admin/v1/organizations/${admin.id}/api_keys`, 'POST', ctx.operatorToken, { name: 'bench agent', scopes: ['mcp:read'] }, 201);
  const auth = { authorization: `Bearer ${reader.key as string}` };
  const answer = await call(`${v}/api/mcp`, 'POST', undefined, BODY, 200, { ...HEADERS, ...auth });
  const listed = answer?.result?.structuredContent?.data;
  if (answer?.result?.isError || !Array.isArray(listed) || listed.length !== TEAMS) throw new Error(`list_teams answered ${JSON.stringify(answer).slice(0, 500)}`);

  const bare = await ctx.bare(server);
  try {
    const pair = await ctx.pair({
      key: 'mcp',
      name: 'MCP tool call',
      describe: { vigil: `POST /api/mcp tools/call list_teams (mcp:read key, ${TEAMS} teams)`, bare: `POST /mcp JSON-RPC, one select of ${TEAMS} rows` },
      bare: { child: bare, options: { url: `${bare.info.url}/mcp`, method: 'POST', headers: HEADERS, body: BODY, verifyBody: isToolResult } },
      vigil: { url: `${v}/api/mcp`, method: 'POST', headers: { ...HEADERS, ...auth }, body: BODY, verifyBody: isToolResult },
    });
    return [pair];
  } finally {
    await bare.stop();
  }
}
