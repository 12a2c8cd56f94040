/**
 * One conformance suite for every registered family, fed only by the examples each descriptor carries:
 * create, read, list, 409 on the natural key, 412 on a stale If-Match, 422 for invalid, unknown and
 * read-only fields, secrets never answered, plan refusal, 405 for missing operations, delete.
 * A new family gets all of it by adding its descriptor.
 */
import t, { type Test } from 'tap';
import type { FamilyDescriptor, Row } from '../../engine/descriptor.ts';
import { isReadOnly, isWriteOnly } from '../../engine/fields.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { exampleRows } from '../helpers/example-rows.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

const { resolveRefs, prepareRequired } = exampleRows(vigil);

function secretValues(body: Row): string[] {
  return Object.values(body).filter((v): v is string => typeof v === 'string' && v.length >= 6);
}

/** No secret value anywhere; a write-only field appears at most as an audit marker such as "(set)". */
function assertNoSecrets(t: Test, d: FamilyDescriptor, answer: unknown, secrets: string[]) {
  const text = JSON.stringify(answer);
  t.same(secrets.filter((secret) => text.includes(secret)), [], `${d.name}: no secret value appears in an answer`);
  const answered = Object.entries(d.fields).filter(([, schema]) => isWriteOnly(schema)).flatMap(([name]) =>
    [...text.matchAll(new RegExp(`"${name}":("[^"]*"|[^,}]*)`, 'g'))].map((m) => m[1]!).filter((v) => !['"(set)"', '"(changed)"', '"(cleared)"'].includes(v)).map(() => name));
  t.same(answered, [], `${d.name}: no write-only field is answered`);
}



/** Creates a row the way the family offers: POST, or PUT of a new id where an update of a missing id creates. */
async function createRow(api: Client, d: FamilyDescriptor, body: Row, n: number) {
  if (d.operations.includes('create')) return api.post(`${CONFIG}/${d.name}`, body);
  return api.put(`${CONFIG}/${d.name}/conformance-${n}`, body);
}

function readOnlyField(d: FamilyDescriptor): string | undefined {
  return Object.keys(d.fields).find((f) => isReadOnly(d.fields[f]!));
}

