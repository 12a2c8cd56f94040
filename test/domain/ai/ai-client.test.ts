/**
 * The one AI provider client (domain/ai/client.ts) against fake OpenAI-compatible providers on 127.0.0.1:
 * priority order and ties, disabled rows, model per purpose, the name never sent, timeouts, the retry budget,
 * 429/5xx/4xx, rate_limit_rpm, the platform fallback and own_providers_only, the spend ledger and its prices,
 * and auto_upgrade_model with its audit entry. Providers and settings are written through the configuration API.
 */
import t from 'tap';
import { AiUnavailable, complete, type AiPurpose } from '../../../domain/ai/client.ts';
import { readStore } from '../../../engine/operations/context.ts';
import { CONFIG, startVigil, type Client } from '../../helpers/harness.ts';
import { startFakeOpenAi } from '../../helpers/fake-openai.ts';

const ai = await startFakeOpenAi({ content: 'provider answer' });
const platform = await startFakeOpenAi({ content: 'platform answer' });
const vigil = await startVigil({
  ai: { baseUrl: platform.url, apiKey: 'platform-key-0001', model: 'platform-model' },
  aiPrices: { 'priced-model': { input: 2, output: 10 } },
});
t.teardown(async () => {
  await vigil.close();
  await ai.close();
  await platform.close();
});

const services = vigil.running.services;
const sql = (text: string, params: unknown[]) => readStore(services).execute(text, params);

interface Org {
  id: string;
  api: Client;
}

async function organization(settings: Record<string, unknown> = {}): Promise<Org> {
  const org = await vigil.organization();
  const api = await org.key(['api:admin']);
  if (Object.keys(settings).length) {
    const put = await api.put(`${CONFIG}/ai_settings`, settings);
    if (put.status !== 200) throw new Error(JSON.stringify(put.body));
  }
  return { id: org.id, api };
}

async function provider(org: Org, body: Record<string, unknown>): Promise<string> {
  const made = await org.api.post(`${CONFIG}/ai_providers`, { provider: 'gateway', base_url: ai.url, api_key: `key-${body.name}`, ...body });
  if (made.status !== 201) throw new Error(JSON.stringify(made.body));
  return made.body.data.id;
}

const ask = (org: Org, purpose: AiPurpose = 'investigation', reference?: string) =>
  complete(services, { organization: { id: org.id }, purpose, messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'what broke?' }], reference }, vigil.clock.now());

const models = () => ai.chats().map((r) => r.body.model);

t.beforeEach(() => {
  ai.reset();
  platform.reset();
});

t.test('providers are tried lowest priority first, ties by name; disabled rows are skipped', async (t) => {
  const org = await organization({ retry_budget: 0 });
  await provider(org, { name: 'zeta', priority: 2, model: 'm-zeta' });
  await provider(org, { name: 'beta', priority: 1, model: 'm-beta' });
  await provider(org, { name: 'alpha', priority: 1, model: 'm-alpha' });
  await provider(org, { name: 'aardvark', priority: 1, model: 'm-off', enabled: false });
  ai.script({ status: 400 }, { status: 401 });
  const answer = await ask(org);
  t.same(models(), ['m-alpha', 'm-beta', 'm-zeta'], 'alpha and beta (priority 1, by name), then zeta; the disabled row never');
  t.match(answer, { content: 'provider answer', provider: 'zeta', model: 'm-zeta', usage: { prompt_tokens: 1000, completion_tokens: 100 } });
  t.equal(platform.chats().length, 0, 'the platform is not asked while a provider answers');
});

t.test('the model per purpose: a pin, "auto" and null hand over to the platform default model', async (t) => {
  const org = await organization();
  await provider(org, { name: 'main', model: 'm-default', model_overrides: { remediation: 'm-fix', investigation: 'auto' } });
  t.equal((await ask(org, 'remediation')).model, 'm-fix');
  t.equal((await ask(org, 'investigation')).model, 'platform-model', 'auto: the platform default, at the same provider');
  t.equal((await ask(org, 'suggestion')).model, 'm-default');
  t.same(models(), ['m-fix', 'platform-model', 'm-default']);
  const other = await organization();
  await provider(other, { name: 'modelless' });
  const answer = await ask(other);
  t.match(answer, { provider: 'modelless', model: 'platform-model' }, 'a null model: the platform default model');
});

t.test('the request: the key as a bearer token, the row\'s settings; the row\'s name is never sent', async (t) => {
  const org = await organization();
  await provider(org, { name: 'label-never-sent-7731', model: 'm-x', api_key: 'sk-the-real-key-0001', max_tokens: 321, temperature: 0.3 });
  await ask(org);
  const [request] = ai.chats();
  t.equal(request!.headers.authorization, 'Bearer sk-the-real-key-0001');
  t.same(request!.body, {
    model: 'm-x', max_tokens: 321, temperature: 0.3,
    messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'what broke?' }],
  });
  t.notOk(JSON.stringify(request!.headers).includes('label-never-sent-7731') || request!.raw.includes('label-never-sent-7731'), 'the name is in neither headers nor body');

  const defaults = await organization();
  await provider(defaults, { name: 'plain', model: 'm-y' });
  await ask(defaults);
  t.same(Object.keys(ai.chats()[1]!.body).sort(), ['max_tokens', 'messages', 'model'], 'temperature null: left to the provider; max_tokens null: the platform\'s');
  t.equal(ai.chats()[1]!.body.max_tokens, 4096);
});

