/**
 * `Invite customers` on the Collect page end to end (CONTRACT §14), in
 * Chromium against the real service over HTTPS: an Owner reaches the upload
 * from the keyboard, reads the columns and the sample line, uploads a CSV
 * with good and bad lines (slowed, so that the shared progress bar is seen
 * moving), reads the summary with each rejected line by number, and the
 * invitations then exist (polled through the admin API); at 390 px the same
 * file again invites nobody twice and a new line for an address invited
 * today is listed as skipped; after a reload the last upload is still told;
 * a Member sees no upload. axe on every state, nothing scrolling sideways at
 * 390 px, screenshots at 1280 and 390 px under test-results/dashboard/invitation-upload-*.
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
const panel = (p: Page) => p.getByRole('region', { name: 'Invite customers' });

async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${service.admin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.admin.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** The organization's invitations as the admin API lists them: email, productId, orderRef, state. */
async function invitations(): Promise<string[]> {
  const { data } = (await admin('GET', `/admin/invitations?orgId=${service.banner.orgId}`)) as { data: { email: string; productId: string | null; orderRef: string | null; state: string }[] };
  return data.map((i) => `${i.email} ${i.productId ?? '-'} ${i.orderRef ?? '-'} ${i.state}`).sort();
}

/**
 * 300 customers (a third about the mug; long names and order numbers, so that the ~60 KB file takes a visible while
 * at 16 KB/s), with two bad lines after the 60th: a product not in the catalog, an address that is none.
 */
const GOOD = Array.from({ length: 300 }, (_, i) => `customer${String(i).padStart(3, '0')}@mail.example,Customer ${i} ${'of the long name family '.repeat(3).trim()},${i % 3 === 0 ? 'e2e-mug' : ''},ORD-${1000 + i}-${'0'.repeat(50)},${i % 2 ? 'de' : ''},`);
const FILE = ['email,name,productId,orderRef,locale,sendAt', ...GOOD.slice(0, 60), 'lost@mail.example,Lost,no-such-product,ORD-9001,,', 'not-an-address,Nobody,,ORD-9002,,', ...GOOD.slice(60), ''].join('\r\n');

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  service = await startRealService();
  await admin('POST', '/admin/products', { orgId: service.banner.orgId, id: 'e2e-mug', name: 'Stoneware mug' });
  context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
});

test.afterAll(async () => {
  await context?.close();
  await service?.stop();
});

test('an Owner uploads a CSV from the keyboard at 1280 px: the progress bar moves, the summary names each bad line, the invitations exist', async () => {
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  const link = nav(page).getByRole('link', { name: 'Collect', exact: true });
  await link.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Collect', level: 1 })).toBeFocused();

  const upload = panel(page);
  await expect(upload.getByRole('heading', { name: 'Invite customers', level: 2 })).toBeVisible();
  // The columns and the sample line, explained.
  for (const column of ['email', 'name', 'productId', 'orderRef', 'locale', 'sendAt']) await expect(upload.locator('dt', { hasText: new RegExp(`^${column}$`) })).toHaveCount(1);
  await expect(upload.locator('dt', { hasText: /^email$/ }).locator('xpath=following-sibling::dd[1]')).toHaveText('Required. The customer’s email address.');
  const sample = upload.getByRole('region', { name: 'A file with one customer:' });
  await expect(sample).toHaveText('email,name,productId,orderRef,locale,sendAt\nana@example.com,"Silva, Ana",MUG-1,ORD-1001,pt,2026-12-01T09:00:00Z');
  await expect(upload.getByText(/^Ana Silva is asked about the product MUG-1 of her order ORD-1001, in Portuguese/)).toBeVisible();
  await expectNoAxeViolations(page, 'Invite customers');

  // From the keyboard: the sample, the file field, then the button, each reached with Tab.
  await sample.focus();
  await page.keyboard.press('Tab');
  const field = upload.getByLabel('Customer file (CSV)');
  await expect(field).toBeFocused();
  await field.setInputFiles({ name: 'customers.csv', mimeType: 'text/csv', buffer: Buffer.from(FILE) });
  await page.keyboard.press('Tab');
  const button = upload.getByRole('button', { name: 'Upload and invite' });
  await expect(button).toBeFocused();

  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 16 * 1024 });
  const answer = page.waitForResponse((r) => r.url().includes('/dashboard/api/invitations/import?format=csv'));
  await page.keyboard.press('Enter');
  const progress = upload.getByRole('progressbar', { name: 'Import progress' });
  await expect
    .poll(async () => {
      const value = Number((await progress.getAttribute('value', { timeout: 500 }).catch(() => '0')) ?? '0');
      return value > 0 && value < 100;
    }, { message: 'the progress bar shows the upload under way' })
    .toBe(true);
  expect((await answer).status()).toBe(200);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await cdp.detach();

  const result = upload.getByRole('status').locator('.notice').first();
  await expect(result).toHaveText('Upload finished: 300 customers invited; 2 lines rejected.');
  await expect(upload.getByRole('region', { name: 'Rejected lines' }).getByRole('listitem')).toHaveText([
    'Line 62: productId is not a product of your catalog',
    'Line 63: email must be an email address (at most 254 characters)',
  ]);
  await expectNoAxeViolations(page, 'Invite customers, summary');
  await screenshots(page, 'invitation-upload');

  // The invitations exist (no relay in this service: links for the shop's own mailer), a third about the mug.
  await expect.poll(async () => (await invitations()).length, { message: 'the invitations are stored' }).toBe(300);
  const stored = await invitations();
  expect(stored.filter((i) => i.includes(' e2e-mug '))).toHaveLength(100);
  expect(stored[0]).toBe(`customer000@mail.example e2e-mug ORD-1000-${'0'.repeat(50)} unsent`);
  expect(stored.some((i) => i.startsWith('lost@') || i.startsWith('not-an-address'))).toBe(false);
});

