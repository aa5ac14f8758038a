import { HOSTILE_STRINGS } from './support/fixtures.ts';
import { expect, strictCsp, test, waitForWidgets } from './support/test.ts';

test('script in review text and author names stays inert text', async ({ page, origins }) => {
  let dialogs = 0;
  page.on('dialog', (d) => {
    dialogs++;
    void d.dismiss();
  });
  await page.goto(`${origins.host.origin}/hostile-data.html`);
  await waitForWidgets(page, 1);
  await page.waitForLoadState('networkidle');
  const widget = page.locator('[data-rv-widget="wdg_hostile"]');
  // The payloads are shown, literally, as text.
  await expect(widget.locator('article').first()).toContainText(HOSTILE_STRINGS[0]!);
  const inside = await widget.evaluate((host) => {
    const root = host.shadowRoot!;
    return {
      scripts: root.querySelectorAll('script').length,
      handlers: Array.from(root.querySelectorAll('*')).filter((el) => Array.from(el.attributes).some((a) => a.name.startsWith('on'))).length,
      foreign: root.querySelectorAll('article img:not(.avatar img), article svg[onload], article a[href^="javascript"]').length,
      hrefs: Array.from(root.querySelectorAll('a')).map((a) => a.getAttribute('href')),
      imgs: Array.from(root.querySelectorAll('img')).map((i) => i.getAttribute('src')),
    };
  });
  expect(inside.scripts).toBe(0);
  expect(inside.handlers).toBe(0);
  expect(inside.foreign).toBe(0);
  for (const href of inside.hrefs) expect(href).toMatch(/^https:\/\//);
  for (const src of inside.imgs) expect(src).toMatch(/^https:\/\//);
  // Open the full text too: still text.
  await widget.locator('article').first().locator('.more').evaluate((b) => (b as HTMLElement).click());
  await expect(widget.locator('dialog')).toBeVisible();
  await expect(widget.locator('dialog .full')).toContainText('<script>');

  expect(dialogs).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

  // JSON-LD: one script in <head>, nothing after it, and it parses back to the same data.
  const ld = await page.evaluate(() => {
    const scripts = document.querySelectorAll('script[type="application/ld+json"]');
    return { count: scripts.length, text: scripts[0]!.textContent!, headScripts: document.head.querySelectorAll('script').length };
  });
  expect(ld.count).toBe(1);
  expect(ld.text).not.toMatch(/<|>|\u2028|\u2029/);
  expect(JSON.parse(ld.text).name).toBe('Hostile </script><script>window.__pwned=9</script>');
  expect(ld.headScripts).toBe(1); // the JSON-LD, nothing injected (the chunks are imported, not tagged)
});

test('a strict CSP page (no unsafe-inline, only the widget origin for scripts and data) works', async ({ page, origins }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/.test(m.text())) violations.push(m.text());
  });
  const response = await page.goto(`${origins.host.origin}/csp.html`);
  expect(response!.headers()['content-security-policy']).toBe(strictCsp(origins.widget.origin));
  await waitForWidgets(page, 2);
  await expect(page.locator('[data-rv-widget="wdg_grid"] article')).toHaveCount(9);
  // Styled (constructable stylesheet allowed), and the height reserved through CSSOM.
  const look = await page.locator('[data-rv-widget="wdg_grid"]').evaluate((host) => ({
    radius: getComputedStyle(host.shadowRoot!.querySelector('.card')!).borderRadius,
    minHeight: (host as HTMLElement).style.minHeight,
    reserved: host.getAttribute('data-rv-height'),
  }));
  expect(look.radius).toBe('12px');
  expect(look.minHeight).toBe(`${look.reserved}px`);
  // The only violations are the snippets' inline style attributes, which the loader replaces.
  for (const v of violations) expect(v).toMatch(/inline style|style-src/);
  expect(violations.length).toBeLessThanOrEqual(2);
});
