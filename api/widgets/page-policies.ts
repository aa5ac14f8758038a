/**
 * Content-Security-Policy for the two pages that carry tenant content on the
 * service's own origin (the dashboard's origin): the server-rendered widget
 * and the demo page. Both are sandboxed (an opaque origin: no cookies, no
 * storage, no same-origin access to `/dashboard/api`), so an escaping slip in
 * tenant text could not become script acting with a visitor's session.
 */

/**
 * The server-rendered widget: a fragment for server-side includes, never
 * meant to run script. Opened (or framed) on its own it draws its shadow
 * root's styles and the reviewers' pictures, nothing else. Framing is
 * allowed (an include may be an iframe); sandboxed, it can do nothing there.
 */
export const WIDGET_HTML_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; form-action 'none'";

/**
 * The demo page runs the widget loader exactly as a host page would: scripts
 * and the public data from this origin only, the widget's inline styles,
 * pictures. Sandboxed with scripts allowed but not the same origin, so its
 * requests are cross-origin ones (the public CORS answers them) that carry no
 * cookie. Never framed.
 */
export function demoCsp(origin: string): string {
  return [
    'sandbox allow-scripts',
    "default-src 'none'",
    `script-src ${origin}`,
    `connect-src ${origin}`,
    "style-src 'unsafe-inline'",
    `img-src ${origin} https: data:`,
    `font-src ${origin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