for (const d of families) {
  t.test(d.name, async (t) => {
    const org = await vigil.organization('enterprise');
    const api = await org.key(['api:admin']);
    const path = `${CONFIG}/${d.name}`;
    const secretsOf = (body: Row) => secretValues(Object.fromEntries(Object.entries(body).filter(([k]) => d.fields[k] && isWriteOnly(d.fields[k]!))));

    if (d.kind === 'singleton') {
      const read = await api.get(path);
      t.equal(read.status, 200, 'a singleton reads before anything is stored');
      t.same(read.body.organization, { id: org.id, name: read.body.organization.name, plan: 'enterprise' });
      t.match(read.headers.get('etag'), /^"[\w-]+"$/, 'with a strong ETag');
      if (d.operations.includes('update')) {
        const stale = await api.put(path, d.examples.update, { 'if-match': '"stale"' });
        t.equal(stale.status, 412, 'a stale If-Match is refused');
        t.equal(stale.body.error, 'precondition_failed');
        const updated = await api.put(path, d.examples.update, { 'if-match': read.headers.get('etag')! });
        t.equal(updated.status, 200, 'the example update applies with the current ETag');
        for (const [key, value] of Object.entries(d.examples.update ?? {})) if (!isWriteOnly(d.fields[key]!)) t.same(updated.body.data[key], value, `${key} is stored`);
        assertNoSecrets(t, d, updated.body, secretsOf(d.examples.update ?? {}));
        for (const { body, field } of d.examples.invalid) {
          const refused = await api.put(path, body);
          t.equal(refused.status, 422, `invalid ${field} is refused`);
          t.ok(refused.body.errors?.some((e: { field: string }) => e.field === field), `the refusal names ${field}`);
        }
        const unknown = await api.put(path, { no_such_field: 1 });
        t.equal(unknown.status, 422);
        t.same(unknown.body.errors, [{ field: 'no_such_field', message: `is not a field of ${d.name}` }]);
        const ro = readOnlyField(d);
        if (ro) t.ok((await api.put(path, { [ro]: null })).body.errors?.some((e: { field: string }) => e.field === ro), `read-only ${ro} is refused by name`);
      } else {
        t.equal((await api.put(path, {})).status, 405, 'a read-only singleton refuses PUT with 405');
      }
      t.equal((await api.del(path)).status, 405, 'a singleton cannot be deleted');
      return;
    }

    const list = await api.get(path);
    t.equal(list.status, 200);
    t.same(list.body.data, [], 'a new organization has no rows');
    t.equal(list.body.truncated, false);

    if (!d.operations.includes('create')) {
      t.equal((await api.post(path, {})).status, 405, 'create is not offered');
      if (!d.id?.upsert) return;
    }
    await prepareRequired(api, d);

    const created: Row[] = [];
    for (const [n, example] of d.examples.valid.entries()) {
      const body = await resolveRefs(api, example);
      const made = await createRow(api, d, body, n);
      const upserted = !d.operations.includes('create');
      t.equal(made.status, upserted ? 200 : 201, 'a valid example creates a row');
      t.type(made.body.data.id, 'string');
      t.match(made.headers.get('etag'), /^"[\w-]+"$/, 'with an ETag');
      if (!upserted) t.equal(made.headers.get('location'), `${vigil.url}${path}/${encodeURIComponent(made.body.data.id)}`, 'and a Location');
      assertNoSecrets(t, d, made.body, secretsOf(body));
      for (const [flag, secret] of Object.entries(d.presence ?? {})) if (isWriteOnly(d.fields[secret]!)) t.equal(made.body.data[flag], secret in body, `${flag} tells whether ${secret} is stored`);
      const read = await api.get(`${path}/${encodeURIComponent(made.body.data.id)}`);
      t.equal(read.status, 200);
      t.same(read.body.data, made.body.data, 'reading it back answers the same row');
      t.equal(read.headers.get('etag'), made.headers.get('etag'), 'with the same ETag');
      created.push({ ...made.body.data, etag: made.headers.get('etag'), body });
    }
    const listed = await api.get(path);
    t.equal(listed.body.data.length, created.length, 'the list holds every created row');
    assertNoSecrets(t, d, listed.body, d.examples.valid.flatMap(secretsOf));

    const first = created[0]!;
    if (d.naturalKey?.length && d.operations.includes('create')) {
      const dup = await api.post(path, first.body);
      t.equal(dup.status, 409, 'a second row with the same natural key is refused');
      t.equal(dup.body.error, 'conflict');
      t.equal(dup.body.data?.id, first.id, 'and the answer carries the existing row');
      assertNoSecrets(t, d, dup.body, secretsOf(first.body as Row));
    }

    for (const [n, { body, field }] of d.examples.invalid.entries()) {
      const refused = await createRow(api, d, await resolveRefs(api, body), 100 + n);
      t.equal(refused.status, 422, `invalid ${field} is refused`);
      t.equal(refused.body.error, 'validation_failed');
      t.ok(refused.body.errors?.some((e: { field: string }) => e.field === field), `the refusal names ${field}`);
      assertNoSecrets(t, d, refused.body, secretsOf(body));
    }
    const unknown = await createRow(api, d, { ...(first.body as Row), no_such_field: true }, 200);
    t.equal(unknown.status, 422, 'an unknown field is refused');
    t.ok(unknown.body.errors.some((e: { field: string }) => e.field === 'no_such_field'));
    const ro = readOnlyField(d);
    if (ro) {
      const readOnly = await createRow(api, d, { ...(first.body as Row), [ro]: 'x' }, 201);
      t.equal(readOnly.status, 422, `read-only ${ro} is refused`);
      t.ok(readOnly.body.errors.some((e: { field: string }) => e.field === ro));
    }

    const rowPath = `${path}/${encodeURIComponent(String(first.id))}`;
    if (d.operations.includes('update')) {
      const stale = await api.put(rowPath, d.examples.update, { 'if-match': '"stale"' });
      t.equal(stale.status, 412, 'a stale If-Match is refused');
      t.equal(stale.body.data?.id, first.id, 'with the current row');
      const updated = await api.put(rowPath, d.examples.update, { 'if-match': String(first.etag) });
      t.equal(updated.status, 200, 'the example update applies with the current ETag');
      t.not(updated.headers.get('etag'), first.etag, 'and the ETag follows the configuration');
      const audit = async () => (await api.get(`${CONFIG}/audit_log`)).body.data.length;
      const before = await audit();
      const again = await api.put(rowPath, d.examples.update);
      t.equal(again.status, 200, 'repeating the update answers 200');
      t.equal(await audit(), before, 'and writes and audits nothing');
    } else {
      t.equal((await api.put(rowPath, {})).status, 405, 'update is not offered');
    }

    if (d.operations.includes('delete')) {
      const current = await api.get(rowPath);
      t.equal((await api.del(rowPath, { 'if-match': '"stale"' })).status, 412, 'a stale If-Match stops a delete');
      t.equal((await api.del(rowPath, { 'if-match': current.headers.get('etag')! })).status, 204, 'delete answers 204');
      const after = await api.get(rowPath);
      if (d.archive) t.ok(after.body.data[d.archive.field], 'an archived row still reads');
      else t.equal(after.status, 404, 'a deleted row is gone');
      t.equal((await api.del(`${path}/no-such-row`)).status, 404, 'deleting a missing row is 404');
    }

    const audit = await api.get(`${CONFIG}/audit_log`);
    t.ok(audit.body.data.some((e: Row) => e.family === d.name && e.action === 'create'), 'creates are audited');
    t.equal((await api.put(`${path}/no-such-row`, d.examples.update ?? {})).status, d.id?.upsert ? 200 : d.operations.includes('update') ? 404 : 405);
    assertNoSecrets(t, d, audit.body, d.examples.valid.flatMap(secretsOf));
  });
}

t.test('plan refusals', async (t) => {
  const team = await vigil.organization('team');
  const made = await vigil.operator.post(`/api/admin/v1/organizations/${team.id}/api_keys`, { name: 'k', scopes: ['api:admin'] });
  t.equal(made.status, 403, 'a team plan cannot be given a configuration API key');
  t.equal(made.body.error, 'plan_required');
  for (const d of families.filter((f) => Object.keys(f.features ?? {}).length)) {
    const feature = Object.values(d.features!)[0]!;
    const org = await vigil.organization('business', { [feature]: false });
    const api = await org.key();
    const op = (Object.entries(d.features!).find(([, f]) => f === feature)![0]) as string;
    const answer = op === 'create' ? await api.post(`${CONFIG}/${d.name}`, d.examples.valid[0]) : await api.get(`${CONFIG}/${d.name}`);
    t.equal(answer.status, 403, `${d.name} ${op} needs ${feature}`);
    t.equal(answer.body.error, 'plan_required');
    t.match(answer.body.message, /not included in the business plan/);
  }
});
