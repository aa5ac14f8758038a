/**
 * Replies as figures on the dashboard (CONTRACT §15), in Debian's Chromium
 * against the real service over HTTPS (demo data, plus reviews imported with
 * and without replies): the Reviews page's `Not replied` filter, the
 * Overview's reply rate and median time to reply (and its honest sentence
 * when there is nothing to count), and the Trustpilot connect and reconnect
 * forms' optional reply fields with the row that says what is missing. axe on
 * each; screenshots at 1280 and 390 px in test-results/dashboard/.
 */
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trustpilotReviews } from '../api/sources/testing/generate.ts';
import { PlatformFake } from '../api/sources/testing/platform-fake.ts';
import { expectNoAxeViolations, ownerPassword, screenshots, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

const DAY = 86_400_000;
const HOUR = 3_600_000;
const PASSWORD = 'a long enough password for e2e';

let service: RealService;
let fake: PlatformFake;
let caDir: string;
let context: BrowserContext;
let page: Page;

async function newContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'America/Los_Angeles', viewport: { width: 1280, height: 800 } });
}

async function admin(method: string, path: string, body?: unknown, type = 'application/json'): Promise<Record<string, unknown>> {
  const res = await fetch(`${service.admin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.admin.token}`, 'content-type': type },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function review(platform: string, externalId: string, ageDays: number, replyAfterHours: number | null): string {
  const date = Date.now() - ageDays * DAY;
  return JSON.stringify({
    platform,
    externalId,
    authorName: `Reply e2e ${externalId}`,
    rating: 2 + (externalId.length % 4),
    content: 'Came in for a fitting; friendly staff.',
    date: new Date(date).toISOString(),
    language: 'en',
    ...(replyAfterHours !== null && { replyText: 'Thank you for coming in!', replyDate: new Date(date + replyAfterHours * HOUR).toISOString() }),
  });
}

async function importInto(orgId: string, lines: string[]): Promise<void> {
  const summary = await admin('POST', `/admin/orgs/${orgId}/reviews?format=ndjson`, `${lines.join('\n')}\n`, 'application/x-ndjson');
  expect(summary.rejectedTotal).toBe(0);
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  fake = await PlatformFake.start();
  fake.trustpilot = trustpilotReviews(5);
  caDir = mkdtempSync(join(tmpdir(), 'reply-figures-e2e-ca-'));
  writeFileSync(join(caDir, 'fake-ca.pem'), fake.ca);
  service = await startRealService({ env: { NODE_EXTRA_CA_CERTS: join(caDir, 'fake-ca.pem'), TRUSTPILOT_API_URL: fake.urls().trustpilot } });
  await importInto(service.banner.orgId, [
    review('GOOGLE', 'rf-g1', 3, 2),
    review('GOOGLE', 'rf-g2', 5, null),
    review('TRUSTPILOT', 'rf-t1', 8, 30),
    review('YELP', 'rf-y1', 2, null),
  ]);
  context = await newContext(browser);
  page = await context.newPage();
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
});

