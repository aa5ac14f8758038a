/**
 * The widget builder's product modes (CONTRACT §13) end to end, against the real service and
 * its demo catalog: the organization, one product (picked from the catalog) and the product of
 * the page (with a product to preview), each in the live preview; where the stars come from,
 * with the lint's error beside "every platform", and why a widget of only other platforms'
 * reviews has no stars; by keyboard; axe and screenshots at 1280 and 390 px under
 * test-results/dashboard/.
 */
import { expect, test, type Page } from '@playwright/test';
import { DEMO_PRODUCTS } from '../api/demo/demo-direct.ts';
import { expectNoAxeViolations, ownerPassword, screenshots, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

let service: RealService;
let page: Page;

/** The preview widget's region name ("Reviews of …"), read inside its shadow root. */
const previewLabel = (p: Page): Promise<string> => p.locator('#widget-preview').evaluate((el) => el.shadowRoot?.querySelector('.rv')?.getAttribute('aria-label') ?? '');

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  service = await startRealService();
  const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
});

test.afterAll(async () => {
  await service?.stop();
});

async function axeAtBothWidths(what: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    await expectNoAxeViolations(page, `${what} at ${width} px`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('the builder offers the organization, one product and the product of the page, each in the live preview', async () => {
  const [blend, yirga] = DEMO_PRODUCTS as [(typeof DEMO_PRODUCTS)[0], (typeof DEMO_PRODUCTS)[0]];
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Widgets', exact: true }).click();
  await page.getByRole('button', { name: 'Create widget' }).click();
  await expect(page.getByRole('heading', { name: 'Create widget', level: 1 })).toBeVisible();
  await page.getByLabel('Widget name').fill('Product pages');
  // A grid: a carousel of reviews without links has no focusable slide (axe's scrollable-region-focusable, reported apart).
  await page.getByRole('radio', { name: /^Grid/ }).check();
  await page.getByLabel('Name of what is reviewed').fill('Acme Coffee Roasters');
  await expect(page.getByRole('radio', { name: /^The organization/ })).toBeChecked();
  await expect.poll(() => previewLabel(page)).toContain('Acme Coffee Roasters');

  // Stars from every platform: the lint's error is beside the choice; back to the honest default.
  const sources = page.getByLabel('Stars from');
  await expect(sources).toHaveValue('direct');
  await sources.selectOption('all');
  const sourcesError = page.locator('#w-json-ld-sources-error');
  await expect(sourcesError).toContainText('other websites');
  await expect(sources).toHaveAttribute('aria-describedby', /w-json-ld-sources-error/);
  await axeAtBothWidths('the builder with stars from every platform');
  await screenshots(page, 'widget-products-stars-all');
  await sources.selectOption('direct');
  await expect(sourcesError).toHaveCount(0);

  // One product, picked from the catalog: the preview is that product.
  await page.getByRole('radio', { name: /^One product/ }).check();
  const picker = page.getByLabel('Product', { exact: true });
  await expect(picker.locator('option')).toHaveText(['Choose a product', ...DEMO_PRODUCTS.map((p) => `${p.name} (${p.id})`)]);
  await picker.selectOption(blend.id);
  await expect.poll(() => previewLabel(page)).toContain(blend.name);
  // The subject is the catalog's product: the subject's own fields give way to a sentence saying so.
  await expect(page.getByLabel('Name of what is reviewed')).toHaveCount(0);
  await expect(page.locator('#w-subject-product')).toContainText('the product chosen above');
  await axeAtBothWidths('the builder with one product');
  await screenshots(page, 'widget-products-one');

  // The product of the page, by keyboard: arrow to the next radio, then pick the product to preview with.
  await page.getByRole('radio', { name: /^One product/ }).focus();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('radio', { name: /^The product of the page/ })).toBeChecked();
  await expect(page.locator('#w-product-hint')).toContainText('data-product-id');
  const previewWith = page.getByLabel('Preview with');
  await previewWith.focus();
  await previewWith.selectOption(yirga.id);
  await expect(previewWith).toBeFocused();
  await expect.poll(() => previewLabel(page)).toContain(yirga.name);
  await axeAtBothWidths('the builder with the product of the page');
  await screenshots(page, 'widget-products-page');

  // Saved as the page's product: the widget serves every product page.
  await page.keyboard.press('Tab');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/dashboard\/widgets\/wdg_[0-9A-Za-z]{20}$/);
  const id = /wdg_[0-9A-Za-z]{20}/.exec(page.url())![0];
  const saved = await fetch(`${service.admin.url}/admin/widgets/${id}`, { headers: { authorization: `Bearer ${service.admin.token}` } }).then((r) => r.json() as Promise<{ options: Record<string, unknown> }>);
  expect(saved.options).toMatchObject({ productFrom: 'page', productId: null, jsonLdSources: 'direct' });
  // Reloaded, the builder shows the saved mode.
  await page.reload();
  await expect(page.getByRole('radio', { name: /^The product of the page/ })).toBeChecked();
});

test('a widget of only other platforms’ reviews: the builder says why its markup has no stars, beside “Stars from” and in the check', async () => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Widgets', exact: true }).click();
  await page.getByRole('button', { name: 'Create widget' }).click();
  await expect(page.getByRole('heading', { name: 'Create widget', level: 1 })).toBeVisible();
  await page.getByLabel('Widget name').fill('Other platforms only');
  await page.getByRole('radio', { name: /^Grid/ }).check();
  await page.getByLabel('Name of what is reviewed').fill('Acme Coffee Roasters');
  const sources = page.getByLabel('Stars from');
  await expect(sources).toHaveValue('direct');
  const hint = page.locator('#w-json-ld-sources-hint');
  const check = page.getByRole('region', { name: 'Search results check' });
  await expect(hint).toContainText('collected with your review page');
  await expect(check.getByText('No stars in search results from these reviews', { exact: true })).toHaveCount(0);

  // Every platform that has reviews, then leave out the review page's own (DIRECT): only other websites' reviews remain.
  await page.locator('#w-platforms-some').check();
  const direct = page.locator('#w-platform-DIRECT');
  await expect(direct).toBeChecked();
  await direct.uncheck();
  await expect(hint).toContainText('No rated review here was collected on your own site');
  await expect(hint).toContainText('so the markup publishes no rating');
  await expect(sources).toHaveAttribute('aria-describedby', /w-json-ld-sources-hint/);
  await expect(check.getByText('No stars in search results from these reviews', { exact: true })).toBeVisible();
  await expect(check.getByText('They were written on other websites, so the markup leaves them out and has no rating.')).toBeVisible();
  // The widget still shows those reviews.
  await expect.poll(() => page.locator('#widget-preview').evaluate((el) => el.shadowRoot?.querySelectorAll('article').length ?? 0)).toBeGreaterThan(0);
  await axeAtBothWidths('the builder with only other platforms’ reviews');
  await screenshots(page, 'widget-products-no-direct');

  // The review page's reviews back: the reason goes.
  await direct.check();
  await expect(hint).toContainText('collected with your review page');
  await expect(check.getByText('No stars in search results from these reviews', { exact: true })).toHaveCount(0);
});
