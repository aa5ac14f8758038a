/**
 * The Collect page's invitations (CONTRACT §14, its second half) in
 * Chromium against the real service over HTTPS, without SMTP_URL: the
 * no-relay notice (invitations are `unsent` links, how to set SMTP_URL and
 * SMTP_FROM) with the Link column, the state filter with its counts, pages,
 * a review through one link moving the counts and the conversion, Cancel
 * (asked first, from the keyboard), the settings refused in the server's
 * words then saved and kept, the mail's preview switching language (German,
 * Arabic right to left) and to the reminder, and a Member who reads only.
 * At 1280 and 390 px (cards there, nothing scrolling sideways), axe 0 on
 * every state, every control reached with Tab; screenshots
 * test-results/dashboard/collect-invitations-*-{1280,390}.png.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { expectNoAxeViolations, ownerPassword, screenshots, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 150_000 });

const MEMBER_PASSWORD = 'member password long enough';
const CUSTOMERS = ['ana', 'bo', 'chen', 'dara', 'eli', 'femi', 'gus', 'hana', 'ivo', 'jun', 'kai', 'lea', 'mo', 'nia', 'oli', 'pia', 'quin', 'rui', 'sam', 'tea', 'uma', 'vic'];

let service: RealService;
let context: BrowserContext;
let page: Page;

async function admin(method: string, path: string, body?: string | unknown): Promise<Record<string, unknown>> {
  const raw = typeof body === 'string';
  const res = await fetch(`${service.admin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.admin.token}`, ...(body !== undefined && { 'content-type': raw ? 'application/x-ndjson' : 'application/json' }) },
    ...(body !== undefined && { body: raw ? body : JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

const filter = (p: Page) => p.getByRole('group', { name: 'Show invitations by state' });
const table = (p: Page) => p.getByRole('region', { name: 'Invitation list' }).getByRole('table');
const rowOf = (p: Page, email: string) => table(p).getByRole('row').filter({ hasText: email });

/** Nothing scrolls sideways (the page, the tables drawn as cards), at the size the page has now. */
async function expectNoSidewaysScroll(p: Page, what: string): Promise<void> {
  await expect
    .poll(() => p.evaluate(() => [document.documentElement, ...document.querySelectorAll('.table-wrap, .inv-text')].filter((el) => el.scrollWidth > el.clientWidth + 1 && !el.classList.contains('inv-text')).map((el) => el.className || el.tagName)), {
      message: `${what}: nothing scrolls sideways`,
    })
    .toEqual([]);
}

async function shots(p: Page, name: string): Promise<void> {
  await p.setViewportSize({ width: 390, height: 844 });
  await expectNoSidewaysScroll(p, `${name} at 390 px`);
  await screenshots(p, `collect-invitations-${name}`);
}

/**
 * Resolves once the mail's stars are visible in the preview frame and the page has drawn two frames since (no
 * script runs in the sandboxed frame, so its own frames cannot be waited for).
 */
async function painted(p: Page): Promise<void> {
  await expect(p.frameLocator('iframe.inv-frame').locator('a[href*="rating=5"]')).toBeVisible();
  await p.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

async function openCollect(p: Page): Promise<void> {
  await p.goto(`${service.origin}/dashboard/collect`);
  await expect(p.getByRole('heading', { name: 'Collect', level: 1 })).toBeVisible();
  await expect(p.getByRole('heading', { name: 'Invitations', level: 2 })).toBeVisible();
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  service = await startRealService();
  const orgId = service.banner.orgId;
  await admin('POST', '/admin/products', { orgId, id: 'e2e-mug', name: 'Stoneware mug' });
  // 22 customers (a second page past 20), one with a product; then Ana again for another order: skipped, invited in the
  // last 30 days. Two uploads, so that the page of the 20 newest is known: the first three on page 2, the rest on page 1.
  const line = (c: string) => JSON.stringify({ email: `${c}@mail.example`, name: c.charAt(0).toUpperCase() + c.slice(1), orderRef: `A-${1000 + CUSTOMERS.indexOf(c)}`, ...(c === 'ana' && { productId: 'e2e-mug' }) });
  const older = await admin('POST', `/admin/orgs/${orgId}/invitations`, `${CUSTOMERS.slice(-3).map(line).join('\n')}\n`);
  expect(older).toMatchObject({ created: 3, rejected: [] });
  const lines = [...CUSTOMERS.slice(0, -3).map(line), JSON.stringify({ email: 'ana@mail.example', name: 'Ana', orderRef: 'A-2000' })];
  const newer = await admin('POST', `/admin/orgs/${orgId}/invitations`, `${lines.join('\n')}\n`);
  expect(newer).toMatchObject({ created: 19, rejected: [] });
  context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
});