test.afterAll(async () => {
  await context?.close();
  await service?.stop();
  await fake?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

interface ListAnswer {
  data: { authorName: string; platform: string; reply: unknown }[];
  pagination: { total: number };
}

test('Reviews: Not replied lists the Google, Trustpilot and review-page reviews without a reply, with the other filters', async () => {
  await page.goto(`${service.origin}/dashboard/reviews`);
  const table = page.getByRole('table');
  await expect(table.getByRole('row').nth(1)).toBeVisible();
  const reply = page.getByLabel('Reply', { exact: true });
  await expect(reply).toHaveAccessibleDescription('Google, Trustpilot and your review page');
  await reply.selectOption({ label: 'Not replied' });
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/dashboard/api/reviews' && new URL(r.url()).searchParams.get('notReplied') === 'true');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  const body = (await (await answered).json()) as ListAnswer;
  expect(body.pagination.total).toBeGreaterThan(0);
  expect(body.data.every((r) => ['GOOGLE', 'TRUSTPILOT', 'DIRECT'].includes(r.platform) && r.reply === null)).toBe(true);
  // What the page shows is that answer: its count, and its rows (the unanswered Google review imported here among them when on this page).
  await expect(page.getByText(`${new Intl.NumberFormat('en-US').format(body.pagination.total)} reviews match`)).toBeVisible();
  await expect(table.locator('tbody tr')).toHaveCount(body.data.length);
  await expect(table.locator('tbody tr').first()).toContainText(body.data[0]!.authorName);
  const all = (await (await page.request.get(`${service.origin}/dashboard/api/reviews?limit=100&notReplied=true`)).json()) as ListAnswer;
  const names = all.data.map((r) => r.authorName);
  expect(names).toContain('Reply e2e rf-g2');
  expect(names).not.toContain('Reply e2e rf-g1');
  expect(names).not.toContain('Reply e2e rf-y1');
  await expectNoAxeViolations(page, 'Reviews, Not replied');
  await screenshots(page, 'reviews-not-replied');

  // Yelp offers no reply API: nothing there waits for a reply, and the page says why the list is empty.
  await page.getByLabel('Platform').selectOption({ label: 'Yelp' });
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByText('No review waits for a reply: every matching review on Google, Trustpilot and your review page has one.')).toBeVisible();
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect(reply).toHaveValue('');
});

interface OverviewAnswer {
  replies: { days: number; platforms: { platform: string; received: number; replied: number; medianReplyMs: number | null }[]; medianReplyMs: number | null };
}

test('Overview: the reply rate of the last 90 days per platform and the median time to reply, as the endpoint says; honest without reviews there', async ({ browser }) => {
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/dashboard/api/overview');
  await page.goto(`${service.origin}/dashboard`);
  const data = ((await (await answered).json()) as OverviewAnswer).replies;
  const card = page.getByRole('region', { name: 'Replies (last 90 days)' });
  await expect(card).toBeVisible();
  expect(data.platforms.map((p) => p.platform)).toEqual(expect.arrayContaining(['GOOGLE', 'TRUSTPILOT']));
  const names: Record<string, string> = { GOOGLE: 'Google', TRUSTPILOT: 'Trustpilot', DIRECT: 'Your review page' };
  const rows = card.getByRole('table').locator('tbody tr');
  await expect(rows).toHaveCount(data.platforms.length);
  for (const [i, p] of data.platforms.entries()) {
    await expect(rows.nth(i).locator('th')).toHaveText(names[p.platform]!);
    await expect(rows.nth(i).locator('td').first()).toHaveText(`${p.replied} of ${p.received} (${Math.round((100 * p.replied) / p.received)}%)`);
    await expect(rows.nth(i).locator('td').nth(1)).toHaveText(p.medianReplyMs === null ? 'none yet' : /^(under a minute|[\d.]+ (minutes?|hours?|days?))$/);
  }
  const received = data.platforms.reduce((n, p) => n + p.received, 0);
  const replied = data.platforms.reduce((n, p) => n + p.replied, 0);
  await expect(card.getByText(`In all: ${replied} of ${received} replied (${Math.round((100 * replied) / received)}%), median time to reply`)).toBeVisible();
  await expectNoAxeViolations(page, 'Overview with replies');
  await screenshots(page, 'overview-replies');
  await page.setViewportSize({ width: 390, height: 844 });
  await expectNoAxeViolations(page, 'Overview with replies at 390 px');
  for (const part of [card, card.getByRole('table')]) {
    const box = await part.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 800 });

  // An organization whose reviews are older than 90 days (and a Yelp one): the card says so, no table.
  const org = (await admin('POST', '/admin/orgs', { name: 'Old reviews shop', plan: 'growth' })).id as string;
  await admin('POST', '/admin/users', { orgId: org, email: 'owner@old-reviews.example', role: 'owner', password: PASSWORD });
  await importInto(org, [review('GOOGLE', 'old-g1', 200, 5), review('YELP', 'new-y1', 1, null)]);
  const other = await newContext(browser);
  try {
    const second = await other.newPage();
    await signIn(second, service.origin, 'owner@old-reviews.example', PASSWORD);
    const empty = second.getByRole('region', { name: 'Replies (last 90 days)' });
    await expect(empty).toContainText('No reviews in the last 90 days on Google, Trustpilot or your review page.');
    await expect(empty.getByRole('table')).toHaveCount(0);
    await expectNoAxeViolations(second, 'Overview, no reviews to reply to in 90 days');
    await screenshots(second, 'overview-replies-empty');
  } finally {
    await other.close();
  }
});

