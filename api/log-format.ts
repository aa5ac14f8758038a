/**
 * LOG_FORMAT: the log is one JSON object a line (pino) for machines, and
 * readable lines for a person watching `npm start` in a terminal. Unset, the
 * terminal decides: pretty when stdout is a TTY, JSON when it is a pipe or a
 * file (a log collector, systemd, a container). The pretty line is made from
 * the same JSON line, so it never shows what the JSON would not (the
 * redaction of logger.ts and access-log.ts has already happened).
 */
import type { DestinationStream } from 'pino';

export type LogFormat = 'json' | 'pretty';

export function chooseLogFormat(configured: LogFormat | null, isTTY: boolean): LogFormat {
  return configured ?? (isTTY ? 'pretty' : 'json');
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, or that the line's head already shows. */
const SHOWN = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname']);
const REQUEST_FIELDS = new Set(['method', 'url', 'status', 'ms']);

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v);
}

/**
 * One pino JSON line as a person reads it:
 * `12:00:01.234 INFO  request GET /api/v1/reviews 200 3.2 ms requestId=…`
 * and an error's stack on the lines below, indented. A line that is not JSON is kept as it is.
 */
export function prettyLine(json: string): string {
  let line: Record<string, unknown>;
  try {
    line = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  if (line === null || typeof line !== 'object') return `${json.trimEnd()}\n`;
  const time = typeof line.time === 'string' ? (/T(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(line.time)?.[1] ?? line.time) : '';
  const level = (LEVELS[Number(line.level)] ?? String(line.level)).padEnd(5);
  const parts = [time, level];
  if (line.pid !== undefined) parts.push(`[${String(line.pid)}]`);
  parts.push(String(line.msg ?? ''));
  const isRequest = line.msg === 'request' && typeof line.method === 'string';
  if (isRequest) parts.push(String(line.method), String(line.url ?? ''), String(line.status ?? ''), `${String(line.ms ?? '')} ms`);
  let stack = '';
  for (const [key, v] of Object.entries(line)) {
    if (SHOWN.has(key) || v === undefined || (isRequest && REQUEST_FIELDS.has(key))) continue;
    if (key === 'err' && v !== null && typeof v === 'object') {
      const err = v as { message?: unknown; stack?: unknown };
      parts.push(`err=${value(String(err.message ?? ''))}`);
      if (typeof err.stack === 'string') stack = `\n${err.stack.split('\n').map((l) => `    ${l}`).join('\n')}`;
      continue;
    }
    parts.push(`${key}=${value(v)}`);
  }
  return `${parts.join(' ')}${stack}\n`;
}

/** A pino destination that writes each line pretty to `out` (the terminal). */
export function prettyDestination(out: { write(chunk: string): unknown }): DestinationStream {
  return {
    write(chunk: string): void {
      // pino writes one line per call; split anyway, in case it ever hands over several.
      for (const json of chunk.split('\n')) if (json !== '') out.write(prettyLine(json));
    },
  };
}
