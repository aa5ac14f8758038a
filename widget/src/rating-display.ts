/**
 * The one rule for showing an average rating to people, shared by the widget
 * (header, badge, the builder's preview) and the dashboard's Overview: the
 * API's two-decimal average (the data: `/reviews/stats`, JSON-LD
 * `ratingValue`) rounded half up to one decimal, 4.15 → 4.2, as review
 * platforms show it. The exact value stays available to assistive technology
 * (the stars' label, a visually hidden text). Two-decimal values times ten
 * land on k.5 within a rounding error: the 1e-6 makes 4.05 (4.0499999… in
 * binary) 4.1, not 4.0. Kept this short: it is in the widget's size budget.
 */
export const displayRating = (average: number): number => Math.round(average * 10 + 1e-6) / 10;
