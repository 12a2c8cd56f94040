/**
 * Fields whose allowed values come from the deployment's configuration (a descriptor's `configuredValues`) are
 * published with them as `enum`: request_signing.source lists the webhook sources that can be signed, in the served
 * OpenAPI document and in the agent tools' input schemas, and the list follows the configuration the service runs
 * with (another deployment's sources, another enum). Values outside it are still refused, naming the field.
 */
import t from 'tap';
import { connectAgent } from '../helpers/mcp.ts';
import { CONFIG, startVigil, type Vigil } from '../helpers/harness.ts';

type Json = Record<string, any>;

/** request_signing.source as the served document and the agent tools publish it. */
async function published(vigil: Vigil) {
  const document = (await fetch(`${vigil.url}${CONFIG}/openapi.json`).then((r) => r.json())) as Json;
  const org = await vigil.organization('enterprise');
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  const { tools } = await agent.client.listTools();
  await agent.close();
  const tool = (name: string) => tools.find((candidate) => candidate.name === name)!.inputSchema.properties as Json;
  return {
    create: document.components.schemas['request_signing.create'].properties.source.enum as string[],
    row: document.components.schemas.request_signing.properties.source.enum as string[],
    tool: tool('create_request_signing_secret').source.enum as string[],
    org,
  };
}

t.test('the service\'s own sources: the signable ones are the enum, in OpenAPI and the agent tools', async (t) => {
  const vigil = await startVigil();
  t.teardown(() => vigil.close());
  const { create, row, tool, org } = await published(vigil);
  const signable = ['code-host', 'incident-pager', 'metric-dashboard', 'monitoring-a', 'monitoring-b'];
  t.same([...create].sort(), signable, 'request_signing.create: source is one of the signable sources');
  t.same(row, create, 'the row schema lists the same');
  t.same(tool, create, 'create_request_signing_secret lists the same');
  t.notOk(create.includes('cloud-alarms'), 'a source that cannot be signed here is not offered');
  const admin = await org.key(['api:admin']);
  const refused = await admin.post(`${CONFIG}/request_signing`, { source: 'cloud-alarms', secret: 'cloud-signing-secret-0001' });
  t.match([refused.status, refused.body], [422, { error: 'validation_failed', message: /source/ }], 'a value outside the enum is refused naming source');
});

t.test('another deployment\'s sources: another enum, and its sources are the ones accepted', async (t) => {
  const vigil = await startVigil({
    webhookSources: [
      { segment: 'incident-pager' },
      { segment: 'in-house-hook', signing: { scheme: 'shared-secret-header', header: 'x-in-house-token', notes: 'the token in a header', operatorSwitch: false } },
    ],
  });
  t.teardown(() => vigil.close());
  const { create, tool, org } = await published(vigil);
  t.same(create, ['in-house-hook'], 'the one signable source of this configuration');
  t.same(tool, ['in-house-hook'], 'and the agent tool says the same');
  const admin = await org.key(['api:admin']);
  const accepted = await admin.post(`${CONFIG}/request_signing`, { source: 'in-house-hook', secret: 'in-house-signing-secret-1' });
  t.equal(accepted.status, 201, 'the enum\'s value is accepted');
  const refused = await admin.post(`${CONFIG}/request_signing`, { source: 'incident-pager', secret: 'pager-signing-secret-0001' });
  t.match([refused.status, refused.body], [422, { error: 'validation_failed', message: /source/ }], 'a source this deployment does not sign is refused');
});
