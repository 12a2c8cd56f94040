/**
 * The outbound benchmark's baseline: a bare durable queue — a plain table the bench filled, 16 loops each taking
 * one pending row (`for update skip locked`), POSTing its body with Node's http (keep-alive) and marking it
 * delivered. No pg-boss, no signature, no address check, no attempt log: the floor of "a row in PostgreSQL, then
 * a POST". Prints `{"url", "pid"}`; SIGTERM stops it.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

const databaseUrl = process.env.BENCH_DATABASE_URL;
if (!databaseUrl) throw new Error('BENCH_DATABASE_URL is required');
const LOOPS = 16;
const pool = new pg.Pool({ connectionString: databaseUrl, max: 20, application_name: 'vigil-bench-bare' });
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
let stopping = false;

function post(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function loop(): Promise<void> {
  while (!stopping) {
    const { rows } = await pool.query(
      `update bench_outbound set status = 'sending' where id = (select id from bench_outbound where status = 'pending' order by id for update skip locked limit 1)
       returning id, url, payload`);
    const row = rows[0];
    if (!row) {
      await sleep(50);
      continue;
    }
    const status = await post(row.url, row.payload).catch(() => 0);
    await pool.query('update bench_outbound set status = $1 where id = $2', [status >= 200 && status < 300 ? 'delivered' : 'pending', row.id]);
  }
}

const loops = Array.from({ length: LOOPS }, loop);
process.stdout.write(`${JSON.stringify({ url: 'n/a', pid: process.pid })}\n`);
process.once('SIGTERM', () => {
  stopping = true;
  void Promise.allSettled(loops).finally(() => void pool.end().finally(() => process.exit(0)));
});
