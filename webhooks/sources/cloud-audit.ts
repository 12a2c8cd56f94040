/**
 * `cloud-audit`: AWS CloudTrail events matched by an EventBridge rule whose target is an SNS topic with an HTTPS
 * subscription. The SNS envelope (see sns.ts) carries the EventBridge event as JSON text in `Message`:
 *
 *   { version: "0", id, "detail-type": "AWS API Call via CloudTrail" | "AWS Console Sign In via CloudTrail" | …,
 *     source: "aws.iam", account, time, region, resources: [],
 *     detail: { eventVersion, userIdentity: { type, principalId, arn, accountId, accessKeyId, userName,
 *               sessionContext }, eventTime, eventSource, eventName, awsRegion, sourceIPAddress, userAgent,
 *               errorCode?, errorMessage?, requestParameters, responseElements, requestID, eventID, readOnly,
 *               eventType, managementEvent, recipientAccountId, eventCategory } }
 *
 * SubscriptionConfirmation / UnsubscribeConfirmation envelopes are answered as `subscription` results.
 *
 * Status: always firing. An audit event is a thing that happened; it is never "resolved" by a later delivery.
 *
 * Fingerprint: `cloud-audit:<detail.eventID>` (CloudTrail's id of the event; a redelivery of the same event
 * collapses onto it), else `cloud-audit:<EventBridge id>`.
 *
 * Severity:
 *   critical — the root user acted (any event but a read-only one), or audit and detection were tampered with
 *              (StopLogging, DeleteTrail, UpdateTrail, PutEventSelectors, DeleteFlowLogs, DeleteDetector,
 *              DisableSecurityHub, StopConfigurationRecorder, DeleteConfigurationRecorder, …)
 *   high     — other changes to identities and access: a non-read-only IAM call, and sensitive changes such as
 *              AuthorizeSecurityGroupIngress, PutBucketPolicy, PutBucketAcl, DeleteBucketPolicy,
 *              DeletePublicAccessBlock, DisableKey, ScheduleKeyDeletion, CreateLoginProfile, UpdateLoginProfile
 *   warning  — a refused call (errorCode AccessDenied, UnauthorizedOperation, …) and failed console sign-ins
 *   info     — anything else the rule forwards (including calls that failed for other reasons: throttling,
 *              validation, a missing resource).
 *
 * Title: `<service>:<eventName> by <who>` (e.g. `iam:CreateAccessKey by alice`), with ` failed (<errorCode>)`
 * when refused (` failed` for a failed console sign-in). Request parameters and response elements are never
 * copied (they can hold keys and passwords).
 * Summary: who, from where, and the error message. URL: the CloudTrail console page of the event. Labels:
 * account, region, event_name, event_source, detail_type, principal_type, principal_arn, source_ip, error_code,
 * read_only, mfa.
 */
import { field, isoTime, record, str, type Json } from '../../engine/payload.ts';
import { alerts, event, fingerprint, id, Labels, safe, unreadable } from './alert-parsing.ts';
import { throughSns } from './sns.ts';
import type { AlertSeverity } from '../../domain/alerts/event.ts';
import type { ParseResult } from './parser.ts';
import { alertHandler } from '../alert-handler.ts';
import { MiB, type WebhookSource } from './source.ts';

const SOURCE = 'cloud-audit' as const;

const TAMPERING = new Set([
  'StopLogging',
  'DeleteTrail',
  'UpdateTrail',
  'PutEventSelectors',
  'DeleteEventDataStore',
  'DeleteFlowLogs',
  'DeleteDetector',
  'UpdateDetector',
  'DisableSecurityHub',
  'DeleteConfigRule',
  'StopConfigurationRecorder',
  'DeleteConfigurationRecorder',
  'DeleteDeliveryChannel',
  'DisableEbsEncryptionByDefault',
  'LeaveOrganization',
]);
const SENSITIVE = new Set([
  'AuthorizeSecurityGroupIngress',
  'PutBucketPolicy',
  'PutBucketAcl',
  'DeleteBucketPolicy',
  'DeletePublicAccessBlock',
  'DeleteBucketPublicAccessBlock',
  'PutAccountPublicAccessBlock',
  'DeleteAccountPublicAccessBlock',
  'DisableKey',
  'ScheduleKeyDeletion',
  'PutKeyPolicy',
  'CreateLoginProfile',
  'UpdateLoginProfile',
  'ModifySnapshotAttribute',
  'ModifyImageAttribute',
  'CreateAccessKey',
  'AssumeRoleWithWebIdentity',
]);
const DENIED = /^(AccessDenied|Client\.UnauthorizedOperation|UnauthorizedOperation|UnauthorizedAccess|AccessDeniedException|InvalidClientTokenId|SignatureDoesNotMatch)/;

function who(identity: Json | undefined): string {
  if (!identity) return 'unknown';
  const type = str(identity, 'type', 60);
  if (type === 'Root') return 'root';
  const userName = str(identity, 'userName', 200);
  if (userName) return userName;
  const issuer = record(record(identity, 'sessionContext') ?? {}, 'sessionIssuer');
  const issuerName = issuer ? str(issuer, 'userName', 200) : undefined;
  const arn = str(identity, 'arn', 512);
  const session = arn?.includes('/') ? arn.slice(arn.lastIndexOf('/') + 1) : undefined;
  if (issuerName) return session ? `${issuerName}/${session}` : issuerName;
  if (arn) return arn.slice(arn.lastIndexOf(':') + 1);
  return str(identity, 'invokedBy', 200) ?? type ?? 'unknown';
}

