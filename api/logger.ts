/**
 * pino, one JSON object a line. Secrets never reach a log line: the
 * Authorization header is redacted and query strings are logged without values
 * of key-looking parameters (see middleware/access-log.ts).
 */
import cluster from 'node:cluster';
import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      // Under WORKERS=N each line says which worker process wrote it.
      base: { service: 'review-proof', ...(cluster.isWorker && { pid: process.pid }) },
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'key', 'apiKey', 'token', 'adminToken', 'hash'],
        censor: '[redacted]',
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
