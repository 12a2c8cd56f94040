/**
 * Refuse early (issue 19), a strict deployment (no loopback; checks without private networks): every URL (or host)
 * field refuses what the stricter policy adds, through REST and MCP, naming the field, never echoing the value,
 * writing nothing. The harness's deployment: targets-integrations.test.ts and targets-checks.test.ts.
 */
import t from 'tap';
import { startVigil } from '../helpers/harness.ts';
import { checkField, STRICT, surfaces } from '../helpers/targets.ts';

t.test('a strict deployment (no loopback; checks without private networks)', async (t) => {
  const vigil = await startVigil({ outbound: { allowLoopback: false }, webhooks: { checks: { allowLoopback: false, allowPrivate: false } } });
  t.teardown(() => vigil.close());
  for (const key of Object.keys(STRICT)) {
    await t.test(key, async (t) => checkField(t, await surfaces(vigil, t), key, STRICT[key]!));
  }
});
