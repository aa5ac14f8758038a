/**
 * The Collect page end to end (CONTRACT §13, "The Collect page" and
 * "Moderation"), in Chromium against the real service over HTTPS and without
 * SMTP_URL: the review link with its QR code and downloads (reached from the
 * keyboard), the settings refused in the server's words then saved and kept
 * after a reload, Replace link (the old link then answers 404), reviews
 * written on the review page waiting under Pending reviews (never with their
 * email), Reject refused without a reason, Publish putting the review in the
 * Reviews list, the Overview's rejected counts by rating, and a Member who
 * reads with no write button. Axe on every state, nothing scrolling sideways
 * at 390 px, the links for each product readable (a wide box each, cards at
 * 390 px), screenshots test-results/dashboard/collect-*-{1280,390}.png.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { expectNoAxeViolations, ownerPassword, screenshots, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 150_000 });

const MEMBER_PASSWORD = 'member password long enough';
const LONG_ID = 'hand-thrown-stoneware-teapot-bamboo-handle-speckled-glaze-1.2l';

let service: RealService;
let context: BrowserContext;
let page: Page;
let firstLink = '';

const nav = (p: Page) => p.getByRole('navigation', { name: 'Dashboard' });
const pending = (p: Page) => p.getByRole('region', { name: 'Pending reviews' }).getByRole('table');
const pendingRow = (p: Page, name: string) => pending(p).getByRole('row').filter({ hasText: name });

async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${service.admin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.admin.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** Nothing scrolls sideways at 390 px (the page, and the tables drawn as cards); then the shots. */
async function shots(p: Page, name: string): Promise<void> {
  await p.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => p.evaluate(() => [document.documentElement, ...document.querySelectorAll('.table-wrap')].filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.className || el.tagName)), {
      message: `${name}: nothing scrolls sideways at 390 px`,
    })
    .toEqual([]);
  await screenshots(p, `collect-${name}`);
}

/**
 * The links for each product read as links at 1280 and 390 px: each in a cell
 * at least 280 px wide inside (they were a column of 8 characters at 390 px), rows
 * drawn as cards at 390 px, and nothing scrolling sideways, the page or a link.
 */
async function expectReadableProductLinks(p: Page): Promise<void> {
  const table = p.getByRole('region', { name: 'Product links' });
  for (const width of [1280, 390]) {
    await p.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    await expect(table.getByRole('row').filter({ hasText: LONG_ID })).toContainText(`?product=${LONG_ID}`);
    await expect
      .poll(() => table.getByRole('cell').filter({ hasText: '?product=' }).evaluateAll((cells) => (cells.length ? Math.min(...cells.map((c) => c.clientWidth - parseFloat(getComputedStyle(c).paddingLeft) - parseFloat(getComputedStyle(c).paddingRight))) : 0)), {
        message: `the narrowest product link's box at ${width} px`,
      })
      .toBeGreaterThanOrEqual(280);
    if (width === 390) await expect(table).toHaveAttribute('data-cards', '');
    await expect
      .poll(() => p.evaluate(() => [document.documentElement, ...document.querySelectorAll('.table-wrap, .product-links td *')].filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.className || el.tagName)), {
        message: `nothing scrolls sideways at ${width} px`,
      })
      .toEqual([]);
  }
  await p.setViewportSize({ width: 1280, height: 800 });
}

/** A review written on the review page as a customer would, in a page of its own. */
async function writeReview(url: string, rating: number, text: string, name: string, email: string): Promise<void> {
  const writer = await context.newPage();
  await writer.goto(url);
  // The stars are drawn over one another: chosen from the keyboard, as the review page's own spec does.
  const star = writer.getByRole('radio', { name: `${rating} out of 5 stars` });
  await star.focus();
  await writer.keyboard.press('Space');
  await expect(star).toBeChecked();
  await writer.getByRole('textbox', { name: 'Your review' }).fill(text);
  await writer.getByRole('textbox', { name: 'Your name' }).fill(name);
  await writer.getByRole('textbox', { name: 'Email' }).fill(email);
  await writer.getByRole('checkbox', { name: 'This review is about my own experience' }).check();
  await writer.waitForTimeout(2100); // the form token's minimum age
  await writer.getByRole('button', { name: 'Send review' }).click();
  await expect(writer.getByRole('heading', { name: 'Thank you for your review' })).toBeVisible();
  await writer.close();
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  service = await startRealService();
  await admin('POST', '/admin/products', { orgId: service.banner.orgId, id: 'e2e-mug', name: 'Stoneware mug' });
  // A shop's handle as long as they come: its link must stay readable at 390 px.
  await admin('POST', '/admin/products', { orgId: service.banner.orgId, id: LONG_ID, name: 'Hand-thrown stoneware teapot with bamboo handle, speckled glaze' });
  context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
});

test.afterAll(async () => {
  await context?.close();
  await service?.stop();
});

