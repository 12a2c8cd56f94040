/**
 * REST and the agent-tool endpoint are two views of one set of operations: for every registered family the
 * same steps through both give the same codes and messages, and the same audit entries but for the transport.
 */
import t from 'tap';
import type { FamilyDescriptor, Row } from '../../engine/descriptor.ts';
import { singularOf } from '../../engine/mcp/tools.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { connectAgent, type Agent } from '../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

/** One side of the comparison: the same operation vocabulary over REST or over MCP. */
interface Side {
  create(d: FamilyDescriptor, body: Row): Promise<{ ok: boolean; body: any }>;
  update(d: FamilyDescriptor, id: string | undefined, body: Row, ifMatch?: string): Promise<{ ok: boolean; body: any }>;
  remove(d: FamilyDescriptor, id: string): Promise<{ ok: boolean; body: any }>;
  audit(): Promise<Row[]>;
}

function restSide(api: Client): Side {
  const path = (d: FamilyDescriptor, id?: string) => `${CONFIG}/${d.name}${id === undefined ? '' : `/${encodeURIComponent(id)}`}`;
  const wrap = async (p: Promise<{ status: number; body: any }>) => {
    const a = await p;
    return { ok: a.status < 300, body: a.body ?? {} };
  };
  return {
    create: (d, body) => wrap(d.operations.includes('create') ? api.post(path(d), body) : api.put(path(d, 'equivalence'), body)),
    update: (d, id, body, ifMatch) => wrap(api.put(path(d, d.kind === 'collection' ? id : undefined), body, ifMatch ? { 'if-match': ifMatch } : {})),
    remove: (d, id) => wrap(api.del(path(d, id))),
    audit: async () => (await api.get(`${CONFIG}/audit_log`)).body.data,
  };
}

function mcpSide(agent: Agent): Side {
  const wrap = async (p: Promise<{ isError: boolean; body: any }>) => {
    const a = await p;
    return { ok: !a.isError, body: a.body };
  };
  return {
    create: (d, body) => wrap(d.operations.includes('create') ? agent.call(`create_${singularOf(d)}`, body) : agent.call(`update_${singularOf(d)}`, { ...body, id: 'equivalence' })),
    update: (d, id, body, ifMatch) => wrap(agent.call(`update_${singularOf(d)}`, { ...body, ...(d.kind === 'collection' ? { id } : {}), ...(ifMatch ? { if_match: ifMatch } : {}) })),
    remove: (d, id) => wrap(agent.call(`delete_${singularOf(d)}`, { id })),
    audit: async () => (await agent.call('list_audit_log')).body.data,
  };
}

/** What must match across transports: codes, messages and field errors; never ids, times or the transport itself (created_via). */
function refusal(body: any) {
  return { error: body.error, message: body.message, errors: body.errors };
}

function comparableAudit(entries: Row[]) {
  return entries.map((e) => {
    const { id: _id, at: _at, actor: _actor, transport, row_id: _row, changes, ...rest } = e as Row & { changes: Record<string, unknown> };
    const stable = Object.fromEntries(Object.entries(changes).filter(([k]) => !['id', 'external_id', 'created_via'].includes(k) && !k.endsWith('_id') && !k.endsWith('_ids')));
    return { ...rest, transport_is_set: typeof transport === 'string', changes: stable };
  });
}

async function withRefs(side: Side, body: Row): Promise<Row> {
  const out: Row = {};
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === 'string' && value.startsWith('$ref:')) {
      const target = families.find((f) => f.name === value.slice(5))!;
      const made = await side.create(target, await withRefs(side, target.examples.valid[0]!));
      out[key] = made.body.data.id;
    } else out[key] = value;
  }
  return out;
}

async function prepare(side: Side, d: FamilyDescriptor) {
  for (const email of d.examples.users ?? []) await vigil.operator.post('/api/admin/v1/users', { email });
  for (const name of d.examples.requires ?? []) {
    const target = families.find((f) => f.name === name)!;
    if (target.kind === 'singleton') await side.update(target, undefined, target.examples.update ?? {});
    else for (const body of target.examples.valid) await side.create(target, await withRefs(side, body));
  }
}

