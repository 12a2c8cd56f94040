/**
 * The configuration console, for every registered family, from its descriptor examples alone (like the REST/MCP
 * conformance suite): create through the generated form (filled as a browser without JavaScript would), read it
 * back over REST, edit it, provoke 422 (each invalid example, named next to its field), 409 (a link to the existing
 * row), 412 (both versions, then a deliberate overwrite), delete; a plan refusal names the feature; a viewer gets
 * no buttons and a forged POST is refused; every change is audited with transport console. A new family is covered
 * by adding its descriptor.
 */
import t, { type Test } from 'tap';
import type { FamilyDescriptor, Row } from '../../../engine/descriptor.ts';
import { isWriteOnly, unwrapNullable } from '../../../engine/fields.ts';
import { families } from '../../../resources/index.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { exampleRows } from '../../helpers/example-rows.ts';
import { browserless, person, PASSWORD } from '../../helpers/console.ts';
import { expressible, fill, formIn } from '../../helpers/config-forms.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
/** one person signed in once (sign-ins are rate-limited per address), switched into each family's fresh organization */
const home = await vigil.organization('enterprise');
const admin = await person(vigil, { [home.id]: 'org_admin' });

const sessions = new Map<string, ReturnType<typeof browserless>>();
async function signedIn(who: { email: string }) {
  if (sessions.has(who.email)) return sessions.get(who.email)!;
  const web = browserless(vigil.url);
  const answer = await web.signIn(who.email, PASSWORD);
  if (answer.status !== 303) throw new Error(`sign-in failed: ${answer.status}`);
  sessions.set(who.email, web);
  return web;
}
type Web = Awaited<ReturnType<typeof signedIn>>;

const { resolveRefs, prepareRequired } = exampleRows(vigil);

/** Posts the page's write form with `body` laid over what it shows. */
async function submit(web: Web, page: string, body: Row, override: Record<string, string> = {}) {
  const form = formIn(page);
  if (!form) throw new Error('the page has no write form');
  return web.post(form.action, { ...fill(form, body), ...override });
}

/** What REST should read back: the readable fields sent; text compared without case (prepare hooks lower-case some keys). */
const lower = (v: unknown): unknown => (typeof v === 'string' ? v.toLowerCase() : Array.isArray(v) ? v.map(lower) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, lower(x)])) : v);
const readable = (d: FamilyDescriptor, body: Row) => lower(instants(d, Object.fromEntries(Object.entries(body).filter(([k]) => d.fields[k] && !isWriteOnly(d.fields[k]!))))) as Row;
/** date-time fields as the instant they name: a family may store an instant in UTC (schedule_overrides) or as given */
const instants = (d: FamilyDescriptor, row: Row): Row => Object.fromEntries(Object.entries(row).map(([k, v]) =>
  [k, typeof v === 'string' && d.fields[k] && (unwrapNullable(d.fields[k]!).inner as { format?: string }).format === 'date-time' && !Number.isNaN(Date.parse(v)) ? new Date(v).toISOString() : v]));

