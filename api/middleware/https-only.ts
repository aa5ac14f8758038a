/**
 * HTTPS only, never a redirect (a redirect would let a client believe a request
 * that already sent its key in clear text had succeeded). Whether the client
 * used HTTPS is decided by resolveClient (trusted-proxies.ts): the TLS
 * connection, or the report of a proxy listed in TRUST_PROXY.
 */
import type { Context } from 'koa';
import { httpsRequired } from '../errors.ts';

export const HSTS = 'max-age=63072000; includeSubDomains';

/** Refuses a request that did not come over HTTPS (after resolveClient); marks an HTTPS answer with HSTS and nosniff. */
export function requireHttps(ctx: Context): void {
  if (ctx.state.https !== true) throw httpsRequired();
  ctx.res.setHeader('Strict-Transport-Security', HSTS);
  ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
}
