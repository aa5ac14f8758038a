/**
 * The Sources page end to end, in Chromium against the real service over
 * HTTPS, with a local HTTPS fake of the platforms (test code: the fake of
 * api/sources/testing, its certificate trusted by the service through
 * NODE_EXTRA_CA_CERTS, its URLs given as TRUSTPILOT_API_URL and Google's):
 * connect Trustpilot from the keyboard (a wrong key first: refused in the
 * dialog, nothing connected), its first sync's outcome in words at once, the
 * same schedule as the admin API's, Sync now, the reviews in the Reviews page
 * and in a widget's public data; a failed sync said as a failure; Full sync
 * removing what the platform no longer lists, its result kept after a reload;
 * Google's OAuth flow through the fake's consent and token endpoints, then the
 * location; remove with the confirm dialog from the keyboard (Escape cancels);
 * a source that needs reconnecting shown in the navigation (a badge with an
 * accessible name) and on the Overview until it is reconnected, a wrong key on
 * Reconnect refused in the dialog; a Member sees no buttons; a large removal
 * held for a person (Remove them / Keep them); axe on every
 * state; at 390 px each source is a card whose actions are on screen and work
 * (no sideways scrolling); screenshots at 1280 and 390 px.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trustpilotReviews } from '../api/sources/testing/generate.ts';
import { PlatformFake } from '../api/sources/testing/platform-fake.ts';
import { expectNoAxeViolations, ownerPassword, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

/** Kept beside Playwright's own output (test-results/, outside the e2e folder it empties on every run). */
const SHOTS = process.env.SOURCES_SHOTS_DIR ?? join(import.meta.dirname, '..', 'test-results', 'sources-page');
/** A sync does real work (paging, enrichment, the store): its summary is awaited as long as a loaded machine may need. */
const SYNC_MS = 60_000;
const MEMBER_PASSWORD = 'member password long enough';

let service: RealService;
let fake: PlatformFake;
let caDir: string;
let context: BrowserContext;
let page: Page;

async function shots(p: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  for (const width of [1280, 390]) {
    await p.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    await p.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await p.setViewportSize({ width: 1280, height: 800 });
}

/** The visible notice (the live region beside it says the same for screen readers). */
const notice = (p: Page, text: string) => p.getByRole('main').locator('.notice', { hasText: text });
/** The navigation's Sources link, by its accessible name (a source that needs a person adds ", 1 needs attention"). */
const sourcesLink = (p: Page, name = 'Sources') => p.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true });
/** The source as the admin API (the CLI's `sources list`) reports it. */
async function adminSource(platform: string): Promise<{ nextSyncAt: string | null; state: string }> {
  const res = await fetch(`${service.admin.url}/admin/sources?orgId=${service.banner.orgId}`, { headers: { authorization: `Bearer ${service.admin.token}` } });
  const { data } = (await res.json()) as { data: { platform: string; nextSyncAt: string | null; state: string }[] };
  return data.find((s) => s.platform === platform)!;
}
const row = (p: Page, platform: string) => p.getByRole('region', { name: 'Sources' }).getByRole('row').filter({ has: p.getByRole('cell', { name: platform, exact: true }) });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  fake = await PlatformFake.start();
  fake.trustpilot = trustpilotReviews(12, Date.now() - 3600_000, 'e2e');
  fake.google = [{ reviewId: 'g-e2e-1', reviewer: { displayName: 'Grace from Google' }, starRating: 'FIVE', comment: 'Lovely place, friendly people.', createTime: new Date(Date.now() - 7200_000).toISOString(), updateTime: new Date(Date.now() - 7200_000).toISOString() }];
  fake.googleLocations = [{ account: { name: 'accounts/42', accountName: 'Acme Coffee Roasters' }, locations: [{ name: 'locations/6', title: 'Station kiosk' }, { name: 'locations/7', title: 'High street café' }] }];
  caDir = mkdtempSync(join(tmpdir(), 'sources-e2e-ca-'));
  writeFileSync(join(caDir, 'fake-ca.pem'), fake.ca);
  const urls = fake.urls();
  service = await startRealService({
    env: {
      NODE_EXTRA_CA_CERTS: join(caDir, 'fake-ca.pem'),
      TRUSTPILOT_API_URL: urls.trustpilot,
      YELP_API_URL: urls.yelp,
      GOOGLE_BUSINESS_API_URL: urls.googleBusiness,
      GOOGLE_OAUTH_TOKEN_URL: urls.googleToken,
      GOOGLE_OAUTH_AUTHORIZE_URL: urls.googleAuthorize,
      GOOGLE_ACCOUNT_MANAGEMENT_API_URL: urls.googleAccounts,
      GOOGLE_BUSINESS_INFORMATION_API_URL: urls.googleLocations,
      GOOGLE_OAUTH_CLIENT_ID: 'e2e-client.apps.example',
      GOOGLE_OAUTH_CLIENT_SECRET: 'e2e-client-secret',
    },
  });
  context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
});