test('the review link with its QR code and downloads, reached from the keyboard; a note that reviews are held without SMTP_URL', async () => {
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  const link = nav(page).getByRole('link', { name: 'Collect', exact: true });
  await link.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Collect', level: 1 })).toBeFocused();

  const url = page.getByRole('textbox', { name: 'Review link' });
  await expect(url).toHaveValue(/^https:\/\/.+\/r\/col_[A-Za-z0-9_-]+$/);
  firstLink = await url.inputValue();
  const qr = page.getByRole('img', { name: /^QR code of your review link/ });
  await expect(qr).toBeVisible();
  await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await expect(page.getByRole('link', { name: 'Download SVG' })).toHaveAttribute('href', '/dashboard/api/collect/qr.svg');
  const png = await page.request.get(`${service.origin}${await page.getByRole('link', { name: 'Download PNG' }).getAttribute('href')}`);
  expect(png.headers()['content-type']).toBe('image/png');
  await expect(page.getByText(/No mail relay is configured \(SMTP_URL\).*held for moderation/)).toBeVisible();
  // One link per product, each with its own Copy button.
  const products = page.getByRole('region', { name: 'Product links' });
  await expect(products.getByRole('row').filter({ hasText: 'Stoneware mug' })).toContainText(`${firstLink}?product=e2e-mug`);
  await expect(products.getByRole('button', { name: 'Copy link' }).first()).toBeVisible();
  await expectReadableProductLinks(page);

  // The keyboard reaches the link's Copy, the downloads and Replace link in order.
  await page.getByRole('button', { name: 'Copy', exact: true }).focus();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Download SVG' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Download PNG' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Replace link' })).toBeFocused();
  await expectNoAxeViolations(page, 'Collect, the link');
  await shots(page, 'link');
});

test('settings: a share link refused in the server’s words, then saved and kept after a reload', async () => {
  const share = page.getByRole('textbox', { name: /Also share your experience on/ });
  await share.fill('http://g.page/r/acme/review');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByText('shareUrl must be an https:// address (at most 2,000 characters).', { exact: true })).toBeVisible();
  await expect(share).toHaveAccessibleDescription(/leave it empty for none\. shareUrl must be an https:\/\/ address \(at most 2,000 characters\)\.$/);
  await expect(share).toHaveAttribute('aria-invalid', 'true');
  await expectNoAxeViolations(page, 'Collect, a refused share link');
  await shots(page, 'settings-error');

  await share.fill('https://g.page/r/acme/review');
  await page.getByRole('radio', { name: /Hold every review for a person/ }).check();
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('main').getByRole('status').filter({ hasText: 'Settings saved.' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('textbox', { name: /Also share your experience on/ })).toHaveValue('https://g.page/r/acme/review');
  await expect(page.getByRole('radio', { name: /Hold every review for a person/ })).toBeChecked();
  await expect(page.getByRole('radio', { name: /Publish confirmed reviews at once/ })).not.toBeChecked();
});

test('Replace link asks first, says the old link stops working, and the old link then answers 404', async () => {
  expect((await page.request.get(firstLink)).status()).toBe(200);
  await page.getByRole('button', { name: 'Replace link' }).click();
  const dialog = page.getByRole('dialog', { name: 'Replace your review link?' });
  await expect(dialog).toContainText('The current link and its QR code stop working at once');
  await expectNoAxeViolations(page, 'Collect, replace link dialog');
  await shots(page, 'replace');
  await dialog.getByRole('button', { name: 'Replace link' }).click();
  await expect(dialog).toBeHidden();
  const url = page.getByRole('textbox', { name: 'Review link' });
  await expect(url).not.toHaveValue(firstLink);
  await expect(url).toHaveValue(/\/r\/col_/);
  await expect(page.getByRole('img', { name: /^QR code of your review link/ })).toHaveAttribute('alt', `QR code of your review link, ${await url.inputValue()}`);
  expect((await page.request.get(firstLink)).status()).toBe(404);
  expect((await page.request.get(await url.inputValue())).status()).toBe(200);
});

