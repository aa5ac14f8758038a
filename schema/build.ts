/**
 * Builds the one JSON-LD document a widget publishes: its subject (Product,
 * SoftwareApplication, …) with an AggregateRating over every rated review of
 * the widget's platforms and the displayed reviews as Review items.
 *
 * Typed with schema-dts: the literals below are checked against the leaf type
 * of each subject, so a misspelled or misplaced property does not compile.
 */
import type {
  AggregateRatingLeaf,
  BookLeaf,
  CourseLeaf,
  CreativeWorkSeasonLeaf,
  CreativeWorkSeriesLeaf,
  EpisodeLeaf,
  EventLeaf,
  GameLeaf,
  LocalBusinessLeaf,
  MediaObjectLeaf,
  MovieLeaf,
  MusicPlaylistLeaf,
  MusicRecordingLeaf,
  OrganizationLeaf,
  ProductLeaf,
  RatingLeaf,
  RecipeLeaf,
  ReviewLeaf,
  SoftwareApplicationLeaf,
  WithContext,
} from 'schema-dts';
import { roundRatio2 } from '../api/reviews/stats-math.ts';
import type { Product } from '../api/store/product-types.ts';
import { DIRECT_PLATFORM, type Review, type ReviewStats, type SubjectType, type Widget } from '../api/store/types.ts';

/** The schema-dts leaf type for each subject type a widget may describe. */
export interface SubjectLeafByType {
  Product: ProductLeaf;
  SoftwareApplication: SoftwareApplicationLeaf;
  LocalBusiness: LocalBusinessLeaf;
  Organization: OrganizationLeaf;
  Book: BookLeaf;
  Course: CourseLeaf;
  Event: EventLeaf;
  Movie: MovieLeaf;
  Recipe: RecipeLeaf;
  CreativeWorkSeason: CreativeWorkSeasonLeaf;
  CreativeWorkSeries: CreativeWorkSeriesLeaf;
  Episode: EpisodeLeaf;
  Game: GameLeaf;
  MediaObject: MediaObjectLeaf;
  MusicPlaylist: MusicPlaylistLeaf;
  MusicRecording: MusicRecordingLeaf;
}

/** Indexing by SubjectType fails to compile if a subject type lacks its leaf above. */
export type ReviewedThing = SubjectLeafByType[SubjectType];
export type WidgetJsonLd = WithContext<ReviewedThing>;

/** Best and worst of the 1–5 star scale every platform is normalised to. */
export const BEST_RATING = 5;
export const WORST_RATING = 1;

/** Google: the author's name must be shorter than 100 characters. */
export const AUTHOR_NAME_MAX = 99;

export interface RatingSummary {
  /** Average of the rated reviews with two decimals, exactly as `/reviews/stats` says it (the data, not a display). */
  ratingValue: number;
  /** Number of reviews that carry a star rating. */
  reviewCount: number;
}

/**
 * The aggregate from a `ReviewStore.stats` distribution: sum/count of the
 * integer star ratings, rounded to two decimals by the statistics' own rule
 * (roundRatio2), so the markup says what the API says (4.15, not 4.2; people
 * see 4.2 through the display rule, widget/src/rating-display.ts). Unrated
 * reviews (`rating: null`) count for nothing. Returns null when nothing is rated.
 */
export function ratingSummary(distribution: ReviewStats['ratingDistribution']): RatingSummary | null {
  let sum = 0;
  let count = 0;
  for (const { rating, count: n } of distribution) {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new TypeError(`rating distribution count must be a non-negative integer, got ${String(n)}`);
    }
    if (rating === null) continue;
    if (!isStarRating(rating)) {
      throw new TypeError(`rating distribution rating must be an integer 1-5 or null, got ${String(rating)}`);
    }
    sum += rating * n;
    count += n;
  }
  if (count === 0) return null;
  return { ratingValue: roundRatio2(sum, count), reviewCount: count };
}

export interface BuildInput {
  widget: Widget;
  /**
   * `ReviewStore.stats({ orgId, now, platforms: widget.options.platforms ?? undefined })`:
   * every review of the platforms the widget shows, before its display filters.
   */
  stats: Pick<ReviewStats, 'ratingDistribution'>;
  /** The reviews the widget displays, in display order. */
  reviews: readonly Review[];
  /**
   * A product widget's product (CONTRACT §13): `widget.subject` already describes it
   * (public-data.ts asProductWidget); its id becomes `sku`, its `gtin` is added.
   */
  product?: Pick<Product, 'id' | 'gtin'> | null;
}

/**
 * The widget's JSON-LD document. `aggregateRating` is present only when at
 * least one review is rated; `review` holds the displayed reviews that have a
 * star rating (Google requires `reviewRating` on each Review), an author name
 * and belong to the widget's organization and platforms.
 */