test('Sources: Trustpilot takes the API secret and business user id (optional); without them the row says what to add to reply, and a reconnect adds them', async () => {
  await page.goto(`${service.origin}/dashboard/sources`);
  await page.getByRole('button', { name: 'Connect source' }).click();
  const dialog = page.getByRole('dialog', { name: 'Connect source' });
  await expect(dialog.getByLabel('Platform')).toHaveValue('trustpilot');
  const group = dialog.getByRole('group', { name: 'Replies' });
  await expect(group.getByLabel('API secret (optional)')).toHaveAttribute('type', 'password');
  await expect(group.getByLabel('Business user id (optional)')).toBeVisible();
  await expect(group).toHaveAccessibleDescription(/both are needed to reply to reviews from here/);
  await expectNoAxeViolations(page, 'Connect source, Trustpilot');
  await screenshots(page, 'sources-connect-trustpilot');
  // Other platforms have no reply fields.
  await dialog.getByLabel('Platform').selectOption('yelp');
  await expect(dialog.getByRole('group', { name: 'Replies' })).toHaveCount(0);
  await dialog.getByLabel('Platform').selectOption('trustpilot');

  // Read only first: the API key alone.
  await dialog.getByLabel('Account').fill('unit-1');
  await dialog.getByLabel('Name (optional)').fill('Main shop');
  await dialog.getByLabel('API key').fill(fake.keys.trustpilot);
  await dialog.getByRole('button', { name: 'Connect' }).click();
  await expect(dialog).toBeHidden();
  const row = page.getByRole('row').filter({ hasText: 'Main shop' });
  await expect(row).toContainText('Add the API secret and business user id to reply from here.');
  await expectNoAxeViolations(page, 'Sources, a read-only Trustpilot source');
  await screenshots(page, 'sources-trustpilot-reply-missing');

  // Reconnecting adds them; the row no longer asks, and the secret is shown nowhere.
  await row.getByRole('button', { name: 'Reconnect Trustpilot Main shop' }).click();
  const again = page.getByRole('dialog', { name: 'Reconnect Trustpilot Main shop' });
  await again.getByLabel('New API key').fill(fake.keys.trustpilot);
  await again.getByLabel('API secret (optional)').fill(fake.keys.trustpilotSecret);
  await again.getByLabel('Business user id (optional)').fill(fake.keys.trustpilotBusinessUser);
  await expectNoAxeViolations(page, 'Reconnect Trustpilot with the reply fields');
  await again.getByRole('button', { name: 'Reconnect' }).click();
  await expect(again).toBeHidden();
  await expect(row.getByText('to reply from here')).toHaveCount(0);
  await expect(row.getByRole('button', { name: 'Reconnect Trustpilot Main shop' })).toHaveCount(0);
  expect(await page.content()).not.toContain(fake.keys.trustpilotSecret);
  const listed = (await (await page.request.get(`${service.origin}/dashboard/api/sources`)).text());
  expect(listed).not.toContain(fake.keys.trustpilotSecret);
  expect(listed).toContain('"replyMissing":[]');
});
