/**
 * Every family of the spec is served, and every registered family is on every surface its operations allow:
 * REST routes, MCP tools, an OpenAPI tag, and the HCL export.
 */
import t from 'tap';
import { singularOf } from '../../engine/mcp/tools.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

/** The 34 resource families of the spec's list (each an OpenAPI tag). */
const SPEC_FAMILIES = [
  'ai_providers', 'ai_settings', 'alert_mutes', 'alert_routes', 'cloud_external_id', 'certificate_monitors', 'change_notifications',
  'compliance_periods', 'connectors', 'data_sources', 'deploy_policies', 'export', 'code_host_settings', 'image_targets',
  'notification_settings', 'organization_settings', 'outbound_configs', 'outbound_rules', 'overseer_settings', 'prompt_templates',
  'repo_settings', 'request_signing', 'service_bindings', 'chat', 'slis', 'slos', 'status_page_components', 'status_page_incidents',
  'status_page_settings', 'synthetic_checks', 'team_members', 'teams', 'ticket_import_rules', 'ticket_integrations',
];

const vigil = await startVigil();
t.teardown(() => vigil.close());
const org = await vigil.organization('enterprise');
const api = await org.key(['api:admin']);
const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
t.teardown(() => agent.close());
const openapi = await (await fetch(`${vigil.url}${CONFIG}/openapi.json`)).json();
const tools = new Set((await agent.client.listTools()).tools.map((tool) => tool.name));
const domainPaths = new Set(vigil.running.services.domain.map((op) => op.rest?.path).filter(Boolean));

t.test('which of the spec\'s 34 families are served', async (t) => {
  const served = SPEC_FAMILIES.filter((name) => families.some((f) => f.name === name) || domainPaths.has(name));
  const missing = SPEC_FAMILIES.filter((name) => !served.includes(name));
  t.comment(`served ${served.length} of ${SPEC_FAMILIES.length}; not yet: ${missing.join(', ') || 'none'}`);
  t.same(missing, [], 'all 34 are served');
  for (const name of served) t.ok(openapi.tags.some((tag: { name: string }) => tag.name === name), `${name} has an OpenAPI tag`);
});

t.test('every registered family is on every surface its operations allow', async (t) => {
  const exported = (await api.get(`${CONFIG}/export?format=hcl`)).body as string;
  for (const d of families) {
    const base = `/${d.name}`;
    t.ok(openapi.paths[base] || openapi.paths[`${base}/{id}`], `${d.name}: REST paths in OpenAPI`);
    const expected = [
      d.kind === 'collection' && d.operations.includes('list') && `list_${d.name}`,
      d.operations.includes('read') && `get_${singularOf(d)}`,
      d.operations.includes('create') && `create_${singularOf(d)}`,
      d.operations.includes('update') && `update_${singularOf(d)}`,
      d.operations.includes('delete') && `delete_${singularOf(d)}`,
    ].filter((name): name is string => typeof name === 'string');
    for (const name of expected) t.ok(tools.has(name), `${d.name}: tool ${name}`);
    if (d.kind === 'singleton') t.match(exported, new RegExp(`vigil_${d.name}\\b`), `${d.name}: in the export`);
    const listed = d.operations.includes('list') ? await api.get(`${CONFIG}/${d.name}`) : await api.get(`${CONFIG}/${d.name}`);
    t.not(listed.status, 404, `${d.name}: REST answers`);
  }
});
