/**
 * The dashboard end to end (CONTRACT §6), in Debian's Chromium against the
 * real service over HTTPS (`api/main.ts` on a fresh DATA_DIR): sign-in, the
 * whole API Keys flow with the key used against /api/v1 and refused after
 * revocation, the keyboard-only flow, an invitation accepted in a second
 * browser context, a Member kept away from keys, sign-out, CSRF. Every page
 * and dialog passes axe; screenshots at 1280 and 390 px go to test-results/dashboard/.
 */
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { expectNoAxeViolations, ownerPassword, screenshots, signIn } from './support/dashboard.ts';
import { startHostPages, startRealService, type HostPages, type RealService } from './support/real-server.ts';

// Many pages, axe runs and screenshots per test: more than the default 30 s on a shared machine.
test.describe.configure({ mode: 'serial', timeout: 120_000 });

let service: RealService;
let host: HostPages;
let password: string;
let owner: BrowserContext;
let page: Page;

const OWNER = 'owner@demo.example';

async function apiStatus(key: string): Promise<number> {
  return (await service.get('/api/v1/reviews?limit=1', { authorization: `Bearer ${key}` })).status;
}

async function newContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({
    ignoreHTTPSErrors: true,
    locale: 'en-US',
    timezoneId: 'Europe/Paris',
    viewport: { width: 1280, height: 800 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  [service, host] = await Promise.all([startRealService(), startHostPages()]);
  password = ownerPassword(service.banner.text);
  owner = await newContext(browser);
  page = await owner.newPage();
});

test.afterAll(async () => {
  await owner?.close();
  await Promise.all([service?.stop(), host?.close()]);
});

test('sign-in refuses a wrong password and an unknown email with the same words, then signs the owner in', async () => {
  await page.goto(`${service.origin}/dashboard`);
  await expect(page).toHaveURL(/\/dashboard\/sign-in$/);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expectNoAxeViolations(page, 'sign-in');
  await screenshots(page, 'sign-in');

  const messages: string[] = [];
  for (const [email, pw] of [
    [OWNER, 'not the password at all'],
    ['nobody@demo.example', password],
  ] as const) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(pw);
    const answer = page.waitForResponse((r) => r.url().endsWith('/dashboard/api/sign-in'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect((await answer).status()).toBe(401);
    // The answer is in; the page shows it a render later: wait for the words before reading them.
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('The email or password is not correct.');
    messages.push((await alert.textContent()) ?? '');
  }
  expect(messages[0]).toContain('The email or password is not correct.');
  expect(messages[1]).toBe(messages[0]);
  await expectNoAxeViolations(page, 'sign-in with an error');

  await signIn(page, service.origin, 'Owner@Demo.Example', password);
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard\/overview$/);
  const nav = page.getByRole('navigation', { name: 'Dashboard' });
  for (const name of ['Overview', 'Reviews', 'Widgets', 'API Keys', 'Members']) await expect(nav.getByRole('link', { name, exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await expect(page.getByText('Plan: Growth')).toBeVisible();
  const cookie = (await owner.cookies()).find((c) => c.name === 'rp_session');
  expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/dashboard' });
  await expectNoAxeViolations(page, 'overview');
  await screenshots(page, 'overview');

  for (const name of ['Reviews', 'Widgets']) {
    await nav.getByRole('link', { name, exact: true }).click();
    await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
    await expect(page.getByRole('table')).toBeVisible();
    await expectNoAxeViolations(page, name);
    await screenshots(page, name.toLowerCase());
  }
});

test('API keys: create with a name and an expiration date, shown once, works, listed, revoked with confirmation, then 401', async () => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'API Keys' }).click();
  await expect(page.getByRole('heading', { name: 'API Keys', level: 1 })).toBeVisible();
  // The heading comes before the list (the table is drawn once the keys have loaded): wait for its headers.
  const headers = page.getByRole('table').getByRole('columnheader');
  await expect.poll(async () => (await headers.allTextContents()).slice(0, 6)).toEqual(['Name', 'Prefix', 'Created', 'Last used', 'Expires', 'State']);
  await expectNoAxeViolations(page, 'API Keys');
  await screenshots(page, 'api-keys');

  await page.getByRole('button', { name: 'Create API Key' }).click();
  const form = page.getByRole('dialog', { name: 'Create API key' });
  await expect(form).toBeVisible();
  await expectNoAxeViolations(page, 'the Create API key dialog');
  await screenshots(page, 'api-keys-create');
  await form.getByLabel('Name').fill('Website production');
  await form.getByLabel('Expiration date').fill('2099-12-31');
  // Off unless ticked: this key only reads reviews.
  await expect(form.getByRole('checkbox', { name: 'May send review invitations' })).not.toBeChecked();
  const created = page.waitForResponse((r) => r.url().endsWith('/dashboard/api/keys') && r.request().method() === 'POST');
  await form.getByRole('button', { name: 'Generate' }).click();
  const body = (await (await created).json()) as { key: string; expiresAt: string; prefix: string };
  // The end of 31 December in the person's time zone (Europe/Paris, UTC+1 in winter), in UTC.
  expect(body.expiresAt).toBe('2099-12-31T22:59:59.999Z');

  const shown = page.getByRole('textbox', { name: 'New API key' });
  await expect(shown).toHaveValue(body.key);
  await expect(shown).toHaveAttribute('readonly', '');
  await expect(page.getByText('It will not be shown again')).toBeVisible();
  await page.getByRole('button', { name: 'Copy' }).click();
  await expect(page.getByText('Copied to the clipboard.')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(body.key);
  await expectNoAxeViolations(page, 'the new key dialog');
  await screenshots(page, 'api-keys-new-key');

  expect(await apiStatus(body.key)).toBe(200);
  expect((await service.get('/api/v1/invitations', { authorization: `Bearer ${body.key}` })).status).toBe(403);

  await page.getByRole('button', { name: 'Done' }).click();
  await page.reload();
  await expect(page.getByRole('heading', { name: 'API Keys', level: 1 })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'New API key' })).toHaveCount(0);

  const row = page.getByRole('row').filter({ hasText: 'Website production' });
  await expect(row.getByRole('cell')).toHaveText([
    'Website production',
    `${body.prefix}…`,
    /\w{3} \d{1,2}, \d{4}/,
    /\w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2}/, // last used: a date and time, not "Never"
    'Dec 31, 2099',
    'Active',
    'Revoke',
  ]);
  // Read once the reloaded list is on the page (the row above), not before it loaded.
  expect(await page.content()).not.toContain(body.key);

  await row.getByRole('button', { name: 'Revoke' }).click();
  const confirm = page.getByRole('dialog', { name: /Revoke “Website production”/ });
  await expect(confirm).toBeVisible();
  await expectNoAxeViolations(page, 'the revoke dialog');
  await screenshots(page, 'api-keys-revoke');
  await confirm.getByRole('button', { name: 'Revoke key' }).click();
  await expect(row.getByRole('cell').nth(5)).toHaveText('Revoked');
  await expect(row.getByRole('button', { name: 'Revoke' })).toHaveCount(0);
  expect(await apiStatus(body.key)).toBe(401);
});

