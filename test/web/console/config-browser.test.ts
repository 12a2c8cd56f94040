/**
 * The configuration console in Chromium (the pages carry no script), for representative families
 * chosen by shape from the descriptors — a singleton, a collection with a secret, a collection with a list or nested
 * field: create through the form by typing into its labelled inputs, read it back over REST, a refusal next to its
 * field, a conflict linking the existing row, a stale save showing both versions; axe-core on every generated page
 * finds no serious or critical violation. Skipped, saying why, where no Chromium is installed.
 */
import t from 'tap';
import type { FamilyDescriptor, Row } from '../../../engine/descriptor.ts';
import { isWriteOnly } from '../../../engine/fields.ts';
import { families } from '../../../resources/index.ts';
import { axe } from '../../helpers/browser.ts';
import { browserSkip, openBrowser } from '../../helpers/browser.ts';
import { expressible, formIn, typeInto } from '../../helpers/config-forms.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { person, PASSWORD } from '../../helpers/console.ts';

const plain = (d: FamilyDescriptor) => !d.examples.requires?.length && !d.examples.users?.length && !JSON.stringify(d.examples.valid).includes('$ref:');
const arraysShort = (body: Row) => Object.values(body).every((v) => !Array.isArray(v) || v.length <= 1);
const singleton = families.find((d) => d.kind === 'singleton' && d.operations.includes('update') && plain(d) && d.examples.update && !d.features?.update);
const collections = families.filter((d) => d.kind === 'collection' && d.operations.includes('create') && d.operations.includes('update') && plain(d) && d.naturalKey?.length);
const withSecret = collections.find((d) => Object.values(d.fields).some(isWriteOnly) && d.examples.valid.some(arraysShort));
const nested = collections.find((d) => d !== withSecret && d.examples.valid.some((b) => arraysShort(b) && Object.values(b).some((v) => v !== null && typeof v === 'object')));

t.test('the configuration console in Chromium', { skip: browserSkip() }, async (t) => {
  const vigil = await startVigil();
  t.teardown(() => vigil.close());
  const org = await vigil.organization('enterprise');
  const api = await org.key(['api:admin']);
  const admin = await person(vigil, { [org.id]: 'org_admin' });
  // scripts on, only so axe-core can run in the page: the pages carry none (CSP script-src 'none'), so they behave as without
  const { context, close } = await openBrowser({ viewport: { width: 1280, height: 900 } });
  t.teardown(close);
  const tab = await context.newPage();
  await tab.goto(`${vigil.url}/login?next=%2Fconfig`);
  await tab.getByLabel('Email').fill(admin.email);
  await tab.getByLabel('Password').fill(PASSWORD);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  t.equal(tab.url(), `${vigil.url}/config`);
  t.same(await axe(tab), [], '/config: no serious or critical violation');
  t.ok(singleton && withSecret && nested, `representatives: ${singleton?.name}, ${withSecret?.name}, ${nested?.name}`);

  t.test(`a singleton (${singleton!.name}) as one form, with a stale save`, async (t) => {
    const d = singleton!;
    await tab.goto(`${vigil.url}/config/${d.name}`);
    t.same(await axe(tab), [], 'the form page');
    // someone else saves meanwhile
    t.equal((await api.put(`${CONFIG}/${d.name}`, d.examples.update)).status, 200);
    await typeInto(tab, d.examples.update!);
    const stale = await Promise.all([tab.waitForNavigation(), tab.getByRole('button', { name: 'Save' }).click()]);
    t.equal(stale[0]?.status(), 412, 'a save over a stale ETag is refused');
    t.match(await tab.getByRole('alert').first().innerText(), /Someone changed this/);
    t.same(await axe(tab), [], 'the stale-save page');
    await tab.getByRole('button', { name: 'Overwrite with mine' }).click();
    t.match(await tab.getByRole('status').innerText(), 'Saved.');
  });

  for (const d of [withSecret!, nested!]) {
    t.test(`a collection (${d.name}): create, read back, refuse, conflict`, async (t) => {
      const example = d.examples.valid.find(arraysShort)!;
      await tab.goto(`${vigil.url}/config/${d.name}`);
      t.same(await axe(tab), [], 'the list page');
      await tab.getByRole('link', { name: /^New / }).click();
      t.same(await axe(tab), [], 'the create form');
      for (const key of d.naturalKey!) t.equal(await tab.getByLabel(key.replace(/_/g, ' '), { exact: true }).count(), 1, `${key} is labelled`);
      await typeInto(tab, example);
      await tab.getByRole('button', { name: 'Create' }).click();
      t.match(await tab.getByRole('status').innerText(), 'Created.');
      const id = decodeURIComponent(new URL(tab.url()).pathname.split('/')[3]!);
      const read = await api.get(`${CONFIG}/${d.name}/${encodeURIComponent(id)}`);
      t.equal(read.status, 200, 'REST reads the row the form created');
      for (const secret of Object.keys(d.fields).filter((f) => isWriteOnly(d.fields[f]!))) {
        if (typeof example[secret] === 'string') t.notOk((await tab.content()).includes(example[secret] as string), `${secret} is never shown`);
      }
      t.same(await axe(tab), [], 'the row page');

      await tab.goto(`${vigil.url}/config/${d.name}/new`);
      await typeInto(tab, example);
      const dup = await Promise.all([tab.waitForNavigation(), tab.getByRole('button', { name: 'Create' }).click()]);
      t.equal(dup[0]?.status(), 409, 'the same natural key again is a conflict');
      t.equal(await tab.getByRole('alert').getByRole('link').first().getAttribute('href'), `/config/${d.name}/${encodeURIComponent(id)}`, 'linking the existing row');
      t.same(await axe(tab), [], 'the conflict page');

      const form = formIn(await tab.content())!;
      const refusable = d.examples.invalid.find(({ body, field }) => expressible(form, body, field) && body[field] !== '');
      if (refusable) {
        await tab.goto(`${vigil.url}/config/${d.name}/new`);
        await typeInto(tab, refusable.body);
        const refused = await Promise.all([tab.waitForNavigation(), tab.getByRole('button', { name: 'Create' }).click()]);
        t.equal(refused[0]?.status(), 422, `invalid ${refusable.field} is refused`);
        t.ok(await tab.locator('[aria-invalid="true"]').count() > 0, 'the message sits next to its input');
        t.same(await axe(tab), [], 'the refusal page');
      }
    });
  }
});