test('at 390 px the same customers again invite nobody twice; a new order of an address invited today is skipped; a reload tells the last upload', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  const upload = panel(page);
  const zeros = '0'.repeat(50);
  const again = ['orderRef,email', `ORD-1000-${zeros},customer000@mail.example`, `ORD-1001-${zeros},customer001@mail.example`, 'ORD-5000,customer002@mail.example', ''].join('\n');
  await upload.getByLabel('Customer file (CSV)').setInputFiles({ name: 'again.csv', mimeType: 'text/csv', buffer: Buffer.from(again) });
  await upload.getByRole('button', { name: 'Upload and invite' }).click();
  await expect(upload.getByRole('status').locator('.notice').first()).toHaveText('Upload finished: 0 customers invited; 2 lines already invited (same order and email), 1 line skipped.');
  await expect(upload.getByRole('region', { name: 'Skipped lines' }).getByRole('listitem')).toHaveText(['Line 4: this address was invited less than 30 days ago, so it is not asked again']);
  await expect.poll(async () => (await invitations()).filter((i) => i.startsWith('customer002@')), { message: 'the new order is stored as skipped' }).toEqual(['customer002@mail.example - ORD-5000 skipped', `customer002@mail.example - ORD-1002-${'0'.repeat(50)} unsent`].sort());
  await expect
    .poll(() => page.evaluate(() => [document.documentElement, ...document.querySelectorAll('.import, .csv-help')].filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.className || el.tagName)), { message: 'nothing scrolls sideways at 390 px' })
    .toEqual([]);
  await expectNoAxeViolations(page, 'Invite customers at 390 px, skipped lines');
  await screenshots(page, 'invitation-upload-again');

  await page.reload();
  await expect(panel(page).locator('.notice')).toHaveText(/^The last import, started .+, finished: 0 customers invited \(2 already invited, 1 skipped\)\.$/);
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('a Member sees no upload on the Collect page', async ({ browser }) => {
  await admin('POST', '/admin/users', { orgId: service.banner.orgId, email: 'invite-member@demo.example', role: 'member', password: MEMBER_PASSWORD });
  const memberContext = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 800 } });
  const member = await memberContext.newPage();
  await signIn(member, service.origin, 'invite-member@demo.example', MEMBER_PASSWORD);
  await expect(member.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await nav(member).getByRole('link', { name: 'Collect', exact: true }).click();
  await expect(member.getByRole('textbox', { name: 'Review link' })).toHaveValue(/\/r\/col_/);
  await expect(panel(member)).toHaveCount(0);
  await expect(member.getByRole('button', { name: 'Upload and invite' })).toHaveCount(0);
  await memberContext.close();
});
