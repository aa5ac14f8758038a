/**
 * SEO lint of a widget's JSON-LD: what would keep the markup from earning
 * review stars, or breach Google's review snippet guidelines. Backs
 * `npm run admin -- widgets lint <id>` and the admin API.
 *
 * It lints the document `buildWidgetJsonLd` really produces, so the lint and
 * the published markup cannot disagree.
 */
import type { Product } from '../api/store/product-types.ts';
import { DIRECT_PLATFORM, type Review, type ReviewStats, type Widget } from '../api/store/types.ts';
import { AUTHOR_NAME_MAX, buildWidgetJsonLd, cleanText, httpUrl, ratingSummary } from './build.ts';
import { isOrganizationType, shouldInject } from './inject.ts';

export type Severity = 'error' | 'warning';

export interface Finding {
  /** Stable rule id, e.g. `self-serving-reviews`. */
  rule: string;
  severity: Severity;
  message: string;
  /** The search engine documentation the rule comes from. */
  link: string;
}

export interface LintInput {
  widget: Widget;
  /**
   * Stats of the reviews the markup is built from: the widget's platforms, only their
   * `DIRECT` reviews unless `jsonLdSources` is `all` (api/widgets/public-data.ts jsonLdStats).
   */
  stats: ReviewStats;
  /** Stats of every review the widget shows, when they differ from `stats` (what `direct` leaves out of the markup). */
  shownStats?: ReviewStats;
  /** A product widget's product (its id and gtin go into the markup). */
  product?: Pick<Product, 'id' | 'gtin'> | null;
  /** The reviews the widget displays. */
  reviews: readonly Review[];
  /** Name of the organization that owns the widget (the site owner). */
  organizationName: string;
}

const REVIEW_SNIPPET = 'https://developers.google.com/search/docs/appearance/structured-data/review-snippet';

export const LINKS = {
  guidelines: `${REVIEW_SNIPPET}#guidelines`,
  typeDefinitions: `${REVIEW_SNIPPET}#structured-data-type-definitions`,
  aggregateRating: `${REVIEW_SNIPPET}#aggregated-rating-type-definition`,
  review: `${REVIEW_SNIPPET}#review-properties`,
  recipe: 'https://developers.google.com/search/docs/appearance/structured-data/recipe',
  policies: 'https://developers.google.com/search/docs/appearance/structured-data/sd-policies',
} as const;

/**
 * Below this many rated reviews the lint warns. Google publishes no minimum;
 * this is our heuristic: with fewer than five ratings one review moves the
 * average by a whole star or more, and stars on so little data are rarely shown.
 */
export const FEW_RATINGS = 5;

/** Review platforms that are other websites: their reviews were not written on the site owner's site. */
export const THIRD_PARTY_PLATFORMS: ReadonlySet<string> = new Set([
  'GOOGLE', 'YELP', 'TRUSTPILOT', 'G2', 'CAPTERRA', 'FACEBOOK',
  'TRIPADVISOR', 'AMAZON', 'APPLE_APP_STORE', 'GOOGLE_PLAY', 'BBB', 'GLASSDOOR',
]);

/**
 * Item types Google accepts for review snippets (each with its subtypes).
 * HowTo is in Google's list but not a widget subject type.
 */
export const REVIEWABLE_TYPES: ReadonlySet<string> = new Set([
  'Book', 'Course', 'CreativeWorkSeason', 'CreativeWorkSeries', 'Episode', 'Event', 'Game', 'HowTo',
  'LocalBusiness', 'MediaObject', 'Movie', 'MusicPlaylist', 'MusicRecording', 'Organization', 'Product',
  'Recipe', 'SoftwareApplication',
]);

