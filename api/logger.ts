/**
 * pino, one JSON object a line. Secrets never reach a log line: the
 * Authorization header is redacted and query strings are logged without values
 * of key-looking parameters (see middleware/access-log.ts).
 */
import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'review-proof' },
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'key', 'apiKey', 'token', 'adminToken', 'hash'],
        censor: '[redacted]',
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
