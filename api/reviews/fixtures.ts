/**
 * A deterministic test data set of reviews with a known shape, shared by the
 * store, query and HTTP tests, plus brute-force reference answers
 * (`referenceList`, `referenceStats`) that the real implementations must match.
 *
 * The data deliberately holds the awkward cases: every platform (and one
 * non-standard one), unrated reviews, groups of reviews with the same date
 * (ordering falls back to id), dates exactly on the 7- and 30-day boundaries
 * and 1 ms either side, a review in the future, dates at midnight UTC (for
 * date-only `since`), and hostile text (HTML, emoji, RTL, control characters).
 */
import { awaitsReply } from './reply-figures.ts';
import type { MonthlyCount, MonthlyQuery, Review, ReviewInput, ReviewPage, ReviewQuery, ReviewStats, SentimentLabel, StatsQuery } from '../store/types.ts';
import { seededRandom } from '../demo/seeded-random.ts';

export const FIXTURE_NOW = new Date('2026-11-21T12:00:00.000Z');
export const FIXTURE_PLATFORMS = ['GOOGLE', 'YELP', 'TRUSTPILOT', 'G2', 'CAPTERRA', 'FACEBOOK'] as const;
/** CONTRACT §3: the statistics of an organization without reviews (zeros and nulls, not an error). */
export const EMPTY_STATS: ReviewStats = {
  totalReviews: 0,
  averageRating: null,
  averageSentiment: null,
  last30Days: 0,
  last7Days: 0,
  platforms: [],
  ratingDistribution: [5, 4, 3, 2, 1].map((rating) => ({ rating, count: 0 })),
};

/** A platform outside the six observed ones: imports accept any identifier. */
export const FIXTURE_EXTRA_PLATFORM = 'TRIPADVISOR';

const DAY = 24 * 60 * 60 * 1000;

/** The catalog products fixture reviews name (one review in four names none); two differ only in case. */
export const FIXTURE_PRODUCT_IDS = ['sku-1', 'SKU-1', 'shoe.red_42', 'b'] as const;
const PRODUCT_IDS = FIXTURE_PRODUCT_IDS;

export { seededRandom };

/** The plain answer fixture reviews carry (hostile ones besides). */
export const REPLY_TEXT = 'Thank you for taking the time to write this. We have passed it on to the team.';

export const HOSTILE_TEXTS = [
  '<script>alert(1)</script>',
  '</script><script>alert("x")</script>',
  '<img src=x onerror=alert(1)>Nice place',
  '"><svg/onload=alert(1)> & &amp; &lt;b&gt;',
  'Great coffee ☕️🔥 — would come back 👍🏽',
  'קפה מצוין ושירות נהדר',
  'قهوة رائعة وخدمة ممتازة',
  'Mixed: hello עולם مرحبا 123',
  'Line one\nLine two\r\n\tTabbed',
  'Zero\u200bwidth and \u202eright-to-left override',
  'Null-ish: \u0000 and \u0007 bell',
  '{"json":"looking"}, [1,2,3]',
  "Robert'); DROP TABLE reviews;--",
  '{{constructor.constructor("alert(1)")()}}',
  '𝓕𝓪𝓷𝓬𝔂 unicode 𝟙𝟚𝟛 and combining é vs é',
  '',
];

const PLAIN_TEXTS = [
  'Great service and friendly staff.',
  'The product works as advertised, setup took ten minutes.',
  'Not impressed, the order arrived late and cold.',
  'Solid experience overall, a few rough edges.',
  'Support answered within the hour. Five stars.',
  'Would not recommend; billing was confusing.',
  'El servicio fue excelente y muy rápido.',
  'Très bonne expérience, je recommande.',
  'Sehr zufrieden, gerne wieder.',
];

const NAMES = ['Ana García', 'Bob Smith', 'Chloé Martin', 'Dieter Müller', '李雷', 'Олег', 'سارة', 'דני', 'O\'Brien', '<b>Eve</b>', 'Zoë 🌸'];
const THEMES = ['service', 'price', 'quality', 'speed', 'support', 'atmosphere', 'onboarding'];

export interface ReviewFixture {
  now: Date;
  /** Organizations, the last one without any review. */
  orgIds: string[];
  reviews: Review[];
  byOrg(orgId: string): Review[];
  /** The org's reviews as import inputs (what `ReviewStore.upsert` takes). */
  inputs(orgId: string): ReviewInput[];
  /** `since` values worth testing: every boundary in the data and 1 ms either side. */
  sinceCandidates: Date[];
}

export interface FixtureOptions {
  seed?: number;
  /** Reviews per organization; an extra empty organization is always added. */
  sizes?: number[];
  now?: Date;
}