test.afterAll(async () => {
  await context?.close();
  await service?.stop();
  await fake?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

test('connects Trustpilot from the keyboard, syncs it, and its reviews reach the Reviews page and a widget', async () => {
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Sources', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Sources', level: 1 })).toBeVisible();
  await expect(page.getByText('No source is connected yet.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Connect Google' })).toBeVisible();
  await expectNoAxeViolations(page, 'Sources, empty');
  await shots(page, 'sources-empty');

  // Keyboard only: open, Escape cancels (focus back on the button), open again, fill, submit.
  const connect = page.getByRole('button', { name: 'Connect source' });
  await connect.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Connect source' });
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(connect).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  // Capterra: no API, the file import is the way.
  await dialog.getByLabel('Platform').selectOption('capterra');
  await expect(dialog.getByText('Capterra has no public reviews API')).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Connect', exact: true })).toHaveCount(0);
  await expectNoAxeViolations(page, 'Connect source, Capterra');
  await dialog.getByLabel('Platform').selectOption('trustpilot');
  await expectNoAxeViolations(page, 'Connect source, Trustpilot');
  await dialog.getByLabel('Platform').focus();
  await page.keyboard.press('Tab'); // Account
  await expect(dialog.getByLabel('Account')).toBeFocused();
  await page.keyboard.type('e2e-unit');
  await page.keyboard.press('Tab'); // Name (optional)
  await page.keyboard.type('Web shop');
  await page.keyboard.press('Tab'); // API key
  await expect(dialog.getByLabel('API key')).toBeFocused();
  // A wrong key first: Trustpilot refuses it, the dialog says so and nothing is connected.
  await page.keyboard.type('not-the-trustpilot-key');
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('alert')).toHaveText('Trustpilot refused the API key (HTTP 401): check it and try again. Nothing was saved.');
  await expect(dialog).toBeVisible();
  await expect(page.getByText('No source is connected yet.')).toBeVisible();
  await expectNoAxeViolations(page, 'Connect source, key refused');
  await shots(page, 'sources-connect-refused');
  await dialog.getByLabel('API key').focus();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(fake.keys.trustpilot);
  await shots(page, 'sources-connect');
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(notice(page, 'Trustpilot Web shop connected: Trustpilot accepted the API key.')).toBeVisible();
  await expect(row(page, 'Trustpilot')).toContainText('e2e-unit');
  // The credential is nowhere on the page.
  expect(await page.content()).not.toContain(fake.keys.trustpilot);
  // The first sync starts at once, and its outcome is said in words (and kept in the row's Last sync).
  // The full pass removes the demo's Trustpilot reviews that the platform does not list (how many is the demo's).
  await expect(notice(page, 'First sync of Trustpilot Web shop done:')).toHaveText(/^First sync of Trustpilot Web shop done: 12 fetched, 12 created, 0 updated, \d+ removed, 0 rejected\.$/, { timeout: SYNC_MS });
  await expect(row(page, 'Trustpilot').getByRole('cell', { name: /Full sync: 12 created, 0 updated, \d+ removed/ })).toBeVisible();
  // The same schedule as the admin API (the CLI's nextSyncAt): the cell's time is that instant, about an hour away.
  const scheduled = await adminSource('trustpilot');
  expect(scheduled.nextSyncAt).not.toBeNull();
  const when = await page.evaluate((iso) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)), scheduled.nextSyncAt!);
  const next = row(page, 'Trustpilot').locator('td.s-next');
  await expect(next).toHaveAttribute('title', when);
  await expect(next).toContainText(/in (1 hour|\d+ minutes)$/);
  await expectNoAxeViolations(page, 'Sources, after the first sync');
  await shots(page, 'sources-first-sync');

  // Sync now: progress while it runs, then the summary (the background first sync may have taken some already).
  // The demo's Trustpilot reviews, imported from a file, were never collected by this source: they stay.
  await row(page, 'Trustpilot').getByRole('button', { name: 'Sync now: Trustpilot Web shop' }).click();
  await expect(page.getByText(/Sync of Trustpilot Web shop done: \d+ fetched, \d+ created, 0 updated, 0 removed, 0 rejected\./)).toBeVisible({ timeout: SYNC_MS });
  // The source's own reviews: the demo's Trustpilot history imported from a file is the organization's, not this source's.
  await expect(row(page, 'Trustpilot').getByRole('cell', { name: '12', exact: true })).toBeVisible();
  await expectNoAxeViolations(page, 'Sources, after Sync now');
  await shots(page, 'sources-synced');

  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Reviews', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Reviews', level: 1 })).toBeVisible();
  await expect(page.getByText('Customer 1', { exact: true }).first()).toBeVisible();

  // A widget's public data (the demo widget, or the first one) carries the synced reviews.
  const widgets = await service.widgets();
  const found = await Promise.all(
    widgets.map(async (w) => {
      const res = await service.get<string | Record<string, unknown>>(`/public/v1/widgets/${w.id}`);
      return JSON.stringify(res.body);
    }),
  );
  expect(found.some((body) => body.includes('Customer 1') || /TRUSTPILOT/i.test(body))).toBe(true);
});

