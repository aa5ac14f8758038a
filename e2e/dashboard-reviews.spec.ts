/**
 * The dashboard's Reviews page end to end (CONTRACT §7), in Debian's Chromium
 * against the real service over HTTPS: a CSV with bad lines uploaded through
 * `Import reviews` (the progress bar while it streams, then the rejected lines),
 * the filters, and moderation with disclosure: reviews hidden with a reason
 * (with the keyboard alone) leave the widget on a host page on another origin,
 * which then says "2 hidden by the owner", while /api/v1/reviews/stats stays
 * the same; shown again, they come back. axe on the page and the dialog;
 * screenshots at 1280 and 390 px in test-results/dashboard/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { expectNoAxeViolations, ownerPassword, screenshots, SHOTS_DIR, signIn } from './support/dashboard.ts';
import { startHostPages, startRealService, type HostPages, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 180_000 });

let service: RealService;
let host: HostPages;
let owner: BrowserContext;
let page: Page;

interface ApiReview {
  id: string;
  authorName: string;
  content: string;
}

const newContext = (browser: Browser): Promise<BrowserContext> =>
  browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'Europe/Paris', viewport: { width: 1280, height: 800 } });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  [service, host] = await Promise.all([startRealService(), startHostPages()]);
  owner = await newContext(browser);
  page = await owner.newPage();
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
});

test.afterAll(async () => {
  await owner?.close();
  await Promise.all([service?.stop(), host?.close()]);
});

/** A CSV of `rows` good reviews (dated 2019, older than the demo's) with bad lines at known places. */
function csvWithBadLines(rows: number): { text: string; badLines: number[] } {
  const lines = ['platform,externalId,authorName,rating,content,date'];
  const badLines: number[] = [];
  for (let i = 0; i < rows; i++) {
    if (i === 2) {
      lines.push('GOOGLE,bad-rating,Ann,11,"Eleven stars",2019-03-01T10:00:00Z');
      badLines.push(lines.length);
    }
    if (i === rows - 2) {
      lines.push('MYSPACE,bad-date,Bob,4,"Nice",yesterday');
      badLines.push(lines.length);
    }
    const day = String(1 + (i % 28)).padStart(2, '0');
    lines.push(`TRUSTPILOT,csv-${i},Customer ${i},${1 + (i % 5)},"Order ${i} arrived on time and the staff were helpful, thank you.",2019-02-${day}T10:00:00Z`);
  }
  return { text: `${lines.join('\n')}\n`, badLines };
}

