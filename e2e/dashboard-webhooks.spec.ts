/**
 * The Webhooks page end to end, in Chromium against the real service over
 * HTTPS, with a real HTTPS receiver on loopback (api/webhooks/test-receiver:
 * its certificate trusted by the service through NODE_EXTRA_CA_CERTS, loopback
 * let in through WEBHOOK_ALLOW_NETWORKS) that verifies every delivery with the
 * `standardwebhooks` package and the secret the page showed: Add endpoint from
 * the keyboard (an http: and a private address refused beside the field), the
 * secret once with Copy, Send test event, the delivery log, Replay, Rotate
 * secret (both signatures for 24 h), Disable/Enable, an endpoint the service
 * disabled after a 410 with its notice, Remove with the confirmation from the
 * keyboard; a Member has no link and gets 403; axe on every state; no
 * sideways scrolling at 390 px; screenshots at 1280 and 390 px under
 * test-results/dashboard/, and docs/images/webhooks.png.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { flatHeaders, startReceiver, testCert, type Receiver, type TestCert } from '../api/webhooks/test-receiver.ts';
import { expectNoAxeViolations, ownerPassword, screenshots, signIn } from './support/dashboard.ts';
import { docsPicture } from './support/docs-picture.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

const MEMBER_PASSWORD = 'member password long enough';

let service: RealService;
let cert: TestCert;
let receiver: Receiver;
let gone: Receiver;
let caDir: string;
let context: BrowserContext;
let page: Page;
/** The secrets the page showed, newest last: the receiver verifies with them. */
const secrets: string[] = [];
/** Deliveries the receiver verified: webhook-id, type, and how many signatures came with it. */
const verified: { id: string; type: string; signatures: number }[] = [];
let refused = 0;

const nav = (p: Page) => p.getByRole('navigation', { name: 'Dashboard' });
const notice = (p: Page, text: string | RegExp) => p.getByRole('main').locator('.notice', { hasText: text });
const logRow = (p: Page, text: string) => p.getByRole('region', { name: 'Delivery log' }).getByRole('row').filter({ hasText: text });

/** At 390 px nothing scrolls sideways: the page, and each table (shown as cards). */
async function fitsAt390(p: Page, what: string): Promise<void> {
  await p.setViewportSize({ width: 390, height: 844 });
  const overflow = await p.evaluate(() => [document.documentElement, ...document.querySelectorAll('.table-wrap')].filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.className || el.tagName));
  expect(overflow, `${what}: nothing scrolls sideways at 390 px`).toEqual([]);
  await p.setViewportSize({ width: 1280, height: 800 });
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  cert = await testCert();
  receiver = await startReceiver(cert, (req, res, body) => {
    const headers = flatHeaders(req.headers);
    const secret = [...secrets].reverse().find((s) => {
      try {
        new Webhook(s).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    });
    if (!secret) {
      refused++;
      res.writeHead(401, { 'content-type': 'text/plain' }).end('signature not verified');
      return;
    }
    verified.push({ id: headers['webhook-id']!, type: (JSON.parse(body) as { type: string }).type, signatures: headers['webhook-signature']!.split(' ').length });
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  gone = await startReceiver(cert, (_req, res) => res.writeHead(410, { 'content-type': 'text/plain' }).end('gone'));
  caDir = mkdtempSync(join(tmpdir(), 'webhooks-e2e-ca-'));
  writeFileSync(join(caDir, 'receiver.pem'), cert.cert);
  service = await startRealService({ env: { NODE_EXTRA_CA_CERTS: join(caDir, 'receiver.pem'), WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '200' } });
  context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.origin });
  page = await context.newPage();
});

