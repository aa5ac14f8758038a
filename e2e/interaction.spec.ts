import { expect, test, waitForWidgets } from './support/test.ts';
import { chunksServed, expectedFiles, widgetManifest } from './support/widget-files.ts';

test.describe('carousel', () => {
  test.use({ reducedMotion: 'reduce' });

  test('is keyboard operable with labelled buttons, focus visible, and no autoplay under reduced motion', async ({ page, origins }) => {
    await page.goto(`${origins.host.origin}/basic.html`);
    await waitForWidgets(page, 1);
    const widget = page.locator('[data-rv-widget="wdg_carousel"]');
    const prev = widget.getByRole('button', { name: 'Previous reviews' });
    const play = widget.getByRole('button', { name: 'Start automatic scrolling' });
    const next = widget.getByRole('button', { name: 'Next reviews' });
    await expect(widget.getByRole('region', { name: 'Reviews of Acme Trail Shoe' })).toBeVisible();
    await expect(prev).toHaveAttribute('aria-disabled', 'true');
    await expect(widget.locator('.slide[inert]')).toHaveCount(6);

    // Tab from the page into the widget: previous, play, next.
    await page.locator('h1').click();
    await page.keyboard.press('Tab');
    await expect(prev).toBeFocused();
    const outline = await prev.evaluate((b) => getComputedStyle(b).outlineStyle + ' ' + getComputedStyle(b).outlineWidth);
    expect(outline).toBe('solid 2px');
    await page.keyboard.press('Tab');
    await expect(play).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(next).toBeFocused();

    const firstVisible = () => widget.locator('.slide:not([inert])').first().getAttribute('aria-label');
    expect(await firstVisible()).toBe('1 of 9');
    await page.keyboard.press('Enter');
    await expect.poll(firstVisible).toBe('2 of 9');
    await page.keyboard.press('Space');
    await expect.poll(firstVisible).toBe('3 of 9');
    await expect(prev).toHaveAttribute('aria-disabled', 'false');
    // Still focused on "next" (aria-disabled, never disabled, so focus is never lost).
    await expect(next).toBeFocused();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await expect(prev).toBeFocused();
    await page.keyboard.press('Enter');
    await expect.poll(firstVisible).toBe('2 of 9');

    // Reduced motion: nothing moves by itself.
    await page.waitForTimeout(6500);
    expect(await firstVisible()).toBe('2 of 9');

    // Tab goes on into the visible cards only.
    await next.focus();
    await page.keyboard.press('Tab');
    const focusedSlide = await page.evaluate(() => {
      const host = document.querySelector('[data-rv-widget]')!;
      return host.shadowRoot!.activeElement?.closest('.slide')?.getAttribute('aria-label');
    });
    expect(focusedSlide).toBe('2 of 9');
  });

  test('"Read more" opens the whole review in a modal dialog; Escape closes it and returns focus', async ({ page, origins }, testInfo) => {
    await page.goto(`${origins.host.origin}/layouts.html`);
    await waitForWidgets(page, 6);
    const grid = page.locator('[data-rv-widget="wdg_grid"]');
    const more = grid.getByRole('button', { name: /^Read more\s*: Review by Lukas Müller$/ });
    await more.click();
    const dialog = grid.getByRole('dialog');
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText('proper dark mode for the dashboard, which our night shift keeps asking about. Otherwise excellent.');
    await expect(dialog).toHaveAccessibleName('Review by Lukas Müller');
    await page.screenshot({ path: testInfo.outputPath('dialog.png') });
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(more).toBeFocused();
  });
});

test.describe('carousel with motion allowed', () => {
  test.use({ reducedMotion: 'no-preference' });

  test('autoplays, and the pause button stops it', async ({ page, origins }) => {
    await page.clock.install();
    await page.goto(`${origins.host.origin}/basic.html`);
    await waitForWidgets(page, 1);
    const widget = page.locator('[data-rv-widget="wdg_carousel"]');
    const firstVisible = () => widget.locator('.slide:not([inert])').first().getAttribute('aria-label');
    await page.mouse.move(0, 0);
    await page.clock.runFor(6100);
    await expect.poll(firstVisible).toBe('2 of 9');
    await widget.getByRole('button', { name: 'Pause automatic scrolling' }).click();
    await page.mouse.move(0, 0);
    await page.clock.runFor(13000);
    expect(await firstVisible()).toBe('2 of 9');
    await expect(widget.getByRole('button', { name: 'Start automatic scrolling' })).toBeVisible();
  });
});