test.afterAll(async () => {
  await context?.close();
  await service?.stop();
});

test('without a relay: the notice says invitations are unsent links and how to set SMTP_URL and SMTP_FROM; the list shows the links, the counts and the conversion', async () => {
  await openCollect(page);
  const notice = page.locator('#no-relay');
  await expect(notice).toContainText('Invitations are not mailed: no mail relay is configured.');
  await expect(notice).toContainText('Each invitation is unsent: copy its link from the Link column');
  await expect(notice).toContainText(/sets SMTP_URL .* and SMTP_FROM .* See docs\/operations\.md\./);
  await expect(filter(page).getByRole('button')).toHaveText(['All 23', 'Skipped 1', 'Unsent 22']);
  await expect(filter(page).getByRole('button', { name: 'All 23' })).toHaveAttribute('aria-pressed', 'true');
  await expect(table(page).getByRole('columnheader')).toHaveText(['Customer', 'State', 'Order and product', 'When', 'Link', 'Actions']);
  const sam = rowOf(page, 'sam@mail.example');
  await expect(sam).toContainText('Unsent');
  await expect(sam).toContainText(/https:\/\/127\.0\.0\.1:\d+\/r\/i\/[A-Za-z0-9_.-]+/);
  await expect(sam.getByRole('button', { name: 'Copy link' })).toBeVisible();
  // Newest first, 20 a page.
  await expect(table(page).getByRole('row')).toHaveCount(21);
  await expect(page.getByRole('navigation', { name: 'Pages of invitations' })).toContainText('1–20 of 23');
  // Nothing reviewed yet: 0 of the 22 links made today (the skipped one was never sent).
  await expect(page.locator('.inv-stats .stat').nth(0)).toContainText(/Conversion, 30 days\s*0%\s*0 reviewed of 22 sent since/);
  await expect(page.locator('.inv-stats .stat').nth(1)).toContainText(/Conversion, 90 days\s*0%/);
  await expect(page.locator('#conversion-definition')).toContainText('Conversion is reviewed ÷ sent');
  await expectNoAxeViolations(page, 'Collect, the invitations');
  await shots(page, 'list');
});

