/**
 * What `GET /public/v1/widgets/{id}` returns inside `{ "data": … }`: only what
 * the widget displays, never anything secret. The server builds it (see
 * `api/widgets/public-data.ts`); the bundle re-checks its shape anyway.
 */
import type { ReviewLanguages, WidgetLayout, WidgetOptions } from '../../api/store/types.ts';

export type { WidgetLayout };

/**
 * The display options the browser needs. The filters (platforms, minimum
 * rating, empty texts, how many) were applied by the server and stay there.
 */
export type PublicWidgetOptions = Pick<WidgetOptions, 'theme' | 'accentColor' | 'showDates' | 'locale'> & { reviewLanguages: ReviewLanguages };

export interface PublicPlatformSummary {
  platform: string;
  count: number;
  averageRating: number | null;
}

export interface PublicWidgetSummary {
  /** Rounded to 2 decimals; null when nothing is rated. */
  averageRating: number | null;
  totalReviews: number;
  ratedReviews: number;
  /** Reviews of these platforms the owner hid (counted above, not shown): "2 hidden by the owner". The server always sends it. */
  hiddenReviews?: number;
  platforms: PublicPlatformSummary[];
}

export interface PublicReview {
  id: string;
  platform: string;
  authorName: string;
  /** https: only; anything else is null. */
  authorAvatar: string | null;
  rating: number | null;
  content: string;
  /** ISO 8601. */
  date: string;
  /** https: only; anything else is null. */
  url: string | null;
  isVerified: boolean;
  /** ISO 639-1 code of the text, or null when unknown. */
  language: string | null;
  /** The organization's answer (text only), when there is one and the widget shows replies. */
  reply?: { text: string; date: string };
}

export interface PublicWidgetData {
  id: string;
  layout: WidgetLayout;
  /** Name of what the reviews are about ("Acme Shoes"): names the widget's region. */
  subject: string;
  /** The organization's name, which signs the replies ("Response from {o}"): present when a review carries one. */
  organization?: string;
  options: PublicWidgetOptions;
  summary: PublicWidgetSummary;
  reviews: PublicReview[];
  /** The JSON-LD document to inject into the host page; null = none. */
  jsonLd: object | null;
  /** Rows of reviews a page shows: `layoutRows(layout, options)`. */
  rows: number;
  /** Pixel height the container reserves: `layoutHeight(layout, options)`. */
  height: number;
}
