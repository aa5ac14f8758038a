/**
 * The real service end to end: `api/main.ts` over HTTPS on a fresh embedded
 * store (started once for this file), its own demo page, and host pages on
 * another origin that paste exactly what `GET /api/v1/widgets/{id}/embed`
 * returned, in Debian's Chromium.
 */
import { createHash } from 'node:crypto';
import { expect, test, type Page, type Request } from '@playwright/test';
import type { Widget, WidgetLayout } from '../api/store/types.ts';
import type { PublicReview, PublicWidgetData } from '../widget/src/public-data.ts';
import { startHostPages, startRealService, type HostPages, type RealService } from './support/real-server.ts';
import { chunksServed, expectedFiles } from './support/widget-files.ts';

// One service for the whole file: the tests share it in this worker, in order.
test.describe.configure({ mode: 'default' });

/** A review as `GET /api/v1/reviews` returns it (only what these tests compare). */
interface ApiReview {
  id: string;
  platform: string;
  authorName: string;
  rating: number | null;
  content: string;
}

interface ApiPage<T> {
  data: T[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

interface Stats {
  totalReviews: number;
  averageRating: number | null;
}

interface Embed {
  widgetId: string;
  snippet: string;
  script: string;
}

let service: RealService;
let host: HostPages;
let widgets: Map<WidgetLayout, Widget>;
let storeReviews: ApiReview[];

test.beforeAll(async () => {
  // Start-up compiles TypeScript with tsx and seeds ~300 reviews: more than a test's 30 s on a busy machine.
  test.setTimeout(150_000);
  [service, host] = await Promise.all([startRealService(), startHostPages()]);
  widgets = new Map((await service.widgets()).map((w) => [w.layout, w]));
  storeReviews = [];
  for (let offset = 0; ; offset += 100) {
    const page = await service.api<ApiPage<ApiReview>>(`/reviews?limit=100&offset=${offset}`);
    storeReviews.push(...page.data);
    if (!page.pagination.hasMore) break;
  }
});

test.afterAll(async () => {
  await Promise.all([service?.stop(), host?.close()]);
});

function widget(layout: WidgetLayout): Widget {
  const found = widgets.get(layout);
  if (!found) throw new Error(`no demo ${layout} widget`);
  return found;
}

/** What the store says a widget shows: its filters over the newest-first reviews, then its maximum. */
function storeSelection(w: Widget): ApiReview[] {
  const { platforms, minRating, hideEmpty, maxReviews } = w.options;
  return storeReviews
    .filter(
      (r) =>
        (platforms === null || platforms.includes(r.platform.toUpperCase())) &&
        (minRating === null || (r.rating !== null && r.rating >= minRating)) &&
        (!hideEmpty || r.content.trim() !== ''),
    )
    .slice(0, maxReviews);
}

async function publicData(id: string): Promise<PublicWidgetData> {
  const res = await service.get<{ data: PublicWidgetData }>(`/public/v1/widgets/${encodeURIComponent(id)}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function embed(id: string): Promise<Embed> {
  return (await service.api<{ data: Embed }>(`/widgets/${encodeURIComponent(id)}/embed`)).data;
}

/** Author and text of every review card a container rendered, in order. */
async function renderedReviews(page: Page, id: string): Promise<{ name: string; text: string }[]> {
  return page
    .locator(`[data-rv-widget="${id}"]`)
    .first()
    .locator('article')
    .evaluateAll((cards) =>
      cards.map((card) => ({
        name: card.querySelector('.name-text')?.textContent ?? '',
        text: card.querySelector('.text')?.textContent ?? '',
      })),
    );
}

/**
 * The cards show the given reviews from the first on: all of them in a
 * carousel (off-screen slides are rendered, inert), the first page in a grid
 * or list.
 */
async function expectRendered(page: Page, id: string, layout: WidgetLayout, reviews: PublicReview[]): Promise<void> {
  const expected = reviews.map((r) => ({ name: r.authorName, text: r.content }));
  // A carousel's off-screen slides get their reviews a task after the first render: waited for, not read once.
  if (layout === 'carousel') await expect.poll(() => renderedReviews(page, id)).toEqual(expected);
  else await expect.poll(async () => (await renderedReviews(page, id)).length).toBeGreaterThanOrEqual(Math.min(2, expected.length));
  const shown = await renderedReviews(page, id);
  if (layout !== 'carousel') expect(shown).toEqual(expected.slice(0, shown.length));
  // Real text, not placeholders: the demo reviews are sentences.
  expect(shown.some((r) => r.text.split(' ').length >= 5)).toBe(true);
}

/** Waits until `count` containers have rendered their widget root in a shadow root. */
async function waitForWidgets(page: Page, count: number): Promise<void> {
  await page.waitForFunction(
    (n) => Array.from(document.querySelectorAll('[data-rv-widget]')).filter((el) => el.shadowRoot?.querySelector('.rv')).length >= n,
    count,
  );
}

function hostPage(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font:16px/1.6 Georgia,serif;margin:0;background:#fffdf7;color:#222}main{max-width:1040px;margin:0 auto;padding:24px}section{margin:32px 0}</style>${head}
</head>
<body><main><h1>${title}</h1>
${body}
</main></body></html>`;
}

/** Every request the page makes, and what went wrong in it. */
function watch(page: Page): { requests: Request[]; problems: string[]; console: string[] } {
  const seen = { requests: [] as Request[], problems: [] as string[], console: [] as string[] };
  page.on('request', (r) => seen.requests.push(r));
  page.on('requestfailed', (r) => seen.problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('pageerror', (e) => seen.problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    seen.console.push(m.text());
    if (m.text().startsWith('[reviews]')) seen.problems.push(`widget: ${m.text()}`);
  });
  return seen;
}

/**
 * No request carries the API key (URL, any header, body) or any Bearer
 * credential, and none leaves the service and host origins.
 */
async function expectCleanRequests(requests: Request[]): Promise<void> {
  const allowed = new Set([service.origin, host.origin]);
  const key = service.banner.apiKey;
  const secret = key.slice('rvp_live_'.length);
  expect(requests.length).toBeGreaterThan(0);
  for (const r of requests) {
    const url = r.url();
    expect(allowed.has(new URL(url).origin), `request to ${url}`).toBe(true);
    const headers = await r.allHeaders();
    const seen = JSON.stringify({ url, headers, body: r.postData() });
    expect(seen, url).not.toContain(key);
    expect(seen, url).not.toContain(secret);
    expect(seen, url).not.toMatch(/rvp_live_/i);
    expect(Object.keys(headers).map((h) => h.toLowerCase()), url).not.toContain('authorization');
  }
}

test('GET /demo renders the four demo widgets with the reviews in the store; full-page screenshot kept', async ({ page }, testInfo) => {
  expect([...widgets.keys()].sort()).toEqual(['badge', 'carousel', 'grid', 'list']);
  const seen = watch(page);
  await page.goto(`${service.origin}/demo`);
  await waitForWidgets(page, 4);
  await page.waitForLoadState('networkidle');

  for (const layout of ['carousel', 'grid', 'list'] as const) {
    const w = widget(layout);
    const data = await publicData(w.id);
    // The public data is the store's newest reviews by the widget's options…
    expect(data.reviews.map((r) => [r.id, r.authorName, r.content])).toEqual(storeSelection(w).map((r) => [r.id, r.authorName, r.content]));
    // …and that is what the page shows.
    await expectRendered(page, w.id, layout, data.reviews);
    await expect(page.locator(`[data-rv-widget="${w.id}"] .rv.${layout}`)).toBeVisible();
  }

  const stats = (await service.api<{ data: Stats }>('/reviews/stats')).data;
  expect(stats.totalReviews).toBe(storeReviews.length);
  expect(stats.averageRating).not.toBeNull();
  const badge = page.locator(`[data-rv-widget="${widget('badge').id}"] .rv.badge`);
  const oneDecimal = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  await expect(badge.locator('.score')).toHaveText(oneDecimal.format(stats.averageRating!));
  await expect(badge.locator('.badge-count')).toHaveText(`${stats.totalReviews.toLocaleString('en-US')} reviews`);

  // The demo page is all on the service's own origin.
  expect(seen.problems).toEqual([]);
  for (const r of seen.requests) expect(new URL(r.url()).origin, r.url()).toBe(service.origin);

  const path = testInfo.outputPath('demo-page.png');
  await page.screenshot({ path, fullPage: true, animations: 'disabled' });
  await testInfo.attach('demo-page', { path, contentType: 'image/png' });
});

test('the pages with tenant content on the service origin are sandboxed (CSP) and still work: /demo draws its widgets, /public/v1/widgets/{id}/html its reviews', async ({ page }) => {
  const seen = watch(page);
  const csp: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
  });
  const demo = await page.goto(`${service.origin}/demo`);
  expect(demo!.headers()['content-security-policy']).toMatch(/^sandbox allow-scripts; default-src 'none'; /);
  expect(demo!.headers()['x-frame-options']).toBe('DENY');
  await waitForWidgets(page, 4);
  await page.waitForLoadState('networkidle');
  // An opaque origin: script on the page cannot read the service's cookies (nor call the dashboard's API with them).
  expect(await page.evaluate(() => window.origin)).toBe('null');
  expect(await page.evaluate(() => { try { return document.cookie; } catch { return 'blocked'; } })).toBe('blocked');
  expect(seen.problems).toEqual([]);
  expect(csp).toEqual([]);

  const w = widget('list');
  const data = await publicData(w.id);
  const html = await page.goto(`${service.origin}/public/v1/widgets/${w.id}/html`);
  expect(html!.headers()['content-security-policy']).toMatch(/^sandbox; default-src 'none'; /);
  await expect(page.locator(`[data-rv-widget="${w.id}"] .rv.list`)).toBeVisible();
  await expect(page.locator(`[data-rv-widget="${w.id}"] .rv.list`)).toContainText(data.reviews[0]!.authorName);
  expect(await page.evaluate(() => window.origin)).toBe('null');
  expect(csp).toEqual([]);
});

test('a host page on another origin pastes the embed snippet: the public reviews render, the API key never travels', async ({ page }) => {
  const w = widget('carousel');
  // The banner's widget is the first demo widget, the carousel.
  expect(service.banner.widgetId).toBe(w.id);
  const { snippet, widgetId } = await embed(w.id);
  expect(widgetId).toBe(w.id);
  expect(snippet).toContain(`${service.origin}/widget/loader.js`);
  expect(snippet).not.toContain(service.banner.apiKey);
  expect(new URL(host.origin).origin).not.toBe(service.origin);

  const url = host.serve('/pasted.html', hostPage('Pasted snippet', `<section id="reviews">${snippet}</section>`));
  const seen = watch(page);
  const answer = page.waitForResponse((r) => r.url() === `${service.origin}/public/v1/widgets/${w.id}`);
  await page.goto(url);
  const browserData = ((await (await answer).json()) as { data: PublicWidgetData }).data;
  await waitForWidgets(page, 1);
  await page.waitForLoadState('networkidle');

  // What the browser fetched is what the endpoint returns, and that is what shows.
  expect(browserData.reviews).toEqual((await publicData(w.id)).reviews);
  expect(browserData.reviews.length).toBe(w.options.maxReviews);
  await expectRendered(page, w.id, 'carousel', browserData.reviews);
  const container = page.locator(`[data-rv-widget="${w.id}"]`);
  await expect(container.locator('h2')).toHaveText('Customer reviews');
  expect(await container.evaluate((el) => el.parentElement?.id)).toBe('reviews');

  expect(seen.problems).toEqual([]);
  await expectCleanRequests(seen.requests);
  const origins = new Set(seen.requests.map((r) => new URL(r.url()).origin));
  expect(origins).toEqual(new Set([host.origin, service.origin]));
  const paths = seen.requests.filter((r) => r.url().startsWith(service.origin)).map((r) => new URL(r.url()).pathname);
  expect(paths.filter((p) => p === '/widget/loader.js')).toHaveLength(1);
  // The carousel's chunk and the chunks it imports, each once (the real server's build is this one).
  expect(chunksServed(paths).sort()).toEqual(expectedFiles(['carousel'], 'en').filter((name) => name.startsWith('widget-')).map((name) => `/widget/${name}`));
  expect(paths.filter((p) => p === `/public/v1/widgets/${w.id}`)).toHaveLength(1);
  expect(paths.filter((p) => p.startsWith('/api/'))).toEqual([]);
});

test("the JSON-LD injected into the host page's head is GET /schema's document, once even when the snippet is pasted twice", async ({ page }) => {
  const w = widget('grid');
  expect(w.subject.type).toBe('Product');
  expect(w.options.jsonLd).toBe('auto');
  const { snippet } = await embed(w.id);
  const schema = (await service.api<{ data: Record<string, unknown> }>(`/widgets/${w.id}/schema`)).data;
  expect(schema).toMatchObject({ '@type': 'Product', aggregateRating: { '@type': 'AggregateRating' } });

  const blocks = page.locator('script[type="application/ld+json"]');
  const once = host.serve('/json-ld-once.html', hostPage('Pasted once', `<section>${snippet}</section>`));
  await page.goto(once);
  await waitForWidgets(page, 1);
  await expect(blocks).toHaveCount(1);
  await expect(page.locator(`head > script[type="application/ld+json"][data-rv-jsonld="${w.subject.type} ${w.subject.name}"]`)).toHaveCount(1);
  expect(JSON.parse((await blocks.textContent())!)).toEqual(schema);

  const twice = host.serve('/json-ld-twice.html', hostPage('Pasted twice', `<section id="a">${snippet}</section>\n<section id="b">${snippet}</section>`));
  const seen = watch(page);
  await page.goto(twice);
  await waitForWidgets(page, 2);
  await page.waitForLoadState('networkidle');
  await expect(page.locator(`[data-rv-widget="${w.id}"]`)).toHaveCount(2);
  await expect(blocks).toHaveCount(1);
  await expect(page.locator(`head > script[type="application/ld+json"][data-rv-jsonld="${w.subject.type} ${w.subject.name}"]`)).toHaveCount(1);
  expect(JSON.parse((await blocks.textContent())!)).toEqual(schema);
  // Both copies render; the loader and the data are fetched once.
  const data = await publicData(w.id);
  await expectRendered(page, w.id, 'grid', data.reviews);
  const paths = seen.requests.map((r) => new URL(r.url()).pathname);
  expect(paths.filter((p) => p === '/widget/loader.js')).toHaveLength(1);
  expect(paths.filter((p) => p === `/public/v1/widgets/${w.id}`)).toHaveLength(1);
  expect(seen.problems).toEqual([]);
});

test('the tag-manager script from the embed endpoint, added to a blank page, renders the widget', async ({ page }) => {
  const w = widget('list');
  const { script } = await embed(w.id);
  expect(script).not.toMatch(/<\/?script/i);
  expect(script).not.toContain(service.banner.apiKey);
  const url = host.serve('/blank.html', '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Blank</title></head><body></body></html>');
  const seen = watch(page);
  await page.goto(url);
  await expect(page.locator('[data-rv-widget]')).toHaveCount(0);

  await page.addScriptTag({ content: script });
  await waitForWidgets(page, 1);
  await page.waitForLoadState('networkidle');
  await expect(page.locator(`body > [data-rv-widget="${w.id}"]`)).toHaveCount(1);
  await expectRendered(page, w.id, 'list', (await publicData(w.id)).reviews);

  // Fired a second time (tag managers do): still one widget, and no second loader.
  await page.addScriptTag({ content: script });
  await expect(page.locator('[data-rv-widget]')).toHaveCount(1);
  await page.waitForLoadState('networkidle');
  expect(seen.requests.filter((r) => r.url() === `${service.origin}/widget/loader.js`)).toHaveLength(1);
  expect(seen.problems).toEqual([]);
  await expectCleanRequests(seen.requests);
});

test('under a strict CSP (script-src and connect-src the service origin only, no inline) the real snippet works', async ({ page }) => {
  const list = widget('list');
  const badge = widget('badge');
  const [listEmbed, badgeEmbed] = await Promise.all([embed(list.id), embed(badge.id)]);
  const csp = [
    "default-src 'none'",
    `script-src ${service.origin}`,
    `connect-src ${service.origin}`,
    'img-src https:',
    "style-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  // The inline script is the proof that the policy is enforced: it must not run.
  const url = host.serve(
    '/csp.html',
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Strict CSP</title>
<script>window.__inlineRan = true;</script></head>
<body><main><h1>Strict Content-Security-Policy</h1>
<section id="list">${listEmbed.snippet}</section>
<section id="badge">${badgeEmbed.snippet}</section>
</main></body></html>`,
    { 'Content-Security-Policy': csp },
  );
  const seen = watch(page);
  await page.goto(url);
  await waitForWidgets(page, 2);
  await page.waitForLoadState('networkidle');

  expect(await page.evaluate(() => (window as unknown as { __inlineRan?: boolean }).__inlineRan)).toBeUndefined();
  // Console messages are events of their own, not part of the page's state: waited for, not read once.
  await expect.poll(() => seen.console.some((m) => /Content Security Policy/i.test(m) && /inline script/i.test(m))).toBe(true);
  // The only other violations are the snippets' own style attributes (the loader reserves the
  // height through CSSOM instead): Chromium names each blocked style by its hash. The widget
  // itself needs nothing the policy forbids.
  const styleHash = (snippet: string) => createHash('sha256').update(/ style="([^"]*)"/.exec(snippet)![1]!).digest('base64');
  const blockedStyles = () =>
    new Set(seen.console.filter((m) => /Content Security Policy/i.test(m) && !/inline script/i.test(m)).map((m) => /inline style.*'(sha256-[^']+)'/.exec(m)?.[1] ?? m));
  await expect.poll(blockedStyles).toEqual(new Set([listEmbed, badgeEmbed].map((e) => `sha256-${styleHash(e.snippet)}`)));
  expect(seen.problems).toEqual([]);

  const data = await publicData(list.id);
  await expectRendered(page, list.id, 'list', data.reviews);
  // Styled although style attributes are blocked: the root keeps its exact reserved height.
  const box = await page.locator(`[data-rv-widget="${list.id}"] .rv`).boundingBox();
  expect(Math.round(box!.height)).toBe(data.height);
  const badgeData = await publicData(badge.id);
  await expect(page.locator(`[data-rv-widget="${badge.id}"] .badge-count`)).toHaveText(`${badgeData.summary.totalReviews.toLocaleString('en-US')} reviews`);
  // One JSON-LD block per subject: the demo widgets are all about one product.
  const subjects = new Set([list, badge].map((w) => `${w.subject.type} ${w.subject.name}`));
  await expect(page.locator('head > script[type="application/ld+json"][data-rv-jsonld]')).toHaveCount(subjects.size);
  await expectCleanRequests(seen.requests);
});
