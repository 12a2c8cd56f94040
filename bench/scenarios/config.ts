/**
 * `read` and `update`: Vigil's authenticated read by id and update (with its audit entry) of ai_providers rows
 * through the configuration API, against bench/servers/bare.ts: one primary-key select, and the same transaction
 * an update runs (begin, select for update, update, audit insert, commit) written in bare pg.
 * `create` and `delete`: Vigil's audited create (`POST /ai_providers`, a name no other request sent) and delete
 *   (`DELETE /ai_providers/:id` of rows seeded ahead through the batch API, each request a row no other took), each
 *   in an organization of its own, against the same transaction in bare pg (begin, insert, audit insert, commit;
 *   begin, select for update, delete, audit insert, commit). The same family as the update, so the three audited
 *   writes are of one row shape, and the create pays the natural-key check (`name`) a real create pays.
 * update, create and delete take turns, round after round, with a third target too: one autocommit insert of a small
 *   row in bare pg (`POST /insert`), the floor of any write, which issue 23 sets each audited write against.
 * `list`: a list page of 100 rows (`GET /ai_providers?limit=100`, its cursor signed) against a bare `select … limit 100`
 *   of the same rows (Vigil's table, the same organization and order).
 * `create-key`: what an `Idempotency-Key` costs a create — `POST /teams` with a new key each time, against the same
 * create without a key, both on Vigil (the baseline is Vigil itself, not a bare server).
 */
import { fileURLToPath } from 'node:url';
import type { Child } from '../lib.ts';
import { call, hex, organization, type BenchContext, type Pair, type PairSpec } from './context.ts';

export const KEYS = ['read', 'update', 'create', 'delete', 'create-key', 'list'];
/** The list page: 100 rows of a family holding 150. */
const PAGE = 100;
/** One row per connection, so the update run measures the update path, not 32 waiters on one row lock. */
const ROWS = 32;
const server = fileURLToPath(new URL('../servers/bare.ts', import.meta.url));
/**
 * The most deletes a second Vigil is seeded for (warm-ups included): far above the audited update's best so far
 * (about 700 req/s on 2 cores) and near Vigil's authenticated read (about 2,400), which a delete cannot outrun. A run
 * that deletes faster runs out of rows: its requests answer 404 and the run is not valid, saying to raise this.
 */
const VIGIL_DELETES_PER_SECOND = 2500;
/** Rows the bare server's deletes may take (one generate_series insert): enough for 13,000 a second over 15 s. */
const BARE_DELETES = 200_000;
/** Creates per batch request when seeding Vigil's rows to delete, and batch requests at once. */
const SEED_BATCH = 1000;
const SEED_CONCURRENCY = 2;
/** Row k of the bare server's deletable rows (`POST /seed` of bench/servers/bare.ts names them the same way). */
const deletable = (k: number) => `00000000-0000-4000-8000-${hex(k)}`;
const provider = (name: string, n: number) => JSON.stringify({ name, provider: 'vendor_a', priority: 1 + (n % 100) });

