/**
 * Issue 39, items 4, 6 and 7, in Debian's Chromium against the real service:
 * every table of API Keys, Members, Audit log and Widgets at 390 px shows each
 * row's values and action buttons on screen (rows as cards, no sideways scroll
 * of the table's box), and is a table at 1280 px; the audit log in words; the
 * widget builder names the field that is wrong (the empty widget name is the
 * widget name's problem), focuses it, sends no request it knows will be
 * refused (the console stays clean), and keeps Save in view at 1280 and 390 px
 * without covering the field being edited. axe on each, screenshots at 1280
 * and 390 px in test-results/dashboard/ (tables-*, builder-*).
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { join } from 'node:path';
import { expectNoAxeViolations, ownerPassword, screenshots, SHOTS_DIR, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

let service: RealService;
let owner: BrowserContext;
let page: Page;
/** Every console error and page error, and every answer of 400 or more to the dashboard's API, since the last reset. */
const problems: string[] = [];

async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${service.admin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.admin.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  service = await startRealService();
  const orgId = service.banner.orgId;
  // Rows with every kind of value and action: a second Admin (role select, Remove), keys active and revoked with long names.
  await admin('POST', '/admin/users', { orgId, email: 'dana.longname-for-a-narrow-screen@example.com', role: 'admin' });
  await admin('POST', '/admin/keys', { orgId, name: 'Checkout service (production, eu-west)' });
  const revoked = await admin('POST', '/admin/keys', { orgId, name: 'Old staging key' });
  await admin('POST', `/admin/keys/${revoked.id as string}/revoke`);
  owner = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'Europe/Paris', viewport: { width: 1280, height: 800 } });
  page = await owner.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400 && new URL(r.url()).pathname.startsWith('/dashboard/api/')) problems.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
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

/**
 * What of the table named `label` is not on screen at the page's width: a cell, a
 * button, a link or a select outside 0..width, a cell whose content is clipped,
 * the table's box scrolling sideways, or the page itself wider than the window.
 */
function offScreen(p: Page, label: string): Promise<string[]> {
  return p.evaluate((label) => {
    const out: string[] = [];
    const width = window.innerWidth;
    const wrap = document.querySelector<HTMLElement>(`[role="region"][aria-label="${label}"]`);
    if (!wrap) return [`no region ${label}`];
    if (wrap.scrollWidth > wrap.clientWidth + 1) out.push(`the box scrolls sideways: ${wrap.scrollWidth} > ${wrap.clientWidth}`);
    if (document.documentElement.scrollWidth > width) out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
    const rows = Array.from(wrap.querySelectorAll('tbody tr'));
    if (rows.length === 0) out.push('no rows');
    rows.forEach((row, r) => {
      for (const el of Array.from(row.querySelectorAll<HTMLElement>('td, button, a, select'))) {
        const box = el.getBoundingClientRect();
        const what = `row ${r + 1} ${el.tagName.toLowerCase()} “${(el.innerText || el.getAttribute('aria-label') || '').trim().slice(0, 40)}”`;
        if (box.left < -0.5 || box.right > width + 0.5) out.push(`${what} at ${Math.round(box.left)}..${Math.round(box.right)}`);
        if (el.tagName === 'TD' && el.scrollWidth > el.clientWidth + 1) out.push(`${what} clipped: ${el.scrollWidth} > ${el.clientWidth}`);
      }
    });
    return out;
  }, label);
}

const TABLES: { nav: string; region: string; rows: number; shot: string }[] = [
  { nav: 'API Keys', region: 'API keys', rows: 3, shot: 'tables-api-keys' },
  { nav: 'Members', region: 'Members', rows: 2, shot: 'tables-members' },
  { nav: 'Audit log', region: 'Audit log', rows: 1, shot: 'tables-audit' },
  { nav: 'Widgets', region: 'Widgets', rows: 4, shot: 'tables-widgets' },
];

