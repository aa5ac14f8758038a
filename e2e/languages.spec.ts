import { CATALOGS } from '../widget/src/i18n/catalogs.ts';
import { expect, test, waitForWidgets } from './support/test.ts';

test.use({ reducedMotion: 'reduce' });

/** What each page must show, from its catalog: nothing of the widget's own words stays English. */
const PAGES = ['fr', 'de', 'ja', 'ar'] as const;

for (const width of [1280, 390]) {
  for (const lang of PAGES) {
    test(`a ${lang} page at ${width} px shows the widget in ${lang}; screenshot kept`, async ({ page, origins }) => {
      await page.setViewportSize({ width, height: 1100 });
      await page.goto(`${origins.host.origin}/lang-${lang}.html`);
      await waitForWidgets(page, 2);
      await page.waitForLoadState('networkidle');
      const t = CATALOGS[lang]!;
      const carousel = page.locator(`[data-rv-widget="wdg_auto_${lang}"]`);
      const root = carousel.locator('.rv');
      await expect(root).toHaveAttribute('lang', lang);
      await expect(root).toHaveAttribute('dir', lang === 'ar' ? 'rtl' : 'ltr');
      await expect(carousel.locator('h2')).toHaveText(t.heading);
      await expect(carousel.getByRole('button', { name: t.next })).toBeVisible();
      // Two widgets of one product: whichever renders second is "… (2)".
      const name = t.reviewsOf.replace('{s}', 'Acme Trail Shoe').replace(/[()]/g, '\\$&');
      await expect(carousel.getByRole('region')).toHaveAccessibleName(new RegExp(`^${name}( \\(2\\))?$`));
      // Review texts carry their own language and let the browser pick their direction.
      const texts = carousel.locator('.text');
      await expect(texts.first()).toHaveAttribute('lang', lang);
      await expect(texts.first()).toHaveAttribute('dir', 'auto');
      await expect(texts.nth(1)).toHaveAttribute('lang', 'en');
      const english = await carousel.evaluate((host) => host.shadowRoot!.textContent);
      for (const word of ['Customer reviews', 'Read more', 'View on', ' reviews']) expect(english).not.toContain(word);
      // Nothing clipped without an ellipsis: every nowrap box either fits or ends in one.
      const clipped = await page.evaluate(() =>
        Array.from(document.querySelectorAll('[data-rv-widget]')).flatMap((host) =>
          Array.from(host.shadowRoot!.querySelectorAll<HTMLElement>('.title,.sum,.count,.name-text,.link,.badge-count,.date'))
            .filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).textOverflow !== 'ellipsis')
            .map((el) => `${el.className}: ${el.textContent}`),
        ),
      );
      expect(clipped).toEqual([]);
      await page.screenshot({ path: `test-results/languages/${lang}-${width}.png`, fullPage: true });
    });
  }
}

test('the page loads only its own language’s catalog', async ({ page, origins }) => {
  const catalogs: string[] = [];
  page.on('request', (r) => {
    if (/\/widget\/i18n-/.test(r.url())) catalogs.push(new URL(r.url()).pathname);
  });
  await page.goto(`${origins.host.origin}/lang-ja.html`);
  await waitForWidgets(page, 2);
  await page.waitForLoadState('networkidle');
  expect(catalogs).toHaveLength(1);
  expect(catalogs[0]).toMatch(/-ja\.json$/);
});

test('Hebrew is right to left, with mirrored arrows, and the carousel moves the right way', async ({ page, origins }) => {
  await page.goto(`${origins.host.origin}/lang-he.html`);
  await waitForWidgets(page, 1);
  const widget = page.locator('[data-rv-widget="wdg_auto_he"]');
  await expect(widget.locator('.rv')).toHaveAttribute('dir', 'rtl');
  await expect(widget.locator('h2')).toHaveText(CATALOGS.he!.heading);
  const transform = await widget.locator('.nav svg.line').first().evaluate((svg) => getComputedStyle(svg).transform);
  expect(transform).toBe('matrix(-1, 0, 0, 1, 0, 0)');
  const first = () => widget.locator('[aria-roledescription="slide"]:not([inert])').first().getAttribute('aria-label');
  expect(await first()).toBe('1 מתוך 9');
  await widget.getByRole('button', { name: CATALOGS.he!.next }).click();
  await expect.poll(first).toBe('2 מתוך 9');
});

test('the locale option wins over the page language', async ({ page, origins }) => {
  await page.goto(`${origins.host.origin}/layouts.html`);
  await waitForWidgets(page, 6);
  // wdg_german has locale de-DE on an English page.
  await expect(page.locator('[data-rv-widget="wdg_german"] h2')).toHaveText('Kundenbewertungen');
  await expect(page.locator('[data-rv-widget="wdg_german"] .count')).toHaveText('312 Bewertungen');
});

test('at 320 px nothing is clipped without an ellipsis, and the full text stays the accessible name', async ({ page, origins }) => {
  await page.setViewportSize({ width: 320, height: 900 });
  await page.goto(`${origins.host.origin}/four.html`);
  await waitForWidgets(page, 4);
  // The carousel's off-screen slides get their reviews a task after the first render: measure them too.
  await expect(page.locator('[data-rv-widget="wdg_four_carousel"] .slide:not(:has(article))')).toHaveCount(0);
  const boxes = await page.evaluate(() =>
    Array.from(document.querySelectorAll('[data-rv-widget]')).flatMap((host) =>
      Array.from(host.shadowRoot!.querySelectorAll<HTMLElement>('.title,.sum,.count,.name-text,.link,.badge-count,.date')).map((el) => ({
        name: `${el.className}: ${el.textContent}`,
        overflows: el.scrollWidth > el.clientWidth + 1,
        ellipsis: getComputedStyle(el).textOverflow === 'ellipsis',
      })),
    ),
  );
  expect(boxes.length).toBeGreaterThan(10);
  expect(boxes.filter((b) => b.overflows && !b.ellipsis).map((b) => b.name)).toEqual([]);
  await expect(page.locator('[data-rv-widget="wdg_four_carousel"] .count')).toHaveText('312 reviews');
  // No widget is cut short (the badge once collapsed to its first digit), and nothing sticks out of one.
  // (Slides scrolled out of the carousel's track and visually hidden .sr texts are meant to be outside.)
  const cut = await page.evaluate(() =>
    Array.from(document.querySelectorAll('[data-rv-widget]')).flatMap((host) => {
      const rv = host.shadowRoot!.querySelector<HTMLElement>('.rv')!;
      const box = rv.getBoundingClientRect();
      return Array.from(rv.querySelectorAll<HTMLElement>('*'))
        .filter((el) => !el.closest('.track,.sr,dialog'))
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && (r.right > box.right + 0.5 || r.left < box.left - 0.5);
        })
        .map((el) => `${rv.className} ${el.tagName}.${el.getAttribute('class')}`);
    }),
  );
  expect(cut).toEqual([]);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(wide).toBeLessThanOrEqual(320);
  await page.screenshot({ path: 'test-results/languages/en-320.png', fullPage: true });
});
