/**
 * Certificate monitors (issue 10): a TLS handshake with a local server whose self-signed certificate the test
 * generates; days left against warn_days with the injected clock; expiring fires at once, a change re-checks at
 * once, an unreachable endpoint fires after the consecutive failures and is retried hourly, results keep the ETag.
 */
import t from 'tap';
import { runSchedulingPass } from '../../../domain/checks/scheduler.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { DAY, tlsTarget } from '../../helpers/checks.ts';

const HOUR = 3_600_000;

t.test('certificate monitors', async (t) => {
  // loopback closed for the deployment, opened for checks by their own setting (a widening of the policy)
  const vigil = await startVigil({ outbound: { allowLoopback: false }, webhooks: { checks: { tickSeconds: 0, allowLoopback: true, failuresToAlert: 2 } } });
  const now = vigil.clock.now();
  const soon = await tlsTarget(new Date(now.getTime() - 30 * DAY), new Date(now.getTime() + 10 * DAY + HOUR));
  const later = await tlsTarget(new Date(now.getTime() - 30 * DAY), new Date(now.getTime() + 200 * DAY));
  t.teardown(async () => {
    await soon.close();
    await later.close();
    await vigil.close();
  });
  const api = await (await vigil.organization()).key();
  const services = vigil.running.services;
  const create = async (body: Record<string, unknown>) => (await api.post(`${CONFIG}/certificate_monitors`, body)).body.data as { id: string };
  const read = (id: string) => api.get(`${CONFIG}/certificate_monitors/${id}`);
  const alertOf = async (id: string) => ((await api.get(`${CONFIG}/alerts?source=certificate`)).body.data as { fingerprint: string; status: string; severity: string; title: string }[]).find((a) => a.fingerprint === `certificate:${id}`);

  const expiring = await create({ host: '127.0.0.1', port: soon.port, warn_days: 21 });
  const fine = await create({ host: '127.0.0.1', port: later.port });
  const etag = (await read(expiring.id)).headers.get('etag');

  await t.test('inside the threshold fires at once; outside fires nothing', async (t) => {
    await runSchedulingPass(services);
    const row = (await read(expiring.id)).body.data;
    t.equal(row.last_status, 'expiring');
    t.equal(row.last_checked_at, now.toISOString());
    t.equal(new Date(row.expires_at).getTime() > now.getTime() + 10 * DAY, true, 'expires_at is the served certificate\'s');
    t.equal(row.last_error, null);
    t.equal((await read(expiring.id)).headers.get('etag'), etag, 'the ETag does not change');
    const alert = await alertOf(expiring.id);
    t.equal(alert?.status, 'firing', 'fired on the first check');
    t.equal(alert?.severity, 'warning');
    t.equal(alert?.title, `Certificate expiring: 127.0.0.1:${soon.port}`);
    t.equal((await read(fine.id)).body.data.last_status, 'ok');
    t.equal(await alertOf(fine.id), undefined, 'a certificate far from expiry fires nothing');
  });

  await t.test('checked daily, and at once after a change', async (t) => {
    vigil.clock.advance(HOUR);
    t.same((await runSchedulingPass(services)).ran, [], 'not due within the day');
    const changed = await api.put(`${CONFIG}/certificate_monitors/${expiring.id}`, { warn_days: 5 });
    t.equal(changed.status, 200);
    const ran = (await runSchedulingPass(services)).ran;
    t.same(ran.map((r) => [r.id, r.sent]), [[expiring.id, 'resolved']], 'a change re-checks at once: 10 days left is outside 5, so it resolves');
    t.equal((await alertOf(expiring.id))?.status, 'resolved');
    vigil.clock.advance(DAY);
    t.same((await runSchedulingPass(services)).ran.map((r) => r.id).sort(), [expiring.id, fine.id].sort(), 'both checked again a day later');
  });

  await t.test('expired is critical', async (t) => {
    vigil.clock.advance(20 * DAY);
    await runSchedulingPass(services);
    t.equal((await read(expiring.id)).body.data.last_status, 'expired');
    const alert = await alertOf(expiring.id);
    t.equal(alert?.status, 'firing');
    t.equal(alert?.severity, 'critical');
  });

  await t.test('an unreachable endpoint records an error, retries hourly and fires after the streak', async (t) => {
    const closed = await tlsTarget(new Date(now.getTime() - DAY), new Date(now.getTime() + 400 * DAY));
    await closed.close();
    const down = await create({ host: '127.0.0.1', port: closed.port });
    await runSchedulingPass(services);
    let row = (await read(down.id)).body.data;
    t.equal(row.last_status, 'error');
    t.equal(row.last_error, 'the endpoint could not be reached');
    t.equal(row.expires_at, null);
    t.equal(await alertOf(down.id), undefined, 'one failure fires nothing');
    vigil.clock.advance(HOUR);
    const ran = (await runSchedulingPass(services)).ran.filter((r) => r.id === down.id);
    t.same(ran.map((r) => r.sent), ['firing'], 'retried an hour later, the second failure fires');
    t.equal((await alertOf(down.id))?.severity, 'high');
    row = (await read(down.id)).body.data;
    t.equal(row.last_status, 'error');
  });

  await t.test('loopback refused when neither checks nor the deployment allow it, like an unreachable endpoint', async (t) => {
    const refused = await create({ host: 'localhost', port: later.port });
    await runSchedulingPass(services, { allowLoopback: false });
    t.equal((await read(refused.id)).body.data.last_error, 'the endpoint could not be reached');
    // the metadata address never gets this far: it is refused when saved (test/engine/targets-checks.test.ts), and the
    // request-time refusal of it whatever checks allow is test/outbound/net/outbound-http.test.ts
    const metadata = await api.post(`${CONFIG}/certificate_monitors`, { host: '169.254.169.254', port: 443 });
    t.match(metadata, { status: 422, body: { errors: [{ field: 'host', message: /cloud metadata/ }] } }, 'the metadata address: never');
  });
});
