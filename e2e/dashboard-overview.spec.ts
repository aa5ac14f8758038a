/**
 * The Overview page end to end, in Debian's Chromium against the real service
 * over HTTPS (demo data on a fresh DATA_DIR): the three charts are drawn
 * (canvases with ink on them), each text alternative says what the data says
 * (tables and sentences against /dashboard/api/overview and /api/v1/reviews/stats),
 * the chart library is fetched by the Overview only, an empty organization is
 * told how to import, a review source that needs a person is shown (notice
 * and navigation badge) until it is reconnected, axe finds nothing, the tables
 * and the notice's link work from the keyboard, and screenshots at 1280 and
 * 390 px go to test-results/dashboard/. The review platforms are the local
 * HTTPS fake of api/sources/testing (its certificate trusted by the service).
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

interface Overview {
  totalReviews: number;
  averageRating: number | null;
  last7Days: number;
  last30Days: number;
  ratingDistribution: { rating: number | null; count: number }[];
  months: { month: string; count: number; averageRating: number | null; platforms: { platform: string; count: number }[] }[];
}

let service: RealService;
let context: BrowserContext;
let page: Page;

const number = new Intl.NumberFormat('en-US');

async function newContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'America/Los_Angeles', viewport: { width: 1280, height: 800 } });
}

/** Pixels of a canvas that are neither transparent nor white: the chart's ink. */
async function inkOf(page: Page, chart: string): Promise<number> {
  return page.locator(`[data-chart="${chart}"] canvas`).first().evaluate((canvas: HTMLCanvasElement) => {
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i + 3]! > 0 && (data[i]! < 240 || data[i + 1]! < 240 || data[i + 2]! < 240)) ink++;
    return ink;
  });
}

async function tableRows(page: Page, figure: string): Promise<string[][]> {
  const rows = page.getByRole('figure', { name: figure }).getByRole('table').locator('tbody tr');
  return rows.evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? '').trim())));
}

let fake: PlatformFake;
let caDir: string;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  fake = await PlatformFake.start();
  caDir = mkdtempSync(join(tmpdir(), 'overview-e2e-ca-'));
  writeFileSync(join(caDir, 'fake-ca.pem'), fake.ca);
  service = await startRealService({ env: { NODE_EXTRA_CA_CERTS: join(caDir, 'fake-ca.pem'), TRUSTPILOT_API_URL: fake.urls().trustpilot } });
  context = await newContext(browser);
  page = await context.newPage();
});