function severityOf(detail: Json, eventName: string, eventSource: string | undefined, failed: boolean, refused: boolean): AlertSeverity {
  const identity = record(detail, 'userIdentity');
  const readOnly = field(detail, 'readOnly') === true;
  if (identity && str(identity, 'type') === 'Root' && !readOnly) return 'critical';
  if (TAMPERING.has(eventName) && !failed) return 'critical';
  if (!failed && (SENSITIVE.has(eventName) || (eventSource === 'iam.amazonaws.com' && !readOnly))) return 'high';
  if (refused) return 'warning';
  return 'info';
}

function readEvent(message: Json): ParseResult {
  const detailType = str(message, 'detail-type', 200);
  const detail = record(message, 'detail');
  if (!detailType || !detail) return unreadable('detail-type and detail are missing: expected an EventBridge event in the SNS Message');
  if (!/via CloudTrail$/i.test(detailType)) return unreadable('detail-type is not a CloudTrail event ("AWS API Call via CloudTrail", …)');
  const eventName = str(detail, 'eventName', 200);
  if (!eventName) return unreadable('detail.eventName is missing from the CloudTrail event');
  const eventId = id(field(detail, 'eventID')) ?? id(field(message, 'id'));
  if (!eventId) return unreadable('detail.eventID (and the EventBridge id) are missing from the CloudTrail event');

  const eventSource = str(detail, 'eventSource', 200);
  const service = eventSource?.replace(/\.amazonaws\.com$/, '');
  const identity = record(detail, 'userIdentity');
  const principal = who(identity);
  const errorCode = str(detail, 'errorCode', 200);
  const response = record(detail, 'responseElements');
  const consoleFailure = eventName === 'ConsoleLogin' && response !== undefined && str(response, 'ConsoleLogin') === 'Failure';
  const failed = errorCode !== undefined || consoleFailure;
  const denied = errorCode !== undefined && DENIED.test(errorCode);
  const account = str(message, 'account', 40) ?? str(detail, 'recipientAccountId', 40);
  const region = str(message, 'region', 40) ?? str(detail, 'awsRegion', 40);
  const sourceIp = str(detail, 'sourceIPAddress', 200);
  const sessionAttributes = record(record(identity ?? {}, 'sessionContext') ?? {}, 'attributes');
  const extra = record(detail, 'additionalEventData');
  const mfa = (sessionAttributes ? str(sessionAttributes, 'mfaAuthenticated', 10) : undefined) ?? (extra ? str(extra, 'MFAUsed', 10) : undefined);

  const labels = new Labels()
    .set('account', account)
    .set('region', region)
    .set('event_name', eventName)
    .set('event_source', eventSource)
    .set('detail_type', detailType)
    .set('principal_type', identity ? str(identity, 'type') : undefined)
    .set('principal_arn', identity ? str(identity, 'arn') : undefined)
    .set('source_ip', sourceIp)
    .set('error_code', errorCode ?? (consoleFailure ? 'Failure' : undefined))
    .set('read_only', field(detail, 'readOnly'))
    .set('mfa', mfa).map;

  const title = `${service ? `${service}:` : ''}${eventName} by ${principal}${errorCode ? ` failed (${errorCode})` : failed ? ' failed' : ''}`;
  const summary = [
    `${identity ? (str(identity, 'arn', 512) ?? principal) : principal} called ${eventName}${eventSource ? ` on ${eventSource}` : ''}${sourceIp ? ` from ${sourceIp}` : ''}${account ? ` in account ${account}` : ''}${region ? ` (${region})` : ''}.`,
    str(detail, 'errorMessage', 2000),
  ]
    .filter((s) => s !== undefined)
    .join('\n');
  const cloudTrailId = id(field(detail, 'eventID'));
  const url = region && cloudTrailId && /^[a-z]{2}(-[a-z]+)+-\d$/.test(region)
    ? `https://${region}.console.aws.amazon.com/cloudtrail/home?region=${region}#/events/${encodeURIComponent(cloudTrailId)}`
    : undefined;

  return alerts([
    event({
      fingerprint: fingerprint(SOURCE, eventId),
      status: 'firing',
      title,
      source: SOURCE,
      severity: severityOf(detail, eventName, eventSource, failed, denied || consoleFailure),
      summary,
      labels,
      url,
      started_at: isoTime(field(detail, 'eventTime')) ?? isoTime(field(message, 'time')),
      external_id: eventId,
    }),
  ]);
}

export const parse = safe(SOURCE, throughSns(readEvent));

const product = 'CloudTrail event (EventBridge/SNS)';

export const cloudAudit: WebhookSource = {
  segment: SOURCE,
  product,
  // SNS messages are at most 256 KiB; the envelope adds little
  bodyLimit: MiB,
  // the notification topic's own signature, checked by the handler when the operator switched it on
  signing: null,
  parser: parse,
  handler: (options) => alertHandler({ product, parser: parse, topic: true }, options),
};