test('says a failed sync is a failure, and Full sync removes what the platform no longer lists, its result kept after a reload', async () => {
  await page.goto(`${service.origin}/dashboard/sources`);
  fake.force('trustpilot', { status: 500, body: { message: 'Internal server error' } });
  await row(page, 'Trustpilot').getByRole('button', { name: 'Sync now: Trustpilot Web shop' }).click();
  const failed = page.getByRole('main').getByRole('alert');
  await expect(failed).toHaveText('Sync of Trustpilot Web shop failed: Trustpilot is failing (500); it will be tried again with back-off. Nothing was removed.', { timeout: SYNC_MS });
  await expect(failed).toHaveClass(/notice-error/);
  await expect(row(page, 'Trustpilot').getByRole('cell', { name: /Failed: see the last error/ })).toBeVisible();
  await expect(row(page, 'Trustpilot').getByRole('cell', { name: /Trustpilot is failing \(500\)/ })).toBeVisible();
  await expectNoAxeViolations(page, 'Sources, a failed sync');
  await shots(page, 'sources-sync-failed');

  // The newest review is deleted on Trustpilot: only a full pass sees it gone.
  const deleted = fake.trustpilot.shift()!;
  const full = row(page, 'Trustpilot').getByRole('button', { name: 'Full sync: Trustpilot Web shop' });
  await full.focus();
  await page.keyboard.press('Enter');
  await expect(notice(page, 'Full sync of Trustpilot Web shop')).toHaveText(/^Full sync of Trustpilot Web shop done: 11 fetched, 0 created, \d+ updated, 1 removed, 0 rejected\.$/, { timeout: SYNC_MS });
  await expect(row(page, 'Trustpilot').getByRole('cell', { name: '11', exact: true })).toBeVisible();
  await page.reload();
  await expect(row(page, 'Trustpilot').getByRole('cell', { name: /Full sync: 0 created, \d+ updated, 1 removed/ })).toBeVisible();
  await expect(row(page, 'Trustpilot').locator('td.s-error')).toContainText('–');
  await expectNoAxeViolations(page, 'Sources, after Full sync');
  await shots(page, 'sources-full-sync');
  // Listed again on the platform: the next full pass brings it back.
  fake.trustpilot.unshift(deleted);
  await row(page, 'Trustpilot').getByRole('button', { name: 'Full sync: Trustpilot Web shop' }).click();
  await expect(notice(page, 'Full sync of Trustpilot Web shop')).toHaveText(/^Full sync of Trustpilot Web shop done: 12 fetched, \d+ created, \d+ updated, 0 removed, 0 rejected\.$/, { timeout: SYNC_MS });
  await expect(row(page, 'Trustpilot').getByRole('cell', { name: '12', exact: true })).toBeVisible();
});

