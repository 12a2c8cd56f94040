/**
 * The buttons chat posts carry, as the chat product receives them: Acknowledge and Resolve while an alert or incident
 * fires, Resolve alone once acknowledged, none once resolved or closed; none on a storm's post (its incident's post
 * acts on them all) and none in what an incoming webhook (outbound config of kind chat) receives.
 */
import t from 'tap';
import { alertOpening, envelopeContent, eventContent } from '../../outbound/render/chat-messages.ts';

const ALERT = { id: '7d1f2c3a-0000-4000-8000-000000000001', title: 'DiskFull', severity: 'critical', service: 'db', source: 'metric-dashboard' };
const INCIDENT = { id: '7d1f2c3a-0000-4000-8000-000000000002', title: 'DiskFull', severity: 'critical', status: 'open', acknowledged_at: null };
const buttons = (blocks: any[]) => blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements.map((e: any) => `${e.action_id}=${e.value}:${e.text.text}`));

t.test('an alert thread\'s first post offers what still applies to the alert', async (t) => {
  const fired = { type: 'alert.fired' as const, data: { alert: ALERT } };
  t.same(buttons(alertOpening(fired, 'firing').blocks), [`vigil_ack_alert=${ALERT.id}:Acknowledge`, `vigil_resolve_alert=${ALERT.id}:Resolve`]);
  t.same(buttons(alertOpening(fired, 'acknowledged').blocks), [`vigil_resolve_alert=${ALERT.id}:Resolve`]);
  t.same(buttons(alertOpening(fired, 'resolved').blocks), []);
  t.same(buttons(alertOpening({ type: 'alert.fired' as const, data: { alert: ALERT, storm: { alerts: 40 } } }, 'firing').blocks), [], 'a storm\'s post has none');
  t.same(buttons(alertOpening({ type: 'alert.fired' as const, data: { alert: { ...ALERT, id: undefined } } }, 'firing').blocks), [], 'an alert without an id has none');
});

t.test('an incident post offers Acknowledge until acknowledged and Resolve until closed', async (t) => {
  const post = (incident: Record<string, unknown>) => buttons(eventContent({ type: 'incident.opened' as const, data: { incident, alert: ALERT } }).blocks);
  t.same(post(INCIDENT), [`vigil_ack_incident=${INCIDENT.id}:Acknowledge`, `vigil_resolve_incident=${INCIDENT.id}:Resolve`]);
  t.same(post({ ...INCIDENT, acknowledged_at: '2026-03-01T12:00:00.000Z' }), [`vigil_resolve_incident=${INCIDENT.id}:Resolve`]);
  t.same(post({ ...INCIDENT, status: 'closed' }), []);
});

t.test('an incoming webhook\'s message carries no buttons', async (t) => {
  t.same(buttons(envelopeContent({ type: 'alert.fired', data: { alert: ALERT } }).blocks), []);
  t.same(buttons(envelopeContent({ type: 'incident.opened', data: { incident: INCIDENT, alert: ALERT } }).blocks), []);
  t.ok(envelopeContent({ type: 'alert.fired', data: { alert: ALERT } }).blocks.length > 0, 'the rest of the message is kept');
});
