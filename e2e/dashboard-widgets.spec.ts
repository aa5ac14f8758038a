/**
 * The dashboard's widget builder end to end (CONTRACT §7), in Debian's
 * Chromium against the real service over HTTPS: the list, a new widget whose
 * layout, theme and accent change the live preview (read from inside the
 * preview's shadow root, the latency measured from the input event to the
 * preview's DOM update), validation errors, Save and reload, Copy snippet
 * pasted into a blank host page that renders the saved options, a Member who
 * can look but not save, axe on every state, screenshots at 1280 and 390 px
 * under test-results/dashboard/.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectNoAxeViolations, ownerPassword, screenshots, SHOTS_DIR, signIn } from './support/dashboard.ts';
import { startHostPages, startRealService, type HostPages, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

let service: RealService;
let host: HostPages;
let owner: BrowserContext;
let page: Page;
let widgetId = '';
const latencies: { change: string; ms: number; how: string }[] = [];

/** What the preview's widget shows, read inside its shadow root. */
async function previewLook(p: Page): Promise<{ classes: string; accent: string; background: string; seq: string }> {
  return p.locator('#widget-preview').evaluate((el) => {
    const rv = el.shadowRoot?.querySelector<HTMLElement>('.rv');
    if (!rv) return { classes: '', accent: '', background: '', seq: '' };
    const style = getComputedStyle(rv);
    return { classes: rv.className, accent: rv.style.getPropertyValue('--a').trim(), background: style.backgroundColor, seq: (el as HTMLElement).dataset.previewSeq ?? '' };
  });
}

/** The page's own measure (performance mark at the input event → the widget re-rendered), the latest one. */
async function lastMeasure(p: Page): Promise<number> {
  return p.evaluate(() => {
    const all = performance.getEntriesByName('rp:preview');
    return all.length ? all[all.length - 1]!.duration : -1;
  });
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(150_000);
  [service, host] = await Promise.all([startRealService(), startHostPages()]);
  owner = await browser.newContext({
    ignoreHTTPSErrors: true,
    locale: 'en-US',
    timezoneId: 'Europe/Paris',
    viewport: { width: 1280, height: 800 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  page = await owner.newPage();
  await signIn(page, service.origin, 'owner@demo.example', ownerPassword(service.banner.text));
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
});

test.afterAll(async () => {
  mkdirSync(SHOTS_DIR, { recursive: true });
  if (latencies.length) writeFileSync(join(SHOTS_DIR, 'preview-latency.json'), JSON.stringify(latencies, null, 2) + '\n');
  await owner?.close();
  await Promise.all([service?.stop(), host?.close()]);
});

test('the widget list opens the builder; layout, theme and accent change the live preview, which is the real widget', async () => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Widgets', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Widgets', level: 1 })).toBeVisible();
  const rows = page.getByRole('table').getByRole('row');
  await expect(rows).toHaveCount((await service.widgets()).length + 1);
  await expectNoAxeViolations(page, 'the widget list');
  await screenshots(page, 'widgets-list');

  await page.getByRole('button', { name: 'Create widget' }).click();
  await expect(page.getByRole('heading', { name: 'Create widget', level: 1 })).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard\/widgets\/new$/);
  // The preview is the service's own loader and hashed bundle, loaded from this origin.
  await expect.poll(async () => (await previewLook(page)).classes).toBe('rv carousel light');
  const scripts = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname));
  expect(scripts).toContain('/widget/loader.js');
  expect(scripts.some((s) => /^\/widget\/widget-[a-z]+-[A-Za-z0-9]+\.js$/.test(s)), 'a layout chunk of the widget was loaded').toBe(true);
  expect(await page.evaluate(() => typeof (window as unknown as { ReviewProof?: { render?: unknown } }).ReviewProof?.render)).toBe('function');

  await page.getByLabel('Widget name').fill('Shoe page');
  await page.getByLabel('Type of what is reviewed').selectOption('Product');
  await page.getByLabel('Name of what is reviewed').fill('Acme Trail Shoes');
  await expect.poll(async () => page.locator('#widget-preview').evaluate((el) => el.shadowRoot?.querySelector('.rv')?.getAttribute('aria-label') ?? '')).toContain('Acme Trail Shoes');

  // Layout: a click on a radio button.
  let before = await previewLook(page);
  await page.getByRole('radio', { name: /^Grid/ }).check();
  await expect.poll(async () => (await previewLook(page)).classes).toBe('rv grid light');
  latencies.push({ change: 'layout carousel → grid (click)', ms: await lastMeasure(page), how: 'page measure rp:preview' });

  // Theme: measured independently, from the change event to the shadow root's mutation.
  before = await previewLook(page);
  const themeMs = await page.evaluate(async () => {
    const host = document.getElementById('widget-preview')!;
    const select = document.getElementById('w-theme') as HTMLSelectElement;
    const done = new Promise<number>((resolve) => {
      const observer = new MutationObserver(() => {
        if (host.shadowRoot!.querySelector('.rv')!.classList.contains('dark')) {
          observer.disconnect();
          resolve(performance.now());
        }
      });
      observer.observe(host.shadowRoot!, { subtree: true, attributes: true, childList: true });
    });
    const start = performance.now();
    select.value = 'dark';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    return (await done) - start;
  });
  const dark = await previewLook(page);
  expect(dark.classes).toBe('rv grid dark');
  expect(dark.background).not.toBe(before.background);
  latencies.push({ change: 'theme light → dark (select)', ms: themeMs, how: 'change event → MutationObserver in the shadow root' });
  latencies.push({ change: 'theme light → dark (select)', ms: await lastMeasure(page), how: 'page measure rp:preview' });

  // Accent: typed, character by character, in the hex field.
  const accent = page.getByRole('textbox', { name: 'Accent colour', exact: true });
  await accent.fill('');
  await accent.pressSequentially('#b91c1c', { delay: 30 });
  await expect.poll(async () => (await previewLook(page)).accent).toBe('#b91c1c');
  latencies.push({ change: 'accent typed #b91c1c (7 keys, 30 ms apart)', ms: await lastMeasure(page), how: 'page measure rp:preview (last key → DOM)' });
  await expect(page.getByText('Live: the widget as your visitors will see it.')).toBeVisible();

  // Filters go through the server (other reviews): a few round trips, measured by the page.
  for (const n of ['5', '8', '12']) {
    const count = await page.evaluate(() => performance.getEntriesByName('rp:preview').length);
    await page.getByLabel('Reviews shown').fill(n);
    await expect.poll(() => page.evaluate(() => performance.getEntriesByName('rp:preview').length)).toBeGreaterThan(count);
    latencies.push({ change: `reviews shown → ${n} (typed: 60 ms pause, then a server round trip)`, ms: await lastMeasure(page), how: 'page measure rp:preview' });
  }

  // The SEO check for the unsaved subject, in plain words, each with its link: stars from every platform, against the guidelines.
  await page.getByLabel('Stars from').selectOption('all');
  const findings = page.getByRole('region', { name: 'Search results check' });
  await expect(findings.getByText('These reviews were collected on other websites', { exact: true })).toBeVisible();
  for (const link of await findings.getByRole('link').all()) expect(await link.getAttribute('href')).toMatch(/^https:\/\/developers\.google\.com\//);

  await expectNoAxeViolations(page, 'the builder with a dark grid');
  await screenshots(page, 'widget-builder');
  for (const l of latencies) console.log(`preview latency: ${l.change}: ${l.ms.toFixed(1)} ms (${l.how})`);
});

