/**
 * The records the service keeps and the store interfaces they live behind.
 * Two implementations sit side by side: `embedded/` (the default, a durable
 * log in DATA_DIR) and `mongo/` (production). `contract.test.ts` runs one
 * suite against both.
 */
import type { PeopleStore } from './people-types.ts';
import type { WebhookStore } from './webhook-types.ts';
import type { OutboxSignal } from './outbox-signal.ts';
import type { UpsertSignal } from './upsert-signal.ts';
import type { ProductStore } from './product-types.ts';
import type { ReplyStore } from './reply-types.ts';
import type { CollectStore } from './collect-types.ts';
import type { InvitationStore } from './invitation-types.ts';
import type { ReplyFigures } from '../reviews/reply-figures.ts';

export const PLANS = ['free', 'starter', 'growth', 'agency'] as const;
export type Plan = (typeof PLANS)[number];

export interface Organization {
  id: string;
  name: string;
  plan: Plan;
  /** Per-organization override of the plan's requests per minute; null = the plan's. */
  rateLimit: number | null;
  /**
   * Default review language (ISO 639-1): given to a review whose text is too
   * short to detect reliably, or whose detection is unsure (CONTRACT §9).
   */
  language: string;
  createdAt: string;
  updatedAt: string;
}

/** An organization's default review language unless set (`orgs create --language`, `orgs set-language`). */
export const DEFAULT_ORG_LANGUAGE = 'en';

/** Organizations stored before `language` existed read as the default. */
export function withOrgDefaults(org: Omit<Organization, 'language'> & { language?: string }): Organization {
  return org.language === undefined ? { ...org, language: DEFAULT_ORG_LANGUAGE } : (org as Organization);
}

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  name: string;
  /** The first characters of the key, shown in the key list. */
  prefix: string;
  /** Hex SHA-256 of the full key: the only form of the key that is stored. */
  hash: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  /** What the key may do (api/auth/permissions.ts); absent on keys made before permissions: read-only. */
  permissions?: readonly ('reviews:read' | 'invitations:write')[];
}

export type KeyState = 'active' | 'revoked' | 'expired';

export function keyState(key: ApiKeyRecord, now?: Date): KeyState {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= (now ? now.getTime() : Date.now())) return 'expired';
  return 'active';
}

export const WIDGET_LAYOUTS = ['carousel', 'grid', 'list', 'badge'] as const;
export type WidgetLayout = (typeof WIDGET_LAYOUTS)[number];

export const SUBJECT_TYPES = [
  'Product',
  'SoftwareApplication',
  'LocalBusiness',
  'Organization',
  'Book',
  'Course',
  'Event',
  'Movie',
  'Recipe',
  'CreativeWorkSeason',
  'CreativeWorkSeries',
  'Episode',
  'Game',
  'MediaObject',
  'MusicPlaylist',
  'MusicRecording',
] as const;
export type SubjectType = (typeof SUBJECT_TYPES)[number];

export interface WidgetSubject {
  type: SubjectType;
  name: string;
  url: string | null;
  image: string | null;
  brand: string | null;
}

export interface WidgetOptions {
  theme: 'light' | 'dark' | 'auto';
  /** CSS hex colour, e.g. #4f46e5 */
  accentColor: string;
  /** How many reviews the widget shows, 1-50. */
  maxReviews: number;
  /** Only show reviews with at least this many stars; null = all, including unrated. */
  minRating: number | null;
  /** Platforms shown (upper-case ids); null = all. Also the scope of the JSON-LD aggregate. */
  platforms: string[] | null;
  /** Leave out reviews whose text is empty. */
  hideEmpty: boolean;
  showDates: boolean;
  /** BCP 47 locale for dates and labels; null = the visitor's browser. */
  locale: string | null;
  /** JSON-LD injection into the host page: auto = only where the subject can earn review stars. */
  jsonLd: 'auto' | 'on' | 'off';
  /**
   * all: every review whatever its language; page: only the reviews in the
   * visitor's language when at least 3 are (else all). Absent on widgets
   * stored before the option existed, which read as all.
   */
  reviewLanguages?: ReviewLanguages;
  /** Show the organization's reply under its review (CONTRACT §15). Absent on widgets stored before the option existed, which read as true. */
  showReplies?: boolean;
  /**
   * A product widget (CONTRACT §13): the catalog id of the one product it shows. Absent or
   * null: the organization's reviews (or the page's product, with `productFrom`).
   */
  productId?: string | null;
  /** "page": the product named by the snippet container's `data-product-id`, one widget for every product page. */
  productFrom?: 'page' | null;
  /**
   * The reviews the JSON-LD's aggregateRating and review items are built from: only those
   * collected by the organization itself (`DIRECT`, the default; absent reads as it), or
   * every platform the widget shows (the owner's choice, against Google's guidelines).
   */
  jsonLdSources?: JsonLdSources;
  /**
   * The organization's sources whose reviews the widget shows (CONTRACT §15, chains: one
   * location's reviews on its store-locator page). Absent or null: every review. Ignored by
   * a product widget, which shows its product's reviews.
   */
  sourceIds?: string[] | null;
}

