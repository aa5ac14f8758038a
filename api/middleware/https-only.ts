/**
 * HTTPS only, never a redirect (a redirect would let a client believe a request
 * that already sent its key in clear text had succeeded). Behind a proxy
 * (TRUST_PROXY) Koa derives ctx.protocol from X-Forwarded-Proto.
 */
import type { Context, Next } from 'koa';
import { httpsRequired } from '../errors.ts';

export const HSTS = 'max-age=63072000; includeSubDomains';

export function httpsOnly() {
  return async function httpsOnly(ctx: Context, next: Next): Promise<void> {
    if (ctx.protocol !== 'https') throw httpsRequired();
    ctx.set('Strict-Transport-Security', HSTS);
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  };
}