export function generateFixture(options: FixtureOptions = {}): ReviewFixture {
  const seed = options.seed ?? 20261121;
  const sizes = options.sizes ?? [2400, 600, 40];
  const now = options.now ?? FIXTURE_NOW;
  const rnd = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const usedIds = new Set<string>();
  const newId = (): string => {
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    for (;;) {
      let id = 'rev_';
      for (let i = 0; i < 20; i++) id += alphabet[Math.floor(rnd() * 62)];
      if (!usedIds.has(id)) {
        usedIds.add(id);
        return id;
      }
    }
  };
  const t = now.getTime();
  const boundaries = [
    t,
    t + 60 * 60 * 1000,
    t - 7 * DAY,
    t - 7 * DAY + 1,
    t - 7 * DAY - 1,
    t - 30 * DAY,
    t - 30 * DAY + 1,
    t - 30 * DAY - 1,
    Date.parse('2026-01-01T00:00:00.000Z'),
    Date.parse('2025-06-15T00:00:00.000Z'),
  ];

  const orgIds = sizes.map((_, i) => `org_fixture${String.fromCharCode(65 + i)}`);
  orgIds.push('org_fixtureEmpty');
  const reviews: Review[] = [];
  sizes.forEach((size, orgIndex) => {
    const orgId = orgIds[orgIndex]!;
    // The small org only uses some platforms, so missing ones are exercised.
    const platforms: string[] = orgIndex === 2 ? ['GOOGLE', 'FACEBOOK', 'G2'] : [...FIXTURE_PLATFORMS];
    if (orgIndex === 1) platforms.push(FIXTURE_EXTRA_PLATFORM);
    const dates: number[] = [];
    for (let n = 0; n < size; n++) {
      const roll = rnd();
      let date: number;
      if (n < boundaries.length && size > boundaries.length * 2) date = boundaries[n]!;
      else if (roll < 0.12 && dates.length > 0) date = pick(dates); // same date as another review
      else if (roll < 0.3) date = t - Math.floor(rnd() * 40 * DAY);
      else date = t - Math.floor(rnd() * 800 * DAY);
      if (rnd() < 0.05) date -= date % DAY; // midnight UTC
      dates.push(date);
      const platform = pick(platforms);
      const unrated = platform === 'FACEBOOK' ? rnd() < 0.8 : rnd() < 0.04;
      const r = rnd();
      const rating = unrated ? null : r < 0.5 ? 5 : r < 0.75 ? 4 : r < 0.85 ? 3 : r < 0.92 ? 2 : 1;
      const hasSentiment = rnd() < 0.6;
      const sentiment = hasSentiment ? pick([0, 1, 0.5, Math.round(rnd() * 1e3) / 1e3, rnd(), Math.round(rnd() * 1e8) / 1e8]) : null;
      const sentimentLabel: SentimentLabel | null =
        sentiment === null ? null : sentiment >= 0.6 ? 'POSITIVE' : sentiment <= 0.4 ? 'NEGATIVE' : 'NEUTRAL';
      const created = new Date(Math.max(date, t - 900 * DAY) + Math.floor(rnd() * DAY)).toISOString();
      const id = newId();
      reviews.push({
        id,
        orgId,
        platform,
        externalId: rnd() < 0.1 ? `${platform.toLowerCase()}:${n}` : `ext-${orgIndex}-${n}`,
        authorName: pick(NAMES),
        authorAvatar: rnd() < 0.5 ? `https://avatars.example.com/${n}.png` : null,
        rating,
        content: rnd() < 0.25 ? pick(HOSTILE_TEXTS) : pick(PLAIN_TEXTS),
        date: new Date(date).toISOString(),
        url: rnd() < 0.7 ? `https://reviews.example.com/${platform.toLowerCase()}/${n}` : null,
        language: pick(['en', 'en', 'en', 'es', 'fr', 'de', 'he', 'ar']),
        isVerified: rnd() < 0.4,
        sentiment,
        sentimentLabel,
        aiSummary: hasSentiment && rnd() < 0.5 ? 'Customer summary <b>bold</b> 🙂' : null,
        aiThemes: hasSentiment ? THEMES.filter(() => rnd() < 0.25) : [],
        createdAt: created,
        updatedAt: created,
        // From the review's number, not the random stream (the other fields stay as they were); ids differing only in case are two products.
        productId: n % 4 === 0 ? null : PRODUCT_IDS[(n >> 2) % PRODUCT_IDS.length]!,
        // Also from the number: one review in three is answered, some of the answers hostile text, none later than now.
        reply: n % 3 === 1 ? { text: n % 9 === 1 ? HOSTILE_TEXTS[n % (HOSTILE_TEXTS.length - 1)]! : REPLY_TEXT, date: new Date(Math.min(date + (1 + (n % 72)) * 3_600_000, t)).toISOString() } : null,
      });
    }
  });

  const sinceCandidates = [...new Set([...boundaries, ...boundaries.map((b) => b - 1), ...boundaries.map((b) => b + 1)])]
    .sort((a, b) => a - b)
    .map((ms) => new Date(ms));
  const grouped = new Map<string, Review[]>(orgIds.map((id) => [id, []]));
  for (const review of reviews) grouped.get(review.orgId)!.push(review);
  return {
    now,
    orgIds,
    reviews,
    byOrg: (orgId) => grouped.get(orgId) ?? [],
    inputs: (orgId) => (grouped.get(orgId) ?? []).map(toInput),
    sinceCandidates,
  };
}

