/**
 * GET /api/v1/docs (no key): the OpenAPI document in the browser, rendered by Redoc 2
 * (its standalone bundle, from the `redoc` package), with the document's webhooks when it has
 * any. Everything the page loads comes from our own origin, as content-hashed files cached for a
 * year, under a Content-Security-Policy that allows nothing else:
 * - `script-src 'self'`: Redoc's bundle and our few lines that start it (no inline script);
 * - `style-src 'self' 'unsafe-inline'`: Redoc styles itself with styled-components, which
 *   writes `<style>` elements at run time and, in the standalone bundle, cannot be given a nonce;
 * - `worker-src blob:`: Redoc's search index runs in a worker it creates from a blob;
 * - `connect-src 'self'`: the document itself; `img-src 'self' data:`: Redoc's inline icons.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import type { RouterContext } from '@koa/router';
import type { Context } from 'koa';
import { notFound } from '../errors.ts';

export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Starts Redoc (the first successful response open, system fonts: no font files at all), then
 * mends two things of Redoc's markup that axe finds, on every render: the sub-headings it writes
 * as h5 right below an operation's h2 are given level 3, and a code sample that scrolls sideways
 * is made focusable so that a keyboard can scroll it.
 */
const START = `(function () {
  var root = document.getElementById('reference');
  document.body.style.margin = '0';
  function mend() {
    root.querySelectorAll('h5:not([aria-level])').forEach(function (h) { h.setAttribute('aria-level', '3'); });
    root.querySelectorAll('pre').forEach(function (pre) {
      if (pre.scrollWidth > pre.clientWidth) pre.setAttribute('tabindex', '0');
      else pre.removeAttribute('tabindex');
    });
  }
  new MutationObserver(mend).observe(root, { childList: true, subtree: true });
  window.addEventListener('resize', mend);
  Redoc.init('/api/v1/openapi.json', {
    expandResponses: '200',
    jsonSampleExpandLevel: 3,
    theme: { typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' }, code: { fontFamily: 'ui-monospace, monospace' } } }
  }, root, mend);
})();
`;

interface Asset {
  name: string;
  body: Buffer;
  gzip: Buffer;
}

function asset(base: string, body: Buffer): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `${base}-${hash}.js`, body, gzip: gzipSync(body, { level: 9 }) };
}

/** The one address of another origin Redoc's bundle loads by itself: the logo beside its credit line. */
const REMOTE_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';

/**
 * Redoc draws its logo from its CDN, unconditionally; an empty `src` makes no request, and
 * Redoc's own error handler then leaves the image out. The e2e test fails if a newer bundle
 * loads anything else from elsewhere.
 */
function withoutRemoteLogo(bundle: string): Buffer {
  return Buffer.from(bundle.replaceAll(REMOTE_LOGO, '""'));
}

interface Reference {
  page: string;
  byName: Map<string, Asset>;
}

/** The page and its two scripts, read, hashed and compressed once, at the first request. */
function load(): Reference {
  const redocFile = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  const assets = [asset('redoc.standalone', withoutRemoteLogo(readFileSync(redocFile, 'utf8'))), asset('start', Buffer.from(START))];
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="Reference of the Review Proof API: every endpoint, parameter, answer and error.">
<title>Review Proof API reference</title>
</head>
<body>
<main id="reference"><noscript><p>The reference needs JavaScript. The OpenAPI document itself is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p></noscript></main>
${assets.map((a) => `<script src="/api/v1/docs/${a.name}"></script>`).join('\n')}
</body>
</html>
`;
  return { page, byName: new Map(assets.map((a) => [a.name, a])) };
}

export function apiReference() {
  let reference: Reference | null = null;
  const loaded = (): Reference => (reference ??= load());
  return {
    page: async function apiReferencePage(ctx: Context): Promise<void> {
      ctx.set('Content-Security-Policy', REFERENCE_CSP);
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = loaded().page;
    },
    file: async function apiReferenceFile(ctx: Context): Promise<void> {
      const found = loaded().byName.get((ctx as RouterContext).params.file ?? '');
      if (!found) throw notFound();
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.set('Vary', 'Accept-Encoding');
      ctx.type = 'text/javascript; charset=utf-8';
      if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
        ctx.set('Content-Encoding', 'gzip');
        ctx.body = found.gzip;
      } else {
        ctx.body = found.body;
      }
    },
  };
}
