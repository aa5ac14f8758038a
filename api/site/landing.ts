/**
 * GET /: a small page for a person who opens the service's address in a
 * browser (the JSON APIs keep their JSON): where the dashboard, the demo and
 * the API reference are. No script; its one stylesheet is inline.
 */
import type { Context } from 'koa';
import { FAVICON_LINK } from './favicon.ts';

export const LANDING_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function landingHtml(options: { demo: boolean }): string {
  const demo = options.demo
    ? '<li><a href="/demo">Demo page</a><span>every widget layout of the demo organization, with the snippet to paste</span></li>'
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="Review Proof: a self-hosted review data API, embeddable review widgets and a dashboard.">
<title>Review Proof</title>
${FAVICON_LINK}
<style>
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f6f7f9; color: #111827; }
  main { max-width: 640px; margin: 0 auto; padding: 48px 20px; }
  h1 { display: flex; align-items: center; gap: 12px; margin: 0 0 8px; font-size: 28px; }
  h1 img { width: 36px; height: 36px; }
  p { margin: 0 0 24px; color: #4b5563; }
  ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 12px; }
  li { background: #fff; border: 1px solid #e2e5ea; border-radius: 10px; padding: 16px 20px; }
  a { color: #4338ca; font-weight: 650; font-size: 18px; }
  li span { display: block; color: #4b5563; }
</style>
</head>
<body>
<main>
  <h1><img src="/favicon.svg" alt="">Review Proof</h1>
  <p>Reviews from every platform: an API for your code, widgets for your pages, a dashboard for your team.</p>
  <ul>
    <li><a href="/dashboard">Dashboard</a><span>sign in to manage reviews, widgets, API keys and members</span></li>
    ${demo}
    <li><a href="/api/v1/docs">API reference</a><span>the review API at <code>/api/v1</code>, with Bearer keys</span></li>
  </ul>
</main>
</body>
</html>
`;
}

export function landingPage(options: { demo: boolean }) {
  const html = landingHtml(options);
  return async function landingPage(ctx: Context): Promise<void> {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', LANDING_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = html;
  };
}