for (const t of TABLES) {
  test(`${t.nav}: a table at 1280 px; at 390 px every row’s values and actions on screen, no sideways scroll; keyboard reachable`, async () => {
    await goTo(t.nav);
    const region = page.getByRole('region', { name: t.region });
    const rows = region.locator('tbody').getByRole('row');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(t.rows);
    // At 1280 px: still a table with its column headers in a row (the header row on screen).
    await expect(region.locator('thead')).toBeVisible();
    await expect.poll(() => offScreen(page, t.region)).toEqual([]);
    await expectNoAxeViolations(page, `${t.nav} at 1280 px`);

    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => offScreen(page, t.region)).toEqual([]);
    // The cells still name their columns, for assistive technology and on screen.
    await expect(region.getByRole('columnheader')).not.toHaveCount(0);
    await expectNoAxeViolations(page, `${t.nav} at 390 px`);
    // Keyboard: the table's box, then its first control, each with Tab.
    await region.focus();
    await expect(region).toBeFocused();
    const controls = region.locator('tbody').locator('button, a, select');
    if ((await controls.count()) > 0) {
      await page.keyboard.press('Tab');
      await expect(controls.first()).toBeFocused();
      const box = await controls.first().boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    }
    await screenshots(page, t.shot);
  });
}

test('API Keys at 390 px: Revoke on screen for the active keys, the State of each key on screen', async () => {
  await goTo('API Keys');
  await page.setViewportSize({ width: 390, height: 844 });
  const region = page.getByRole('region', { name: 'API keys' });
  const revoke = region.getByRole('button', { name: 'Revoke' });
  await expect(revoke).not.toHaveCount(0);
  for (const button of await revoke.all()) {
    await expect(button).toBeInViewport();
    const box = (await button.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }
  const revokedRow = region.getByRole('row').filter({ hasText: 'Old staging key' });
  await expect(revokedRow.getByText('Revoked', { exact: true })).toBeVisible();
  const box = (await revokedRow.getByText('Revoked', { exact: true }).boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(390);
});

test('the audit log in words: no action code, subjects named for what they are', async () => {
  await goTo('Audit log');
  const region = page.getByRole('region', { name: 'Audit log' });
  const rows = region.locator('tbody').getByRole('row');
  await expect(rows.filter({ hasText: 'Created API key' }).first()).toBeVisible();
  await expect(rows.filter({ hasText: 'API key “Checkout service (production, eu-west)”' })).toHaveCount(1);
  await expect(rows.filter({ hasText: 'Revoked API key' }).filter({ hasText: 'API key “Old staging key”' })).toHaveCount(1);
  await expect(rows.filter({ hasText: 'Added member' }).filter({ hasText: 'as Admin' })).toHaveCount(1);
  // No cell of the What column reads like a code ("source.connected").
  const what = region.locator('tbody td:nth-child(3)');
  await expect(what.filter({ hasText: /\b[a-z]+\.[a-z_]+\b/ })).toHaveCount(0);
  await expect(what).not.toHaveCount(0);
});

test('builder: Save with no name names the widget name, focuses it, and sends nothing; the console stays clean', async () => {
  problems.length = 0;
  await goTo('Widgets');
  await page.getByRole('button', { name: 'Create widget' }).click();
  await expect(page.getByRole('heading', { name: 'Create widget', level: 1 })).toBeVisible();
  await expect(page.getByText('Live: the widget as your visitors will see it.')).toBeVisible();
  const posts: string[] = [];
  const onRequest = (r: import('@playwright/test').Request) => {
    if (r.method() !== 'GET') posts.push(`${r.method()} ${new URL(r.url()).pathname}`);
  };
  page.on('request', onRequest);
  try {
    await page.getByRole('button', { name: 'Save' }).click();
    const name = page.getByLabel('Widget name');
    await expect(page.getByRole('alert').filter({ hasText: 'The widget was not saved' })).toBeVisible();
    await expect(page.locator('#w-name-error')).toHaveText('Widget name must not be empty.');
    await expect(name).toHaveAttribute('aria-invalid', 'true');
    await expect(name).toBeFocused();
    await expect(page.getByText('Name of what is reviewed must not be empty')).toHaveCount(0);
    await expect(page.getByLabel('Name of what is reviewed')).not.toHaveAttribute('aria-invalid', 'true');
    await expectNoAxeViolations(page, 'the builder refusing a widget without a name');
    await screenshots(page, 'builder-no-name');

    // A value the server refuses: said at once under its field; the preview keeps the last valid widget, no request is sent.
    const reviews = page.getByLabel('Reviews shown');
    await reviews.fill('0');
    await expect(page.locator('#w-max-reviews-error')).toHaveText('Reviews shown must be an integer from 1 to 50.');
    await expect(reviews).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByText('Showing the last valid settings')).toBeVisible();
    await page.getByLabel('Page address').fill('http://shop.example/');
    await expect(page.locator('#w-subject-url-error')).toHaveText('Page address must be an https URL.');
    await page.getByRole('button', { name: 'Save' }).click();
    // The first field with a problem, in the form's order, is focused.
    await expect(page.getByLabel('Widget name')).toBeFocused();
    expect(posts.filter((p) => p !== 'POST /dashboard/api/widgets/preview')).toEqual([]);

    // Fixed: previewed and saved.
    await page.getByLabel('Widget name').fill('Footer badge');
    await reviews.fill('6');
    await page.getByLabel('Page address').fill('https://shop.example/');
    await expect(page.getByText('Live: the widget as your visitors will see it.')).toBeVisible();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText(/^Saved at /)).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Widget “Footer badge”', level: 1 })).toBeVisible();

    // A saved widget whose name is cleared: the same, never the subject's name.
    await page.getByLabel('Widget name').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.locator('#w-name-error')).toHaveText('Widget name must not be empty.');
    await expect(page.getByLabel('Widget name')).toBeFocused();
    await expect(page.getByText('Name of what is reviewed must not be empty')).toHaveCount(0);
    expect(posts.filter((p) => p.startsWith('PATCH'))).toEqual([]);
  } finally {
    page.off('request', onRequest);
  }
  expect(problems).toEqual([]);
});