export function buildWidgetJsonLd({ widget, stats, reviews, product = null }: BuildInput): WidgetJsonLd {
  const { subject } = widget;
  const summary = ratingSummary(stats.ratingDistribution);
  const items = reviewItems(widget, reviews);

  const aggregateRating: AggregateRatingLeaf | undefined = summary
    ? {
        '@type': 'AggregateRating',
        ratingValue: summary.ratingValue,
        reviewCount: summary.reviewCount,
        bestRating: BEST_RATING,
        worstRating: WORST_RATING,
      }
    : undefined;

  const name = cleanText(subject.name);
  const url = httpUrl(subject.url);
  const image = httpUrl(subject.image);
  const brand = subject.brand === null ? '' : cleanText(subject.brand);

  // Every property is written out in a checked literal (spreads escape excess
  // property checks); absent values are undefined and dropped by `defined`.
  const thing = defined<ReviewedThing>({
    '@type': subject.type,
    name: name || undefined,
    url: url ?? undefined,
    image: image ?? undefined,
    aggregateRating,
    review: items.length > 0 ? items : undefined,
  });
  const branded: ReviewedThing =
    brand && hasBrandProperty(thing) ? { ...thing, brand: { '@type': 'Brand', name: brand } } : thing;
  const node: ReviewedThing = product && branded['@type'] === 'Product' ? withProductIds(branded, product) : branded;
  return { '@context': 'https://schema.org', ...node };
}

/** A catalog product's identifiers: `sku` (the catalog id) and `gtin` (check digit verified on entry); placed after name, url and image. */
function withProductIds(thing: ProductLeaf, product: Pick<Product, 'id' | 'gtin'>): ProductLeaf {
  const { aggregateRating, review, ...head } = thing;
  return defined<ProductLeaf>({ ...head, sku: product.id, gtin: product.gtin ?? undefined, aggregateRating, review });
}

/**
 * Subject types whose schema.org definition has `brand` (its domain is Organization,
 * Person, Product, Service). Creative works have none: a configured brand is left out.
 */
type Branded = ProductLeaf | OrganizationLeaf | LocalBusinessLeaf;

function hasBrandProperty(thing: ReviewedThing): thing is Branded {
  return thing['@type'] === 'Product' || thing['@type'] === 'Organization' || thing['@type'] === 'LocalBusiness';
}

function reviewItems(widget: Widget, reviews: readonly Review[]): ReviewLeaf[] {
  const shown = widget.options.platforms?.map((p) => p.toUpperCase()) ?? null;
  // jsonLdSources (CONTRACT §13): only reviews collected on the site itself, unless the owner chose all.
  const direct = widget.options.jsonLdSources !== 'all';
  const platforms = direct ? (shown === null || shown.includes(DIRECT_PLATFORM) ? [DIRECT_PLATFORM] : []) : shown;
  const seen = new Set<string>();
  const items: ReviewLeaf[] = [];
  for (const review of reviews) {
    // Defence in depth: a caller bug must not publish another organization's reviews,
    // or reviews the aggregate does not cover.
    if (review.orgId !== widget.orgId) continue;
    if (platforms && !platforms.includes(review.platform.toUpperCase())) continue;
    if (seen.has(review.id)) continue;
    const item = reviewItem(review);
    if (!item) continue;
    seen.add(review.id);
    items.push(item);
  }
  return items;
}

/** One Review item, or null when the review cannot be one (no stars, no author). */
export function reviewItem(review: Review): ReviewLeaf | null {
  if (review.rating === null || !isStarRating(review.rating)) return null;
  const author = authorName(review.authorName);
  if (!author) return null;
  const reviewRating: RatingLeaf = {
    '@type': 'Rating',
    ratingValue: review.rating,
    bestRating: BEST_RATING,
    worstRating: WORST_RATING,
  };
  return defined<ReviewLeaf>({
    '@type': 'Review',
    author: { '@type': 'Person', name: author },
    datePublished: isoDate(review.date) ?? undefined,
    reviewBody: review.content.trim() || undefined,
    reviewRating,
  });
}

/**
 * The author's name, whitespace collapsed, control characters removed, and cut
 * to at most AUTHOR_NAME_MAX UTF-16 units (so under 100 characters however
 * they are counted) on a grapheme boundary, with an ellipsis when cut.
 */
export function authorName(raw: string): string {
  const name = cleanText(raw);
  if (name.length <= AUTHOR_NAME_MAX) return name;
  let out = '';
  for (const { segment } of graphemes.segment(name)) {
    if (out.length + segment.length > AUTHOR_NAME_MAX - 1) break;
    out += segment;
  }
  return `${out.trimEnd()}…`;
}

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/** Removes control characters and line separators, collapses whitespace. */
export function cleanText(raw: string): string {
  return raw
    .replace(/[\p{Cc}\u2028\u2029]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** The object without its undefined properties (JSON would drop them; validators would not). */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function isStarRating(value: number): boolean {
  return Number.isInteger(value) && value >= WORST_RATING && value <= BEST_RATING;
}

/** Google documents review `datePublished` as an ISO 8601 date; the day is taken in UTC. */
function isoDate(value: string): string | null {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 10);
}

/** Only absolute http(s) URLs are published; anything else is left out. */
export function httpUrl(value: string | null): string | null {
  if (value === null) return null;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
