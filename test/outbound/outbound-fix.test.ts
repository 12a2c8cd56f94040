/**
 * fix_request.finished: a fix request that ends (a draft pull request here, against the fake GitHub and AI
 * provider) goes out to the outbound rules that name the kind, in the transaction that records its end.
 */
import t from 'tap';
import { CONFIG } from '../helpers/harness.ts';
import { waitFor } from '../helpers/jobs.ts';
import { closeFixOrgs, fixOrg, fixWorld } from '../helpers/fixes.ts';
import { startReceiver } from '../helpers/receiver.ts';

const world = await fixWorld();
const receiver = await startReceiver();
t.teardown(async () => {
  await closeFixOrgs();
  await world.close();
  await receiver.close();
});

t.test('a finished fix request is delivered with its outcome', async (t) => {
  world.github.addRepo('acme/outbound-fix', { 'src/fee.ts': 'export const fee = 1;\n' });
  const org = await fixOrg(world, { repos: [{ repo: 'acme/outbound-fix', services: ['checkout-api'] }] });
  const config = await org.api.post(`${CONFIG}/outbound_configs`, { name: 'fixes', kind: 'webhook', url: `${receiver.url}/fixes` });
  t.equal(config.status, 201);
  t.equal((await org.api.post(`${CONFIG}/outbound_rules`, { name: 'fixes', events: ['fix_request.finished'], outbound_config_id: config.body.data.id, filters: { sources: ['fix-requests'] } })).status, 201);
  const asked = await org.ask({ description: 'The fee in src/fee.ts is wrong: it should be 2', service: 'checkout-api' });
  t.equal(asked.status, 202);
  const done = await org.settled(asked.body.id);
  t.equal(done.status, 'pr_opened');
  await waitFor(() => receiver.processed.size === 1, 'the delivery');
  const envelope = JSON.parse([...receiver.processed.values()][0]!.body);
  t.match(envelope, { type: 'fix_request.finished', version: 1, organization_id: org.id, data: { fix_request: { id: asked.body.id, status: 'pr_opened', pr_url: done.pr_url, service: 'checkout-api' } } });
});
