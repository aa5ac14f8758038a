/**
 * The widget's rows and headers as a visitor sees them (issue 28, items 8-9):
 * in the list, "Read more / View on …" stands after the text it expands, and
 * a review without stars leaves no empty row; the heading row at 280, 320 and
 * 390 px in German, Finnish, Russian (and English), with "200,305 reviews · 1
 * hidden by the owner": the title whole (no ellipsis), the stars shown, the
 * count line inside its box. axe on the page; screenshots in
 * test-results/widget-polish/.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, waitForWidgets } from './support/test.ts';

const WIDGETS = 8;

test('list: each row reads head, text, then stars with Read more / View on; a card without stars has no empty stars row', async ({ page, origins }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${origins.host.origin}/narrow-header.html`);
  await waitForWidgets(page, WIDGETS);
  const rows = await page.locator('[data-rv-widget="wdg_narrow_en_list"]').evaluate((host) =>
    Array.from(host.shadowRoot!.querySelectorAll('.row')).map((row) => ({
      order: Array.from(row.children).map((el) => el.className),
      textTop: row.querySelector('.text')!.getBoundingClientRect().top,
      actionsTop: Math.min(...Array.from(row.querySelectorAll('.more,.link')).map((el) => el.getBoundingClientRect().top)),
      // A fixed-height row may end in blank space; no blank row may stand between its parts.
      empty: Array.from(row.children).slice(0, -1).filter((el) => el.getBoundingClientRect().height > 0 && !(el as HTMLElement).innerText.trim()).map((el) => el.className),
    })),
  );
  expect(rows.length).toBeGreaterThan(2);
  for (const row of rows) {
    expect(row.order).toEqual(['card-head', 'text', 'stars-row']);
    expect(row.actionsTop, 'Read more / View on stands below the text').toBeGreaterThan(row.textTop);
    expect(row.empty).toEqual([]);
  }
  // Cards: a review without stars (Facebook) has no stars row left empty above its text. The
  // carousel's off-screen slides get their reviews a task after the first render: wait for them.
  await expect(page.locator('[data-rv-widget="wdg_narrow_en_carousel"] .slide:not(:has(article))')).toHaveCount(0);
  const cards = await page.locator('[data-rv-widget="wdg_narrow_en_carousel"]').evaluate((host) =>
    Array.from(host.shadowRoot!.querySelectorAll('.card')).map((card) => ({
      stars: card.querySelectorAll('.stars').length,
      rows: Array.from(card.children).map((el) => el.className),
    })),
  );
  const unrated = cards.filter((c) => c.stars === 0);
  expect(unrated.length).toBeGreaterThan(0);
  for (const card of unrated) expect(card.rows).toEqual(['card-head', 'text', 'foot']);
  for (const card of cards.filter((c) => c.stars === 1)) expect(card.rows).toEqual(['card-head', 'stars-row', 'text', 'foot']);
  await page.screenshot({ path: 'test-results/widget-polish/list-1280.png', fullPage: true });
});

for (const width of [280, 320, 390]) {
  test(`header at ${width} px in de, fi, ru, en: the title whole, the stars shown, the count line inside its box`, async ({ page, origins }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${origins.host.origin}/narrow-header.html`);
    await waitForWidgets(page, WIDGETS);
    const heads = await page.evaluate(() =>
      Array.from(document.querySelectorAll('[data-rv-widget]')).map((host) => {
        const root = host.shadowRoot!;
        const rv = root.querySelector('.rv')!.getBoundingClientRect();
        const title = root.querySelector<HTMLElement>('.title')!;
        const sum = root.querySelector<HTMLElement>('.sum')!;
        const box = sum.getBoundingClientRect();
        const stars = root.querySelector('.sum .stars')!.getBoundingClientRect();
        const range = document.createRange();
        range.selectNodeContents(root.querySelector('.count')!);
        const inside = (r: DOMRect, b: DOMRect) => r.left >= b.left - 0.5 && r.right <= b.right + 0.5 && r.top >= b.top - 0.5 && r.bottom <= b.bottom + 0.5;
        // A text line's glyph box is a little taller than its 13 px line: its middle must lie in the box, its ends within the width.
        const lineInside = (r: DOMRect, b: DOMRect) => r.left >= b.left - 0.5 && r.right <= b.right + 0.5 && (r.top + r.bottom) / 2 > b.top && (r.top + r.bottom) / 2 < b.bottom;
        const countRects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
        return {
          id: host.getAttribute('data-rv-widget'),
          title: title.textContent,
          titleWhole: title.scrollWidth <= title.clientWidth + 1 && title.scrollHeight <= title.clientHeight + 1,
          starsShown: stars.width >= 40 && inside(stars, box) && inside(stars, rv),
          count: root.querySelector('.count')!.textContent,
          countInside: countRects.length > 0 && countRects.every((r) => lineInside(r, box) && lineInside(r, rv)),
          headInside: inside(root.querySelector('.head')!.getBoundingClientRect(), rv),
        };
      }),
    );
    expect(heads).toHaveLength(WIDGETS);
    await page.screenshot({ path: `test-results/widget-polish/header-${width}.png`, fullPage: true });
    for (const id of ['wdg_narrow_de_carousel', 'wdg_narrow_ru_list']) await page.locator(`[data-rv-widget="${id}"]`).screenshot({ path: `test-results/widget-polish/${id}-${width}.png` });
    for (const head of heads) {
      expect(head.count, head.id!).toMatch(/200[\s,.  ]305/);
      expect({ id: head.id, title: head.titleWhole, stars: head.starsShown, count: head.countInside, head: head.headInside }).toEqual({ id: head.id, title: true, stars: true, count: true, head: true });
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    await page.screenshot({ path: `test-results/widget-polish/header-${width}.png`, fullPage: true });
  });
}