test('the state filter with its counts and the pages, at 1280 and at 390 px (cards there), from the keyboard', async () => {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    const skipped = filter(page).getByRole('button', { name: 'Skipped 1' });
    await skipped.focus();
    await page.keyboard.press('Enter');
    await expect(skipped).toHaveAttribute('aria-pressed', 'true');
    await expect(table(page).getByRole('row')).toHaveCount(2);
    await expect(rowOf(page, 'ana@mail.example')).toContainText('Skipped');
    await expect(rowOf(page, 'ana@mail.example')).toContainText('invited in the last 30 days');
    if (width === 390) await expect(page.getByRole('region', { name: 'Invitation list' })).toHaveAttribute('data-cards', '');
    await expectNoSidewaysScroll(page, `the filter at ${width} px`);
    const all = filter(page).getByRole('button', { name: 'All 23' });
    await all.focus();
    await page.keyboard.press('Space');
    await expect(all).toHaveAttribute('aria-pressed', 'true');
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByRole('navigation', { name: 'Pages of invitations' })).toContainText('21–23 of 23');
    await expect(table(page).getByRole('row')).toHaveCount(4);
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect(page.getByRole('navigation', { name: 'Pages of invitations' })).toContainText('1–20 of 23');
  }
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('a review written through one link: the counts and the conversion follow; a reviewed invitation has no Cancel', async () => {
  const listed = (await admin('GET', `/admin/invitations?orgId=${service.banner.orgId}&state=unsent&limit=100`)) as { data: { email: string; link: string }[] };
  const link = listed.data.find((i) => i.email === 'chen@mail.example')!.link;
  const writer = await context.newPage();
  await writer.goto(`${link}?rating=5`);
  await writer.getByLabel('Your review').fill('Lovely mug, arrived well packed.');
  await writer.getByLabel('Your name').fill('Chen');
  await writer.getByLabel('This review is about my own experience').check();
  await writer.waitForTimeout(2100); // the form token's minimum age
  await writer.getByRole('button', { name: 'Send review' }).click();
  await expect(writer.getByRole('heading', { level: 1 })).toHaveText('Thank you for your review');
  await writer.close();

  await openCollect(page);
  await expect(filter(page).getByRole('button')).toHaveText(['All 23', 'Reviewed 1', 'Skipped 1', 'Unsent 21']);
  await expect(page.locator('.inv-stats .stat').nth(0)).toContainText(/4\.5%\s*1 reviewed of 22 sent since/);
  const chen = rowOf(page, 'chen@mail.example');
  await expect(chen).toContainText('Reviewed');
  await expect(chen.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
  await expect(rowOf(page, 'dara@mail.example').getByRole('button', { name: 'Cancel' })).toHaveCount(1);
});

test('cancel, asked first and done from the keyboard: the counts follow and the state says so', async () => {
  const cancel = rowOf(page, 'bo@mail.example').getByRole('button', { name: 'Cancel' });
  await cancel.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Cancel this invitation?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('bo@mail.example gets no mail or reminder from it, and its link stops working.');
  await expectNoAxeViolations(page, 'Collect, cancel an invitation');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'test-results/dashboard/collect-invitations-cancel-dialog-390.png' });
  await page.setViewportSize({ width: 1280, height: 800 });
  // Keep it closes and changes nothing.
  await dialog.getByRole('button', { name: 'Keep it' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(rowOf(page, 'bo@mail.example')).toContainText('Unsent');

  await cancel.focus();
  await page.keyboard.press('Enter');
  const confirm = dialog.getByRole('button', { name: 'Cancel invitation' });
  await confirm.focus();
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: 'The invitation to bo@mail.example is cancelled' })).toHaveCount(1);
  await expect(rowOf(page, 'bo@mail.example')).toContainText('Cancelled');
  await expect(rowOf(page, 'bo@mail.example').getByRole('button', { name: 'Cancel' })).toHaveCount(0);
  await expect(filter(page).getByRole('button')).toHaveText(['All 23', 'Reviewed 1', 'Skipped 1', 'Cancelled 1', 'Unsent 20']);
  await expectNoAxeViolations(page, 'Collect, an invitation cancelled');
});

test('settings: refused in the server’s words (announced), then saved and kept after a reload, the review page settings untouched', async () => {
  const delay = page.getByRole('spinbutton', { name: 'Days from the order to the mail' });
  await expect(delay).toHaveValue('7');
  await delay.fill('61');
  await page.getByRole('button', { name: 'Save invitation settings' }).click();
  const error = 'The delay must be a whole number of days from 0 to 60.';
  await expect(page.locator('#inv-delay-error')).toHaveText(error);
  await expect(delay).toHaveAttribute('aria-invalid', 'true');
  await expect(delay).toHaveAccessibleDescription(/leave time for the parcel to arrive\. The delay must be a whole number of days from 0 to 60\.$/);
  await expect(page.getByRole('status').filter({ hasText: `Not saved: ${error}` })).toHaveCount(1);
  await expectNoAxeViolations(page, 'Collect, invitation settings refused');

  await delay.fill('3');
  const reminder = page.getByRole('checkbox', { name: /Send one reminder/ });
  await reminder.focus();
  await page.keyboard.press('Space');
  await expect(reminder).not.toBeChecked();
  await page.getByRole('combobox', { name: 'Default language' }).selectOption({ label: 'German' });
  await page.getByRole('textbox', { name: 'Sender name (optional)' }).fill('Acme Coffee');
  await page.getByRole('button', { name: 'Save invitation settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Invitation settings saved.' })).toHaveCount(1);
  await expect(delay).not.toHaveAttribute('aria-invalid', 'true');

  await page.reload();
  await expect(page.getByRole('spinbutton', { name: 'Days from the order to the mail' })).toHaveValue('3');
  await expect(page.getByRole('checkbox', { name: /Send one reminder/ })).not.toBeChecked();
  await expect(page.getByRole('combobox', { name: 'Default language' })).toHaveValue('de');
  await expect(page.getByRole('textbox', { name: 'Sender name (optional)' })).toHaveValue('Acme Coffee');
  await expect(page.getByRole('radio', { name: /Publish confirmed reviews at once/ })).toBeChecked();
  await shots(page, 'settings');
});

