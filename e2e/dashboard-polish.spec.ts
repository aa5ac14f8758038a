/**
 * What a newcomer sees on first run and in the dashboard (issue 28, items
 * 10-13), in Debian's Chromium against the real service: the landing page at
 * /, the favicon, the dashboard's own not-found page, the banner's demo
 * widgets; the navigation as a Menu at 390 px (keyboard: open, Escape, choose);
 * the Overview's figures in one row at 1280 px; Reviews whose text uses the
 * width, opens whole in a dialog and becomes cards at 390 px; the builder's
 * selects not clipped and its preview one switch away at 390 px; a new key
 * shown whole; the audit log in words. axe on each, screenshots at 1280 and
 * 390 px in test-results/dashboard/ (polish-*).
 */
import { expect, test, type BrowserContext, type Locator, type Page } from '@playwright/test';
import { expectNoAxeViolations, ownerPassword, screenshots, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

let service: RealService;
let owner: BrowserContext;
let page: Page;
/** Every answer of 404 the browser got for something a page loaded (the favicon was one on every page). */
const missing: string[] = [];

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  service = await startRealService();
  owner = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'Europe/Paris', viewport: { width: 1280, height: 800 } });
  owner.on('response', (r) => {
    if (r.status() === 404 && r.request().resourceType() !== 'document' && r.request().resourceType() !== 'fetch') missing.push(r.url());
  });
  page = await owner.newPage();
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
});

test.afterAll(async () => {
  await owner?.close();
  await service?.stop();
});

const nav = (p: Page) => p.getByRole('navigation', { name: 'Dashboard' });

async function goTo(name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 800 });
  await nav(page).getByRole('link', { name, exact: true }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
}

test('first run: the banner lists one demo widget per layout, as the README says', async () => {
  const layouts = ['carousel', 'grid', 'list', 'badge'];
  // The store lists widgets made in the same millisecond in id order (random): the banner, in
  // creation order, is what is checked.
  const widgets = (await service.widgets()).sort((a, b) => layouts.indexOf(a.layout) - layouts.indexOf(b.layout));
  expect(widgets.map((w) => w.layout)).toEqual(layouts);
  const line = /Demo widgets:\s+(.+)/.exec(service.banner.text)?.[1];
  expect(line).toBe(widgets.map((w) => `${w.id} (${w.layout})`).join(', '));
});

