/**
 * The agent-tool endpoint (`/api/mcp`): the official MCP SDK's Streamable HTTP transport, stateless (a new
 * server per request), JSON answers. It authenticates, refuses the plan at the door, and translates tool
 * calls into the operations REST uses; every domain failure comes back as a tool error (`isError: true`)
 * carrying the same `{ error, message, errors?, data? }` REST answers, so an agent can read it and correct
 * itself. An unknown tool is a JSON-RPC error (InvalidParams), as the MCP specification says. A database that cannot
 * be reached is `unavailable` (503, Retry-After): a tool call answers it as a tool error even when the key could not
 * be checked (the model reads it and can retry; an HTTP error is thrown by the client to the host, not shown to the
 * model), any other request gets the HTTP 503 at the door, like a 401. The per-credential rate limit
 * (../http/rate-limit.ts) is counted once the caller is known and refuses the same way: a tool call over the limit
 * gets a tool error `rate_limited` (`retry_after` in it; the RateLimit fields on the HTTP 200 that carries it),
 * anything else an HTTP 429 with Retry-After at the door.
 */
import type { Context, Next } from 'koa';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { authenticateApiKey, bearerToken } from '../auth/authenticate.ts';
import type { Caller } from '../auth/caller.ts';
import { PERSONAL_TOKEN_PREFIX } from '../auth/credentials.ts';
import { authenticatePersonalToken, ORGANIZATION_HEADER } from '../auth/personal-token.ts';
import { ApiError } from '../errors.ts';
import { requireFeature } from '../operations/authorize.ts';
import { countRequest } from '../http/rate-limit.ts';
import type { Services } from '../services.ts';
import { buildTools, type Tool } from './tools.ts';

export const MCP_PATH = '/api/mcp';

async function authenticate(services: Services, ctx: Context): Promise<Caller> {
  const header = ctx.get('authorization');
  const token = bearerToken(header);
  const caller = token.startsWith(PERSONAL_TOKEN_PREFIX)
    ? await authenticatePersonalToken(services.db, token, ctx.get(ORGANIZATION_HEADER) || undefined, 'mcp', 'mcp', services.clock.now())
    : await authenticateApiKey(services.db, services.credentials, header, 'mcp', 'mcp');
  requireFeature(caller, 'mcp');
  return caller;
}

function toolError(error: ApiError) {
  const body = error.toBody();
  return { isError: true, structuredContent: body, content: [{ type: 'text' as const, text: JSON.stringify(body) }] };
}

/**
 * The SDK's JSON Schema validator (used only to check elicitation answers, which this server never asks for) builds
 * an Ajv instance when none is given: one per process instead of one per request.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

function mcpServer(services: Services, caller: Caller, tools: Tool[], byName: Map<string, Tool>): Server {
  const server = new Server({ name: 'vigil', version: '1.0.0' }, { capabilities: { tools: {} }, jsonSchemaValidator });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map(({ name, description, inputSchema, outputSchema, annotations }) => ({ name, description, inputSchema, outputSchema, annotations })) as never,
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    try {
      const answer = await tool.call(services, caller, (request.params.arguments ?? {}) as Record<string, unknown>);
      const structuredContent = answer.body;
      // a replay is said where REST says it in a header: in the result's metadata, so the content stays the first answer's
      return { structuredContent, content: [{ type: 'text' as const, text: JSON.stringify(structuredContent) }], ...(answer.replayed ? { _meta: { idempotent_replayed: true } } : {}) };
    } catch (error) {
      if (error instanceof ApiError) return toolError(error);
      const unavailable = services.outage.unavailable(error);
      if (unavailable) return toolError(unavailable);
      services.log.error({ err: { name: (error as Error).name, stack: (error as Error).stack }, tool: tool.name }, 'tool failed');
      return toolError(new ApiError('internal_error', 'Something went wrong on our side; nothing you sent was at fault. Try again.'));
    }
  });
  return server;
}

export function mcpEndpoint(services: Services) {
  const tools = buildTools(services.registry, services.domain, services.config);
  const byName = new Map(tools.map((t) => [t.name, t]));
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.path !== MCP_PATH) return next();
    if (ctx.method !== 'POST') {
      throw new ApiError('method_not_allowed', 'The agent-tool endpoint is stateless: send JSON-RPC with POST.', { headers: { Allow: 'POST' } });
    }
    const body = (ctx.request as unknown as { body?: unknown }).body;
    const caller = await authenticate(services, ctx).catch((error: unknown) => {
      // the database is away before the key could be checked: a tool call still answers as a tool error
      const unavailable = services.outage.unavailable(error);
      if (unavailable && isToolCall(body)) return unavailable;
      throw unavailable ?? error;
    });
    const answerTool = (refusal: ApiError) => {
      ctx.body = { jsonrpc: '2.0', id: (body as { id?: unknown }).id ?? null, result: toolError(refusal) };
    };
    if (caller instanceof ApiError) return answerTool(caller);
    // over the limit: refused like the outage above, as a tool error to a tool call and at the door to anything else
    const limited = await countRequest(ctx, services.rateLimit, caller);
    if (limited && !isToolCall(body)) throw limited;
    if (limited) return answerTool(limited);
    const invalid = invalidToolCall(body);
    if (invalid) {
      ctx.body = invalid;
      return;
    }
    const server = mcpServer(services, caller, tools, byName);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    ctx.respond = false;
    try {
      await transport.handleRequest(ctx.req, ctx.res, body);
    } finally {
      await server.close();
    }
  };
}

function isToolCall(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'tools/call';
}

/**
 * A `tools/call` whose `name` is not a string or whose `arguments` are not an object: answered here with JSON-RPC's
 * "invalid params" (-32602), as the SDK would otherwise report its own schema check as an internal error (-32603).
 */
function invalidToolCall(body: unknown): { jsonrpc: '2.0'; id: unknown; error: { code: number; message: string } } | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { method, params, id } = body as { method?: unknown; params?: unknown; id?: unknown };
  if (method !== 'tools/call') return null;
  const p = params as { name?: unknown; arguments?: unknown } | undefined;
  const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  let message: string | undefined;
  if (!isObject(p)) message = 'params must be an object with the tool name and its arguments';
  else if (typeof p!.name !== 'string') message = 'params.name must be the name of a tool (a string)';
  else if (p!.arguments !== undefined && !isObject(p!.arguments)) message = 'params.arguments must be an object of the tool\'s input fields';
  return message ? { jsonrpc: '2.0', id: id ?? null, error: { code: ErrorCode.InvalidParams, message } } : null;
}