test('the preview follows the default language, switches language (Arabic right to left) and to the reminder, at 1280 and 390 px; the mail is shown in a sandboxed frame', async () => {
  const picker = page.getByRole('combobox', { name: 'Language', exact: true });
  const subject = page.locator('#preview-subject');
  const frame = page.locator('iframe.inv-frame');
  // The default language just saved: German.
  await expect(picker).toHaveValue('de');
  await expect(subject).toHaveText('Wie war Ihre Erfahrung mit Stoneware mug?');
  await expect(page.locator('.inv-envelope')).toContainText(/From\s*Acme Coffee <no-reply@127\.0\.0\.1>/);
  await expect(frame).toHaveAttribute('sandbox', '');
  await expect(frame).toHaveAttribute('title', 'Preview of the invitation mail in German');
  await expect(page.frameLocator('iframe.inv-frame').getByRole('heading', { level: 1 })).toHaveText('Wie war Ihre Erfahrung mit Stoneware mug?');
  // Shown as a mail client shows it: the mail's own inline styles apply (the dashboard's policy would refuse them).
  await expect(page.frameLocator('iframe.inv-frame').locator('a[href*="rating=5"]')).toHaveCSS('background-color', 'rgb(255, 251, 235)');
  await expect(page.locator('pre.inv-text')).toContainText('Hallo Alex,');
  await expect(picker.locator('option')).toHaveCount(24);

  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    await picker.selectOption('ar');
    await expect(frame).toHaveAttribute('title', 'Preview of the invitation mail in Arabic');
    await expect(subject).toHaveText(/[\u0600-\u06ff].*Stoneware mug/);
    await expect(page.frameLocator('iframe.inv-frame').locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(page.frameLocator('iframe.inv-frame').locator('html')).toHaveAttribute('lang', 'ar');
    await expect(page.getByRole('status').filter({ hasText: 'Showing the invitation mail in Arabic.' })).toHaveCount(1);
    await expectNoSidewaysScroll(page, `the preview at ${width} px`);
    // The card alone as well: a full-page shot leaves the sandboxed frame (drawn in a process of its own) blank.
    await painted(page);
    await page.locator('section[aria-labelledby="mail-preview-title"]').screenshot({ path: `test-results/dashboard/collect-invitations-preview-card-ar-${width}.png` });
    if (width === 1280) {
      await expectNoAxeViolations(page, 'Collect, the preview in Arabic');
      await screenshots(page, 'collect-invitations-preview-ar');
    }
    await picker.selectOption('en');
    await expect(subject).toHaveText('How was your experience with Stoneware mug?');
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  const toggle = page.getByRole('checkbox', { name: 'Show the reminder' });
  await toggle.focus();
  await page.keyboard.press('Space');
  await expect(frame).toHaveAttribute('title', 'Preview of the reminder mail in English');
  await expect(subject).not.toHaveText('How was your experience with Stoneware mug?');
  await expect(page.locator('pre.inv-text')).toContainText('Hello Alex,');
  await expect(page.frameLocator('iframe.inv-frame').locator('html')).toHaveAttribute('lang', 'en');
  // The mail itself, on a page of its own (axe cannot run inside the sandboxed frame), German and Arabic: the WCAG
  // rules (a mail has no landmarks of its own: the mail app's page around it has them).
  for (const lang of ['de', 'ar']) {
    const res = await page.request.get(`${service.origin}/dashboard/api/invitations/preview?lang=${lang}`);
    const mail = await context.newPage();
    await mail.setContent(((await res.json()) as { html: string }).html);
    const result = await new AxeBuilder({ page: mail }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
    expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), `axe on the mail in ${lang}`).toEqual([]);
    expect(result.passes.length).toBeGreaterThan(5);
    // What the frame shows on a phone (the frame is the card's width there, 358 px), as a page of its own: full-page
    // shots leave the sandboxed frame blank.
    await mail.setViewportSize({ width: 358, height: 680 });
    await mail.goto(`${service.origin}/dashboard/api/invitations/preview.html?lang=${lang}`);
    await expect(mail.locator('a[href*="rating=5"]')).toHaveCSS('background-color', 'rgb(255, 251, 235)');
    await mail.screenshot({ path: `test-results/dashboard/collect-invitations-mail-${lang}-358.png`, fullPage: true });
    // A small phone's mail app (320 px): the five stars fit, nothing scrolls sideways.
    await mail.setViewportSize({ width: 320, height: 680 });
    await expect.poll(() => mail.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), { message: `the mail in ${lang} at 320 px` }).toBeLessThanOrEqual(0);
    await mail.close();
  }
  await painted(page);
  await page.locator('section[aria-labelledby="mail-preview-title"]').screenshot({ path: 'test-results/dashboard/collect-invitations-preview-card-reminder-1280.png' });
  await shots(page, 'preview-reminder');
});