test('Import reviews: a CSV with bad lines streams with a progress bar, then the summary lists each rejected line', async () => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Reviews', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Reviews', level: 1 })).toBeVisible();
  await expect(page.getByRole('table')).toBeVisible();
  const before = (await service.api<{ data: { totalReviews: number } }>('/reviews/stats')).data.totalReviews;
  await expect(page.getByText(`${before.toLocaleString('en-US')} reviews match`)).toBeVisible();
  await expectNoAxeViolations(page, 'Reviews');
  await screenshots(page, 'reviews');

  await page.getByRole('button', { name: 'Import reviews' }).click();
  const panel = page.getByRole('region', { name: 'Import reviews' });
  await expect(panel).toBeVisible();
  await expectNoAxeViolations(page, 'Reviews with the import panel');
  const { text, badLines } = csvWithBadLines(3000);
  await panel.getByLabel('Review file').setInputFiles({ name: 'reviews.csv', mimeType: 'text/csv', buffer: Buffer.from(text) });

  // Upload at 256 KB/s (Chromium's network emulation), so that the ~0.3 MB take a visible while.
  const cdp = await owner.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
  const answer = page.waitForResponse((r) => r.url().includes('/dashboard/api/reviews/import?format=csv'));
  await panel.getByRole('button', { name: 'Upload and import' }).click();
  const progress = panel.getByRole('progressbar', { name: 'Import progress' });
  await expect(progress).toBeVisible();
  // The bar moves while the file streams: a value strictly between 0 and 100 is seen.
  let seen = 0;
  for (let i = 0; i < 100 && (await progress.count()) > 0; i++) {
    const value = Number((await progress.getAttribute('value').catch(() => '0')) ?? '0');
    if (value > 0 && value < 100) {
      seen = value;
      mkdirSync(SHOTS_DIR, { recursive: true });
      await page.screenshot({ path: join(SHOTS_DIR, 'reviews-import-progress-1280.png') });
      break;
    }
    await page.waitForTimeout(50);
  }
  expect(seen).toBeGreaterThan(0);
  expect((await answer).status()).toBe(200);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

  await expect(panel.getByRole('status')).toContainText('Import finished: 3,000 new, 0 updated, 2 lines rejected');
  const rejected = panel.getByRole('region', { name: 'Rejected lines' }).getByRole('listitem');
  const lineNumbers = async () => (await rejected.allTextContents()).map((t) => Number(/^Line ([\d,]+):/.exec(t)?.[1]?.replace(/,/g, '')));
  await expect.poll(lineNumbers).toEqual(badLines);
  await expect(rejected.first()).toContainText('rating');
  await expect(progress).toHaveCount(0);
  expect((await service.api<{ data: { totalReviews: number } }>('/reviews/stats')).data.totalReviews).toBe(before + 3000);
  await expect(page.getByText(`${(before + 3000).toLocaleString('en-US')} reviews match`)).toBeVisible();
  await expectNoAxeViolations(page, 'Reviews with the import summary');
  await screenshots(page, 'reviews-import-summary');

  // The filters are the API's: Trustpilot, at most 1 star → every fifth of the imported reviews, at least.
  await page.getByLabel('Platform').selectOption('TRUSTPILOT');
  await page.getByLabel('Maximum rating').selectOption('1');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  const expected = (await service.api<{ pagination: { total: number } }>('/reviews?platform=TRUSTPILOT&maxRating=1&limit=1')).pagination.total;
  await expect(page.getByText(`${expected.toLocaleString('en-US')} reviews match`)).toBeVisible();
  for (const rating of await page.getByRole('table').locator('tbody tr td:nth-child(4)').allTextContents()) expect(rating).toBe('1 / 5');
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect(page.getByText(`${(before + 3000).toLocaleString('en-US')} reviews match`)).toBeVisible();
});

