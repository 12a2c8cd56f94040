/**
 * Sends the notification rows notify.ts wrote, through each contact method type's channel (channels/index.ts), with
 * the rules docs/paging.md states:
 *
 * - Due rows (`send_after` passed) are grouped per person and contact method, each group claimed with `FOR UPDATE SKIP
 *   LOCKED` under the person's lock in a transaction of its own: one message per group (a bundle row, paging_bundles).
 * - A row whose escalation stopped (acknowledged, resolved, muted) is recorded `cancelled` and never sent.
 * - Bundling: the first message to a person on a method goes out at once; rows that fall due within BUNDLE_SECONDS
 *   of the last message on that method wait until that window ends and go out together.
 * - Limits: a channel's `limit` (messages per minutes, per method); a group beyond it is held (`limited`, on the
 *   timeline) until the window allows one more message, which is one summary of everything held.
 * - A channel that `sendsInTransaction` (email: mail queued with its row) is called in the claiming transaction.
 *   Others are called after their rows committed as `sending`, and the answer recorded in a second transaction. A
 *   row still `sending` after SENDING_TIMEOUT_SECONDS (its instance crashed mid-call) becomes `unknown`: never sent
 *   twice (docs/decisions.md: at most once for a provider call).
 * - Every attempt and its result is a `notified` effect on each alert of the message (its timeline and its incident's).
 */
import { randomUUID } from 'node:crypto';
import { eachConcurrently } from '../../engine/concurrently.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import { prepared } from '../../engine/persistence/sql.ts';
import type { FamilyStore } from '../../engine/persistence/store.ts';
import type { Services } from '../../engine/services.ts';
import type { ContactType } from '../../resources/contact_methods.ts';
import type { Channel, ContactTarget, PageMessage, SendResult } from './channels/channel.ts';
import { channelFor } from './channels/index.ts';
import { BUNDLES, ESCALATIONS, NOTIFICATIONS } from './escalation-entities.ts';
import { recordEffects, type PagingEffect } from './effects.ts';
import { ACCOUNT_METHOD } from './notify.ts';
import { pageLink } from './page-links.ts';
import { stopReason } from './stop.ts';

/** A message on a method opens a window of this many seconds: what falls due in it waits and goes out as one more message. */
export const BUNDLE_SECONDS = 5;
/** A provider call not answered (recorded) within this long is taken as cut short by a crash: recorded `unknown`, never retried. */
export const SENDING_TIMEOUT_SECONDS = 120;
/** Groups (a person's method) one pass takes on; more wait for the next pass. */
const GROUP_LIMIT = 1000;
/** Groups sent at once: their transactions run side by side on the pool, and one slow provider holds up no one else. */
const SENDERS = 4;

export interface Claimed {
  escalation_id: string;
  step: number;
  loop: number;
  email: string;
  method_key: string;
  organization_id: string;
  user_id: string | null;
  alert_id: string;
  incident_id: string | null;
  urgency: string;
  contact_type: string;
  address: string | null;
  method_name: string | null;
  fallback?: string | null;
  status: string;
  title: string;
  severity: string;
  subject_kind: 'alert' | 'incident';
  subject_id: string;
  bundle_id?: string | null;
  /** read with the claim: the alert's status (the stop check of an alert's escalation), the last message on this method */
  alert_status?: string | null;
  last_sent_at?: Date | string | null;
}

/** A message handed to a channel after its rows commit. */
interface Deferred {
  channel: Channel;
  target: ContactTarget;
  message: PageMessage;
  rows: Claimed[];
}

const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
const where = 'escalation_id = ? and step = ? and loop = ? and email = ? and method_key = ?';
const idOf = (n: Claimed) => [n.escalation_id, n.step, n.loop, n.email, n.method_key];
/** The rows' keys as one condition, so a group's rows change in one statement. */
const whereRows = (rows: Claimed[]) => ({
  sql: `(escalation_id, step, loop, email, method_key) in (${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')})`,
  params: rows.flatMap(idOf),
});

export function notified(n: Claimed, detail: Record<string, unknown>): PagingEffect {
  return {
    organizationId: n.organization_id, alertId: n.alert_id, kind: 'notified',
    detail: {
      escalation_id: n.escalation_id, step: n.step, loop: n.loop, email: n.email, user_id: n.user_id, channel: n.contact_type,
      contact_method_id: n.method_key === ACCOUNT_METHOD ? null : n.method_key, method: n.method_name ?? 'account email', urgency: n.urgency,
      ...(n.fallback ? { fallback: n.fallback } : {}), ...detail,
    },
  };
}

