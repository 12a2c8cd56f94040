/**
 * The Account page in Chromium (no script): at 1280 and 390 px wide, reached from the header, a token made through the
 * form (name typed, organization ticked, ceiling chosen) and shown once, a ceiling above the person's role refused
 * inline with the field named, the list with the token and its Revoke button; each page axe-core clean and without
 * horizontal scrolling. Skipped, saying why, where no Chromium is installed.
 */
import t from 'tap';
import { axe, browserSkip, openBrowser } from '../../helpers/browser.ts';
import { startVigil } from '../../helpers/harness.ts';
import { person, PASSWORD } from '../../helpers/console.ts';
import { connectAgent } from '../../helpers/mcp.ts';

t.test('the Account page in Chromium', { skip: browserSkip() }, async (t) => {
  const vigil = await startVigil();
  t.teardown(() => vigil.close());
  const org = await vigil.organization();
  const other = await vigil.organization();
  const me = await person(vigil, { [org.id]: 'member', [other.id]: 'viewer' });

  const { context, close } = await openBrowser({ viewport: { width: 1280, height: 900 } });
  t.teardown(close);
  const tab = await context.newPage();
  await tab.goto(`${vigil.url}/login?next=%2Fnow`);
  await tab.getByLabel('Email').fill(me.email);
  await tab.getByLabel('Password').fill(PASSWORD);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  const fits = (width: number) => tab.evaluate((w) => document.scrollingElement!.scrollWidth <= w, width);

  for (const width of [1280, 390]) {
    await tab.setViewportSize({ width, height: 900 });
    await tab.goto(`${vigil.url}/now`);
    await tab.getByRole('link', { name: new RegExp(me.email) }).click();
    t.equal(new URL(tab.url()).pathname, '/account', `${width} px: the header's email leads to the Account page`);
    t.equal(await tab.getByRole('heading', { name: 'Personal access tokens' }).count(), 1);
    t.ok(await fits(width), `/account at ${width} px: no horizontal scrolling`);
    t.same(await axe(tab), [], `/account at ${width} px: axe`);

    // a ceiling above my role where I am a viewer: refused, the field named, what was chosen kept
    await tab.getByLabel('Name').fill(`both ${width}`);
    for (const box of await tab.getByRole('checkbox').all()) await box.check();
    await tab.getByLabel('Most it may do').selectOption('member');
    const [refused] = await Promise.all([tab.waitForNavigation(), tab.getByRole('button', { name: 'Make token' }).click()]);
    t.equal(refused?.status(), 422, `${width} px: refused`);
    t.match(await tab.getByRole('alert').innerText(), /above your role/);
    t.equal(await tab.getByLabel('Most it may do').getAttribute('aria-invalid'), 'true');
    t.equal(await tab.getByLabel('Name').inputValue(), `both ${width}`, 'what was typed is kept');
    t.ok(await fits(width), `the refusal at ${width} px: no horizontal scrolling`);
    t.same(await axe(tab), [], `the refusal at ${width} px: axe`);

    // made: a viewer ceiling is within my role everywhere
    await tab.getByLabel('Most it may do').selectOption('viewer');
    const [made] = await Promise.all([tab.waitForNavigation(), tab.getByRole('button', { name: 'Make token' }).click()]);
    t.equal(made?.status(), 200);
    const token = await tab.getByLabel(/^Token/).inputValue();
    t.match(token, /^vigil_pat_/, `${width} px: the token is shown`);
    t.ok(await fits(width), `the new token at ${width} px: no horizontal scrolling`);
    t.same(await axe(tab), [], `the new token at ${width} px: axe`);
    const agent = await connectAgent(vigil.url, token, { 'x-vigil-organization': org.id });
    t.notOk((await agent.call('list_alert_mutes')).isError, 'the token works at the agent-tool endpoint');
    await agent.close();

    await tab.getByRole('link', { name: 'Back to your tokens' }).click();
    t.equal(await tab.getByRole('rowheader', { name: `both ${width}` }).count(), 1, 'listed');
    t.notMatch(await tab.content(), token, 'the list does not hold the token');
    await tab.getByRole('button', { name: `Revoke both ${width}` }).click();
    t.match(await tab.getByRole('status').innerText(), 'The token was revoked');
    t.same(await axe(tab), [], `after a revoke at ${width} px: axe`);
  }
});
