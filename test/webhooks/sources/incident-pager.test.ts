/** incident-pager: PagerDuty v3 webhooks; triggered, acknowledged, resolved and reopened kept on one fingerprint. */
import t from 'tap';
import { parse } from '../../../webhooks/sources/incident-pager.ts';
import { eventsOf, fixture, fuzz, reasonOf } from './helpers.ts';

const SRC = 'incident-pager' as const;
const LABELS = {
  incident_number: '2',
  incident_key: 'd3640fbd41094207a1c11e58e46b1662',
  urgency: 'high',
  priority: 'P1',
  service_id: 'PF9KMXH',
  escalation_policy: 'Default',
  teams: 'Engineering',
};

t.test('incident.triggered', async (t) => {
  const events = eventsOf(t, parse(fixture(SRC, 'triggered')));
  t.equal(events.length, 1);
  t.strictSame(events[0], {
    fingerprint: 'incident-pager:PGR0VU2',
    status: 'firing',
    title: 'A little bump in the road',
    source: 'incident-pager',
    severity: 'critical',
    labels: { event_type: 'incident.triggered', ...LABELS },
    service: 'API Service',
    url: 'https://acme.pagerduty.com/incidents/PGR0VU2',
    started_at: '2020-04-09T15:16:27.000Z',
    external_id: 'PGR0VU2',
  });
});

t.test('acknowledged, resolved and reopened deliveries of the same incident share its fingerprint', async (t) => {
  const [triggered] = eventsOf(t, parse(fixture(SRC, 'triggered')));
  const [acked] = eventsOf(t, parse(fixture(SRC, 'acknowledged')));
  const [resolved] = eventsOf(t, parse(fixture(SRC, 'resolved')));
  const [reopened] = eventsOf(t, parse(fixture(SRC, 'reopened')));
  t.strictSame(acked, { ...triggered, status: 'acknowledged', labels: { ...triggered.labels, event_type: 'incident.acknowledged' } });
  t.strictSame(resolved, {
    ...triggered,
    status: 'resolved',
    labels: { ...triggered.labels, event_type: 'incident.resolved' },
    ended_at: '2020-04-09T15:45:10.000Z',
  }, 'resolved: ended at the event\'s occurred_at');
  t.equal(reopened.status, 'firing');
  t.equal(reopened.ended_at, undefined);
  for (const e of [acked, resolved, reopened]) t.equal(e.fingerprint, triggered.fingerprint, `${e.labels['event_type']}: stable fingerprint`);
});

t.test('other incident events follow data.status; priority P3 → warning', async (t) => {
  const [e] = eventsOf(t, parse(fixture(SRC, 'priority-updated')));
  t.equal(e.status, 'acknowledged');
  t.equal(e.severity, 'warning');
  t.equal(e.labels['priority'], 'P3');
  t.equal(e.fingerprint, 'incident-pager:PGR0VU2');
});

t.test('without a priority the urgency decides: low → warning, high → high', async (t) => {
  const [low] = eventsOf(t, parse(fixture(SRC, 'low-urgency-no-priority')));
  t.equal(low.severity, 'warning');
  t.equal(low.labels['priority'], undefined);
  const body = fixture(SRC, 'low-urgency-no-priority') as { event: { data: { urgency: string } } };
  body.event.data.urgency = 'high';
  t.equal(eventsOf(t, parse(body))[0].severity, 'high');
  const cases: [string, string][] = [['P1', 'critical'], ['P2', 'high'], ['P3', 'warning'], ['P4', 'info'], ['P5', 'info'], ['SEV-1', 'critical'], ['Custom', 'high']];
  for (const [priority, severity] of cases) {
    const b = fixture(SRC, 'triggered') as { event: { data: { priority: { summary: string } } } };
    b.event.data.priority.summary = priority;
    t.equal(eventsOf(t, parse(b))[0].severity, severity, `${priority} → ${severity}`);
  }
});

t.test('a ping, a note and non-incident events are zero alerts, not errors', async (t) => {
  t.same(parse(fixture(SRC, 'ping')), { kind: 'alerts', events: [] });
  t.same(parse(fixture(SRC, 'annotated')), { kind: 'alerts', events: [] });
  t.same(parse({ event: { event_type: 'service.updated', data: { id: 'PSVC', type: 'service' } } }), { kind: 'alerts', events: [] });
});

t.test('the conference bridge (dial-in PINs, meeting passwords) is never copied', async (t) => {
  const all = JSON.stringify(parse(fixture(SRC, 'triggered')));
  t.notMatch(all, '987654321');
  t.notMatch(all, 'hunter2');
});

t.test('unreadable payloads', async (t) => {
  t.match(reasonOf(t, parse({ messages: [] })), /event is missing/);
  t.match(reasonOf(t, parse({ event: {} })), /event\.event_type is missing/);
  t.match(reasonOf(t, parse({ event: { event_type: 'incident.triggered' } })), /event\.data is missing/);
  t.match(reasonOf(t, parse({ event: { event_type: 'incident.triggered', data: { type: 'incident', title: 'x' } } })), /event\.data\.id/);
  t.match(reasonOf(t, parse({ event: { event_type: 'incident.escalated', data: { id: 'P1', type: 'incident', status: 'weird' } } })), /data\.status must be/);
  t.match(reasonOf(t, parse('{"event":{}}')), /expected a JSON object from PagerDuty, got a string/);
});

t.test('fuzz: junk is unreadable and nothing throws', async (t) => {
  fuzz(t, parse, ['triggered', 'acknowledged', 'resolved', 'priority-updated', 'annotated'].map((n) => fixture(SRC, n)));
});
