/**
 * pino, one JSON object a line. Secrets never reach a log line: the
 * Authorization header is redacted and query strings are logged without values
 * of key-looking parameters (see middleware/access-log.ts). On a terminal the
 * same lines are printed readable (LOG_FORMAT, log-format.ts).
 */
import cluster from 'node:cluster';
import { pino, type Logger, type DestinationStream } from 'pino';
import { chooseLogFormat, prettyDestination, type LogFormat } from './log-format.ts';

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

/** The service's own log on stdout, in the format LOG_FORMAT asks for (unset: pretty on a terminal, JSON otherwise). */
export function createStdoutLogger(level: string, format: LogFormat | null): Logger {
  const chosen = chooseLogFormat(format, process.stdout.isTTY === true);
  return createLogger(level, chosen === 'pretty' ? prettyDestination(process.stdout) : undefined);
}