test('first run: / is a page for people with the dashboard, the demo and the API reference; unknown dashboard paths get the dashboard’s not-found page; no page asks for a missing favicon', async () => {
  const landing = await owner.newPage();
  const answer = await landing.goto(`${service.origin}/`);
  expect(answer!.status()).toBe(200);
  await expect(landing.getByRole('heading', { name: 'Review Proof', level: 1 })).toBeVisible();
  for (const [name, href] of [
    ['Dashboard', '/dashboard'],
    ['Demo page', '/demo'],
    ['API reference', '/api/v1/docs'],
  ]) {
    await expect(landing.getByRole('link', { name, exact: true })).toHaveAttribute('href', href!);
  }
  await expectNoAxeViolations(landing, 'the landing page');
  await screenshots(landing, 'polish-landing');
  await landing.getByRole('link', { name: 'Demo page', exact: true }).click();
  await expect(landing.getByRole('heading', { level: 1 })).toContainText('Review widgets');
  await expect(landing.locator('meta[name="description"]')).toHaveAttribute('content', /review widgets/i);
  await landing.close();

  // Signed in: an unknown page path is the dashboard's own page, with status 404 and the menu.
  const lost = await page.goto(`${service.origin}/dashboard/no-such-page`);
  expect(lost!.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Page not found', level: 1 })).toBeVisible();
  await expect(nav(page).getByRole('link', { name: 'Overview' })).toBeVisible();
  await expectNoAxeViolations(page, 'the not-found page');
  await screenshots(page, 'polish-not-found');
  // The JSON API's unknown paths stay JSON.
  for (const path of ['/dashboard/api/no-such-thing', '/api/v1/no-such-thing']) {
    const json = await service.get<{ error: string }>(path);
    expect([json.status, json.body.error, json.headers['content-type']], path).toEqual([404, 'not_found', 'application/json; charset=utf-8']);
  }
  await page.getByRole('link', { name: 'Go to the Overview' }).click();
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  expect(missing, 'files answered 404 to the pages').toEqual([]);
});

test('navigation at 390 px is a Menu button: the keyboard opens it, every link is in view, Escape closes it and focus returns; a chosen page closes it', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  const links = nav(page).getByRole('link');
  await expect(links.first()).toBeHidden();
  const menu = page.getByRole('button', { name: /^Menu/ });
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await menu.focus();
  await page.keyboard.press('Enter');
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  await expect(links.first()).toBeFocused();
  const names = await links.allTextContents();
  expect(names).toEqual(['Overview', 'Reviews', 'Products', 'Collect', 'Widgets', 'Sources', 'API Keys', 'Webhooks', 'Members', 'Audit log']);
  for (const link of await links.all()) {
    const box = (await link.boundingBox())!;
    expect(box.x >= 0 && box.x + box.width <= 390, `${await link.textContent()} lies within the screen`).toBe(true);
    await expect(link).toBeInViewport();
  }
  await expectNoAxeViolations(page, 'the open menu at 390 px');
  await page.screenshot({ path: 'test-results/dashboard/polish-menu-open-390.png' });
  await page.keyboard.press('Escape');
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toBeFocused();
  await expect(links.first()).toBeHidden();

  await page.keyboard.press('Enter');
  await expect(links.first()).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(links.nth(1)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Reviews', level: 1 })).toBeVisible();
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toHaveAccessibleName('Menu, current page: Reviews');

  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(menu).toBeHidden();
  await expect(links.first()).toBeVisible();
});

test('Overview: the six figures stand in one row at 1280 px (not 5 + 1), in rows of two at 390 px', async () => {
  await goTo('Overview');
  const cards = page.locator('.stats .stat');
  await expect(cards).toHaveCount(6);
  const tops = async () => (await cards.evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().top))));
  // Measured until the layout settles (the charts' code and canvases arrive after the figures), not once.
  await expect.poll(async () => new Set(await tops()).size).toBe(1);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(async () => {
      const rows = await tops();
      return { rows: new Set(rows).size, firstTwoSideBySide: rows[0] === rows[1] };
    })
    .toEqual({ rows: 3, firstTwoSideBySide: true });
  await screenshots(page, 'polish-overview');
});

/** A review text long enough to need more than a line anywhere. */
async function longReviewRow(): Promise<{ row: Locator; content: string; author: string }> {
  const reviews = page.getByRole('table', { name: undefined }).locator('tbody tr');
  // The page's code and its first page of reviews arrive after the navigation: wait for them.
  await expect(reviews.first()).toBeVisible();
  const count = await reviews.count();
  for (let i = 0; i < count; i++) {
    const text = (await reviews.nth(i).locator('.r-text').textContent())!.trim();
    if (text.length > 160) return { row: reviews.nth(i), content: text, author: (await reviews.nth(i).locator('.r-author').textContent())!.trim() };
  }
  throw new Error('no review of more than 160 characters on the first page');
}

test('Reviews: the text takes the free width over two lines, Read opens the whole review in a dialog (keyboard: Enter, Escape, focus back); at 390 px each review is a card with its rating, text and actions in view', async () => {
  await goTo('Reviews');
  const { row, content, author } = await longReviewRow();
  const text = row.locator('.r-text .text-clamp');
  const box = (await text.boundingBox())!;
  const lineHeight = await text.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
  expect(box.height, 'two lines of the review are shown, not one cut line').toBeGreaterThanOrEqual(2 * lineHeight - 1);
  expect(box.width, 'the text column is the widest').toBeGreaterThan(260);
  await expectNoAxeViolations(page, 'Reviews at 1280 px');

  const read = row.getByRole('button', { name: 'Read' });
  await read.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: `Review by ${author}` });
  await expect(dialog).toBeVisible();
  await expect(dialog.locator('.review-full')).toHaveText(content);
  await expectNoAxeViolations(page, 'the review dialog');
  await screenshots(page, 'polish-review-dialog');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(read).toBeFocused();

  await page.setViewportSize({ width: 390, height: 844 });
  const wrap = page.getByRole('region', { name: 'Reviews' });
  expect(await wrap.evaluate((el) => el.scrollWidth <= el.clientWidth), 'nothing scrolls away sideways').toBe(true);
  const first = page.locator('tbody tr').first();
  // The card brought into view (the filters above it, one more since `Reply`, may fill the first screen): all of it shows at once.
  await first.scrollIntoViewIfNeeded();
  for (const cell of ['.r-author', '.r-rating', '.r-text', '.r-status']) await expect(first.locator(cell)).toBeInViewport();
  for (const button of await first.getByRole('button').all()) {
    const b = (await button.boundingBox())!;
    expect(b.x + b.width, 'the actions are on screen').toBeLessThanOrEqual(390);
  }
  await expect(first.locator('.r-rating')).toHaveText(/\/ 5|No stars/);
  await expectNoAxeViolations(page, 'Reviews at 390 px');
  await screenshots(page, 'polish-reviews');
});