/** Posts each invalid example a person could type; the others (a read-only field, a checkbox sent "yes") are REST's to refuse. */
async function refusals(t: Test, web: Web, pagePath: string, d: FamilyDescriptor, resolve: (body: Row) => Promise<Row>) {
  let skipped = 0;
  for (const { body: example, field } of d.examples.invalid) {
    const page = await web.get(pagePath);
    const body = await resolve(example);
    const top = field.split(/[.[]/)[0]!;
    // a blank nullable field means "clear it", a valid value
    const clears = body[top] === '' && d.fields[top] !== undefined && unwrapNullable(d.fields[top]!).nullable;
    if (clears || !expressible(formIn(page.text)!, body, field)) {
      skipped++;
      continue;
    }
    const refused = await submit(web, page.text, body);
    t.equal(refused.status, 422, `invalid ${field} is refused`);
    t.ok(refusalNames(refused.text, field), `the page names ${field}`);
    t.ok(refused.text.includes('aria-invalid="true"'), 'the message sits next to an input');
  }
  if (skipped) t.comment(`${skipped} invalid example(s) cannot be typed into the form (the REST conformance suite refuses them)`);
}
const refusalNames = (text: string, field: string) => text.includes(`>${field}</a>: `) || text.includes(`>${field.replace(/\.([^.[\]]+)/g, '[$1]')}</a>: `);

for (const d of families) {
  t.test(d.name, async (t) => {
    const org = await vigil.organization('enterprise');
    const api = await org.key(['api:admin']);
    const member = await vigil.operator.put(`/api/admin/v1/organizations/${org.id}/members/${admin.id}`, { role: 'org_admin' });
    t.equal(member.status, 200);
    const web = await signedIn(admin);
    const switched = await web.post('/organization', { _csrf: await web.csrf(), organization_id: org.id, next: '/config' });
    t.equal(switched.status, 303, 'switched to the family\'s organization');
    const path = `/config/${d.name}`;
    const rest = `${CONFIG}/${d.name}`;
    const index = await web.get('/config');
    t.equal(index.status, 200);
    t.ok(index.text.includes(`href="${path}"`), '/config links the family');

    if (d.kind === 'singleton') {
      const page = await web.get(path);
      t.equal(page.status, 200, 'the singleton is one page');
      if (!d.operations.includes('update')) {
        t.notOk(formIn(page.text), 'a read-only singleton has no form');
        return;
      }
      await prepareRequired(api, d);
      const stale = await submit(web, page.text, d.examples.update ?? {}, { _etag: '"stale"' });
      t.equal(stale.status, 412, 'a save over a stale ETag is refused');
      t.match(stale.text, /Someone changed this/, 'showing both versions');
      const saved = await submit(web, (await web.get(path)).text, d.examples.update ?? {});
      t.equal(saved.status, 303, `the example update saves: ${saved.status === 303 ? '' : saved.text.match(/<ul>.*?<\/ul>/s)?.[0]}`);
      const read = await api.get(rest);
      t.match(lower(read.body.data), readable(d, d.examples.update ?? {}), 'REST reads what the form saved');
      await refusals(t, web, path, d, async (b) => b);
      const audit = await api.get(`${CONFIG}/audit_log`);
      t.ok(audit.body.data.some((e: Row) => e.family === d.name && e.transport === 'console'), 'audited with transport console');
      return;
    }

    if (!d.operations.includes('create')) {
      t.notMatch((await web.get(path)).text, new RegExp(`href="${path}/new"`), 'no create button when the family has no create');
      return;
    }
    await prepareRequired(api, d);
    const created: { id: string; body: Row }[] = [];
    for (const example of d.examples.valid) {
      const body = await resolveRefs(api, example);
      const form = await web.get(`${path}/new`);
      t.equal(form.status, 200);
      for (const key of Object.keys(body)) {
        if (d.fields[key]) t.ok(new RegExp(`name="${key}(\\[|")`).test(form.text) || form.text.includes(`name="_present[${key}]"`), `the form has an input named ${key}`);
      }
      const made = await submit(web, form.text, body);
      t.equal(made.status, 303, `a valid example creates a row${made.status === 303 ? '' : `: ${made.text.match(/<ul>.*?<\/ul>/s)?.[0]}`}`);
      const id = decodeURIComponent(/\/config\/[^/]+\/([^?]+)/.exec(made.location ?? '')?.[1] ?? '');
      const read = await api.get(`${rest}/${encodeURIComponent(id)}`);
      t.equal(read.status, 200, 'REST reads the row');
      t.match(lower(instants(d, read.body.data)), readable(d, body), 'as the form sent it');
      for (const [flag, secret] of Object.entries(d.presence ?? {})) if (isWriteOnly(d.fields[secret]!)) t.equal(read.body.data[flag], secret in body, `${flag}`);
      created.push({ id, body });
    }
    const first = created[0]!;
    const rowPath = `${path}/${encodeURIComponent(first.id)}`;
    const list = await web.get(path);
    t.ok(list.text.includes(`href="${rowPath}"`), 'the list links each row');

    if (d.naturalKey?.length) {
      const dup = await submit(web, (await web.get(`${path}/new`)).text, first.body);
      t.equal(dup.status, 409, 'a second row with the same natural key is refused');
      t.ok(dup.text.includes(`href="${rowPath}"`), 'naming the existing row with a link');
    }
    await refusals(t, web, `${path}/new`, d, (b) => resolveRefs(api, b));

    if (d.operations.includes('update') && d.examples.update) {
      const page = await web.get(rowPath);
      const stale = await submit(web, page.text, d.examples.update, { _etag: '"stale"' });
      t.equal(stale.status, 412, 'a stale save is refused');
      t.match(stale.text, /Someone changed this/, 'showing both versions');
      const overwrite = await submit(web, stale.text, {});
      t.equal(overwrite.status, 303, 'and saving again from that page overwrites deliberately');
      const updated = await submit(web, (await web.get(rowPath)).text, d.examples.update);
      t.equal(updated.status, 303, `the example update saves${updated.status === 303 ? '' : `: ${updated.text.match(/<ul>.*?<\/ul>/s)?.[0]}`}`);
      t.match(lower((await api.get(`${rest}/${encodeURIComponent(first.id)}`)).body.data), readable(d, d.examples.update), 'REST reads the edit');
    }

    if (d.operations.includes('delete')) {
      const page = await web.get(rowPath);
      const etag = /action="[^"]*\/delete"[^>]*>.*?name="_etag" value="([^"]*)"/s.exec(page.text)?.[1];
      t.ok(etag, 'the row page has a delete button carrying the ETag');
      const gone = await web.post(`${rowPath}/delete`, { _csrf: web.field(page.text, '_csrf'), _etag: (etag ?? '').replace(/&#34;/g, '"') });
      t.equal(gone.status, 303, 'delete');
      const after = await api.get(`${rest}/${encodeURIComponent(first.id)}`);
      if (d.archive) t.ok(after.body.data[d.archive.field], 'archived');
      else t.equal(after.status, 404, 'deleted');
    }
    const audit = await api.get(`${CONFIG}/audit_log`);
    t.ok(audit.body.data.some((e: Row) => e.family === d.name && e.action === 'create' && e.transport === 'console'), 'creates are audited with transport console');
  });
}

t.test('plan refusals name the feature; roles hide buttons, and the server refuses anyway', async (t) => {
  const free = await vigil.organization('free');
  const viewerOrg = await vigil.organization('enterprise');
  const member = await person(vigil, { [free.id]: 'member' });
  const web = await signedIn(member);
  const index = await web.get('/config');
  for (const d of families.filter((f) => f.features?.list)) {
    t.match(index.text, new RegExp(`${d.name}</span> <span class="muted">needs `), `${d.name}: /config says it needs a feature`);
    const refused = await web.get(`/config/${d.name}`);
    t.equal(refused.status, 403, `${d.name}: the page is refused`);
    t.match(refused.text, /is not included in the free plan/);
  }
  const viewer = await person(vigil, { [viewerOrg.id]: 'viewer' });
  const looking = await signedIn(viewer);
  const d = families.find((f) => f.kind === 'collection' && f.operations.includes('create') && !f.features?.create && !f.examples.requires?.length && !f.examples.valid[0]!.toString().includes('$ref'))!;
  const list = await looking.get(`/config/${d.name}`);
  t.notMatch(list.text, /href="\/config\/[^"]+\/new"/, 'a viewer sees no create button');
  const forged = await looking.post(`/config/${d.name}`, { _csrf: looking.field(list.text, '_csrf') });
  t.equal(forged.status, 403, 'and a forged create is refused');
});

/** A fresh organization with the family's prerequisites and its valid examples created over REST, and the admin switched into it. */
async function seeded(t: Test, d: FamilyDescriptor) {
  const org = await vigil.organization('enterprise');
  const api = await org.key(['api:admin']);
  await vigil.operator.put(`/api/admin/v1/organizations/${org.id}/members/${admin.id}`, { role: 'org_admin' });
  const web = await signedIn(admin);
  t.equal((await web.post('/organization', { _csrf: await web.csrf(), organization_id: org.id, next: '/config' })).status, 303);
  await prepareRequired(api, d);
  const ids: string[] = [];
  for (const example of d.examples.valid) {
    const made = await api.post(`${CONFIG}/${d.name}`, await resolveRefs(api, example));
    if (made.status === 201) ids.push(made.body.data.id);
  }
  return { org, api, web, ids };
}

for (const d of families.filter((f) => f.positioned && f.operations.includes('create'))) {
  t.test(`${d.name}: move buttons`, async (t) => {
    const { api, web, ids } = await seeded(t, d);
    t.ok(ids.length >= 2, 'two rows to order');
    const page = await web.get(`/config/${d.name}/${encodeURIComponent(ids[0]!)}`);
    t.match(page.text, /name="direction" value="down"/, 'the row page has move buttons');
    const moved = await web.post(`/config/${d.name}/${encodeURIComponent(ids[0]!)}/move`, { _csrf: web.field(page.text, '_csrf'), direction: 'down' });
    t.equal(moved.status, 303);
    const order = (await api.get(`${CONFIG}/${d.name}`)).body.data.map((r: Row) => r.id);
    t.equal(order.indexOf(ids[0]), 1, 'the row moved down one place, as REST lists it');
    const top = await web.post(`/config/${d.name}/${encodeURIComponent(ids[0]!)}/move`, { _csrf: web.field(page.text, '_csrf'), direction: 'up' });
    t.equal(top.status, 303);
    const already = await web.post(`/config/${d.name}/${encodeURIComponent(ids[0]!)}/move`, { _csrf: web.field(page.text, '_csrf'), direction: 'up' });
    t.equal(already.status, 422, 'moving the top row up is the operation\'s 422');
  });
}

for (const d of families.filter((f) => Object.keys(f.actions ?? {}).length && f.operations.includes('create'))) {
  t.test(`${d.name}: named actions as buttons with their inputs`, async (t) => {
    const { api, web, ids, org } = await seeded(t, d);
    const rowPath = `/config/${d.name}/${encodeURIComponent(ids[0]!)}`;
    const page = await web.get(rowPath);
    for (const [name, action] of Object.entries(d.actions!)) {
      t.ok(page.text.includes(`action="${rowPath}/actions/${name}"`), `${name}: a form for the action`);
      for (const input of Object.keys((action.input as unknown as { properties?: object }).properties ?? {})) t.match(page.text, new RegExp(`name="${input}"`), `${name}: an input for ${input}`);
      const ran = await web.post(`${rowPath}/actions/${name}`, { _csrf: web.field(page.text, '_csrf') });
      t.ok([303, 422].includes(ran.status), `${name} with an empty form: done, or refused by field (${ran.status})`);
      if (ran.status === 422) t.match(ran.text, /aria-invalid="true"|<li><a href="#/, 'the refusal names its fields');
    }
    const audit = await api.get(`${CONFIG}/audit_log`);
    t.ok(audit.body.data.every((e: Row) => !String(e.action).startsWith('action:') || e.transport === 'console'), 'actions run from the console are audited as console');
    const member = await person(vigil, { [org.id]: 'member' });
    const memberWeb = browserless(vigil.url);
    await memberWeb.signIn(member.email, PASSWORD);
    const seen = await memberWeb.get(rowPath);
    for (const [name, action] of Object.entries(d.actions!)) {
      const shown = seen.text.includes(`/actions/${name}"`);
      t.equal(shown, action.role !== 'org_admin', `${name}: shown to a member only when the member's role may run it`);
      if (action.role === 'org_admin') t.equal((await memberWeb.post(`${rowPath}/actions/${name}`, { _csrf: memberWeb.field(seen.text, '_csrf') })).status, 403, `${name}: a forged post is refused`);
    }
  });
}

t.test('a reference field is a picker of the named family\'s rows by name, not a free-text id (issue 35)', async (t) => {
  const withReferences = families.filter((d) => d.references && d.kind === 'collection' && d.operations.includes('create'));
  t.ok(withReferences.length > 0);
  for (const d of withReferences) {
    const org = await vigil.organization('enterprise');
    const api = await org.key(['api:admin']);
    t.equal((await vigil.operator.put(`/api/admin/v1/organizations/${org.id}/members/${admin.id}`, { role: 'org_admin' })).status, 200);
    const web = await signedIn(admin);
    await web.post('/organization', { _csrf: await web.csrf(), organization_id: org.id, next: '/config' });
    for (const [field, ref] of Object.entries(d.references!)) {
      const target = families.find((f) => f.name === ref.family)!;
      await prepareRequired(api, target);
      const { id } = await resolveRefs(api, { id: `$ref:${ref.family}` });
      const row = (await api.get(`${CONFIG}/${ref.family}/${id}`)).body.data;
      const name = target.naturalKey?.length ? target.naturalKey.map((k) => String(row[k])).join(' / ') : String(row.display_name ?? row.name);
      const page = await web.get(`/config/${d.name}/new`);
      t.equal(page.status, 200, `${d.name}`);
      const input = Array.isArray(row) ? `${field}[0]` : field;
      const select = new RegExp(`<select id="f-${field}(?:-0-)?" name="${field}(?:\\[0\\])?"[^>]*>(.*?)</select>`, 's').exec(page.text);
      t.ok(select, `${d.name}.${field} is a select (${input})`);
      t.match(select?.[1] ?? '', `<option value="${id}">${name}</option>`, `${d.name}.${field} offers the ${ref.family} row by its name`);
      t.notMatch(page.text, new RegExp(`<input type="text"[^>]*name="${field}(\\[0\\])?"`), `${d.name}.${field}: no free-text id`);
    }
  }
});
