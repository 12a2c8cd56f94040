/**
 * Property-based fuzzing of every surface a client can reach: each route the OpenAPI document lists, every tool
 * the agent-tool endpoint lists, and every webhook source (fast-check). Random and mutated bodies (wrong types,
 * huge numbers, deep nesting, long strings, invalid UTF-8, NUL characters, prototype keys), wrong content types,
 * odd headers, path traversal and encoded slashes in ids. Invariants, checked on every answer:
 * - never a 5xx (and on the agent-tool endpoint, never an internal JSON-RPC error);
 * - a refusal is JSON `{ error, message }` (strings);
 * - a refused request writes nothing: a digest of every configuration table and the audit log is unchanged
 *   (the webhook delivery log and rate-limit counters record refusals by design, so they are left out);
 * - no secret saved before the run appears in any answer.
 * `runs` bounds the work: `npm test` runs a few per route, `npm run fuzz` many (FUZZ_RUNS).
 */
import fc from 'fast-check';
import type { Test } from 'tap';
import { tableName } from '../../engine/persistence/entities.ts';
import { sqlExecutor } from '../../engine/persistence/sql.ts';
import { WEBHOOK_SOURCES } from '../../webhooks/sources.ts';
import { CONFIG, type Vigil } from '../helpers/harness.ts';

type Json = Record<string, any>;

/** Values a careless or hostile client sends where an id goes. */
const hostileIds = fc.oneof(
  fc.constantFrom(
    '..', '../..', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f', 'a%2Fb', '%00', '%ZZ', '__proto__', 'constructor', 'prototype',
    'x'.repeat(5000), '😀', '%F0%9F%98%80', ' ', '%20', 'null', 'undefined', '-1', '1e309', 'OPS-99999999999', "' or 1=1 --",
    '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
  ),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.uuid(),
);

