/**
 * The reviews a widget shows, by its display options. The server applies the
 * same rules; applying them again here is cheap and keeps the widget honest
 * if it is ever handed more than it should show.
 */
import type { PublicReview, PublicWidgetOptions } from './public-data.ts';

export function visibleReviews(reviews: readonly PublicReview[], options: PublicWidgetOptions): PublicReview[] {
  const platforms = options.platforms;
  return reviews
    .filter(
      (r) =>
        (platforms === null || platforms.includes(r.platform)) &&
        (options.minRating === null || (r.rating !== null && r.rating >= options.minRating)) &&
        (!options.hideEmpty || r.content.trim() !== ''),
    )
    .slice(0, options.maxReviews);
}
