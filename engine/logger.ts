import { DriverException } from '@mikro-orm/core';
import { pino } from 'pino';
import { requestContext } from './observability/context.ts';

export type Logger = pino.Logger;

/** Headers that carry a credential or a signing secret, wherever a request's headers are logged. */
const SECRET_HEADERS = ['authorization', 'cookie', 'x-vigil-signature-secret'];
/** Fields that hold a secret, at the top of a line or one level down in whatever object is logged. */
const SECRET_FIELDS = ['api_key', 'token', 'secret', 'password', 'private_key', 'signing_secret', 'bot_token', 'webhook_token', 'key'];
/** A raw path or URL: a webhook URL carries the organization's token as its third segment. */
const URL_PATHS = ['req.url', 'url', '*.url', 'path', '*.path'];
const REDACTED_PATHS = [
  ...SECRET_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `headers["${h}"]`]),
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`]),
  ...URL_PATHS,
];

/** Whole values become [redacted]; in a URL only the webhook token segment does, so the line stays useful. */
function censor(value: unknown, path: string[]): unknown {
  const last = path[path.length - 1];
  if ((last === 'url' || last === 'path') && typeof value === 'string') return value.replace(/(\/webhooks\/[^/?#]+\/)[^/?#]+/, '$1[redacted]');
  return '[redacted]';
}

/**
 * Structured JSON logs. Every line written while serving a request carries its `request_id`, and once known its
 * `organization_id` and `credential_id` (ids only). Secrets never reach a log line because only projected rows,
 * codes and routes (never raw paths, which can hold a webhook token) are logged; the redaction paths are a second
 * guard for fields that would hold one.
 */
export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    mixin() {
      const context = requestContext.getStore();
      if (!context) return {};
      return { request_id: context.requestId, organization_id: context.organizationId, credential_id: context.credentialId };
    },
    redact: { paths: REDACTED_PATHS, censor },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * What of an error may be logged (or kept with a job): a database driver's message carries SQL and parameter
 * values — payloads, perhaps secrets — so those keep only their class name; other errors keep their message
 * (their authors keep secrets out of it).
 */
export function loggedError(error: unknown): { name: string; message: string } {
  if (!(error instanceof Error)) return { name: 'Error', message: 'a value that is not an Error was thrown' };
  return { name: error.name, message: error instanceof DriverException ? `database error (${error.name})` : error.message };
}