/** Raw bodies: what JSON.stringify cannot make (bad UTF-8, NUL, huge numbers, deep nesting, prototype keys) and what it can. */
const bodies: fc.Arbitrary<string | Buffer | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    '', '{', 'null', '[]', '"text"', '0', 'true', '1e309', '-1e309', '{"a":1e400}', '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}', '{"name":"\\u0000"}', '{"name":"\\ud800"}', `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    `${'['.repeat(100_000)}`, '{"name":"a","name":"b"}', '{"id":null,"data":{"id":{"$ne":null}}}',
  ),
  fc.constant(Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.dictionary(fc.string({ maxLength: 20 }), fc.anything({ maxDepth: 3, withNullPrototype: true })).map((v) => safeStringify(v)),
  fc.string({ maxLength: 200 }),
);

const contentTypes = fc.constantFrom(
  'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
  'application/json; charset=latin1', '', 'application/xml',
);

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
  } catch {
    return '{}';
  }
}

export interface FuzzTarget {
  vigil: Vigil;
  /** an api:admin key, an mcp:admin key and a webhook token of one organization */
  apiKey: string;
  mcpKey: string;
  webhookToken: string;
  /** values that must never appear in an answer */
  secrets: string[];
  runs: number;
  /** valid bodies per family, mutated one field at a time to reach deeper validation */
  examples: Record<string, Json[]>;
}

/** A valid body with one field replaced by anything, or one unknown or prototype key added. */
function mutated(examples: Json[]): fc.Arbitrary<string> {
  if (examples.length === 0) return fc.constant('{}');
  return fc.tuple(fc.constantFrom(...examples), fc.nat(), fc.anything({ maxDepth: 3 }), fc.constantFrom('__proto__', 'constructor', 'unknown_field', 'id', 'organization_id', 'updated_at'))
    .map(([example, n, value, extra]) => {
      const keys = Object.keys(example);
      const body: Json = { ...example };
      if (keys.length > 0 && n % 3 !== 0) body[keys[n % keys.length]!] = value;
      else Object.defineProperty(body, extra, { value, enumerable: true });
      return safeStringify(body);
    });
}

/** Whole-state digest of the configuration tables and the audit log: equal digests, nothing written. */
export async function digest(vigil: Vigil): Promise<string> {
  const services = vigil.running.services;
  const tables = [...services.registry.families.map((f) => tableName(f)), 'audit_log', 'api_keys', 'organizations', 'memberships'];
  const sql = sqlExecutor(services.db);
  const parts = tables.map((t) => `(select md5(coalesce(string_agg(x::text, '|' order by x::text), '')) from ${t} x)`);
  const [row] = await sql(`select md5(${parts.join(" || '/' || ")}) as d`, []);
  return String(row!.d);
}

interface Answer {
  status: number;
  text: string;
}

async function send(url: string, method: string, headers: Record<string, string>, body: string | Buffer | undefined): Promise<Answer> {
  const payload = typeof body === 'string' || body === undefined ? body : new Blob([new Uint8Array(body)]);
  const res = await fetch(url, { method, headers, ...(payload !== undefined && method !== 'GET' && method !== 'DELETE' ? { body: payload } : {}) });
  return { status: res.status, text: await res.text() };
}

/** The invariants every answer keeps; `label` says which request it was. */
function check(t: Test, target: FuzzTarget, label: string, answer: Answer): boolean {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`answered ${answer.status}`);
  if (answer.status >= 400) {
    let body: Json | undefined;
    try {
      body = JSON.parse(answer.text);
    } catch {
      problems.push('refusal is not JSON');
    }
    if (body && (typeof body.error !== 'string' || typeof body.message !== 'string')) problems.push('refusal lacks { error, message }');
  }
  for (const secret of target.secrets) if (answer.text.includes(secret)) problems.push('a secret is in the answer');
  if (problems.length) t.fail(`${label}: ${problems.join('; ')}`, { status: answer.status, body: answer.text.slice(0, 500) });
  return problems.length === 0;
}

/** Each route of the OpenAPI document, with hostile ids, bodies, content types and If-Match headers. */
export async function fuzzConfigApi(t: Test, target: FuzzTarget): Promise<void> {
  const { vigil } = target;
  const doc = JSON.parse((await send(`${vigil.url}${CONFIG}/openapi.json`, 'GET', { authorization: `Bearer ${target.apiKey}` }, undefined)).text);
  const routes: { method: string; path: string }[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) if (item[method]) routes.push({ method: method.toUpperCase(), path });
  }
  t.ok(routes.length > 50, `${routes.length} routes to fuzz`);
  let before = await digest(vigil);
  let failures = 0;
  for (const route of routes) {
    await fc.assert(
      fc.asyncProperty(hostileIds, fc.oneof(bodies, mutated(target.examples[route.path.split('/')[1] ?? ''] ?? [])), contentTypes, fc.option(fc.constantFrom('*', '"x"', 'W/"1"', '', '"'.repeat(300))), async (id, body, type, ifMatch) => {
        const path = `${doc.servers?.[0]?.url ?? CONFIG}${route.path}`.replace(/\{[^}]+\}/g, id);
        const headers: Record<string, string> = { authorization: `Bearer ${target.apiKey}`, ...(type ? { 'content-type': type } : {}), ...(ifMatch !== null ? { 'if-match': ifMatch } : {}) };
        const answer = await send(`${vigil.url}${path.startsWith('/') ? path : new URL(path).pathname}`, route.method, headers, body);
        const label = `${route.method} ${route.path} (id ${JSON.stringify(id.slice(0, 60))})`;
        if (!check(t, target, label, answer)) failures++;
        const after = await digest(vigil);
        if (answer.status >= 400 && after !== before) (failures++, t.fail(`${label}: refused with ${answer.status} but changed stored state`));
        before = after;
        return true;
      }),
      { numRuns: target.runs, seed: seedOf(route.method + route.path) },
    );
  }
  t.equal(failures, 0, 'configuration API: no invariant broken');
}

/** Every agent tool with random arguments, through raw JSON-RPC. */
export async function fuzzAgentTools(t: Test, target: FuzzTarget): Promise<void> {
  const { vigil } = target;
  const headers = { authorization: `Bearer ${target.mcpKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const listed = await send(`${vigil.url}/api/mcp`, 'POST', headers, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  const tools = (rpcResult(listed.text)?.result?.tools ?? []) as { name: string }[];
  t.ok(tools.length > 50, `${tools.length} tools to fuzz`);
  let before = await digest(vigil);
  let failures = 0;
  const args = fc.oneof(
    fc.dictionary(fc.constantFrom('id', 'card', 'name', 'body', 'status', 'limit', 'since', 'format', 'data', 'config', '__proto__', 'constructor'), fc.anything({ maxDepth: 3 })),
    fc.anything({ maxDepth: 2 }),
  );
  for (const tool of tools) {
    await fc.assert(
      fc.asyncProperty(args, async (a) => {
        const answer = await send(`${vigil.url}/api/mcp`, 'POST', headers, safeStringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool.name, arguments: a } }));
        const label = `tools/call ${tool.name}`;
        let ok = check(t, target, label, answer);
        const result = rpcResult(answer.text);
        if (result?.error?.code === -32603) (ok = false, t.fail(`${label}: internal JSON-RPC error`, { body: answer.text.slice(0, 500) }));
        if (result?.result?.structuredContent?.error === 'internal_error') (ok = false, t.fail(`${label}: the tool failed inside`, { args: safeStringify(a).slice(0, 300) }));
        const refused = answer.status >= 400 || result?.error !== undefined || result?.result?.isError === true;
        const after = await digest(vigil);
        if (refused && after !== before) (ok = false, t.fail(`${label}: refused but changed stored state`));
        before = after;
        if (!ok) failures++;
        return true;
      }),
      { numRuns: target.runs, seed: seedOf(tool.name) },
    );
  }
  t.equal(failures, 0, 'agent-tool endpoint: no invariant broken');
}