export async function run(ctx: BenchContext, chosen: Set<string>): Promise<Pair[]> {
  const v = ctx.vigil.info.url;
  const org = await organization(ctx, 'bench config', 'business', ['api:admin']);
  const ids: string[] = [];
  for (let i = 1; i <= ROWS; i++) {
    const made = await call(`${v}/api/v1/config/ai_providers`, 'POST', org.key, { name: `provider ${i}`, provider: 'vendor_a', priority: i }, 201);
    ids.push(made.data.id);
  }
  await call(`${v}/api/v1/config/ai_providers/${ids[0]}`, 'GET', org.key, undefined, 200);
  const auth = { authorization: `Bearer ${org.key}` };
  const bare = await ctx.bare(server);
  const bareIds = bare.info.ids as string[];
  const pairs: Pair[] = [];
  let inserted = 0;
  /** issue 23's floor, a new row each time: each audited write's pair takes turns with it */
  const floor = (): PairSpec['floor'] => ({
    child: bare,
    describe: 'POST /insert: one autocommit insert of a small row (id, name, provider, priority, time)',
    options: {
      url: bare.info.url,
      requests: [{ method: 'POST', path: '/insert', headers: JSON_BODY, setupRequest: (req) => ({ ...req, body: provider(`insert ${inserted}`, inserted++) }) }],
    },
  });
  try {
    if (chosen.has('read')) {
      pairs.push(await ctx.pair({
        key: 'read',
        name: 'authenticated read',
        describe: { vigil: 'GET /api/v1/config/ai_providers/:id (api key)', bare: 'GET /rows/:id, one primary-key select' },
        bare: { child: bare, options: { url: `${bare.info.url}/rows/${bareIds[0]}` } },
        vigil: { url: `${v}/api/v1/config/ai_providers/${ids[0]}`, headers: auth },
      }));
    }
    if (chosen.has('update')) {
      const audited = async () => (await ctx.watch.query<{ n: number }>(`select count(*)::int as n from audit_log where organization_id = $1 and family = 'ai_providers' and action = 'update'`, [org.id]))[0]!.n;
      // Every PUT sends a priority no earlier PUT sent, so each one changes its row and writes an audit entry,
      // and the PUTs go round the rows, so concurrent updates rarely wait on the same row lock.
      let priority = 100;
      let next = 0;
      let barePriority = 100;
      const before = await audited();
      const pair = await ctx.pair({
        key: 'update',
        name: 'update with audit',
        describe: { vigil: 'PUT /api/v1/config/ai_providers/:id (a changed priority; audit entry)', bare: 'PUT /rows/:id: begin, select for update, update, audit insert, commit' },
        bare: {
          child: bare,
          options: {
            url: bare.info.url,
            requests: [{
              method: 'PUT',
              headers: { 'content-type': 'application/json' },
              setupRequest: (req) => ({ ...req, path: `/rows/${bareIds[barePriority % ROWS]}`, body: JSON.stringify({ priority: barePriority++ }) }),
            }],
          },
        },
        vigil: {
          url: v,
          requests: [{
            method: 'PUT',
            headers: { ...auth, 'content-type': 'application/json' },
            setupRequest: (req) => ({ ...req, path: `/api/v1/config/ai_providers/${ids[next++ % ids.length]}`, body: JSON.stringify({ priority: priority++ }) }),
          }],
        },
        floor: floor(),
      });
      const written = (await audited()) - before;
      const answered = pair.vigil.ok + pair.vigil.warmupOk;
      // each answered PUT wrote one entry; up to one request per connection and autocannon run was cut off in flight
      const inFlight = pair.vigil.connections * pair.vigil.runs;
      pair.notes.push(`audit entries written: ${written} for ${answered} answered PUTs (warm-up included; up to ${inFlight} more were in flight when autocannon stopped)`);
      if (written < answered || written > answered + inFlight) pair.failures.push(`update: ${written} audit entries for ${answered} answered PUTs`);
      const read = pairs.find((p) => p.key === 'read');
      // earlier reports set the update against the bare read; the goal now compares it with the same transaction in bare pg
      if (read) pair.notes.push(`against the bare read of this run: ${((pair.vigil.rps / read.bare.rps) * 100).toFixed(1)} %`);
      pairs.push(pair);
    }
    if (chosen.has('create')) pairs.push(await create(ctx, bare, floor()));
    if (chosen.has('delete')) pairs.push(await remove(ctx, bare, floor()));
    if (chosen.has('create-key')) pairs.push(await createWithKey(ctx, org, auth));
    if (chosen.has('list')) {
      for (let i = ROWS + 1; i <= PAGE + 50; i++) await call(`${v}/api/v1/config/ai_providers`, 'POST', org.key, { name: `provider ${i}`, provider: 'vendor_a', priority: i }, 201);
      const page = await call(`${v}/api/v1/config/ai_providers?limit=${PAGE}`, 'GET', org.key, undefined, 200);
      if (page.data.length !== PAGE || typeof page.next_cursor !== 'string') throw new Error('list: the first page is not 100 rows with a next cursor');
      pairs.push(await ctx.pair({
        key: 'list',
        name: 'list page of 100 rows',
        describe: {
          vigil: `GET /api/v1/config/ai_providers?limit=${PAGE} (api key; 150 rows; next_cursor and Link)`,
          bare: `GET /page?limit=${PAGE}: select * from the same table, same organization and order, limit ${PAGE}`,
        },
        bare: { child: bare, options: { url: `${bare.info.url}/page?organization=${org.id}&limit=${PAGE}` } },
        vigil: { url: `${v}/api/v1/config/ai_providers?limit=${PAGE}`, headers: auth },
      }));
    }
  } finally {
    await bare.stop();
  }
  return pairs;
}

const JSON_BODY = { 'content-type': 'application/json' };

