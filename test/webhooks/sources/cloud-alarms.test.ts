/** cloud-alarms: CloudWatch alarm notifications in SNS envelopes, and SNS subscription messages. */
import t from 'tap';
import { parse } from '../../../webhooks/sources/cloud-alarms.ts';
import { eventsOf, fixture, fuzz, reasonOf } from './helpers.ts';

const SRC = 'cloud-alarms' as const;
const FP = 'cloud-alarms:123456789012:US East (N. Virginia):checkout-api-5xx-high';
const ARN = 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:checkout-api-5xx-high';
const DESCRIPTION = '5xx responses from the checkout API load balancer. severity:critical service:checkout';
const LABELS = {
  account: '123456789012',
  region: 'us-east-1',
  namespace: 'AWS/ApplicationELB',
  metric: 'HTTPCode_Target_5XX_Count',
  LoadBalancer: 'app/checkout-api/50dc6c495c0c9188',
};

t.test('ALARM', async (t) => {
  const events = eventsOf(t, parse(fixture(SRC, 'alarm')));
  t.equal(events.length, 1);
  t.strictSame(events[0], {
    fingerprint: FP,
    status: 'firing',
    title: 'checkout-api-5xx-high',
    source: 'cloud-alarms',
    severity: 'critical',
    labels: { ...LABELS, state: 'ALARM', previous_state: 'OK' },
    service: 'checkout',
    summary: `${DESCRIPTION}\nThreshold Crossed: 3 out of the last 3 datapoints [212.0 (01/03/24 10:02:00), 180.0 (01/03/24 10:01:00), 75.0 (01/03/24 10:00:00)] were greater than the threshold (50.0) (minimum 3 datapoints for OK -> ALARM transition).`,
    url: 'https://us-east-1.console.aws.amazon.com/cloudwatch/home?region=us-east-1#alarmsV2:alarm/checkout-api-5xx-high',
    started_at: '2024-03-01T10:03:12.345Z',
    external_id: ARN,
  }, 'the description names the severity and the service');
});

t.test('OK resolves the same alarm', async (t) => {
  const [alarm] = eventsOf(t, parse(fixture(SRC, 'alarm')));
  const [ok] = eventsOf(t, parse(fixture(SRC, 'ok')));
  t.equal(ok.fingerprint, alarm.fingerprint, 'stable fingerprint');
  const { started_at: _firingOnly, ...common } = alarm;
  t.strictSame(ok, {
    ...common,
    status: 'resolved',
    labels: { ...LABELS, state: 'OK', previous_state: 'ALARM' },
    summary: `${DESCRIPTION}\nThreshold Crossed: 3 out of the last 3 datapoints [4.0 (01/03/24 10:22:00), 2.0 (01/03/24 10:21:00), 0.0 (01/03/24 10:20:00)] were not greater than the threshold (50.0) (minimum 3 datapoints for ALARM -> OK transition).`,
    ended_at: '2024-03-01T10:23:05.000Z',
  });
  t.notOk('started_at' in ok);
});

t.test('INSUFFICIENT_DATA (AWS\'s documented example) fires at warning', async (t) => {
  const [e] = eventsOf(t, parse(fixture(SRC, 'insufficient-data')));
  t.strictSame(e, {
    fingerprint: 'cloud-alarms:000000000000:EU - Ireland:Example alarm name',
    status: 'firing',
    title: 'Example alarm name',
    source: 'cloud-alarms',
    severity: 'warning',
    labels: { account: '000000000000', region: 'EU - Ireland', state: 'INSUFFICIENT_DATA', previous_state: 'OK', namespace: 'ExampleNamespace', metric: 'DeliveryErrors' },
    summary: 'Example alarm description.\nInsufficient Data: 1 datapoint was unknown.',
    started_at: '2017-01-12T16:30:42.236Z',
    external_id: 'Example alarm name',
  }, 'without AlarmArn: no console link, the name is the external id');
});

