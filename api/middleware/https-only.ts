/**
 * HTTPS only, never a redirect (a redirect would let a client believe a request
 * that already sent its key in clear text had succeeded). Behind a proxy
 * (TRUST_PROXY) the proxy's X-Forwarded-Proto decides.
 */
import type { Context, Next } from 'koa';
import { httpsRequired } from '../errors.ts';

export const HSTS = 'max-age=63072000; includeSubDomains';

/**
 * With TRUST_PROXY the proxy's X-Forwarded-Proto decides (its first value: the
 * proxy nearest the client); otherwise only a TLS connection counts.
 */
export function isHttps(ctx: Context, trustProxy: boolean): boolean {
  const forwarded = trustProxy ? ctx.get('x-forwarded-proto').split(',')[0]!.trim().toLowerCase() : '';
  if (forwarded) return forwarded === 'https';
  return (ctx.req.socket as { encrypted?: boolean }).encrypted === true;
}

export function httpsOnly(trustProxy: boolean) {
  return async function httpsOnly(ctx: Context, next: Next): Promise<void> {
    if (!isHttps(ctx, trustProxy)) throw httpsRequired();
    ctx.set('Strict-Transport-Security', HSTS);
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  };
}
