/**
 * The fuzz suite, bounded for `npm test` (FUZZ_RUNS per route, tool and source; default 3). `npm run fuzz` runs
 * the same properties longer. An organization on the enterprise plan holds a row of every family it can (from the
 * descriptors' examples) with every write-only field set to a fresh secret, so refusals meet real rows and any
 * secret leaking into an answer is caught.
 */
import t from 'tap';
import { families } from '../../resources/index.ts';
import { OPERATOR_TOKEN, startVigil } from '../helpers/harness.ts';
import { seedOrganization } from '../helpers/seed.ts';
import { fuzzAgentTools, fuzzConfigApi, fuzzOperatorApi, fuzzWebhooks, type FuzzTarget } from './surfaces.fuzz.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 3);
const vigil = await startVigil();
t.teardown(() => vigil.close());

const org = await vigil.organization('enterprise');
await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { flags: { signing_enabled_sources: true } });
const api = await org.key(['api:admin']);
const { secrets } = await seedOrganization(api);

const target: FuzzTarget = {
  vigil,
  apiKey: api.token,
  mcpKey: (await org.key(['mcp:admin'])).token,
  webhookToken: org.webhookToken,
  secrets: [...secrets, org.webhookToken, api.token],
  runs,
  examples: Object.fromEntries(families.map((d) => [d.name, [...d.examples.valid, ...(d.examples.update ? [d.examples.update] : [])].filter((b) => !JSON.stringify(b).includes('$ref:'))])),
};

t.ok(secrets.length >= 5, `${secrets.length} secrets saved before fuzzing`);
t.test('configuration API', (t) => fuzzConfigApi(t, target));
t.test('agent-tool endpoint', (t) => fuzzAgentTools(t, target));
// the operator reads an organization's webhook token by design; nothing else saved may reach an operator answer
t.test('operator API', (t) => fuzzOperatorApi(t, { ...target, secrets: target.secrets.filter((s) => s !== org.webhookToken), operatorToken: OPERATOR_TOKEN, organizationId: org.id }));
t.test('webhooks', (t) => fuzzWebhooks(t, target));
t.test('no prototype was polluted', async (t) => {
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});