test('invalid options are named under their fields; the preview keeps the last valid widget', async () => {
  const reviews = page.getByLabel('Reviews shown');
  await reviews.fill('80');
  await expect(page.getByText('Reviews shown must be an integer from 1 to 50.')).toBeVisible();
  await expect(reviews).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('Showing the last valid settings')).toBeVisible();
  expect((await previewLook(page)).classes).toBe('rv grid dark');
  await page.getByLabel('Page address').fill('http://shop.example/shoes');
  await expect(page.getByText('Page address must be an https URL.')).toBeVisible();
  await expectNoAxeViolations(page, 'the builder with field errors');
  await screenshots(page, 'widget-builder-errors');

  // Saving anyway: refused without a request, the first field with a problem focused, and a summary that links to each field.
  await page.getByRole('button', { name: 'Save' }).click();
  const summary = page.getByRole('alert').filter({ hasText: 'The widget was not saved' });
  await expect(summary).toBeVisible();
  await expect(reviews).toBeFocused();
  await summary.getByRole('link', { name: /Page address/ }).click();
  await expect(page.getByLabel('Page address')).toBeFocused();
  await summary.getByRole('link', { name: /Reviews shown/ }).click();
  await expect(reviews).toBeFocused();
  await reviews.fill('6');
  await page.getByLabel('Page address').fill('https://shop.example/shoes');
  await expect(page.getByText('Live: the widget as your visitors will see it.')).toBeVisible();
});

test('keyboard only: a layout chosen with the arrow keys, Save with Enter; the saved widget survives a reload', async () => {
  await page.getByRole('radio', { name: /^Grid/ }).focus();
  await page.keyboard.press('ArrowDown'); // Grid → List
  await expect(page.getByRole('radio', { name: /^List/ })).toBeChecked();
  await expect.poll(async () => (await previewLook(page)).classes).toBe('rv list dark');
  await page.getByRole('button', { name: 'Save' }).focus();
  const saved = page.waitForResponse((r) => r.url().endsWith('/dashboard/api/widgets') && r.request().method() === 'POST');
  await page.keyboard.press('Enter');
  const body = (await (await saved).json()) as { id: string };
  widgetId = body.id;
  await expect(page).toHaveURL(new RegExp(`/dashboard/widgets/${widgetId}$`));
  await expect(page.getByText(/^Saved at /)).toBeVisible();

  await page.reload();
  await expect(page.getByRole('heading', { name: 'Widget “Shoe page”', level: 1 })).toBeVisible();
  await expect(page.getByRole('radio', { name: /^List/ })).toBeChecked();
  await expect(page.getByLabel('Theme')).toHaveValue('dark');
  await expect(page.getByRole('textbox', { name: 'Accent colour', exact: true })).toHaveValue('#b91c1c');
  await expect(page.getByLabel('Reviews shown')).toHaveValue('6');
  await expect.poll(async () => previewLook(page)).toMatchObject({ classes: 'rv list dark', accent: '#b91c1c' });
  const stored = (await service.widgets()).find((w) => w.id === widgetId)!;
  expect(stored).toMatchObject({ name: 'Shoe page', layout: 'list', subject: { type: 'Product', name: 'Acme Trail Shoes', url: 'https://shop.example/shoes' }, options: { theme: 'dark', accentColor: '#b91c1c', maxReviews: 6 } });
  await expectNoAxeViolations(page, 'the builder of a saved widget');
  await screenshots(page, 'widget-builder-saved');

  // In the list, and in the audit log.
  await page.getByRole('link', { name: 'All widgets' }).click();
  await expect(page.getByRole('link', { name: 'Shoe page' })).toBeVisible();
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'Created widget' }).filter({ hasText: 'Shoe page' })).toHaveCount(1);
});