test('connects Google through the OAuth consent and token exchange, then the location', async () => {
  await page.goto(`${service.origin}/dashboard/sources`);
  await page.getByRole('button', { name: 'Connect Google' }).click();
  // The fake's consent answers at once; the service exchanges the code (PKCE) and sends the browser back.
  await expect(page.getByText('Google authorized access.')).toBeVisible();
  expect(new URL(page.url()).pathname).toBe('/dashboard/sources');
  const location = page.getByRole('region', { name: 'Choose the Google location' });
  await expect(location.getByRole('combobox', { name: 'Location' })).toBeVisible();
  await expectNoAxeViolations(page, 'Sources, Google authorized');
  await shots(page, 'sources-google-location');
  // The locations Google lists for the person (Account Management + Business Information APIs of the fake).
  await location.getByRole('combobox', { name: 'Location' }).selectOption({ label: 'High street café (Acme Coffee Roasters)' });
  await location.getByLabel('Name (optional)').fill('High street');
  await page.getByRole('button', { name: 'Connect location' }).click();
  await expect(notice(page, 'Google High street connected: Google accepted the authorization.')).toBeVisible();
  await expect(notice(page, 'First sync of Google High street done:')).toHaveText(/^First sync of Google High street done: 1 fetched, 1 created, 0 updated, \d+ removed, 0 rejected\.$/, { timeout: SYNC_MS });
  await expect(location).toHaveCount(0);
  await row(page, 'Google').getByRole('button', { name: 'Sync now: Google High street' }).click();
  await expect(page.getByText(/Sync of Google High street done: 1 fetched/)).toBeVisible({ timeout: SYNC_MS });
  expect(fake.count('google-auth')).toBe(1);
  await expect(row(page, 'Google')).toContainText('accounts/42/locations/7');
});

