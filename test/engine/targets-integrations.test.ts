/**
 * Refuse early (issue 19), the harness's deployment (loopback allowed, as for local receivers): the URL fields of the
 * integrations the service calls refuse what the outbound policy refuses, through REST and MCP, naming the field,
 * never echoing the value, writing nothing; a stored value the policy no longer allows blocks no other change; and
 * apply goes through the same operations. The fields that are checked or linked: targets-checks.test.ts; the strict
 * deployment: targets-strict.test.ts.
 */
import t from 'tap';
import { applyPlan } from '../../export/apply.ts';
import { readConfigFile } from '../../export/config-file.ts';
import { computePlan } from '../../export/plan.ts';
import { httpConfigApi } from '../../export/remote.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { CHECKED_OR_LINKED, checkField, OPEN, surfaces } from '../helpers/targets.ts';

// one deployment for the file: every subtest works in organizations of its own
const vigil = await startVigil();
t.teardown(() => vigil.close());

const FIELDS = Object.keys(OPEN).filter((key) => !CHECKED_OR_LINKED.includes(key));

t.test('the harness deployment (loopback allowed): every integration URL field refuses what its policy refuses', async (t) => {
  for (const key of FIELDS) {
    // one organization per field: natural keys and singletons start fresh
    await t.test(key, async (t) => checkField(t, await surfaces(vigil, t), key, OPEN[key]!));
  }
});

t.test('a stored URL the policy no longer allows does not block other changes to its row', async (t) => {
  const s = await surfaces(vigil, t);
  const made = await s.api.post(`${CONFIG}/outbound_configs`, { name: 'local', kind: 'webhook', url: 'http://127.0.0.1:9000/x' });
  t.equal(made.status, 201);
  // only values sent are judged (the request-time check refuses the stored one when it is called)
  t.equal((await s.api.put(`${CONFIG}/outbound_configs/${made.body.data.id}`, { enabled: false })).status, 200);
});

t.test('apply goes through the same operations: a refused URL stops it, naming the field, and writes nothing', async (t) => {
  const org = await vigil.organization();
  const key = await org.key(['api:admin']);
  const text = 'resource "vigil_outbound_configs" "meta" {\n  name = "meta"\n  kind = "webhook"\n  url  = "https://[::ffff:169.254.169.254]/hook"\n}\n';
  const remote = httpConfigApi(vigil.url, key.token);
  const result = await applyPlan(remote, await computePlan(remote, families, readConfigFile(text, families)));
  t.match(result.stopped, { address: 'vigil_outbound_configs.meta', refusals: [{ details: [/^url: must not point at an address the service may not reach/] }] });
  t.notOk(JSON.stringify(result).includes('169.254'), 'the value is not repeated');
  t.same((await key.get(`${CONFIG}/outbound_configs`)).body.data, []);
});
