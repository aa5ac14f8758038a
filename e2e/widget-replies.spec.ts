/**
 * Replies in the widget (CONTRACT §15): "Response from {organization}" under
 * its review, folded behind a disclosure button, unfolded and folded again
 * from the keyboard, text only, in English and in Arabic (right to left), at
 * 1280 and 390 px, with zero axe violations in both states; server-rendered
 * and taken over in place. The replies' code is a chunk of its own
 * (widget/src/reply.ts): a page loads it only when its data has a reply.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { RESPONSE_FROM } from '../widget/src/i18n/replies.ts';
import { expect, servedSince, test, waitForWidgets } from './support/test.ts';
import { widgetManifest } from './support/widget-files.ts';

async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

for (const width of [1280, 390]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 1000 }, reducedMotion: 'reduce' });

    test('a reply is folded under its review and unfolds and folds from the keyboard; axe 0 in both states; screenshots kept', async ({ page, origins }) => {
      await page.goto(`${origins.host.origin}/replies.html`);
      await waitForWidgets(page, 2);
      await page.waitForLoadState('networkidle');
      const widget = page.locator('[data-rv-widget="wdg_replies"]');
      const first = widget.getByRole('article').first();
      const button = first.getByRole('button', { name: RESPONSE_FROM.en!.replace('{o}', 'Acme Outdoor') });
      await expect(button).toHaveAttribute('aria-expanded', 'false');
      await expect(first.locator('.text.reply')).toBeHidden();
      await expect(first.locator('.text').first()).toBeVisible();
      // Only the answered reviews have the button (three of the six).
      await expect(widget.locator('.rb')).toHaveCount(3);
      expect(await violations(page)).toEqual([]);
      await page.screenshot({ path: `test-results/replies/folded-${width}.png`, fullPage: true });

      await button.focus();
      await page.keyboard.press('Enter');
      await expect(button).toHaveAttribute('aria-expanded', 'true');
      await expect(first.locator('.text.reply')).toBeVisible();
      await expect(first.locator('.text.reply')).toHaveText('Thank you, Sofia! Glad the shoes fit.');
      await expect(first.locator('.text').first()).toBeHidden();
      // The card keeps its height (no layout shift): the reply takes the text's place.
      const box = await first.boundingBox();
      expect(box!.height).toBeLessThanOrEqual(216);
      expect(await violations(page)).toEqual([]);
      await page.screenshot({ path: `test-results/replies/unfolded-${width}.png`, fullPage: true });

      await page.keyboard.press('Space');
      await expect(button).toHaveAttribute('aria-expanded', 'false');
      await expect(first.locator('.text.reply')).toBeHidden();
      await expect(button).toBeFocused();

      // A hostile reply stays text.
      const hostile = widget.getByRole('article').nth(2);
      await hostile.locator('.rb').evaluate((b) => (b as HTMLElement).click());
      await expect(hostile.locator('.text.reply')).toHaveText('<img src=x onerror="window.__pwned=9"> Thanks!');
      expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await hostile.locator('img[src=x]').count()).toBe(0);
    });

    test('Arabic (right to left): "Response from" in Arabic; a long reply is whole in the Read more dialog; axe 0', async ({ page, origins }) => {
      await page.goto(`${origins.host.origin}/replies.html`);
      await waitForWidgets(page, 2);
      await page.waitForLoadState('networkidle');
      const widget = page.locator('[data-rv-widget="wdg_replies_ar"]');
      await expect(widget.locator('.rv')).toHaveAttribute('dir', 'rtl');
      const second = widget.getByRole('article').nth(1);
      const button = second.getByRole('button', { name: RESPONSE_FROM.ar!.replace('{o}', 'Acme Outdoor') });
      await expect(button).toHaveAttribute('aria-expanded', 'false');
      await button.focus();
      await page.keyboard.press('Enter');
      await expect(second.locator('.text.reply')).toBeVisible();
      await expect(second.locator('.text.reply')).toHaveAttribute('dir', 'auto');
      await second.scrollIntoViewIfNeeded();
      expect(await violations(page)).toEqual([]);
      await page.screenshot({ path: `test-results/replies/ar-unfolded-${width}.png`, fullPage: true });
      // The long reply is clamped in the row: Read more shows it whole, signed.
      await second.locator('.more').evaluate((b) => (b as HTMLElement).click());
      const dialog = page.getByRole('dialog');
      await expect(dialog).toBeVisible();
      await expect(dialog.locator('.full.reply')).toContainText('لقد تواصلنا مع شركة الشحن');
      await expect(dialog.locator('.full.reply b')).toHaveText(RESPONSE_FROM.ar!.replace('{o}', 'Acme Outdoor'));
      expect(await violations(page)).toEqual([]);
      await page.screenshot({ path: `test-results/replies/ar-dialog-${width}.png` });
    });
  });
}

test.describe('the replies\' chunk', () => {
  test.use({ reducedMotion: 'reduce' });

  test('is loaded, once, by a page whose data has a reply, from the widget origin', async ({ page, origins }) => {
    const since = origins.widget.requests.length;
    await page.goto(`${origins.host.origin}/replies.html`);
    await waitForWidgets(page, 2);
    const { reply } = widgetManifest();
    await expect.poll(() => servedSince(origins, since).filter((path) => path === `/widget/${reply}`).length).toBe(1);
    await expect(page.locator('[data-rv-widget="wdg_replies"] .rb')).toHaveCount(3);
  });

  test('is never loaded by a page whose data has no reply (a carousel, a badge)', async ({ page, origins }) => {
    const since = origins.widget.requests.length;
    await page.goto(`${origins.host.origin}/four.html`);
    await waitForWidgets(page, 4);
    await page.waitForLoadState('networkidle');
    // Every widget has drawn its reviews (the framed chunk ran its mount), and no reply chunk was asked for.
    await expect(page.locator('[data-rv-widget="wdg_four_carousel"] article').first()).toBeVisible();
    const { reply, layouts } = widgetManifest();
    const served = servedSince(origins, since);
    expect(served).toContain(`/widget/${layouts.carousel}`);
    expect(served).not.toContain(`/widget/${reply}`);
    await expect(page.locator('[data-rv-widget] .rb')).toHaveCount(0);
  });

  test('server-rendered replies stay folded while the page loads and are taken over in place with the replies chunk: the button works', async ({ page, origins }) => {
    const since = origins.widget.requests.length;
    // The server's markup first, without the loader: folded, the reply in the markup.
    await page.route('**/widget/loader.js', (route) => route.abort());
    await page.goto(`${origins.host.origin}/replies-ssr.html`);
    const widget = page.locator('[data-rv-widget="wdg_replies"]');
    const first = widget.getByRole('article').first();
    const button = first.getByRole('button', { name: RESPONSE_FROM.en!.replace('{o}', 'Acme Outdoor') });
    await expect(button).toHaveAttribute('aria-expanded', 'false');
    await expect(first.locator('.text.reply')).toBeHidden();
    await expect(first.locator('.text.reply')).toHaveText('Thank you, Sofia! Glad the shoes fit.');
    await page.unroute('**/widget/loader.js');

    // Then with the loader: hydrated (its <style> gone), with the replies' chunk.
    await page.reload();
    await expect.poll(() => widget.evaluate((el) => !el.shadowRoot!.querySelector('style'))).toBe(true);
    const { reply } = widgetManifest();
    await expect.poll(() => servedSince(origins, since).includes(`/widget/${reply}`)).toBe(true);
    await expect(first.locator('.text.reply')).toBeHidden();
    await button.focus();
    await page.keyboard.press('Enter');
    await expect(button).toHaveAttribute('aria-expanded', 'true');
    await expect(first.locator('.text.reply')).toBeVisible();
    await expect(first.locator('.text').first()).toBeHidden();
    await page.keyboard.press('Enter');
    await expect(button).toHaveAttribute('aria-expanded', 'false');
    await expect(first.locator('.text.reply')).toBeHidden();
  });
});