test('API keys: "May send review invitations" makes a key that may send invitations; the list says which keys may', async () => {
  await page.reload();
  await expect(page.getByRole('heading', { name: 'API Keys', level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Create API Key' }).click();
  const form = page.getByRole('dialog', { name: 'Create API key' });
  await form.getByLabel('Name').fill('Shop orders');
  await form.getByRole('checkbox', { name: 'May send review invitations' }).check();
  await expectNoAxeViolations(page, 'the Create API key dialog, invitations ticked');
  await screenshots(page, 'api-keys-create-invitations');
  const created = page.waitForResponse((r) => r.url().endsWith('/dashboard/api/keys') && r.request().method() === 'POST');
  await form.getByRole('button', { name: 'Generate' }).click();
  const body = (await (await created).json()) as { key: string; permissions: string[] };
  expect(body.permissions).toEqual(['reviews:read', 'invitations:write']);
  await expect(page.getByRole('dialog').getByText('Reads reviews, sends invitations')).toBeVisible();
  expect((await service.get('/api/v1/invitations', { authorization: `Bearer ${body.key}` })).status).toBe(200);
  await page.getByRole('button', { name: 'Done' }).click();
  const row = page.getByRole('row').filter({ hasText: 'Shop orders' });
  await expect(row.getByRole('cell').first()).toHaveText('Shop ordersSends review invitations');
  // Read-only keys say nothing: it is every key's default.
  await expect(page.getByRole('row').filter({ hasText: 'Website production' }).getByText('Sends review invitations')).toHaveCount(0);
  await screenshots(page, 'api-keys-permissions');
});

test('the keys flow works with the keyboard alone', async () => {
  await page.reload();
  const heading = page.getByRole('heading', { name: 'API Keys', level: 1 });
  await expect(heading).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Create API Key' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('Name')).toBeFocused();
  await page.keyboard.type('Keyboard only');
  await page.keyboard.press('Enter');
  const shown = page.getByRole('textbox', { name: 'New API key' });
  await expect(shown).toBeFocused();
  const key = await shown.inputValue();
  expect(await apiStatus(key)).toBe(200);
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Copy' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Done' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog')).toHaveCount(0);

  // To the row's Revoke button by Tab only (the newest key is the first row).
  const revoke = page.getByRole('row').filter({ hasText: 'Keyboard only' }).getByRole('button', { name: 'Revoke' });
  for (let i = 0; i < 30 && !(await revoke.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(revoke).toBeFocused();
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('dialog');
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(confirm.getByRole('button', { name: 'Revoke key' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('row').filter({ hasText: 'Keyboard only' }).getByRole('cell').nth(5)).toHaveText('Revoked');
  expect(await apiStatus(key)).toBe(401);
});

test('an invitation is accepted in a second browser context; the Member sees no keys and gets 403 from their endpoints', async ({ browser }) => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members' }).click();
  await expect(page.getByRole('heading', { name: 'Members', level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Invite member' }).click();
  const dialog = page.getByRole('dialog', { name: 'Invite member' });
  await dialog.getByLabel('Email').fill('Sam@Example.com');
  await dialog.getByLabel('Role').selectOption({ label: 'Member' });
  await expectNoAxeViolations(page, 'the Invite member dialog');
  await screenshots(page, 'members-invite');
  await dialog.getByRole('button', { name: 'Create invitation link' }).click();
  const linkField = page.getByRole('textbox', { name: 'Invitation link' });
  await expect(linkField).toHaveValue(new RegExp(`^${service.origin}/dashboard/invitation#[A-Za-z0-9_-]{40,}$`));
  const link = await linkField.inputValue();
  await expectNoAxeViolations(page, 'the invitation link dialog');
  await page.getByRole('button', { name: 'Done' }).click();

  const second = await newContext(browser);
  try {
    const member = await second.newPage();
    await member.goto(link);
    await expect(member.getByRole('heading', { name: 'Accept invitation' })).toBeVisible();
    await expect(member.getByText('Join Acme Coffee Roasters as Member')).toBeVisible();
    expect(member.url()).not.toContain('#');
    await expectNoAxeViolations(member, 'accept invitation');
    await screenshots(member, 'invitation');
    await member.getByLabel('Password').fill('correct horse battery staple');
    await member.getByRole('button', { name: 'Accept and sign in' }).click();
    await expect(member.getByRole('heading', { name: 'Overview' })).toBeVisible();

    const nav = member.getByRole('navigation', { name: 'Dashboard' });
    await expect(nav.getByRole('link', { name: 'Members' })).toBeVisible();
    await expect(nav.getByRole('link', { name: 'API Keys' })).toHaveCount(0);
    await member.goto(`${service.origin}/dashboard/api-keys`);
    await expect(member.getByRole('heading', { name: 'API Keys', level: 1 })).toBeVisible();
    await expect(member.getByText('API keys are managed by people with the Owner or Admin role')).toBeVisible();
    await expect(member.getByRole('button', { name: 'Create API Key' })).toHaveCount(0);
    await expectNoAxeViolations(member, 'API Keys as a Member');
    await screenshots(member, 'api-keys-member');

    const statuses = await member.evaluate(async () => {
      const { csrfToken } = (await (await fetch('/dashboard/api/session')).json()) as { csrfToken: string };
      const post = (path: string) => fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken }, body: JSON.stringify({ name: 'sneaky' }) });
      return {
        list: (await fetch('/dashboard/api/keys')).status,
        create: (await post('/dashboard/api/keys')).status,
        revoke: (await post('/dashboard/api/keys/key_00000000000000000000/revoke')).status,
        audit: (await fetch('/dashboard/api/audit')).status,
      };
    });
    expect(statuses).toEqual({ list: 403, create: 403, revoke: 403, audit: 403 });

  } finally {
    await second.close();
  }
  // The link was for one use: a third browser gets a clear refusal.
  const third = await newContext(browser);
  try {
    const again = await third.newPage();
    await again.goto(link);
    await expect(again.getByRole('alert')).toContainText('This invitation link is not valid');
  } finally {
    await third.close();
  }

  await page.reload();
  const row = page.getByRole('row').filter({ hasText: 'Sam@Example.com' });
  await expect(row.getByRole('combobox', { name: 'Role of Sam@Example.com' })).toHaveValue('member');
  await expectNoAxeViolations(page, 'Members');
  await screenshots(page, 'members');
  await row.getByRole('button', { name: 'Remove Sam@Example.com' }).click();
  const remove = page.getByRole('dialog', { name: 'Remove Sam@Example.com?' });
  await expect(remove.getByRole('button', { name: 'Remove member' })).toBeVisible();
  await expectNoAxeViolations(page, 'the Remove member dialog');
  await screenshots(page, 'members-remove');
  await remove.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);

  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByRole('heading', { name: 'Audit log', level: 1 })).toBeVisible();
  // The heading comes before the records: wait for the newest one before reading the rows.
  await expect(page.getByRole('row').filter({ hasText: 'Joined' })).not.toHaveCount(0);
  const actions = await page.getByRole('row').allTextContents();
  for (const expected of ['Created API key', 'Revoked API key', 'Invited member', 'Joined']) expect(actions.join('\n')).toContain(expected);
  await expectNoAxeViolations(page, 'Audit log');
  await screenshots(page, 'audit');
});

test('CSRF: a cross-origin form post and a request without the token are refused', async () => {
  const before = (await page.evaluate(async () => ((await (await fetch('/dashboard/api/keys')).json()) as { data: unknown[] }).data.length)) as number;

  const target = `${service.origin}/dashboard/api/keys`;
  const attack = host.serve(
    '/attack.html',
    `<!doctype html><title>attack</title><form id="f" method="post" action="${target}" enctype="text/plain"><input name='{"name":"evil","x":"' value='"}'></form><script>document.getElementById('f').submit()</script>`,
  );
  const refused = page.waitForResponse((r) => r.url() === target && r.request().method() === 'POST');
  await page.goto(attack);
  const answer = await refused;
  expect(answer.status()).toBe(403);
  expect(((await answer.json()) as { error: string }).error).toBe('csrf_failed');

  await page.goto(`${service.origin}/dashboard/api-keys`);
  await expect(page.getByRole('heading', { name: 'API Keys', level: 1 })).toBeVisible();
  const noToken = await page.evaluate(async () => {
    const res = await fetch('/dashboard/api/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'no token' }) });
    return { status: res.status, body: (await res.json()) as { error: string } };
  });
  expect(noToken).toEqual({ status: 403, body: expect.objectContaining({ error: 'csrf_failed' }) });
  const after = (await page.evaluate(async () => ((await (await fetch('/dashboard/api/keys')).json()) as { data: unknown[] }).data.length)) as number;
  expect(after).toBe(before);
});

test('the dashboard ignores Bearer keys and /api/v1 ignores the session cookie', async () => {
  const cookie = (await owner.cookies()).find((c) => c.name === 'rp_session')!;
  const withKey = await service.get('/dashboard/api/keys', { authorization: `Bearer ${service.banner.apiKey}` });
  expect(withKey.status).toBe(401);
  const withCookie = await service.get('/api/v1/reviews', { cookie: `rp_session=${cookie.value}` });
  expect(withCookie.status).toBe(401);
  expect((await service.get('/dashboard/api/keys', { cookie: `rp_session=${cookie.value}` })).status).toBe(200);
});

test('sign-out ends the session on the server: the old cookie is refused', async () => {
  const cookie = (await owner.cookies()).find((c) => c.name === 'rp_session')!;
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByText('You have signed out.')).toBeVisible();
  const replay = await service.get('/dashboard/api/keys', { cookie: `rp_session=${cookie.value}` });
  expect(replay.status).toBe(401);
  expect((replay.body as { error: string }).error).toBe('unauthenticated');
});
