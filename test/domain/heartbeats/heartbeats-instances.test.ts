/**
 * A missed heartbeat raises exactly one alert however many instances sweep, and across restarts: the deadline
 * and the up/down state are stored on the row, so a restart finds them (no lost deadline, no false alarm), and
 * the sweep's claim (FOR UPDATE SKIP LOCKED) gives each missed deadline to one instance. Two instances at once
 * need PostgreSQL (the embedded database serves one); the restart runs on both.
 */
import t from 'tap';
import { sweepHeartbeats } from '../../../domain/heartbeats/sweep.ts';
import { client, CONFIG, scratchStorage, startVigil } from '../../helpers/harness.ts';

const SECOND = 1000;
const UA = { 'user-agent': 'Alertmanager/0.28.1' };
const twoInstances = process.env.DATABASE_URL ? false : 'PostgreSQL only (set DATABASE_URL): the embedded database serves one instance';

type Alert = { id: string; status: string; occurrences: number; fingerprint: string };

t.test('two instances sweeping at once raise each missed heartbeat once', { skip: twoInstances }, async (t) => {
  const storage = await scratchStorage();
  const a = await startVigil({ storage });
  const b = await startVigil({ storage });
  t.teardown(async () => {
    await a.close();
    await b.close();
    await storage.drop();
  });
  const org = await a.organization();
  const api = await org.key();
  const N = 24;
  const ids: string[] = [];
  for (let i = 0; i < N; i++) {
    const made = await api.post(`${CONFIG}/heartbeats`, { name: `job-${i}`, interval_seconds: 60, grace_seconds: 0 });
    t.equal(made.status, 201);
    ids.push(made.body.data.id);
    // pings reach either instance
    const via = i % 2 ? b : a;
    const pinged = await fetch(`${via.url}/webhooks/heartbeat/${org.webhookToken}/job-${i}`, { method: 'POST', headers: UA, body: '{}' });
    t.equal(pinged.status, 200);
  }
  const round = async () => (await Promise.all([a, b, a, b, a, b].map((v) => sweepHeartbeats(v.running.services)))).flat();
  t.same(await round(), [], 'nothing is due yet');
  a.clock.advance(61 * SECOND);
  b.clock.advance(61 * SECOND);
  const fired = await round();
  t.equal(fired.length, N, 'N alerts fired in all');
  t.same([...fired].sort(), [...ids].sort(), 'each heartbeat once');
  t.same(await round(), [], 'and no sweep fires them again');
  const alerts = (await api.get(`${CONFIG}/alerts?source=heartbeat&limit=100`)).body.data as Alert[];
  t.equal(alerts.length, N, 'one alert per heartbeat');
  t.same(alerts.filter((x) => x.occurrences !== 1 || x.status !== 'firing'), [], 'each firing, raised once');
});

t.test('a restart neither loses a deadline nor raises a false alarm', async (t) => {
  const storage = await scratchStorage();
  const secretKey = Buffer.alloc(32, 7).toString('base64');
  t.teardown(() => storage.drop());

  const first = await startVigil({ storage, secretKey });
  const org = await first.organization();
  const key = await org.key();
  const made = await key.post(`${CONFIG}/heartbeats`, { name: 'watchdog', interval_seconds: 300, grace_seconds: 60 });
  t.equal(made.status, 201);
  const id = made.body.data.id as string;
  const pingAt = async (url: string) => (await fetch(`${url}/webhooks/heartbeat/${org.webhookToken}/watchdog`, { headers: UA })).status;
  t.equal(await pingAt(first.url), 200);
  first.clock.advance(200 * SECOND);
  t.same(await sweepHeartbeats(first.running.services), []);
  await first.close();

  // a new process starts with its own clock (the same start time as the first): the stored deadline is still ahead
  const second = await startVigil({ storage, secretKey });
  const api = client(second.url, key.token);
  const alerts = async () => (await api.get(`${CONFIG}/alerts?source=heartbeat`)).body.data as Alert[];
  second.clock.advance(200 * SECOND);
  t.same(await sweepHeartbeats(second.running.services), [], 'no false alarm after the restart: the deadline is not reached');
  t.same(await alerts(), []);
  second.clock.advance(161 * SECOND);
  t.same(await sweepHeartbeats(second.running.services), [id], 'the deadline set before the restart fires after it');
  await second.close();

  const third = await startVigil({ storage, secretKey });
  t.teardown(() => third.close());
  third.clock.advance(3600 * SECOND);
  t.same(await sweepHeartbeats(third.running.services), [], 'a down heartbeat is not raised again after another restart');
  const api3 = client(third.url, key.token);
  let raised = (await api3.get(`${CONFIG}/alerts?source=heartbeat`)).body.data as Alert[];
  t.same(raised.map((x) => [x.fingerprint, x.status, x.occurrences]), [[`heartbeat:${id}`, 'firing', 1]], 'exactly one alert');
  t.equal(await pingAt(third.url), 200);
  raised = (await api3.get(`${CONFIG}/alerts?source=heartbeat`)).body.data as Alert[];
  t.equal(raised[0]?.status, 'resolved', 'the ping after the restarts resolves it');
});
