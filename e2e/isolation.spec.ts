import { writeFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { differingPixels } from './support/png.ts';
import { expect, servedSince, test, waitForWidgets } from './support/test.ts';
import { chunksServed, expectedFiles } from './support/widget-files.ts';

const IDS = ['wdg_carousel', 'wdg_grid', 'wdg_list', 'wdg_badge', 'wdg_empty', 'wdg_german'];

test.use({ reducedMotion: 'reduce' });

/** Pixels of each widget's root element, by id. */
async function shots(page: Page): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const id of IDS) {
    out[id] = await page.locator(`[data-rv-widget="${id}"] .rv`).screenshot({ animations: 'disabled' });
  }
  return out;
}

test('hostile host CSS does not change a pixel of any widget', async ({ page, origins }, testInfo) => {
  await page.goto(`${origins.host.origin}/layouts.html`);
  await waitForWidgets(page, IDS.length);
  await page.waitForLoadState('networkidle');
  const clean = await shots(page);

  await page.goto(`${origins.host.origin}/hostile-css.html`);
  await waitForWidgets(page, IDS.length);
  await page.waitForLoadState('networkidle');
  // The page hides every [data-rv-widget], div, p, span, li, svg: the widget shows anyway.
  for (const id of IDS) await expect(page.locator(`[data-rv-widget="${id}"] .rv`)).toBeVisible();
  const hostile = await shots(page);
  for (const id of IDS) {
    // Rounded corners (16px) blend with whatever the host paints behind them: left out.
    const differing = differingPixels(clean[id]!, hostile[id]!, 16, 32);
    if (differing.length) {
      // Kept for a look: test-results/e2e/<test>/<id>-clean.png and -hostile.png.
      writeFileSync(testInfo.outputPath(`${id}-clean.png`), clean[id]!);
      writeFileSync(testInfo.outputPath(`${id}-hostile.png`), hostile[id]!);
    }
    // A leaked style (font, colour, spacing, display) changes thousands of pixels;
    // a handful at the anti-aliased edges of scaled SVGs is raster noise.
    const { width, height } = (await page.locator(`[data-rv-widget="${id}"] .rv`).boundingBox())!;
    expect(differing.length, `${id} looks the same under hostile CSS`).toBeLessThan(width * height * 0.0002);
  }
});

test('the widget does not restyle the host page', async ({ page, origins }) => {
  const probe = () =>
    ['body', 'h1', '#host-text', '#host-span', '#host-list li'].map((sel) => {
      const s = getComputedStyle(document.querySelector(sel)!);
      return [sel, s.font, s.color, s.background, s.margin, s.padding, s.display, s.listStyle].join('|');
    });
  // Same page with the widgets' containers emptied before the loader runs: the reference.
  await page.route('**/widget/loader.js', (route) => route.abort());
  await page.goto(`${origins.host.origin}/layouts.html`);
  const without = await page.evaluate(probe);
  await page.unroute('**/widget/loader.js');
  await page.goto(`${origins.host.origin}/layouts.html`);
  await waitForWidgets(page, IDS.length);
  expect(await page.evaluate(probe)).toEqual(without);
  expect(await page.evaluate(() => document.querySelectorAll('style, link[rel=stylesheet]').length)).toBe(1);
  expect(await page.evaluate(() => document.adoptedStyleSheets.length)).toBe(0);
});

test('pasting the snippet twice and a second widget: one loader run, each chunk once, one data request per widget', async ({ page, origins }) => {
  const since = origins.widget.requests.length;
  await page.goto(`${origins.host.origin}/duplicate.html`);
  await waitForWidgets(page, 3);
  await page.waitForLoadState('networkidle');
  const served = servedSince(origins, since);
  expect(chunksServed(served).sort()).toEqual(expectedFiles(['carousel', 'grid'], 'en').filter((name) => name.startsWith('widget-')).map((name) => `/widget/${name}`));
  expect(served.filter((p) => p === '/public/v1/widgets/wdg_carousel')).toHaveLength(1);
  expect(served.filter((p) => p === '/public/v1/widgets/wdg_grid')).toHaveLength(1);
  // Each container rendered exactly once.
  const roots = await page.evaluate(() => Array.from(document.querySelectorAll('[data-rv-widget]')).map((el) => el.shadowRoot!.querySelectorAll('.rv').length));
  expect(roots).toEqual([1, 1, 1]);
  // One JSON-LD script per subject, not per container.
  const ld = await page.locator('script[type="application/ld+json"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-rv-jsonld')));
  expect(ld.sort()).toEqual(['Product Acme Trail Shoe', 'Product Grid product']);
  // A re-scan finds nothing new and renders nothing twice.
  await page.evaluate(() => (window as unknown as { ReviewProof: { scan(): void } }).ReviewProof.scan());
  expect(await page.locator('script[type="application/ld+json"]').count()).toBe(2);
});

test('data and the code every layout shares load in parallel', async ({ browser, origins }) => {
  const page = await browser.newPage();
  const started: Record<string, number> = {};
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith('/public/') || /widget-shared-\w+\.js$/.test(path)) started[path.startsWith('/public/') ? 'data' : 'bundle'] ??= Date.now();
  });
  let finishedData = 0;
  page.on('requestfinished', (r) => {
    if (r.url().includes('/public/')) finishedData = Date.now();
  });
  await page.goto(`${origins.host.origin}/basic.html`);
  await waitForWidgets(page, 1);
  // Playwright reports a request's end once the browser has told it all about the request, which
  // may come after the page has used the answer: wait until it has been seen before comparing.
  await expect.poll(() => finishedData).toBeGreaterThan(0);
  // The shared chunk's request starts before the data response has arrived.
  expect(started.bundle).toBeDefined();
  expect(started.data).toBeDefined();
  expect(started.bundle!).toBeLessThanOrEqual(finishedData);
  await page.close();
});

test('four widgets of one subject on a page inject one JSON-LD document', async ({ page, origins }) => {
  await page.goto(`${origins.host.origin}/four.html`);
  await waitForWidgets(page, 4);
  await page.waitForLoadState('networkidle');
  const ld = await page.locator('script[type="application/ld+json"]').evaluateAll((els) => els.map((e) => JSON.parse(e.textContent!) as { name: string }));
  expect(ld.map((d) => d.name)).toEqual(['Acme Trail Shoe']);
});