/** True when the chosen option's text fits its select beside the arrow. */
const selectFits = (select: Locator) =>
  select.evaluate((el: HTMLSelectElement) => {
    const style = getComputedStyle(el);
    const probe = document.createElement('span');
    probe.style.cssText = `position:absolute;white-space:pre;font:${style.font}`;
    probe.textContent = el.selectedOptions[0]?.text ?? '';
    document.body.append(probe);
    const width = probe.getBoundingClientRect().width;
    probe.remove();
    // Chromium draws the arrow in the right padding's place: about 20 px beside the padding.
    return { text: probe.textContent, fits: width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 20 <= el.clientWidth };
  });

test('builder: every select shows its whole choice at 1280 and 390 px; at 390 px the preview is one sticky switch away from anywhere in the form', async () => {
  await page.goto(`${service.origin}/dashboard/widgets/${service.banner.widgetId}`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Demo carousel');
  const selects = page.locator('form select');
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 844 });
    for (const select of await selects.all()) {
      for (const value of await select.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).slice(0, 4))) {
        await select.selectOption(value);
        const { text, fits } = await selectFits(select);
        expect(fits, `“${text}” fits its select at ${width} px`).toBe(true);
      }
    }
  }
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Demo carousel');

  const preview = page.locator('#widget-preview');
  await page.getByRole('button', { name: 'Save' }).scrollIntoViewIfNeeded();
  const switchTo = page.getByRole('button', { name: 'Preview and snippet' });
  await expect(switchTo).toBeInViewport();
  await switchTo.click();
  await expect(switchTo).toHaveAttribute('aria-pressed', 'true');
  await expect(preview).toBeInViewport();
  await expect(page.getByRole('heading', { name: 'Embed snippet' })).toBeVisible();
  await expectNoAxeViolations(page, 'the builder’s preview at 390 px');
  await page.screenshot({ path: 'test-results/dashboard/polish-builder-preview-390.png', fullPage: true });
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByLabel('Widget name')).toBeVisible();
  await expect(preview).toBeHidden();
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(preview).toBeVisible();
  await expect(switchTo).toBeHidden();
  await screenshots(page, 'polish-builder');
});

test('the audit log records a rename as "Name: “Demo carousel” → …", not the widget’s 17 fields by internal names', async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${service.origin}/dashboard/widgets/${service.banner.widgetId}`);
  await expect(page.getByLabel('Widget name')).toHaveValue('Demo carousel');
  await page.getByLabel('Widget name').fill('Home page carousel');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved', { exact: false }).first()).toBeVisible();
  await goTo('Audit log');
  const row = page.getByRole('row').filter({ hasText: 'Changed widget' });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Name: “Demo carousel” → “Home page carousel”');
  const table = (await page.getByRole('table').textContent())!;
  expect(table).not.toMatch(/options\.|subject\.|GOOGLE|reviewLanguages/);
  await expectNoAxeViolations(page, 'the audit log');
  await screenshots(page, 'polish-audit');
});

test('a new API key is shown whole, its rvp_ start in view, at 390 px', async () => {
  await goTo('API Keys');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('button', { name: 'Create API Key' }).click();
  await page.getByLabel('Name').fill('Phone');
  await page.getByRole('button', { name: 'Generate' }).click();
  const field = page.getByRole('textbox', { name: 'New API key' });
  await expect(field).toHaveValue(/^rvp_live_/);
  const fits = await field.evaluate((el) => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight + 1 && el.scrollLeft === 0 && el.scrollTop === 0);
  expect(fits, 'the whole key is visible without scrolling the field').toBe(true);
  await expectNoAxeViolations(page, 'the new key at 390 px');
  await screenshots(page, 'polish-new-key');
  await page.keyboard.press('Escape');
});