export const JSON_LD_SOURCES = ['direct', 'all'] as const;
export type JsonLdSources = (typeof JSON_LD_SOURCES)[number];

/** The platform of reviews an organization collected itself (its review page, CONTRACT §13). */
export const DIRECT_PLATFORM = 'DIRECT';

export const REVIEW_LANGUAGES = ['all', 'page'] as const;
export type ReviewLanguages = (typeof REVIEW_LANGUAGES)[number];

export interface Widget {
  id: string;
  orgId: string;
  name: string;
  layout: WidgetLayout;
  subject: WidgetSubject;
  options: WidgetOptions;
  createdAt: string;
  updatedAt: string;
}

export const SENTIMENT_LABELS = ['POSITIVE', 'NEUTRAL', 'NEGATIVE'] as const;
export type SentimentLabel = (typeof SENTIMENT_LABELS)[number];

/** A review as stored. `date`, `createdAt`, `updatedAt` are ISO 8601 strings (UTC, ms). */
export interface Review {
  id: string;
  orgId: string;
  platform: string;
  externalId: string;
  authorName: string;
  authorAvatar: string | null;
  /** Integer 1-5, or null when the platform has no stars (e.g. Facebook recommendations). */
  rating: number | null;
  content: string;
  date: string;
  url: string | null;
  language: string;
  isVerified: boolean;
  sentiment: number | null;
  sentimentLabel: SentimentLabel | null;
  aiSummary: string | null;
  aiThemes: string[];
  createdAt: string;
  updatedAt: string;
  /**
   * The source (CONTRACT §11) that collected this review from its platform,
   * at least once: absent for a review only ever imported from a file. Kept
   * when a file import rewrites the review (an input without it keeps the
   * stored one). A full pass removes only reviews its source collected. Never
   * shown by the API.
   */
  sourceId?: string;
  /** The catalog product the review is about (product-types.ts); null: about the organization. */
  productId: string | null;
  /** The organization's public answer as it stands on the platform (CONTRACT §15); null: none. */
  reply: ReviewReply | null;
}

/** A reply to a review: its text (plain, never HTML) and when it was written or last changed (ISO UTC, ms). */
export interface ReviewReply {
  text: string;
  date: string;
}

/**
 * A validated review as it arrives from an import: what the store upserts by
 * platform+externalId. `productId` absent reads as null (a sync names none).
 */
export type ReviewInput = Omit<Review, 'id' | 'orgId' | 'createdAt' | 'updatedAt' | 'productId' | 'reply'> & { productId?: string | null; reply?: ReviewReply | null };

export interface ReviewQuery {
  orgId: string;
  /** Upper-case platform ids; a review matches when its platform is one of them. */
  platforms?: string[];
  minRating?: number;
  maxRating?: number;
  /** Strictly after. */
  since?: Date;
  /** Lower-case ISO 639-1 code; a review matches when its language is this one. */
  language?: string;
  /** A catalog id; a review matches when it names this product. */
  productId?: string;
  /**
   * True: only reviews that can still be answered from here, i.e. on a
   * platform that shows replies (`REPLY_PLATFORMS`, api/reviews/reply-figures.ts)
   * with `reply` null. Reviews of other platforms never match.
   */
  awaitingReply?: boolean;
  /**
   * Source ids (CONTRACT §15, chains); a review matches when one of them collected it
   * (`Review.sourceId`). An empty list matches nothing. Not together with `productId`.
   */
  sourceIds?: string[];
  limit: number;
  offset: number;
}

export interface ReviewPage {
  total: number;
  items: Review[];
}

export interface PlatformStats {
  platform: string;
  count: number;
  averageRating: number | null;
}

export interface ReviewStats {
  totalReviews: number;
  averageRating: number | null;
  averageSentiment: number | null;
  last30Days: number;
  last7Days: number;
  platforms: PlatformStats[];
  ratingDistribution: { rating: number | null; count: number }[];
}