test('reviews from the review page wait under Pending (no email shown); Reject needs a reason; Publish puts the review in the Reviews list; the Overview counts the rejection', async () => {
  const link = await page.getByRole('textbox', { name: 'Review link' }).inputValue();
  await writeReview(`${link}?product=e2e-mug`, 2, 'The handle cracked in the dishwasher after a week.', 'Petra Pending', 'petra@mail.example');
  await writeReview(link, 5, 'Friendly shop, quick delivery and a lovely mug.', 'Olaf Onward', 'olaf@mail.example');

  await page.reload();
  await expect(pending(page).getByRole('row')).toHaveCount(3);
  const petra = pendingRow(page, 'Petra Pending');
  await expect(petra).toContainText('2 / 5');
  await expect(petra).toContainText('The handle cracked in the dishwasher');
  await expect(petra).toContainText('Stoneware mug');
  await expect(petra).toContainText('Held for a person');
  await expect(pendingRow(page, 'Olaf Onward')).toContainText('Your business');
  await expect(page.getByRole('main')).not.toContainText('@mail.example');
  await expectNoAxeViolations(page, 'Collect, pending reviews');
  await shots(page, 'pending');

  // Reject from the keyboard: without a reason it is refused in words; with one, the row leaves.
  await petra.getByRole('button', { name: 'Reject' }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Reject this review?' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Reject review' }).focus();
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('alert')).toHaveText('Choose a reason: a rejection is recorded with its reason.');
  await expectNoAxeViolations(page, 'Collect, reject without a reason');
  await shots(page, 'reject');
  await dialog.getByRole('radio', { name: /^Spam/ }).focus();
  await page.keyboard.press('Space');
  await expect(dialog.getByRole('radio', { name: /^Spam/ })).toBeChecked();
  await dialog.getByRole('button', { name: 'Reject review' }).focus();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(pending(page).getByRole('row')).toHaveCount(2);
  await expect(page.getByRole('main').getByRole('status').filter({ hasText: 'The review by Petra Pending is rejected.' })).toBeAttached();

  await pendingRow(page, 'Olaf Onward').getByRole('button', { name: 'Publish' }).click();
  await expect(page.getByText('No review is waiting.')).toBeVisible();
  await nav(page).getByRole('link', { name: 'Reviews', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Reviews', level: 1 })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Reviews' }).getByRole('row').filter({ hasText: 'Olaf Onward' })).toContainText('Friendly shop, quick delivery');
  await expect(page.getByRole('link', { name: 'Pending reviews on the Collect page' })).toHaveCount(0);
  const reviews = await service.api<{ data: { authorName: string }[] }>('/reviews?platform=DIRECT');
  expect(reviews.data.map((r) => r.authorName)).toContain('Olaf Onward');
  expect(reviews.data.map((r) => r.authorName)).not.toContain('Petra Pending');

  await nav(page).getByRole('link', { name: 'Overview', exact: true }).click();
  const card = page.getByRole('region', { name: 'Rejected reviews by rating (last 90 days)' });
  const count = (stars: string) => card.getByRole('row').filter({ has: page.getByRole('rowheader', { name: stars, exact: true }) }).getByRole('cell');
  await expect(count('2 stars')).toHaveText('1');
  await expect(count('5 stars')).toHaveText('0');
  await expect(card).toContainText('1 review rejected.');
  await expectNoAxeViolations(page, 'Overview with rejected counts');
  await card.scrollIntoViewIfNeeded();
  await screenshots(page, 'collect-overview');
});

test('a Member reads the link, settings and pending reviews with no write button; the API refuses their writes', async ({ browser }) => {
  await admin('POST', '/admin/users', { orgId: service.banner.orgId, email: 'collect-member@demo.example', role: 'member', password: MEMBER_PASSWORD });
  const memberContext = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 800 } });
  const member = await memberContext.newPage();
  await signIn(member, service.origin, 'collect-member@demo.example', MEMBER_PASSWORD);
  await expect(member.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  // One more review waiting, so that the Member's pending list has a row without buttons.
  const { url } = await admin('POST', '/admin/collect/link', { orgId: service.banner.orgId });
  await writeReview(url as string, 4, 'Good coffee, slow checkout.', 'Mia Member-View', 'mia@mail.example');
  // The Reviews page says a review waits, and links to the Collect page's Pending reviews.
  await nav(member).getByRole('link', { name: 'Reviews', exact: true }).click();
  await expect(member.getByText('1 review from your review page waits for a decision')).toBeVisible();
  await member.getByRole('link', { name: 'Pending reviews on the Collect page' }).click();
  await expect(member.getByRole('heading', { name: 'Collect', level: 1 })).toBeVisible();
  await expect(member.getByRole('textbox', { name: 'Review link' })).toHaveValue(/\/r\/col_/);
  await expect(member.getByRole('img', { name: /^QR code of your review link/ })).toBeVisible();
  await expect(member.getByText(/changed, and reviews published or rejected, by people with the Owner or Admin role/)).toBeVisible();
  await expect(member.getByRole('textbox', { name: /Also share your experience on/ })).toBeDisabled();
  await expect(member.getByRole('button', { name: 'Save settings' })).toHaveCount(0);
  await expect(member.getByRole('button', { name: 'Replace link' })).toHaveCount(0);
  await expect(pendingRow(member, 'Mia Member-View')).toContainText('4 / 5');
  await expect(member.getByRole('button', { name: 'Publish' })).toHaveCount(0);
  await expect(member.getByRole('button', { name: 'Reject' })).toHaveCount(0);
  const csrf = await member.evaluate(() => fetch('/dashboard/api/session').then((r) => r.json()).then((s: { csrfToken: string }) => s.csrfToken));
  const refused = await member.request.post(`${service.origin}/dashboard/api/collect/link/rotate`, { headers: { 'x-csrf-token': csrf } });
  expect(refused.status()).toBe(403);
  await expectNoAxeViolations(member, 'Collect as a Member');
  await shots(member, 'member');
  await memberContext.close();
});
