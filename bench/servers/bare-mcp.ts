/**
 * The agent-tool benchmark's baseline: Koa 3 and a pg.Pool (max 20, like Vigil's) answering a JSON-RPC-shaped
 * `POST /mcp` (a `tools/call`) with one select of an organization's teams from a table of its own in the scratch
 * database, answered the way an MCP tool result is (`structuredContent` and the same JSON as text).
 * No credential, no MCP server object, no schema: the floor a tool call cannot go below. Prints `{"url", "pid"}`.
 */
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import pg from 'pg';
import { serveBare } from './bare-serve.ts';

const databaseUrl = process.env.BENCH_DATABASE_URL;
if (!databaseUrl) throw new Error('BENCH_DATABASE_URL is required');

const pool = new pg.Pool({ connectionString: databaseUrl, max: 20, application_name: 'vigil-bench-bare' });
await pool.query(`create table if not exists bench_teams (
  id uuid primary key, organization_id uuid not null, name text not null, description text, member_emails jsonb not null,
  escalation jsonb not null, timezone text not null, created_at timestamptz not null, updated_at timestamptz not null)`);
const organizationId = randomUUID();
const teams = Number(process.env.BENCH_TEAMS ?? 5);
await pool.query(
  `insert into bench_teams (id, organization_id, name, description, member_emails, escalation, timezone, created_at, updated_at)
   select gen_random_uuid(), $1, 'team ' || n, null, '[]', '[]', 'UTC', now(), now() from generate_series(1, $2::int) as n`,
  [organizationId, teams],
);

const router = new Router();
router.post('/mcp', async (ctx) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const request = JSON.parse(Buffer.concat(chunks).toString()) as { id: number | string; method: string };
  if (request.method !== 'tools/call') {
    ctx.body = { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } };
    return;
  }
  const { rows } = await pool.query(
    'select id, name, description, member_emails, escalation, timezone, created_at, updated_at from bench_teams where organization_id = $1 order by name limit 100',
    [organizationId],
  );
  const structuredContent = { organization: organizationId, data: rows, truncated: false };
  ctx.body = { jsonrpc: '2.0', id: request.id, result: { structuredContent, content: [{ type: 'text', text: JSON.stringify(structuredContent) }] } };
});
await serveBare(router, pool);
