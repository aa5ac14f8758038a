/**
 * A key in the query string is refused with 400 before anything else looks at
 * the request (CONTRACT §3): URLs end up in proxies' and browsers' logs.
 */
import type { Context, Next } from 'koa';
import { apiKeyInQuery } from '../errors.ts';

export const QUERY_KEY_PARAMETERS = new Set(['api_key', 'apikey', 'key', 'token', 'access_token']);

export function queryKeyGuard() {
  return function queryKeyGuard(ctx: Context, next: Next): Promise<void> {
    if (ctx.querystring) {
      for (const name of new URLSearchParams(ctx.querystring).keys()) {
        if (QUERY_KEY_PARAMETERS.has(name.toLowerCase())) throw apiKeyInQuery(name);
      }
    }
    return next();
  };
}