/** The audit entries of one organization's ai_providers rows with this action, and its ai_providers rows. */
async function tally(ctx: BenchContext, organizationId: string, action: string): Promise<{ audited: number; rows: number }> {
  const [row] = await ctx.watch.query<{ audited: number; rows: number }>(
    `select (select count(*)::int from audit_log where organization_id = $1 and family = 'ai_providers' and action = $2) as audited,
            (select count(*)::int from cfg_ai_providers where organization_id = $1) as rows`,
    [organizationId, action],
  );
  return row!;
}

/**
 * The table checks of an audited write: one audit entry per answered request (up to one request per connection and
 * autocannon run was cut off in flight, and may have been written or not), and one row made or gone per entry.
 */
function checkWrites(pair: Pair, what: string, before: { audited: number; rows: number }, after: { audited: number; rows: number }, rowsMoved: number): void {
  const written = after.audited - before.audited;
  const answered = pair.vigil.ok + pair.vigil.warmupOk;
  const inFlight = pair.vigil.connections * pair.vigil.runs;
  pair.notes.push(`audit entries written: ${written} for ${answered} answered ${what} (warm-up included; up to ${inFlight} more were in flight when autocannon stopped); rows ${rowsMoved >= 0 ? 'made' : 'gone'}: ${Math.abs(rowsMoved)}`);
  if (written < answered || written > answered + inFlight) pair.failures.push(`${pair.key}: ${written} audit entries for ${answered} answered ${what}`);
  if (Math.abs(rowsMoved) !== written) pair.failures.push(`${pair.key}: ${Math.abs(rowsMoved)} rows ${rowsMoved >= 0 ? 'made' : 'gone'} for ${written} audit entries`);
}

/** Each request creates an ai_providers row of a name no other request sent, in an organization of its own. */
async function create(ctx: BenchContext, bare: Child, floor: PairSpec['floor']): Promise<Pair> {
  const v = ctx.vigil.info.url;
  const org = await organization(ctx, 'bench create', 'business', ['api:admin']);
  let made = 0;
  let bareMade = 0;
  const before = await tally(ctx, org.id, 'create');
  const pair = await ctx.pair({
    key: 'create',
    name: 'create with audit',
    describe: {
      vigil: 'POST /api/v1/config/ai_providers, a new name each time (natural key checked; audit entry)',
      bare: 'POST /rows: begin, insert (unique name), audit insert, commit',
    },
    bare: {
      child: bare,
      options: { url: bare.info.url, requests: [{ method: 'POST', path: '/rows', headers: JSON_BODY, setupRequest: (req) => ({ ...req, body: provider(`create ${bareMade}`, bareMade++) }) }] },
    },
    vigil: {
      url: v,
      requests: [{
        method: 'POST',
        path: '/api/v1/config/ai_providers',
        headers: { ...JSON_BODY, authorization: `Bearer ${org.key}` },
        setupRequest: (req) => ({ ...req, body: provider(`create ${made}`, made++) }),
      }],
    },
    floor,
  });
  const after = await tally(ctx, org.id, 'create');
  checkWrites(pair, 'POSTs', before, after, after.rows - before.rows);
  return pair;
}

/** Creates `count` ai_providers rows through the batch API, a few batches at once; answers their ids in order. */
async function seedProviders(ctx: BenchContext, key: string, count: number): Promise<string[]> {
  const ids: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let from = next; from < count; from = next) {
      next = Math.min(count, from + SEED_BATCH);
      const changes = Array.from({ length: next - from }, (_, i) => ({ family: 'ai_providers', op: 'create', body: JSON.parse(provider(`delete ${from + i}`, from + i)) }));
      const answer = await call(`${ctx.vigil.info.url}/api/v1/config/batch`, 'POST', key, { changes }, 200);
      if (answer.committed !== true) throw new Error(`delete: a seeding batch was not committed: ${JSON.stringify(answer).slice(0, 500)}`);
      answer.changes.forEach((c: { id: string }, i: number) => (ids[from + i] = c.id));
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return ids;
}

/**
 * Each request deletes an ai_providers row no other request took: Vigil's are seeded through the batch API in an
 * organization of their own, the bare server's with one generate_series insert.
 */