/** The message for one person's group on one method: the alerts paged, or a summary of those a limit held. */
function message(services: Services, group: Claimed[], bundleId: string, summary: boolean, now: Date): PageMessage {
  const base = services.config.publicUrl?.replace(/\/$/, '') ?? '';
  const alerts = [...new Map(group.map((n) => [n.alert_id, n])).values()];
  const first = group[0]!;
  const lines = alerts.map((n) => `- [${n.severity}] ${oneLine(n.title)} (step ${n.step + 1}${n.loop ? `, repeat ${n.loop}` : ''})${base ? `: ${base}/console/alerts/${n.alert_id}` : ''}`);
  const subject = summary
    ? `[Vigil] ${alerts.length} more alert${alerts.length === 1 ? '' : 's'} paged you`
    : alerts.length === 1 ? `[Vigil] Page: ${oneLine(alerts[0]!.title)}` : `[Vigil] Page: ${alerts.length} alerts`;
  const text = summary
    ? `${alerts.length} more alert${alerts.length === 1 ? '' : 's'} paged you while this contact method was at its limit; open Vigil.\n\n${lines.join('\n')}\n`
    : `You are paged for ${alerts.length === 1 ? 'this alert' : `these ${alerts.length} alerts`}:\n\n${lines.join('\n')}\n\nAcknowledge it in Vigil to stop the escalation.\n`;
  const link = (action: 'acknowledge' | 'resolve') => pageLink(services, { organizationId: first.organization_id, bundleId, userId: first.user_id, action }, now);
  return {
    organizationId: first.organization_id, bundleId, userId: first.user_id, email: first.email, urgency: first.urgency === 'low' ? 'low' : 'high',
    alerts: alerts.map((n) => ({ id: n.alert_id, title: n.title, severity: n.severity, incidentId: n.incident_id, url: base ? `${base}/console/alerts/${n.alert_id}` : null })),
    subject, text, acknowledgeUrl: link('acknowledge'), resolveUrl: link('resolve'),
  };
}

/** Calls a channel; a throw (a bug, an outage the channel did not catch) is a failure with a reason, never a lost row. */
async function attempt(channel: Channel, ctx: Parameters<Channel['send']>[0], target: ContactTarget, msg: PageMessage, log: Services['log']): Promise<SendResult> {
  try {
    return await channel.send(ctx, target, msg);
  } catch (error) {
    log.error({ channel: channel.type, code: (error as { code?: unknown })?.code }, 'a paging channel threw');
    return { status: 'failed', reason: 'channel_error' };
  }
}

/** Records a message's result on its bundle, its rows and each alert's timeline. */
async function record(store: FamilyStore, now: Date, bundleId: string, rows: Claimed[], result: SendResult, summary: boolean): Promise<void> {
  await store.execute(prepared(`update ${BUNDLES} set status = ?, reason = ?, provider_id = ? where id = ?`), [result.status, result.reason ?? null, result.providerId ?? null, bundleId]);
  const keys = whereRows(rows);
  await store.execute(`update ${NOTIFICATIONS} set status = ?, reason = ?, sent_at = ? where ${keys.sql}`, [result.status, result.reason ?? null, now, ...keys.params]);
  await recordEffects(store.execute, now, rows.map((n) => notified(n, {
    status: result.status, bundle_id: bundleId, bundled: rows.length, ...(summary ? { summary: true } : {}),
    ...(result.reason ? { reason: result.reason } : {}), ...(result.providerId ? { provider_id: result.providerId } : {}),
    // the email channel's older shape, kept for readers of earlier effects
    ...(result.status === 'queued' ? { queued: true } : {}),
  })));
}

