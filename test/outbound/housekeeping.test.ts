/**
 * Housekeeping of the periodic pass. The sweep of outbound deliveries: a delivery whose job ended before it recorded its attempt (the
 * database failed on every retry, or its instance died each time) is rescued with a new job and still delivered
 * exactly once as the receiver sees it; a delivery whose job is still queued is left alone; settled deliveries
 * older than the retention are pruned with their attempts, unsettled ones never. Chat messages and email notices
 * settled longer ago than their retention are forgotten, except what an open thread or a waiting message needs.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { startVigil } from '../helpers/harness.ts';
import { waitFor } from '../helpers/jobs.ts';
import { alertOrg } from '../helpers/outbound.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { readStore } from '../../engine/operations/context.ts';
import { OUTBOUND_QUEUE } from '../../outbound/deliveries/queue.ts';
import { RETENTION_DAYS, sweepDeliveries } from '../../outbound/deliveries/sweep.ts';
import { STALE_MINUTES } from '../../outbound/deliveries/orphans.ts';
import { pruneNotices, RETENTION_DAYS as NOTICE_DAYS } from '../../outbound/retention.ts';

const vigil = await startVigil({ outbound: { retryDelaysSeconds: [0.1, 0.1] } });
t.teardown(() => vigil.close());
const services = vigil.running.services;
const sql = readStore(services).execute;
const receiver = await startReceiver();
t.teardown(() => receiver.close());
const MINUTE = 60_000;
const ago = (minutes: number) => new Date(vigil.clock.now().getTime() - minutes * MINUTE);

async function deliveredOne(name: string) {
  const o = await alertOrg(vigil);
  t.teardown(() => o.agent.close());
  const config = await o.create('outbound_configs', { name: `sink ${name}`, kind: 'webhook', url: `${receiver.url}/${name}`, timeout_ms: 5000 });
  await o.create('outbound_rules', { name: `rule ${name}`, events: ['alert.fired'], outbound_config_id: config.id });
  await o.fire({ name });
  let delivery: any;
  await waitFor(async () => (delivery = (await o.deliveries()).find((d) => d.status === 'delivered')) !== undefined, `${name} delivered`);
  return { o, delivery };
}

t.test('a delivery stuck in sending after its job ended is rescued: the interrupted attempt counts, the next one delivers', async (t) => {
  const { o, delivery } = await deliveredOne('Stuck');
  const received = receiver.requests.length;
  const processed = receiver.processed.size;
  // as if a later attempt had claimed it and its job then failed for good before recording anything
  await sql(`update outbound_deliveries set status = 'sending', job_id = ?, updated_at = ? where id = ?`, [randomUUID(), ago(STALE_MINUTES + 1), delivery.id]);
  t.equal((await o.agent.call('redeliver', { delivery_id: delivery.id })).body.error, 'conflict', 'sending: redeliver refuses, so only the sweep can mend it');

  const report = await sweepDeliveries(services, vigil.clock.now());
  t.same(report.rescued, [delivery.id]);
  let after: any;
  await waitFor(async () => (after = (await o.deliveries()).find((d) => d.id === delivery.id)).status === 'delivered' && after.attempts === 3, 'delivered again');
  t.match(after.attempt_log.map((a: any) => [a.attempt, a.outcome]), [[1, 'delivered'], [2, 'failed'], [3, 'delivered']]);
  t.match(after.attempt_log[1].error, /interrupted/);
  t.equal(receiver.requests.length, received + 1, 'sent once more');
  t.equal(receiver.requests.at(-1)!.headers['webhook-id'], delivery.id, 'the same webhook-id');
  t.equal(receiver.processed.size, processed, 'so the receiver did not process it twice');
  t.same((await sweepDeliveries(services, vigil.clock.now())).rescued, [], 'nothing left to rescue');
});

t.test('left alone: a row changed recently, and a row whose job is still queued', async (t) => {
  const { delivery } = await deliveredOne('Queued');
  await sql(`update outbound_deliveries set status = 'sending', job_id = ?, updated_at = ? where id = ?`, [randomUUID(), ago(STALE_MINUTES - 1), delivery.id]);
  t.same((await sweepDeliveries(services, vigil.clock.now())).rescued, [], 'changed less than the stale time ago');

  const queued = await services.jobs.send(OUTBOUND_QUEUE, { delivery_id: randomUUID() }, { startAfter: 3600 });
  await sql(`update outbound_deliveries set status = 'pending', job_id = ?, updated_at = ?, next_attempt_at = ? where id = ?`, [queued, ago(60), ago(60), delivery.id]);
  t.same((await sweepDeliveries(services, vigil.clock.now())).rescued, [], 'its job is still waiting in the queue');

  await sql(`update outbound_deliveries set job_id = ? where id = ?`, [randomUUID(), delivery.id]);
  t.same((await sweepDeliveries(services, vigil.clock.now())).rescued, [delivery.id], 'a pending row whose job is gone gets a new one');
});

t.test('settled deliveries older than the retention are pruned with their attempts; unsettled ones never', async (t) => {
  const old = await deliveredOne('OldDelivered');
  const recent = await deliveredOne('RecentDelivered');
  const waiting = await deliveredOne('OldRetrying');
  const days = (n: number) => ago(n * 24 * 60);
  await sql(`update outbound_deliveries set updated_at = ? where id = ?`, [days(RETENTION_DAYS + 1), old.delivery.id]);
  await sql(`update outbound_deliveries set updated_at = ? where id = ?`, [days(RETENTION_DAYS - 1), recent.delivery.id]);
  await sql(`update outbound_deliveries set status = 'retrying', next_attempt_at = ?, updated_at = ? where id = ?`, [vigil.clock.now(), days(RETENTION_DAYS + 1), waiting.delivery.id]);
  const queued = await services.jobs.send(OUTBOUND_QUEUE, { delivery_id: randomUUID() }, { startAfter: 3600 });
  await sql(`update outbound_deliveries set job_id = ? where id = ?`, [queued, waiting.delivery.id]);

  const report = await sweepDeliveries(services, vigil.clock.now());
  t.ok(report.pruned >= 1);
  t.same(await old.o.deliveries(), [], 'the old delivered one is gone');
  const attempts = await sql('select count(*)::int as n from outbound_delivery_attempts where delivery_id = ?', [old.delivery.id]);
  t.equal(Number(attempts[0]!.n), 0, 'with its attempts');
  t.equal((await recent.o.deliveries()).length, 1, 'inside the retention: kept');
  t.equal((await waiting.o.deliveries()).length, 1, 'not settled: kept however old');
});

t.test('chat messages and email notices settled before the retention are forgotten; open threads and what waits are kept', async (t) => {
  const org = (await vigil.organization()).id;
  const old = ago((NOTICE_DAYS + 1) * 24 * 60);
  const recent = ago((NOTICE_DAYS - 1) * 24 * 60);
  const chat = async (status: string, updated: Date, extra: { thread_of?: string; after_id?: string } = {}) => {
    const id = randomUUID();
    await sql(
      `insert into chat_messages (id, organization_id, event_type, method, channel, thread_of, after_id, text, blocks, status, created_at, updated_at)
       values (?, ?, 'alert.fired', 'post', '#ops', ?, ?, 'text', '[]'::jsonb, ?, ?, ?)`,
      [id, org, extra.thread_of ?? null, extra.after_id ?? null, status, updated, updated],
    );
    return id;
  };
  const oldSent = await chat('sent', old);
  const recentSent = await chat('sent', recent);
  const oldPending = await chat('pending', old);
  const openerOfOpenThread = await chat('sent', old);
  await sql('insert into chat_threads (alert_id, organization_id, message_id, opened_at) values (?, ?, ?, ?)', [randomUUID(), org, openerOfOpenThread, old]);
  const openerOfClosedThread = await chat('sent', old);
  await sql('insert into chat_threads (alert_id, organization_id, message_id, opened_at, closed_at) values (?, ?, ?, ?, ?)', [randomUUID(), org, openerOfClosedThread, old, old]);
  const awaited = await chat('sent', old);
  await chat('waiting', recent, { after_id: awaited });
  const email = async (status: string, at: Date) => {
    const id = randomUUID();
    await sql(
      `insert into email_notices (id, organization_id, event_id, event_type, payload, created_at, send_after, status, sent_at)
       values (?, ?, ?, 'alert.fired', '{}', ?, ?, ?, ?)`,
      [id, org, randomUUID(), at, at, status, status === 'sent' ? at : null],
    );
    return id;
  };
  const oldMail = await email('sent', old);
  const oldFailed = await email('failed', old);
  const recentMail = await email('sent', recent);
  const oldPendingMail = await email('pending', old);

  await pruneNotices(services, vigil.clock.now());
  const chatLeft = new Set((await sql('select id from chat_messages where organization_id = ?', [org])).map((r) => String(r.id)));
  t.notOk(chatLeft.has(oldSent), 'an old sent message is forgotten');
  t.notOk(chatLeft.has(openerOfClosedThread), 'so is the first post of a thread closed long ago');
  for (const [id, why] of [[recentSent, 'inside the retention'], [oldPending, 'not settled'], [openerOfOpenThread, 'the first post of an open thread'], [awaited, 'a message still waits for it']] as const) {
    t.ok(chatLeft.has(id), `kept: ${why}`);
  }
  t.equal((await sql('select count(*)::int as n from chat_threads where organization_id = ?', [org]))[0]!.n, 1, 'the closed thread is forgotten, the open one kept');
  const mailLeft = new Set((await sql('select id from email_notices where organization_id = ?', [org])).map((r) => String(r.id)));
  t.notOk(mailLeft.has(oldMail));
  t.notOk(mailLeft.has(oldFailed));
  t.ok(mailLeft.has(recentMail), 'kept: inside the retention');
  t.ok(mailLeft.has(oldPendingMail), 'kept: not sent yet');
});