/** The grid demo widget pasted into a host page on another origin, opened in a fresh browser (no cached data). */
async function hostWidget(browser: Browser, widgetId: string): Promise<{ context: BrowserContext; page: Page; text: string }> {
  const embed = (await service.api<{ data: { snippet: string } }>(`/widgets/${widgetId}/embed`)).data;
  const url = host.serve(`/moderation-${Date.now()}.html`, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><main><h1>Our shoes</h1>${embed.snippet}</main></body></html>`);
  const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', viewport: { width: 1280, height: 900 } });
  const visitor = await context.newPage();
  await visitor.goto(url);
  const root = visitor.locator(`[data-rv-widget="${widgetId}"]`).locator('.rv');
  await expect(root).toBeVisible();
  return { context, page: visitor, text: (await root.textContent()) ?? '' };
}

/** Opens the host page in fresh browsers until `check` holds (the public data is kept 5 s per widget). */
async function hostWidgetUntil(browser: Browser, widgetId: string, check: (text: string) => boolean): Promise<{ context: BrowserContext; page: Page; text: string }> {
  for (let i = 0; ; i++) {
    const opened = await hostWidget(browser, widgetId);
    if (check(opened.text) || i === 15) return opened;
    await opened.context.close();
    await new Promise((r) => setTimeout(r, 1000));
  }
}

test('moderation: hide two reviews (one with the keyboard alone), they leave the widget, which says "2 hidden by the owner"; stats unchanged; shown again', async ({ browser }) => {
  const grid = (await service.widgets()).find((w) => w.layout === 'grid')!;
  const newest = (await service.api<{ data: ApiReview[] }>('/reviews?limit=2')).data;
  const statsBefore = await service.api('/reviews/stats');

  const first = await hostWidget(browser, grid.id);
  for (const r of newest) expect(first.text).toContain(r.content.slice(0, 40));
  expect(first.text).not.toContain('hidden by the owner');
  await first.context.close();

  // Keyboard only: from the page heading to the newest review's Hide button, the dialog, a reason, Hide review.
  await page.goto(`${service.origin}/dashboard/reviews`);
  await expect(page.getByRole('heading', { name: 'Reviews', level: 1 })).toBeFocused();
  const row = (r: ApiReview) => page.getByRole('row').filter({ hasText: r.content.slice(0, 40) });
  const hideFirst = row(newest[0]!).getByRole('button', { name: 'Hide' });
  for (let i = 0; i < 60 && !(await hideFirst.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(hideFirst).toBeFocused();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Hide this review from widgets?' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('radio', { name: /^Spam/ })).toBeFocused();
  await expectNoAxeViolations(page, 'the hide dialog');
  await screenshots(page, 'reviews-hide-dialog');
  await page.keyboard.press('ArrowDown'); // Offensive
  await expect(dialog.getByRole('radio', { name: /^Offensive/ })).toBeChecked();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Hide review' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(row(newest[0]!).getByText('Hidden: Offensive')).toBeVisible();
  // Focus stays on the row's button, which now says Show.
  await expect(row(newest[0]!).getByRole('button', { name: 'Show' })).toBeFocused();

  // The second with the mouse, as "Not about us".
  await row(newest[1]!).getByRole('button', { name: 'Hide' }).click();
  await dialog.getByRole('radio', { name: /^Not about us/ }).check();
  await dialog.getByRole('button', { name: 'Hide review' }).click();
  await expect(row(newest[1]!).getByText('Hidden: Not about us')).toBeVisible();
  await expect(page.getByText('2 hidden from widgets')).toBeVisible();
  await expectNoAxeViolations(page, 'Reviews with hidden reviews');
  await screenshots(page, 'reviews-hidden');

  const after = await hostWidgetUntil(browser, grid.id, (text) => text.includes('2 hidden by the owner'));
  expect(after.text).toContain('2 hidden by the owner');
  for (const r of newest) expect(after.text).not.toContain(r.content.slice(0, 40));
  await expectNoAxeViolations(after.page, 'the host page with the disclosure');
  mkdirSync(SHOTS_DIR, { recursive: true });
  for (const width of [1280, 390]) {
    await after.page.setViewportSize({ width, height: 900 });
    await after.page.screenshot({ path: join(SHOTS_DIR, `widget-hidden-by-owner-${width}.png`), fullPage: true });
  }
  await after.context.close();
  // Hiding never changes the statistics (and so never improves a rating); the API still lists them.
  expect(await service.api('/reviews/stats')).toEqual(statsBefore);
  expect((await service.api<{ data: ApiReview[] }>('/reviews?limit=2')).data.map((r) => r.id)).toEqual(newest.map((r) => r.id));

  // Shown again, one by one.
  await row(newest[0]!).getByRole('button', { name: 'Show' }).click();
  await expect(row(newest[0]!).getByText('Shown', { exact: true })).toBeVisible();
  const one = await hostWidgetUntil(browser, grid.id, (text) => text.includes('1 hidden by the owner'));
  expect(one.text).toContain('1 hidden by the owner');
  expect(one.text).toContain(newest[0]!.content.slice(0, 40));
  await one.context.close();
  await row(newest[1]!).getByRole('button', { name: 'Show' }).click();
  await expect(row(newest[1]!).getByText('Shown', { exact: true })).toBeVisible();
  const none = await hostWidgetUntil(browser, grid.id, (text) => !text.includes('hidden by the owner'));
  expect(none.text).not.toContain('hidden by the owner');
  for (const r of newest) expect(none.text).toContain(r.content.slice(0, 40));
  await none.context.close();

  // Audit log: who, what, why.
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'Hid review' }).filter({ hasText: 'reason: offensive' })).toHaveCount(1);
  await expect(page.getByRole('row').filter({ hasText: 'Showed review' })).toHaveCount(2);
});
