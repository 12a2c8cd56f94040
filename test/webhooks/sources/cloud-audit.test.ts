/** cloud-audit: CloudTrail events through EventBridge and SNS; each is a firing alert, never resolved. */
import t from 'tap';
import { parse } from '../../../webhooks/sources/cloud-audit.ts';
import { eventsOf, fixture, fuzz, reasonOf } from './helpers.ts';

const SRC = 'cloud-audit' as const;

t.test('an IAM access key created: high', async (t) => {
  const events = eventsOf(t, parse(fixture(SRC, 'create-access-key')));
  t.equal(events.length, 1);
  t.strictSame(events[0], {
    fingerprint: 'cloud-audit:4ae58b17-1f54-4e1b-9a0a-2e3b3bf6e6b1',
    status: 'firing',
    title: 'iam:CreateAccessKey by alice',
    source: 'cloud-audit',
    severity: 'high',
    labels: {
      account: '123456789012',
      region: 'us-east-1',
      event_name: 'CreateAccessKey',
      event_source: 'iam.amazonaws.com',
      detail_type: 'AWS API Call via CloudTrail',
      principal_type: 'IAMUser',
      principal_arn: 'arn:aws:iam::123456789012:user/alice',
      source_ip: '203.0.113.10',
      read_only: 'false',
      mfa: 'true',
    },
    summary: 'arn:aws:iam::123456789012:user/alice called CreateAccessKey on iam.amazonaws.com from 203.0.113.10 in account 123456789012 (us-east-1).',
    url: 'https://us-east-1.console.aws.amazon.com/cloudtrail/home?region=us-east-1#/events/4ae58b17-1f54-4e1b-9a0a-2e3b3bf6e6b1',
    started_at: '2024-03-01T11:00:00.000Z',
    external_id: '4ae58b17-1f54-4e1b-9a0a-2e3b3bf6e6b1',
  });
  const all = JSON.stringify(events);
  t.notMatch(all, 'wJalrXUtnFEMI', 'the secret access key in responseElements is never copied');
  t.notMatch(all, 'deploy-bot', 'request parameters are never copied');
});

t.test('root stopping CloudTrail logging: critical', async (t) => {
  const [e] = eventsOf(t, parse(fixture(SRC, 'root-stop-logging')));
  t.match(e, {
    fingerprint: 'cloud-audit:c7d0a6b2-55e4-4a1d-8c3f-0e9b8a7d6c5e',
    status: 'firing',
    title: 'cloudtrail:StopLogging by root',
    severity: 'critical',
    labels: { principal_type: 'Root', event_name: 'StopLogging', source_ip: '198.51.100.7' },
  });
});

t.test('a failed console sign-in and a refused API call: warning', async (t) => {
  const [login] = eventsOf(t, parse(fixture(SRC, 'console-login-failure')));
  t.match(login, {
    title: 'signin:ConsoleLogin by bob failed',
    severity: 'warning',
    status: 'firing',
    labels: { error_code: 'Failure', mfa: 'No', detail_type: 'AWS Console Sign In via CloudTrail' },
    summary: 'bob called ConsoleLogin on signin.amazonaws.com from 192.0.2.44 in account 123456789012 (us-east-1).\nFailed authentication',
  });
  const [denied] = eventsOf(t, parse(fixture(SRC, 'access-denied')));
  t.match(denied, {
    title: 'ec2:TerminateInstances by ci-deployer/ci-session failed (Client.UnauthorizedOperation)',
    severity: 'warning',
    labels: { principal_type: 'AssumedRole', error_code: 'Client.UnauthorizedOperation', mfa: 'false' },
  });
});

