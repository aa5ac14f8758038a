/**
 * The widget builder's source choice (CONTRACT §15, chains) end to end, against the real
 * service with two Google locations of the demo organization connected through the local
 * HTTPS fake of Google: every review by default, or only the sources checked (each by its
 * name and platform), in the live preview; the empty choice said under the field; saved, the
 * widget's public data shows that location's reviews only. Axe and screenshots at 1280 and
 * 390 px under test-results/dashboard/.
 */
import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlatformFake } from '../api/sources/testing/platform-fake.ts';
import { expectNoAxeViolations, ownerPassword, screenshots, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

let service: RealService;
let fake: PlatformFake;
let caDir: string;
let page: Page;
const ids: Record<string, string> = {};

/** The preview widget's text, read inside its shadow root. */
const previewText = (p: Page): Promise<string> => p.locator('#widget-preview').evaluate((el) => el.shadowRoot?.textContent ?? '');

const review = (id: string, author: string, stars: string, comment: string, hoursAgo: number) => {
  const at = new Date(Date.now() - hoursAgo * 3600_000).toISOString();
  return { reviewId: id, reviewer: { displayName: author }, starRating: stars, comment, createTime: at, updateTime: at };
};

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  fake = await PlatformFake.start();
  fake.googleByLocation.set('accounts/42/locations/6', [review('kiosk-1', 'Kim', 'FOUR', 'Kiosk: quick coffee before the train.', 2), review('kiosk-2', 'Kai', 'FIVE', 'Kiosk: best flat white on the line.', 3)]);
  fake.googleByLocation.set('accounts/42/locations/7', [review('street-1', 'Sam', 'THREE', 'High street: busy on Saturdays.', 4)]);
  caDir = mkdtempSync(join(tmpdir(), 'widget-sources-e2e-ca-'));
  writeFileSync(join(caDir, 'fake-ca.pem'), fake.ca);
  const urls = fake.urls();
  service = await startRealService({
    env: {
      NODE_EXTRA_CA_CERTS: join(caDir, 'fake-ca.pem'),
      GOOGLE_BUSINESS_API_URL: urls.googleBusiness,
      GOOGLE_OAUTH_TOKEN_URL: urls.googleToken,
      GOOGLE_OAUTH_AUTHORIZE_URL: urls.googleAuthorize,
      GOOGLE_ACCOUNT_MANAGEMENT_API_URL: urls.googleAccounts,
      GOOGLE_BUSINESS_INFORMATION_API_URL: urls.googleLocations,
      GOOGLE_OAUTH_CLIENT_ID: 'e2e-client.apps.example',
      GOOGLE_OAUTH_CLIENT_SECRET: 'e2e-client-secret',
    },
  });
  // Two locations of one chain, connected as the CLI would (`sources add`), each synced once.
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${service.admin.url}${path}`, { method, headers: { authorization: `Bearer ${service.admin.token}`, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  for (const [account, name] of [['accounts/42/locations/6', 'Station kiosk'], ['accounts/42/locations/7', 'High street café']] as const) {
    const res = await admin('POST', '/admin/sources', { orgId: service.banner.orgId, platform: 'google', account, name, credentials: { refreshToken: fake.keys.googleRefresh } });
    expect(res.status).toBe(201);
    ids[name] = ((await res.json()) as { id: string }).id;
    expect((await admin('POST', `/admin/sources/${ids[name]}/sync`)).status).toBe(200);
  }
  const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
});

test.afterAll(async () => {
  await service?.stop();
  await fake?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

async function axeAtBothWidths(what: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    await expectNoAxeViolations(page, `${what} at ${width} px`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('the builder shows every review, or only the sources checked, each by its name, in the live preview; saved, the public data follows', async () => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Widgets', exact: true }).click();
  await page.getByRole('button', { name: 'Create widget' }).click();
  await expect(page.getByRole('heading', { name: 'Create widget', level: 1 })).toBeVisible();
  await page.getByLabel('Widget name').fill('Station kiosk page');
  await page.getByRole('radio', { name: /^List/ }).check();
  await page.getByLabel('Name of what is reviewed').fill('Acme Coffee Roasters');

  const group = page.getByRole('group', { name: 'Sources' });
  await expect(group.getByRole('radio', { name: /^Every review/ })).toBeChecked();
  const kiosk = group.getByRole('checkbox', { name: 'Station kiosk (Google)' });
  const street = group.getByRole('checkbox', { name: 'High street café (Google)' });
  await expect(kiosk).toBeDisabled();
  await expect(street).toBeDisabled();
  // Every review: the demo's imported ones and both locations'.
  await expect.poll(() => previewText(page)).toContain('High street: busy on Saturdays.');

  // Some sources, by keyboard: arrow to the second radio; nothing is checked yet, which is said under the field.
  await group.getByRole('radio', { name: /^Every review/ }).focus();
  await page.keyboard.press('ArrowDown');
  await expect(group.getByRole('radio', { name: /^Only the reviews of the sources checked below/ })).toBeChecked();
  await expect(kiosk).toBeEnabled();
  await expect(kiosk).not.toBeChecked();
  await expect(page.locator('#w-sources-error')).toHaveText('Sources: check at least one, or choose every review.');
  await kiosk.focus();
  await page.keyboard.press('Space');
  await expect(kiosk).toBeChecked();
  await expect(page.locator('#w-sources-error')).toHaveCount(0);
  // The preview is the kiosk's two reviews only.
  await expect.poll(() => previewText(page)).toContain('Kiosk: best flat white on the line.');
  await expect.poll(() => previewText(page)).not.toContain('High street: busy on Saturdays.');
  expect(await previewText(page)).toContain('Kiosk: quick coffee before the train.');
  await axeAtBothWidths('the builder with one source chosen');
  await screenshots(page, 'widget-sources-one');

  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/dashboard\/widgets\/wdg_[0-9A-Za-z]{20}$/);
  const id = /wdg_[0-9A-Za-z]{20}/.exec(page.url())![0];
  const saved = await fetch(`${service.admin.url}/admin/widgets/${id}`, { headers: { authorization: `Bearer ${service.admin.token}` } }).then((r) => r.json() as Promise<{ options: Record<string, unknown> }>);
  expect(saved.options.sourceIds).toEqual([ids['Station kiosk']]);
  // Through the browser's context (it trusts the test service's certificate).
  const data = (await (await page.request.get(`${service.origin}/public/v1/widgets/${id}`)).json()) as { data: { summary: { totalReviews: number }; reviews: { content: string }[] } };
  expect(data.data.summary.totalReviews).toBe(2);
  expect(data.data.reviews.map((r) => r.content).sort()).toEqual(['Kiosk: best flat white on the line.', 'Kiosk: quick coffee before the train.']);

  // Read back after a reload: the choice is kept.
  await page.reload();
  await expect(page.getByRole('group', { name: 'Sources' }).getByRole('checkbox', { name: 'Station kiosk (Google)' })).toBeChecked();
  await expect(page.getByRole('group', { name: 'Sources' }).getByRole('checkbox', { name: 'High street café (Google)' })).not.toBeChecked();
});
