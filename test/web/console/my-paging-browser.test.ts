/**
 * My paging in Chromium (no script): at 1280 and 390 px wide, axe-core clean and no horizontal scrolling, with
 * methods and rules listed, after a refusal, and after a method is added and a rule made by typing into the forms.
 * Skipped, saying why, where no Chromium is installed.
 */
import t from 'tap';
import { axe, browserSkip, openBrowser } from '../../helpers/browser.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { person, PASSWORD } from '../../helpers/console.ts';

t.test('My paging in Chromium', { skip: browserSkip() }, async (t) => {
  const vigil = await startVigil();
  t.teardown(() => vigil.close());
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const me = await person(vigil, { [org.id]: 'member' });
  const seeded = await api.post(`${CONFIG}/contact_methods`, { email: me.email, type: 'sms', name: 'phone', address: '+14155552671' });
  t.equal(seeded.status, 201);

  const { context, close } = await openBrowser({ viewport: { width: 1280, height: 900 } });
  t.teardown(close);
  const tab = await context.newPage();
  await tab.goto(`${vigil.url}/login?next=%2Fpaging`);
  await tab.getByLabel('Email').fill(me.email);
  await tab.getByLabel('Password').fill(PASSWORD);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  t.equal(tab.url(), `${vigil.url}/paging`);

  await tab.getByLabel('Type').selectOption('ntfy');
  await tab.getByLabel('Name').fill('push');
  await tab.getByLabel('Address').fill('https://192.168.0.9/pages');
  const [refused] = await Promise.all([tab.waitForNavigation(), tab.getByRole('button', { name: 'Add contact method' }).click()]);
  t.equal(refused?.status(), 422);
  t.match(await tab.getByRole('alert').innerText(), /address/);
  t.equal(await tab.getByLabel('Address').inputValue(), 'https://192.168.0.9/pages', 'what was typed is kept');
  for (const width of [1280, 390]) {
    await tab.setViewportSize({ width, height: 900 });
    t.ok(await tab.evaluate((w) => document.scrollingElement!.scrollWidth <= w, width), `the refusal at ${width} px: no horizontal scrolling`);
    t.same(await axe(tab), [], `the refusal at ${width} px: axe`);
  }

  await tab.setViewportSize({ width: 1280, height: 900 });
  await tab.getByLabel('Address').fill('https://ntfy.example.com/my-pages');
  await tab.getByRole('button', { name: 'Add contact method' }).click();
  t.match(await tab.getByRole('status').innerText(), 'The contact method was added.');
  await tab.getByLabel('Contact method', { exact: true }).selectOption({ label: 'push (ntfy push)' });
  await tab.getByLabel('Minutes after I am paged').fill('2');
  await tab.getByRole('button', { name: 'Add rule' }).click();
  t.match(await tab.getByRole('status').innerText(), 'The notification rule was added.');
  const rules = (await api.get(`${CONFIG}/notification_rules`)).body.data;
  t.same(rules.map((r: { email: string; delay_minutes: number }) => [r.email, r.delay_minutes]), [[me.email, 2]]);
  for (const width of [1280, 390]) {
    await tab.setViewportSize({ width, height: 900 });
    await tab.goto(`${vigil.url}/paging`);
    t.ok(await tab.evaluate((w) => document.scrollingElement!.scrollWidth <= w, width), `/paging at ${width} px: no horizontal scrolling`);
    t.same(await axe(tab), [], `/paging at ${width} px: axe`);
  }
});
