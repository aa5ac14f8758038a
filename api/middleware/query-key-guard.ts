/**
 * A key in the query string is refused with 400 before anything else looks at
 * the request (CONTRACT §3): URLs end up in proxies' and browsers' logs.
 */
import type { Context } from 'koa';
import { apiKeyInQuery } from '../errors.ts';

export const QUERY_KEY_PARAMETERS = new Set(['api_key', 'apikey', 'key', 'token', 'access_token']);

/** Throws the 400 when a parameter of the query string is named like a key. */
export function refuseKeyInQuery(ctx: Context): void {
  const query = ctx.querystring;
  if (!query) return;
  for (const name of new URLSearchParams(query).keys()) {
    if (QUERY_KEY_PARAMETERS.has(name.toLowerCase())) throw apiKeyInQuery(name);
  }
}
