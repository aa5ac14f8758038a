/**
 * The Products page end to end (CONTRACT §13), in Chromium against the real
 * service over HTTPS: Add product from the keyboard only (the API's own words
 * beside each field before anything is sent, then the server's refusal of a
 * taken id), Edit at 390 px, Import products (a CSV with a bad line, slowed
 * so that the progress bar is seen moving; the summary names the line; the
 * list pages past 50; an NDJSON file with an unreadable line and a wrong
 * gtin, each named by its line), Remove refused in words
 * while reviews name the product and done when none does, a Member who reads
 * the catalog with no write button; axe on every state, nothing scrolling
 * sideways at 390 px, screenshots at 1280 and 390 px under
 * test-results/dashboard/products-*.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { expectNoAxeViolations, ownerPassword, screenshots, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

const MEMBER_PASSWORD = 'member password long enough';

let service: RealService;
let context: BrowserContext;
let page: Page;

const nav = (p: Page) => p.getByRole('navigation', { name: 'Dashboard' });
const table = (p: Page) => p.getByRole('region', { name: 'Products' }).getByRole('table');
const notice = (p: Page, text: string) => p.getByRole('main').locator('.notice', { hasText: text });
const row = (p: Page, id: string) => table(p).getByRole('row').filter({ has: p.getByText(id, { exact: true }) });

async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${service.admin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.admin.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** At 390 px nothing scrolls sideways: the page, and the table (shown as cards). */
async function fitsAt390(p: Page, what: string): Promise<void> {
  await p.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => p.evaluate(() => [document.documentElement, ...document.querySelectorAll('.table-wrap')].filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.className || el.tagName)), { message: `${what}: nothing scrolls sideways at 390 px` }).toEqual([]);
  await p.setViewportSize({ width: 1280, height: 800 });
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  service = await startRealService();
  context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
});

test.afterAll(async () => {
  await context?.close();
  await service?.stop();
});

test('adds a product from the keyboard only: the API’s words beside each field before sending, a taken id refused by the server, then the product listed', async () => {
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  // The demo catalog may hold products already: ours are named apart.
  await admin('POST', '/admin/products', { orgId: service.banner.orgId, id: 'E2E-TAKEN', name: 'Already here' });

  // Keyboard only: from the navigation link to the page, then to Add product.
  const link = nav(page).getByRole('link', { name: 'Products', exact: true });
  await link.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Products', level: 1 })).toBeFocused();
  await expect(row(page, 'E2E-TAKEN')).toBeVisible();
  await expectNoAxeViolations(page, 'Products, list');
  const add = page.getByRole('button', { name: 'Add product' });
  await add.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Add product' });
  await expect(dialog).toBeVisible();
  const id = dialog.getByRole('textbox', { name: 'Product id (SKU or handle)' });
  await expect(id).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(add).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(id).toBeFocused();
  await expectNoAxeViolations(page, 'Add product dialog');

  // Wrong on every count: checked here with the API's validator, nothing sent.
  let sent = 0;
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/dashboard/api/products') sent++;
  });
  await page.keyboard.type('mug 1');
  await page.keyboard.press('Tab'); // Name, left empty
  await page.keyboard.press('Tab');
  await page.keyboard.type('http://shop.example/mug');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.type('4006381333932');
  await page.keyboard.press('Enter');
  await expect(dialog.locator('#product-id-error')).toHaveText('id must be 1-100 characters of A-Z a-z 0-9 . _ -.');
  await expect(dialog.locator('#product-name-error')).toHaveText('name is required.');
  await expect(dialog.locator('#product-url-error')).toHaveText('url must use https, not http.');
  await expect(dialog.locator('#product-gtin-error')).toHaveText("gtin's check digit is wrong (expected 1 for 400638133393).");
  await expect(id).toBeFocused();
  await expect(id).toHaveAttribute('aria-invalid', 'true');
  await expect(id).toHaveAccessibleDescription(/id must be 1-100 characters/);
  await expect.poll(() => sent, { message: 'nothing was sent while the form had problems' }).toBe(0);
  await expectNoAxeViolations(page, 'Add product dialog, problems');
  await screenshots(page, 'products-add-errors');

  // A taken id: the server's refusal beside the id.
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('E2E-TAKEN');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Blue mug');
  await page.keyboard.press('Tab');
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('https://shop.example/mug');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('4006381333931');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Acme');
  await page.keyboard.press('Enter');
  await expect(dialog.locator('#product-id-error')).toHaveText(/already has a product "E2E-TAKEN" \(“Already here”\)/);
  await expect(id).toBeFocused();
  await expect.poll(() => sent).toBe(1);

  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('E2E-MUG');
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(notice(page, '“Blue mug” (E2E-MUG) added.')).toBeVisible();
  const mug = row(page, 'E2E-MUG');
  await expect(mug.getByRole('cell')).toHaveText(['Blue mugE2E-MUG', '0', 'No ratings', '4006381333931', 'Acme', 'EditRemove']);
  await expectNoAxeViolations(page, 'Products, product added');
  await fitsAt390(page, 'Products, list');
  await screenshots(page, 'products-list');
});

