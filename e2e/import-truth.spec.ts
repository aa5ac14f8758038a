/**
 * Imports tell the truth (issue 28, items 3-5), in Debian's Chromium against
 * the real service over HTTPS: a CSV whose header lacks the required columns
 * is one file-level error naming what is missing and what was found, and the
 * summary never says lines were kept when none were; dates without an offset
 * are said to have been read as UTC; a second upload while one runs says an
 * import is still running (not "Too many attempts"), and a page reloaded
 * mid-upload shows what that upload kept. axe on each state; screenshots at
 * 1280 and 390 px in SHOTS (default test-results/import-truth/).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Browser, type BrowserContext, type Locator, type Page } from '@playwright/test';
import { expectNoAxeViolations, ownerPassword, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 240_000 });

const SHOTS = process.env.SHOTS ?? join(process.cwd(), 'test-results', 'import-truth');

let service: RealService;
let owner: BrowserContext;
let page: Page;

const newContext = (browser: Browser): Promise<BrowserContext> =>
  browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'Europe/Paris', viewport: { width: 1280, height: 800 } });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  service = await startRealService();
  owner = await newContext(browser);
  page = await owner.newPage();
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
});

test.afterAll(async () => {
  await owner?.close();
  await service?.stop();
});

/** The Reviews page with the import panel open. */
async function openImport(p: Page): Promise<Locator> {
  await p.goto(`${service.origin}/dashboard/reviews`);
  await expect(p.getByRole('heading', { name: 'Reviews', level: 1 })).toBeVisible();
  await p.getByRole('button', { name: 'Import reviews' }).click();
  const panel = p.getByRole('region', { name: 'Import reviews' });
  await expect(panel).toBeVisible();
  return panel;
}