export function toInput(review: Review): ReviewInput {
  const { id: _id, orgId: _org, createdAt: _c, updatedAt: _u, ...input } = review;
  return input;
}

/** The API order: date descending, then id descending (by the numeric date, independently of ISO strings). */
export function referenceOrder(a: Review, b: Review): number {
  const byDate = Date.parse(b.date) - Date.parse(a.date);
  if (byDate !== 0) return byDate;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export function referenceMatches(review: Review, q: Omit<ReviewQuery, 'limit' | 'offset'>): boolean {
  if (review.orgId !== q.orgId) return false;
  if (q.platforms !== undefined && !q.platforms.includes(review.platform)) return false;
  if (q.minRating !== undefined && (review.rating === null || review.rating < q.minRating)) return false;
  if (q.maxRating !== undefined && (review.rating === null || review.rating > q.maxRating)) return false;
  if (q.since !== undefined && !(Date.parse(review.date) > q.since.getTime())) return false;
  if (q.language !== undefined && review.language !== q.language) return false;
  if (q.productId !== undefined && review.productId !== q.productId) return false;
  if (q.awaitingReply === true && !awaitsReply(review)) return false;
  if (q.sourceIds !== undefined && (review.sourceId === undefined || !q.sourceIds.includes(review.sourceId))) return false;
  return true;
}

/** Brute force: filter, sort, slice. */
export function referenceList(reviews: readonly Review[], q: ReviewQuery): ReviewPage {
  const matching = reviews.filter((r) => referenceMatches(r, q)).sort(referenceOrder);
  return { total: matching.length, items: matching.slice(q.offset, q.offset + q.limit) };
}

/** Brute force statistics, computed directly from the definitions in CONTRACT §3. */
export function referenceStats(reviews: readonly Review[], q: StatsQuery): ReviewStats {
  const mine = reviews.filter(
    (r) => r.orgId === q.orgId && (q.platforms === undefined || q.platforms.includes(r.platform)) && (q.productId === undefined || r.productId === q.productId) &&
      (q.sourceIds === undefined || (r.sourceId !== undefined && q.sourceIds.includes(r.sourceId))),
  );
  const now = q.now.getTime();
  const within = (days: number) => mine.filter((r) => Date.parse(r.date) > now - days * DAY && Date.parse(r.date) <= now).length;
  const avg = (values: number[], scale: number) =>
    values.length === 0 ? null : Math.round((values.reduce((s, v) => s + v, 0) * 100) / (values.length * scale)) / 100;
  const ratings = (rs: Review[]) => rs.flatMap((r) => (r.rating === null ? [] : [r.rating]));
  const byPlatform = new Map<string, Review[]>();
  for (const r of mine) {
    const list = byPlatform.get(r.platform);
    if (list) list.push(r);
    else byPlatform.set(r.platform, [r]);
  }
  const platforms = [...byPlatform.entries()]
    .map(([platform, rs]) => ({ platform, count: rs.length, averageRating: avg(ratings(rs), 1) }))
    .sort((a, b) => b.count - a.count || (a.platform < b.platform ? -1 : 1));
  const distribution: ReviewStats['ratingDistribution'] = [5, 4, 3, 2, 1].map((rating) => ({
    rating,
    count: mine.filter((r) => r.rating === rating).length,
  }));
  const unrated = mine.filter((r) => r.rating === null).length;
  if (unrated > 0) distribution.push({ rating: null, count: unrated });
  return {
    totalReviews: mine.length,
    averageRating: avg(ratings(mine), 1),
    averageSentiment: avg(
      mine.flatMap((r) => (r.sentiment === null ? [] : [Math.round(r.sentiment * 1e6)])),
      1e6,
    ),
    last30Days: within(30),
    last7Days: within(7),
    platforms,
    ratingDistribution: distribution,
  };
}

/** Brute force: reviews per UTC month and platform from..to, as `ReviewStore.monthly` answers. */
export function referenceMonthly(reviews: readonly Review[], q: MonthlyQuery): MonthlyCount[] {
  const rows = new Map<string, MonthlyCount>();
  for (const r of reviews) {
    if (r.orgId !== q.orgId) continue;
    const month = new Date(r.date).toISOString().slice(0, 7);
    if (month < q.from || month > q.to) continue;
    const key = `${month} ${r.platform}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { month, platform: r.platform, count: 0, ratedCount: 0, ratingSum: 0 }));
    row.count++;
    if (r.rating !== null) {
      row.ratedCount++;
      row.ratingSum += r.rating;
    }
  }
  return [...rows.values()].sort((a, b) => (a.month !== b.month ? (a.month < b.month ? -1 : 1) : a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0));
}
