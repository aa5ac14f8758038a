import { expect, servedSince, test, waitForWidgets } from './support/test.ts';
import { chunksServed, expectedFiles } from './support/widget-files.ts';

test('the snippet renders the reviews in a shadow root, with JSON-LD in the host document', async ({ page, origins }) => {
  const since = origins.widget.requests.length;
  await page.goto(`${origins.host.origin}/basic.html`);
  await waitForWidgets(page, 1);
  const widget = page.locator('[data-rv-widget="wdg_carousel"]');
  // Playwright's CSS locators pierce open shadow roots.
  await expect(widget.locator('h2')).toHaveText('Customer reviews');
  await expect(widget.locator('article').first()).toContainText('Maria Gonzalez');
  // Every slide holds its review (those out of view get it a task after the first render).
  await expect(widget.locator('.slide article')).toHaveCount(9);
  await expect(widget.locator('.sum .stars').first()).toHaveAttribute('aria-label', /out of 5 stars/);

  const rendered = await page.evaluate(() => {
    const host = document.querySelector('[data-rv-widget]')!;
    return { mode: host.shadowRoot ? 'open' : 'none', sheets: host.shadowRoot!.adoptedStyleSheets.length, styleTags: host.shadowRoot!.querySelectorAll('style').length };
  });
  // Two shared constructable stylesheets (every layout's rules, the framed layouts'), no <style>.
  expect(rendered).toEqual({ mode: 'open', sheets: 2, styleTags: 0 });

  const jsonLd = page.locator('head script[type="application/ld+json"]');
  await expect(jsonLd).toHaveCount(1);
  expect(JSON.parse((await jsonLd.textContent())!)).toMatchObject({ '@type': 'Product', name: 'Acme Trail Shoe' });

  const served = servedSince(origins, since);
  expect(served.filter((p) => p === '/widget/loader.js')).toHaveLength(1);
  expect(chunksServed(served).sort()).toEqual(expectedFiles(['carousel'], 'en').filter((name) => name.startsWith('widget-')).map((name) => `/widget/${name}`));
  expect(served.filter((p) => p === '/public/v1/widgets/wdg_carousel')).toHaveLength(1);
});

test('links to originals are https only and rel="nofollow ugc noopener"; avatars fall back to initials', async ({ page, origins }) => {
  await page.goto(`${origins.host.origin}/layouts.html`);
  await waitForWidgets(page, 6);
  const links = page.locator('[data-rv-widget="wdg_grid"] a');
  await expect.poll(() => links.count()).toBeGreaterThan(3);
  for (const link of await links.all()) {
    await expect(link).toHaveAttribute('rel', 'nofollow ugc noopener');
    await expect(link).toHaveAttribute('target', '_blank');
    expect(await link.getAttribute('href')).toMatch(/^https:\/\//);
  }
  // James has no picture: initials. Sophie's picture 404s: hidden, initials show.
  const grid = page.locator('[data-rv-widget="wdg_grid"]');
  await expect(grid.locator('article', { hasText: 'James' }).locator('.avatar')).toHaveText('JO');
  const sophie = grid.locator('article', { hasText: 'Sophie Martin' }).locator('.avatar');
  await expect(sophie).toHaveText('SM');
  await expect(sophie.locator('img')).toBeHidden();
  await expect(grid.locator('article', { hasText: 'Maria' }).locator('.avatar img')).toBeVisible();
});

test('no cookies, no storage, one global namespace, prefixed console messages', async ({ page, origins }) => {
  const messages: string[] = [];
  page.on('console', (m) => messages.push(m.text()));
  await page.goto(`${origins.host.origin}/basic.html`);
  const before = await page.evaluate(() => Object.keys(window));
  await page.goto(`${origins.host.origin}/layouts.html`);
  await waitForWidgets(page, 6);
  const after = await page.evaluate(() => ({
    keys: Object.keys(window),
    cookie: document.cookie,
    local: localStorage.length,
    session: sessionStorage.length,
    ns: Object.keys((window as unknown as { ReviewProof: object }).ReviewProof).sort(),
  }));
  // basic.html had loaded the widget too: compare against a page's own globals.
  expect(after.keys.filter((k) => !before.includes(k))).toEqual([]);
  expect(after.keys).toContain('ReviewProof');
  // The chunks are ES modules: nothing but the loader's own API is global.
  expect(after.ns).toEqual(['render', 'scan']);
  expect(after.cookie).toBe('');
  expect(after.local + after.session).toBe(0);
  expect((await page.context().cookies()).length).toBe(0);

  // An unknown widget id: the loader says so, with its prefix, and the page goes on.
  await page.evaluate(() => {
    const el = document.createElement('div');
    el.setAttribute('data-rv-widget', 'wdg_missing');
    document.body.append(el);
    (window as unknown as { ReviewProof: { scan(): void } }).ReviewProof.scan();
  });
  await expect.poll(() => messages.find((m) => m.includes('wdg_missing'))).toMatch(/^\[reviews\] /);
});