/** Takes a due group on: cancelled, held (bundle window or limit), or one message. Answers a message to send after commit. */
async function dispatchGroup(services: Services, store: FamilyStore, now: Date, group: Claimed[], stopped: Map<string, string | null>): Promise<Deferred | null> {
  const sql = store.execute;
  const live: Claimed[] = [];
  const cancelled: PagingEffect[] = [];
  for (const n of group) {
    const reason = stopped.get(n.escalation_id);
    if (!reason) {
      live.push(n);
      continue;
    }
    await sql(`update ${NOTIFICATIONS} set status = 'cancelled', reason = ?, sent_at = ? where ${where}`, [reason, now, ...idOf(n)]);
    cancelled.push(notified(n, { status: 'cancelled', reason }));
  }
  await recordEffects(sql, now, cancelled);
  if (!live.length) return null;
  const first = live[0]!;
  const type = first.contact_type as ContactType;
  const channel = channelFor(type);
  // bundling: a message on this method less than BUNDLE_SECONDS ago holds the group until its window ends
  const lastAt = first.last_sent_at ? new Date(first.last_sent_at) : null;
  if (lastAt && now.getTime() < lastAt.getTime() + BUNDLE_SECONDS * 1000) {
    const until = new Date(lastAt.getTime() + BUNDLE_SECONDS * 1000);
    const keys = whereRows(live);
    await sql(`update ${NOTIFICATIONS} set send_after = ? where ${keys.sql}`, [until, ...keys.params]);
    return null;
  }
  // the method's limit: held beyond it, then one summary when the window allows
  if (channel?.limit) {
    const since = new Date(now.getTime() - channel.limit.perMinutes * 60_000);
    const sent = await sql(
      `select sent_at from ${BUNDLES} where organization_id = ? and email = ? and method_key = ? and sent_at > ? and status <> 'failed' order by sent_at`,
      [first.organization_id, first.email, first.method_key, since],
    );
    if (sent.length >= channel.limit.messages) {
      const until = new Date(new Date(sent[sent.length - channel.limit.messages]!.sent_at as string | Date).getTime() + channel.limit.perMinutes * 60_000);
      const keys = whereRows(live);
      await sql(`update ${NOTIFICATIONS} set status = 'limited', reason = 'limit', send_after = ? where ${keys.sql}`, [until, ...keys.params]);
      await recordEffects(sql, now, live.filter((n) => n.status !== 'limited').map((n) => notified(n, { status: 'limited', limit: channel.limit, until: until.toISOString() })));
      return null;
    }
  }
  const summary = live.some((n) => n.status === 'limited');
  const bundleId = randomUUID();
  const target: ContactTarget = { id: first.method_key === ACCOUNT_METHOD ? null : first.method_key, type, address: first.address ?? first.email, name: first.method_name ?? 'account email' };
  const msg = message(services, live, bundleId, summary, now);
  await sql(
    prepared(`insert into ${BUNDLES} (id, organization_id, user_id, email, method_key, channel, status, summary, sent_at) values (?, ?, ?, ?, ?, ?, 'sending', ?, ?)`),
    [bundleId, first.organization_id, first.user_id, first.email, first.method_key, type, summary, now],
  );
  const keys = whereRows(live);
  // a message sent after the commit is `sending` until its answer is recorded; one sent here is recorded here
  const sendingLater = channel && !channel.sendsInTransaction;
  await sql(
    `update ${NOTIFICATIONS} set bundle_id = ?, channel = ?${sendingLater ? `, status = 'sending', reason = null, sent_at = ?` : ''} where ${keys.sql}`,
    [bundleId, type, ...(sendingLater ? [now] : []), ...keys.params],
  );
  if (!channel) {
    await record(store, now, bundleId, live, { status: 'failed', reason: 'no_channel' }, summary);
    return null;
  }
  if (channel.sendsInTransaction) {
    await record(store, now, bundleId, live, await attempt(channel, { services, store, now }, target, msg, services.log), summary);
    return null;
  }
  await recordEffects(sql, now, live.map((n) => notified(n, { status: 'sending', bundle_id: bundleId, bundled: live.length, ...(summary ? { summary: true } : {}) })));
  return { channel, target, message: msg, rows: live };
}

/** A notification due to be sent (its parameter: now). */
const DUE = `status in ('pending', 'limited') and send_after <= ?`;
/** A bundle whose provider call was never answered (its parameter: staleBefore(now)). */
const LEFT_SENDING = `status = 'sending' and sent_at < ?`;
const staleBefore = (now: Date) => new Date(now.getTime() - SENDING_TIMEOUT_SECONDS * 1000);

/** A select list's `sends`: whether sendBundles has anything to do (a notification due, or a call left `sending` past its timeout). */
export function sendsDue(now: Date): { sql: string; params: Date[] } {
  return {
    sql: `(exists (select 1 from ${NOTIFICATIONS} where ${DUE}) or exists (select 1 from ${BUNDLES} where ${LEFT_SENDING})) as sends`,
    params: [now, staleBefore(now)],
  };
}

/** Rows left `sending` by an instance that stopped mid-call: `unknown`, never called again. */
async function sweepUnknown(services: Services, now: Date): Promise<void> {
  const before = staleBefore(now);
  // almost always none: looked for without a transaction
  if (!(await readStore(services).execute(`select 1 from ${BUNDLES} where ${LEFT_SENDING} limit 1`, [before])).length) return;
  await inTransaction(services, async (store) => {
    const bundles = await store.execute(`update ${BUNDLES} set status = 'unknown', reason = 'no_answer_recorded' where ${LEFT_SENDING} returning id`, [before]);
    if (!bundles.length) return;
    const ids = bundles.map((b) => String(b.id));
    const rows = (await store.execute(
      `update ${NOTIFICATIONS} set status = 'unknown', reason = 'no_answer_recorded' where status = 'sending' and bundle_id in (${ids.map(() => '?').join(', ')}) returning *`, ids,
    )) as unknown as Claimed[];
    await recordEffects(store.execute, now, rows.map((n) => notified(n, { status: 'unknown', reason: 'no_answer_recorded', bundle_id: n.bundle_id })));
  });
}

