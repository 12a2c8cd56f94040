/**
 * POST /api/v1/config/batch (and the tool apply_configuration_batch): many changes in one transaction, all or
 * nothing, every refusal reported, one change id across the audit entries; `dry_run` checks and rolls back.
 */
import t from 'tap';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const BATCH = `${CONFIG}/batch`;

/** Every row of the families a test touches, and the whole audit log: what "exactly as before" compares. */
async function state(api: Client) {
  const [slis, slos, settings, audit] = await Promise.all([
    api.get(`${CONFIG}/slis`), api.get(`${CONFIG}/slos`), api.get(`${CONFIG}/status_page_settings`), api.get(`${CONFIG}/audit_log?limit=1000`),
  ]);
  return { slis: slis.body.data, slos: slos.body.data, settings: settings.body.data, audit: audit.body.data };
}

const sli = (name: string) => ({ family: 'slis', op: 'create', ref: name, body: { name, service: 'checkout', indicator: 'availability' } });

t.test('a batch commits whole: creates refer to earlier ones by ref, and the audit entries share one change id', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key();
  const res = await api.post(BATCH, { changes: [sli('avail'), { family: 'slos', op: 'create', ref: 'slo', body: { name: 'checkout 99.9', sli_id: { $ref: 'avail' }, target_percent: 99.9 } }] });
  t.equal(res.status, 200, 'applied');
  t.equal(res.body.committed, true);
  t.equal(res.body.refused, 0);
  const [made, slo] = res.body.changes;
  t.equal(made.status, 201);
  t.equal(slo.data.sli_id, made.id, 'the $ref became the id the earlier create got');
  const audit = (await api.get(`${CONFIG}/audit_log`)).body.data;
  t.same(audit.map((e: { change_id: string }) => e.change_id), [res.body.change_id, res.body.change_id], 'one entry per row, one change id');
  const single = await api.post(`${CONFIG}/slis`, { name: 'single', service: 'checkout', indicator: 'availability' });
  t.equal(single.status, 201);
  t.equal((await api.get(`${CONFIG}/audit_log`)).body.data[0].change_id, null, 'a single write has none');
});

t.test('a batch refused on its last change leaves the rows and the audit log exactly as before', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key();
  await api.post(`${CONFIG}/slis`, { name: 'existing', service: 'checkout', indicator: 'availability' });
  const before = await state(api);
  const res = await api.post(BATCH, {
    changes: [sli('a'), sli('b'), { family: 'slos', op: 'create', body: { name: 'x', sli_id: { $ref: 'a' }, target_percent: 150 } }],
  });
  t.equal(res.status, 422, 'answered as its refusal');
  t.equal(res.body.error, 'validation_failed');
  t.match(res.body.message, /1 of 3 changes were refused, so nothing changed.*changes\[2\] \(create slos\)/);
  t.equal(res.body.committed, false);
  t.equal(res.body.change_id, null);
  t.equal(res.body.changes[2].error.errors[0].field, 'target_percent', 'the refusal names its field');
  t.same(res.body.errors.map((e: { field: string }) => e.field), ['changes[2].target_percent'], 'and the answer names it where it was sent');
  t.same(await state(api), before, 'nothing changed, nothing audited');
});

t.test('a batch racing a concurrent edit stops on its If-Match and changes nothing', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key();
  const made = await api.post(`${CONFIG}/slis`, { name: 'raced', service: 'checkout', indicator: 'availability' });
  const etag = made.headers.get('etag')!;
  t.equal((await api.put(`${CONFIG}/slis/${made.body.data.id}`, { service: 'payments' })).status, 200, 'someone else edits it');
  const before = await state(api);
  const res = await api.post(BATCH, {
    changes: [sli('new'), { family: 'slis', op: 'update', id: made.body.data.id, if_match: etag, body: { service: 'search' } }],
  });
  t.equal(res.status, 412);
  t.equal(res.body.error, 'precondition_failed');
  t.equal(res.body.changes[0].error, null, 'the first change alone was fine');
  t.equal(res.body.changes[1].error.error, 'precondition_failed');
  t.same(res.body.errors.map((e: { field: string }) => e.field), ['changes[1]']);
  t.same(await state(api), before, 'and it was rolled back with the rest');
});

