import { STAR_RATINGS } from './support/fixtures.ts';
import { expect, test, waitForWidgets } from './support/test.ts';

test.use({ reducedMotion: 'reduce' });

/** Width of the stars box and of its filled part, in px. */
function starWidths(stars: Element): { box: number; filled: number } {
  return { box: stars.getBoundingClientRect().width, filled: stars.querySelector('.fill')!.getBoundingClientRect().width };
}

test('"Read more" shows the same stars as the card, for every rating and a half', async ({ page, origins }) => {
  await page.goto(`${origins.host.origin}/ratings.html`);
  await waitForWidgets(page, 1);
  const widget = page.locator('[data-rv-widget="wdg_ratings"]');
  const cards = widget.locator('article');
  await expect(cards).toHaveCount(STAR_RATINGS.length);
  let compared = 0;
  for (let i = 0; i < STAR_RATINGS.length; i++) {
    const rating = STAR_RATINGS[i]!;
    const card = cards.nth(i);
    const onCard = await card.locator('.stars').evaluate(starWidths);
    // 16 px stars on the card, 18 px in the dialog: five of them, filled to rating / 5.
    expect(onCard.box).toBe(80);
    expect(onCard.filled).toBeCloseTo(80 * (rating / 5), 1);
    await card.getByRole('button', { name: /^Read more/ }).click();
    const dialog = widget.getByRole('dialog');
    await expect(dialog).toBeVisible();
    const inDialog = await dialog.locator('.stars').evaluate(starWidths);
    expect(inDialog.box, `rating ${rating}`).toBe(90);
    expect(inDialog.filled / inDialog.box, `rating ${rating}`).toBeCloseTo(onCard.filled / onCard.box, 2);
    await expect(dialog.locator('.stars')).toHaveAttribute('aria-label', (await card.locator('.stars').getAttribute('aria-label'))!);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    compared++;
  }
  expect(compared).toBe(STAR_RATINGS.length);
});
