/**
 * `npm run docs:screenshots`: the console's screens as docs/console.md shows them, taken with playwright-core and
 * Debian's Chromium (test/helpers/browser.ts: off the network, JavaScript off as the console needs none) from a
 * throwaway Vigil (embedded PGlite, the tests' harness and its fixed clock) seeded through its public surfaces: cards
 * through the tickets webhook, a deployment, alerts through the metric-dashboard webhook, an incident acknowledged
 * and noted by a person in the console. Writes docs/screenshots/<screen>.png at 1280x800 (the viewport only, so
 * each stays small).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openBrowser } from '../helpers/browser.ts';
import { board, closeBoards } from '../helpers/board.ts';
import { person, PASSWORD } from '../helpers/console.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { alertmanager } from '../helpers/outbound.ts';
import { typeInto } from '../helpers/config-forms.ts';
import teams from '../../resources/teams.ts';

const OUT = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
mkdirSync(OUT, { recursive: true });

const vigil = await startVigil();
try {
  const ops = await board(vigil, { name: 'Payments Platform' });
  const webhook = (segment: string, body: unknown) =>
    fetch(`${vigil.url}/webhooks/${segment}/${ops.token}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'screenshots' }, body: JSON.stringify(body) });
  const cards = [
    { title: 'Refunds failing for EUR', description: 'Since the 12:00 deploy, every EUR refund answers 502.\nRollback is being prepared.', labels: ['payments', 'p1'], service: 'refunds', priority: 'urgent' },
    { title: 'Checkout p99 above SLO', labels: ['perf'], service: 'checkout', priority: 'high' },
    { title: 'Rotate the card vault certificate', labels: ['security'], service: 'vault' },
    { title: 'Flaky search suggestions', labels: ['search'], service: 'search', priority: 'low' },
    { title: 'Ledger export slow at month end', labels: ['perf', 'ledger'], service: 'ledger' },
    { title: 'Dashboard for refund error budget', labels: ['slo'], service: 'refunds' },
  ];
  const keys: string[] = [];
  for (const card of cards) keys.push((await ops.open(card)).body.key);
  await ops.update(keys[1]!, { status: 'in_progress' });
  await ops.update(keys[2]!, { status: 'todo' });
  await ops.update(keys[4]!, { status: 'blocked' });
  await ops.update(keys[5]!, { status: 'done' });
  await ops.comment(keys[0]!, { body: 'Rollback of v7 started.', author: 'dana@example.com' });
  await webhook('deployments', { service: 'refunds', environment: 'production', version: 'v7', previous_version: 'v6', deployed_by: 'ci-bot', description: 'Currency rounding change' });
  await webhook('deployments', { service: 'checkout', environment: 'production', version: 'v112', previous_version: 'v111', deployed_by: 'ci-bot' });
  vigil.clock.advance(10 * 60_000);
  if ((await ops.api.put(`${CONFIG}/organization_settings`, { auto_open_incidents: true, timezone: 'Europe/Berlin' })).status !== 200) throw new Error('settings');
  await webhook('metric-dashboard', alertmanager([
    { name: 'Refunds5xx', service: 'refunds', severity: 'critical' },
    { name: 'CheckoutLatency', service: 'checkout', severity: 'warning' },
    { name: 'DiskAlmostFull', service: 'ledger', severity: 'high' },
  ]));
  const alerts = (await ops.api.get(`${CONFIG}/alerts`)).body.data as { id: string; title: string; incident_id: string | null }[];
  const refunds = alerts.find((a) => a.title === 'Refunds5xx')!;
  const member = await person(vigil, { [ops.id]: 'member' }, 'dana@example.com');

  const { context, close } = await openBrowser({ javaScriptEnabled: false, viewport: { width: 1280, height: 800 } });
  try {
    const tab = await context.newPage();
    const shot = (name: string) => tab.screenshot({ path: `${OUT}${name}.png` });
    await tab.goto(`${vigil.url}/login`);
    await tab.getByLabel('Email').fill(member.email);
    await shot('sign-in');
    await tab.getByLabel('Password').fill(PASSWORD);
    await tab.getByRole('button', { name: 'Sign in' }).click();
    // the landing page, and the same at a phone's width
    await shot('now');
    await tab.setViewportSize({ width: 390, height: 844 });
    await shot('now-phone');
    await tab.setViewportSize({ width: 1280, height: 800 });
    await tab.goto(`${vigil.url}/board`);
    await shot('board');
    await tab.goto(`${vigil.url}/board/${keys[0]}`);
    await shot('card');
    // a person's actions, taken in the console, so the alert and incident pages show them
    await tab.goto(`${vigil.url}/incidents/${refunds.incident_id}`);
    await tab.getByRole('textbox', { name: 'Note' }).fill('Rolling back v7; refunds queue drained by hand meanwhile.');
    await tab.getByRole('button', { name: 'Add note' }).click();
    await tab.getByRole('button', { name: 'Acknowledge', exact: true }).click();
    await tab.goto(`${vigil.url}/alerts`);
    await shot('alerts');
    await tab.goto(`${vigil.url}/alerts/${refunds.id}`);
    await shot('alert');
    await tab.goto(`${vigil.url}/incidents`);
    await shot('incidents');
    await tab.goto(`${vigil.url}/incidents/${refunds.incident_id}`);
    await shot('incident');
    await tab.goto(`${vigil.url}/deployments`);
    await shot('deployments');
    await tab.goto(`${vigil.url}/deliveries`);
    await shot('deliveries');
    // the configuration pages (generated from the descriptors): a family's list, a refused form, a conflict; the
    // person made an org admin first, as writing some families needs
    await vigil.operator.put(`/api/admin/v1/organizations/${ops.id}/members/${member.id}`, { role: 'org_admin' });
    for (const name of ['Payments', 'Platform', 'Storage', 'Search']) await ops.api.post(`${CONFIG}/${teams.name}`, { name, description: `${name.toLowerCase()} on-call` });
    await tab.goto(`${vigil.url}/config`);
    await shot('config');
    await tab.goto(`${vigil.url}/config/${teams.name}`);
    await shot('config-list');
    await tab.goto(`${vigil.url}/config/${teams.name}/new`);
    await typeInto(tab, { name: '', description: 'checkout on-call', timezone: 'Mars/Olympus' });
    await tab.getByRole('button', { name: 'Create' }).click();
    await shot('config-refusal');
    await tab.goto(`${vigil.url}/config/${teams.name}/new`);
    await typeInto(tab, { name: 'Payments', description: 'a second payments team' });
    await tab.getByRole('button', { name: 'Create' }).click();
    await shot('config-conflict');
  } finally {
    await close();
  }
  process.stdout.write(`screenshots written to ${OUT}\n`);
} finally {
  await closeBoards();
  await vigil.close();
}