test.afterAll(async () => {
  await context?.close();
  await service?.stop();
  await receiver?.close();
  await gone?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

test('adds an endpoint from the keyboard: server errors beside the URL field, then the secret once with Copy', async () => {
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await nav(page).getByRole('link', { name: 'Webhooks', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
  await expect(page.getByText('No endpoint yet.')).toBeVisible();
  await expectNoAxeViolations(page, 'Webhooks, empty');
  await screenshots(page, 'webhooks-empty');

  // Keyboard only: open, Escape cancels (focus back on the button), open again.
  const add = page.getByRole('button', { name: 'Add endpoint' });
  await add.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Add endpoint' });
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(add).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  const url = dialog.getByRole('textbox', { name: 'URL' });
  await expect(url).toBeFocused();
  await expect(dialog.getByRole('checkbox')).toHaveCount(5);
  // reply.failed is offered, unchecked like the API's default subscription; the others are checked.
  await expect(dialog.getByRole('checkbox', { name: /reply\.failed/ })).not.toBeChecked();
  await expect(dialog.getByRole('checkbox', { name: /reply\.failed/ })).toHaveAccessibleName(/A reply could not be posted on its platform/);
  await expect(dialog.getByRole('checkbox', { name: /review\.removed/ })).toBeChecked();
  await expectNoAxeViolations(page, 'Add endpoint dialog');

  // http: refused by the server, the reason beside the field, focus back on it.
  await page.keyboard.type(receiver.url().replace('https:', 'http:'));
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('textbox', { name: 'Description (optional)' })).toBeFocused();
  await page.keyboard.type('CRM sync');
  await page.keyboard.press('Enter');
  await expect(dialog.locator('.field-error')).toHaveText(/^The URL must start with https:\/\/ \(got http:\/\/\)/);
  await expect(url).toBeFocused();
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  await expect(url).toHaveAccessibleDescription(/must start with https:\/\//);
  await expectNoAxeViolations(page, 'Add endpoint dialog, http: refused');
  await screenshots(page, 'webhooks-add-error');

  // A private address (not in WEBHOOK_ALLOW_NETWORKS): refused too.
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('https://10.1.2.3/hook');
  await page.keyboard.press('Enter');
  await expect(dialog.locator('.field-error')).toHaveText(/10\.1\.2\.3 .*private networks/);

  // The receiver's own address; leave out source.state_changed and take reply.failed with Space; submit from the keyboard.
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(receiver.url());
  for (let i = 0; i < 5; i++) await page.keyboard.press('Tab');
  await expect(dialog.getByRole('checkbox', { name: /source\.state_changed/ })).toBeFocused();
  await page.keyboard.press('Space');
  await expect(dialog.getByRole('checkbox', { name: /source\.state_changed/ })).not.toBeChecked();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('checkbox', { name: /reply\.failed/ })).toBeFocused();
  await page.keyboard.press('Space');
  await expect(dialog.getByRole('checkbox', { name: /reply\.failed/ })).toBeChecked();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Add endpoint' })).toBeFocused();
  await page.keyboard.press('Enter');

  const shown = page.getByRole('dialog', { name: 'Endpoint added' });
  await expect(shown).toBeVisible();
  const field = shown.getByRole('textbox', { name: 'Signing secret' });
  await expect(field).toBeFocused();
  const secret = await field.inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  secrets.push(secret);
  await expect(shown.getByText('It will not be shown again.')).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(shown.getByRole('button', { name: 'Copy' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(shown.getByText('Copied to the clipboard.')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await expectNoAxeViolations(page, 'Endpoint added, the secret');
  await screenshots(page, 'webhooks-secret');
  await page.keyboard.press('Tab');
  await expect(shown.getByRole('button', { name: 'Done' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(shown).toBeHidden();

  await expect(notice(page, 'CRM sync added.')).toBeVisible();
  const row = page.getByRole('region', { name: 'Endpoints' }).getByRole('row').filter({ hasText: 'CRM sync' });
  await expect(row.getByRole('link', { name: receiver.url() })).toBeVisible();
  await expect(row).toContainText('review.created, review.updated, review.removed, reply.failed');
  await expect(row).not.toContainText('source.state_changed');
  await expect(row).toContainText('Enabled');
  await expect(row).toContainText('None yet');
  expect(await page.content()).not.toContain(secret.slice(6));
  await expectNoAxeViolations(page, 'Webhooks, one endpoint');
  await screenshots(page, 'webhooks-list');
  await fitsAt390(page, 'Webhooks list');
  // Reloaded: the secret is nowhere.
  await page.reload();
  await expect(row).toBeVisible();
  expect(await page.content()).not.toContain(secret.slice(6));
});

test('sends a test event the receiver verifies, shows it in the delivery log, replays it, rotates the secret, disables and enables', async () => {
  await page.goto(`${service.origin}/dashboard/webhooks`);
  await page.getByRole('link', { name: receiver.url() }).click();
  await expect(page.getByRole('heading', { name: 'Webhook endpoint', level: 1 })).toBeVisible();
  await expect(page.getByText('Nothing sent yet.')).toBeVisible();
  await expectNoAxeViolations(page, 'Endpoint, nothing sent');

  await page.getByRole('button', { name: 'Send test event' }).click();
  await expect(notice(page, 'Test event delivered: the endpoint answered 200.')).toBeVisible();
  expect(verified.map((v) => v.type)).toEqual(['webhook.test']);
  const messageId = verified[0]!.id;
  const row = logRow(page, messageId);
  await expect(row).toContainText('webhook.test');
  await expect(row).toContainText('Delivered');
  await expect(row.getByRole('cell').nth(2)).toHaveText('1', { useInnerText: true });
  await expect(row.getByRole('cell').nth(3)).toHaveText('200', { useInnerText: true });
  // The endpoint's view has its own address: a reload (or a shared link) lands on it.
  expect(new URL(page.url()).pathname).toMatch(/^\/dashboard\/webhooks\/wh_[A-Za-z0-9]+$/);
  await page.reload();
  await expect(logRow(page, messageId)).toContainText('Delivered');
  await expectNoAxeViolations(page, 'Endpoint, test delivered');
  await screenshots(page, 'webhooks-detail');
  await fitsAt390(page, 'Endpoint detail');

  // Replay: the same webhook-id again, verified again.
  await row.getByRole('button', { name: `Replay webhook.test ${messageId}` }).click();
  await expect(notice(page, 'is sent again, under the same webhook-id')).toBeVisible();
  await expect.poll(() => verified.filter((v) => v.id === messageId).length).toBe(2);
  await expect(row).toContainText('Delivered');

  // Rotate: confirm, the new secret once; the next delivery carries both signatures.
  await page.getByRole('button', { name: 'Rotate secret' }).click();
  const confirm = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
  await expect(confirm).toBeVisible();
  await expectNoAxeViolations(page, 'Rotate secret dialog');
  await screenshots(page, 'webhooks-rotate');
  await confirm.getByRole('button', { name: 'Rotate secret' }).click();
  const rotated = page.getByRole('dialog', { name: 'Secret rotated' });
  // The dialog opens once the rotation has answered: wait for the secret, then read it.
  const nextField = rotated.getByRole('textbox', { name: 'New signing secret' });
  await expect(nextField).toHaveValue(/^whsec_/);
  const next = await nextField.inputValue();
  expect(next).not.toBe(secrets[0]);
  await expectNoAxeViolations(page, 'Secret rotated, the new secret');
  await screenshots(page, 'webhooks-rotated');
  await rotated.getByRole('button', { name: 'Done' }).click();
  await expect(rotated).toBeHidden();
  expect(await page.content()).not.toContain(next.slice(6));
  // Only the new secret verifies at the receiver from now on; the delivery carries both signatures.
  secrets.length = 0;
  secrets.push(next);
  await page.getByRole('button', { name: 'Send test event' }).click();
  await expect(notice(page, 'Test event delivered')).toBeVisible();
  expect(verified.at(-1)).toMatchObject({ type: 'webhook.test', signatures: 2 });
  expect(refused).toBe(0);

  await page.getByRole('button', { name: 'Disable' }).click();
  await expect(notice(page, 'Endpoint disabled')).toBeVisible();
  await expect(page.locator('.facts')).toContainText('Disabled');
  await expect(notice(page, 'This endpoint is disabled')).toBeVisible();
  await expectNoAxeViolations(page, 'Endpoint, disabled by a person');
  await page.getByRole('button', { name: 'Enable' }).click();
  await expect(notice(page, 'Endpoint enabled')).toBeVisible();
  await expect(page.locator('.facts')).toContainText('Enabled');

  // Every change is in the audit log, by the Owner.
  await nav(page).getByRole('link', { name: 'Audit log' }).click();
  const audit = page.getByRole('region', { name: 'Audit log' });
  for (const action of ['Added webhook endpoint', 'Sent webhook test event', 'Replayed webhook message', 'Rotated webhook secret', 'Disabled webhook endpoint', 'Enabled webhook endpoint']) {
    await expect(audit.getByRole('row').filter({ hasText: action }).filter({ hasText: 'owner@demo.example' }).first()).toBeVisible();
  }
});

test('an endpoint that answers 410 is disabled by the service, with a notice saying why; Remove with the confirmation, from the keyboard', async () => {
  await page.goto(`${service.origin}/dashboard/webhooks`);
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add endpoint' });
  await dialog.getByRole('textbox', { name: 'URL' }).fill(gone.url());
  await dialog.getByRole('textbox', { name: 'Description (optional)' }).fill('Old CRM');
  await dialog.getByRole('button', { name: 'Add endpoint' }).click();
  await page.getByRole('dialog', { name: 'Endpoint added' }).getByRole('button', { name: 'Done' }).click();
  await page.getByRole('link', { name: gone.url() }).click();
  await page.getByRole('button', { name: 'Send test event' }).click();
  await expect(notice(page, 'The test event was not delivered: the endpoint answered 410.')).toBeVisible();
  await expect(notice(page, 'The service disabled this endpoint: it answered 410 Gone')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Enable' })).toBeVisible();
  await expect(logRow(page, 'webhook.test')).toContainText('410');
  await expectNoAxeViolations(page, 'Endpoint disabled by the service');
  await screenshots(page, 'webhooks-disabled-detail');

  await page.getByRole('link', { name: '← Webhooks' }).click();
  await expect(notice(page, 'The service disabled Old CRM: it answered 410 Gone')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Endpoints' }).getByRole('row').filter({ hasText: 'Old CRM' })).toContainText('Disabled');
  await expectNoAxeViolations(page, 'Webhooks, one disabled by the service');
  await screenshots(page, 'webhooks-disabled-list');
  // docs/webhooks.md's picture (1280 × 800, the top of the page). The receivers' loopback addresses change on
  // every run: written as the docs write endpoints, so that the picture changes only with the product.
  const renamed: [string, string][] = [
    [receiver.url(), 'https://crm.example.com/webhooks/reviews'],
    [gone.url(), 'https://old-crm.example.com/hooks'],
  ];
  await page.evaluate((pairs) => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) for (const [from, to] of pairs) n.textContent = n.textContent!.replaceAll(from, to);
  }, renamed);
  await page.evaluate(() => document.fonts.ready);
  await docsPicture(page, join(import.meta.dirname, '..', 'docs', 'images', 'webhooks.png'));
  await page.reload();
  await expect(page.getByRole('region', { name: 'Endpoints' }).getByRole('link', { name: gone.url() })).toBeVisible();
  await fitsAt390(page, 'Webhooks list with a disabled endpoint');

  // Remove, from the keyboard: Escape cancels (focus back), Enter again, Tab to the red button.
  await page.getByRole('region', { name: 'Endpoints' }).getByRole('link', { name: gone.url() }).click();
  const remove = page.getByRole('button', { name: 'Remove', exact: true });
  await remove.focus();
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('dialog', { name: 'Remove Old CRM?' });
  await expect(confirm).toBeVisible();
  await expectNoAxeViolations(page, 'Remove endpoint dialog');
  await screenshots(page, 'webhooks-remove');
  await page.keyboard.press('Escape');
  await expect(confirm).toBeHidden();
  await expect(remove).toBeFocused();
  // The browser may close a dialog by itself (Chrome, Escape with no user activation since it opened:
  // no cancellable `cancel`, only `close`; a fresh-clone CI run failed here): the page follows, focus returns.
  await page.keyboard.press('Enter');
  await expect(confirm).toBeVisible();
  await confirm.evaluate((d) => (d as HTMLDialogElement).close());
  // Gone from the page, not only closed: the browser gives focus back at once, but the page hears of the close in a
  // later task; an Enter before that found the dialog still open in the page's state and opened nothing (a
  // fresh-clone CI run failed here).
  await expect(confirm).toHaveCount(0);
  await expect(remove).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(confirm.getByRole('button', { name: 'Remove endpoint' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
  await expect(notice(page, 'Old CRM removed.')).toBeVisible();
  await expect(page.getByRole('link', { name: gone.url() })).toHaveCount(0);
  await expect(page.getByRole('link', { name: receiver.url() })).toBeVisible();

  // The audit log names the service (not the operator) for the 410, with its reason, and the Owner for the removal.
  await nav(page).getByRole('link', { name: 'Audit log' }).click();
  const audit = page.getByRole('region', { name: 'Audit log' });
  await expect(audit.getByRole('row').filter({ hasText: 'Disabled webhook endpoint' }).filter({ hasText: 'The service' })).toContainText('reason: the endpoint answered 410 Gone');
  await expect(audit.getByRole('row').filter({ hasText: 'Removed webhook endpoint' }).filter({ hasText: 'owner@demo.example' })).toContainText(gone.url());
});

test('a Member has no Webhooks link, is told who manages them, and the API answers 403', async ({ browser }) => {
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
  await expect(nav(member).getByRole('link', { name: 'Sources', exact: true })).toBeVisible();
  await expect(nav(member).getByRole('link', { name: 'Webhooks' })).toHaveCount(0);
  await member.goto(`${service.origin}/dashboard/webhooks`);
  await expect(member.getByText('Webhooks are managed by people with the Owner or Admin role.')).toBeVisible();
  await expect(member.getByRole('button', { name: 'Add endpoint' })).toHaveCount(0);
  const answer = await member.evaluate(async () => {
    const r = await fetch('/dashboard/api/webhooks', { headers: { accept: 'application/json' } });
    return { status: r.status, body: (await r.json()) as { error: string } };
  });
  expect(answer).toEqual({ status: 403, body: expect.objectContaining({ error: 'forbidden_role' }) });
  await expectNoAxeViolations(member, 'Webhooks, Member');
  await memberContext.close();
});