test('edits a product at 390 px: every field but the id, saved and listed', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await row(page, 'E2E-MUG').getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Blue mug' });
  await expect(dialog).toBeVisible();
  const id = dialog.getByRole('textbox', { name: 'Product id (SKU or handle)' });
  await expect(id).toHaveValue('E2E-MUG');
  await expect(id).toHaveAttribute('readonly', '');
  await expect(dialog.getByRole('textbox', { name: 'Brand (optional)' })).toHaveValue('Acme');
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Blue mug, large');
  await dialog.getByRole('textbox', { name: 'Picture (optional)' }).fill('https://shop.example/mug.jpg');
  await dialog.getByRole('textbox', { name: 'GTIN (optional)' }).fill('');
  await expectNoAxeViolations(page, 'Edit product dialog at 390 px');
  await screenshots(page, 'products-edit');
  await page.setViewportSize({ width: 390, height: 844 });
  await dialog.getByRole('button', { name: 'Save changes' }).click();
  await expect(dialog).toBeHidden();
  await expect(notice(page, '“Blue mug, large” (E2E-MUG) saved.')).toBeVisible();
  await expect(row(page, 'E2E-MUG').getByRole('cell').nth(3)).toHaveText('–');
  await expect(row(page, 'E2E-MUG').getByRole('cell').first()).toHaveText('Blue mug, largeE2E-MUG');
  await page.setViewportSize({ width: 1280, height: 800 });
  const product = (await admin('GET', `/admin/products?orgId=${service.banner.orgId}`)).data as { id: string; imageUrl: string | null; gtin: string | null }[];
  expect(product.find((p) => p.id === 'E2E-MUG')).toMatchObject({ imageUrl: 'https://shop.example/mug.jpg', gtin: null });
});

test('imports a CSV with a bad line: the progress bar moves while it streams, the summary names the line, the rest is listed a page at a time', async () => {
  await page.getByRole('button', { name: 'Import products' }).click();
  const panel = page.getByRole('region', { name: 'Import products' });
  await expect(panel).toBeVisible();
  await expectNoAxeViolations(page, 'Import products panel');
  // Each line carries a long page URL (not shown in the list), so that the file takes a visible while at 32 KB/s.
  const lines = ['id,name,url,gtin,brand', 'E2E-BAD ID,A product with a space in its id,,,'];
  for (let i = 0; i < 60; i++) lines.push(`E2E-BULK-${String(i).padStart(2, '0')},Bulk product ${i},https://shop.example/p/${i}?ref=${'a'.repeat(1500)},,Acme`);
  await panel.getByLabel('Product file').setInputFiles({ name: 'catalog.csv', mimeType: 'text/csv', buffer: Buffer.from(`${lines.join('\n')}\n`) });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 32 * 1024 });
  const answer = page.waitForResponse((r) => r.url().includes('/dashboard/api/products/import?format=csv'));
  await panel.getByRole('button', { name: 'Upload and import' }).click();
  // The shared panel's progress bar moves while the file streams: a value strictly between 0 and 100 is seen.
  const progress = panel.getByRole('progressbar', { name: 'Import progress' });
  await expect
    .poll(async () => {
      const value = Number((await progress.getAttribute('value', { timeout: 500 }).catch(() => '0')) ?? '0');
      return value > 0 && value < 100;
    }, { message: 'the progress bar shows the upload under way' })
    .toBe(true);
  expect((await answer).status()).toBe(200);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await cdp.detach();
  await expect(panel.getByRole('status').locator('.notice').first()).toHaveText('Import finished: 60 new, 0 updated, 1 line rejected (the other lines were kept).');
  await expect(panel.getByRole('region', { name: 'Rejected lines' })).toHaveText('Line 2: id must be 1-100 characters of A-Z a-z 0-9 . _ -');
  await expectNoAxeViolations(page, 'Import products, summary');
  await screenshots(page, 'products-import');
  const pager = page.getByRole('navigation', { name: 'Pages of products' });
  await expect(pager).toContainText(/^Previous1–50 of \d+Next$/);
  await expect(table(page).getByRole('row')).toHaveCount(51);
  await pager.getByRole('button', { name: 'Next' }).click();
  await expect(pager).toContainText(/51–/);
  await page.getByRole('searchbox', { name: 'Search by id or name' }).fill('bulk product 59');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(table(page).getByRole('row')).toHaveCount(2);
  await expect(row(page, 'E2E-BULK-59')).toBeVisible();
  await expect(pager).toHaveCount(0);
  await page.getByRole('searchbox', { name: 'Search by id or name' }).fill('E2E-');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByRole('heading', { name: 'Products', level: 1 }).locator('..')).toContainText('62 products match “E2E-”.');
});

