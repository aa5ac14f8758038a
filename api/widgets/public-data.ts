/**
 * What the public, key-less widget endpoint returns: only what the widget
 * displays (never organization internals), with the JSON-LD document built
 * server-side when the widget injects it.
 */
import { buildWidgetJsonLd } from '../../schema/build.ts';
import { shouldInject } from '../../schema/inject.ts';
import { layoutHeight, layoutRows } from '../../widget/src/layout-height.ts';
import type { PublicReview, PublicWidgetData } from '../../widget/src/public-data.ts';
import { invalidParameters } from '../errors.ts';
import { productNotFound } from '../products/service.ts';
import type { Product } from '../store/product-types.ts';
import { DIRECT_PLATFORM, type Review, type ReviewStats, type Store, type Widget } from '../store/types.ts';

/** Pages read at most when hiding reviews without text: bounded work per request. */
const MAX_PAGES = 5;

export function httpsOnly(value: string | null): string | null {
  if (value === null) return null;
  try {
    return new URL(value).protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

/**
 * The sources whose reviews the widget shows (CONTRACT §15, chains), as a query's filter: absent
 * when it shows every review, and for a product widget (its product's reviews, whatever the source).
 */
export function sourceFilter(widget: Widget, product: Product | null = null): { sourceIds: string[] } | Record<string, never> {
  const ids = widget.options.sourceIds;
  return Array.isArray(ids) && product === null && widget.options.productFrom !== 'page' && typeof widget.options.productId !== 'string' ? { sourceIds: ids } : {};
}

/**
 * The ids of the reviews of the widget's platforms (and sources) that the owner hid
 * (moderation, CONTRACT §7): left out of display and JSON-LD `review` items,
 * still counted by the statistics and `aggregateRating`.
 */
export async function hiddenReviews(store: Store, widget: Widget): Promise<Set<string>> {
  const { platforms } = widget.options;
  const all = (await store.moderation.listByOrg(widget.orgId)).filter((m) => !platforms || platforms.includes(m.platform));
  const scope = sourceFilter(widget);
  if (!('sourceIds' in scope) || all.length === 0) return new Set(all.map((m) => m.reviewId));
  // Some sources only: a hidden review counts here when one of them collected it (a short list, read by hand like hiddenCount's).
  const chosen = new Set(scope.sourceIds);
  const reviews = await Promise.all(all.map((m) => store.reviews.get(widget.orgId, m.reviewId)));
  return new Set(reviews.flatMap((r) => (r && r.sourceId !== undefined && chosen.has(r.sourceId) ? [r.id] : [])));
}

/** The reviews a widget displays: its platforms and minimum stars, newest first, none of the hidden ones. */
export async function displayedReviews(store: Store, widget: Widget, hiddenIds?: Set<string>, product: Product | null = null): Promise<Review[]> {
  const { platforms, minRating, maxReviews, hideEmpty } = widget.options;
  const hidden = hiddenIds ?? (await hiddenReviews(store, widget));
  const picked: Review[] = [];
  const pageSize = hideEmpty ? 100 : Math.min(100, maxReviews + hidden.size);
  for (let page = 0; page < MAX_PAGES && picked.length < maxReviews; page++) {
    const { items, total } = await store.reviews.list({
      orgId: widget.orgId,
      ...(platforms && { platforms }),
      ...(minRating !== null && { minRating }),
      ...(product && { productId: product.id }),
      ...sourceFilter(widget, product),
      limit: pageSize,
      offset: page * pageSize,
    });
    for (const review of items) {
      if (hideEmpty && review.content.trim() === '') continue;
      if (hidden.has(review.id)) continue;
      picked.push(review);
      if (picked.length === maxReviews) break;
    }
    if ((page + 1) * pageSize >= total) break;
  }
  return picked;
}

export function widgetStats(store: Store, widget: Widget, now: Date, product: Product | null = null): Promise<ReviewStats> {
  return store.reviews.stats({ orgId: widget.orgId, now, ...(widget.options.platforms && { platforms: widget.options.platforms }), ...(product && { productId: product.id }), ...sourceFilter(widget, product) });
}

/** Whether the widget's JSON-LD is built from `DIRECT` reviews only (the default, CONTRACT §13). */
export function directOnly(widget: Widget): boolean {
  return widget.options.jsonLdSources !== 'all';
}

const NO_STATS: ReviewStats = { totalReviews: 0, averageRating: null, averageSentiment: null, last30Days: 0, last7Days: 0, platforms: [], ratingDistribution: [] };

/**
 * The statistics the JSON-LD's aggregateRating is built from: the widget's own (`all`), or
 * those of its `DIRECT` reviews (`direct`), read only when the widget has some.
 */
async function jsonLdStatsOf(store: Store, widget: Widget, now: Date, product: Product | null, stats: ReviewStats): Promise<ReviewStats> {
  if (!directOnly(widget)) return stats;
  const direct = stats.platforms.find((p) => p.platform === DIRECT_PLATFORM);
  if (!direct || direct.count === 0) return NO_STATS;
  if (stats.platforms.every((p) => p.platform === DIRECT_PLATFORM || p.count === 0)) return stats;
  return store.reviews.stats({ orgId: widget.orgId, now, platforms: [DIRECT_PLATFORM], ...(product && { productId: product.id }), ...sourceFilter(widget, product) });
}

/**
 * The product a widget shows (CONTRACT §13): its own (`productId`), the one the page names
 * (`productFrom: "page"`, `requested` from the query string), or none. 404
 * `product_not_found` for an id the catalog lacks; 400 when the query string and the
 * widget disagree.
 */
export async function widgetProduct(store: Store, widget: Widget, requested: string | undefined): Promise<Product | null> {
  const { productId, productFrom } = widget.options;
  let id: string | null = null;
  if (productFrom === 'page') {
    if (requested === undefined) {
      throw invalidParameters(
        [{ parameter: 'productId', message: 'is required for this widget' }],
        'This widget shows the product of the page it is on (productFrom: "page"): give productId, the container\'s data-product-id.',
      );
    }
    id = requested;
  } else if (typeof productId === 'string') {
    if (requested !== undefined && requested !== productId) {
      throw invalidParameters([{ parameter: 'productId', message: 'is not this widget\'s product' }], 'This widget shows one product of its own: leave productId out, or name that product.');
    }
    id = productId;
  } else if (requested !== undefined) {
    throw invalidParameters([{ parameter: 'productId', message: 'is not taken by this widget' }], 'This widget shows no product: leave productId out.');
  }
  if (id === null) return null;
  const product = await store.products.get(widget.orgId, id);
  if (!product) throw productNotFound(id);
  return product;
}

/**
 * The widget as a product widget describes it: its subject is the product, from the catalog
 * (the JSON-LD adds the product's id as `sku` and its `gtin`).
 */
export function asProductWidget(widget: Widget, product: Product | null): Widget {
  if (!product) return widget;
  return { ...widget, subject: { type: 'Product', name: product.name, url: product.url, image: product.imageUrl, brand: product.brand } };
}

/** Whether a widget shows replies (CONTRACT §15; absent on older widgets: shown). */
export const showsReplies = (widget: Widget): boolean => widget.options.showReplies !== false;

function publicReview(r: Review, replies: boolean): PublicReview {
  const shown: PublicReview = {
    id: r.id,
    platform: r.platform,
    authorName: r.authorName,
    authorAvatar: httpsOnly(r.authorAvatar),
    rating: r.rating,
    content: r.content,
    date: r.date,
    url: httpsOnly(r.url),
    isVerified: r.isVerified,
    language: r.language || null,
  };
  // Only where there is one and the widget shows replies: no key at all otherwise (bytes on every visit).
  if (replies && r.reply) shown.reply = { text: r.reply.text, date: r.reply.date };
  return shown;
}

/** What a widget's public data and its SEO lint are made of: read once, used by both. */
export interface WidgetInputs {
  hidden: Set<string>;
  /**
   * Reviews of the widget's platforms a visitor is told are not shown ("N hidden by the owner"):
   * those the owner hid, and those under the widget's minimum stars (unrated ones included),
   * each counted once. Filtering by stars is the owner's choice too, and the widget says so.
   */
  hiddenCount: number;
  stats: ReviewStats;
  reviews: Review[];
  /** The organization's name, which signs the replies shown; null when the widget shows none. */
  organization: string | null;
  /** The product of a product widget (its subject), else null. */
  product: Product | null;
  /** What the JSON-LD's aggregateRating counts: `stats`, or its `DIRECT` part (jsonLdSources). */
  jsonLdStats: ReviewStats;
}

export async function widgetInputs(store: Store, widget: Widget, now = new Date(), product: Product | null = null): Promise<WidgetInputs> {
  const hidden = await hiddenReviews(store, widget);
  const [stats, reviews] = await Promise.all([widgetStats(store, widget, now, product), displayedReviews(store, widget, hidden, product)]);
  const [count, jsonLdStats] = await Promise.all([hiddenCount(store, widget, hidden, stats), jsonLdStatsOf(store, widget, now, product, stats)]);
  // Read only when a reply is shown: most widgets' data costs no organization lookup.
  const organization = showsReplies(widget) && reviews.some((r) => r.reply) ? ((await store.orgs.get(widget.orgId))?.name ?? null) : null;
  return { hidden, hiddenCount: count, stats, reviews, product, jsonLdStats, organization };
}

/** The widget's JSON-LD document (the schema endpoint's answer), from its inputs. */
export function widgetJsonLd(widget: Widget, { jsonLdStats, reviews, product }: WidgetInputs): ReturnType<typeof buildWidgetJsonLd> {
  return buildWidgetJsonLd({ widget: asProductWidget(widget, product), stats: jsonLdStats, reviews, product });
}

/** WidgetInputs.hiddenCount: the reviews under the minimum stars, and the ones the owner hid above it (a short list). */
async function hiddenCount(store: Store, widget: Widget, hidden: Set<string>, stats: ReviewStats): Promise<number> {
  const min = widget.options.minRating;
  if (min === null) return hidden.size;
  const below = stats.ratingDistribution.reduce((sum, b) => (b.rating === null || b.rating < min ? sum + b.count : sum), 0);
  if (below === 0) return hidden.size;
  const hiddenOnes = await Promise.all([...hidden].map((id) => store.reviews.get(widget.orgId, id)));
  return below + hiddenOnes.filter((r) => r !== null && r.rating !== null && r.rating >= min).length;
}

export async function publicWidgetData(store: Store, widget: Widget, now = new Date(), product: Product | null = null): Promise<PublicWidgetData> {
  return publicWidgetDataOf(widget, await widgetInputs(store, widget, now, product));
}

export function publicWidgetDataOf(widget: Widget, inputs: WidgetInputs): PublicWidgetData {
  const { hiddenCount, stats, reviews, product, organization } = inputs;
  const { options } = widget;
  const ratedReviews = stats.ratingDistribution.reduce((sum, b) => (b.rating === null ? sum : sum + b.count), 0);
  const described = asProductWidget(widget, product);
  const jsonLd = widget.options.jsonLd === 'off' ? null : widgetJsonLd(widget, inputs);
  return {
    id: widget.id,
    layout: widget.layout,
    subject: described.subject.name,
    ...(organization !== null && { organization }),
    // Only what the browser needs: the filters were applied above.
    options: {
      theme: options.theme,
      accentColor: options.accentColor,
      showDates: options.showDates,
      locale: options.locale,
      reviewLanguages: options.reviewLanguages ?? 'all',
    },
    summary: { averageRating: stats.averageRating, totalReviews: stats.totalReviews, ratedReviews, platforms: stats.platforms, hiddenReviews: hiddenCount },
    reviews: reviews.map((r) => publicReview(r, organization !== null)),
    jsonLd: jsonLd && shouldInject(described, jsonLd) ? jsonLd : null,
    rows: layoutRows(widget.layout, options),
    height: layoutHeight(widget.layout, options),
  };
}
