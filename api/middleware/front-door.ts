/**
 * What the public app does around every request, as one Koa middleware, in the
 * order of CONTRACT §3: the request id; the client as trusted proxies tell it;
 * HTTPS only; no key in the query string; then the routes. Whatever they
 * throw becomes its JSON answer here, so that the request metrics and the
 * access log, written last, see the final status.
 *
 * One middleware rather than seven (issue 16): each Koa layer costs a
 * dispatch, a bound function and a promise on every request, and these steps
 * never wait for anything, so they are plain functions called in turn
 * (request-id.ts, trusted-proxies.ts, https-only.ts, query-key-guard.ts,
 * error-handler.ts, access-log.ts, ops/metrics.ts).
 */
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import { logRequest } from './access-log.ts';
import { renderError, throwIfUnanswered } from './error-handler.ts';
import { requireHttps } from './https-only.ts';
import { refuseKeyInQuery } from './query-key-guard.ts';
import { assignRequestId } from './request-id.ts';
import { resolveClient, type TrustedProxies } from './trusted-proxies.ts';

export function frontDoor(deps: { logger: Logger; metrics: Metrics; proxies: TrustedProxies }) {
  const { logger, metrics, proxies } = deps;
  return async function frontDoor(ctx: Context, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    assignRequestId(ctx, logger);
    try {
      resolveClient(ctx, proxies);
      requireHttps(ctx);
      refuseKeyInQuery(ctx);
      await next();
      throwIfUnanswered(ctx);
    } catch (err) {
      renderError(ctx, err, logger);
    }
    try {
      // Under the route template the router matched (never the raw path).
      metrics.record((ctx as Context & { _matchedRoute?: string })._matchedRoute ?? 'unmatched', ctx.method, ctx.status, started);
      if (logger.isLevelEnabled('info')) logRequest(ctx, started);
    } catch (err) {
      // Counting or logging an answer never changes it (nor does the logger failing again here).
      try {
        logger.error({ err, requestId: ctx.state.requestId }, 'could not record the request');
      } catch {
        // Nothing left to tell it to.
      }
    }
  };
}