export function lintWidgetSchema({ widget, stats, shownStats = stats, reviews, product = null, organizationName }: LintInput): Finding[] {
  const findings: Finding[] = [];
  const add = (rule: string, severity: Severity, message: string, link: string): void => {
    findings.push({ rule, severity, message, link });
  };
  const { subject, options } = widget;
  const doc = buildWidgetJsonLd({ widget, stats, reviews, product });
  const direct = options.jsonLdSources !== 'all';
  const summary = ratingSummary(stats.ratingDistribution);
  const injected = shouldInject(widget);

  // Self-serving: the organization marks up reviews of itself on its own site.
  if (isOrganizationType(subject.type)) {
    const own = sameName(subject.name, organizationName);
    const where = injected
      ? `The widget injects this markup (jsonLd: "${options.jsonLd}")`
      : `The widget does not inject it (jsonLd: "${options.jsonLd}"), but the schema endpoint still serves it`;
    add(
      'self-serving-reviews',
      own ? 'error' : 'warning',
      own
        ? `The subject is ${subject.type} "${subject.name}", the site owner itself: Google shows no review stars for self-serving reviews of a LocalBusiness or Organization. ${where}. Describe a product or service instead.`
        : `The subject is a ${subject.type} ("${subject.name}"). Reviews of an organization shown on that organization's own site are self-serving and earn no stars; only a site that is not run by "${subject.name}" may use them. ${where}.`,
      LINKS.guidelines,
    );
  }

  // Aggregated from other websites.
  const external = stats.platforms
    .filter((p) => p.count > 0 && THIRD_PARTY_PLATFORMS.has(p.platform.toUpperCase()))
    .map((p) => `${p.platform} (${p.count})`);
  if (external.length > 0) {
    // Only with jsonLdSources "all": by default (direct) the markup is built from DIRECT reviews alone.
    add(
      'third-party-reviews',
      'error',
      `The markup counts reviews from other websites: ${external.join(', ')} (jsonLdSources: "all"). Google's guidelines allow marking up only reviews produced on the site itself, never reviews aggregated from other websites: this may earn no stars or count as a guideline breach. Set jsonLdSources to "direct" (only reviews you collected yourself), or jsonLd to "off".`,
      LINKS.guidelines,
    );
  }

  // Required properties.
  if (!REVIEWABLE_TYPES.has(subject.type)) {
    add(
      'missing-required-property',
      'error',
      `The subject type "${subject.type}" is not one Google accepts as the item of a review snippet.`,
      LINKS.typeDefinitions,
    );
  }
  if (!('name' in doc) || !doc.name) {
    add(
      'missing-required-property',
      'error',
      'The subject has no name: the reviewed item\'s "name" is required.',
      LINKS.aggregateRating,
    );
  }
  if (subject.type === 'Recipe' && !('image' in doc)) {
    add(
      'missing-required-property',
      'error',
      'A Recipe needs an "image" (an absolute https URL): set the widget subject\'s image.',
      LINKS.recipe,
    );
  }
  for (const [field, value] of [['url', subject.url], ['image', subject.image]] as const) {
    if (value !== null && value.trim() !== '' && httpUrl(value) === null) {
      add(
        'invalid-url',
        'warning',
        `The subject's ${field} "${value}" is not an absolute http(s) URL and is left out of the markup.`,
        LINKS.policies,
      );
    }
  }

  // Too few reviews.
  const shownRated = shownStats.ratingDistribution.some((b) => b.rating !== null && b.count > 0);
  if (summary === null && direct && shownRated) {
    const others = shownStats.platforms.filter((p) => p.count > 0 && p.platform !== DIRECT_PLATFORM).map((p) => p.platform);
    add(
      'no-direct-reviews',
      'warning',
      `No rated review here was collected on your own site (platform ${DIRECT_PLATFORM}), so the markup publishes no rating: the reviews shown${others.length > 0 ? ` (${others.join(', ')})` : ''} come from other websites, and Google allows marking up only reviews produced on the site itself (jsonLdSources: "direct"). Collect reviews with your review page to earn stars.`,
      LINKS.guidelines,
    );
  } else if (summary === null) {
    add(
      'too-few-reviews',
      'error',
      'No review on the widget\'s platforms has a star rating: the markup has no aggregateRating (ratingValue and reviewCount are required) and cannot earn stars.',
      LINKS.aggregateRating,
    );
  } else if (summary.reviewCount < FEW_RATINGS) {
    add(
      'too-few-reviews',
      'warning',
      `Only ${summary.reviewCount} rated review${summary.reviewCount === 1 ? '' : 's'}: an average over fewer than ${FEW_RATINGS} ratings is fragile and stars are unlikely to be shown.`,
      LINKS.aggregateRating,
    );
  }

  // Displayed reviews.
  if (options.minRating !== null && options.minRating > 1) {
    add(
      'selective-reviews',
      'warning',
      `The widget only displays reviews with ${options.minRating}+ stars, so the marked-up Review items are hand-picked. The aggregateRating still counts every rating, but markup that shows only favourable reviews can be judged misleading.`,
      LINKS.policies,
    );
  }
  const longNames = reviews.filter((r) => r.rating !== null && cleanText(r.authorName).length > AUTHOR_NAME_MAX);
  if (longNames.length > 0) {
    add(
      'author-name-too-long',
      'warning',
      `${longNames.length} displayed review author name${longNames.length === 1 ? ' is' : 's are'} too long and shortened in the markup to ${AUTHOR_NAME_MAX} characters; Google expects a real name under 100 characters.`,
      LINKS.review,
    );
  }
  const unrated = reviews.filter((r) => r.rating === null).length;
  if (unrated > 0 && summary !== null) {
    add(
      'unrated-reviews-left-out',
      'warning',
      `${unrated} displayed review${unrated === 1 ? ' has' : 's have'} no star rating and ${unrated === 1 ? 'is' : 'are'} left out of the markup (Google requires reviewRating on every Review).`,
      LINKS.review,
    );
  }

  return findings.sort((a, b) => severityRank(a.severity) - severityRank(b.severity));
}

function severityRank(severity: Severity): number {
  return severity === 'error' ? 0 : 1;
}

/** Names equal once case, accents, punctuation and legal suffixes are ignored. */
function sameName(a: string, b: string): boolean {
  const norm = (s: string): string =>
    s
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .replace(/\b(inc|llc|ltd|gmbh|sa|sas|srl|bv|ag|co|corp|company|limited)\b/g, ' ')
      .trim()
      .replace(/\s+/g, ' ');
  const x = norm(a);
  return x !== '' && x === norm(b);
}

/** Findings as lines for people: `error   self-serving-reviews  message (link)`. */
export function formatFindings(findings: readonly Finding[]): string {
  if (findings.length === 0) return 'No findings: the markup follows the review snippet rules this lint knows.';
  return findings.map((f) => `${f.severity.padEnd(7)} ${f.rule}: ${f.message}\n        ${f.link}`).join('\n');
}
