/**
 * The review page in Chromium (CONTRACT §13), on the real service with a real
 * SMTP sink: the form written and sent with the keyboard only, the errors
 * page, the thank-you page, the confirmation page from the mail; axe finds
 * nothing on each at 1280, 390 and 320 px, no request leaves the service's
 * origin, and each is photographed at those widths under test-results/review-page/.
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { SMTPServer } from 'smtp-server';
import { expectNoAxeViolations } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

const SHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-results', 'review-page');

let service: RealService;
let smtp: SMTPServer;
let context: BrowserContext;
let page: Page;
let reviewUrl: string;
const inbox: string[] = [];
const foreign: string[] = [];

async function admin(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${service.admin.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${service.admin.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, `${path}`).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

/** Each width: nothing wider than the screen, axe 0 (the narrow layout has its own rules), a photograph. */
async function shots(name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  for (const width of [1280, 390, 320]) {
    await page.setViewportSize({ width, height: width === 1280 ? 900 : 760 });
    await expect.poll(() => page.evaluate(() => window.innerWidth), `${name}: the viewport at ${width}px`).toBe(width);
    // Nothing wider than the screen at any width.
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${width}px`).toBeLessThanOrEqual(width);
    if (width !== 1280) await expectNoAxeViolations(page, `${name} at ${width}px`);
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  service = await startRealService({ env: { SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}` } });
  const orgId = service.banner.orgId;
  await admin('/admin/products', { orgId, id: 'house-blend', name: 'House Blend, 1 kg beans', imageUrl: `${service.origin}/favicon.svg` });
  await admin('/admin/collect/settings', { orgId, shareUrl: 'https://g.page/r/acme-coffee/review' });
  const link = await admin('/admin/collect/link', { orgId });
  reviewUrl = `${link.url as string}?product=house-blend`;
  context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on('request', (req) => {
    if (!req.url().startsWith(service.origin) && !req.url().startsWith('data:')) foreign.push(req.url());
  });
});

test.afterAll(async () => {
  await context?.close();
  await service?.stop();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
});

test('the form: stars as a labelled radio group, readable and axe 0 at 1280, 390 and 320 px', async () => {
  await page.goto(reviewUrl);
  await expect(page.getByRole('heading', { level: 1, name: 'Review Acme Coffee Roasters' })).toBeVisible();
  await expect(page.getByText('House Blend, 1 kg beans', { exact: true })).toBeVisible();
  const rating = page.getByRole('group', { name: 'Rating' });
  await expect(rating.getByRole('radio')).toHaveCount(5);
  for (let n = 1; n <= 5; n++) await expect(rating.getByRole('radio', { name: `${n} out of 5 stars` })).toHaveCount(1);
  await expect(page.getByRole('textbox', { name: 'Your review' })).toBeVisible();
  await expect(page.getByRole('checkbox', { name: 'This review is about my own experience' })).toBeVisible();
  await expectNoAxeViolations(page, 'the review page');
  await shots('form');
});

test('errors: the form again with what was typed, each message tied to its field, axe 0 at 1280, 390 and 320 px', async () => {
  await page.goto(reviewUrl);
  await page.getByRole('textbox', { name: 'Your review' }).fill('Rich and smooth, but the bag arrived torn.');
  await page.waitForTimeout(2100); // the form token is accepted 2 s after the page was served
  await page.getByRole('button', { name: 'Send review' }).click();
  await expect(page.getByRole('alert')).toHaveText('Please correct the fields marked below.');
  await expect(page.getByRole('textbox', { name: 'Your review' })).toHaveValue('Rich and smooth, but the bag arrived torn.');
  await expect(page.getByRole('textbox', { name: 'Your name' })).toHaveAccessibleDescription(/Enter your name/);
  await expect(page.getByRole('textbox', { name: 'Email' })).toHaveAccessibleDescription(/Enter a valid email address/);
  await expect(page.getByRole('radio', { name: '1 out of 5 stars' })).toHaveAccessibleDescription('Choose a rating from 1 to 5 stars.');
  await expectNoAxeViolations(page, 'the review page with errors');
  await shots('errors');
});

test('written and sent with the keyboard only; the thank-you page; the confirmation page from the mail publishes', async () => {
  await page.goto(reviewUrl);
  await page.locator('body').focus();
  // Into the radio group, then the arrow keys choose the rating.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('radio', { name: '1 out of 5 stars' })).toBeFocused();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('radio', { name: '4 out of 5 stars' })).toBeChecked();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('textbox', { name: 'Your review' })).toBeFocused();
  await page.keyboard.type('Rich and smooth, lovely crema. The bag could close better.');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Marta L.');
  await page.keyboard.press('Tab');
  await page.keyboard.type('marta@mail.example');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('checkbox', { name: 'This review is about my own experience' })).toBeFocused();
  await page.keyboard.press('Space');
  await shots('filled');
  await page.waitForTimeout(2100); // the form token's minimum age
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Send review' })).toBeFocused();
  await page.keyboard.press('Enter');

  await expect(page.getByRole('heading', { name: 'Thank you for your review' })).toBeVisible();
  await expect(page.getByText('We sent you an email. Open the link in it to confirm your review.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Also share your experience on g.page' })).toHaveAttribute('href', 'https://g.page/r/acme-coffee/review');
  await expectNoAxeViolations(page, 'the thank-you page');
  await shots('thanks');

  await expect.poll(() => inbox.length, { timeout: 15_000 }).toBe(1);
  const link = /https:\/\/\S+\/r\/confirm\/sub_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/.exec(inbox[0]!.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![0];
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Confirm your review' })).toBeVisible();
  await expectNoAxeViolations(page, 'the confirmation page');
  await shots('confirm');
  await page.getByRole('button', { name: 'Confirm my review' }).click();
  await expect(page.getByText('Thank you: your review is confirmed and published.')).toBeVisible();
  const reviews = await service.api<{ data: { authorName: string; rating: number; platform: string; productId: string | null }[] }>('/reviews?platform=DIRECT&productId=house-blend');
  expect(reviews.data.map((r) => [r.authorName, r.rating, r.platform, r.productId])).toContainEqual(['Marta L.', 4, 'DIRECT', 'house-blend']);
  expect(foreign, 'requests that left the service').toEqual([]);
});
