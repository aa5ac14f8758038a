/**
 * Helpers for the dashboard specs: the demo owner's password from the first
 * start's banner, sign-in by role and name, axe on the page as it stands, and
 * screenshots at 1280 and 390 px kept under test-results/dashboard/ (outside
 * Playwright's output folder, which each run empties).
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SHOTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-results', 'dashboard');

export function ownerPassword(bannerText: string): string {
  const match = /Demo owner:\s+owner@demo\.example\s+password (\S+)/.exec(bannerText);
  if (!match) throw new Error(`the banner shows no demo owner password:\n${bannerText}`);
  return match[1]!;
}

/**
 * Signs in through the form and returns once the server has answered it. The
 * answer waits on the password hash, which takes seconds on a loaded machine:
 * waiting for it here (a condition, not a time) keeps that wait out of the
 * caller's next expectation, which is about the page (CI failed on a machine
 * under a load of 20: the page was still signing in when the Overview's
 * heading was looked for).
 */
export async function signIn(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(`${origin}/dashboard/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/dashboard/api/sign-in');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await answered;
}

/**
 * Zero axe violations (WCAG 2.x A and AA rules, and axe's best practices) on what is on screen now.
 * A frame sandboxed without scripts (the Collect page's mail preview) is left out: axe cannot run in
 * it, and its run would wait for that frame until the test times out; such a frame's document is
 * checked on a page of its own (e2e/collect-invitations.spec.ts).
 */
export async function expectNoAxeViolations(page: Page, what: string): Promise<void> {
  const result = await new AxeBuilder({ page }).exclude('iframe[sandbox]:not([sandbox~="allow-scripts"])').analyze();
  const summary = result.violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(' ')).join('\n    ')}`);
  expect(summary, `axe violations on ${what}`).toEqual([]);
  expect(result.passes.length, `axe ran its rules on ${what}`).toBeGreaterThan(10);
}

/** The page at 1280 and at 390 px wide, full height; then back to 1280. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    await page.screenshot({ path: join(SHOTS_DIR, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}
