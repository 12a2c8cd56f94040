/** The public status page over HTTP: its JSON shape, the one 404, nothing private, escaping, caching. */
import http from 'node:http';
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { HOSTILE_TITLE, seedStatusPage } from '../helpers/status-page.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const page = await seedStatusPage(vigil, 'acme-http');

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${vigil.url}${path}`, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

t.test('the JSON page: components in public order with their worst status, open and resolved incidents', async (t) => {
  const moved = await page.api.put(`${CONFIG}/status_page_components/${page.componentIds.docs}`, { move: 'up' });
  t.equal(moved.status, 200);
  const answer = await get('/status/acme-http.json');
  t.equal(answer.status, 200);
  t.match(answer.headers.get('content-type'), /^application\/json/);
  const body = JSON.parse(answer.text);
  t.same(Object.keys(body).sort(), ['components', 'history_days', 'maintenances', 'open_incidents', 'resolved_incidents', 'slug', 'support_url', 'title']);
  t.equal(body.title, 'Acme status');
  t.equal(body.support_url, 'https://help.example.com');
  t.same(body.components, [
    { name: 'Public API', description: 'REST and webhooks', status: 'breaching', note: null },
    { name: 'Documentation', description: null, status: null, note: null },
    { name: 'Dashboard', description: null, status: 'at_risk', note: null },
  ], 'archived component absent; order follows position; no SLO → null');
  t.equal(body.open_incidents.length, 1);
  t.match(body.open_incidents[0].key, /^[0-9a-f]{24}$/, 'an opaque key, not the row id');
  t.same(body.open_incidents[0], {
    key: body.open_incidents[0].key,
    title: HOSTILE_TITLE,
    status: 'investigating',
    impact: 'minor',
    started_at: '2026-03-01T12:00:00.000Z',
    resolved_at: null,
    components: ['Public API'],
    updates: [{ at: '2026-03-01T12:00:00.000Z', status: 'investigating', message: 'Errors at checkout; we are <b>looking</b>.' }],
  });
  t.equal(body.resolved_incidents.length, 1);
  t.same(body.resolved_incidents[0].components, ['Legacy importer'], 'a past incident still names the archived component');
  t.same(body.resolved_incidents[0].updates.map((u: { status: string }) => u.status), ['investigating', 'resolved']);
});

t.test('nothing private: no organization id, no SLO or component or incident ids, no SLO internals', async (t) => {
  const incidents = (await page.api.get(`${CONFIG}/status_page_incidents`)).body.data.map((i: { id: string }) => i.id);
  for (const path of ['/status/acme-http.json', '/status/acme-http']) {
    const { text } = await get(path);
    for (const secret of [page.organizationId, ...page.sloIds, ...Object.values(page.componentIds), ...incidents]) {
      t.notOk(text.includes(secret), `${path} does not show ${secret}`);
    }
    for (const internal of ['error_budget', 'burn_rate', 'target_percent', 'api ok', 'checkout availability', 'organization']) {
      t.notOk(text.includes(internal), `${path} does not show ${internal}`);
    }
  }
});

t.test('escaping: a title with <script> is text in the HTML', async (t) => {
  const { status, text, headers } = await get('/status/acme-http');
  t.equal(status, 200);
  t.match(headers.get('content-type'), /^text\/html/);
  t.notOk(text.includes('<script'), 'no script element at all');
  t.notOk(text.includes('<b>looking'), 'markup in a message is text');
  t.ok(text.includes('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; Checkout &#38; payments'));
  t.match(headers.get('content-security-policy'), /default-src 'none'/);
});

t.test('a private page and an unknown slug answer the same 404', async (t) => {
  const other = await seedStatusPage(vigil, 'acme-private');
  t.equal((await get('/status/acme-private.json')).status, 200);
  t.equal((await other.api.put(`${CONFIG}/status_page_settings`, { public: false })).status, 200);
  for (const suffix of ['', '.json']) {
    const hidden = await get(`/status/acme-private${suffix}`);
    const unknown = await get(`/status/no-such-page${suffix}`);
    t.equal(hidden.status, 404);
    t.equal(unknown.status, 404);
    t.equal(hidden.text, unknown.text, `same body (${suffix || 'html'})`);
    t.equal(hidden.headers.get('content-type'), unknown.headers.get('content-type'));
    t.notOk(hidden.text.includes('acme-private'));
  }
});

t.test('a disabled organization or one whose plan lacks the status page answers the same 404', async (t) => {
  const other = await seedStatusPage(vigil, 'acme-disabled');
  const unknown = await get('/status/no-such-page.json');
  await vigil.operator.patch(`/api/admin/v1/organizations/${other.organizationId}`, { features: { status_page: false } });
  t.same(await get('/status/acme-disabled.json').then((a) => [a.status, a.text]), [404, unknown.text]);
  await vigil.operator.patch(`/api/admin/v1/organizations/${other.organizationId}`, { features: { status_page: true }, disabled: true });
  t.same(await get('/status/acme-disabled.json').then((a) => [a.status, a.text]), [404, unknown.text]);
});

t.test('issue 41: a disabled organization\'s slug answers exactly as an unknown one, on every route of the page', async (t) => {
  const held = await seedStatusPage(vigil, 'acme-held');
  await vigil.operator.patch(`/api/admin/v1/organizations/${held.organizationId}`, { disabled: true });
  const send = async (method: string, path: string) => {
    const res = await fetch(`${vigil.url}${path}`, {
      method, redirect: 'manual', ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=a%40example.com' } : {}),
    });
    const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'date' && name !== 'x-request-id'));
    return { status: res.status, headers, text: await res.text() };
  };
  const routes: [string, string][] = [
    ['GET', ''], ['GET', '.json'], ['GET', '/feed.atom'], ['GET', '/feed.rss'],
    ['POST', '/subscribe'], ['GET', '/confirm?token=spc_x'], ['POST', '/confirm'], ['GET', '/unsubscribe?token=x'], ['POST', '/unsubscribe'],
  ];
  for (const [method, suffix] of routes) {
    const [disabled, unknown] = [await send(method, `/status/acme-held${suffix}`), await send(method, `/status/acme-nobody${suffix}`)];
    t.equal(disabled.status, 404, `${method} ${suffix || '/'}: 404`);
    t.same(disabled, unknown, `${method} ${suffix || '/'}: the same status, headers and body`);
  }
});

t.test('hostile slugs never cause a 500', async (t) => {
  const paths = [
    '/status/..%2F..%2Fetc%2Fpasswd', '/status/%2e%2e', `/status/${'a'.repeat(5000)}`, `/status/${'a'.repeat(64)}.json`,
    '/status/%E0%A4%A', '/status/%C3%A9cole', '/status/ACME-HTTP', '/status/acme-http%00', "/status/a'%20or%201=1--",
    '/status/.json', '/status/acme-http.json.json', '/status/%F0%9F%98%80.json', '/status/-acme',
  ];
  for (const path of paths) {
    const answer = await get(path);
    // fetch() resolves /status/%2e%2e to / (a dot segment), which is the console's redirect to /board
    t.equal(answer.status, path === '/status/%2e%2e' ? 303 : 404, path.slice(0, 60));
  }
});

/** fetch() adds `Cache-Control: no-cache` to a conditional request (the Fetch standard), which forbids a 304: a browser revalidating does not. */
function revalidate(path: string, etag: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(`${vigil.url}${path}`, { headers: { 'if-none-match': etag } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    }).on('error', reject);
  });
}

t.test('caching: a short max-age and an ETag that answers 304', async (t) => {
  const first = await get('/status/acme-http.json');
  t.match(first.headers.get('cache-control'), /max-age=30/);
  const etag = first.headers.get('etag')!;
  t.ok(etag);
  t.equal(await revalidate('/status/acme-http.json', etag), 304);
  await page.api.put(`${CONFIG}/status_page_components/${page.componentIds.docs}`, { description: 'guides' });
  t.equal(await revalidate('/status/acme-http.json', etag), 200, 'a change is served at once to a revalidating client');
});

t.test('auto-refresh only when asked, within bounds', async (t) => {
  t.notOk((await get('/status/acme-http')).text.includes('http-equiv="refresh"'));
  t.ok((await get('/status/acme-http?refresh=60')).text.includes('<meta http-equiv="refresh" content="60">'));
  t.ok((await get('/status/acme-http?refresh=1')).text.includes('content="30"'), 'at least 30 seconds');
  t.notOk((await get('/status/acme-http?refresh=soon')).text.includes('http-equiv="refresh"'));
});

t.test('history: incidents resolved longer ago than history_days leave the page; open ones stay', async (t) => {
  await page.api.put(`${CONFIG}/status_page_settings`, { history_days: 7 });
  vigil.clock.advance(8 * 86_400_000);
  t.teardown(() => vigil.clock.advance(-8 * 86_400_000));
  const body = JSON.parse((await get('/status/acme-http.json')).text);
  t.equal(body.history_days, 7);
  t.equal(body.resolved_incidents.length, 0);
  t.equal(body.open_incidents.length, 1);
  t.ok((await get('/status/acme-http')).text.includes('No incidents resolved in the last 7 days.'));
});
