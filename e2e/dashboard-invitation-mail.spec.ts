/**
 * Invitations by mail in the browser (SMTP_URL set): the inviter sees "Sent
 * to …" and no link; a real SMTP server on loopback (smtp-server) receives
 * the mail, and the link in it, opened in another browser, signs the new
 * person in. axe on the "Invitation sent" dialog; photographed at 1280 and 390 px.
 */
import type { AddressInfo } from 'node:net';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { SMTPServer } from 'smtp-server';
import { expectNoAxeViolations, ownerPassword, screenshots, signIn } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

let service: RealService;
let smtp: SMTPServer;
let owner: BrowserContext;
let page: Page;
const inbox: string[] = [];

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  service = await startRealService({ env: { SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}` } });
  owner = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'Europe/Paris', viewport: { width: 1280, height: 800 } });
  page = await owner.newPage();
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
});

test.afterAll(async () => {
  await owner?.close();
  await service?.stop();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
});

test('the inviter sees where the mail went, never the link; the link in the mail signs the new person in', async ({ browser }) => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members' }).click();
  await page.getByRole('button', { name: 'Invite member' }).click();
  const dialog = page.getByRole('dialog', { name: 'Invite member' });
  await dialog.getByLabel('Email').fill('mailed.person@example.com');
  await dialog.getByRole('button', { name: 'Create invitation link' }).click();
  const sent = page.getByRole('dialog', { name: 'Invitation sent' });
  await expect(sent).toContainText('Sent to mailed.person@example.com');
  await expect(page.getByRole('textbox', { name: 'Invitation link' })).toHaveCount(0);
  expect(await page.content()).not.toContain('/dashboard/invitation#');
  await expectNoAxeViolations(page, 'the Invitation sent dialog');
  await screenshots(page, 'members-invitation-sent');
  await sent.getByRole('button', { name: 'Done' }).click();

  expect(inbox).toHaveLength(1);
  const link = /https:\/\/\S+\/dashboard\/invitation#[A-Za-z0-9_-]{43}/.exec(inbox[0]!.replace(/=\r?\n/g, ''))![0];
  const guest = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US' });
  try {
    const p = await guest.newPage();
    await p.goto(link);
    await expect(p.getByText('Join Acme Coffee Roasters as Member')).toBeVisible();
    await p.getByLabel('Password').fill('a brand new long password');
    await p.getByRole('button', { name: 'Accept and sign in' }).click();
    await expect(p.getByRole('heading', { name: 'Overview' })).toBeVisible();
    // One organization: no switcher.
    await expect(p.getByRole('combobox', { name: 'Organization' })).toHaveCount(0);
  } finally {
    await guest.close();
  }
});
