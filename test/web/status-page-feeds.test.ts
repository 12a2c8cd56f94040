/**
 * The status page's Atom and RSS feeds over HTTP: content types, one entry per incident and maintenance window,
 * escaped text (the seeded incident's title holds markup), absolute links, no row ids, the one 404. The browser
 * test (status-page-browser.test.ts) parses both with Chromium's XML parser.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { HOSTILE_TITLE, seedStatusPage } from '../helpers/status-page.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const page = await seedStatusPage(vigil, 'acme-feeds');
const base = vigil.running.services.config.publicUrl.replace(/\/+$/, '');
const windowRow = (await page.api.post(`${CONFIG}/status_page_maintenances`, {
  title: 'Upgrade & <restart>', message: 'Line one\u0007 with a bell', component_ids: [page.componentIds.api],
  starts_at: '2026-03-02T02:00:00Z', ends_at: '2026-03-02T03:00:00Z',
})).body.data;

const get = async (path: string) => {
  const res = await fetch(`${vigil.url}${path}`);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};
const count = (text: string, tag: string) => text.split(`<${tag}>`).length - 1;

t.test('Atom: the feed and one entry per incident and maintenance window, text escaped', async (t) => {
  const atom = await get('/status/acme-feeds/feed.atom');
  t.equal(atom.status, 200);
  t.equal(atom.type, 'application/atom+xml; charset=utf-8');
  t.match(atom.text, /^<\?xml version="1\.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom">/);
  t.match(atom.text, new RegExp(`<id>${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/status/acme-feeds</id>`));
  t.match(atom.text, `<link rel="self" type="application/atom+xml" href="${base}/status/acme-feeds/feed.atom"/>`);
  t.equal(count(atom.text, 'entry'), 3, 'two incidents and one window');
  t.match(atom.text, '<title type="text">Investigating: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Checkout &amp; payments</title>');
  t.match(atom.text, 'Maintenance (scheduled): Upgrade &amp; &lt;restart&gt;');
  t.notOk(atom.text.includes(HOSTILE_TITLE), 'the raw markup never appears');
  t.notOk(atom.text.includes('\u0007'), 'a character XML cannot carry is left out');
  t.match(atom.text, /<updated>2026-03-01T12:00:00\.000Z<\/updated>/);
  for (const id of [page.organizationId, windowRow.id, ...Object.values(page.componentIds)]) t.notOk(atom.text.includes(id), `no row id (${id})`);
  // every entry has the elements RFC 4287 requires
  for (const entry of atom.text.split('<entry>').slice(1)) {
    for (const tag of ['id', 'title type="text"', 'updated']) t.ok(entry.includes(`<${tag}>`), `entry has <${tag}>`);
  }
});

t.test('RSS 2.0: a channel with one item per incident and maintenance window', async (t) => {
  const rss = await get('/status/acme-feeds/feed.rss');
  t.equal(rss.status, 200);
  t.equal(rss.type, 'application/rss+xml; charset=utf-8');
  t.match(rss.text, /<rss version="2\.0" xmlns:atom="http:\/\/www\.w3\.org\/2005\/Atom">\n<channel>\n<title>Acme status<\/title>/);
  t.equal(count(rss.text, 'item'), 3);
  t.match(rss.text, /<pubDate>Sun, 01 Mar 2026 12:00:00 \+0000<\/pubDate>/, 'RFC 822 dates');
  t.match(rss.text, '<title>Investigating: &lt;script&gt;');
  t.match(rss.text, `<atom:link href="${base}/status/acme-feeds/feed.rss" rel="self" type="application/rss+xml"/>`);
  const guids = [...rss.text.matchAll(/<guid isPermaLink="false">([^<]+)<\/guid>/g)].map((m) => m[1]);
  t.equal(new Set(guids).size, 3, 'every item has its own guid');
});

t.test('an entry keeps its id when the notice is edited', async (t) => {
  const ids = (text: string) => [...text.matchAll(/<id>([^<]+)<\/id>/g)].map((m) => m[1]).sort();
  const before = ids((await get('/status/acme-feeds/feed.atom')).text);
  vigil.clock.advance(60_000);
  await page.api.put(`${CONFIG}/status_page_maintenances/${windowRow.id}`, { title: 'Upgrade, moved', starts_at: '2026-03-03T02:00:00Z', ends_at: '2026-03-03T03:00:00Z' });
  const after = (await get('/status/acme-feeds/feed.atom')).text;
  t.same(ids(after), before);
  t.match(after, /Upgrade, moved/);
});

t.test('the HTML page links its feeds; an unknown or private page has no feed', async (t) => {
  const html = await get('/status/acme-feeds');
  t.match(html.text, '<link rel="alternate" type="application/atom+xml" title="Acme status (Atom)" href="acme-feeds/feed.atom">');
  t.match(html.text, '<link rel="alternate" type="application/rss+xml" title="Acme status (RSS)" href="acme-feeds/feed.rss">');
  const unknown = await get('/status/nobody-here');
  for (const path of ['/status/nobody-here/feed.atom', '/status/nobody-here/feed.rss', '/status/NOT_A_SLUG/feed.rss']) {
    const answer = await get(path);
    t.equal(answer.status, 404, path);
    t.equal(answer.text, unknown.text, 'the same not-found page');
  }
  await page.api.put(`${CONFIG}/status_page_settings`, { public: false });
  t.equal((await get('/status/acme-feeds/feed.atom')).status, 404, 'a private page has no feed');
  await page.api.put(`${CONFIG}/status_page_settings`, { public: true });
});

t.test('RSS descriptions carry no live markup for a feed reader (issue 35)', async (t) => {
  const { default: Parser } = await import('rss-parser');
  const hostile = await page.api.post(`${CONFIG}/status_page_maintenances`, {
    title: 'Reader test', message: 'See <img src=x onerror=alert(1)> and ]]> <b>bold</b>\n\nSecond & last',
    starts_at: '2026-03-04T02:00:00Z', ends_at: '2026-03-04T03:00:00Z',
  });
  t.equal(hostile.status, 201);
  const feed = await new Parser().parseString((await get('/status/acme-feeds/feed.rss')).text);
  t.ok(feed.items.length >= 4);
  for (const item of feed.items) {
    // what a reader renders as HTML: only the paragraphs and line breaks the feed writes are elements
    const html = item.content ?? '';
    t.notOk(html.replace(/<\/?p>|<br>/g, '').includes('<'), `no live markup in "${item.title}"`);
  }
  const reader = feed.items.find((i) => i.title?.includes('Reader test'))!;
  // the text shown, escaped once for HTML (a named or numeric reference), in its paragraphs
  const lt = '(?:&lt;|&#60;)';
  const gt = '(?:&gt;|&#62;)';
  t.match(reader.content, new RegExp(`^<p>From 2026-03-04T02:00:00\\.000Z to 2026-03-04T03:00:00\\.000Z \\(UTC\\)\\.</p><p>See ${lt}img src=x onerror=alert\\(1\\)${gt} and \\]\\]${gt} ${lt}b${gt}bold${lt}/b${gt}</p><p>Second (?:&amp;|&#38;) last</p>$`));
  const incident = feed.items.find((i) => i.title?.startsWith('Investigating'))!;
  t.match(incident.content, new RegExp(`we are ${lt}b${gt}looking${lt}/b${gt}`));
});
