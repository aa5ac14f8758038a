/**
 * What `GET /public/v1/widgets/{id}` returns inside `{ "data": … }`: only what
 * the widget displays, never anything secret. The server builds it (see
 * `widget/server/public-widget-data.ts`); the bundle re-checks it anyway.
 */
import type { WidgetLayout } from '../../api/store/types.ts';

export type { WidgetLayout };

export interface PublicWidgetOptions {
  theme: 'light' | 'dark' | 'auto';
  /** CSS hex colour, #rgb or #rrggbb. */
  accentColor: string;
  /** 1-50. */
  maxReviews: number;
  /** Only reviews with at least this many stars; null = all, including unrated. */
  minRating: number | null;
  /** Upper-case platform ids; null = all. */
  platforms: string[] | null;
  /** Leave out reviews without text. */
  hideEmpty: boolean;
  showDates: boolean;
  /** BCP 47; null = the visitor's browser language. */
  locale: string | null;
}

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
}

export interface PublicWidgetData {
  id: string;
  layout: WidgetLayout;
  name: string;
  options: PublicWidgetOptions;
  summary: PublicWidgetSummary;
  reviews: PublicReview[];
  /** The JSON-LD document to inject into the host page; null = none. */
  jsonLd: object | null;
  /** Pixel height the container reserves: `layoutHeight(layout, options)`. */
  height: number;
}