test('the keyboard reaches every control of the invitations half, in order', async () => {
  await openCollect(page);
  await expect(table(page).getByRole('row')).toHaveCount(21);
  await filter(page).getByRole('button', { name: 'All 23' }).focus();
  const seen: string[] = [];
  for (let i = 0; i < 120; i++) {
    seen.push(
      await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        if (!el) return '';
        const name = el.getAttribute('aria-label') ?? el.id ?? '';
        return `${el.tagName.toLowerCase()}|${name}|${(el.textContent ?? '').trim().slice(0, 40)}`;
      }),
    );
    if (seen.at(-1)!.startsWith('pre|')) break;
    await page.keyboard.press('Tab');
  }
  const has = (pattern: RegExp) => expect(seen.some((s) => pattern.test(s)), `${pattern} among ${seen.length} stops:\n${seen.join('\n')}`).toBe(true);
  for (const p of [/^button\|\|All 23$/, /^button\|\|Skipped 1$/, /^button\|\|Copy link$/, /^button\|\|Cancel$/, /^button\|\|Next$/, /^input\|inv-delay\|/, /^input\|\|$/, /^select\|inv-language\|/, /^input\|inv-sender\|/, /^button\|\|Save invitation settings$/, /^select\|preview-language\|/, /^pre\|Plain text of the/]) has(p);
  // The table itself is a focusable region for scrolling and reading.
  has(/^div\|Invitation list\|/);
});

test('a Member reads the list, the settings and the preview, with no Cancel and no Save', async ({ browser }) => {
  await admin('POST', '/admin/users', { orgId: service.banner.orgId, email: 'inv-member@demo.example', role: 'member', password: MEMBER_PASSWORD });
  const memberContext = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 800 } });
  const member = await memberContext.newPage();
  await signIn(member, service.origin, 'inv-member@demo.example', MEMBER_PASSWORD);
  await expect(member.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await openCollect(member);
  await expect(rowOf(member, 'dara@mail.example')).toContainText('Unsent');
  await expect(table(member).getByRole('button', { name: 'Cancel' })).toHaveCount(0);
  await expect(table(member).getByRole('button', { name: 'Copy link' }).first()).toBeVisible();
  await expect(member.getByRole('spinbutton', { name: 'Days from the order to the mail' })).toBeDisabled();
  await expect(member.getByRole('button', { name: 'Save invitation settings' })).toHaveCount(0);
  await expect(member.locator('#preview-subject')).toHaveText('Wie war Ihre Erfahrung mit Stoneware mug?');
  await expectNoAxeViolations(member, 'Collect, invitations as a Member');
  await shots(member, 'member');
  await memberContext.close();
});