for (const d of families) {
  t.test(d.name, async (t) => {
    const restOrg = await vigil.organization('enterprise');
    const mcpOrg = await vigil.organization('enterprise');
    const rest = restSide(await restOrg.key(['api:admin']));
    const restReader = restSide(await restOrg.key(['api:config_read']));
    const agentKey = await mcpOrg.key(['mcp:admin']);
    const readerKey = await mcpOrg.key(['mcp:read']);
    const agent = await connectAgent(vigil.url, agentKey.token);
    const reader = await connectAgent(vigil.url, readerKey.token);
    t.teardown(async () => {
      await agent.close();
      await reader.close();
    });
    const mcp = mcpSide(agent);
    const mcpReader = mcpSide(reader);

    if (d.kind === 'singleton') {
      if (!d.operations.includes('update')) return;
      const stale = await Promise.all([rest.update(d, undefined, d.examples.update!, '"stale"'), mcp.update(d, undefined, d.examples.update!, '"stale"')]);
      t.same(refusal(stale[1].body), refusal(stale[0].body), 'a stale etag is refused alike');
      const readOnly = await Promise.all([restReader.update(d, undefined, d.examples.update!), mcpReader.update(d, undefined, d.examples.update!)]);
      t.equal(readOnly[0].body.error, 'read_only_key');
      t.same(refusal(readOnly[1].body), refusal(readOnly[0].body), 'a read-only key is refused alike');
      const updated = await Promise.all([rest.update(d, undefined, d.examples.update!), mcp.update(d, undefined, d.examples.update!)]);
      t.ok(updated[0].ok && updated[1].ok);
      for (const { body } of d.examples.invalid) {
        const refused = await Promise.all([rest.update(d, undefined, body), mcp.update(d, undefined, body)]);
        t.same(refusal(refused[1].body), refusal(refused[0].body), 'invalid input is refused alike');
      }
      t.same(comparableAudit(await mcp.audit()), comparableAudit(await rest.audit()), 'the audit entries match');
      return;
    }
    if (!d.operations.includes('create') && !d.id?.upsert) return;
    await Promise.all([prepare(rest, d), prepare(mcp, d)]);
    const bodies = await Promise.all([withRefs(rest, d.examples.valid[0]!), withRefs(mcp, d.examples.valid[0]!)]);
    const made = [await rest.create(d, bodies[0]), await mcp.create(d, bodies[1])];
    t.ok(made[0].ok && made[1].ok, 'both create');
    for (const { body } of d.examples.invalid) {
      const refused = [await rest.create(d, await withRefs(rest, body)), await mcp.create(d, await withRefs(mcp, body))];
      t.same(refusal(refused[1].body), refusal(refused[0].body), `invalid input is refused alike (${refused[0].body.error})`);
    }
    if (d.naturalKey && d.operations.includes('create')) {
      const dup = [await rest.create(d, bodies[0]), await mcp.create(d, bodies[1])];
      t.equal(dup[0].body.error, 'conflict');
      t.same(refusal(dup[1].body), refusal(dup[0].body), 'a conflicting create is refused alike');
    }
    const readOnly = [await restReader.create(d, bodies[0]), await mcpReader.create(d, bodies[1])];
    t.equal(readOnly[0].body.error, 'read_only_key');
    t.same(refusal(readOnly[1].body), refusal(readOnly[0].body), 'a read-only key is refused alike');
    const ids = [made[0].body.data.id, made[1].body.data.id];
    if (d.operations.includes('update') && d.examples.update) {
      const stale = [await rest.update(d, ids[0], d.examples.update, '"stale"'), await mcp.update(d, ids[1], d.examples.update, '"stale"')];
      t.equal(stale[0].body.error, 'precondition_failed');
      t.same(refusal(stale[1].body), refusal(stale[0].body), 'a stale etag is refused alike');
      const updated = [await rest.update(d, ids[0], d.examples.update), await mcp.update(d, ids[1], d.examples.update)];
      t.ok(updated[0].ok && updated[1].ok, 'both update');
    }
    if (d.operations.includes('delete')) {
      const removed = [await rest.remove(d, ids[0]), await mcp.remove(d, ids[1])];
      t.ok(removed[0].ok && removed[1].ok, 'both delete');
      const missing = [await rest.remove(d, 'missing'), await mcp.remove(d, 'missing')];
      t.same(refusal(missing[1].body), refusal(missing[0].body), 'a missing row is refused alike');
    }
    t.same(comparableAudit(await mcp.audit()), comparableAudit(await rest.audit()), 'the audit entries match but for the transport');
    const transports = new Set((await mcp.audit()).map((e) => e.transport));
    t.same([...transports], ['mcp'], 'agent writes are audited as mcp');
  });
}

t.test('a family feature is refused alike', async (t) => {
  for (const d of families.filter((f) => f.features?.list && f.kind === 'collection' && f.operations.includes('list'))) {
    const feature = d.features!.list!;
    const restOrg = await vigil.organization('enterprise', { [feature]: false });
    const mcpOrg = await vigil.organization('enterprise', { [feature]: false });
    const agent = await connectAgent(vigil.url, (await mcpOrg.key(['mcp:read'])).token);
    const viaRest = await (await restOrg.key(['api:config_read'])).get(`${CONFIG}/${d.name}`);
    const viaMcp = await agent.call(`list_${d.name}`);
    await agent.close();
    t.equal(viaRest.body.error, 'plan_required');
    t.same(refusal(viaMcp.body), refusal(viaRest.body), `${d.name}: ${feature}`);
  }
});