t.test('severities', async (t) => {
  const body = fixture(SRC, 'create-access-key');
  const event = JSON.parse(body['Message'] as string) as { detail: Record<string, unknown> };
  const withDetail = (detail: Record<string, unknown>) => ({ ...body, Message: JSON.stringify({ ...event, detail: { ...event.detail, ...detail } }) });
  const cases: [Record<string, unknown>, string][] = [
    [{ eventName: 'ListUsers', readOnly: true }, 'info'],
    [{ eventName: 'DeleteUser' }, 'high'],
    [{ eventSource: 'ec2.amazonaws.com', eventName: 'AuthorizeSecurityGroupIngress' }, 'high'],
    [{ eventSource: 'ec2.amazonaws.com', eventName: 'RunInstances' }, 'info'],
    [{ eventSource: 'ec2.amazonaws.com', eventName: 'RunInstances', errorCode: 'Client.InvalidParameterValue' }, 'info'],
    [{ eventSource: 'ec2.amazonaws.com', eventName: 'RunInstances', errorCode: 'AccessDenied' }, 'warning'],
    [{ eventSource: 'cloudtrail.amazonaws.com', eventName: 'DeleteTrail' }, 'critical'],
    [{ eventSource: 'guardduty.amazonaws.com', eventName: 'DeleteDetector', errorCode: 'AccessDenied' }, 'warning'],
    [{ eventName: 'GetUser', readOnly: true, userIdentity: { type: 'Root', arn: 'arn:aws:iam::123456789012:root' } }, 'info'],
    [{ eventSource: 's3.amazonaws.com', eventName: 'CreateBucket', userIdentity: { type: 'Root', arn: 'arn:aws:iam::123456789012:root' } }, 'critical'],
  ];
  for (const [detail, severity] of cases) {
    const [e] = eventsOf(t, parse(withDetail(detail)));
    t.equal(e.severity, severity, JSON.stringify(detail));
    t.equal(e.status, 'firing', 'never anything but firing');
  }
});

t.test('the same event delivered twice keeps its fingerprint; without an eventID the EventBridge id is used', async (t) => {
  const a = eventsOf(t, parse(fixture(SRC, 'create-access-key')))[0];
  const again = { ...fixture(SRC, 'create-access-key'), MessageId: 'another-delivery' };
  t.equal(eventsOf(t, parse(again))[0].fingerprint, a.fingerprint);
  const event = JSON.parse(fixture(SRC, 'create-access-key')['Message'] as string) as { detail: Record<string, unknown> };
  delete event.detail['eventID'];
  const [noId] = eventsOf(t, parse(event));
  t.equal(noId.fingerprint, 'cloud-audit:6f1a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8', 'a bare EventBridge event is read too');
  t.equal(noId.url, undefined);
});

t.test('the SNS subscription confirmation', async (t) => {
  t.strictSame(parse(fixture(SRC, 'subscription-confirmation')), {
    kind: 'subscription',
    type: 'SubscriptionConfirmation',
    messageId: '2f8c0d6e-9a1b-4c3d-8e7f-6a5b4c3d2e1f',
    subscribeUrl:
      'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-east-1:123456789012:vigil-audit&Token=2336412f37fb687f5d51e6e241d09c805a5a57b30d712f794cc5f6a988666d92768dd60a747ba6f3beb71854e285d6ad02428b09ceece29417f1f02d609c582afbacc99c583a916b9981dd2728f4ae6fdb82efd087cc3b7849e05798d2d2785c03b0879594eeac82c01f235d0e717736',
    topicArn: 'arn:aws:sns:us-east-1:123456789012:vigil-audit',
  });
});

t.test('unreadable payloads', async (t) => {
  const body = fixture(SRC, 'create-access-key');
  const event = JSON.parse(body['Message'] as string) as Record<string, unknown> & { detail: Record<string, unknown> };
  t.match(reasonOf(t, parse(fixture('cloud-alarms', 'alarm'))), /detail-type and detail are missing/, 'an alarm is not an audit event');
  t.match(reasonOf(t, parse({ ...event, 'detail-type': 'EC2 Instance State-change Notification' })), /is not a CloudTrail event/);
  t.match(reasonOf(t, parse({ ...event, detail: { ...event.detail, eventName: undefined } })), /detail\.eventName is missing/);
  t.match(reasonOf(t, parse({ ...event, id: undefined, detail: { ...event.detail, eventID: undefined } })), /eventID/);
  t.match(reasonOf(t, parse({ ...body, Message: 'not json' })), /not JSON/);
  t.match(reasonOf(t, parse('x'.repeat(100_000))), /got a string/);
});

t.test('fuzz: junk is unreadable and nothing throws', async (t) => {
  fuzz(t, parse, ['create-access-key', 'root-stop-logging', 'console-login-failure', 'access-denied', 'subscription-confirmation'].map((n) => fixture(SRC, n)));
});