test('connects a second Google location of the chain beside the first: both listed by their names, each with its own reviews', async () => {
  // The station kiosk has reviews of its own (the high street café keeps the fake's default list).
  fake.googleByLocation.set('accounts/42/locations/6', [
    { reviewId: 'g-e2e-kiosk-1', reviewer: { displayName: 'Kim at the kiosk' }, starRating: 'FOUR', comment: 'Quick coffee before the train.', createTime: new Date(Date.now() - 5400_000).toISOString(), updateTime: new Date(Date.now() - 5400_000).toISOString() },
    { reviewId: 'g-e2e-kiosk-2', reviewer: { displayName: 'Kai' }, starRating: 'FIVE', comment: 'Best flat white on the line.', createTime: new Date(Date.now() - 3600_000).toISOString(), updateTime: new Date(Date.now() - 3600_000).toISOString() },
  ]);
  await page.goto(`${service.origin}/dashboard/sources`);
  await page.getByRole('button', { name: 'Connect Google' }).click();
  await expect(page.getByText('Google authorized access.')).toBeVisible();
  const location = page.getByRole('region', { name: 'Choose the Google location' });
  const select = location.getByRole('combobox', { name: 'Location' });
  // The location already connected is marked; choosing it again would reconnect it.
  await expect(select.getByRole('option')).toHaveText(['Station kiosk (Acme Coffee Roasters)', 'High street café (Acme Coffee Roasters) – connected']);
  await select.selectOption({ label: 'Station kiosk (Acme Coffee Roasters)' });
  // No name typed: the source is named after the location's title on Google.
  await page.getByRole('button', { name: 'Connect location' }).click();
  await expect(notice(page, 'Google Station kiosk connected: Google accepted the authorization.')).toBeVisible();
  await expect(notice(page, 'First sync of Google Station kiosk done:')).toHaveText(/^First sync of Google Station kiosk done: 2 fetched, 2 created, 0 updated, 0 removed, 0 rejected\.$/, { timeout: SYNC_MS });
  const google = row(page, 'Google');
  await expect(google).toHaveCount(2);
  await expect(google.locator('.s-name')).toHaveText([/High street$/, /Station kiosk$/]);
  await expect(google.locator('.s-account')).toHaveText([/accounts\/42\/locations\/7$/, /accounts\/42\/locations\/6$/]);
  // Each counts its own reviews, not the platform's.
  await expect(google.locator('.s-count')).toHaveText([/1$/, /2$/]);
  await expect(google.getByRole('button', { name: 'Sync now: Google Station kiosk' })).toBeVisible();
  await expectNoAxeViolations(page, 'Sources, two Google locations');
  await shots(page, 'sources-two-google-locations');
  // The next tests start from one Google source: the kiosk goes (through the admin API, as the CLI would).
  const kiosk = (await (await fetch(`${service.admin.url}/admin/sources?orgId=${service.banner.orgId}`, { headers: { authorization: `Bearer ${service.admin.token}` } })).json()) as { data: { id: string; name: string }[] };
  const id = kiosk.data.find((s) => s.name === 'Station kiosk')!.id;
  expect((await fetch(`${service.admin.url}/admin/sources/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${service.admin.token}` } })).status).toBe(200);
  await page.reload();
  await expect(row(page, 'Google')).toHaveCount(1);
});

test('removes a source with the confirmation dialog, from the keyboard', async () => {
  await page.goto(`${service.origin}/dashboard/sources`);
  const remove = row(page, 'Google').getByRole('button', { name: 'Remove Google High street' });
  await remove.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Remove Google High street?' });
  await expect(dialog).toBeVisible();
  await expectNoAxeViolations(page, 'Remove source dialog');
  await shots(page, 'sources-remove');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(remove).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Remove source' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(notice(page, 'Google High street removed.')).toBeVisible();
  await expect(row(page, 'Google')).toHaveCount(0);
  await expect(row(page, 'Trustpilot')).toHaveCount(1);
});