t.test('a dry run reports every refusal, the deployment-wide slug and the chat secret among them, and commits nothing', async (t) => {
  const other = await vigil.organization('business');
  t.equal((await (await other.key()).put(`${CONFIG}/status_page_settings`, { slug: 'taken-slug' })).status, 200);
  const org = await vigil.organization('business');
  const api = await org.key();
  const before = await state(api);
  const res = await api.post(BATCH, {
    dry_run: true,
    changes: [
      sli('fine'),
      { family: 'chat', op: 'update', body: { workspace_id: 'T0001' } },
      { family: 'status_page_settings', op: 'update', body: { slug: 'taken-slug' } },
      { family: 'slis', op: 'update', id: 'no-such-row', body: { service: 'x' } },
    ],
  });
  t.equal(res.status, 200, 'a dry run answers what it found');
  t.same([res.body.dry_run, res.body.committed, res.body.refused, res.body.change_id], [true, false, 3, null]);
  const [fine, chat, slug, missing] = res.body.changes;
  t.equal(fine.status, 201);
  t.match(chat.error.errors, [{ field: 'bot_token', message: /is required while workspace_id is set/ }]);
  t.match(slug.error.errors, [{ field: 'slug', message: /taken/ }]);
  t.equal(missing.status, 404);
  t.same(await state(api), before, 'nothing was committed');
});

t.test('a natural key taken twice in one batch is answered as the single write answers it, for apply and dry run alike', async (t) => {
  // the first pass of a batch leaves this check to the unique index; the refusal reruns the batch with a savepoint
  // per change, which answers every change: the 409 with the holder, and the others as if alone
  const org = await vigil.organization('business');
  const api = await org.key();
  await api.post(`${CONFIG}/heartbeats`, { name: 'existing', interval_seconds: 60 });
  const before = (await api.get(`${CONFIG}/heartbeats`)).body.data;
  const audit = (await api.get(`${CONFIG}/audit_log?limit=1000`)).body.data;
  const hb = (name: string, interval = 60) => ({ family: 'heartbeats', op: 'create', ref: `${name}-${interval}`, body: { name, interval_seconds: interval } });
  const changes = [hb('a'), hb('b'), hb('a', 120), hb('existing'), hb('c')];
  for (const dryRun of [true, false]) {
    const res = await api.post(BATCH, { changes, ...(dryRun ? { dry_run: true } : {}) });
    t.equal(res.status, dryRun ? 200 : 409, dryRun ? 'a dry run answers what it found' : 'answered as its first refusal');
    t.same([res.body.committed, res.body.refused], [false, 2]);
    t.same(res.body.changes.map((c: { status: number }) => c.status), [201, 201, 409, 409, 201], 'each change answered as it would be alone, in order');
    const [a, , again, existing] = res.body.changes;
    t.equal(again.error.error, 'conflict');
    t.match(again.error.message, /same name already exists/);
    t.equal(again.error.data.id, a.id, 'the 409 names the row the earlier change of the batch made');
    t.equal(existing.error.data.id, before[0].id, 'and the row that was there before');
    t.same((await api.get(`${CONFIG}/heartbeats`)).body.data, before, 'nothing was committed');
    t.same((await api.get(`${CONFIG}/audit_log?limit=1000`)).body.data, audit, 'nothing audited');
  }
  const ok = await api.post(BATCH, { changes: [hb('a'), hb('b'), hb('c')] });
  t.equal(ok.status, 200);
  t.same(ok.body.changes.map((c: { status: number }) => c.status), [201, 201, 201]);
  const entries = (await api.get(`${CONFIG}/audit_log?limit=1000`)).body.data.filter((e: { change_id: string }) => e.change_id === ok.body.change_id);
  t.same(entries.map((e: { row_id: string }) => e.row_id).sort(), ok.body.changes.map((c: { id: string }) => c.id).sort(), 'one audit entry per row');
});

