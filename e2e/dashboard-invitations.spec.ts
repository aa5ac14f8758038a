/**
 * Revoking an invitation on the Members page (issue 25 item 7): confirmed in
 * the dashboard's dialog, with the mouse and with the keyboard alone; the
 * revoked link then fails in another browser; axe finds nothing; the page is
 * photographed at 1280 and 390 px.
 */
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { expectNoAxeViolations, ownerPassword, screenshots, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

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

async function invite(email: string): Promise<string> {
  await page.getByRole('button', { name: 'Invite member' }).click();
  const dialog = page.getByRole('dialog', { name: 'Invite member' });
  await dialog.getByLabel('Email').fill(email);
  await dialog.getByRole('button', { name: 'Create invitation link' }).click();
  // The link is shown once the server has made it: wait for it, then read it.
  const field = page.getByRole('textbox', { name: 'Invitation link' });
  await expect(field).toHaveValue(/\/dashboard\/invitation#/);
  const link = await field.inputValue();
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  return link;
}

test('an invitation revoked on the Members page: confirmed, gone from the list, its link refused, audited', async ({ browser }) => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members' }).click();
  await expect(page.getByRole('heading', { name: 'Members', level: 1 })).toBeVisible();
  const link = await invite('revoke.me@example.com');
  await invite('a.very.long.address.for.a.narrow.screen@example-company.com');
  const pending = page.getByRole('region', { name: 'Open invitations' });
  await expect(pending.getByRole('listitem')).toHaveCount(2);
  await expectNoAxeViolations(page, 'Members with open invitations');
  await screenshots(page, 'members-invitations');

  await pending.getByRole('button', { name: 'Revoke the invitation for revoke.me@example.com' }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke the invitation for revoke.me@example.com?' });
  await expect(confirm.getByRole('button', { name: 'Revoke invitation' })).toBeVisible();
  await expectNoAxeViolations(page, 'the Revoke invitation dialog');
  await screenshots(page, 'members-revoke');
  await confirm.getByRole('button', { name: 'Revoke invitation' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(pending.getByRole('listitem')).toHaveCount(1);
  await expect(pending).not.toContainText('revoke.me@example.com');

  const guest = await newContext(browser);
  try {
    const other = await guest.newPage();
    await other.goto(link);
    await expect(other.getByRole('alert')).toContainText('This invitation link is not valid');
  } finally {
    await guest.close();
  }

  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'Revoked invitation' }).filter({ hasText: 'revoke.me@example.com' })).toHaveCount(1);
});

test('revoking works with the keyboard alone, and Cancel keeps the invitation', async () => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members' }).click();
  const pending = page.getByRole('region', { name: 'Open invitations' });
  await expect(pending.getByRole('listitem')).toHaveCount(1);
  const revoke = pending.getByRole('button', { name: /^Revoke the invitation for a\.very\.long/ });
  await revoke.focus();
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('dialog', { name: /^Revoke the invitation for/ });
  await expect(confirm).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(revoke).toBeFocused();
  await expect(pending.getByRole('listitem')).toHaveCount(1);

  await page.keyboard.press('Enter');
  await expect(confirm).toBeVisible();
  const confirmButton = confirm.getByRole('button', { name: 'Revoke invitation' });
  for (let i = 0; i < 6 && !(await confirmButton.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(confirmButton).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Open invitations' })).toHaveCount(0);
  await expect(page.getByRole('status')).toContainText('was revoked');
});