t.test('a provider that times out: its retries, then the next provider', async (t) => {
  const org = await organization({ retry_budget: 1 });
  await provider(org, { name: 'slow', priority: 1, model: 'm-slow', timeout_ms: 150 });
  await provider(org, { name: 'fast', priority: 2, model: 'm-fast' });
  ai.script({ delayMs: 600 }, { delayMs: 600 });
  const answer = await ask(org);
  t.equal(answer.provider, 'fast');
  t.same(models(), ['m-slow', 'm-slow', 'm-fast'], 'one retry (retry_budget 1), then the next provider');
});

t.test('the retry budget counts extra attempts after 5xx and 429; other 4xx are not retried', async (t) => {
  const org = await organization({ retry_budget: 2 });
  await provider(org, { name: 'flaky', priority: 1, model: 'm-flaky' });
  await provider(org, { name: 'steady', priority: 2, model: 'm-steady' });
  ai.script({ status: 503 }, { status: 502 }, { status: 500 });
  t.equal((await ask(org)).provider, 'steady');
  t.same(models(), ['m-flaky', 'm-flaky', 'm-flaky', 'm-steady'], 'first attempt and two retries');

  ai.reset();
  ai.script({ status: 429 }, { status: 503 });
  t.equal((await ask(org)).provider, 'flaky', 'a 429 and a 503 inside the budget: the third attempt answers');
  t.same(models(), ['m-flaky', 'm-flaky', 'm-flaky']);

  ai.reset();
  ai.script({ status: 404 });
  t.equal((await ask(org)).provider, 'steady');
  t.same(models(), ['m-flaky', 'm-steady'], 'a 404 (say, an unknown model) moves on at once');

  ai.reset();
  ai.script({ status: 429, headers: { 'retry-after': '30' } });
  t.equal((await ask(org)).provider, 'steady');
  t.same(models(), ['m-flaky', 'm-steady'], 'asked to wait 30 s: the next provider instead');

  ai.reset();
  ai.script({ status: 200, raw: '{"no":"choices"}' });
  t.equal((await ask(org)).provider, 'steady', 'an answer without a message is a failure, not retried');

  const none = await organization({ retry_budget: 0 });
  await provider(none, { name: 'once', priority: 1, model: 'm-once' });
  await provider(none, { name: 'next', priority: 2, model: 'm-next' });
  ai.reset();
  ai.script({ status: 503 });
  t.equal((await ask(none)).provider, 'next');
  t.same(models(), ['m-once', 'm-next'], 'retry_budget 0: no retry');
});

t.test('rate_limit_rpm: a provider out of requests this minute is skipped, not waited for', async (t) => {
  const org = await organization();
  await provider(org, { name: 'limited', priority: 1, model: 'm-limited', rate_limit_rpm: 2 });
  await provider(org, { name: 'spare', priority: 2, model: 'm-spare' });
  t.equal((await ask(org)).provider, 'limited');
  t.equal((await ask(org)).provider, 'limited');
  t.equal((await ask(org)).provider, 'spare');
  t.same(models(), ['m-limited', 'm-limited', 'm-spare'], 'the third call sent nothing to the limited provider');

  // retries count against the limit too
  const other = await organization({ retry_budget: 3 });
  await provider(other, { name: 'tight', priority: 1, model: 'm-tight', rate_limit_rpm: 2 });
  await provider(other, { name: 'loose', priority: 2, model: 'm-loose' });
  ai.reset();
  ai.script({ status: 503 }, { status: 503 });
  t.equal((await ask(other)).provider, 'loose');
  t.same(models(), ['m-tight', 'm-tight', 'm-loose']);
});

t.test('the platform provider: when no provider of the organization answers, unless own_providers_only', async (t) => {
  const bare = await organization();
  const answer = await ask(bare);
  t.match(answer, { content: 'platform answer', provider: 'platform', model: 'platform-model' });
  t.equal(platform.chats()[0]!.headers.authorization, 'Bearer platform-key-0001');

  const failing = await organization({ retry_budget: 0 });
  await provider(failing, { name: 'broken', model: 'm-broken' });
  ai.script({ status: 500 });
  t.equal((await ask(failing)).provider, 'platform', 'the organization\'s provider failed: the platform answers');

  const strict = await organization({ own_providers_only: true });
  const refused = await ask(strict).catch((e: unknown) => e);
  t.ok(refused instanceof AiUnavailable);
  t.match(refused, { reason: 'no_provider', message: /own_providers_only is on and the organization has no enabled AI provider/ });

  const strictFailing = await organization({ own_providers_only: true, retry_budget: 0 });
  await provider(strictFailing, { name: 'down', model: 'm-down', api_key: 'sk-must-not-leak-0001' });
  platform.reset();
  ai.script({ status: 503 });
  const failed = (await ask(strictFailing).catch((e: unknown) => e)) as AiUnavailable;
  t.ok(failed instanceof AiUnavailable);
  t.equal(failed.reason, 'all_failed');
  t.match(failed.message, /down: answered HTTP 503/);
  t.match(failed.message, /platform: not used: own_providers_only is on/);
  t.notOk(failed.message.includes('sk-must-not-leak-0001') || failed.message.includes(ai.url), 'neither the key nor the URL in the reason');
  t.equal(platform.chats().length, 0, 'the platform was not asked');

  const disabledOnly = await organization({ own_providers_only: true });
  await provider(disabledOnly, { name: 'off', enabled: false });
  t.match(await ask(disabledOnly).catch((e: unknown) => e), { reason: 'no_provider' }, 'a disabled provider is no provider');
});