export interface StatsQuery {
  orgId: string;
  now: Date;
  /** Restrict to these upper-case platform ids (a widget's platforms); absent = all. */
  platforms?: string[];
  /** Restrict to the reviews of this catalog product. */
  productId?: string;
  /** Restrict to the reviews these sources collected (ReviewQuery.sourceIds). Not together with `productId`. */
  sourceIds?: string[];
}

/**
 * Reviews of one platform in one calendar month (UTC): what the Overview's
 * charts are drawn from. Both stores keep these as maintained aggregates.
 */
export interface MonthlyCount {
  /** `YYYY-MM`, the UTC calendar month of the reviews' `date`. */
  month: string;
  platform: string;
  count: number;
  ratedCount: number;
  /** Sum of the integer star ratings of the rated reviews. */
  ratingSum: number;
}

export interface MonthlyQuery {
  orgId: string;
  /** First and last month wanted, `YYYY-MM`, inclusive. */
  from: string;
  to: string;
}

export interface ReplyFiguresQuery {
  orgId: string;
  now: Date;
}

export interface UpsertResult {
  imported: number;
  updated: number;
}

export interface OrgStore {
  create(org: Organization): Promise<void>;
  get(id: string): Promise<Organization | null>;
  list(): Promise<Organization[]>;
  update(id: string, patch: Partial<Pick<Organization, 'name' | 'plan' | 'rateLimit' | 'language'>>): Promise<Organization | null>;
}

export interface KeyStore {
  create(key: ApiKeyRecord): Promise<void>;
  get(id: string): Promise<ApiKeyRecord | null>;
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  listByOrg(orgId: string): Promise<ApiKeyRecord[]>;
  revoke(id: string, at: Date): Promise<ApiKeyRecord | null>;
  /** Audit only: callers throttle it; it is never on a response's critical path. */
  touch(id: string, at: Date): Promise<void>;
  /**
   * A number that changes whenever any key is created or revoked, for a store
   * that alone sees every change (the embedded store: one writer process).
   * Absent where another process may revoke a key (MongoDB): callers read the
   * key again instead.
   */
  changes?(): number;
}

/**
 * A change to a widget: only the fields given, subject and options field by
 * field. The store merges it into the widget as stored at that moment, so two
 * overlapping updates of different fields both stay.
 */
export interface WidgetPatch {
  name?: string;
  layout?: WidgetLayout;
  subject?: Partial<WidgetSubject>;
  options?: Partial<WidgetOptions>;
}

export interface WidgetStore {
  create(widget: Widget): Promise<void>;
  get(id: string): Promise<Widget | null>;
  listByOrg(orgId: string): Promise<Widget[]>;
  update(id: string, patch: WidgetPatch): Promise<Widget | null>;
}

export interface ReviewStore {
  /** Ordered by date descending, then id descending. */
  list(query: ReviewQuery): Promise<ReviewPage>;
  stats(query: StatsQuery): Promise<ReviewStats>;
  /**
   * Insert or update by (orgId, platform, externalId), all or nothing for the batch.
   * A new review gets a fresh id and createdAt = now; an update keeps both.
   */
  upsert(orgId: string, reviews: ReviewInput[], now: Date): Promise<UpsertResult>;
  count(orgId: string): Promise<number>;
  /**
   * One review of an organization by id; null when it is not there or belongs
   * to another organization. For rare, by-hand actions (moderation): the
   * embedded store walks the organization's reviews rather than keep a second
   * map of every review id in memory.
   */
  get(orgId: string, id: string): Promise<Review | null>;
  /**
   * Per month and platform, the months from..to that hold reviews (no rows
   * with count 0), ordered by month then platform. Answered from maintained
   * aggregates, never by reading every review.
   */
  monthly(query: MonthlyQuery): Promise<MonthlyCount[]>;
  /**
   * The Overview's reply figures (api/reviews/reply-figures.ts): per platform
   * that shows replies, the reviews dated in the last 90 days up to `now`,
   * how many have a reply, and the median time to reply. Counted on the
   * window alone (binary searches, index ranges): reads only the replied
   * reviews of the window, never the organization's reviews.
   */
  replyFigures(query: ReplyFiguresQuery): Promise<ReplyFigures>;
  /**
   * A number that changes whenever the organization's reviews change, for a
   * store that alone sees every change (the embedded store: one writer
   * process), so that callers may keep answers computed from them until it
   * moves. Absent where another process may write (MongoDB).
   */
  generation?(orgId: string): number;
  /**
   * The reviews of (orgId, platform) with these external ids leave every
   * answer (lists, statistics, counts, months) and are kept with `removedAt`;
   * an upsert of the same natural key later brings the review back with its id
   * and createdAt. Answers how many were removed.
   *
   * Only reviews last written before `unseenSince` (the start of the full pass
   * that did not list them): a review upserted since then (seen again by an
   * import, or by a sync that overlapped) stays, whatever the order in which
   * the two land. The check and the removal are one step for each review.
   */
  remove(orgId: string, platform: string, externalIds: string[], at: Date, unseenSince: Date): Promise<number>;
  /**
   * The external ids of an organization's live (not removed) reviews of one
   * platform; with `collectedBy`, only those that source collected (`sourceId`).
   */
  externalIds(orgId: string, platform: string, collectedBy?: string): Promise<string[]>;
  /** The live reviews of (orgId, platform) with these external ids (those not there are left out), in no order. */
  findByExternalIds(orgId: string, platform: string, externalIds: string[]): Promise<Review[]>;
  /**
   * The live reviews of (orgId, platform) with these external ids that
   * `sourceId` collected are no longer counted as collected by it (`sourceId`
   * cleared, nothing else changed, `updatedAt` kept, no event): a person chose
   * to keep reviews the platform no longer lists, so no later full pass
   * removes them. Answers how many.
   */
  disown(orgId: string, platform: string, externalIds: string[], sourceId: string): Promise<number>;
  /** Removed reviews of an organization, for tests and by-hand checks. */
  listRemoved(orgId: string): Promise<RemovedReview[]>;
}