test('a refused key puts the source in Needs reconnecting, shown in the navigation and on the Overview until it is reconnected; a wrong key on Reconnect changes nothing', async () => {
  await page.goto(`${service.origin}/dashboard/sources`);
  await expect(sourcesLink(page)).toBeVisible();
  fake.force('trustpilot', { status: 401, body: { message: 'Unauthorized' } });
  await row(page, 'Trustpilot').getByRole('button', { name: 'Sync now: Trustpilot Web shop' }).click();
  await expect(row(page, 'Trustpilot').getByText('Needs reconnecting')).toBeVisible({ timeout: SYNC_MS });
  await expect(page.getByRole('main').getByRole('alert')).toHaveText('Sync of Trustpilot Web shop failed: Trustpilot refused the credentials (401): reconnect the source with new credentials.');
  await expect(row(page, 'Trustpilot').getByRole('button', { name: 'Sync now: Trustpilot Web shop' })).toBeDisabled();
  await expect(row(page, 'Trustpilot').getByRole('button', { name: 'Full sync: Trustpilot Web shop' })).toBeDisabled();
  // No sync runs until a person reconnects it: the page and the admin API (the CLI) say the same.
  await expect(row(page, 'Trustpilot').locator('td.s-next')).toContainText('After reconnecting');
  await expect.poll(async () => (await adminSource('trustpilot')).nextSyncAt).toBeNull();
  // The navigation says so on every page, in words for assistive technology.
  await expect(sourcesLink(page, 'Sources, 1 needs attention')).toBeVisible();
  // The badge beside it (drawn from data-attention) shows the count.
  await expect(sourcesLink(page, 'Sources, 1 needs attention')).toHaveAttribute('data-attention', '1');
  await expectNoAxeViolations(page, 'Sources, needs reconnecting');
  await shots(page, 'sources-needs-reauth');

  // The Overview too, with the way to Sources.
  await sourcesLink(page, 'Sources, 1 needs attention').focus();
  // Back along the navigation: Widgets, Collect, Products, Reviews, Overview.
  for (let i = 0; i < 5; i++) await page.keyboard.press('Shift+Tab');
  await expect(page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Overview', exact: true })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  const attention = page.getByRole('region', { name: 'A review source needs attention' });
  await expect(attention).toContainText('Trustpilot Web shop: needs reconnecting (no reviews are collected until then). Trustpilot refused the credentials (401): reconnect the source with new credentials.');
  await expect(sourcesLink(page, 'Sources, 1 needs attention')).toBeVisible();
  await expectNoAxeViolations(page, 'Overview, a source needs attention');
  await shots(page, 'overview-attention');
  await attention.getByRole('link', { name: 'Open Sources' }).click();
  await expect(page.getByRole('heading', { name: 'Sources', level: 1 })).toBeVisible();

  const reconnect = row(page, 'Trustpilot').getByRole('button', { name: 'Reconnect Trustpilot Web shop' });
  await reconnect.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Reconnect Trustpilot Web shop' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('New API key', { exact: true })).toBeFocused();
  // A wrong key: refused in the dialog; the source stays as it was (no "reconnected", still needs reconnecting).
  await page.keyboard.type('another-wrong-key');
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('alert')).toHaveText('Trustpilot refused the API key (HTTP 401): check it and try again. Nothing was saved.');
  await expectNoAxeViolations(page, 'Reconnect, key refused');
  await shots(page, 'sources-reconnect-refused');
  await expect(row(page, 'Trustpilot').getByText('Needs reconnecting')).toBeVisible();
  await dialog.getByLabel('New API key', { exact: true }).focus();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(fake.keys.trustpilot);
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(notice(page, 'Trustpilot Web shop reconnected: Trustpilot accepted the new API key.')).toBeVisible();
  await expect(row(page, 'Trustpilot').getByText('Active')).toBeVisible();
  await expect(notice(page, 'Sync of Trustpilot Web shop after reconnecting')).toHaveText(/^Sync of Trustpilot Web shop after reconnecting done: \d+ fetched, 0 created, 0 updated, 0 removed, 0 rejected\.$/, { timeout: SYNC_MS });
  // Resolved: the badge is gone, and so is the Overview's notice.
  await expect(sourcesLink(page)).toBeVisible();
  await expect(page.locator('[data-attention]')).toHaveCount(0);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await expect(page.locator('dl.stats')).toBeVisible();
  await expect(page.getByRole('region', { name: /needs? attention/ })).toHaveCount(0);
  expect(await page.content()).not.toContain(fake.keys.trustpilot);
});

