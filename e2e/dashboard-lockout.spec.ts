/**
 * Sign-in lock-out (CONTRACT §6) on its own service: 10 failed sign-ins per
 * email or per client address in 15 minutes, then 429 with Retry-After, even
 * for the right password. (Its own service: the lock also covers this client
 * address, which every other dashboard test shares.)
 */
import { expect, test } from '@playwright/test';
import { expectNoAxeViolations, ownerPassword, screenshots } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

let service: RealService;

test.beforeAll(async () => {
  test.setTimeout(150_000);
  service = await startRealService();
});
test.afterAll(async () => service?.stop());

test('after 10 failed sign-ins the next one is refused with 429 and Retry-After, even with the right password', async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto(`${service.origin}/dashboard/sign-in`);
  const email = page.getByLabel('Email');
  const password = page.getByLabel('Password');
  const submit = page.getByRole('button', { name: 'Sign in' });
  const attempt = async (pw: string) => {
    await email.fill('owner@demo.example');
    await password.fill(pw);
    const answer = page.waitForResponse((r) => r.url().endsWith('/dashboard/api/sign-in'));
    await submit.click();
    return answer;
  };
  for (let i = 1; i <= 10; i++) {
    const answer = await attempt(`wrong password number ${i}`);
    expect(answer.status(), `attempt ${i}`).toBe(401);
    await expect(page.getByRole('alert')).toHaveText('The email or password is not correct.');
  }
  const locked = await attempt(ownerPassword(service.banner.text));
  expect(locked.status()).toBe(429);
  const retryAfter = Number(await locked.headerValue('retry-after'));
  expect(retryAfter).toBeGreaterThan(14 * 60);
  expect(retryAfter).toBeLessThanOrEqual(15 * 60);
  await expect(page.getByRole('alert')).toHaveText('Too many attempts. Try again in 15 minutes.');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expectNoAxeViolations(page, 'sign-in, locked');
  await screenshots(page, 'sign-in-locked');
});