test('Copy snippet copies the embed snippet, which renders the saved options on a blank host page', async () => {
  await page.goto(`${service.origin}/dashboard/widgets/${widgetId}`);
  await page.getByRole('button', { name: 'Copy snippet' }).click();
  await expect(page.getByText('Copied to the clipboard.')).toBeVisible();
  const snippet = await page.evaluate(() => navigator.clipboard.readText());
  const api = await service.api<{ data: { snippet: string } }>(`/widgets/${widgetId}/embed`);
  expect(snippet).toBe(api.data.snippet);
  await expect(page.getByRole('textbox', { name: 'Snippet' })).toHaveValue(snippet);

  const hostPage = await owner.newPage();
  try {
    await hostPage.goto(host.serve('/pasted.html', `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><main><h1>Trail shoes</h1>${snippet}</main></body></html>`));
    const look = async () =>
      hostPage.locator('[data-rv-widget]').evaluate((el) => {
        const rv = el.shadowRoot?.querySelector<HTMLElement>('.rv');
        return rv ? { classes: rv.className, accent: rv.style.getPropertyValue('--a').trim(), cards: el.shadowRoot!.querySelectorAll('article').length } : null;
      });
    await expect.poll(look).toMatchObject({ classes: 'rv list dark', accent: '#b91c1c' });
    await expect.poll(async () => (await look())!.cards).toBeGreaterThan(0);
    expect((await look())!.cards).toBeLessThanOrEqual(6);
    await screenshots(hostPage, 'widget-pasted');
  } finally {
    await hostPage.close();
  }
});

test('a Member sees the builder read-only and cannot save (403 forbidden_role)', async ({ browser }) => {
  const link = await page.evaluate(async () => {
    const session = (await (await fetch('/dashboard/api/session')).json()) as { csrfToken: string };
    const res = await fetch('/dashboard/api/invitations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
      body: JSON.stringify({ email: 'viewer@demo.example', role: 'member' }),
    });
    return ((await res.json()) as { link: string }).link;
  });
  const second = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US', viewport: { width: 1280, height: 800 } });
  try {
    const member = await second.newPage();
    await member.goto(link);
    await member.getByLabel('Password').fill('correct horse battery staple');
    await member.getByRole('button', { name: 'Accept and sign in' }).click();
    await expect(member.getByRole('heading', { name: 'Overview' })).toBeVisible();

    await member.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Widgets', exact: true }).click();
    await expect(member.getByRole('heading', { name: 'Widgets', level: 1 })).toBeVisible();
    await expect(member.getByRole('button', { name: 'Create widget' })).toHaveCount(0);
    await member.getByRole('link', { name: 'Shoe page' }).click();
    await expect(member.getByText('Changing widgets needs the Owner or Admin role')).toBeVisible();
    await expect(member.getByRole('button', { name: 'Save' })).toHaveCount(0);
    await expect(member.getByLabel('Widget name')).toBeDisabled();
    await expect(member.getByLabel('Theme')).toBeDisabled();
    await expect.poll(async () => previewLook(member)).toMatchObject({ classes: 'rv list dark', accent: '#b91c1c' });
    await expect(member.getByRole('button', { name: 'Copy snippet' })).toBeVisible();
    await expectNoAxeViolations(member, 'the builder as a Member');
    await screenshots(member, 'widget-builder-member');

    const answers = await member.evaluate(async (id) => {
      const session = (await (await fetch('/dashboard/api/session')).json()) as { csrfToken: string };
      const send = async (method: string, path: string, body: unknown) => {
        const res = await fetch(`/dashboard/api${path}`, { method, headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken }, body: JSON.stringify(body) });
        return [res.status, ((await res.json()) as { error: string }).error];
      };
      return [await send('PATCH', `/widgets/${id}`, { layout: 'grid' }), await send('POST', '/widgets', { name: 'Mine' })];
    }, widgetId);
    expect(answers).toEqual([
      [403, 'forbidden_role'],
      [403, 'forbidden_role'],
    ]);
    expect((await service.widgets()).find((w) => w.id === widgetId)!.layout).toBe('list');
  } finally {
    await second.close();
  }
});