t.test('severity from the description, else high', async (t) => {
  const body = fixture(SRC, 'alarm');
  const message = JSON.parse(body['Message'] as string) as Record<string, unknown>;
  const cases: [string | undefined, string][] = [
    ['[warning] disk is filling', 'warning'],
    ['Severity=INFO', 'info'],
    ['severity: high', 'high'],
    ['no word here', 'high'],
    [undefined, 'high'],
  ];
  for (const [description, severity] of cases) {
    const m = { ...message, AlarmDescription: description };
    t.equal(eventsOf(t, parse({ ...body, Message: JSON.stringify(m) }))[0].severity, severity, String(description));
  }
});

t.test('SubscriptionConfirmation and UnsubscribeConfirmation are returned as such', async (t) => {
  t.strictSame(parse(fixture(SRC, 'subscription-confirmation')), {
    kind: 'subscription',
    type: 'SubscriptionConfirmation',
    messageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1b',
    subscribeUrl:
      'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-east-1:123456789012:vigil-alarms&Token=2336412f37fb687f5d51e6e241d09c805a5a57b30d712f794cc5f6a988666d92768dd60a747ba6f3beb71854e285d6ad02428b09ceece29417f1f02d609c582afbacc99c583a916b9981dd2728f4ae6fdb82efd087cc3b7849e05798d2d2785c03b0879594eeac82c01f235d0e717736',
    topicArn: 'arn:aws:sns:us-east-1:123456789012:vigil-alarms',
  });
  const unsub = parse(fixture(SRC, 'unsubscribe-confirmation'));
  t.match(unsub, { kind: 'subscription', type: 'UnsubscribeConfirmation', messageId: '47138184-6831-46b8-8f7c-afc488602d7d' });
  const noUrl = parse({ Type: 'SubscriptionConfirmation', MessageId: 'm-1' });
  t.strictSame(noUrl, { kind: 'subscription', type: 'SubscriptionConfirmation', messageId: 'm-1' }, 'a missing SubscribeURL is left for the HTTP layer to refuse');
  t.match(reasonOf(t, parse({ Type: 'SubscriptionConfirmation', SubscribeURL: 'https://sns.us-east-1.amazonaws.com/' })), /MessageId is missing/);
});

t.test('a bare alarm (raw message delivery) is read too', async (t) => {
  const message = JSON.parse(fixture(SRC, 'alarm')['Message'] as string) as Record<string, unknown>;
  const [bare] = eventsOf(t, parse(message));
  const [enveloped] = eventsOf(t, parse(fixture(SRC, 'alarm')));
  t.strictSame(bare, enveloped);
});

t.test('unreadable payloads', async (t) => {
  const alarm = fixture(SRC, 'alarm');
  const bogus = reasonOf(t, parse({ ...alarm, Type: 'Bogus' }));
  t.match(bogus, /SNS Type is not/);
  t.notMatch(bogus, /Bogus/, 'the reason does not repeat the value sent');
  t.match(reasonOf(t, parse({ ...alarm, Type: 5 })), /Type must be a string/);
  t.match(reasonOf(t, parse({ ...alarm, MessageId: undefined })), /MessageId is missing/);
  t.match(reasonOf(t, parse({ ...alarm, Message: '' })), /Message is missing/);
  t.match(reasonOf(t, parse({ ...alarm, Message: '{"AlarmName": ' })), /not JSON/);
  t.match(reasonOf(t, parse({ ...alarm, Message: '[1,2]' })), /not a JSON object/);
  t.match(reasonOf(t, parse({ ...alarm, Message: 'x'.repeat(300_000) })), /longer than SNS allows/);
  t.match(reasonOf(t, parse({ ...alarm, Message: '{"NewStateValue":"ALARM"}' })), /AlarmName is missing/);
  t.match(reasonOf(t, parse({ ...alarm, Message: '{"AlarmName":"a","NewStateValue":"PANIC"}' })), /NewStateValue must be ALARM, OK or INSUFFICIENT_DATA/);
  t.match(reasonOf(t, parse(fixture('cloud-audit', 'create-access-key'))), /AlarmName is missing/, 'a CloudTrail event is not an alarm');
});

t.test('fuzz: junk is unreadable and nothing throws', async (t) => {
  fuzz(t, parse, ['alarm', 'ok', 'insufficient-data', 'subscription-confirmation', 'unsubscribe-confirmation'].map((n) => fixture(SRC, n)));
});
