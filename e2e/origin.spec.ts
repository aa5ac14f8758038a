import { expect, test, waitForWidgets } from './support/test.ts';

const EVIL = 'https://evil.example';

test('data-origin and DOM-clobbering markup are ignored: no script or data request leaves for another origin, no foreign script or JSON-LD', async ({ page, origins }) => {
  const foreign: string[] = [];
  // Anything asked of the attacker's origin is recorded, and answered as the attacker would.
  await page.route(`${EVIL}/**`, (route) => {
    const url = route.request().url();
    // The clobbering <img> itself is fetched as an image; nothing else may be.
    if (route.request().resourceType() === 'image') return route.fulfill({ status: 404 });
    foreign.push(url);
    if (url.includes('/public/')) {
      return route.fulfill({
        status: 200,
        headers: { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json' },
        body: JSON.stringify({ data: { id: 'wdg_evil', layout: 'badge', subject: 'x', options: {}, summary: {}, reviews: [], rows: 0, height: 88, jsonLd: { '@context': 'https://schema.org', '@type': 'Product', name: 'Fake' } } }),
      });
    }
    return route.fulfill({ status: 200, contentType: 'application/javascript', body: 'window.__evil = 1; window.ReviewProof = { scan(){}, mount(){ window.__evil = 2; } };' });
  });
  const requested: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() !== 'image' || !r.url().startsWith(EVIL)) requested.push(r.url());
  });
  await page.goto(`${origins.host.origin}/attacker.html`);
  await waitForWidgets(page, 3);
  await page.waitForLoadState('networkidle');

  expect(foreign).toEqual([]);
  const allowed = [origins.host.origin, origins.widget.origin, 'https://avatars.example'];
  const elsewhere = requested.filter((url) => !allowed.includes(new URL(url).origin));
  expect(elsewhere).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { __evil?: number }).__evil)).toBeUndefined();
  // The real widget rendered from the real origin; the attacker's markup only ever names our own widgets.
  await expect(page.locator('#real [data-rv-widget="wdg_carousel"] article').first()).toBeVisible();
  const ld = await page.locator('script[type="application/ld+json"]').evaluateAll((els) => els.map((e) => (JSON.parse(e.textContent!) as { name: string }).name));
  expect(ld).not.toContain('Fake');
  expect(ld.sort()).toEqual(['Acme Trail Shoe', 'Grid product']);
  // Every data and script request went to the loader's own origin.
  const widgetRequests = requested.filter((url) => /\/(public|widget)\//.test(new URL(url).pathname));
  expect(widgetRequests.length).toBeGreaterThanOrEqual(4);
  for (const url of widgetRequests) expect(new URL(url).origin).toBe(origins.widget.origin);
});
