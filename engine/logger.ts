import { pino } from 'pino';

export type Logger = pino.Logger;

/** Structured logs; secrets never reach a log line because only projected rows and codes are logged. */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: undefined, redact: ['req.headers.authorization', '*.api_key', '*.token'] });
}
