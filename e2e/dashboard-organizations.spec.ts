/**
 * One person, several organizations (issue 25 item 6): someone who already
 * has an account in a second organization is invited to the demo one on the
 * Members page; they accept by signing in with their own password (a wrong
 * one is refused first), switch organizations with the header's switcher
 * using the keyboard alone, and see each organization's data only. axe on
 * the accept page and on the switcher; the header with the switcher is
 * photographed at 1280 and 390 px.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { expectNoAxeViolations, ownerPassword, SHOTS_DIR, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

const AGENCY_EMAIL = 'agency.person@example.com';
const AGENCY_PASSWORD = 'the agency person’s own password';
const SECOND_ORG = 'Bright Bakery Group';

let service: RealService;
let owner: BrowserContext;
let agency: BrowserContext;
let page: Page;
let secondOrgId: string;

const newContext = (browser: Browser): Promise<BrowserContext> =>
  browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'Europe/Paris', viewport: { width: 1280, height: 800 } });

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
  // The second organization, with the person already in it (their own account and password) and a widget of its own.
  secondOrgId = (await admin('POST', '/admin/orgs', { name: SECOND_ORG, plan: 'growth' })).id as string;
  await admin('POST', '/admin/users', { orgId: secondOrgId, email: AGENCY_EMAIL, role: 'owner', password: AGENCY_PASSWORD });
  await admin('POST', '/admin/widgets', { orgId: secondOrgId, name: 'Bakery wall of love' });
  owner = await newContext(browser);
  page = await owner.newPage();
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
});

test.afterAll(async () => {
  await agency?.close();
  await owner?.close();
  await service?.stop();
});

async function headerShots(p: Page, name: string): Promise<void> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  for (const width of [1280, 390]) {
    await p.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    await p.locator('header.topbar').screenshot({ path: join(SHOTS_DIR, `${name}-header-${width}.png`) });
    await p.screenshot({ path: join(SHOTS_DIR, `${name}-${width}.png`) });
  }
  await p.setViewportSize({ width: 1280, height: 800 });
}

const widgetNames = async (p: Page): Promise<string> => {
  await p.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Widgets' }).click();
  await expect(p.getByRole('heading', { name: 'Widgets', level: 1 })).toBeVisible();
  await expect(p.getByRole('table').or(p.getByText('No widgets'))).toBeVisible();
  return (await p.locator('main').innerText()).replace(/\s+/g, ' ');
};

test('a person with an account elsewhere accepts by signing in, then switches organizations and sees each one’s data only', async ({ browser }) => {
  // The demo Owner invites them: the link is shown (no SMTP_URL here).
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members' }).click();
  await page.getByRole('button', { name: 'Invite member' }).click();
  const dialog = page.getByRole('dialog', { name: 'Invite member' });
  await dialog.getByLabel('Email').fill(AGENCY_EMAIL);
  await dialog.getByLabel('Role').selectOption('admin');
  await dialog.getByRole('button', { name: 'Create invitation link' }).click();
  // The link is shown once the server has made it: wait for it, then read it.
  const field = page.getByRole('textbox', { name: 'Invitation link' });
  await expect(field).toHaveValue(/\/dashboard\/invitation#/);
  const link = await field.inputValue();
  await page.getByRole('button', { name: 'Done' }).click();

  agency = await newContext(browser);
  const p = await agency.newPage();
  await p.goto(link);
  await expect(p.getByRole('heading', { name: 'Accept invitation' })).toBeVisible();
  await expect(p.getByText('Join Acme Coffee Roasters as Admin')).toBeVisible();
  // The page says nothing about whether this email has an account: the same one password field for everyone.
  await expect(p.getByText('Already use Review Proof with this email? Enter that password')).toBeVisible();
  await expectNoAxeViolations(p, 'the accept invitation page');
  mkdirSync(SHOTS_DIR, { recursive: true });
  for (const width of [1280, 390]) {
    await p.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    await p.screenshot({ path: join(SHOTS_DIR, `invitation-accept-${width}.png`), fullPage: true });
  }
  await p.setViewportSize({ width: 1280, height: 800 });

  // Not their password: refused, nothing joined.
  await p.getByLabel('Password').fill('somebody else’s guess');
  await p.getByRole('button', { name: 'Accept and sign in' }).click();
  await expect(p.getByRole('alert')).toContainText('that is not its password');
  // Their own password: signed in, a member of the demo organization now, as Admin.
  await p.getByLabel('Password').fill(AGENCY_PASSWORD);
  await p.getByRole('button', { name: 'Accept and sign in' }).click();
  await expect(p.getByRole('heading', { name: 'Overview' })).toBeVisible();
  const switcher = p.getByRole('combobox', { name: 'Organization' });
  await expect(switcher).toBeVisible();
  await expect(switcher.locator('option:checked')).toHaveText('Acme Coffee Roasters (Admin)');
  await expect(p.locator('header')).toContainText(`${AGENCY_EMAIL} · Admin`);
  await expectNoAxeViolations(p, 'the header with the organization switcher');
  await headerShots(p, 'organization-switcher');

  // The demo organization's widgets, not the bakery's.
  let text = await widgetNames(p);
  expect(text).toContain('Demo carousel');
  expect(text).not.toContain('Bakery wall of love');

  // Switching with the keyboard alone: focus the select, choose by typing the name's first letter, Tab to Switch, Enter.
  await switcher.focus();
  await p.keyboard.press('b');
  await expect(switcher).toHaveValue(secondOrgId);
  // Choosing switches nothing by itself.
  await expect(p.locator('header')).toContainText(`${AGENCY_EMAIL} · Admin`);
  await p.keyboard.press('Tab');
  await expect(p.getByRole('button', { name: 'Switch' })).toBeFocused();
  await p.keyboard.press('Enter');
  await expect(p.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(p.getByRole('combobox', { name: 'Organization' }).locator('option:checked')).toHaveText(`${SECOND_ORG} (Owner)`);
  await expect(p.locator('header')).toContainText(`${AGENCY_EMAIL} · Owner`);
  await expectNoAxeViolations(p, 'the header after switching');
  await headerShots(p, 'organization-switched');

  text = await widgetNames(p);
  expect(text).toContain('Bakery wall of love');
  expect(text).not.toContain('Demo carousel');
  await p.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members' }).click();
  await expect(p.getByRole('heading', { name: 'Members', level: 1 })).toBeVisible();
  await expect(p.getByRole('table')).toContainText(AGENCY_EMAIL);
  await expect(p.getByRole('table')).not.toContainText('owner@demo.example');

  // The demo Owner removes them from the demo organization: the bakery keeps them, the switcher goes.
  await page.reload();
  await expect(page.getByRole('table')).toContainText(AGENCY_EMAIL);
  await page.getByRole('row').filter({ hasText: AGENCY_EMAIL }).getByRole('button', { name: /Remove/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove member' }).click();
  await expect(page.getByRole('table')).not.toContainText(AGENCY_EMAIL);
  await p.reload();
  await expect(p.getByRole('heading', { name: 'Members', level: 1 })).toBeVisible();
  await expect(p.getByRole('combobox', { name: 'Organization' })).toHaveCount(0);
  await expect(p.locator('header')).toContainText(SECOND_ORG);
});
