/**
 * Product widgets and the JSON-LD they put into a host page, against the real service (its
 * demo organization: catalog products and DIRECT reviews, CONTRACT §13) in Chromium:
 * one widget for every product page (`data-product-id`), one document per subject whatever
 * the order widgets load in, and never a second one beside a document the site's server
 * printed as docs/json-ld.md shows.
 */
import { expect, test, type Page } from '@playwright/test';
import { DEMO_PRODUCTS } from '../api/demo/demo-direct.ts';
import { startHostPages, startRealService, type HostPages, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'default' });

let service: RealService;
let host: HostPages;
let orgId: string;

test.beforeAll(async () => {
  test.setTimeout(150_000);
  [service, host] = await Promise.all([startRealService(), startHostPages()]);
  orgId = (await service.widgets())[0]!.orgId;
});

test.afterAll(async () => {
  await Promise.all([service?.stop(), host?.close()]);
});

async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${service.admin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.admin.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return (await res.json()) as T;
}

async function createWidget(name: string, layout: string, options: Record<string, unknown>, subject?: Record<string, unknown>): Promise<{ id: string; snippet: string }> {
  const w = await admin<{ id: string }>('POST', '/admin/widgets', { orgId, name, layout, options, ...(subject && { subject }) });
  const { data } = await service.api<{ data: { snippet: string } }>(`/widgets/${w.id}/embed`);
  return { id: w.id, snippet: data.snippet };
}

function hostPage(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head>
<body><main><h1>${title}</h1>
${body}
</main></body></html>`;
}

async function waitForWidgets(page: Page, count: number): Promise<void> {
  await page.waitForFunction(
    (n) => Array.from(document.querySelectorAll('[data-rv-widget]')).filter((el) => el.shadowRoot?.querySelector('.rv')).length >= n,
    count,
  );
}

/** The JSON-LD blocks of the page, parsed. */
function documents(page: Page): Promise<{ '@type': string; name: string; sku?: string; review?: unknown[] }[]> {
  return page.locator('script[type="application/ld+json"]').evaluateAll((els) => els.map((e) => JSON.parse(e.textContent ?? 'null') as never));
}

test('one widget serves every product page: data-product-id picks the product, its reviews and its Product document', async ({ page }) => {
  const w = await createWidget('Product pages', 'list', { productFrom: 'page' });
  // The owner puts the page's product id on the container the snippet pasted.
  for (const product of DEMO_PRODUCTS) {
    const snippet = w.snippet.replace('<div class="rv-widget"', `<div class="rv-widget" data-product-id="${product.id}"`);
    await page.goto(host.serve(`/product-${product.id}.html`, hostPage(product.name, snippet)));
    await waitForWidgets(page, 1);
    await expect(page.locator(`[data-rv-widget="${w.id}"] .rv`)).toHaveAttribute('aria-label', new RegExp(product.name.replace(/[.,]/g, '.')));
    await expect.poll(() => documents(page)).toEqual([expect.objectContaining({ '@type': 'Product', name: product.name, sku: product.id })]);
  }
  // A value that is not a catalog id is only ever an encoded query value to the service's own origin, which refuses it: nothing is shown.
  const seen: string[] = [];
  page.on('request', (r) => seen.push(r.url()));
  const hostile = w.snippet.replace('<div class="rv-widget"', '<div class="rv-widget" data-product-id="https://evil.example/x"');
  const messages: string[] = [];
  page.on('console', (m) => messages.push(m.text()));
  await page.goto(host.serve('/product-hostile.html', hostPage('Hostile', hostile)));
  await expect.poll(() => messages.some((m) => m.includes(`widget ${w.id} could not be shown`) && m.includes('HTTP 400'))).toBe(true);
  expect(seen.filter((u) => u.includes('evil.example') && !u.includes('productId=https%3A%2F%2Fevil.example%2Fx'))).toEqual([]);
  expect(seen.filter((u) => u.includes('/public/v1/widgets/'))).toEqual([`${service.origin}/public/v1/widgets/${w.id}?productId=https%3A%2F%2Fevil.example%2Fx`]);
  expect(await documents(page)).toEqual([]);
});

test("a document printed on the server with data-rv-jsonld=\"wdg_…\" (docs/json-ld.md) is the page's only one", async ({ page }) => {
  const w = await createWidget('Printed', 'grid', { productId: DEMO_PRODUCTS[0]!.id });
  const schema = (await service.api<{ data: Record<string, unknown> }>(`/widgets/${w.id}/schema`)).data;
  expect(schema).toMatchObject({ '@type': 'Product', aggregateRating: { '@type': 'AggregateRating' } });
  // As docs/json-ld.md prints it: the widget id as the attribute, the document escaped.
  const json = JSON.stringify(schema).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  const printed = `<script type="application/ld+json" data-rv-jsonld="${w.id}">${json}</script>`;
  await page.goto(host.serve('/printed.html', hostPage('Printed on the server', w.snippet, printed)));
  await waitForWidgets(page, 1);
  await page.waitForLoadState('networkidle');
  await expect(page.locator('script[type="application/ld+json"]')).toHaveCount(1);
  expect(await documents(page)).toEqual([schema]);
});

test('a badge and a carousel of one subject give one document, the same on each of 8 loads whatever order they load in', async ({ page }) => {
  const subject = { type: 'Product', name: 'Acme Roastery Reviews' };
  // DIRECT reviews only, so that each widget's Review items are the reviews it shows: 3 and 10.
  const badge = await createWidget('Badge', 'badge', { platforms: ['DIRECT'], maxReviews: 3 }, subject);
  const carousel = await createWidget('Carousel', 'carousel', { platforms: ['DIRECT'], maxReviews: 10 }, subject);
  const full = (await service.get<{ data: { jsonLd: { review: unknown[] } } }>(`/public/v1/widgets/${carousel.id}`)).body.data.jsonLd;
  expect(full.review).toHaveLength(10);
  const url = host.serve('/badge-and-carousel.html', hostPage('Two widgets, one subject', `<aside>${badge.snippet}</aside><section>${carousel.snippet}</section>`));

  const counts: number[] = [];
  for (let load = 0; load < 8; load++) {
    // Every other load, each widget's data is held back until the other one has written its document.
    const held = load % 2 === 0 ? carousel.id : badge.id;
    await page.unrouteAll({ behavior: 'wait' });
    await page.route(`${service.origin}/public/v1/widgets/${held}`, async (route) => {
      await page.waitForFunction(() => document.querySelector('script[data-rv-jsonld]') !== null).catch(() => undefined);
      await route.continue();
    });
    await page.goto(url);
    await waitForWidgets(page, 2);
    await expect.poll(async () => (await documents(page)).map((d) => d.review?.length ?? 0)).toEqual([10]);
    expect(await documents(page)).toEqual([full]);
    counts.push((await documents(page))[0]!.review!.length);
  }
  expect(counts).toEqual([10, 10, 10, 10, 10, 10, 10, 10]);
});