test('grid follows its width, pages with labelled buttons and announces the page', async ({ page, origins }) => {
  await page.goto(`${origins.host.origin}/layouts.html`);
  await waitForWidgets(page, 6);
  const grid = page.locator('[data-rv-widget="wdg_grid"]');
  await expect(grid.locator('article')).toHaveCount(9);
  await page.locator('#grid').evaluate((el) => (el.style.width = '640px'));
  // 640px wide: two columns × three rows = six per page, nine reviews.
  await expect(grid.locator('article')).toHaveCount(6);
  await expect(grid.locator('.page .sr')).toHaveText('Page 1 of 2');
  await grid.getByRole('button', { name: 'Next reviews' }).focus();
  await page.keyboard.press('Enter');
  await expect(grid.locator('article')).toHaveCount(3);
  await expect(grid.locator('.page .sr')).toHaveText('Page 2 of 2');
  // The page re-rendered in place: the button pressed is the same node, still focused.
  await expect(grid.getByRole('button', { name: 'Next reviews' })).toBeFocused();
  const h = await grid.evaluate((host) => host.getBoundingClientRect().height);
  expect(h).toBe(Number(await grid.getAttribute('data-rv-height')));
});

test('a single-page app renders new containers with ReviewProof.scan(), without loading anything twice', async ({ page, origins }) => {
  await page.goto(`${origins.host.origin}/spa.html`);
  await waitForWidgets(page, 1);
  const since = origins.widget.requests.length;
  await page.evaluate(() => {
    const el = document.createElement('div');
    el.setAttribute('data-rv-widget', 'wdg_list');
    el.setAttribute('data-rv-height', '500');
    document.querySelector('#later')!.append(el);
    (window as unknown as { ReviewProof: { scan(): void } }).ReviewProof.scan();
  });
  await waitForWidgets(page, 2);
  await expect(page.locator('[data-rv-widget="wdg_list"] article').first()).toBeVisible();
  // The list's data, and only the chunks the badge's had not brought (the framed layouts' code), once.
  const { needs } = widgetManifest();
  const missing = needs.list.filter((name) => !needs.badge.includes(name)).map((name) => `/widget/${name}`);
  expect(missing.length).toBeGreaterThan(0);
  expect([...origins.widget.requests.slice(since)].sort()).toEqual(['/public/v1/widgets/wdg_list', ...missing].sort());
  // Scanning again loads nothing more.
  const after = origins.widget.requests.length;
  await page.evaluate(() => (window as unknown as { ReviewProof: { scan(): void } }).ReviewProof.scan());
  await page.waitForLoadState('networkidle');
  expect(origins.widget.requests.slice(after)).toEqual([]);
});

test('the tag-manager script places containers and loads the loader once', async ({ page, origins }) => {
  const since = origins.widget.requests.length;
  await page.goto(`${origins.host.origin}/tag-manager.html`);
  await waitForWidgets(page, 3);
  await page.waitForLoadState('networkidle');
  // The owner-placed list container is used (not duplicated); grid goes where its script ran; badge at the end of <body>.
  await expect(page.locator('[data-rv-widget="wdg_list"]')).toHaveCount(1);
  await expect(page.locator('#placed [data-rv-widget="wdg_list"]')).toHaveCount(1);
  await expect(page.locator('#inline [data-rv-widget="wdg_grid"]')).toHaveCount(1);
  await expect(page.locator('body > [data-rv-widget="wdg_badge"]')).toHaveCount(1);
  const served = origins.widget.requests.slice(since);
  expect(served.filter((p) => p === '/widget/loader.js').length).toBe(1);
  // The three layouts' chunks and what they import, each once, however many widgets and scripts.
  expect(chunksServed(served).sort()).toEqual(expectedFiles(['list', 'grid', 'badge'], 'en').filter((name) => name.startsWith('widget-')).map((name) => `/widget/${name}`));
});
