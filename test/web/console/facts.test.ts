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

t.test('who took an action', async (t) => {
  t.equal(actorText(session, { kind: 'session', id: 'u-1' }), 'you');
  t.equal(actorText(session, { kind: 'personal_token', id: 'u-1' }), 'you', 'the same person through a token');
  t.equal(actorText(session, { kind: 'session', id: 'u-2' }), 'a person in the console (u-2)');
  t.equal(actorText(session, { kind: 'chat_user', id: 'u-1' }), 'you', 'the same person pressing a button in chat');
  t.equal(actorText(session, { kind: 'chat_user', id: 'u-2' }), 'a person in chat (u-2)');
  t.equal(actorText(session, { kind: 'api_key', id: 'u-1' }), 'an API key (u-1)', 'a key whose id happens to match is not "you"');
  t.equal(actorText(session, null), '');
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
