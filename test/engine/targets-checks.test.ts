/**
 * Refuse early (issue 19), the harness's deployment (loopback allowed; checks reach private networks): the fields
 * that are checked or linked (image registries, synthetic checks, certificate hosts, the status page's support link)
 * refuse what their policy refuses, through REST and MCP, naming the field, never echoing the value, writing nothing;
 * and the rule shows in OpenAPI and in the tool schemas. The integrations' URL fields: targets-integrations.test.ts.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { CHECKED_OR_LINKED, checkField, OPEN, surfaces } from '../helpers/targets.ts';

// one deployment for the file: every subtest works in organizations of its own
const vigil = await startVigil();
t.teardown(() => vigil.close());

t.test('the harness deployment (loopback allowed): every checked or linked field refuses what its policy refuses', async (t) => {
  for (const key of CHECKED_OR_LINKED) {
    await t.test(key, async (t) => checkField(t, await surfaces(vigil, t), key, OPEN[key]!));
  }
});

t.test('the rule shows in OpenAPI and in the tool schemas', async (t) => {
  const s = await surfaces(vigil, t);
  const doc = (await s.api.get(`${CONFIG}/openapi.json`)).body;
  const created = doc.components.schemas['ai_providers.create'].properties.base_url;
  const inner = created.anyOf.find((m: { type?: string }) => m.type === 'string');
  t.match(inner, { type: 'string', format: 'uri', 'x-target': 'outbound', description: /must be an https URL without user:password@/ });
  t.match(doc.components.schemas['synthetic_checks.create'].properties.url, { format: 'uri', 'x-target': 'check', description: /must be an http or https URL/ });
  t.match(doc.components.schemas['connectors.create'].properties.settings.properties.url, { format: 'uri', 'x-target': 'outbound' });
  t.match(doc.components.schemas['certificate_monitors.create'].properties.host, { 'x-target': 'check' });
  t.match(doc.components.schemas['status_page_settings.update'].properties.support_url.anyOf[0], { format: 'uri', 'x-target': 'link' });
  const tools = (await s.agent.client.listTools()).tools;
  const create = tools.find((tool) => tool.name === 'create_outbound_config')!;
  t.match((create.inputSchema.properties as any).url, { format: 'uri', 'x-target': 'outbound', description: /must be an https URL/ });
  const update = tools.find((tool) => tool.name === 'update_ticket_integration')!;
  t.match((update.inputSchema.properties as any).base_url, { format: 'uri', 'x-target': 'outbound' });
});
