/**
 * The README's two pictures, taken from the real service on fresh demo data so that they
 * show the product as it is: the demo page with its widgets, and the dashboard's Overview.
 * Fixed size (1280 × 800, the top of the page), written to docs/images/ and checked in:
 * when the product's look changes, `git status` shows the pictures changed with it.
 */
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ownerPassword, signIn } from './support/dashboard.ts';
import { docsPicture } from './support/docs-picture.ts';
import { startRealService, type RealService } from './support/real-server.ts';

const IMAGES = join(import.meta.dirname, '..', 'docs', 'images');
const SIZE = { width: 1280, height: 800 };

test.describe.configure({ mode: 'serial', timeout: 120_000 });

let service: RealService;

const picture = (page: Page, name: string): Promise<void> => docsPicture(page, join(IMAGES, name));

test.beforeAll(async () => {
  test.setTimeout(150_000);
  service = await startRealService();
});

test.afterAll(async () => {
  await service?.stop();
});

test('docs/images/widget.png: the demo page with its widgets', async ({ browser }) => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: SIZE });
  const page = await context.newPage();
  await page.goto(`${service.origin}/demo`);
  // Every widget drawn (not the first one only): the picture is taken once, of what is there.
  await page.waitForFunction(() => {
    const containers = [...document.querySelectorAll('[data-rv-widget]')];
    return containers.length > 0 && containers.every((el) => el.shadowRoot?.querySelector('.rv'));
  });
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => document.fonts.ready);
  // Widget ids are random on every start: written as the README writes them, so that the picture changes only with the product.
  await page.evaluate(() => {
    for (const code of document.querySelectorAll('code')) if (/^wdg_[A-Za-z0-9]+$/.test(code.textContent ?? '')) code.textContent = 'wdg_…';
  });
  await picture(page, 'widget.png');
  await context.close();
});

test('docs/images/dashboard.png: the Overview of the demo organization', async ({ browser }) => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: SIZE });
  const page = await context.newPage();
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  // The three charts, not the first one only.
  await expect(page.locator('[data-chart] canvas')).toHaveCount(3);
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => document.fonts.ready);
  await picture(page, 'dashboard.png');
  await context.close();
});
