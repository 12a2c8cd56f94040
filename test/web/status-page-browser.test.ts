/**
 * The status page in a real browser: Debian's Chromium driven by playwright-core, with JavaScript switched
 * off (the page needs none), opened through test/helpers/browser.ts (off the network). Skipped, saying why,
 * where no Chromium is installed — which CI counts as a failure. The screenshot lands in test/artifacts/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { browserSkip, openBrowser } from '../helpers/browser.ts';
import { startVigil } from '../helpers/harness.ts';
import { HOSTILE_TITLE, seedStatusPage } from '../helpers/status-page.ts';

t.test('the status page in Chromium', { skip: browserSkip() }, async (t) => {
  const vigil = await startVigil();
  t.teardown(() => vigil.close());
  await seedStatusPage(vigil, 'acme-browser');

  t.test('the page renders without JavaScript and says each status in words', async (t) => {
    const { context, close } = await openBrowser({ javaScriptEnabled: false, viewport: { width: 900, height: 900 } });
    t.teardown(close);
    const tab = await context.newPage();
    const dialogs: string[] = [];
    tab.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const response = await tab.goto(`${vigil.url}/status/acme-browser`);
    t.equal(response?.status(), 200);
    t.equal(await tab.title(), 'Acme status');
    t.equal(await tab.getByRole('heading', { level: 1 }).innerText(), 'Acme status');
    t.same(await tab.getByRole('heading', { level: 2 }).allInnerTexts(), ['Components', 'Current incidents', 'Scheduled maintenance', 'Past incidents']);
    t.equal(await tab.getByRole('main').count(), 1, 'one main landmark');

    const rows = await tab.locator('ul.components > li .row').allInnerTexts();
    t.same(rows.map((r) => r.replace(/\s+/g, ' ').trim()), ['Public API ✕ Disrupted', 'Dashboard ! At risk', 'Documentation']);
    t.notOk((await tab.locator('ul.components').innerText()).includes('Legacy importer'), 'archived component not listed');

    const current = tab.locator('section', { has: tab.getByRole('heading', { name: 'Current incidents' }) });
    t.equal(await current.getByRole('heading', { level: 3 }).innerText(), HOSTILE_TITLE, 'the markup is shown as text');
    t.match(await current.innerText(), /Investigating/);
    t.match(await current.innerText(), /Affects Public API/);
    const past = tab.locator('section', { has: tab.getByRole('heading', { name: 'Past incidents' }) });
    t.match(await past.innerText(), /Importer outage/);
    t.match(await past.innerText(), /Affects Legacy importer/);
    t.match(await tab.locator('.summary').innerText(), /1 open incident/);
    t.equal(await tab.locator('script').count(), 0, 'no script element');
    t.same(dialogs, [], 'nothing ran');

    const dir = join(import.meta.dirname, '..', 'artifacts');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'status-page.png');
    await tab.screenshot({ path: file, fullPage: true });
    t.ok(existsSync(file), `screenshot written to ${file}`);
  });

  t.test('an unknown page shows the not-found page', async (t) => {
    const { context, close } = await openBrowser({ javaScriptEnabled: false });
    t.teardown(close);
    const tab = await context.newPage();
    const response = await tab.goto(`${vigil.url}/status/nobody-here`);
    t.equal(response?.status(), 404);
    t.equal(await tab.getByRole('heading', { level: 1 }).innerText(), 'Status page not found');
  });

  t.test('the not-found page wears the status page\'s look', async (t) => {
    const { context, close } = await openBrowser({ javaScriptEnabled: false });
    t.teardown(close);
    const tab = await context.newPage();
    const look = async (path: string) => {
      await tab.goto(`${vigil.url}${path}`);
      return tab.evaluate(() => {
        const style = (selector: string) => {
          const s = getComputedStyle(document.querySelector(selector)!);
          return [s.fontFamily, s.fontSize, s.color, s.backgroundColor, s.maxWidth, s.marginTop].join(' | ');
        };
        return { body: style('body'), header: style('header'), h1: style('h1') };
      });
    };
    t.same(await look('/status/nobody-here'), await look('/status/acme-browser'));
  });

  t.test('both feeds are well-formed XML to Chromium\'s XML parser, in their own namespaces', async (t) => {
    const { context, close } = await openBrowser();
    t.teardown(close);
    const tab = await context.newPage();
    for (const [path, root, ns, entry] of [
      ['/status/acme-browser/feed.atom', 'feed', 'http://www.w3.org/2005/Atom', 'entry'],
      ['/status/acme-browser/feed.rss', 'rss', null, 'item'],
    ] as const) {
      const text = await (await fetch(`${vigil.url}${path}`)).text();
      const parsed = await tab.evaluate(({ text, entry }) => {
        const doc = new DOMParser().parseFromString(text, 'application/xml');
        const titles = [...doc.getElementsByTagName(entry)].map((e) => e.getElementsByTagName('title')[0]?.textContent ?? null);
        return { errors: doc.getElementsByTagName('parsererror').length, root: doc.documentElement.localName, ns: doc.documentElement.namespaceURI, titles };
      }, { text, entry });
      t.equal(parsed.errors, 0, `${path} parses`);
      t.equal(parsed.root, root);
      t.equal(parsed.ns, ns);
      t.equal(parsed.titles.length, 2, 'one entry per incident');
      t.ok(parsed.titles.includes(`Investigating: ${HOSTILE_TITLE}`), 'the escaped title reads back as the original text');
    }
  });
});