async function shoot(p: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  for (const width of [1280, 390]) {
    await p.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    await p.getByRole('region', { name: 'Import reviews' }).scrollIntoViewIfNeeded();
    await p.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await p.setViewportSize({ width: 1280, height: 800 });
}

const total = async (): Promise<number> => (await service.api<{ data: { totalReviews: number } }>('/reviews/stats')).data.totalReviews;

test('a CSV header without the required columns is one file-level error naming what is missing and what was found', async () => {
  const panel = await openImport(page);
  const before = await total();
  const csv = 'stars,text,when,platform\n5,Great coffee,2026-01-01,GOOGLE\n4,Fine,2026-01-02,GOOGLE\n';
  await panel.getByLabel('Review file').setInputFiles({ name: 'wrong-columns.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await panel.getByRole('button', { name: 'Upload and import' }).click();
  const status = panel.getByRole('status');
  await expect(status).toContainText('Nothing was imported');
  await expect(status).toContainText('missing the required columns "externalId", "authorName", "date"');
  await expect(status).toContainText('found: "stars", "text", "when", "platform"');
  await expect(status).not.toContainText('kept');
  // Said once, not repeated for every line.
  await expect(panel.getByRole('region', { name: 'Rejected lines' })).toHaveCount(0);
  expect(await total()).toBe(before);
  await expectNoAxeViolations(page, 'the import panel with a file-level error');
  await shoot(page, 'import-wrong-columns');
});

test('a summary never says lines were kept when every line was rejected', async () => {
  const panel = await openImport(page);
  const ndjson = `${JSON.stringify({ platform: 'GOOGLE', externalId: 'x1', authorName: 'Ann', rating: 9, date: '2026-01-01' })}\n${JSON.stringify({ platform: 'GOOGLE', authorName: 'Bob', date: '2026-01-01' })}\n`;
  await panel.getByLabel('Review file').setInputFiles({ name: 'all-bad.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(ndjson) });
  await panel.getByRole('button', { name: 'Upload and import' }).click();
  const status = panel.getByRole('status');
  await expect(status).toContainText('Nothing was imported: all 2 lines were rejected.');
  await expect(status).not.toContainText('kept');
  await expect(panel.getByRole('region', { name: 'Rejected lines' }).getByRole('listitem')).toHaveCount(2);
});

test('dates without an offset are imported and said to have been read as UTC', async () => {
  const panel = await openImport(page);
  const rows = ['2026-11-20 10:00', '2026-11-20T11:00', '2026-11-20T12:00Z', '2026-11-20T13:00+01:00', '2026-11-20'].map((date, i) =>
    JSON.stringify({ platform: 'TRUSTPILOT', externalId: `tz-${i}`, authorName: `Time zone ${i}`, rating: 5, content: 'Lovely coffee and friendly staff.', date }),
  );
  await panel.getByLabel('Review file').setInputFiles({ name: 'dates.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(rows.join('\n')) });
  await panel.getByRole('button', { name: 'Upload and import' }).click();
  const status = panel.getByRole('status');
  // The first reviews analysed load the enrichment's lexicons: a while on a busy machine.
  await expect(status).toContainText('Import finished: 5 new, 0 updated, nothing rejected.', { timeout: 60_000 });
  await expect(status).toContainText('2 dates had a time but no time zone (such as 2026-11-20 10:00) and were read as UTC.');
  // Read through the API's since, written without seconds as people do.
  const stored = await service.api<{ data: { authorName: string; date: string }[] }>('/reviews?platform=TRUSTPILOT&since=2026-11-20T09:59Z&limit=100');
  expect(stored.data.find((r) => r.authorName === 'Time zone 0')?.date).toBe('2026-11-20T10:00:00.000Z');
  await expectNoAxeViolations(page, 'the import summary with dates read as UTC');
  await shoot(page, 'import-dates-utc');
});

/** A CSV of `rows` good reviews, about 100 bytes each. */
function bigCsv(rows: number): Buffer {
  const lines = ['platform,externalId,authorName,rating,content,date'];
  for (let i = 0; i < rows; i++) lines.push(`YELP,slow-${i},Customer ${i},${1 + (i % 5)},"Order ${i} was fine, the staff were helpful.",2019-05-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`);
  return Buffer.from(`${lines.join('\n')}\n`);
}

test('a second upload while one runs says an import is still running; a page reloaded mid-upload shows what it kept', async () => {
  const before = await total();
  // The first tab uploads a ~2.5 MB file at 48 KB/s (Chromium's network emulation): it runs for a long while.
  const first = await openImport(page);
  await first.getByLabel('Review file').setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: bigCsv(30_000) });
  const cdp = await owner.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 48 * 1024 });
  await first.getByRole('button', { name: 'Upload and import' }).click();
  await expect(first.getByRole('progressbar', { name: 'Import progress' })).toBeVisible();

  // A second tab of the same person: the panel says the first upload is going, with what it has kept so far.
  const other = await owner.newPage();
  const second = await openImport(other);
  const running = second.getByRole('status').filter({ hasText: 'is still running' });
  await expect(running).toContainText(/An import started .* is still running: [\d,]+ reviews? \([\d,]+ new, [\d,]+ updated\) kept so far\./);
  // Its count grows as batches land.
  await expect(running).toContainText(/running: [1-9][\d,]* reviews/, { timeout: 90_000 });

  // A second file from this tab is refused, and the person is told why in words that fit.
  await second.getByLabel('Review file').setInputFiles({ name: 'small.csv', mimeType: 'text/csv', buffer: Buffer.from('platform,externalId,authorName,date\nGOOGLE,s1,Ann,2026-01-01\n') });
  await second.getByRole('button', { name: 'Upload and import' }).click();
  await expect(second.getByRole('status').filter({ hasText: 'Your file was not imported' })).toContainText('is still running');
  await expect(second).not.toContainText('Too many attempts');
  await expectNoAxeViolations(other, 'a second upload refused while one runs');
  await shoot(other, 'import-second-upload-refused');

  // The first tab is reloaded mid-upload: the upload ends there; the page says what it kept.
  await page.reload();
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }).catch(() => undefined);
  const reopened = await openImport(page);
  const stopped = reopened.getByText('stopped before the whole file arrived');
  await expect(stopped).toBeVisible({ timeout: 60_000 });
  const text = (await stopped.textContent()) ?? '';
  const kept = Number(/It kept ([\d,]+) reviews?/.exec(text)?.[1]?.replace(/,/g, ''));
  expect(kept).toBeGreaterThan(0);
  expect(kept).toBeLessThan(30_000);
  expect(await total()).toBe(before + kept);
  await expect(reopened).not.toContainText('Too many attempts');
  await expectNoAxeViolations(page, 'the import panel after a reload mid-upload');
  await shoot(page, 'import-after-reload');

  // The other tab, still watching, learns that the upload ended.
  await expect(second.getByText('It has ended now: upload your file again.')).toBeVisible({ timeout: 30_000 });
  await other.close();
});