/** Every webhook source (and the tickets sub-paths) with random bodies, content types and headers. */
export async function fuzzWebhooks(t: Test, target: FuzzTarget): Promise<void> {
  const { vigil } = target;
  let failures = 0;
  const suffixes = fc.oneof(fc.constant(''), hostileIds.map((id) => `/${id}`), hostileIds.map((id) => `/${id}/comments`));
  const oddHeaders = fc.dictionary(
    fc.constantFrom('x-github-event', 'x-github-delivery', 'x-hub-signature-256', 'idempotency-key', 'x-amz-sns-message-type', 'linear-signature', 'x-hub-signature', 'webhook-signature', 'x-grafana-alerting-signature', 'x-pagerduty-signature'),
    fc.oneof(fc.constantFrom('push', 'issues', 'ping', 'sha256=00', 'Notification', 'SubscriptionConfirmation', ''), fc.string({ maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''))),
  );
  for (const source of WEBHOOK_SOURCES) {
    await fc.assert(
      fc.asyncProperty(bodies, contentTypes, oddHeaders, source === 'tickets' ? suffixes : fc.constant(''), async (body, type, extra, suffix) => {
        const headers = { 'user-agent': 'vigil-fuzz/1.0', ...(type ? { 'content-type': type } : {}), ...extra };
        const answer = await send(`${vigil.url}/webhooks/${source}/${target.webhookToken}${suffix}`, 'POST', headers, body);
        if (!check(t, target, `POST /webhooks/${source}${suffix.slice(0, 60)}`, answer)) failures++;
        return true;
      }),
      { numRuns: target.runs, seed: seedOf(source) },
    );
  }
  t.equal(failures, 0, 'webhooks: no invariant broken');
}

/** A JSON-RPC answer from a JSON or an event-stream body. */
function rpcResult(text: string): Json | undefined {
  const data = text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: '))?.slice(6);
  try {
    return data ? JSON.parse(data) : undefined;
  } catch {
    return undefined;
  }
}

/** A fixed seed per target unless FUZZ_SEED asks for another run, so a failure reproduces. */
function seedOf(name: string): number {
  const base = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261122;
  let h = base;
  for (const c of name) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h;
}