async function remove(ctx: BenchContext, bare: Child, floor: PairSpec['floor']): Promise<Pair> {
  const v = ctx.vigil.info.url;
  const org = await organization(ctx, 'bench delete', 'business', ['api:admin']);
  const count = Math.ceil(VIGIL_DELETES_PER_SECOND * ctx.secondsPerTarget) + 1000;
  const seedStarted = performance.now();
  const ids = await seedProviders(ctx, org.key, count);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const seeded = await call(`${bare.info.url}/seed?count=${BARE_DELETES}`, 'POST', undefined, undefined, 200);
  const before = await tally(ctx, org.id, 'delete');
  if (before.rows < count || seeded.count !== BARE_DELETES) {
    throw new Error(`delete: seeded ${before.rows} rows for Vigil (${count} wanted) and ${seeded.count} for the bare server (${BARE_DELETES} wanted)`);
  }
  // the bare side asks for a row past its seed as a 404 does, so running out shows as a failed run; Vigil the same
  let bareNext = 1;
  let next = 0;
  const pair = await ctx.pair({
    key: 'delete',
    name: 'delete with audit',
    describe: {
      vigil: `DELETE /api/v1/config/ai_providers/:id, a row no other request took (${count} seeded through POST /api/v1/config/batch)`,
      bare: `DELETE /rows/:id: begin, select for update, delete, audit insert, commit (${BARE_DELETES} rows seeded)`,
    },
    bare: {
      child: bare,
      options: { url: bare.info.url, requests: [{ method: 'DELETE', setupRequest: (req) => ({ ...req, path: `/rows/${deletable(bareNext++)}` }) }] },
    },
    vigil: {
      url: v,
      requests: [{
        method: 'DELETE',
        headers: { authorization: `Bearer ${org.key}` },
        setupRequest: (req) => ({ ...req, path: `/api/v1/config/ai_providers/${ids[next++] ?? 'seeded-rows-ran-out'}` }),
      }],
    },
    floor,
  });
  const after = await tally(ctx, org.id, 'delete');
  pair.notes.push(`seeded ${count} rows for Vigil in ${seedSeconds.toFixed(1)} s (${VIGIL_DELETES_PER_SECOND} a second over ${ctx.secondsPerTarget} s, warm-ups included); Vigil asked for ${next}, the bare server for ${bareNext - 1} of ${BARE_DELETES}`);
  if (next > ids.length) pair.failures.push(`delete: Vigil's ${ids.length} seeded rows ran out (${next} requests): raise VIGIL_DELETES_PER_SECOND in bench/scenarios/config.ts`);
  if (bareNext - 1 > BARE_DELETES) pair.failures.push(`delete: the bare server's ${BARE_DELETES} rows ran out (${bareNext - 1} requests): raise BARE_DELETES in bench/scenarios/config.ts`);
  checkWrites(pair, 'DELETEs', before, after, after.rows - before.rows);
  return pair;
}

/** Each request creates a team of a name no other request sent; with a key, a key no other request sent. */
async function createWithKey(ctx: BenchContext, org: { id: string }, auth: Record<string, string>): Promise<Pair> {
  const v = ctx.vigil.info.url;
  const created = async () => (await ctx.watch.query<{ n: number }>(`select count(*)::int as n from cfg_teams where organization_id = $1`, [org.id]))[0]!.n;
  const keys = async () => (await ctx.watch.query<{ n: number }>(`select count(*)::int as n from idempotency_keys where organization_id = $1 and state = 'done'`, [org.id]))[0]!.n;
  let plain = 0;
  let keyed = 0;
  const post = (name: () => string, key?: () => string) => ({
    url: v,
    requests: [{
      method: 'POST' as const,
      headers: { ...auth, 'content-type': 'application/json' },
      setupRequest: (req: any) => ({ ...req, path: '/api/v1/config/teams', headers: { ...req.headers, ...(key ? { 'idempotency-key': key() } : {}) }, body: JSON.stringify({ name: name() }) }),
    }],
  });
  const [teamsBefore, keysBefore] = [await created(), await keys()];
  const pair = await ctx.pair({
    key: 'create-key',
    name: 'create with Idempotency-Key',
    describe: { vigil: 'POST /api/v1/config/teams with a new Idempotency-Key each time', bare: 'the same POST without a key (Vigil itself)' },
    bare: { child: ctx.vigil, options: post(() => `plain ${plain++}`) },
    vigil: post(() => `keyed ${keyed}`, () => `bench-key-${keyed++}`),
  });
  const teams = (await created()) - teamsBefore;
  const stored = (await keys()) - keysBefore;
  pair.notes.push(`teams created: ${teams}; idempotency keys stored: ${stored} (one per keyed create answered)`);
  if (stored > teams) pair.failures.push(`create-key: ${stored} stored keys for ${teams} teams`);
  return pair;
}
