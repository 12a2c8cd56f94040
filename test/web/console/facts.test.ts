/**
 * The pieces the alert and incident pages share (web/console/facts.ts): each effect the pipeline records in a
 * sentence saying why it did or did not page; who took an action ("you" only for the signed-in person); `since` as
 * people type it.
 */
import t from 'tap';
import type { ConsoleSession } from '../../../engine/auth/sessions.ts';
import { EFFECT_KINDS } from '../../../domain/alerts/outcomes.ts';
import { actorText, effectText, sinceInput } from '../../../web/console/facts.ts';

const session = { userId: 'u-1' } as ConsoleSession;

t.test('every effect kind reads as a sentence, with the reason it did not page', async (t) => {
  for (const kind of EFFECT_KINDS) t.notMatch(effectText(kind, {}), /_/, `${kind} has words of its own`);
  t.equal(effectText('page_skipped', { reason: 'muted' }), 'Not paged: a mute matched');
  t.equal(effectText('page_skipped', { reason: 'storm', storm_id: 's' }), 'Not paged: it joined a storm');
  t.equal(effectText('page_skipped', { reason: 'no_route' }), 'Not paged: no alert route matched');
  t.equal(effectText('page_skipped', { reason: 'something_new' }), 'Not paged: something new', 'an unknown reason is still readable');
  t.equal(effectText('investigation_skipped', { reason: 'budget' }), 'No AI investigation: the AI budget is spent');
  t.equal(effectText('routed', { route: 'db routes', team: 'DBA' }), 'Routed by db routes to DBA');
  t.equal(effectText('routed', { route: null }), 'No alert route matched');
  t.equal(effectText('muted', { mute_id: 'm-1' }), 'Muted by mute m-1');
  t.equal(effectText('storm_grouped', { storm_id: 's' }), 'Grouped into a storm');
});

t.test('who took an action: people by name and email, never an id', async (t) => {
  const dana = { name: 'Dana Ortiz', email: 'dana@example.com' };
  t.equal(actorText(session, { kind: 'session', id: 'u-1', ...dana }), 'Dana Ortiz (dana@example.com) (you)');
  t.equal(actorText(session, { kind: 'personal_token', id: 'u-1', ...dana }), 'Dana Ortiz (dana@example.com) (you)', 'the same person through a token');
  t.equal(actorText(session, { kind: 'session', id: 'u-2', name: 'Lee Park', email: 'lee@example.com' }), 'Lee Park (lee@example.com)');
  t.equal(actorText(session, { kind: 'chat_user', id: 'u-2', name: null, email: 'lee@example.com' }), 'lee@example.com', 'no name given: the email');
  t.equal(actorText(session, { kind: 'session', id: 'u-3', name: null, email: null }), 'a former member', 'no longer a member: no id either');
  t.equal(actorText(session, { kind: 'api_key', id: 'u-1' }), 'an API key', 'a key whose id happens to match is not "you", and its id is not shown');
  t.equal(actorText(session, null), '');
});

t.test('an effect says who was reached by which channel, and delivered or why not', async (t) => {
  t.equal(effectText('notified', { email: 'a@x.io', channel: 'sms', method: 'phone', status: 'failed', reason: 'provider answered 401' }), 'a@x.io not notified by sms (phone): provider answered 401');
  t.equal(effectText('notified', { email: 'a@x.io', channel: 'email', method: 'work', status: 'queued', bundled: 3 }), 'a@x.io notified by email (work) (one message for 3 alerts)');
  t.equal(effectText('notified', { email: 'a@x.io', channel: 'sms', method: 'phone', status: 'cancelled', reason: 'acknowledged' }), 'a@x.io not notified by sms (phone): the escalation stopped: acknowledged');
  t.equal(effectText('notified', { email: 'a@x.io', channel: 'email', queued: true }), 'a@x.io notified by email', 'an effect from before the status keeps its words');
  t.equal(effectText('page', { notified: false, not_notified: 'no_route', teams: [] }), 'No one to page: no route matched');
  t.equal(effectText('page', { notified: false, not_notified: 'no_channel', teams: [{ id: 't', name: 'Payments' }] }), 'No one to page: no outbound rule or email takes alert.fired (team Payments)');
  t.equal(effectText('page', { notified: true, teams: [{ id: 't', name: 'Payments' }], outbound: ['c'], email: true }), 'Paged team Payments by 1 outbound config(s) and email');
  t.equal(effectText('page', { notified: true, teams: [], outbound: ['c'], email: false }, [{ channel: 'outbound', to: 'pager', config_id: 'c', status: 'delivered', error: null }]),
    'Paged by 1 outbound config(s) — pager: delivered');
  t.equal(effectText('page', { notified: true, outbound: ['c'] }, [{ channel: 'outbound', to: 'pager', status: 'dead', error: 'the receiver answered 500' }]),
    'Paged by 1 outbound config(s) — pager: dead (the receiver answered 500)');
  t.equal(effectText('chat_post', { queued: false, not_posted: 'chat_not_configured' }), 'Not posted to chat: chat not configured');
  t.equal(effectText('chat_post', { queued: false, not_posted: 'chat_off_for_alerts' }), 'Not posted to chat: notification settings keep this event out of chat');
  t.equal(effectText('chat_post', { queued: true }, [{ channel: 'chat', to: 'C01', status: 'sent', error: null }]), 'Posted to chat — chat C01: sent');
  t.equal(effectText('chat_thread_update', { reason: 'acknowledged', queued: false, not_posted: 'chat_not_configured' }), 'Chat thread not updated: chat not configured');
  t.equal(effectText('chat_thread_update', { reason: 'acknowledged', queued: true }), 'Chat thread updated: acknowledged');
});

t.test('since: ISO 8601, a date or a date and time, read as UTC; anything else passes to the operation to refuse', async (t) => {
  t.equal(sinceInput('2026-03-01'), '2026-03-01T00:00:00Z');
  t.equal(sinceInput('2026-03-01T12:30'), '2026-03-01T12:30:00Z');
  t.equal(sinceInput('2026-03-01 12:30'), '2026-03-01T12:30:00Z');
  t.equal(sinceInput('2026-03-01T12:30:00+01:00'), '2026-03-01T12:30:00+01:00');
  t.equal(sinceInput('yesterday'), 'yesterday');
  t.equal(sinceInput(''), undefined);
  t.equal(sinceInput(undefined), undefined);
});
