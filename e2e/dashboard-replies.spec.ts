/**
 * The reply composer on the Reviews page end to end (CONTRACT §15), in
 * Chromium against the real service over HTTPS, with the local HTTPS fake of
 * Google's Business Profile API (api/sources/testing, trusted through
 * NODE_EXTRA_CA_CERTS): a Google source connected through the admin API, its
 * review collected by a sync, then
 * - a Member opens `Reply`, sees the limit counted in bytes of UTF-8 (an
 *   accented letter is 2), is refused past 4,096 bytes under the field (focus
 *   on it, nothing sent), and saves a draft; no publish button for a Member;
 * - the Owner sees the draft awaiting approval, approves it (scheduled after
 *   the organization's delay, with its time), publishes it now: the fake
 *   holds the reply and the composer says "Published"; deletes it after a
 *   confirmation: gone from the fake;
 * - a review from a platform without a reply API (Yelp, imported) says so and
 *   links to the review there;
 * - the keyboard path: Reply from the keyboard, the field focused, Escape
 *   closes and focus returns to the button;
 * axe on every state, no sideways scrolling at 390 px, screenshots at 1280
 * and 390 px in test-results/dashboard/.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlatformFake } from '../api/sources/testing/platform-fake.ts';
import { expectNoAxeViolations, ownerPassword, screenshots, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 150_000 });

const MEMBER = 'replies-member@demo.example';
const MEMBER_PASSWORD = 'member password long enough';
const GRACE = 'Grace from Google';
const HUGO = 'Hugo from Google';
const ELSEWHERE = 'Thanks Hugo, see you soon! (the owner, on Google itself)';

let service: RealService;
let fake: PlatformFake;
let caDir: string;
let owner: BrowserContext;
let member: BrowserContext;

async function admin<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${service.admin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.admin.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  fake = await PlatformFake.start();
  // The newest review of the organization: first on the Reviews page.
  const at = new Date(Date.now() - 600_000).toISOString();
  const before = new Date(Date.now() - 7_200_000).toISOString();
  fake.google = [
    { reviewId: 'g-reply-1', reviewer: { displayName: GRACE }, starRating: 'TWO', comment: 'The coffee was cold and nobody came to the table.', createTime: at, updateTime: at },
    // Answered on Google itself, not here: the composer quotes that reply before a publish replaces it.
    { reviewId: 'g-reply-2', reviewer: { displayName: HUGO }, starRating: 'FIVE', comment: 'Lovely cake.', createTime: before, updateTime: before, reviewReply: { comment: ELSEWHERE, updateTime: before } },
  ];
  caDir = mkdtempSync(join(tmpdir(), 'replies-e2e-ca-'));
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
  const orgId = service.banner.orgId;
  const added = await admin<{ id: string }>('POST', '/admin/sources', { orgId, platform: 'google', account: 'accounts/42/locations/6', name: 'High street café', credentials: { refreshToken: fake.keys.googleRefresh } });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  const synced = await admin('POST', `/admin/sources/${added.body.id}/sync`);
  expect(synced.status, JSON.stringify(synced.body)).toBe(200);
  expect((await admin('POST', '/admin/users', { orgId, email: MEMBER, role: 'member', password: MEMBER_PASSWORD })).status).toBe(201);
  const context = () => browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'Europe/Paris', viewport: { width: 1280, height: 800 } });
  [owner, member] = await Promise.all([context(), context()]);
});

test.afterAll(async () => {
  await owner?.close();
  await member?.close();
  await service?.stop();
  await fake?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

async function reviews(page: Page): Promise<void> {
  await page.goto(`${service.origin}/dashboard/reviews`);
  await expect(page.getByRole('heading', { name: 'Reviews', level: 1 })).toBeVisible();
  await expect(rowOf(page, GRACE)).toBeVisible();
}
const rowOf = (page: Page, author: string) => page.getByRole('row').filter({ has: page.getByRole('cell', { name: author, exact: true }) });
const composer = (page: Page) => page.getByRole('dialog', { name: /^Reply to / });

test('a Member: the limit counted in bytes, refused past 4,096 under the field, then a draft saved', async () => {
  const page = await member.newPage();
  await signIn(page, service.origin, MEMBER, MEMBER_PASSWORD);
  await reviews(page);
  await rowOf(page, GRACE).getByRole('button', { name: 'Reply' }).click();
  const dialog = composer(page);
  await expect(dialog).toBeVisible();
  await expect(dialog.getByText('State: Not answered yet.')).toBeVisible();
  const field = dialog.getByLabel('Your reply');
  await expect(field).toBeFocused();
  await expect(dialog.getByText(/^0 \/ 4,096 bytes/)).toBeVisible();
  // "é" is 2 bytes of UTF-8, "☕" 3: 9 characters, 13 bytes.
  await field.fill('Désolé ☕!');
  await expect(dialog.getByText(/^13 \/ 4,096 bytes/)).toBeVisible();
  await expect(dialog.getByRole('region', { name: 'Preview' })).toContainText('Response from');
  await expect(dialog.getByRole('region', { name: 'Preview' })).toContainText('Désolé ☕!');
  // A Member saves drafts only.
  await expect(dialog.getByRole('button', { name: 'Save draft' })).toBeVisible();
  await expect(dialog.getByRole('button', { name: /Publish|Approve/ })).toHaveCount(0);

  await field.fill('é'.repeat(2049));
  await expect(dialog.getByText('4,098 / 4,096 bytes: 2 over Google\'s limit')).toBeVisible();
  const sent: string[] = [];
  page.on('request', (r) => r.method() !== 'GET' && sent.push(r.url()));
  await dialog.getByRole('button', { name: 'Save draft' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('The reply is 4,098 bytes; Google takes at most 4,096: shorten it by 2.');
  await expect(field).toBeFocused();
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  expect(sent).toEqual([]);
  await expectNoAxeViolations(page, 'the composer with an error');

  await field.fill('We are sorry, Grace: the manager will call you this week.');
  await dialog.getByRole('button', { name: 'Save draft' }).click();
  await expect(dialog.getByRole('status').filter({ hasText: 'Draft saved' })).toBeVisible();
  await expect(dialog.getByText(`State: Draft by ${MEMBER}, awaiting approval by an Owner or Admin.`)).toBeVisible();
  await expectNoAxeViolations(page, 'the composer with a draft');
  await screenshots(page, 'reply-composer-member');
  await page.close();
});

test('the Owner approves the Member\'s draft (scheduled after the delay), publishes it now, then deletes it after confirming', async () => {
  const page = await owner.newPage();
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await reviews(page);
  // From the review dialog: Read, then Reply.
  await rowOf(page, GRACE).getByRole('button', { name: 'Read' }).click();
  await page.getByRole('dialog', { name: `Review by ${GRACE}` }).getByRole('button', { name: 'Reply' }).click();
  const dialog = composer(page);
  await expect(dialog.getByText(`State: Draft by ${MEMBER}, awaiting approval by an Owner or Admin.`)).toBeVisible();
  await expect(dialog.getByLabel('Your reply')).toHaveValue('We are sorry, Grace: the manager will call you this week.');
  await expect(dialog.getByText(/after your organization's 5-minute delay/)).toBeVisible();
  await expectNoAxeViolations(page, 'the composer for an Owner');
  await dialog.getByRole('button', { name: 'Approve (publish in 5 minutes)' }).click();
  await expect(dialog.getByText(/^State: Scheduled: posted on Google at .+ \(approved by owner@demo\.example\)/)).toBeVisible();
  expect(fake.googleReplies.size).toBe(0);
  // While scheduled: edit, cancel or publish now.
  await expect(dialog.getByRole('button', { name: 'Cancel scheduled reply' })).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Save changes' })).toBeVisible();
  await screenshots(page, 'reply-composer-scheduled');
  await dialog.getByRole('button', { name: 'Publish now' }).click();
  await expect(dialog.getByText(/^State: Published on Google /)).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => [...fake.googleReplies.values()].map((r) => r.text)).toEqual(['We are sorry, Grace: the manager will call you this week.']);
  // The list shows the reply once it is published.
  await expect(rowOf(page, GRACE)).toContainText('Your reply');

  await dialog.getByRole('button', { name: 'Delete reply' }).click();
  const confirm = dialog.getByRole('group', { name: /Delete this reply from Google\?/ });
  await expect(confirm.getByRole('button', { name: 'Delete reply' })).toBeFocused();
  await expectNoAxeViolations(page, 'the delete confirmation');
  await confirm.getByRole('button', { name: 'Keep it' }).click();
  expect(fake.googleReplies.size).toBe(1);
  await dialog.getByRole('button', { name: 'Delete reply' }).click();
  await dialog.getByRole('group', { name: /Delete this reply from Google\?/ }).getByRole('button', { name: 'Delete reply' }).click();
  await expect(dialog.getByRole('status').filter({ hasText: 'Reply deleted.' })).toBeVisible();
  await expect(dialog.getByText(/^State: Your reply was deleted/)).toBeVisible();
  await expect.poll(() => fake.googleReplies.size).toBe(0);
  await page.close();
});

test('a review already answered on Google, not here: the Owner reads that reply, quoted, above Publish, which would replace it', async () => {
  // Signed in already (the Owner's test above).
  const page = await owner.newPage();
  await reviews(page);
  await rowOf(page, HUGO).getByRole('button', { name: 'Reply' }).click();
  const dialog = composer(page);
  await expect(dialog.locator('#reply-replaces')).toHaveText(`This review already has a reply on Google, not written here: “${ELSEWHERE}”. Publishing or approving this reply replaces it on Google.`);
  await expect(dialog.getByRole('button', { name: 'Publish in 5 minutes' })).toBeVisible();
  await expectNoAxeViolations(page, 'the composer over a reply written elsewhere');
  await page.close();
});

test('a platform without a reply API (Yelp) says so and links to the review there; the keyboard path, Escape back to the button', async () => {
  const page = await owner.newPage();
  await page.goto(`${service.origin}/dashboard/reviews`);
  await expect(rowOf(page, GRACE)).toBeVisible();
  await page.getByLabel('Platform').selectOption('YELP');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  const first = page.getByRole('row').nth(1);
  await expect(first.getByRole('cell', { name: 'Yelp', exact: true })).toBeVisible();
  const button = first.getByRole('button', { name: 'Reply' });
  await button.focus();
  await page.keyboard.press('Enter');
  const dialog = composer(page);
  await expect(dialog.getByText(/Yelp offers no reply API/)).toBeVisible();
  await expect(dialog.getByLabel('Your reply')).toHaveCount(0);
  await expect(dialog.getByRole('link', { name: /Answer it on Yelp/ })).toHaveAttribute('href', /^https:\/\//);
  await expectNoAxeViolations(page, 'the composer for Yelp');
  await screenshots(page, 'reply-composer-no-api');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(button).toBeFocused();

  // Google, from the keyboard alone: the field has focus, Tab reaches the buttons, Escape closes.
  await page.getByLabel('Platform').selectOption('');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  const reply = rowOf(page, GRACE).getByRole('button', { name: 'Reply' });
  await reply.focus();
  await page.keyboard.press('Enter');
  await expect(composer(page).getByLabel('Your reply')).toBeFocused();
  await page.keyboard.type('Thank you for telling us.');
  await expect(composer(page).getByRole('region', { name: 'Preview' })).toContainText('Thank you for telling us.');
  await page.keyboard.press('Tab');
  await expect(composer(page).getByRole('button', { name: 'Close' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(composer(page)).toHaveCount(0);
  await expect(reply).toBeFocused();
  await page.close();
});

test('templates: the Owner adds them in the Reply templates dialog (a wrong one first: the error under its field); Reply proposes the one that suits, filled in, and the picker offers the others', async () => {
  // A review written on the review page (DIRECT: answered here, no length limit), with its language and rating as the API gives them.
  const { data } = await service.api<{ data: { authorName: string; language: string; rating: number }[] }>('/reviews?platform=DIRECT&minRating=3&limit=1');
  const review = data[0]!;
  const language = review.language.slice(0, 2);
  const page = await owner.newPage();
  await page.goto(`${service.origin}/dashboard/reviews`);
  await page.getByRole('button', { name: 'Reply templates' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reply templates' });
  await expect(dialog.getByText('No templates yet.')).toBeVisible();
  await dialog.getByLabel('Name').fill('Thanks');
  await dialog.getByLabel('Language').fill(language);
  await dialog.getByLabel('Text', { exact: true }).fill('Thank you, {author}! See you soon at {business}.');
  await dialog.getByRole('button', { name: 'Add template' }).click();
  await expect(dialog.getByText('Choose at least one rating (1 to 5 stars) the template suits.')).toBeVisible();
  await expect(dialog.getByRole('checkbox', { name: '1 star', exact: true })).toBeFocused();
  await expectNoAxeViolations(page, 'the templates dialog with an error');
  await dialog.getByRole('checkbox', { name: `${review.rating} stars`, exact: true }).check();
  await dialog.getByRole('button', { name: 'Add template' }).click();
  await expect(dialog.getByRole('status').first()).toHaveText('Template “Thanks” added.');
  await dialog.getByLabel('Name').fill('Sorry');
  await dialog.getByLabel('Language').fill(language);
  await dialog.getByRole('checkbox', { name: '1 star', exact: true }).check();
  await dialog.getByLabel('Text', { exact: true }).fill('Sorry, {author}.');
  await dialog.getByRole('button', { name: 'Add template' }).click();
  await expect(dialog.getByRole('list', { name: 'Templates' }).getByRole('listitem')).toHaveCount(2);
  await expectNoAxeViolations(page, 'the templates dialog');
  await screenshots(page, 'reply-templates');
  await dialog.getByRole('button', { name: 'Close' }).last().click();
  await expect(dialog).toHaveCount(0);

  // The newest reviews come first, on the page and in the API: that review's row is the first DIRECT one of its author.
  const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'DIRECT', exact: true }) }).filter({ has: page.getByRole('cell', { name: review.authorName, exact: true }) }).first();
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: 'Reply' }).click();
  const reply = composer(page);
  const proposed = `Thank you, ${review.authorName}! See you soon at Acme Coffee Roasters.`;
  await expect(reply.getByLabel('Your reply')).toHaveValue(proposed);
  await expect(reply.getByText('Proposed for this review (its rating and language): “Thanks”, filled in below.')).toBeVisible();
  await expect(reply.getByText(`${new TextEncoder().encode(proposed).length} bytes · DIRECT sets no length limit`)).toBeVisible();
  const picker = reply.getByLabel('Template');
  await picker.selectOption((await picker.locator('option', { hasText: 'Sorry' }).getAttribute('value'))!);
  await expect(reply.getByLabel('Your reply')).toHaveValue(`Sorry, ${review.authorName}.`);
  await expect(reply.getByLabel('Your reply')).toBeFocused();
  await expectNoAxeViolations(page, 'the composer with templates');
  await screenshots(page, 'reply-composer-templates');
  await page.keyboard.press('Escape');
  await page.close();
});

test('automatic replies: in the Reply templates dialog the Owner turns the rule on from the keyboard (no template first: the error under its field), at 1280 and 390 px; a Member sees it read-only', async () => {
  const page = await owner.newPage();
  await page.goto(`${service.origin}/dashboard/reviews`);
  await page.getByRole('button', { name: 'Reply templates' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reply templates' });
  // A template for 4 and 5 stars to answer with.
  await dialog.getByLabel('Name').fill('Warm');
  await dialog.getByLabel('Language').fill('en');
  await dialog.getByRole('checkbox', { name: '4 stars', exact: true }).check();
  await dialog.getByRole('checkbox', { name: '5 stars', exact: true }).check();
  await dialog.getByLabel('Text', { exact: true }).fill('Thank you, {author}!');
  await dialog.getByRole('button', { name: 'Add template' }).click();
  await expect(dialog.getByRole('status').first()).toHaveText('Template “Warm” added.');
  const rule = dialog.getByRole('form', { name: 'Automatic replies' });
  const enabled = rule.getByRole('checkbox', { name: /^Reply automatically to reviews of 5 stars or more that have no text/ });
  await expect(enabled).not.toBeChecked();
  await expect(rule.getByText('Off by default; replies are posted after the delay and can be cancelled meanwhile.')).toBeVisible();
  // Which reviews it answers, in words: written since it was on, collected (never a file import), its own pace.
  await expect(rule.getByText(/^It answers only reviews written since it was turned on .+ Never what was already on a platform when you connected it, nor a file import\. At most 30 are posted a minute/)).toBeVisible();
  // The keyboard: Space ticks the box, Tab to the stars, arrows choose 4, Save without a template.
  await enabled.focus();
  await page.keyboard.press('Space');
  await expect(enabled).toBeChecked();
  await page.keyboard.press('Tab');
  await expect(rule.getByLabel('Stars or more', { exact: true })).toBeFocused();
  await rule.getByLabel('Stars or more', { exact: true }).selectOption('4');
  await expect(rule.getByRole('checkbox', { name: /^Reply automatically to reviews of 4 stars or more/ })).toBeChecked();
  await rule.getByRole('button', { name: 'Save automatic replies' }).click();
  await expect(rule.getByText('Choose the template to reply with.')).toBeVisible();
  await expect(rule.getByLabel('Template', { exact: true })).toBeFocused();
  await expect(rule.getByLabel('Template', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await expectNoAxeViolations(page, 'automatic replies with an error');
  // A template that does not suit 4 stars: the server's refusal, in words under the field.
  await rule.getByLabel('Template', { exact: true }).selectOption({ label: 'Sorry' });
  await rule.getByRole('button', { name: 'Save automatic replies' }).click();
  await expect(rule.getByText('This template does not suit every rating from 4 to 5 stars: choose one that does (or raise the minimum).')).toBeVisible();
  await rule.getByLabel('Template', { exact: true }).selectOption({ label: 'Warm' });
  await page.keyboard.press('Tab');
  await expect(rule.getByRole('button', { name: 'Save automatic replies' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(rule.getByRole('status')).toHaveText('Automatic replies are on for 4+ stars.');
  await expect(rule.getByText('Choose the template to reply with.')).toHaveCount(0);
  await expectNoAxeViolations(page, 'automatic replies on');
  await rule.scrollIntoViewIfNeeded();
  await screenshots(page, 'reply-auto-rule');
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => { const d = document.querySelector('dialog')!; return d.scrollWidth - d.clientWidth; })).toBeLessThanOrEqual(0);
  await expectNoAxeViolations(page, 'automatic replies at 390 px');
  await page.setViewportSize({ width: 1280, height: 800 });

  // A Member: the same rule, read-only, no Save.
  const readOnly = await member.newPage();
  await readOnly.goto(`${service.origin}/dashboard/reviews`);
  await readOnly.getByRole('button', { name: 'Reply templates' }).click();
  const seen = readOnly.getByRole('dialog', { name: 'Reply templates' }).getByRole('form', { name: 'Automatic replies' });
  await expect(seen.getByRole('checkbox', { name: /^Reply automatically to reviews of 4 stars or more/ })).toBeChecked();
  await expect(seen.getByRole('checkbox', { name: /^Reply automatically/ })).toBeDisabled();
  await expect(seen.getByLabel('Template', { exact: true })).toHaveValue(/.+/);
  await expect(seen.getByLabel('Template', { exact: true })).toBeDisabled();
  await expect(seen.getByRole('button', { name: 'Save automatic replies' })).toHaveCount(0);
  await expectNoAxeViolations(readOnly, 'automatic replies, read-only');
  await readOnly.close();

  // Off again (the tests after this one write reviews of their own).
  await rule.getByRole('checkbox', { name: /^Reply automatically/ }).uncheck();
  await rule.getByRole('button', { name: 'Save automatic replies' }).click();
  await expect(rule.getByRole('status')).toHaveText('Automatic replies are off.');
  await page.close();
});

test('at 390 px the composer fits: nothing scrolls sideways, every button on screen', async () => {
  const page = await owner.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${service.origin}/dashboard/reviews`);
  await rowOf(page, GRACE).getByRole('button', { name: 'Reply' }).click();
  const dialog = composer(page);
  await expect(dialog.getByRole('button', { name: 'Publish now' })).toBeVisible();
  expect(await page.evaluate(() => { const d = document.querySelector('dialog')!; return d.scrollWidth - d.clientWidth; })).toBeLessThanOrEqual(0);
  for (const name of ['Close', 'Save draft', 'Publish in 5 minutes', 'Publish now']) {
    const box = await dialog.getByRole('button', { name, exact: true }).boundingBox();
    expect(box, name).not.toBeNull();
    expect(box!.x, name).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, name).toBeLessThanOrEqual(390);
  }
  await expectNoAxeViolations(page, 'the composer at 390 px');
  await page.close();
});
