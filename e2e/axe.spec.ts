import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test, waitForWidgets } from './support/test.ts';

/**
 * Pages: every layout light (one widget each, and six on one page), dark, four of one product, RTL,
 * and a carousel whose track holds nothing focusable (short reviews without links).
 */
const PAGES: [string, number][] = [
  ['basic', 1],
  ['layouts', 6],
  ['dark', 3],
  ['four', 4],
  ['accent', 1],
  ['lang-ar', 2],
  ['no-links', 1],
];

async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

for (const width of [1280, 390]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 }, reducedMotion: 'reduce' });

    for (const [name, count] of PAGES) {
      test(`${name}: zero axe violations, with and without the dialog open`, async ({ page, origins }) => {
        await page.goto(`${origins.host.origin}/${name}.html`);
        await waitForWidgets(page, count);
        await page.waitForLoadState('networkidle');
        expect(await violations(page)).toEqual([]);
        const more = page.locator('[data-rv-widget] >> .more').first();
        if (await more.count()) {
          await more.evaluate((b) => (b as HTMLElement).click());
          await expect(page.getByRole('dialog')).toBeVisible();
          expect(await violations(page)).toEqual([]);
        }
      });
    }
  });
}

test('a carousel track is a tab stop only while nothing in view can take focus (axe scrollable-region-focusable)', async ({ page, origins }) => {
  await page.goto(`${origins.host.origin}/no-links.html`);
  await waitForWidgets(page, 1);
  await expect(page.locator('[data-rv-widget="wdg_nolinks"] .track')).toHaveAttribute('tabindex', '0');
  await page.goto(`${origins.host.origin}/basic.html`);
  await waitForWidgets(page, 1);
  const track = page.locator('[data-rv-widget="wdg_carousel"] .track');
  await expect(track).toBeVisible();
  await expect(track).not.toHaveAttribute('tabindex');
});

test('axe sees the violations it is meant to catch (the check can fail)', async ({ page, origins }) => {
  await page.goto(`${origins.host.origin}/four.html`);
  await waitForWidgets(page, 4);
  // Two regions with one name: what every widget had before names were made unique.
  await page.evaluate(() => {
    for (const host of document.querySelectorAll('[data-rv-widget]')) host.shadowRoot!.querySelector('.rv')!.setAttribute('aria-label', 'Customer reviews');
  });
  expect((await violations(page)).join('\n')).toContain('landmark-unique');
});