/** Why an Owner or Admin hid a review (CONTRACT §7). */
export const HIDE_REASONS = ['spam', 'offensive', 'personal_data', 'not_about_us'] as const;
export type HideReason = (typeof HIDE_REASONS)[number];

/**
 * A hidden review: kept apart from the review itself, so a re-import (which
 * rewrites the review) can never un-hide it. Hidden reviews are left out of
 * widget display and JSON-LD `review` items only; lists and statistics keep them.
 */
export interface ReviewModeration {
  reviewId: string;
  orgId: string;
  /** The review's platform (never changes: it is part of the natural key), for the widget's "N hidden" count. */
  platform: string;
  reason: HideReason;
  hiddenAt: string;
  /** Who hid it: the user and their email at the time. */
  hiddenBy: { userId: string | null; email: string };
}

export interface ModerationStore {
  /** Hides a review, or changes the reason of a hidden one; returns the record stored. */
  hide(record: ReviewModeration): Promise<ReviewModeration>;
  /** Shows a review again; false when it was not hidden. */
  show(orgId: string, reviewId: string): Promise<boolean>;
  /** Every hidden review of an organization, oldest first (a short list: moderation is by hand). */
  listByOrg(orgId: string): Promise<ReviewModeration[]>;
}

export const SOURCE_PLATFORMS = ['GOOGLE', 'TRUSTPILOT', 'YELP', 'FACEBOOK', 'G2'] as const;
export type SourcePlatform = (typeof SOURCE_PLATFORMS)[number];

export const SOURCE_STATES = ['active', 'paused', 'needs_reauth', 'failing'] as const;
export type SourceState = (typeof SOURCE_STATES)[number];

/**
 * How a sync ended, kept on the source (its last one) so the dashboard can say
 * it after a reload: what it created, updated and removed, or why it failed.
 */
export interface SyncResult {
  /** When it ended (ISO). */
  at: string;
  /** A full pass (the first, `--full`, the daily one): the only kind that removes. */
  full: boolean;
  /** `succeeded`; `failed` (retried with back-off); `refused`: the platform refused the credentials (needs_reauth). */
  outcome: 'succeeded' | 'failed' | 'refused';
  fetched: number;
  created: number;
  updated: number;
  removed: number;
  rejected: number;
  /** Why it failed, in words a person can act on; null when it succeeded. */
  error: string | null;
}

/**
 * A connected platform account (CONTRACT §11). `credentials` is sealed
 * (api/secrets): the store never sees the plain secret, and no answer
 * carries this field.
 */
