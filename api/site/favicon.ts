/**
 * The service's icon (the dashboard's brand mark: a white star on indigo), at
 * /favicon.svg for pages that link it and at /favicon.ico, which browsers ask
 * for on every page that links none (the API's JSON opened in a tab).
 */
import type { Context } from 'koa';

export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#4338ca"/><path fill="#fff" d="M16 5.5l3.1 6.6 7.2.9-5.3 5 1.4 7.1L16 21.6l-6.4 3.5 1.4-7.1-5.3-5 7.2-.9z"/></svg>';

/** The `<link>` every page of the service puts in its head. */
export const FAVICON_LINK = '<link rel="icon" href="/favicon.svg" type="image/svg+xml">';

export function favicon() {
  return async function favicon(ctx: Context): Promise<void> {
    ctx.type = 'image/svg+xml';
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = FAVICON_SVG;
  };
}
