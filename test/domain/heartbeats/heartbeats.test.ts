/**
 * Heartbeats (issue 27, part 4), through what users touch: the family over REST, pings at
 * `/webhooks/heartbeat/<token>/<name>` by GET (curl in a crontab) and POST (a webhook receiver), and the alert a
 * missed deadline raises. Sweeps run by hand (`sweepHeartbeats`) with the injected clock, so counts are exact;
 * one test proves the periodic job runs them.
 */
import t from 'tap';
import { sweepHeartbeats } from '../../../domain/heartbeats/sweep.ts';
import { WEBHOOK_NOT_FOUND } from '../../../webhooks/router.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { waitFor } from '../../helpers/jobs.ts';

const SECOND = 1000;
const UA = { 'user-agent': 'curl/8.5.0' };
const PATH = `${CONFIG}/heartbeats`;

type Alert = { id: string; status: string; occurrences: number; fingerprint: string; service: string | null; severity: string; title: string; source: string };

t.test('heartbeats', async (t) => {
  const vigil = await startVigil();
  t.teardown(() => vigil.close());
  const org = await vigil.organization();
  const api = await org.key();
  const services = vigil.running.services;
  const sweep = () => sweepHeartbeats(services);
  const ping = async (name: string, method = 'GET', token = org.webhookToken, headers: Record<string, string> = UA) => {
    const res = await fetch(`${vigil.url}/webhooks/heartbeat/${token}/${name}`, { method, headers, ...(method === 'POST' ? { body: '{"receiver":"vigil"}' } : {}) });
    return { status: res.status, body: await res.json(), headers: res.headers };
  };
  const create = async (body: Record<string, unknown>) => {
    const made = await api.post(PATH, body);
    if (made.status !== 201) throw new Error(JSON.stringify(made.body));
    return made.body.data as { id: string; name: string };
  };
  const read = (id: string) => api.get(`${PATH}/${id}`);
  const alerts = async () => (await api.get(`${CONFIG}/alerts?source=heartbeat`)).body.data as Alert[];
  const alertOf = async (id: string) => (await alerts()).filter((a) => a.fingerprint === `heartbeat:${id}`);

  await t.test('a new heartbeat has no deadline until its first ping, so creating one never pages', async (t) => {
    const made = await api.post(PATH, { name: 'fresh', interval_seconds: 60 });
    t.equal(made.status, 201);
    t.same(made.body.data, {
      id: made.body.data.id, name: 'fresh', service: null, interval_seconds: 60, grace_seconds: 300, severity: 'critical',
      last_ping_at: null, next_due_at: null, status: 'new', created_at: '2026-03-01T12:00:00.000Z', updated_at: '2026-03-01T12:00:00.000Z',
    });
    vigil.clock.advance(3600 * SECOND);
    t.same(await sweep(), [], 'an hour later, nothing fired');
    t.same(await alertOf(made.body.data.id), []);
    t.equal((await read(made.body.data.id)).body.data.status, 'new');
    const sent = await api.post(PATH, { name: 'sent', interval_seconds: 60, status: 'up' });
    t.equal(sent.status, 422, 'status is read-only');
  });

  await t.test('pings keep it up; a missed deadline raises exactly one alert; the next ping resolves it', async (t) => {
    const beat = await create({ name: 'nightly-backup', service: 'billing', interval_seconds: 600, grace_seconds: 60, severity: 'high' });
    const etag = (await read(beat.id)).headers.get('etag');
    const first = await ping('nightly-backup');
    t.equal(first.status, 200, 'GET pings (curl in a crontab)');
    const now = vigil.clock.now();
    t.same(first.body, { name: 'nightly-backup', status: 'up', last_ping_at: now.toISOString(), next_due_at: new Date(now.getTime() + 660 * SECOND).toISOString() });
    const row = await read(beat.id);
    t.equal(row.body.data.status, 'up');
    t.equal(row.body.data.last_ping_at, now.toISOString(), 'the ping time comes from the injected clock');
    t.equal(row.body.data.next_due_at, first.body.next_due_at, 'the deadline is stored on the row');
    t.equal(row.headers.get('etag'), etag, 'a ping does not change the ETag');

    for (let i = 0; i < 3; i++) {
      vigil.clock.advance(590 * SECOND);
      t.same(await sweep(), [], `interval ${i + 1}: on time`);
      t.equal((await ping('nightly-backup', 'POST')).status, 200, 'POST pings too (a webhook receiver)');
    }
    t.same(await alertOf(beat.id), [], 'pings kept it up');

    vigil.clock.advance(650 * SECOND);
    t.same(await sweep(), [], 'past the interval but inside the grace: still on time');
    vigil.clock.advance(10 * SECOND);
    t.same(await sweep(), [beat.id], 'at interval + grace the alert fires');
    let fired = await alertOf(beat.id);
    t.equal(fired.length, 1);
    t.match(fired[0], { status: 'firing', source: 'heartbeat', service: 'billing', severity: 'high', title: 'Heartbeat nightly-backup missed', occurrences: 1 });
    t.equal((await read(beat.id)).body.data.status, 'down');

    for (let i = 0; i < 5; i++) {
      vigil.clock.advance(600 * SECOND);
      t.same(await sweep(), [], `later sweep ${i + 1} fires nothing more`);
    }
    fired = await alertOf(beat.id);
    t.equal(fired.length, 1, 'one alert');
    t.equal(fired[0]?.occurrences, 1, 'raised once, not once per sweep');

    const back = await ping('nightly-backup');
    t.equal(back.status, 200);
    const resolved = await alertOf(beat.id);
    t.same(resolved.map((a) => [a.id, a.status]), [[fired[0]!.id, 'resolved']], 'the next ping resolves it');
    t.equal((await read(beat.id)).body.data.status, 'up');
    t.equal((await ping('nightly-backup')).status, 200);
    t.equal((await alertOf(beat.id)).length, 1, 'a ping while up raises and resolves nothing');

    vigil.clock.advance(661 * SECOND);
    t.same(await sweep(), [beat.id], 'missing again fires again');
    const again = await alertOf(beat.id);
    t.equal(again.length, 1, 'on the same alert (one fingerprint per heartbeat)');
    t.equal(again[0]?.status, 'firing');
    await ping('nightly-backup');
    t.equal((await read(beat.id)).headers.get('etag'), etag, 'results never changed the ETag');
  });

  await t.test('a changed interval moves the deadline of a pinged heartbeat', async (t) => {
    const beat = await create({ name: 'reconfigured', interval_seconds: 3600, grace_seconds: 0 });
    await ping('reconfigured');
    const changed = await api.put(`${PATH}/${beat.id}`, { interval_seconds: 60 });
    t.equal(changed.status, 200);
    vigil.clock.advance(61 * SECOND);
    t.same(await sweep(), [beat.id], 'the new interval counts from the last ping');
    t.equal((await read(beat.id)).body.data.next_due_at, new Date(vigil.clock.now().getTime() - 1 * SECOND).toISOString());
    await ping('reconfigured');
    t.equal((await api.del(`${PATH}/${beat.id}`)).status, 204);
  });

  await t.test('deleting a heartbeat that is down resolves its alert at the next sweep', async (t) => {
    const beat = await create({ name: 'retired', interval_seconds: 60, grace_seconds: 0 });
    await ping('retired');
    vigil.clock.advance(61 * SECOND);
    t.same(await sweep(), [beat.id]);
    t.equal((await alertOf(beat.id))[0]?.status, 'firing');
    t.equal((await api.del(`${PATH}/${beat.id}`)).status, 204);
    t.same(await sweep(), [], 'nothing fires');
    t.same((await alertOf(beat.id)).map((a) => a.status), ['resolved'], 'its alert is resolved: nothing would ping it again');
    t.equal((await ping('retired')).status, 404, 'and its name no longer pings');
  });

  await t.test('refusals: unknown name, no name, bad token, other methods, another organization', async (t) => {
    await create({ name: 'Mixed.Case', interval_seconds: 60 });
    const unknown = await ping('no-such-heartbeat');
    t.equal(unknown.status, 404);
    t.same(unknown.body, { error: 'not_found', message: 'No heartbeat of this organization has that name; create it in heartbeats first (names are case-sensitive).' });
    t.notMatch(JSON.stringify(unknown.body), /no-such-heartbeat/, 'the name sent is not echoed');
    t.equal((await ping('mixed.case')).status, 404, 'names are case-sensitive, as URLs are');
    t.equal((await ping('Mixed.Case')).status, 200);

    const bare = await fetch(`${vigil.url}/webhooks/heartbeat/${org.webhookToken}`, { headers: UA });
    t.equal(bare.status, 404);
    t.match(await bare.json(), { error: 'not_found', message: /\/webhooks\/heartbeat\/<token>\/<heartbeat name>/ });

    const badToken = await ping('Mixed.Case', 'GET', 'not-a-token');
    t.equal(badToken.status, 404);
    t.same(badToken.body, WEBHOOK_NOT_FOUND, 'a bad token answers as every unknown webhook address does');

    const put = await ping('Mixed.Case', 'PUT');
    t.equal(put.status, 405);
    t.same(put.body, { error: 'method_not_allowed', message: 'This webhook takes GET or POST.', allowed: ['GET', 'POST'] });
    t.equal(put.headers.get('allow'), 'GET, POST');
    const getDeployments = await fetch(`${vigil.url}/webhooks/deployments/${org.webhookToken}`, { headers: UA });
    t.equal(getDeployments.status, 405, 'other sources still take POST only');
    t.same((await getDeployments.json()).allowed, ['POST']);
    const comments = await fetch(`${vigil.url}/webhooks/heartbeat/${org.webhookToken}/Mixed.Case/comments`, { headers: UA });
    t.equal(comments.status, 404, 'no sub-path under a name');
    t.equal((await ping('Mixed.Case', 'GET', org.webhookToken, { 'user-agent': '' })).status, 400, 'a User-Agent is required, as for every webhook');

    const other = await vigil.organization();
    const otherPing = await ping('Mixed.Case', 'GET', other.webhookToken);
    t.equal(otherPing.status, 404, "another organization's token does not reach this one's heartbeat");
  });

  await t.test('the delivery log records pings and their outcome', async (t) => {
    const beat = await create({ name: 'logged', interval_seconds: 60, grace_seconds: 0 });
    await ping('logged');
    vigil.clock.advance(61 * SECOND);
    t.same(await sweep(), [beat.id]);
    await ping('logged');
    const log = await api.get(`${CONFIG}/webhook_deliveries?source=heartbeat`);
    t.equal(log.status, 200);
    const outcomes = (log.body.data as { outcome: string }[]).map((d) => d.outcome);
    t.ok(outcomes.includes('resolved'), 'the ping that resolved says so');
    t.ok(outcomes.includes('ping'));
  });

  await t.test('issue 41: text posted to a heartbeat (the cron example\'s job output) is kept in the delivery log', async (t) => {
    await create({ name: 'backup', interval_seconds: 60 });
    const output = 'backup done: 42 files\nuploaded to s3://bucket?token=abc123&x=1\u0000';
    // what `curl --data-binary @-` sends: the job's output, form-encoded by content type
    const res = await fetch(`${vigil.url}/webhooks/heartbeat/${org.webhookToken}/backup`, {
      method: 'POST', headers: { ...UA, 'content-type': 'application/x-www-form-urlencoded' }, body: output,
    });
    t.equal(res.status, 200);
    const log = await api.get(`${CONFIG}/webhook_deliveries?source=heartbeat&limit=1`);
    const kept = (log.body.data as { payload: unknown }[])[0]!.payload;
    t.equal(typeof kept, 'string', 'the text is kept');
    t.match(kept, /backup done: 42 files\nuploaded to s3:\/\/bucket\?token=\(removed\)&x=1$/, 'credential-like parameters removed, NUL dropped');
  });
});

t.test('the periodic job sweeps without a hand', async (t) => {
  const vigil = await startVigil({ webhooks: { checks: { tickSeconds: 1 } } });
  t.teardown(() => vigil.close());
  const org = await vigil.organization();
  const api = await org.key();
  const made = await api.post(PATH, { name: 'ticking', interval_seconds: 30, grace_seconds: 0 });
  t.equal(made.status, 201);
  const pinged = await fetch(`${vigil.url}/webhooks/heartbeat/${org.webhookToken}/ticking`, { method: 'POST', headers: UA });
  t.equal(pinged.status, 200);
  vigil.clock.advance(31 * SECOND);
  const raised = async () => (await api.get(`${CONFIG}/alerts?source=heartbeat`)).body.data as Alert[];
  // the sweep marks the row down, then hands the alert to the pipeline: wait for the alert
  await waitFor(async () => (await raised()).length > 0, 'the sweep job raises the alert');
  t.equal((await api.get(`${PATH}/${made.body.data.id}`)).body.data.status, 'down');
  const fired = await raised();
  t.equal(fired.length, 1);
  t.equal(fired[0]?.fingerprint, `heartbeat:${made.body.data.id}`);
});
