import type { Page, TestInfo } from '@playwright/test';
import { expect, test, waitForWidgets } from './support/test.ts';

/** Saves a screenshot of one widget as a test artifact (test-results/e2e/…). */
async function keep(page: Page, testInfo: TestInfo, id: string, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.locator(`[data-rv-widget="${id}"]`).first().screenshot({ path, animations: 'disabled' });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

test.use({ reducedMotion: 'reduce' });

test('every layout renders at its reserved height; screenshots kept', async ({ page, origins }, testInfo) => {
  await page.goto(`${origins.host.origin}/layouts.html`);
  await waitForWidgets(page, 6);
  await page.waitForLoadState('networkidle');
  for (const [id, name] of [
    ['wdg_carousel', 'carousel-light'],
    ['wdg_grid', 'grid-light'],
    ['wdg_list', 'list-light'],
    ['wdg_badge', 'badge-light'],
    ['wdg_empty', 'empty-light'],
    ['wdg_german', 'list-german'],
  ] as const) {
    const sizes = await page.locator(`[data-rv-widget="${id}"]`).evaluate((host) => ({
      reserved: Number(host.getAttribute('data-rv-height')),
      host: host.getBoundingClientRect().height,
      root: host.shadowRoot!.querySelector('.rv')!.getBoundingClientRect().height,
    }));
    expect(sizes.root, id).toBe(sizes.reserved);
    expect(sizes.host, id).toBe(sizes.reserved);
    await keep(page, testInfo, id, name);
  }
});

test('dark theme: dark backgrounds, light text, screenshots kept', async ({ page, origins }, testInfo) => {
  await page.goto(`${origins.host.origin}/dark.html`);
  await waitForWidgets(page, 3);
  await page.waitForLoadState('networkidle');
  const colors = await page.locator('[data-rv-widget="wdg_dark"]').evaluate((host) => {
    const root = host.shadowRoot!.querySelector('.rv')!;
    const card = host.shadowRoot!.querySelector('.card')!;
    return { root: getComputedStyle(root).backgroundColor, card: getComputedStyle(card).backgroundColor, text: getComputedStyle(card).color };
  });
  expect(colors).toEqual({ root: 'rgb(15, 23, 42)', card: 'rgb(30, 41, 59)', text: 'rgb(241, 245, 249)' });
  for (const [id, name] of [
    ['wdg_dark', 'carousel-dark'],
    ['wdg_dark_grid', 'grid-dark'],
    ['wdg_dark_badge', 'badge-dark'],
  ] as const) {
    await keep(page, testInfo, id, name);
  }
});

for (const width of [1280, 390]) {
  test(`all four layouts at ${width} px, every slide filled; screenshots kept`, async ({ page, origins }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${origins.host.origin}/four.html`);
    await waitForWidgets(page, 4);
    // The carousel's off-screen slides get their reviews a task after the first render.
    await expect(page.locator('[data-rv-widget="wdg_four_carousel"] .slide:not(:has(article))')).toHaveCount(0);
    await page.waitForLoadState('networkidle');
    for (const layout of ['badge', 'carousel', 'grid', 'list']) {
      await page.locator(`[data-rv-widget="wdg_four_${layout}"]`).screenshot({ path: `test-results/layouts/${layout}-${width}.png`, animations: 'disabled' });
    }
  });
}