t.test('a batch larger than one multi-row statement writes every row and every audit entry', async (t) => {
  // the first pass holds creates back and writes them as multi-row statements within PostgreSQL's parameter limit
  // (at most 30,000 a statement: 2,727 audit entries of 11 columns), so 2,800 creates take two statements a table
  const org = await vigil.organization('business');
  const api = await org.key();
  const changes = Array.from({ length: 2800 }, (_, i) => ({ family: 'heartbeats', op: 'create', ref: `hb${i}`, body: { name: `job-${i}`, interval_seconds: 60 } }));
  const res = await api.post(BATCH, { changes });
  t.equal(res.status, 200);
  t.equal(res.body.committed, true);
  const exported = (await api.get(`${CONFIG}/export?format=json`)).body;
  t.equal(Object.keys(exported.resource.vigil_heartbeats).length, 2800, 'every row is there');
  const ids = new Set<string>();
  for (let cursor: string | undefined, more = true; more; ) {
    const page = await api.get(`${CONFIG}/audit_log?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    for (const e of page.body.data as { row_id: string; change_id: string }[]) if (e.change_id === res.body.change_id) ids.add(e.row_id);
    cursor = page.body.next_cursor ?? undefined;
    more = Boolean(cursor);
  }
  t.same([...ids].sort(), res.body.changes.map((c: { id: string }) => c.id).sort(), 'one audit entry per row, each under the batch\'s change id');
});

t.test('in a batch, references, positions, upserts and mutes answer as the single writes would, however the changes interleave', async (t) => {
  // the first pass answers repeated lookups from memory and reads past held rows (engine/persistence/pass-memo.ts):
  // each case here is one that memory kept too long, or a read past a row it needed, would answer wrongly
  const org = await vigil.organization('enterprise');
  const api = await org.key();
  const first = await api.post(`${CONFIG}/status_page_components`, { display_name: 'before the batch' });
  t.equal(first.body.data.position, 1);

  const slo = (name: string, sli: string) => ({ family: 'slos', op: 'create', ref: name, body: { name, sli_id: { $ref: sli }, target_percent: 99 } });
  const component = (name: string) => ({ family: 'status_page_components', op: 'create', ref: name, body: { display_name: name } });
  const binding = (region: string, service = 'checkout') => ({ family: 'service_bindings', op: 'update', id: `${service}/prod`, body: { region } });
  const mute = (pattern: string) => ({ family: 'alert_mutes', op: 'create', body: { pattern } });
  const slis = ['a', 'b', 'c'].map(sli);
  const stored = await api.post(`${CONFIG}/slis`, { name: 'stored', service: 'checkout', indicator: 'availability' });
  const res = await api.post(BATCH, {
    changes: [
      ...slis,
      slo('on a', 'a'),
      slo('on b', 'b'), // the second lookup of slis: read once, answered from memory after
      { family: 'slos', op: 'create', ref: 'on stored', body: { name: 'on stored', sli_id: stored.body.data.id, target_percent: 99 } },
      { family: 'slis', op: 'delete', id: stored.body.data.id }, // written: memory of slis is no longer true
      { family: 'slos', op: 'create', ref: 'on deleted', body: { name: 'on deleted', sli_id: stored.body.data.id, target_percent: 99 } },
      component('one'),
      component('two'),
      { family: 'status_page_components', op: 'delete', id: first.body.data.id }, // archived: its position stays taken
      component('three'),
      binding('us-east-1'),
      binding('eu-west-1'), // the row the change before made, held, is read and updated
      binding('us-east-1', 'search'),
      binding('us-east-1', 'cart'),
      binding('ap-south-1'), // read again after other rows were held and written: found, updated
      mute('Disk full'),
      mute('other'),
      mute('DISK FULL'), // the same pattern, lowercased: the mute held first is in force
    ],
  });
  t.equal(res.status, 422, 'answered as its first refusal: the reference');
  const statuses = res.body.changes.map((c: { status: number }) => c.status);
  t.same(statuses.slice(0, 6), [201, 201, 201, 201, 201, 201], 'the slos on created and stored slis go through');
  t.same(statuses[6], 204, 'the stored sli is deleted');
  t.equal(statuses[7], 422, 'a slo on the sli deleted earlier in the batch is refused');
  t.match(res.body.changes[7].error.errors, [{ field: 'sli_id', message: /not an active row of slis/ }]);
  t.same(res.body.changes.slice(8, 12).map((c: { data: { position?: number } | null }) => c.data?.position ?? null), [2, 3, null, 4], 'positions follow the stored row, the archived one still counted');
  t.same(statuses.slice(12, 17), [200, 200, 200, 200, 200], 'an upsert answers 200 as the single PUT does');
  t.same(res.body.changes.slice(12, 17).map((c: { data: { region: string } }) => c.data.region), ['us-east-1', 'eu-west-1', 'us-east-1', 'us-east-1', 'ap-south-1'], 'a later upsert of the same id updates the row the first made');
  t.same(statuses.slice(17), [201, 201, 409], 'a mute in force earlier in the batch holds its pattern');
  t.equal(res.body.changes[19].error.data.id, res.body.changes[17].id, 'the 409 names the mute the batch made');

  // without the refused changes the same batch commits, and reads back as the answers said
  const ok = await api.post(BATCH, {
    changes: [
      ...slis, slo('on a', 'a'), slo('on b', 'b'),
      component('one'), component('two'), { family: 'status_page_components', op: 'delete', id: first.body.data.id }, component('three'),
      binding('us-east-1'), binding('eu-west-1'), binding('us-east-1', 'search'), binding('us-east-1', 'cart'), binding('ap-south-1'), mute('Disk full'), mute('other'),
    ],
  });
  t.equal(ok.status, 200);
  t.same(ok.body.changes.map((c: { status: number }) => c.status), [201, 201, 201, 201, 201, 201, 201, 204, 201, 200, 200, 200, 200, 200, 201, 201]);
  const components = (await api.get(`${CONFIG}/status_page_components?include_archived=true`)).body.data;
  t.same(components.map((c: { display_name: string; position: number }) => [c.display_name, c.position]).sort((a: [string, number], b: [string, number]) => a[1] - b[1]), [['before the batch', 1], ['one', 2], ['two', 3], ['three', 4]]);
  const bindings = (await api.get(`${CONFIG}/service_bindings`)).body.data;
  t.same(bindings.map((b: { id: string; region: string }) => [b.id, b.region]).sort(), [['cart/prod', 'us-east-1'], ['checkout/prod', 'ap-south-1'], ['search/prod', 'us-east-1']], 'one binding a service, as its last change left it');
  const audit = (await api.get(`${CONFIG}/audit_log?limit=1000`)).body.data.filter((e: { change_id: string }) => e.change_id === ok.body.change_id);
  t.equal(audit.length, 16, 'one audit entry per change');
  t.same(audit.filter((e: { family: string }) => e.family === 'service_bindings').map((e: { action: string }) => e.action).sort(), ['create', 'create', 'create', 'update', 'update']);
});

t.test('the batch is checked as a whole before it runs; each change is authorized as its own write', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key();
  const dup = await api.post(BATCH, { changes: [sli('x'), sli('x')] });
  t.equal(dup.status, 422);
  t.same(dup.body.errors.map((e: { field: string }) => e.field), ['changes[1].ref']);
  t.equal((await api.post(BATCH, { changes: [] })).status, 422, 'an empty batch is refused');
  const dangling = await api.post(BATCH, { dry_run: true, changes: [{ family: 'slos', op: 'create', body: { name: 'x', sli_id: { $ref: 'nowhere' }, target_percent: 99 } }] });
  t.match(dangling.body.changes[0].error.errors, [{ field: 'sli_id', message: /no earlier change/ }]);
  const reader = await org.key(['api:config_read']);
  // a batch writes: a read-only key is refused up front, dry run or not (each change would meet that refusal first)
  for (const dry_run of [true, false]) {
    const read = await reader.post(BATCH, { dry_run, changes: [sli('y')] });
    t.equal(read.status, 403, `a read-only key, dry_run ${dry_run}`);
    t.equal(read.body.error, 'read_only_key');
  }
  t.equal((await api.get(`${CONFIG}/slis`)).body.data.length, 0);
});

t.test('the agent tool is the same operation', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key();
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  t.teardown(() => agent.close());
  const ok = await agent.call('apply_configuration_batch', { changes: [sli('tool')] });
  t.equal(ok.isError, false);
  t.equal(ok.body.committed, true);
  const refused = await agent.call('apply_configuration_batch', { changes: [sli('tool2'), sli('tool')] });
  t.equal(refused.isError, true, 'a refused batch is a tool error');
  t.equal((await api.get(`${CONFIG}/slis`)).body.data.length, 1, 'and changed nothing');
});