/** A person's method with notifications due: what one message goes to. */
export interface GroupKey {
  organization_id: string;
  email: string;
  method_key: string;
}

/**
 * Sends every due notification (the injected clock's now), or with `only` those of these people's methods (a page's
 * first step, sent as it commits; the pass sweeps and sends the rest). Each person's method is taken in a transaction
 * of its own, SENDERS at once: one person's message never waits for another's, and a transaction holds one person's
 * lock for as long as deciding their message takes. Answers how many rows were taken on.
 */
export async function sendBundles(services: Services, only?: readonly GroupKey[]): Promise<number> {
  const now = services.clock.now();
  if (!only) await sweepUnknown(services, now);
  // read without locks: each group's rows are claimed (and may be found gone) in its own transaction
  const groups = only
    ? [...new Map(only.map((g) => [`${g.organization_id} ${g.email} ${g.method_key}`, g])).values()]
    : ((await readStore(services).execute(
      `select distinct organization_id, email, method_key from ${NOTIFICATIONS} where ${DUE}
        order by organization_id, email, method_key limit ${GROUP_LIMIT}`,
      [now],
    )) as unknown as GroupKey[]);
  let taken = 0;
  await eachConcurrently(groups, SENDERS, async (group) => void (taken += await sendGroup(services, now, group)));
  return taken;
}

/** One person's method: its due rows claimed under the person's lock, dispatched, and the message sent after the commit. */
async function sendGroup(services: Services, now: Date, group: GroupKey): Promise<number> {
  const { count, deferred } = await inTransaction(services, async (store) => {
    // one transaction at a time decides for a person's method (two instances' passes, or a pass and a page's first
    // step): the second sees the first's message and bundles, rather than both sending
    await store.execute(prepared('select pg_advisory_xact_lock(hashtext(?))'), [`page ${group.organization_id} ${group.email} ${group.method_key}`]);
    const rows = (await store.execute(
      prepared(`select n.escalation_id, n.step, n.loop, n.email, n.method_key, n.organization_id, n.user_id, n.alert_id, n.incident_id, n.urgency, n.contact_type, n.address,
              n.method_name, n.fallback, n.status, a.title, a.severity, e.subject_kind, e.subject_id, a.status as alert_status,
              (select max(b.sent_at) from ${BUNDLES} b where b.organization_id = n.organization_id and b.email = n.email and b.method_key = n.method_key) as last_sent_at
         from ${NOTIFICATIONS} n join alerts a on a.organization_id = n.organization_id and a.id = n.alert_id join ${ESCALATIONS} e on e.id = n.escalation_id
        where n.organization_id = ? and n.email = ? and n.method_key = ? and n.status in ('pending', 'limited') and n.send_after <= ?
        order by n.created_at
        for update of n skip locked`),
      [group.organization_id, group.email, group.method_key, now],
    )) as unknown as Claimed[];
    if (!rows.length) return { count: 0, deferred: null };
    const stopped = new Map<string, string | null>();
    for (const n of rows) {
      if (!stopped.has(n.escalation_id)) stopped.set(n.escalation_id, await stopReason(store.execute, n));
    }
    return { count: rows.length, deferred: await dispatchGroup(services, store, now, rows, stopped) };
  });
  // the provider call after its rows committed as `sending`, then its answer in a transaction of its own (an answer
  // arriving after the sweep called it `unknown` is still recorded: the provider's word beats a guess)
  if (deferred) {
    const result = await attempt(deferred.channel, { services, now }, deferred.target, deferred.message, services.log);
    await inTransaction(services, (store) => record(store, services.clock.now(), deferred.message.bundleId, deferred.rows, result, deferred.rows.some((n) => n.status === 'limited')));
  }
  return count;
}

/** Cancels the notifications still waiting for an escalation that stopped (in the transaction that stops it). */
export async function cancelPending(store: FamilyStore, now: Date, escalationId: string, reason: string): Promise<PagingEffect[]> {
  const rows = (await store.execute(
    `update ${NOTIFICATIONS} set status = 'cancelled', reason = ?, sent_at = ? where escalation_id = ? and status in ('pending', 'limited') returning *`, [reason, now, escalationId],
  )) as unknown as Claimed[];
  return rows.map((n) => notified(n, { status: 'cancelled', reason }));
}
