/**
 * URLs that carry a credential (issue 35, hole 2): a chat incoming webhook's URL, a token in a query parameter. A
 * caller who cannot write the family reads them masked on every surface (REST, agent tools, the console's pages); an
 * export never holds them, whoever asks; a writer reads them whole.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';
import { browserless, person, PASSWORD } from '../helpers/console.ts';
import { maskUrlCredentials } from '../../engine/credential-url.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const org = await vigil.organization('business');
const admin = await org.key(['api:admin']);
const SECRET = 'abcdEFGHijklMNOPqrst1234';
const HOOK = `https://hooks.example.com/services/T0123ABCD/B0456EFGH/${SECRET}`;
const TOKEN = 'q9Zx81-token-value-kept-secret';
const QUERY = `https://receiver.example.com/in?source=vigil&token=${TOKEN}`;
const hook = (await admin.post(`${CONFIG}/outbound_configs`, { name: 'chat hook', kind: 'webhook', url: HOOK })).body.data;
const query = (await admin.post(`${CONFIG}/outbound_configs`, { name: 'query token', kind: 'webhook', url: QUERY })).body.data;
const plain = (await admin.post(`${CONFIG}/outbound_configs`, { name: 'plain', kind: 'webhook', url: 'https://hooks.example.com/vigil' })).body.data;

t.test('the mask keeps where a URL goes and hides what opens it', async (t) => {
  t.equal(maskUrlCredentials(HOOK), 'https://hooks.example.com/services/T0123ABCD/B0456EFGH/••••');
  t.equal(maskUrlCredentials(QUERY), 'https://receiver.example.com/in?source=vigil&token=••••');
  t.equal(maskUrlCredentials('https://user:pw@x.example.com/a'), 'https://••••@x.example.com/a');
  t.equal(maskUrlCredentials('https://discord.example.com/api/webhooks/1234567890/AbC-dEf_123456789012345678'), 'https://discord.example.com/api/webhooks/1234567890/••••');
  t.equal(maskUrlCredentials('https://hooks.example.com/vigil/v2'), 'https://hooks.example.com/vigil/v2', 'nothing to hide: unchanged');
});

t.test('REST: a read-only key reads them masked, an admin key whole', async (t) => {
  const reader = await org.key(['api:config_read']);
  const listed = await reader.get(`${CONFIG}/outbound_configs`);
  t.equal(listed.status, 200);
  const byId = Object.fromEntries(listed.body.data.map((r: { id: string; url: string }) => [r.id, r.url]));
  t.equal(byId[hook.id], 'https://hooks.example.com/services/T0123ABCD/B0456EFGH/••••');
  t.equal(byId[query.id], 'https://receiver.example.com/in?source=vigil&token=••••');
  t.equal(byId[plain.id], 'https://hooks.example.com/vigil');
  const one = await reader.get(`${CONFIG}/outbound_configs/${hook.id}`);
  t.notOk(JSON.stringify(one.body).includes(SECRET), 'not in a read');
  t.notOk(JSON.stringify(listed.body).includes(TOKEN), 'not in a list');
  t.equal((await admin.get(`${CONFIG}/outbound_configs/${hook.id}`)).body.data.url, HOOK, 'a writer reads it whole');
});

t.test('agent tools: an mcp:read key reads them masked, one that may write them (mcp:admin) whole', async (t) => {
  const read = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => read.close());
  const got = await read.call('get_outbound_config', { id: hook.id });
  t.notOk(got.isError);
  t.equal(got.body.data.url, 'https://hooks.example.com/services/T0123ABCD/B0456EFGH/••••');
  const listed = await read.call('list_outbound_configs', {});
  t.notOk(JSON.stringify(listed.body).includes(SECRET) || JSON.stringify(listed.body).includes(TOKEN));
  const write = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  t.teardown(() => write.close());
  t.equal((await write.call('get_outbound_config', { id: hook.id })).body.data.url, HOOK);
});

t.test('console: a viewer sees them masked on the list and the row page', async (t) => {
  const viewer = await person(vigil, { [org.id]: 'viewer' });
  const web = browserless(vigil.url);
  t.equal((await web.signIn(viewer.email, PASSWORD)).status, 303);
  for (const path of ['/config/outbound_configs', `/config/outbound_configs/${hook.id}`, `/config/outbound_configs/${query.id}`]) {
    const page = await web.get(path);
    t.equal(page.status, 200, path);
    t.notOk(page.text.includes(SECRET) || page.text.includes(TOKEN), `no credential on ${path}`);
  }
  t.match((await web.get(`/config/outbound_configs/${hook.id}`)).text, 'B0456EFGH/••••');
});

t.test('an export never holds them, even for an admin', async (t) => {
  const exported = await admin.get(`${CONFIG}/export?format=hcl`);
  t.equal(exported.status, 200);
  const text = typeof exported.body === 'string' ? exported.body : JSON.stringify(exported.body);
  t.notOk(text.includes(SECRET), 'no webhook secret');
  t.notOk(text.includes(TOKEN), 'no query token');
  t.match(text, /url carries a credential and is not exported/);
  t.match(text, 'https://hooks.example.com/vigil', 'a URL without a credential is exported');
});

t.test('the audit log keeps where a URL goes, never what opens it', async (t) => {
  const moved = `https://hooks.example.com/services/T0123ABCD/B0456EFGH/${SECRET.toLowerCase()}99`;
  t.equal((await admin.put(`${CONFIG}/outbound_configs/${hook.id}`, { url: moved })).status, 200);
  const log = await admin.get(`${CONFIG}/audit_log?limit=1000`);
  t.equal(log.status, 200);
  const text = JSON.stringify(log.body);
  for (const secret of [SECRET, TOKEN, SECRET.toLowerCase()]) t.notOk(text.includes(secret), 'no credential in an entry');
  const entries = log.body.data.filter((e: { row_id: string }) => e.row_id === hook.id);
  const update = entries.find((e: { action: string }) => e.action === 'update');
  t.same(update?.changes?.url, { before: 'https://hooks.example.com/services/T0123ABCD/B0456EFGH/••••', after: 'https://hooks.example.com/services/T0123ABCD/B0456EFGH/••••' });
  const created = entries.find((e: { action: string }) => e.action === 'create');
  t.equal(created?.changes?.url?.after, 'https://hooks.example.com/services/T0123ABCD/B0456EFGH/••••', 'the create too');
});
