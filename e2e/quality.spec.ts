import { contrast, parseHex } from '../widget/src/color.ts';
import { expect, test, waitForWidgets } from './support/test.ts';

test('no layout shift: the reserved height is what renders (CLS ≈ 0)', async ({ page, origins }) => {
  await page.addInitScript(() => {
    (window as unknown as { __cls: number }).__cls = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
        if (!entry.hadRecentInput) (window as unknown as { __cls: number }).__cls += entry.value;
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
  await page.goto(`${origins.host.origin}/cls.html`);
  const before = await page.locator('#below').boundingBox();
  await waitForWidgets(page, 4);
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(300);
  const after = await page.locator('#below').boundingBox();
  expect(after!.y).toBe(before!.y);
  const cls = await page.evaluate(() => (window as unknown as { __cls: number }).__cls);
  expect(cls).toBeLessThan(0.001);
});

/** Contrast of an element's text colour against the nearest opaque background inside the widget. */
async function textContrasts(page: import('@playwright/test').Page, id: string, selector: string): Promise<number[]> {
  const pairs = await page.locator(`[data-rv-widget="${id}"]`).evaluate((host, sel) => {
    const toHex = (c: string) => {
      const [r, g, b] = c.match(/\d+(\.\d+)?/g)!.map(Number);
      return '#' + [r, g, b].map((v) => Math.round(v!).toString(16).padStart(2, '0')).join('');
    };
    const canvas = document.createElement('canvas').getContext('2d')!;
    const rgb = (c: string) => {
      canvas.fillStyle = '#000';
      canvas.fillStyle = c;
      canvas.fillRect(0, 0, 1, 1);
      const [r, g, b] = canvas.getImageData(0, 0, 1, 1).data;
      return toHex(`rgb(${r},${g},${b})`);
    };
    return Array.from(host.shadowRoot!.querySelectorAll(sel)).map((el) => {
      let bgEl: Element | null = el;
      while (bgEl && /rgba\(0, 0, 0, 0\)|transparent/.test(getComputedStyle(bgEl).backgroundColor)) bgEl = bgEl.parentElement;
      return [rgb(getComputedStyle(el).color), rgb(getComputedStyle(bgEl!).backgroundColor)] as [string, string];
    });
  }, selector);
  return pairs.map(([fg, bg]) => contrast(parseHex(fg)!, parseHex(bg)!));
}

test('text keeps WCAG AA contrast in both themes, even with an accent colour too light to read', async ({ page, origins }) => {
  const texts = '.title, .sum, .name-text, .date, .text, .link, .more, .badge-count, .score';
  await page.goto(`${origins.host.origin}/layouts.html`);
  await waitForWidgets(page, 6);
  for (const id of ['wdg_carousel', 'wdg_list', 'wdg_badge']) {
    for (const ratio of await textContrasts(page, id, texts)) expect(ratio, id).toBeGreaterThanOrEqual(4.5);
  }
  await page.goto(`${origins.host.origin}/dark.html`);
  await waitForWidgets(page, 3);
  for (const id of ['wdg_dark', 'wdg_dark_grid', 'wdg_dark_badge']) {
    for (const ratio of await textContrasts(page, id, texts)) expect(ratio, id).toBeGreaterThanOrEqual(4.5);
  }
  await page.goto(`${origins.host.origin}/accent.html`);
  await waitForWidgets(page, 1);
  const ratios = await textContrasts(page, 'wdg_yellow', '.link');
  expect(ratios.length).toBeGreaterThan(0);
  for (const ratio of ratios) expect(ratio).toBeGreaterThanOrEqual(4.5);
});

test('stars are labelled for screen readers, landmarks and headings are sensible', async ({ page, origins }) => {
  await page.goto(`${origins.host.origin}/layouts.html`);
  await waitForWidgets(page, 6);
  const carousel = page.locator('[data-rv-widget="wdg_carousel"]');
  await expect(carousel.getByRole('img', { name: '5 out of 5 stars' }).first()).toBeVisible();
  await expect(carousel.getByRole('img', { name: /^4\.3 out of 5 stars$/ })).toBeVisible();
  // Each region is named by its subject, uniquely on the page (five English widgets of one product, one German).
  const names = await page.getByRole('region').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label')));
  expect(names.sort()).toEqual([
    'Bewertungen zu Acme Trail Shoe',
    'Reviews of Acme Trail Shoe',
    'Reviews of Acme Trail Shoe (2)',
    'Reviews of Acme Trail Shoe (3)',
    'Reviews of Acme Trail Shoe (4)',
    'Reviews of Acme Trail Shoe (5)',
  ]);
  await expect(carousel.getByRole('heading', { level: 2 })).toHaveText('Customer reviews');
  await expect(carousel.getByRole('article').first()).toHaveAccessibleName('Review by Maria Gonzalez');
  await expect(page.locator('[data-rv-widget="wdg_german"]').getByRole('img', { name: /^4,3/ })).toBeVisible();
});
