/**
 * The monthly AI budget warning: crossing ai_budget_warn_percent of monthly_ai_budget_usd records one
 * notification per organization and calendar month (its time zone), even when calls race; the next month warns
 * again; list_notifications (REST and agent tool) shows them. The alert pipeline's budget check reads the same ledger.
 */
import t from 'tap';
import { complete } from '../../../domain/ai/client.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { startFakeOpenAi } from '../../helpers/fake-openai.ts';
import { connectAgent } from '../../helpers/mcp.ts';

const ai = await startFakeOpenAi();
// 3000 prompt tokens at 100 USD per million: 0.30 USD a call
ai.respond = () => ({ content: 'ok', usage: { prompt_tokens: 3000, completion_tokens: 0 } });
const vigil = await startVigil({ aiPrices: { 'priced-model': { input: 100, output: 0 } } });
t.teardown(async () => {
  await vigil.close();
  await ai.close();
});

async function organization(settings: Record<string, unknown>) {
  const org = await vigil.organization();
  const api = await org.key(['api:admin']);
  t.equal((await api.put(`${CONFIG}/organization_settings`, settings)).status, 200);
  t.equal((await api.post(`${CONFIG}/ai_providers`, { name: 'main', provider: 'gateway', base_url: ai.url, model: 'priced-model' })).status, 201);
  const call = () => complete(vigil.running.services, { organization: { id: org.id }, purpose: 'investigation', messages: [{ role: 'user', content: 'hi' }] }, vigil.clock.now());
  const notifications = async () => (await api.get(`${CONFIG}/notifications`)).body.data as any[];
  return { id: org.id, api, call, notifications, org };
}

t.test('one warning per month at the threshold, not twice; the next month (in the organization\'s zone) warns again', async (t) => {
  vigil.clock.set('2026-03-10T12:00:00.000Z');
  const o = await organization({ monthly_ai_budget_usd: 1, ai_budget_warn_percent: 50, timezone: 'Europe/Berlin' });
  await o.call();
  t.same(await o.notifications(), [], '0.30 of 1.00: under 50 %');
  await o.call();
  let list = await o.notifications();
  t.equal(list.length, 1, '0.60: over 50 %, one warning');
  t.match(list[0], { kind: 'ai_budget_warning', detail: { month: '2026-03', budget_usd: 1, warn_percent: 50 }, message: /reached 0\.60 USD, 60% of the monthly budget of 1 USD/ });
  await o.call();
  await o.call();
  t.equal((await o.notifications()).length, 1, 'further calls in the month: no second warning');

  // 22:30 UTC on March 31st is already April 1st in Berlin (CEST, UTC+2)
  vigil.clock.set('2026-03-31T22:30:00.000Z');
  await o.call();
  t.equal((await o.notifications()).length, 1, 'April has spent 0.30 so far');
  await o.call();
  list = await o.notifications();
  t.same(list.map((n) => n.detail.month), ['2026-04', '2026-03'], 'a new month, a new warning (newest first)');

  const agent = await connectAgent(vigil.url, (await o.org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  const viaAgent = await agent.call('list_notifications', { kind: 'ai_budget_warning', limit: 1 });
  t.same(viaAgent.body.data.map((n: any) => n.detail.month), ['2026-04']);
  t.equal(viaAgent.body.truncated, true);
});

t.test('racing calls across the threshold record exactly one warning', async (t) => {
  vigil.clock.set('2026-05-10T12:00:00.000Z');
  const o = await organization({ monthly_ai_budget_usd: 1, ai_budget_warn_percent: 10 });
  await Promise.all(Array.from({ length: 6 }, () => o.call()));
  t.equal((await o.notifications()).length, 1);
});

t.test('no budget, no warning; another organization sees none of them', async (t) => {
  vigil.clock.set('2026-05-11T12:00:00.000Z');
  const o = await organization({ monthly_ai_budget_usd: null, ai_budget_warn_percent: 1 });
  await o.call();
  await o.call();
  t.same(await o.notifications(), []);
});

t.test('the alert pipeline\'s budget check reads the ledger the client writes', async (t) => {
  vigil.clock.set('2026-06-10T12:00:00.000Z');
  const o = await organization({ monthly_ai_budget_usd: 1, ai_budget_warn_percent: 100 });
  for (let i = 0; i < 4; i++) await o.call(); // 1.20 USD
  t.equal((await o.notifications()).length, 1, 'warned at 100 %');
  const alertmanager = {
    version: '4', status: 'firing', receiver: 'vigil', groupLabels: {}, commonLabels: {}, commonAnnotations: {}, externalURL: 'http://am.example.com',
    alerts: [{ status: 'firing', labels: { alertname: 'OverBudget', severity: 'critical' }, annotations: {}, startsAt: '2026-06-10T11:59:00Z', fingerprint: 'ob' }],
  };
  const res = await fetch(`${vigil.url}/webhooks/metric-dashboard/${(await vigil.operator.get(`/api/admin/v1/organizations/${o.id}`)).body.webhook_token}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Alertmanager/0.27.0' }, body: JSON.stringify(alertmanager),
  });
  t.equal(res.status, 200);
  const alert = await o.api.get(`${CONFIG}/alerts`);
  const got = await vigil.running.services.db.em.getConnection().execute(
    `select kind, detail from alert_effects where alert_id = ? and kind like 'investigation%'`, [alert.body.data[0].id]);
  t.equal(got[0].kind, 'investigation_skipped');
  t.match(typeof got[0].detail === 'string' ? JSON.parse(got[0].detail) : got[0].detail, { reason: 'budget', budget_usd: 1 });
});