test('at 390 px each source is a card: its actions are on screen and work, nothing scrolls sideways', async () => {
  // A second source with a long name and alias (the widest card), and Trustpilot refused again (four buttons: the most a card holds).
  fake.yelp = [{ id: 'y-e2e-1', url: 'https://www.yelp.com/biz/x?hrid=y-e2e-1', text: 'Great coffee.', rating: 5, time_created: '2026-11-20 09:30:00', user: { name: 'Yolanda' } }];
  const added = await fetch(`${service.admin.url}/admin/sources`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.admin.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ orgId: service.banner.orgId, platform: 'yelp', account: 'the-long-named-neighbourhood-coffee-roastery-san-francisco', name: 'Neighbourhood coffee roastery, Mission District', credentials: { apiKey: fake.keys.yelp } }),
  });
  expect(added.status).toBe(201);
  await page.goto(`${service.origin}/dashboard/sources`);
  fake.force('trustpilot', { status: 401, body: { message: 'Unauthorized' } });
  await row(page, 'Trustpilot').getByRole('button', { name: 'Sync now: Trustpilot Web shop' }).click();
  await expect(row(page, 'Trustpilot').getByText('Needs reconnecting')).toBeVisible({ timeout: SYNC_MS });
  await expect(row(page, 'Yelp')).toContainText('Neighbourhood coffee roastery');
  // At 1280 px the table fits beside the navigation: no column (the actions least of all) is cut off.
  expect(await page.evaluate(() => { const wrap = document.querySelector('.table-wrap')!; return wrap.scrollWidth - wrap.clientWidth; })).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 390, height: 844 });

  const region = page.getByRole('region', { name: 'Sources' });
  const widths = await page.evaluate(() => {
    const wrap = document.querySelector('.table-wrap')!;
    return { doc: [document.documentElement.scrollWidth, document.documentElement.clientWidth], wrap: [wrap.scrollWidth, wrap.clientWidth] };
  });
  expect(widths.doc[0], 'the page scrolls sideways').toBeLessThanOrEqual(widths.doc[1]!);
  expect(widths.wrap[0], 'the sources scroll sideways').toBeLessThanOrEqual(widths.wrap[1]!);
  // Every source's every button is wholly inside the 390 px viewport (not merely in the document).
  const buttons = region.getByRole('button');
  await expect(buttons).toHaveCount(6); // Trustpilot: Sync now, Full sync, Reconnect, Remove; Yelp (no full sync: it never removes): Sync now, Remove.
  for (const button of await buttons.all()) {
    // Measured before anything scrolls (scrolling it into view could scroll the list sideways and hide the problem).
    const box = (await button.boundingBox())!;
    const name = (await button.getAttribute('aria-label')) ?? '';
    expect(box.x, name).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, name).toBeLessThanOrEqual(390);
    await button.scrollIntoViewIfNeeded();
    await expect(button).toBeInViewport({ ratio: 1 });
  }
  // The cards still read as a table: the column headers name the cells.
  await expect(region.getByRole('columnheader', { name: 'Last sync' })).toHaveCount(1);
  await expectNoAxeViolations(page, 'Sources at 390 px');
  await shots(page, 'sources-cards');

  // Usable at 390 px: Sync now (the summary), Reconnect (the dialog), Remove (the dialog, cancelled).
  await row(page, 'Yelp').getByRole('button', { name: 'Sync now: Yelp Neighbourhood coffee roastery, Mission District' }).click();
  await expect(page.getByText(/Sync of Yelp Neighbourhood coffee roastery, Mission District done: 1 fetched/)).toBeVisible({ timeout: SYNC_MS });
  await row(page, 'Trustpilot').getByRole('button', { name: 'Reconnect Trustpilot Web shop' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reconnect Trustpilot Web shop' });
  await dialog.getByLabel('New API key').fill(fake.keys.trustpilot);
  await dialog.getByRole('button', { name: 'Reconnect' }).click();
  await expect(notice(page, 'Trustpilot Web shop reconnected:')).toBeVisible();
  await row(page, 'Yelp').getByRole('button', { name: 'Remove Yelp Neighbourhood coffee roastery, Mission District' }).click();
  await expect(page.getByRole('dialog', { name: 'Remove Yelp Neighbourhood coffee roastery, Mission District?' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(row(page, 'Yelp')).toHaveCount(1);
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('a Member sees the list and no buttons', async ({ browser }) => {
  const res = await fetch(`${service.admin.url}/admin/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.admin.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ orgId: service.banner.orgId, email: 'member@demo.example', role: 'member', password: MEMBER_PASSWORD }),
  });
  expect(res.status).toBe(201);
  const memberContext = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', viewport: { width: 1280, height: 800 } });
  const member = await memberContext.newPage();
  await signIn(member, service.origin, 'member@demo.example', MEMBER_PASSWORD);
  await expect(member.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await member.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Sources', exact: true }).click();
  await expect(row(member, 'Trustpilot')).toContainText('e2e-unit');
  await expect(member.getByRole('main').getByRole('button')).toHaveCount(0);
  await expectNoAxeViolations(member, 'Sources, Member');
  await shots(member, 'sources-member');
  await memberContext.close();
});

test('a large removal is held: the page asks Remove them or Keep them, from the keyboard, and the Audit log says what happened', async () => {
  const listed = await fetch(`${service.admin.url}/admin/sources?orgId=${service.banner.orgId}`, { headers: { authorization: `Bearer ${service.admin.token}` } });
  const id = ((await listed.json()) as { data: { id: string; platform: string }[] }).data.find((x) => x.platform === 'trustpilot')!.id;
  const fullSync = async (): Promise<Record<string, unknown>> => {
    const res = await fetch(`${service.admin.url}/admin/sources/${id}/sync?full=true`, { method: 'POST', headers: { authorization: `Bearer ${service.admin.token}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };
  const all = fake.trustpilot;
  // The platform lists 4 of its 12: 8 gone is more than 10 % (and more than 5), so nothing is removed.
  fake.trustpilot = all.slice(0, 4);
  expect(await fullSync()).toMatchObject({ removed: 0, held: 8 });
  await page.goto(`${service.origin}/dashboard/sources`);
  const held = page.getByRole('region', { name: 'Trustpilot no longer lists 8 reviews' });
  await expect(held).toBeVisible();
  await expect(held).toContainText('more than 10 % of its reviews, so nothing was removed');
  await expect(row(page, 'Trustpilot').getByRole('cell', { name: '12', exact: true })).toBeVisible();
  await expectNoAxeViolations(page, 'Sources, removals held');
  await shots(page, 'sources-held');

  // Remove them, from the keyboard: the 8 go, the question goes, the count follows.
  const remove = held.getByRole('button', { name: 'Remove them: 8 reviews of Trustpilot Web shop' });
  await remove.focus();
  await page.keyboard.press('Enter');
  await expect(notice(page, '8 reviews of Trustpilot Web shop removed.')).toBeVisible();
  await expect(held).toHaveCount(0);
  await expect(row(page, 'Trustpilot').getByRole('cell', { name: '4', exact: true })).toBeVisible();

  // Listed again (back as they were: an update), then gone again: Keep them, and they stay.
  fake.trustpilot = all;
  expect(await fullSync()).toMatchObject({ removed: 0, updated: 8 });
  fake.trustpilot = all.slice(0, 4);
  expect(await fullSync()).toMatchObject({ removed: 0, held: 8 });
  await page.reload();
  await expect(held).toBeVisible();
  const keep = held.getByRole('button', { name: 'Keep them: 8 reviews of Trustpilot Web shop' });
  await keep.focus();
  await page.keyboard.press('Enter');
  await expect(notice(page, '8 reviews of Trustpilot Web shop kept.')).toBeVisible();
  await expect(held).toHaveCount(0);
  // Kept, they stay live, but the source no longer counts them as its own (it counts what it collected: CONTRACT §15).
  await expect(row(page, 'Trustpilot').getByRole('cell', { name: '4', exact: true })).toBeVisible();
  await expectNoAxeViolations(page, 'Sources, removals kept');
  // The next full pass leaves the kept ones alone.
  expect(await fullSync()).toMatchObject({ removed: 0 });
  await page.reload();
  await expect(row(page, 'Trustpilot').getByRole('cell', { name: '4', exact: true })).toBeVisible();
  await expect(held).toHaveCount(0);

  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Audit log', exact: true }).click();
  const log = page.getByRole('region', { name: 'Audit log' });
  await expect(log.getByRole('row').filter({ hasText: 'Held removals' }).first()).toContainText("8 reviews Trustpilot no longer lists: more than 10 % of the source's reviews, waiting for Remove them or Keep them");
  await expect(log.getByRole('row').filter({ hasText: 'Removed reviews' }).first()).toContainText('8 reviews Trustpilot no longer lists, after Remove them');
  await expect(log.getByRole('row').filter({ hasText: 'Kept reviews' }).first()).toContainText('owner@demo.example');
  await expectNoAxeViolations(page, 'Audit log with removals');
  await shots(page, 'sources-held-audit');
});
