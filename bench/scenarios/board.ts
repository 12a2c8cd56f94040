/**
 * Ops-board cards: creation through Vigil's whole webhook pipeline (`POST /webhooks/tickets/<token>`: token, rate
 * limit, the plan's `ops_board`, parse, the idempotency key, the card transaction with its counter row and its two
 * effects, the delivery log) against bench/servers/bare-cards.ts inserting one row per request. Each scenario has
 * an organization of its own (plan `business`, which has `ops_board`):
 *
 * - `board-create`: every delivery carries a new `Idempotency-Key`, so every one opens a card (201);
 * - `board-repeats`: every delivery carries the same key, delivered once before the measurement: each one is a
 *   duplicate (200 with the first answer's body and `duplicate: true`) and must change nothing.
 *
 * Afterwards the tables are checked: one card per 201, gapless numbers, a notification and a chat post per card,
 * one card for the repeated key; a failed check makes the run not valid.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { call, hex, organization, type BenchContext, type Pair } from './context.ts';

export const KEYS = ['board-create', 'board-repeats'];
const server = fileURLToPath(new URL('../servers/bare-cards.ts', import.meta.url));
const USER_AGENT = 'VigilBench/1.0 (ops-board)';
export const CARD_BODY = JSON.stringify({
  title: 'Checkout p99 latency above SLO',
  description: 'The checkout service answers in over 800 ms at p99 since the 14:05 deploy; error rate normal.',
  priority: 'high',
  labels: ['perf'],
  service: 'checkout',
});

/** autocannon options: card deliveries to `path` with the n-th request's Idempotency-Key. */
export function cardDeliveries(url: string, path: string, idempotencyKey: (n: number) => string) {
  let n = 0;
  return {
    url,
    requests: [{
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
      setupRequest: (req: { headers?: Record<string, string> }) => ({ ...req, headers: { ...req.headers, 'idempotency-key': idempotencyKey(n++) }, body: CARD_BODY }),
    }],
  };
}

/** A card delivered once and once again with the same key, checked: what a repeats run then repeats. */
export async function seedRepeatedCard(url: string, path: string, key: string): Promise<void> {
  const headers = { 'user-agent': USER_AGENT, 'idempotency-key': key };
  const first = await call(`${url}${path}`, 'POST', undefined, CARD_BODY, 201, headers);
  if (first.duplicate !== false || first.dedup_key !== key) throw new Error(`seeding a card: answered ${JSON.stringify(first)}`);
  const again = await call(`${url}${path}`, 'POST', undefined, CARD_BODY, 200, headers);
  if (again.duplicate !== true || again.id !== first.id) throw new Error(`seeding a card: the repeat answered ${JSON.stringify(again)}`);
}

type Counts = Record<string, number>;

async function recorded(ctx: BenchContext, organizationId: string) {
  const q = async (sql: string): Promise<Counts> => Object.fromEntries((await ctx.watch.query(sql, [organizationId])).map((r) => [r.k, Number(r.n)]));
  return {
    deliveries: await q(`select status || ' ' || outcome as k, count(*) as n from webhook_deliveries where organization_id = $1 group by 1 order by 2 desc`),
    cards: await q(`select 'cards' as k, count(*) as n from cards where organization_id = $1 union all
                    select 'distinct keys', count(distinct dedup_key) from cards where organization_id = $1 union all
                    select 'distinct numbers', count(distinct number) from cards where organization_id = $1 union all
                    select 'highest number', coalesce(max(number), 0) from cards where organization_id = $1 union all
                    select 'counter', coalesce(max(last_number), 0) from board_counters where organization_id = $1`),
    effects: await q('select kind as k, count(*) as n from card_effects where organization_id = $1 group by 1 order by 1'),
  };
}

/** What must hold after a scenario; each failed check is a sentence. */
function checks(key: string, r: Awaited<ReturnType<typeof recorded>>): string[] {
  const failed: string[] = [];
  const n = (o: Counts, k: string) => o[k] ?? 0;
  const cards = n(r.cards, 'cards');
  const expect = (what: string, got: number, want: number) => void (got !== want && failed.push(`${what}: ${got}, expected ${want}`));
  expect('cards vs 201 created deliveries', cards, n(r.deliveries, '201 created'));
  expect('distinct card numbers', n(r.cards, 'distinct numbers'), cards);
  expect('highest card number (gapless from 1)', n(r.cards, 'highest number'), cards);
  expect('board counter', n(r.cards, 'counter'), cards);
  expect('distinct idempotency keys', n(r.cards, 'distinct keys'), cards);
  expect('notification effects', n(r.effects, 'notification'), cards);
  expect('chat_post effects', n(r.effects, 'chat_post'), cards);
  const other = Object.keys(r.deliveries).filter((k) => k !== '201 created' && k !== '200 duplicate');
  if (other.length) failed.push(`unexpected delivery outcomes: ${other.join(', ')}`);
  if (key === 'board-repeats') expect('cards for the repeated key', cards, 1);
  else if (n(r.deliveries, '200 duplicate') > 0) failed.push(`${n(r.deliveries, '200 duplicate')} duplicates among distinct keys`);
  return failed;
}

export async function run(ctx: BenchContext, chosen: Set<string>): Promise<Pair[]> {
  const v = ctx.vigil.info.url;
  const run = randomBytes(4).toString('hex');
  const repeatedKey = `bench-${run}-repeat`;
  const all = [
    { key: 'board-create', name: 'card create (distinct keys)', idempotencyKey: (n: number) => `bench-${run}-c${hex(n)}` },
    { key: 'board-repeats', name: 'card repeat (one key)', idempotencyKey: () => repeatedKey },
  ].filter((s) => chosen.has(s.key));
  const bare = await ctx.bare(server);
  const pairs: Pair[] = [];
  try {
    for (const s of all) {
      const org = await organization(ctx, `Bench ${s.key}`, 'business');
      const path = `/webhooks/tickets/${org.webhookToken}`;
      if (s.key === 'board-repeats') await seedRepeatedCard(v, path, repeatedKey);
      // the bare server's keys only need to differ from Vigil's in name; it checks none
      const pair = await ctx.pair({
        key: s.key,
        name: s.name,
        describe: { vigil: 'POST /webhooks/tickets/<token> with an Idempotency-Key', bare: 'POST /cards, one insert of the body' },
        bare: { child: bare, options: cardDeliveries(bare.info.url, '/cards', s.idempotencyKey) },
        vigil: cardDeliveries(v, path, s.idempotencyKey),
      });
      const r = await recorded(ctx, org.id);
      pair.notes.push(`delivery log ${JSON.stringify(r.deliveries)}; ${JSON.stringify(r.cards)}; effects ${JSON.stringify(r.effects)} (seeding and warm-up included)`);
      pair.failures.push(...checks(s.key, r).map((f) => `${s.key}: ${f}`));
      pairs.push(pair);
    }
  } finally {
    await bare.stop();
  }
  return pairs;
}
