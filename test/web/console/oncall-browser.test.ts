/**
 * The on-call pages in Chromium (they carry no script): the On call page and a schedule page with its SVG timeline,
 * axe-core clean, and the override form typed into and submitted — a refusal shown inline with what was typed, then
 * a success drawn on the timeline. Skipped, saying why, where no Chromium is installed.
 */
import t from 'tap';
import { axe } from '../../helpers/browser.ts';
import { browserSkip, openBrowser } from '../../helpers/browser.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { PASSWORD } from '../../helpers/console.ts';
import { onCallOrganization } from '../../helpers/oncall.ts';

t.test('the on-call pages in Chromium', { skip: browserSkip() }, async (t) => {
  const vigil = await startVigil();
  t.teardown(() => vigil.close());
  const { api, me, ben } = await onCallOrganization(vigil);
  const schedule = (await api.post(`${CONFIG}/schedules`, {
    name: 'Payments primary', time_zone: 'Europe/Berlin',
    layers: [
      { name: 'Weekdays', participants: [me.email, ben.email], rotation: { unit: 'daily', length: 1 }, handoff: '2026-03-01T09:00', restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:00' }] },
      { name: 'Nights', participants: [ben.email], rotation: { unit: 'weekly', length: 1 }, handoff: '2026-03-01T17:00', restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '17:00', to: '09:00' }] },
    ],
  })).body.data;
  t.ok(schedule?.id, 'schedule seeded');

  const { context, close } = await openBrowser({ viewport: { width: 1280, height: 900 } });
  t.teardown(close);
  const tab = await context.newPage();
  await tab.goto(`${vigil.url}/login?next=%2Foncall`);
  await tab.getByLabel('Email').fill(me.email);
  await tab.getByLabel('Password').fill(PASSWORD);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  t.equal(tab.url(), `${vigil.url}/oncall`);
  t.equal(await tab.getByRole('heading', { name: 'My next shifts' }).count(), 1);
  t.same(await axe(tab), [], '/oncall: no serious or critical violation');

  await tab.getByRole('rowheader').getByRole('link', { name: 'Payments primary' }).click();
  t.equal(await tab.getByRole('img', { name: /Payments primary: who is on call/ }).count(), 1, 'the timeline is an image with a name');
  t.ok(await tab.locator('svg rect').count() > 10, 'shifts are drawn');
  t.same(await axe(tab), [], 'the schedule page: no serious or critical violation');

  await tab.getByLabel('Cover for').fill(ben.email);
  await tab.getByLabel('Start (UTC)').fill('2026-03-03 18:00');
  await tab.getByLabel('End (UTC)').fill('2026-03-03 08:00');
  const [refused] = await Promise.all([tab.waitForNavigation(), tab.getByRole('button', { name: 'Add override' }).click()]);
  t.equal(refused?.status(), 422);
  t.match(await tab.getByRole('alert').innerText(), /end/);
  t.equal(await tab.getByLabel('Start (UTC)').inputValue(), '2026-03-03 18:00', 'what was typed is kept');
  t.same(await axe(tab), [], 'the refusal: no serious or critical violation');

  await tab.getByLabel('End (UTC)').fill('2026-03-03 22:00');
  await tab.getByRole('button', { name: 'Add override' }).click();
  t.match(await tab.getByRole('status').innerText(), 'The override was added.');
  t.equal(await tab.locator('svg title', { hasText: `${me.email}: 2026-03-03 18:00 UTC to 2026-03-03 22:00 UTC` }).count(), 2, 'on the overrides row and the final row');
  const stored = (await api.get(`${CONFIG}/schedule_overrides`)).body.data;
  t.same(stored.map((o: { email: string; replaces: string }) => [o.email, o.replaces]), [[me.email, ben.email]]);
});
