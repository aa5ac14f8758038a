/**
 * The dashboard's pages and static files. Every page path answers the same
 * small HTML document that loads the hashed script and stylesheet (no inline
 * script or style), under a strict CSP; the script routes on the client.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'koa';
import { notFound } from '../errors.ts';
import { FAVICON_LINK } from '../site/favicon.ts';
import { sendAsset, type Asset } from '../widgets/assets.ts';
import { DASHBOARD_DIST, type DashboardManifest } from '../../dashboard/build.ts';

/** Client routes (dashboard/routes.ts lists the same). */
export const PAGE_PATHS = ['', '/sign-in', '/overview', '/reviews', '/products', '/collect', '/widgets', '/api-keys', '/members', '/audit', '/invitation', '/sources', '/webhooks'];
/** The widget builder: /widgets/new and /widgets/{id}. */
PAGE_PATHS.push('/widgets/:id');
/** A webhook endpoint's detail view: /webhooks/{id}. */
PAGE_PATHS.push('/webhooks/:id');

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  // The Collect page frames the invitation mail's preview (/dashboard/api/invitations/preview.html, sandboxed): our own origin only.
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export interface DashboardAssets {
  html: string;
  files: Map<string, Asset & { type: string }>;
}

export async function loadDashboardAssets(dist = DASHBOARD_DIST): Promise<DashboardAssets> {
  if (!existsSync(join(dist, 'manifest.json'))) {
    const { buildDashboard } = await import('../../dashboard/build.ts');
    await buildDashboard({ outDir: dist });
  }
  const manifest = JSON.parse(await readFile(join(dist, 'manifest.json'), 'utf8')) as DashboardManifest;
  const files = new Map<string, Asset & { type: string }>();
  const script = 'application/javascript; charset=utf-8';
  // The chunks are what pages load by import() (the Overview's charts): served like the script.
  for (const [name, type] of [[manifest.script, script], [manifest.stylesheet, 'text/css; charset=utf-8'], ...(manifest.chunks ?? []).map((chunk) => [chunk, script] as const)] as const) {
    const [raw, gzip, brotli] = await Promise.all(['', '.gz', '.br'].map((ext) => readFile(join(dist, name + ext))));
    files.set(name, { name, type, raw: raw!, gzip: gzip!, brotli: brotli!, etag: `"${createHash('sha256').update(raw!).digest('base64url').slice(0, 22)}"`, immutable: true });
  }
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Review Proof dashboard</title>',
    FAVICON_LINK,
    `<link rel="stylesheet" href="/dashboard/assets/${manifest.stylesheet}">`,
    `<script type="module" src="/dashboard/assets/${manifest.script}"></script>`,
    '</head>',
    '<body>',
    '<div id="app"></div>',
    '<noscript><p>The dashboard needs JavaScript.</p></noscript>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
  return { html, files };
}

/** Headers every dashboard answer carries, JSON included. */
export function dashboardHeaders() {
  return async function dashboardHeaders(ctx: Context, next: () => Promise<void>): Promise<void> {
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Content-Security-Policy', DASHBOARD_CSP);
    ctx.set('Cache-Control', 'no-store');
    await next();
  };
}

export function servePage(assets: DashboardAssets) {
  return async function servePage(ctx: Context): Promise<void> {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = assets.html;
  };
}

/**
 * Any other path under /dashboard: the same page with status 404, whose
 * script shows the dashboard's own "Page not found". The JSON API's unknown
 * paths (/dashboard/api/…) stay the JSON 404 of every API.
 */
export function servePageNotFound(assets: DashboardAssets) {
  return async function servePageNotFound(ctx: Context, next: () => Promise<void>): Promise<void> {
    if (/^\/dashboard\/(api|assets)(\/|$)/i.test(ctx.path)) return next();
    ctx.status = 404;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = assets.html;
  };
}

export function serveAsset(assets: DashboardAssets) {
  return async function serveAsset(ctx: Context): Promise<void> {
    const asset = assets.files.get(String(ctx.params.file));
    if (!asset) throw notFound('Dashboard file');
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    sendAsset(ctx, asset, asset.type);
  };
}