t.test('a provider kind without a public endpoint needs a base_url', async (t) => {
  const org = await organization({ own_providers_only: true });
  await provider(org, { name: 'mine', provider: 'self_hosted', base_url: null, model: 'm' });
  const failed = await ask(org).catch((e: unknown) => e);
  t.match(failed, { reason: 'all_failed', message: /mine: skipped: a self_hosted provider needs a base_url/ });
});

t.test('the spend ledger: every answered call, its tokens, model, provider and cost; unknown models cost 0 with a note', async (t) => {
  const org = await organization();
  await provider(org, { name: 'priced', model: 'priced-model' });
  ai.script({ usage: { prompt_tokens: 1500, completion_tokens: 300 } });
  const answer = await ask(org, 'remediation', 'fix-123');
  t.equal(answer.cost_usd, 0.006, '1500 × 2 + 300 × 10 USD per million tokens');
  const bare = await organization();
  await ask(bare);
  const rows = await sql(
    `select organization_id, purpose, reference, provider, model, prompt_tokens, completion_tokens, cost_usd::float8 as cost, note
       from ai_spend where organization_id in (?, ?) order by seq`, [org.id, bare.id]);
  t.same(rows.map((r) => ({ ...r })), [
    { organization_id: org.id, purpose: 'remediation', reference: 'fix-123', provider: 'priced', model: 'priced-model', prompt_tokens: 1500, completion_tokens: 300, cost: 0.006, note: null },
    { organization_id: bare.id, purpose: 'investigation', reference: null, provider: 'platform', model: 'platform-model', prompt_tokens: 1000, completion_tokens: 100, cost: 0, note: 'unpriced' },
  ]);

  const failing = await organization({ own_providers_only: true, retry_budget: 0 });
  await provider(failing, { name: 'down', model: 'priced-model' });
  ai.script({ status: 500 });
  await ask(failing).catch(() => undefined);
  t.same(await sql('select 1 from ai_spend where organization_id = ?', [failing.id]), [], 'a call nobody answered costs nothing');
});

t.test('auto_upgrade_model: a model gone from the provider\'s list moves to its newest successor, audited', async (t) => {
  ai.models = [
    { id: 'model-large-2024-09', created: 1_720_000_000 },
    { id: 'model-large-2025-06', created: 1_750_000_000 },
    { id: 'model-small-2026-01', created: 1_770_000_000 },
  ];
  const org = await organization();
  const id = await provider(org, { name: 'upgrading', model: 'model-large-2024-01', auto_upgrade_model: true, model_overrides: { remediation: 'pinned-model' } });
  t.equal((await ask(org, 'remediation')).model, 'pinned-model', 'a per-purpose pin is not upgraded (nor checked)');
  const answer = await ask(org);
  t.equal(answer.model, 'model-large-2025-06', 'the newest of the same family; another family is not a successor');
  t.equal(models().at(-1), 'model-large-2025-06');
  const row = await org.api.get(`${CONFIG}/ai_providers/${id}`);
  t.equal(row.body.data.model, 'model-large-2025-06', 'the row was moved');
  const log = await org.api.get(`${CONFIG}/audit_log`);
  const entry = log.body.data.find((e: any) => e.family === 'ai_providers' && e.action === 'update');
  t.match(entry, { actor: { kind: 'system', id: 'auto_upgrade_model' }, transport: 'system', row_id: id, changes: { model: { before: 'model-large-2024-01', after: 'model-large-2025-06' } } });
  t.same(Object.keys(entry.changes), ['model'], 'only the model changed; no key in the entry');

  const listed = await organization();
  const kept = await provider(listed, { name: 'current', model: 'model-large-2024-09', auto_upgrade_model: true });
  await ask(listed);
  t.equal((await listed.api.get(`${CONFIG}/ai_providers/${kept}`)).body.data.model, 'model-large-2024-09', 'still listed: kept');

  const off = await organization();
  const fixed = await provider(off, { name: 'fixed', model: 'model-large-2024-01' });
  await ask(off);
  t.equal((await off.api.get(`${CONFIG}/ai_providers/${fixed}`)).body.data.model, 'model-large-2024-01', 'auto_upgrade_model off: never moved');
  t.same(models().at(-1), 'model-large-2024-01');
  ai.models = [];
});
