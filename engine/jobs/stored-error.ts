/**
 * What of a handler's exception pg-boss may keep with the job (it stores message and stack in
 * `pgboss.job.output`). A database driver's message carries SQL and parameter values, so those errors keep
 * only their class name; the handler's own errors keep their message (their authors keep secrets out of it).
 * Only the message and the stack frames are kept, never other properties an error object may hold.
 */
import { loggedError } from '../logger.ts';

export function storedError(error: unknown): Error {
  const original = error instanceof Error ? error : new Error('the handler threw a value that is not an Error');
  const { message } = loggedError(original);
  const stored = new Error(message);
  const frames = (original.stack ?? '').split('\n').filter((line) => line.startsWith('    at '));
  stored.stack = [`Error: ${message}`, ...frames].join('\n');
  return stored;
}
