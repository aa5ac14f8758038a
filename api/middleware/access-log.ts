/**
 * One log line per request. The query string is logged with the values of
 * key-looking parameters replaced: a key pasted into a URL must not land in logs.
 */
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.ts';
import { QUERY_KEY_PARAMETERS } from './query-key-guard.ts';

export function redactedUrl(path: string, querystring: string): string {
  if (!querystring) return path;
  const params = new URLSearchParams(querystring);
  const parts: string[] = [];
  for (const [name, value] of params) {
    const secret = QUERY_KEY_PARAMETERS.has(name.toLowerCase()) || /^rvp_/i.test(value);
    parts.push(`${encodeURIComponent(name)}=${secret ? '[redacted]' : encodeURIComponent(value.slice(0, 200))}`);
  }
  return `${path}?${parts.join('&')}`;
}

export function accessLog(logger: Logger) {
  return async function accessLog(ctx: Context, next: Next): Promise<void> {
    if (!logger.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const log = ctx.state.log as Logger;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        {
          method: ctx.method,
          url: redactedUrl(ctx.path.slice(0, 2048), ctx.querystring.slice(0, 4096)),
          status: ctx.status,
          ms: Math.round(ms * 100) / 100,
          orgId: (ctx.state.auth as { org?: { id: string } } | undefined)?.org?.id,
          error: ctx.state.errorCode,
        },
        'request',
      );
    }
  };
}
