/**
 * An invitation's link in Chromium (CONTRACT §14), on the real service
 * without a mail relay (invitations are `unsent` links): the review page with
 * the star of the mail's link chosen and no email field, written and sent;
 * the thank-you page with the private link; the link opened again ("Review
 * received"); a tampered link (the 404 page). axe finds nothing on each, no
 * request leaves the service's origin, and each is photographed at 1280, 390
 * and 320 px under test-results/invitation-link/.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { expectNoAxeViolations } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

const SHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-results', 'invitation-link');

let service: RealService;
let context: BrowserContext;
let page: Page;
let link: string;
const foreign: string[] = [];

async function shots(name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  for (const width of [1280, 390, 320]) {
    await page.setViewportSize({ width, height: width === 1280 ? 900 : 760 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${width}px`).toBeLessThanOrEqual(width);
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  service = await startRealService();
  const orgId = service.banner.orgId;
  const headers = { authorization: `Bearer ${service.admin.token}` };
  const product = await fetch(`${service.admin.url}/admin/products`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ orgId, id: 'house-blend', name: 'House Blend, 1 kg beans', imageUrl: `${service.origin}/favicon.svg` }) });
  expect(product.status).toBeLessThan(300);
  const created = await fetch(`${service.admin.url}/admin/orgs/${orgId}/invitations`, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-ndjson' }, body: `${JSON.stringify({ email: 'ana@example.com', name: 'Ana', productId: 'house-blend', orderRef: 'A-1' })}\n` });
  expect(await created.json()).toMatchObject({ created: 1 });
  const list = (await (await fetch(`${service.admin.url}/admin/invitations?orgId=${orgId}`, { headers })).json()) as { data: { link: string }[] };
  link = list.data[0]!.link;
  context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on('request', (req) => {
    if (!req.url().startsWith(service.origin) && !req.url().startsWith('data:')) foreign.push(req.url());
  });
});

test.afterAll(async () => {
  await context?.close();
  await service?.stop();
});

test('the link opens the review page with the mail’s star chosen and no email field; sent, it thanks with the private link', async () => {
  await page.goto(`${link}?rating=4`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/^Review /);
  await expect(page.locator('.product').getByText('House Blend, 1 kg beans')).toBeVisible();
  await expect(page.getByRole('radio', { name: '4 out of 5 stars' })).toBeChecked();
  await expect(page.getByLabel('Email')).toHaveCount(0);
  await expectNoAxeViolations(page, 'the invitation form');
  await shots('form');

  // Another star may be chosen: the page is the same for every rating.
  await page.getByRole('radio', { name: '5 out of 5 stars' }).check({ force: true });
  await page.getByLabel('Your review').fill('Rich and smooth; arrived two days after roasting.');
  await page.getByLabel('Your name').fill('Ana');
  await page.getByLabel('This review is about my own experience').check();
  await page.waitForTimeout(2100);
  await page.getByRole('button', { name: 'Send review' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Thank you for your review');
  await expect(page.getByText('Thank you: your review is published.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Change or delete your review' })).toBeVisible();
  await expect(page.getByText('Keep this private link to change or delete your review later: it is shown only here.')).toBeVisible();
  await expectNoAxeViolations(page, 'the invitation thank-you page');
  await shots('thanks');

  const reviews = await service.api<{ data: { content: string; isVerified: boolean; rating: number }[] }>('/reviews?platform=DIRECT&limit=100');
  expect(reviews.data.find((r) => r.content.startsWith('Rich and smooth'))).toMatchObject({ isVerified: true, rating: 5 });
});

test('opened again, the link says the review was received and how to change it, without the private link; a tampered link is the 404 page', async () => {
  await page.goto(link);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Review received');
  // How to change it, never the private link itself: the shop holds every invitation link.
  await expect(page.getByText('use the private link shown right after you sent it')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Change or delete your review' })).toHaveCount(0);
  await expectNoAxeViolations(page, 'the received page');
  await shots('received');

  const tampered = `${link.slice(0, -1)}${link.endsWith('A') ? 'B' : 'A'}`;
  const answer = await page.goto(tampered);
  expect(answer?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page not found');
  await shots('not-found');
  expect(foreign).toEqual([]);
});
