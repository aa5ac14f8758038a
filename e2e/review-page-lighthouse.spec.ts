/**
 * The review page's Lighthouse accessibility and best-practices scores (CONTRACT
 * §13, recorded in docs/collect.md), as a test rather than a hand measurement: Lighthouse (the
 * `lighthouse` package, on the same Chromium) loads the page as served, in
 * English and in Arabic (right to left), with and without a product, and each
 * failing audit is named. Scores only, never timings.
 */
import { launch, type LaunchedChrome } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { expect, test } from '@playwright/test';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 240_000 });

let service: RealService;
let chrome: LaunchedChrome;
let link: string;

async function admin(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${service.admin.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${service.admin.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, path).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

test.beforeAll(async () => {
  test.setTimeout(150_000);
  service = await startRealService();
  const orgId = service.banner.orgId;
  await admin('/admin/products', { orgId, id: 'house-blend', name: 'House Blend, 1 kg beans', imageUrl: `${service.origin}/favicon.svg` });
  link = (await admin('/admin/collect/link', { orgId })).url as string;
  // The service's own certificate is made at its first start: this Chromium is told to accept it.
  chrome = await launch({
    chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--ignore-certificate-errors'],
  });
});

test.afterAll(async () => {
  chrome?.kill();
  await service?.stop();
});

test('Lighthouse accessibility and best practices 100 on the review page: English and Arabic, with and without a product', async () => {
  for (const path of ['?lang=en', '?lang=ar', '?product=house-blend&lang=en', '?product=house-blend&lang=ar']) {
    const result = await lighthouse(`${link}${path}`, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['accessibility', 'best-practices'],
      formFactor: 'mobile',
    });
    expect(result, path).toBeTruthy();
    const { categories, audits, runtimeError } = result!.lhr;
    expect(runtimeError, path).toBeUndefined();
    const category = categories.accessibility!;
    const failing = category.auditRefs
      .filter((ref) => ref.weight > 0 && audits[ref.id]?.score !== null && (audits[ref.id]?.score ?? 1) < 1)
      .map((ref) => `${ref.id}: ${audits[ref.id]?.title}`);
    expect(failing, `failing accessibility audits on ${path}`).toEqual([]);
    expect(category.score, path).toBe(1);
    const practices = categories['best-practices']!;
    const bad = practices.auditRefs.filter((ref) => ref.weight > 0 && audits[ref.id]?.score !== null && (audits[ref.id]?.score ?? 1) < 1).map((ref) => `${ref.id}: ${audits[ref.id]?.title}`);
    expect(bad, `failing best-practices audits on ${path}`).toEqual([]);
    // Lighthouse looked at the page itself, not an error page.
    expect(audits['document-title']?.score, path).toBe(1);
  }
});
