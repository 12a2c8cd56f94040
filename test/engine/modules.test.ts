/**
 * Issue 20: a part plugs in as a Module (engine/module.ts) and `serve({ modules })` mounts it: raw-body routes
 * before the JSON body parser, routes after it, start and close hooks in order; a name, operation or job queue
 * registered twice stops the start, naming the modules.
 */
import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import { Type } from 'typebox';
import t from 'tap';
import { ManualClock } from '../../engine/clock.ts';
import { createLogger } from '../../engine/logger.ts';
import type { Module } from '../../engine/module.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { createRegistry } from '../../engine/registry.ts';
import { serve } from '../../engine/server.ts';
import { addressPolicy } from '../../outbound/net/addresses.ts';
import { targetRefusal } from '../../outbound/net/url-rules.ts';
import { modules } from '../../bin/modules.ts';
import { families } from '../../resources/index.ts';
import heartbeats from '../../resources/heartbeats.ts';
import { scratchDatabase } from '../helpers/harness.ts';
import { MIGRATIONS } from '../../migrations/index.ts';

const options = (list: Module[], registry = createRegistry([])) => ({
  registry,
  migrations: MIGRATIONS,
  modules: list,
  config: { trustPrincipalId: 'test', webhookSources: [] },
  targets: targetRefusal({ outbound: addressPolicy(), check: { internal: true } }),
  clock: new ManualClock('2026-03-01T12:00:00.000Z'),
  log: createLogger('silent'),
  dataDir: 'memory://',
  port: 0,
  operatorToken: 'test-operator-token',
  secretKey: randomBytes(32).toString('base64'),
  bootstrap: false,
  schema: 'entities' as const,
});

const operation = (name: string): DomainOperation => ({
  name, description: 'a test operation', input: Type.Object({}), role: 'viewer', kind: 'read', run: async () => ({ ok: true }),
}) as unknown as DomainOperation;
const job = (queue: string) => ({ queue, handle: async () => {} });

t.test('a name, an operation or a job queue registered twice stops the start, naming the modules', async (t) => {
  await t.rejects(serve(options([{ name: 'a' }, { name: 'a' }])), /Two modules are named a/);
  await t.rejects(serve(options([{ name: 'a', operations: [operation('x')] }, { name: 'b', operations: [operation('x')] }])), /operation x is registered twice, by modules a and b/);
  await t.rejects(serve(options([{ name: 'a', jobs: [job('q'), job('q')] }])), /job queue q is registered twice, by module a/);
  await t.rejects(serve({ ...options([]), schema: 'migrations', migrations: undefined }), /serve runs the migrations it is handed/, 'the engine runs only the migrations bin/ hands in: none given stops the start');
});

t.test('a family a module reads and the registry does not serve stops the start with one sentence naming both', async (t) => {
  await t.rejects(
    serve(options([{ name: 'reader', families: [heartbeats] }])),
    { message: 'The module reader reads the family heartbeats, which the registry does not serve: serve the family, or serve without the reader module.' },
  );
  // the service's own list over every family but one: the module that reads it is named, before any database opens
  const without = families.filter((f) => f.name !== heartbeats.name);
  await t.rejects(serve(options(modules(), createRegistry(without))), /^The module heartbeats reads the family heartbeats, which the registry does not serve/);
  // every family served: no module of the list lacks one (the check passes; the start itself is the harness's business)
  const served = createRegistry(families);
  for (const m of modules()) for (const f of m.families ?? []) t.ok(served.get(f.name), `${m.name} reads ${f.name}, which is served`);
});

t.test('registry.family answers the served form of a family and names one that is not served', async (t) => {
  const served = createRegistry(families);
  t.equal(served.family(heartbeats), served.get(heartbeats.name), 'the served descriptor (integer fields bounded by their columns)');
  t.throws(() => createRegistry([]).family(heartbeats), /The family heartbeats is not served/);
});

t.test('the service\'s own list (bin/modules.ts) has unique names, operations and queues', async (t) => {
  const list = modules();
  t.equal(new Set(list.map((m) => m.name)).size, list.length);
  const ops = list.flatMap((m) => m.operations ?? []).map((op) => op.name);
  t.equal(new Set(ops).size, ops.length);
  const queues = list.flatMap((m) => m.jobs ?? []).map((j) => j.queue);
  t.equal(new Set(queues).size, queues.length);
});

t.test('a module\'s routes, raw routes and hooks are mounted', async (t) => {
  const calls: string[] = [];
  const raw = () => new Router().post('/raw', (ctx) => void (ctx.body = { raw: (ctx.request as { body?: unknown }).body === undefined }));
  const parsed = () => new Router().post('/parsed', (ctx) => void (ctx.body = { got: (ctx.request as { body?: unknown }).body }));
  const module: Module = {
    name: 'probe',
    rawRoutes: [raw],
    routes: [parsed],
    onStart: async (services) => void calls.push(`start ${typeof services.db}`),
    onClose: async () => void calls.push('close'),
  };
  const scratch = await scratchDatabase();
  t.teardown(() => scratch?.drop());
  const running = await serve({ ...options([module, { name: 'second', onStart: async () => void calls.push('second start') }]), databaseUrl: scratch?.url });
  const post = (path: string, body: string, type: string) => fetch(`${running.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
  const rawAnswer = await post('/raw', 'plain text', 'text/plain');
  t.equal(rawAnswer.status, 200, 'a raw route takes text/plain: it is mounted before the JSON-only check');
  t.same(await rawAnswer.json(), { raw: true }, 'and before the body parser');
  const parsedAnswer = await post('/parsed', '{"a":1}', 'application/json');
  t.same(await parsedAnswer.json(), { got: { a: 1 } }, 'a route gets the parsed body');
  t.equal((await post('/parsed', 'plain text', 'text/plain')).status, 415, 'and the JSON-only check');
  t.same(calls, ['start object', 'second start'], 'start hooks run in module order');
  await running.close();
  t.same(calls.at(-1), 'close', 'the close hook runs on close');
});
