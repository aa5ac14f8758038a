/**
 * The reviews a widget shows. The server applied the widget's filters
 * (platforms, minimum rating, empty texts, how many); what is left here is
 * the visitor's language, which only the browser knows.
 */
import type { PublicReview } from './public-data.ts';
import type { ReviewLanguages } from '../../api/store/types.ts';

/** Reviews in the visitor's language needed before the others are left out (as TrustBox does). */
export const SAME_LANGUAGE_MIN = 3;

export function visibleReviews(reviews: PublicReview[], mode: ReviewLanguages, lang: string): PublicReview[] {
  if (mode !== 'page') return reviews;
  const same = reviews.filter((r) => r.language === lang);
  return same.length >= SAME_LANGUAGE_MIN ? same : reviews;
}
