/**
 * Property-based fuzzing of every surface a client can reach: each route the OpenAPI document lists, every tool
 * the agent-tool endpoint lists, every operator API route and every webhook source (fast-check). Random and mutated
 * bodies (wrong types, integers past 32 and 53 bits, -0 and fractions, non-finite numbers, nesting 20,000 deep, long
 * strings, invalid UTF-8, NUL characters and lone surrogates, keys named like Object.prototype members), wrong
 * content types, Content-Encodings that do not decode, odd headers, path traversal, encoded slashes and NUL in ids
 * (every id of every transport). Invariants, checked on every answer:
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
import { SEGMENTS } from '../../webhooks/sources/index.ts';
import { CONFIG, type Vigil } from '../helpers/harness.ts';

type Json = Record<string, any>;

/** Names of Object.prototype members: as keys they must be unknown fields, as values unknown words. */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString'];

/**
 * JSON text that JSON.stringify cannot write (or not as a client would): integers past 32 and 53 bits, -0, a
 * fraction where an integer goes, a number past double range, lone surrogates, NUL, nesting 20,000 deep.
 */
const RAW_VALUES = [
  '2147483648', '-2147483649', '3000000000', '9007199254740993', '1e23', '-0', '1e-7', '0.5', '1e400', '-1e400',
  '"x\\ud800y"', '"\\udc00"', '"a\\u0000b"', '["\\ud83d"]', '{"k\\ud800":1}',
  `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`, `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
];
/** A raw value as a placeholder string; rawJson() writes the raw text in its place once the body is stringified. */
const rawValue = fc.nat({ max: RAW_VALUES.length - 1 }).map((i) => `\u0001raw${i}\u0001`);
function rawJson(text: string): string {
  return text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_m, i: string) => RAW_VALUES[Number(i)]!);
}

/** Values a careless or hostile client sends where an id goes. */
const hostileIds = fc.oneof(
  fc.constantFrom(
    '..', '../..', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f', 'a%2Fb', '%00', 'a%00b', '%00%00', '%ZZ', '%ED%A0%80', ...PROTOTYPE_NAMES,
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
    // issue 41: an otherwise valid Events API event whose identity holds NUL or a lone surrogate
    '{"event_action":"trigger","dedup_key":"a\\u0000b","payload":{"summary":"s","source":"x","severity":"info"}}',
    '{"event_action":"resolve","dedup_key":"\\ud800","payload":{"summary":"s","source":"x","severity":"info"}}',
  ),
  fc.dictionary(fc.constantFrom('name', 'id', 'data', 'status', ...PROTOTYPE_NAMES), rawValue, { minKeys: 1, maxKeys: 3 }).map((v) => rawJson(safeStringify(v))),
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

/** A valid body with one field replaced by anything (often a raw value), or one unknown or prototype key added. */
function mutated(examples: Json[]): fc.Arbitrary<string> {
  if (examples.length === 0) return fc.constant('{}');
  const value = fc.oneof(fc.anything({ maxDepth: 3 }), rawValue);
  return fc.tuple(fc.constantFrom(...examples), fc.nat(), value, fc.constantFrom(...PROTOTYPE_NAMES, 'unknown_field', 'id', 'organization_id', 'updated_at'))
    .map(([example, n, value, extra]) => {
      const keys = Object.keys(example);
      const body: Json = { ...example };
      if (keys.length > 0 && n % 3 !== 0) body[keys[n % keys.length]!] = value;
      else Object.defineProperty(body, extra, { value, enumerable: true });
      return rawJson(safeStringify(body));
    });
}

/** Content-Encodings a body claims; the fuzzed bodies are never compressed, so each but identity fails to decode. */
const encodings = fc.option(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'compress', 'gzip, br'), { freq: 4 });

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
      fc.asyncProperty(hostileIds, fc.oneof(bodies, mutated(target.examples[route.path.split('/')[1] ?? ''] ?? [])), contentTypes, fc.option(fc.constantFrom('*', '"x"', 'W/"1"', '', '"'.repeat(300))), encodings, async (id, body, type, ifMatch, encoding) => {
        const path = `${doc.servers?.[0]?.url ?? CONFIG}${route.path}`.replace(/\{[^}]+\}/g, id);
        const headers: Record<string, string> = {
          authorization: `Bearer ${target.apiKey}`, ...(type ? { 'content-type': type } : {}), ...(ifMatch !== null ? { 'if-match': ifMatch } : {}),
          ...(encoding !== null ? { 'content-encoding': encoding } : {}),
        };
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
  // every id-like argument also gets NUL, lone surrogates, prototype names and malformed uuids
  const hostileId = fc.constantFrom('a\u0000b', '\u0000', '\ud800', 'x\udc00y', ...PROTOTYPE_NAMES, '00000000-0000-0000-0000-00000000000g', '', ' ');
  const args = fc.oneof(
    fc.dictionary(
      fc.constantFrom('id', 'card', 'alert_id', 'incident_id', 'name', 'body', 'status', 'limit', 'since', 'format', 'data', 'config', ...PROTOTYPE_NAMES),
      fc.oneof(fc.anything({ maxDepth: 3 }), rawValue, hostileId),
    ),
    fc.record({ id: hostileId }),
    fc.anything({ maxDepth: 2 }),
  );
  for (const tool of tools) {
    await fc.assert(
      fc.asyncProperty(args, async (a) => {
        const answer = await send(`${vigil.url}/api/mcp`, 'POST', headers, rawJson(safeStringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool.name, arguments: a } })));
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

/** The operator API's routes (its ids are uuids), with hostile ids in every id, bodies, content types and encodings. */
const OPERATOR_ROUTES = [
  'POST /organizations', 'GET /organizations/:id', 'PATCH /organizations/:id', 'POST /organizations/:id/api_keys', 'DELETE /organizations/:id/api_keys/:id',
  'POST /users', 'PUT /organizations/:id/members/:id', 'DELETE /organizations/:id/members/:id', 'POST /users/:id/tokens',
  'POST /organizations/:id/webhook_token/rotate', 'POST /organizations/:id/webhook_token/revoke_previous', 'GET /organizations/:id/audit_log',
];

export async function fuzzOperatorApi(t: Test, target: FuzzTarget & { operatorToken: string; organizationId: string }): Promise<void> {
  const { vigil } = target;
  let failures = 0;
  // a real id often enough that the body, not only the id, is reached
  const ids = fc.oneof(hostileIds, fc.constant(target.organizationId));
  const operatorBodies = fc.oneof(bodies, fc.record({
    name: fc.oneof(fc.string({ maxLength: 20 }), rawValue), plan: fc.constantFrom('team', ...PROTOTYPE_NAMES),
    scopes: fc.array(fc.constantFrom('api:admin', 'mcp:read', ...PROTOTYPE_NAMES), { maxLength: 2 }),
    features: fc.dictionary(fc.constantFrom('mcp', 'compliance', ...PROTOTYPE_NAMES), fc.oneof(fc.boolean(), fc.constant(null))),
    role: fc.constantFrom('viewer', ...PROTOTYPE_NAMES), flags: fc.oneof(fc.constant({}), rawValue),
  }, { requiredKeys: [] }).map((v) => rawJson(safeStringify(v))));
  for (const route of OPERATOR_ROUTES) {
    const [method, pattern] = route.split(' ') as [string, string];
    await fc.assert(
      fc.asyncProperty(ids, ids, operatorBodies, contentTypes, encodings, async (id, second, body, type, encoding) => {
        let n = 0;
        const path = pattern.replace(/:id/g, () => (n++ === 0 ? id : second));
        const headers = { authorization: `Bearer ${target.operatorToken}`, ...(type ? { 'content-type': type } : {}), ...(encoding !== null ? { 'content-encoding': encoding } : {}) };
        const answer = await send(`${vigil.url}/api/admin/v1${path}`, method, headers, body);
        if (!check(t, target, `${route} (ids ${JSON.stringify([id, second].map((i) => i.slice(0, 40)))})`, answer)) failures++;
        return true;
      }),
      { numRuns: target.runs, seed: seedOf(route) },
    );
  }
  t.equal(failures, 0, 'operator API: no invariant broken');
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
  for (const source of SEGMENTS) {
    await fc.assert(
      fc.asyncProperty(bodies, contentTypes, oddHeaders, source === 'tickets' || source === 'heartbeat' ? suffixes : fc.constant(''), encodings, async (body, type, extra, suffix, encoding) => {
        const headers = { 'user-agent': 'vigil-fuzz/1.0', ...(type ? { 'content-type': type } : {}), ...extra, ...(encoding !== null ? { 'content-encoding': encoding } : {}) };
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