test.afterAll(async () => {
  await context?.close();
  await service?.stop();
  await fake?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

test('draws the three charts with text alternatives that say what the data says; only the Overview fetches the chart library', async () => {
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/dashboard/assets/') && r.url().endsWith('.js')) scripts.push(r.url().slice(r.url().lastIndexOf('/') + 1));
  });
  // Signing in lands on the Overview; another page, loaded afresh, must not fetch the chart library.
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await page.goto(`${service.origin}/dashboard/members`);
  scripts.length = 0;
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Members', level: 1 })).toBeVisible();
  await page.waitForLoadState('networkidle');
  // What every page loads: the page script and the chunks it imports statically (code shared with lazily loaded pages).
  const pageScript = scripts.find((s) => /^dashboard-[A-Z0-9]+\.js$/.test(s));
  expect(pageScript, 'the page script was seen').toBeTruthy();
  const pageScriptText = await (await page.request.get(`${service.origin}/dashboard/assets/${pageScript}`)).text();
  const membersChunks = scripts.filter((s) => s.startsWith('dashboard-chunk-'));
  for (const chunk of membersChunks) expect(pageScriptText, `${chunk} is a static import of the page script, not the charts`).toMatch(new RegExp(`from\\s*"\\./${chunk.replace('.', '\\.')}"`));

  const answer = page.waitForResponse((r) => r.url().endsWith('/dashboard/api/overview'));
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Overview', exact: true }).click();
  const data = (await (await answer).json()) as Overview;
  expect(data.totalReviews).toBeGreaterThan(100);
  await expect(page.locator('[data-chart] canvas'), 'uPlot draws one canvas per chart').toHaveCount(3, { timeout: 15_000 });
  expect(scripts.filter((s) => s.startsWith('dashboard-chunk-') && !membersChunks.includes(s)), 'the Overview fetches its chart chunk').not.toEqual([]);

  // The figures are the public statistics.
  const stats = (await service.api<{ data: { totalReviews: number; averageRating: number; last7Days: number; last30Days: number } }>('/reviews/stats')).data;
  expect([data.totalReviews, data.averageRating, data.last7Days, data.last30Days]).toEqual([stats.totalReviews, stats.averageRating, stats.last7Days, stats.last30Days]);
  const figure = (label: string) => page.locator('.stat').filter({ has: page.getByText(label, { exact: true }) }).locator('dd');
  await expect(figure('Reviews')).toHaveText(number.format(stats.totalReviews));
  await expect(figure('Last 7 days')).toHaveText(number.format(stats.last7Days));
  await expect(figure('Last 30 days')).toHaveText(number.format(stats.last30Days));

  // Every chart has ink on its canvas, is an image named by its heading and described by its sentence.
  for (const [chart, name] of [
    ['chart-ratings', 'Rating distribution'],
    ['chart-monthly', 'Reviews per month by platform'],
    ['chart-average', 'Average rating by month'],
  ] as const) {
    await expect.poll(() => inkOf(page, chart), { message: `${name} is drawn` }).toBeGreaterThan(500);
    const img = page.getByRole('img', { name });
    await expect(img).toBeVisible();
    await expect(img).toHaveAccessibleDescription(/\d/);
  }

  // The tables hold the data, in the person's locale.
  for (const name of ['Rating distribution', 'Reviews per month by platform', 'Average rating by month']) {
    await page.getByRole('figure', { name }).getByText('Show the figures as a table').click();
  }
  expect(await tableRows(page, 'Rating distribution')).toEqual(data.ratingDistribution.map((r) => [r.rating === null ? 'No stars' : `${r.rating} star${r.rating === 1 ? '' : 's'}`, number.format(r.count)]));
  const monthName = (m: string) => new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${m}-01T00:00:00Z`));
  const monthly = await tableRows(page, 'Reviews per month by platform');
  expect(monthly.map((r) => [r[0], r.at(-1)])).toEqual(data.months.map((m) => [monthName(m.month), number.format(m.count)]));
  expect(monthly.map((r) => r.slice(1, -1))).toEqual(data.months.map((m) => m.platforms.map((p) => number.format(p.count))));
  const headers = await page.getByRole('figure', { name: 'Reviews per month by platform' }).getByRole('columnheader').allTextContents();
  // Platform ids in words: DIRECT (reviews written on the review page) is "Your review page", the others capitalized.
  expect(headers.slice(1, -1)).toEqual(data.months[0]!.platforms.map((p) => (p.platform === 'DIRECT' ? 'Your review page' : p.platform.charAt(0) + p.platform.slice(1).toLowerCase())));
  // The current UTC month is the last row (a person west of UTC still sees the month the server counted).
  expect(monthly.at(-1)![0]).toBe(monthName(new Date().toISOString().slice(0, 7)));
  expect(await tableRows(page, 'Average rating by month')).toEqual(
    data.months.map((m) => [monthName(m.month), m.averageRating === null ? '–' : new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 2 }).format(m.averageRating), number.format(m.count)]),
  );
  // The sentences name the totals.
  await expect(page.getByRole('figure', { name: 'Rating distribution' })).toContainText(`Of ${number.format(data.totalReviews)} reviews`);
  const inWindow = data.months.reduce((n, m) => n + m.count, 0);
  await expect(page.getByRole('figure', { name: 'Reviews per month by platform' })).toContainText(`${number.format(inWindow)} reviews in the last 12 months`);
  // The legend names every platform of the monthly chart (colour is never the only cue).
  const legend = page.getByRole('figure', { name: 'Reviews per month by platform' }).getByRole('list', { name: 'Legend' });
  await expect(legend.getByRole('listitem')).toHaveCount(data.months[0]!.platforms.length);

  await expectNoAxeViolations(page, 'the Overview with its tables open');
  await screenshots(page, 'overview-charts-tables');
  // Closed again, as a person first sees the page; readable at 390 px (screenshots looked at).
  for (const name of ['Rating distribution', 'Reviews per month by platform', 'Average rating by month']) {
    await page.getByRole('figure', { name }).getByText('Show the figures as a table').click();
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(async () => page.locator('[data-chart="chart-monthly"] canvas').first().evaluate((c) => c.getBoundingClientRect().width)).toBeLessThanOrEqual(390);
  await expect.poll(() => inkOf(page, 'chart-monthly')).toBeGreaterThan(500);
  await expectNoAxeViolations(page, 'the Overview at 390 px');
  await screenshots(page, 'overview-charts');
});

test('the tables open and close from the keyboard alone', async () => {
  await page.goto(`${service.origin}/dashboard/overview`);
  await expect(page.locator('[data-chart] canvas').first()).toBeVisible();
  const toggle = page.getByRole('figure', { name: 'Rating distribution' }).locator('summary');
  let reached = false;
  for (let i = 0; i < 40 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await toggle.evaluate((el) => el === document.activeElement);
  }
  expect(reached, 'Tab reaches the first chart’s table toggle').toBe(true);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('figure', { name: 'Rating distribution' }).getByRole('table')).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('figure', { name: 'Rating distribution' }).getByRole('table')).toBeHidden();
});

test('an organization without reviews is told how to import them, with no empty axes', async ({ browser }) => {
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${service.admin.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, `admin POST ${path}`).toBe(201);
    return (await res.json()) as { id: string };
  };
  const org = await admin('/admin/orgs', { name: 'Empty Bakery', plan: 'growth' });
  const password = 'a long enough password for the test';
  await admin('/admin/users', { orgId: org.id, email: 'owner@empty.example', role: 'owner', password });

  const empty = await newContext(browser);
  try {
    const p = await empty.newPage();
    await signIn(p, service.origin, 'owner@empty.example', password);
    await expect(p.getByRole('heading', { name: 'No reviews yet' })).toBeVisible();
    await expect(p.getByText('Import reviews')).toBeVisible();
    await expect(p.getByText(`npm run admin -- reviews import --org ${org.id} reviews.csv`)).toBeVisible();
    await expect(p.locator('.stat').filter({ hasText: 'Reviews' }).first().locator('dd')).toHaveText('0');
    await expect(p.locator('[data-chart], canvas')).toHaveCount(0);
    await expectNoAxeViolations(p, 'the empty Overview');
    await screenshots(p, 'overview-empty');
    await p.getByRole('main').getByRole('link', { name: 'Reviews' }).click();
    await expect(p).toHaveURL(/\/dashboard\/reviews$/);
  } finally {
    await empty.close();
  }
});

test('a review source that needs reconnecting is on the Overview and beside Sources until it is reconnected', async ({ browser }) => {
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.admin.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${service.admin.token}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  // An organization of its own (the demo's figures stay as the tests above read them), with a Trustpilot source.
  const org = (await admin('POST', '/admin/orgs', { name: 'Harbour Roasters', plan: 'growth' })).body.id as string;
  const password = 'a long enough password for the test';
  expect((await admin('POST', '/admin/users', { orgId: org, email: 'owner@harbour.example', role: 'owner', password })).status).toBe(201);
  expect((await admin('POST', '/admin/users', { orgId: org, email: 'member@harbour.example', role: 'member', password })).status).toBe(201);
  fake.trustpilotUnits.set('harbour-unit', trustpilotReviews(3, Date.now() - 3600_000, 'harbour'));
  const added = await admin('POST', '/admin/sources', { orgId: org, platform: 'trustpilot', account: 'harbour-unit', name: 'Harbour shop', credentials: { apiKey: fake.keys.trustpilot } });
  expect(added.status).toBe(201);
  const id = added.body.id as string;
  // The platform stops accepting the key; the source's sync (run here, waiting for it) makes it need reconnecting.
  fake.force('trustpilot', { status: 401, body: { message: 'Unauthorized' } });
  await expect.poll(async () => (await admin('POST', `/admin/sources/${id}/sync`)).body.state, { timeout: 60_000 }).toBe('needs_reauth');

  const owner = await newContext(browser);
  const member = await newContext(browser);
  try {
    const p = await owner.newPage();
    await signIn(p, service.origin, 'owner@harbour.example', password);
    await expect(p.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
    const notice = p.getByRole('region', { name: 'A review source needs attention' });
    await expect(notice).toContainText('Trustpilot Harbour shop: needs reconnecting (no reviews are collected until then).');
    await expect(notice).toContainText('Trustpilot refused the credentials (401)');
    await expect(notice).toContainText('Open Sources to reconnect it or see why.');
    const sources = p.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Sources, 1 needs attention', exact: true });
    await expect(sources).toHaveAttribute('data-attention', '1');
    await expectNoAxeViolations(p, 'the Overview with a source that needs reconnecting');
    await screenshots(p, 'overview-source-attention');
    // At 390 px the navigation is behind Menu: the button carries the badge and says it.
    await p.setViewportSize({ width: 390, height: 844 });
    await expect(p.getByRole('button', { name: 'Menu, current page: Overview; Sources: 1 needs attention' })).toHaveAttribute('data-attention', '1');
    await expectNoAxeViolations(p, 'the Overview at 390 px with a source that needs reconnecting');
    await p.setViewportSize({ width: 1280, height: 800 });

    // From the keyboard: the notice's link leads to Sources.
    const link = notice.getByRole('link', { name: 'Open Sources' });
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await p.keyboard.press('Tab');
      reached = await link.evaluate((el) => el === document.activeElement);
    }
    expect(reached, 'Tab reaches Open Sources').toBe(true);
    await p.keyboard.press('Enter');
    await expect(p.getByRole('heading', { name: 'Sources', level: 1 })).toBeVisible();
    await expect(p.getByRole('region', { name: 'Sources' })).toContainText('Needs reconnecting');

    // A Member is told too, with who can reconnect.
    const m = await member.newPage();
    await signIn(m, service.origin, 'member@harbour.example', password);
    await expect(m.getByRole('region', { name: 'A review source needs attention' })).toContainText('Open Sources to see why; an Owner or Admin can reconnect.');
    await expectNoAxeViolations(m, 'the Overview of a Member with a source that needs reconnecting');

    // Reconnected (here by the CLI's admin API): resolved, the notice and the badge go at the next page.
    expect((await admin('POST', `/admin/sources/${id}/reconnect`, { credentials: { apiKey: fake.keys.trustpilot } })).body.state).toBe('active');
    await p.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Overview', exact: true }).click();
    await expect(p.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
    await expect(p.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Sources', exact: true })).toBeVisible();
    await expect(p.locator('[data-attention]')).toHaveCount(0);
    await expect(p.getByRole('region', { name: /needs? attention/ })).toHaveCount(0);
  } finally {
    await owner.close();
    await member.close();
    fake.trustpilotUnits.delete('harbour-unit');
  }
});