test('builder: Save stays in view at 1280 and 390 px, and never covers the field being edited', async () => {
  problems.length = 0;
  await goTo('Widgets');
  await page.getByRole('button', { name: 'Create widget' }).click();
  await expect(page.getByRole('heading', { name: 'Create widget', level: 1 })).toBeVisible();
  const save = page.getByRole('button', { name: 'Save' });
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.evaluate(() => window.scrollTo(0, 0));
    // The form is far taller than the window: Save is on screen all the same, at the top and deep in the form.
    expect(await page.evaluate(() => document.querySelector('.builder-form')!.getBoundingClientRect().height)).toBeGreaterThan(height);
    await expect(save).toBeInViewport({ ratio: 1 });
    const theme = page.getByLabel('Theme');
    await theme.focus();
    await expect(save).toBeInViewport({ ratio: 1 });
    // A field reached with the keyboard is above the bar, not under it.
    for (const field of ['Minimum stars', 'Widget language', 'Page address', 'Brand']) {
      const control = page.getByLabel(field, { exact: true });
      await control.focus();
      await expect(control).toBeInViewport({ ratio: 1 });
      await expect
        .poll(async () => {
          const [c, s] = await Promise.all([control.boundingBox(), page.locator('.builder-form .form-actions').boundingBox()]);
          return c!.y + c!.height <= s!.y + 0.5;
        }, { message: `${field} at ${width} px is above the Save bar` })
        .toBe(true);
    }
    await expect(save).toBeInViewport({ ratio: 1 });
    await expectNoAxeViolations(page, `the builder at ${width} px`);
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 600));
  await page.screenshot({ path: join(SHOTS_DIR, 'builder-save-bar-390.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.evaluate(() => window.scrollTo(0, 600));
  await page.screenshot({ path: join(SHOTS_DIR, 'builder-save-bar-1280.png') });
  expect(problems).toEqual([]);
});

test('builder: a minimum of stars is said in the widget itself (“N hidden by the owner”); Any is the default', async () => {
  problems.length = 0;
  await goTo('Widgets');
  await page.getByRole('button', { name: 'Create widget' }).click();
  await expect(page.getByRole('heading', { name: 'Create widget', level: 1 })).toBeVisible();
  const minimum = page.getByLabel('Minimum stars');
  await expect(minimum).toHaveValue('');
  const previewText = () => page.locator('#widget-preview').evaluate((el) => el.shadowRoot?.textContent ?? '');
  await expect.poll(previewText).toMatch(/\d reviews/);
  expect(await previewText()).not.toContain('hidden by the owner');
  await minimum.selectOption('4');
  await expect.poll(previewText).toMatch(/\d+ reviews · \d+ hidden by the owner/);
  expect(problems).toEqual([]);
});