test('imports an NDJSON file: a bad line and a wrong gtin named by their line, the others listed with their fields', async () => {
  await page.reload();
  await page.getByRole('button', { name: 'Import products' }).click();
  const panel = page.getByRole('region', { name: 'Import products' });
  await expect(panel).toBeVisible();
  const lines = [
    JSON.stringify({ id: 'NDJ-KETTLE', name: 'Gooseneck kettle', url: 'https://shop.example/kettle', imageUrl: 'https://shop.example/kettle.jpg', gtin: '4006381333931', brand: 'Acme' }),
    '{"id": "NDJ-BROKEN", "name": ',
    JSON.stringify({ id: 'NDJ-SCALE', name: 'Coffee scale', gtin: '4006381333932' }),
    JSON.stringify({ id: 'NDJ-FILTER', name: 'Paper filters' }),
  ];
  await panel.getByLabel('Product file').setInputFiles({ name: 'catalog.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(`${lines.join('\n')}\n`) });
  const answer = page.waitForResponse((r) => r.url().includes('/dashboard/api/products/import?format=ndjson'));
  await panel.getByRole('button', { name: 'Upload and import' }).click();
  expect((await answer).status()).toBe(200);
  await expect(panel.getByRole('status').locator('.notice').first()).toHaveText('Import finished: 2 new, 0 updated, 2 lines rejected (the other lines were kept).');
  const rejected = panel.getByRole('region', { name: 'Rejected lines' });
  await expect(rejected.getByText(/^Line 2: /)).toHaveCount(1);
  await expect(rejected.getByText(/^Line 3: .*gtin/)).toHaveCount(1);
  await expect(rejected).not.toContainText('Line 1:');
  await expect(rejected).not.toContainText('Line 4:');
  await page.getByRole('searchbox', { name: 'Search by id or name' }).fill('NDJ-');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(table(page).getByRole('row')).toHaveCount(3);
  await expect(row(page, 'NDJ-KETTLE')).toContainText('Gooseneck kettle');
  await expect(row(page, 'NDJ-FILTER')).toContainText('Paper filters');
  await expect(row(page, 'NDJ-SCALE')).toHaveCount(0);
  const kettle = (await admin('GET', `/admin/products?orgId=${service.banner.orgId}`)) as unknown as { data: { id: string }[] };
  expect(kettle.data.find((p) => p.id === 'NDJ-KETTLE')).toMatchObject({ url: 'https://shop.example/kettle', imageUrl: 'https://shop.example/kettle.jpg', gtin: '4006381333931', brand: 'Acme' });
});

test('removal is refused in words while reviews name the product, and done once none does', async () => {
  const reviews = [5, 4, 3].map((rating, i) => ({ platform: 'DIRECT', externalId: `e2e-mug-${i}`, authorName: `Buyer ${i}`, rating, content: 'Holds a lot of tea.', date: '2026-10-01T10:00:00Z', productId: 'E2E-MUG' }));
  expect(await admin('POST', `/admin/orgs/${service.banner.orgId}/reviews?format=json`, reviews)).toMatchObject({ imported: 3, rejectedTotal: 0 });
  await page.reload();
  await page.getByRole('searchbox', { name: 'Search by id or name' }).fill('E2E-MUG');
  await page.getByRole('button', { name: 'Search' }).click();
  const mug = row(page, 'E2E-MUG');
  await expect(mug.getByRole('cell').nth(1)).toHaveText('3');
  await expect(mug.getByRole('cell').nth(2)).toHaveText('4.0 / 5');

  await page.setViewportSize({ width: 390, height: 844 });
  await mug.getByRole('button', { name: 'Remove' }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove Blue mug, large?' });
  await expect(dialog).toContainText('3 reviews still name it');
  await dialog.getByRole('button', { name: 'Remove product' }).click();
  await expect(dialog.getByRole('alert')).toHaveText(
    '3 reviews are about “Blue mug, large” (E2E-MUG), so it stays in the catalog: a review keeps the product it is about. To remove it, import those reviews again without a productId (or with another product\'s id), then remove it.',
  );
  await expectNoAxeViolations(page, 'Remove product, refused');
  await screenshots(page, 'products-remove-refused');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(mug).toBeVisible();

  // A product no review names goes.
  await page.getByRole('searchbox', { name: 'Search by id or name' }).fill('E2E-BULK-00');
  await page.getByRole('button', { name: 'Search' }).click();
  await row(page, 'E2E-BULK-00').getByRole('button', { name: 'Remove' }).click();
  await page.getByRole('dialog', { name: 'Remove Bulk product 0?' }).getByRole('button', { name: 'Remove product' }).click();
  await expect(notice(page, '“Bulk product 0” (E2E-BULK-00) removed from the catalog.')).toBeVisible();
  await expect(page.getByText('No product\'s id or name contains “E2E-BULK-00”.')).toBeVisible();
  await expectNoAxeViolations(page, 'Products, removed');
  await page.setViewportSize({ width: 1280, height: 800 });

  // Every change is in the audit log, in words.
  await nav(page).getByRole('link', { name: 'Audit log', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Audit log', level: 1 })).toBeVisible();
  for (const words of ['Added product', 'Edited product', 'Imported products', 'Removed product']) await expect(page.getByRole('cell', { name: words, exact: true }).first()).toBeVisible();
  await expect(page.getByText('Product “Bulk product 0” (E2E-BULK-00)')).toBeVisible();
});

test('a Member reads the catalog with its counts and has no write button; the API refuses their writes', async ({ browser }) => {
  await admin('POST', '/admin/users', { orgId: service.banner.orgId, email: 'products-member@demo.example', role: 'member', password: MEMBER_PASSWORD });
  const memberContext = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 800 } });
  const member = await memberContext.newPage();
  await signIn(member, service.origin, 'products-member@demo.example', MEMBER_PASSWORD);
  await expect(member.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await nav(member).getByRole('link', { name: 'Products', exact: true }).click();
  await expect(member.getByRole('heading', { name: 'Products', level: 1 })).toBeVisible();
  await expect(member.getByText('The catalog is changed by people with the Owner or Admin role.')).toBeVisible();
  await member.getByRole('searchbox', { name: 'Search by id or name' }).fill('E2E-MUG');
  await member.getByRole('button', { name: 'Search' }).click();
  await expect(row(member, 'E2E-MUG').getByRole('cell')).toHaveText(['Blue mug, largeE2E-MUG', '3', '4.0 / 5', '–', 'Acme']);
  for (const name of ['Add product', 'Import products', 'Edit', 'Remove']) await expect(member.getByRole('button', { name })).toHaveCount(0);
  // With the session's own CSRF token: refused for the role, not for the token.
  const answer = await member.evaluate(async () => {
    const session = (await (await fetch('/dashboard/api/session')).json()) as { csrfToken: string };
    const r = await fetch('/dashboard/api/products/E2E-MUG', { method: 'DELETE', headers: { accept: 'application/json', 'x-csrf-token': session.csrfToken } });
    return { status: r.status, body: (await r.json()) as { error: string } };
  });
  expect(answer).toEqual({ status: 403, body: expect.objectContaining({ error: 'forbidden_role' }) });
  await expectNoAxeViolations(member, 'Products, Member');
  await fitsAt390(member, 'Products, Member');
  await screenshots(member, 'products-member');
  await memberContext.close();
});
