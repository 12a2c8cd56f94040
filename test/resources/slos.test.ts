/** slis and slos: indicator rules, SLI references checked per organization, evaluation outside the ETag. */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

t.test('an SLO names an SLI of its own organization', async (t) => {
  const api = await (await vigil.organization()).key();
  const other = await (await vigil.organization()).key();
  const sli = await api.post(`${CONFIG}/slis`, { name: 'avail', service: 'api', indicator: 'availability' });
  const foreign = await other.post(`${CONFIG}/slis`, { name: 'avail', service: 'api', indicator: 'availability' });
  const made = await api.post(`${CONFIG}/slos`, { name: 'api 99.9', sli_id: sli.body.data.id, target_percent: 99.9 });
  t.equal(made.status, 201);
  t.match(made.body.data, { window_days: 30, status: 'no_data', error_budget_remaining_percent: null, burn_rate: null });
  for (const sli_id of [foreign.body.data.id, 'unknown']) {
    const refused = await api.post(`${CONFIG}/slos`, { name: 'x', sli_id, target_percent: 99 });
    t.equal(refused.status, 422, 'a foreign or unknown SLI is refused alike');
    t.equal(refused.body.errors[0].field, 'sli_id');
  }
  const moved = await api.put(`${CONFIG}/slos/${made.body.data.id}`, { sli_id: foreign.body.data.id });
  t.equal(moved.status, 422, 'also on update');
});

t.test('latency SLIs need a threshold, availability SLIs refuse one', async (t) => {
  const api = await (await vigil.organization()).key();
  t.equal((await api.post(`${CONFIG}/slis`, { name: 'l', service: 's', indicator: 'latency', latency_threshold_ms: 250 })).status, 201);
  const missing = await api.post(`${CONFIG}/slis`, { name: 'm', service: 's', indicator: 'latency' });
  t.equal(missing.body.errors[0].field, 'latency_threshold_ms');
  const made = await api.post(`${CONFIG}/slis`, { name: 'a', service: 's', indicator: 'availability' });
  const switched = await api.put(`${CONFIG}/slis/${made.body.data.id}`, { indicator: 'latency' });
  t.equal(switched.status, 422, 'the rule holds on the merged row of an update');
  t.equal(switched.body.errors[0].field, 'latency_threshold_ms');
});