export interface Source {
  id: string;
  orgId: string;
  platform: SourcePlatform;
  /** The platform's account id (a Google location name, a Trustpilot business unit id, …). */
  account: string;
  name: string;
  state: SourceState;
  /** Minutes between syncs (at least 1). */
  everyMinutes: number;
  /** Sealed credentials JSON (SecretBox, aad = the source id). */
  credentials: string;
  /** The newest platform time (ISO) of what the last complete incremental pass saw; null before the first. */
  cursor: string | null;
  lastSyncAt: string | null;
  lastSuccessAt: string | null;
  /** When the last complete full pass ended (removal runs only after one). */
  lastFullAt: string | null;
  nextSyncAt: string;
  lastError: string | null;
  /** Failed syncs in a row. */
  failures: number;
  /**
   * Removals a full pass held for a person (CONTRACT §11: more than 10 % of
   * the source's live reviews, and more than 5): how many, and when that pass
   * began. The held ids themselves are kept beside the record, written only
   * when the hold is made or changes (`SourceStore.held`, `takeHeld`), so a
   * sync that leaves the hold as it is writes nothing about it. Null or
   * absent (records stored before it existed): none.
   */
  held?: HeldSummary | null;
  /** The last sync's result (absent on a source stored before it was kept, and before the first sync). */
  lastResult?: SyncResult | null;
  createdAt: string;
  updatedAt: string;
}

/** What the source record keeps of a hold: the count (what `heldRemovals` shows) and when its pass began. */
export interface HeldSummary {
  count: number;
  /** ISO: the start of the full pass that did not list them. */
  since: string;
}

export interface HeldRemovals {
  externalIds: string[];
  /** ISO: the start of the full pass that did not list them (a review written since stays, as in `ReviewStore.remove`). */
  since: string;
}

export type SourcePatch = Partial<Omit<Source, 'id' | 'orgId' | 'platform' | 'createdAt' | 'held'>> & {
  /** A new hold replacing the source's (null: none); its ids are written once, beside the record. Absent: unchanged. */
  held?: HeldRemovals | null;
  /** Held ids the platform listed again: out of the hold (it ends when none is left); only these are written. */
  unheld?: string[];
};

export interface SourceStore {
  create(source: Source): Promise<void>;
  get(id: string): Promise<Source | null>;
  listByOrg(orgId: string): Promise<Source[]>;
  /** Every source of every organization (the scheduler's view). */
  listAll(): Promise<Source[]>;
  update(id: string, patch: SourcePatch): Promise<Source | null>;
  /** The removals held for a person (CONTRACT §11), ids and all; null when none. */
  held(id: string): Promise<HeldRemovals | null>;
  /** Which of `externalIds` the source's hold holds (a read bounded by the ids asked about, not by the hold). */
  heldAmong(id: string, externalIds: string[]): Promise<string[]>;
  /**
   * Ends the hold and answers what it held, in one step under the source's
   * write order: of two answers at once, one gets the ids, the other null.
   */
  takeHeld(id: string): Promise<HeldRemovals | null>;
  /** Forgets the source and its hold (its reviews stay); false when it was not there. */
  delete(id: string): Promise<boolean>;
}

/** A review the platform no longer lists: kept out of every answer, back as it was if listed again. */
export type RemovedReview = Review & { removedAt: string };

export interface Store {
  readonly kind: 'embedded' | 'mongodb';
  /** Dashboard users, sessions, invitations, audit (people-types.ts). */
  readonly people: PeopleStore;
  readonly orgs: OrgStore;
  readonly keys: KeyStore;
  readonly widgets: WidgetStore;
  readonly reviews: ReviewStore;
  /** Hidden reviews (moderation with disclosure, CONTRACT §7). */
  readonly moderation: ModerationStore;
  /** Connected platform accounts (CONTRACT §11). */
  readonly sources: SourceStore;
  /** Webhook endpoints, the outbox and delivery state (CONTRACT §12, webhook-types.ts). */
  readonly webhooks: WebhookStore;
  /** The product catalog (CONTRACT §13, product-types.ts). */
  readonly products: ProductStore;
  /** Replies to reviews while they are written and posted (CONTRACT §15, reply-types.ts). */
  readonly replies: ReplyStore;
  /** The review page's settings and submissions (CONTRACT §13, collect-types.ts). */
  readonly collect: CollectStore;
  /** Review invitations and the addresses that unsubscribed (CONTRACT §14, invitation-types.ts). */
  readonly invitations: InvitationStore;
  /** Signals outbox writes in this process (outbox-signal.ts); absent: the dispatcher only polls. */
  readonly outboxWritten?: OutboxSignal;
  /** Signals each review upsert that landed, in this process (upsert-signal.ts): the automatic-reply rule listens. */
  readonly reviewsUpserted?: UpsertSignal;
  /** Throws when the store cannot answer (readiness). */
  ping(): Promise<void>;
  /** Flush and close; later calls fail. */
  close(): Promise<void>;
}
