/**
 * The console in a real browser (Debian's Chromium driven by playwright-core, off the network; test/helpers/browser.ts)
 * with JavaScript switched off, as the pages need none: sign in; open the URL a tickets webhook answered and see the
 * card; move it and read the new status over REST; a viewer sees no action buttons and a forged POST is refused;
 * sign-out ends the session; no secret in any page source; axe-core on every page finds no serious or critical
 * violation. Skipped, saying why, where no Chromium is installed. Screenshots land in test/artifacts/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { BrowserContext, Page } from 'playwright-core';
import { axeViolations, browserSkip, openBrowser } from '../../helpers/browser.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { board, closeBoards } from '../../helpers/board.ts';
import { person, PASSWORD } from '../../helpers/console.ts';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'artifacts');

async function signIn(context: BrowserContext, base: string, email: string, next?: string): Promise<Page> {
  const tab = await context.newPage();
  await tab.goto(`${base}/login${next ? `?next=${encodeURIComponent(next)}` : ''}`);
  await tab.getByLabel('Email').fill(email);
  await tab.getByLabel('Password').fill(PASSWORD);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  return tab;
}

t.test('the console in Chromium', { skip: browserSkip() }, async (t) => {
  const vigil = await startVigil();
  t.teardown(async () => {
    await closeBoards();
    await vigil.close();
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  const ops = await board(vigil, { name: 'Payments Platform' });
  const opened = await ops.open({ title: 'Refunds failing for EUR', description: 'Since the 12:00 deploy.\nSee the run.', labels: ['payments', 'p1'], service: 'refunds' });
  t.equal(opened.status, 201);
  await fetch(`${vigil.url}/webhooks/deployments/${ops.token}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'browser-test' },
    body: JSON.stringify({ service: 'refunds', environment: 'production', version: 'v7', deployed_by: 'ci' }),
  });
  // an alert that opens an incident, for the alert and incident pages
  t.equal((await ops.api.put(`${CONFIG}/organization_settings`, { auto_open_incidents: true })).status, 200);
  const fired = await fetch(`${vigil.url}/webhooks/metric-dashboard/${ops.token}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'browser-test' },
    body: JSON.stringify({ status: 'firing', alerts: [{ status: 'firing', fingerprint: 'refunds-5xx', labels: { alertname: 'Refunds5xx', severity: 'critical', service: 'refunds' }, annotations: { summary: 'Refund API answering 5xx' } }] }),
  });
  t.equal(fired.status, 200);
  const alert = (await ops.api.get(`${CONFIG}/alerts?service=refunds`)).body.data[0];
  t.ok(alert?.incident_id, 'the alert opened an incident');
  const member = await person(vigil, { [ops.id]: 'member' });
  const viewer = await person(vigil, { [ops.id]: 'viewer' });
  const cardUrl: string = opened.body.url;
  const sources: string[] = [];

  t.test('sign in, open the card by the URL the webhook answered, move it; REST reads the move', async (t) => {
    const { context, close } = await openBrowser({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    t.teardown(close);
    // the link from chat, opened while signed out, comes back to the card after sign-in
    const tab = await context.newPage();
    await tab.goto(cardUrl);
    t.match(tab.url(), `${vigil.url}/login?next=`);
    await tab.close();
    const signedIn = await signIn(context, vigil.url, member.email, new URL(cardUrl).pathname);
    t.equal(signedIn.url(), cardUrl, 'back at the card');
    t.equal(await signedIn.getByRole('heading', { level: 1 }).innerText(), `${opened.body.key} Refunds failing for EUR`);
    t.match(await signedIn.locator('dl.facts').innerText(), /Service\s+refunds/);
    t.match(await signedIn.locator('dl.facts').innerText(), /Status\s+Triage/);
    sources.push(await signedIn.content());
    await signedIn.screenshot({ path: join(ARTIFACTS, 'console-card.png'), fullPage: true });

    await signedIn.getByLabel('Status').selectOption('in_progress');
    await signedIn.getByRole('button', { name: 'Move' }).click();
    t.match(await signedIn.getByRole('status').innerText(), 'The card was moved.');
    t.match(await signedIn.locator('dl.facts').innerText(), /Status\s+In progress/);
    const rest = await ops.api.get(`${CONFIG}/cards/${opened.body.key}`);
    t.equal(rest.body.data.status, 'in_progress', 'REST reads the new status');

    await signedIn.getByRole('textbox', { name: 'Comment' }).fill('Rolling back v7.');
    await signedIn.getByRole('button', { name: 'Comment' }).click();
    t.match(await signedIn.locator('ol.comments').innerText(), 'Rolling back v7.');

    for (const page of ['/board', '/deployments', '/deliveries']) {
      await signedIn.goto(`${vigil.url}${page}`);
      sources.push(await signedIn.content());
      await signedIn.screenshot({ path: join(ARTIFACTS, `console${page.replace('/', '-')}.png`), fullPage: true });
    }
    t.match(await signedIn.locator('main').innerText(), /tickets/);
    await signedIn.goto(`${vigil.url}/board`);
    t.match(await signedIn.getByRole('region', { name: /In progress/ }).innerText(), opened.body.key);

    // sign-out ends the session: the same cookie, kept by this browser, no longer opens a page
    const cookie = (await context.cookies()).find((c) => c.name === 'vigil_session')!;
    await signedIn.getByRole('button', { name: 'Sign out' }).click();
    t.match(signedIn.url(), `${vigil.url}/login`);
    await context.addCookies([cookie]);
    await signedIn.goto(`${vigil.url}/board`);
    t.match(signedIn.url(), `${vigil.url}/login?next=%2Fboard`, 'the old cookie is signed out');
  });

  t.test('a viewer sees no action buttons; a forged POST is refused', async (t) => {
    const { context, close } = await openBrowser({ javaScriptEnabled: false });
    t.teardown(close);
    const tab = await signIn(context, vigil.url, viewer.email, new URL(cardUrl).pathname);
    t.equal(tab.url(), cardUrl);
    t.equal(await tab.getByRole('button', { name: 'Move' }).count(), 0);
    t.equal(await tab.getByRole('button', { name: 'Assign' }).count(), 0);
    t.equal(await tab.getByRole('button', { name: 'Comment' }).count(), 0);
    t.equal(await tab.getByRole('button', { name: 'Sign out' }).count(), 1);
    sources.push(await tab.content());
    const csrf = await tab.locator('input[name="_csrf"]').first().getAttribute('value');
    const forged = await context.request.post(`${vigil.url}/board/${opened.body.key}/move`, { form: { _csrf: csrf!, status: 'done' }, maxRedirects: 0 });
    t.equal(forged.status(), 403, 'refused by the operation');
    t.equal((await ops.api.get(`${CONFIG}/cards/${opened.body.key}`)).body.data.status, 'in_progress', 'unchanged');
  });

  t.test('no secret in any page source', async (t) => {
    const secrets = [ops.token, ops.api.token, PASSWORD];
    t.ok(sources.length >= 5);
    for (const source of sources) for (const secret of secrets) t.notOk(source.includes(secret), 'no secret');
  });

  t.test('axe-core: no serious or critical violation on any page', async (t) => {
    const { context, close } = await openBrowser({ viewport: { width: 1280, height: 900 } });
    t.teardown(close);
    t.same(await axeViolations(context, `${vigil.url}/login`), [], '/login');
    const link = await vigil.operator.post(`/api/admin/v1/users/${viewer.id}/sign_in_link`);
    t.same(await axeViolations(context, link.body.url), [], 'the sign-in link page');
    t.same(await axeViolations(context, `${vigil.url}/status/none-here`), [], "the status page's not-found page");
    const tab = await signIn(context, vigil.url, member.email);
    await tab.close();
    const pages = [
      '/board', new URL(cardUrl).pathname, '/board?status=in_progress', '/deployments', '/deliveries', '/board/NOPE-9',
      '/alerts', '/alerts?status=resolved', `/alerts/${alert.id}`, '/incidents', `/incidents/${alert.incident_id}`, '/incidents/not-an-id',
    ];
    for (const page of pages) {
      t.same(await axeViolations(context, `${vigil.url}${page}`), [], page);
    }
  });
});
