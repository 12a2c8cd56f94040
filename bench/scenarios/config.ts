/**
 * `read` and `update`: Vigil's authenticated read by id and update (with its audit entry) of ai_providers rows
 * through the configuration API, against bench/servers/bare.ts: one primary-key select, and the same transaction
 * an update runs (begin, select for update, update, audit insert, commit) written in bare pg.
 * `list`: a list page of 100 rows (`GET /ai_providers?limit=100`, its cursor signed) against a bare `select … limit 100`
 *   of the same rows (Vigil's table, the same organization and order).
 * `create-key`: what an `Idempotency-Key` costs a create — `POST /teams` with a new key each time, against the same
 * create without a key, both on Vigil (the baseline is Vigil itself, not a bare server).
 */
import { fileURLToPath } from 'node:url';
import { call, organization, type BenchContext, type Pair } from './context.ts';

export const KEYS = ['read', 'update', 'create-key', 'list'];
/** The list page: 100 rows of a family holding 150. */
const PAGE = 100;
/** One row per connection, so the update run measures the update path, not 32 waiters on one row lock. */
const ROWS = 32;
const server = fileURLToPath(new URL('../servers/bare.ts', import.meta.url));

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
