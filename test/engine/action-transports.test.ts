/**
 * The `transports` flag of a descriptor action, on a throwaway family: an action is an agent tool by default;
 * `['rest']` serves it only as `POST /<family>/{id}/<action>` (audited with transport rest) and keeps it off
 * the agent-tool endpoint (neither listed nor callable); `['rest', 'mcp']` serves both. The registry refuses
 * an empty or unknown transport list.
 */
import t from 'tap';
import Type from 'typebox';
import { defineFamily, type FamilyDescriptor } from '../../engine/descriptor.ts';
import { createRegistry } from '../../engine/registry.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const NOTE = Type.Object({ note: Type.String({ minLength: 1, maxLength: 50 }) }, { additionalProperties: false });
const widget = defineFamily({
  name: 'widget_action_probe',
  description: 'A throwaway family that exists only in this test, to prove where actions are served.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  requiredOnCreate: ['name'],
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 40 }),
    note: Type.Union([Type.String(), Type.Null()], { readOnly: true, default: null }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  actions: {
    probe_agent: { description: 'An agent tool only (the default).', role: 'member', input: NOTE, run: (_r, input) => ({ note: `agent:${input.note}` }) },
    probe_rest: { description: 'REST only.', role: 'org_admin', transports: ['rest'], input: NOTE, run: (_r, input) => ({ note: `rest:${input.note}` }) },
    probe_both: { description: 'Both transports.', role: 'member', transports: ['rest', 'mcp'], input: NOTE, run: (_r, input) => ({ note: `both:${input.note}` }) },
  },
  examples: { valid: [{ name: 'probe' }], invalid: [], update: { name: 'probe 2' } },
});

const vigil = await startVigil({ extraFamilies: [widget] });
t.teardown(() => vigil.close());
const org = await vigil.organization();
const admin = await org.key(['api:admin']);
const agent = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
t.teardown(() => agent.close());
const base = `${CONFIG}/widget_action_probe`;

t.test('REST serves the actions that name it, and audits them as REST', async (t) => {
  const id = (await admin.post(base, { name: 'w' })).body.data.id;
  const rest = await admin.post(`${base}/${id}/probe_rest`, { note: 'a' });
  t.equal(rest.status, 200);
  t.equal(rest.body.data.note, 'rest:a');
  t.ok(rest.headers.get('etag'));
  t.equal((await admin.post(`${base}/${id}/probe_both`, { note: 'b' })).body.data.note, 'both:b');
  t.equal((await admin.post(`${base}/${id}/probe_agent`, { note: 'c' })).status, 405, 'an agent-only action is no REST route');
  t.match((await admin.post(`${base}/${id}/probe_rest`, { note: '' })).body, { error: 'validation_failed', errors: [{ field: 'note' }] });
  t.match((await admin.post(`${base}/${id}/probe_rest`, { note: 'x', extra: 1 })).body, { errors: [{ field: 'extra' }] });
  t.equal((await admin.post(`${base}/${id}/probe_rest`, { note: 'x' }, { 'if-match': '"stale"' })).status, 412);
  const member = await (await org.key(['api:config_read'])).post(`${base}/${id}/probe_rest`, { note: 'x' });
  t.equal(member.status, 403);
  const log = (await vigil.operator.get(`/api/admin/v1/organizations/${org.id}/audit_log`)).body.data;
  t.match(log.find((e: any) => e.action === 'action:probe_rest'), { transport: 'rest', row_id: id, changes: { note: { after: 'rest:a' } } });
});

t.test('the agent-tool endpoint lists and runs only the actions served on it', async (t) => {
  const names = new Set((await agent.client.listTools()).tools.map((tool) => tool.name));
  t.ok(names.has('probe_agent') && names.has('probe_both'));
  t.notOk(names.has('probe_rest'));
  const id = (await admin.post(base, { name: 'w2' })).body.data.id;
  t.equal((await agent.call('probe_both', { id, note: 'm' })).body.data.note, 'both:m');
  await t.rejects(agent.call('probe_rest', { id, note: 'm' }), /Unknown tool/);
});

t.test('the registry refuses an empty or unknown transport list', async (t) => {
  const withTransports = (transports: unknown) =>
    ({ ...widget, actions: { probe: { ...widget.actions.probe_rest, transports } } }) as unknown as FamilyDescriptor;
  t.throws(() => createRegistry([withTransports([])]), /transports/);
  t.throws(() => createRegistry([withTransports(['grpc'])]), /transports/);
  t.doesNotThrow(() => createRegistry([withTransports(['rest'])]));
});
