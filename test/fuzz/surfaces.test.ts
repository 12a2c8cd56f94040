/**
 * The fuzz suite, bounded for `npm test` (FUZZ_RUNS per route, tool and source; default 3). `npm run fuzz` runs
 * the same properties longer. An organization on the enterprise plan holds a row of every family it can (from the
 * descriptors' examples) with every write-only field set to a fresh secret, so refusals meet real rows and any
 * secret leaking into an answer is caught.
 */
import t from 'tap';
import type { Row } from '../../engine/descriptor.ts';
import { isWriteOnly } from '../../engine/fields.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { fuzzAgentTools, fuzzConfigApi, fuzzWebhooks, randomSecret, type FuzzTarget } from './surfaces.fuzz.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 3);
const vigil = await startVigil();
t.teardown(() => vigil.close());

const org = await vigil.organization('enterprise');
await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { flags: { signing_enabled_sources: true } });
const api = await org.key(['api:admin']);
const secrets: string[] = [];

/** The example with each write-only field given a fresh secret; undefined when it names rows of other families. */
function withSecrets(fields: Record<string, unknown>, body: Row): Row | undefined {
  if (JSON.stringify(body).includes('$ref:')) return undefined;
  const out: Row = { ...body };
  for (const [name, schema] of Object.entries(fields)) {
    if (!isWriteOnly(schema as never) || typeof out[name] !== 'string') continue;
    const secret = randomSecret(name);
    secrets.push(secret);
    out[name] = secret;
  }
  return out;
}

async function seed(client: Client): Promise<void> {
  for (const d of families) {
    if (d.kind === 'singleton') {
      const body = d.examples.update && withSecrets(d.fields, d.examples.update);
      if (body) await client.put(`${CONFIG}/${d.name}`, body);
      continue;
    }
    for (const example of d.examples.valid) {
      const body = withSecrets(d.fields, example);
      if (body && d.operations.includes('create')) await client.post(`${CONFIG}/${d.name}`, body);
    }
  }
}
await seed(api);

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
t.test('webhooks', (t) => fuzzWebhooks(t, target));
t.test('no prototype was polluted', async (t) => {
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});
