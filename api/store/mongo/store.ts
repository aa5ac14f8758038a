/**
 * The MongoDB store (production), on the official driver. Every query and
 * pipeline is plain data built by the pure functions of review-queries.ts, the
 * same ones the tests run through mingo. Indexes are created at start.
 *
 * Only what MongoDB 6+ and FerretDB 1.24 both implement (CONTRACT §10); the
 * contract suite runs against FerretDB on every `npm test`.
 *
 * Review batches are written as idempotent upserts keyed by the natural `_id`
 * (organization, platform, external id), in unordered bulk writes of at most
 * WRITE_BATCH statements: FerretDB never answers an `update` command holding
 * ~100 statements, and an `_id` filter is found without a scan everywhere.
 * Without a replica-set transaction a failed import may be partly applied, but
 * re-running it converges to the same state and nothing already stored is lost
 * or duplicated.
 */
import { MongoBulkWriteError, MongoClient, MongoNetworkError, MongoServerSelectionError, type AnyBulkWriteOperation, type Collection, type Db, type MongoClientOptions } from 'mongodb';
import { StoreUnavailableError, translateErrors } from '../unavailable.ts';
import type { OutboxMessage, WebhookDelivery, WebhookEndpoint, WebhookStore } from '../webhook-types.ts';
import { OutboxSignal } from '../outbox-signal.ts';
import { UpsertSignal } from '../upsert-signal.ts';
import { FairTake } from '../fair-take.ts';
import { announcesState, changeMessage, removedMessage, sourceStateMessage } from '../../webhooks/outbox.ts';

/**
 * The outbox on MongoDB, without transactions: a review change's events ride
 * in the review's own document (`_events`, by message id, with the `_outbox: 1`
 * mark), written by the same single-document write as the change, so they are
 * stored exactly when it is. `relayOutbox` copies them into `webhook_messages`
 * (idempotent by message id) and only then takes them off the review: a crash
 * anywhere copies them again, never loses or invents one. A removal's event
 * rides in the `removed_reviews` copy and is relayed only once the review has
 * left `reviews` (the removal finished).
 */
interface OutboxFields {
  _events?: Record<string, OutboxMessage>;
  _outbox?: 1;
}

/** Reads that hand out a record leave its outbox fields behind. */
const NO_OUTBOX = { _events: 0, _outbox: 0 } as const;

/**
 * A source as stored: `_hold` names the documents of `held_removals` holding
 * its held ids (one per id, CONTRACT §11); the record itself keeps the count
 * (`held`), so a sync's update never rewrites the ids, and a hold of any size
 * stays far from the 16 MiB document limit (review 4, M-B and L-3).
 */
type SourceDocument = WithMongoId<Source> & OutboxFields & { _hold?: string };
const SOURCE_FIELDS = { _events: 0, _outbox: 0, _hold: 0 } as const;
/** A held id: `g` the hold (the source's `_hold`), `s` the source, `e` the external id; `_id` is `g` NUL `e`. */
interface HeldIdDocument {
  _id: string;
  s: string;
  g: string;
  e: string;
}
const heldKey = (hold: string, externalId: string): string => `${hold}\u0000${externalId}`;
/** Held ids written per insert at most. */
const HELD_BATCH = 1000;

/** The ids a source record kept itself before they moved out (`held: {externalIds, since}`), or null. */
function legacyHeldIds(doc: { held?: unknown } | null): string[] | null {
  const held = doc?.held as { externalIds?: unknown } | null | undefined;
  return held && Array.isArray(held.externalIds) ? (held.externalIds as string[]) : null;
}

/** A source as read: outbox and hold fields left out; a hold stored the earlier way reads as its count. */
function sourceOf(doc: Partial<SourceDocument> | null): Source | null {
  if (!doc) return null;
  const { _id, _events, _outbox, _hold, ...source } = doc;
  const legacy = legacyHeldIds(source);
  if (legacy) source.held = legacy.length > 0 ? { count: new Set(legacy).size, since: (source.held as { since: string }).since } : null;
  return source as Source;
}
import { finishStats } from '../../reviews/stats-math.ts';
import { newId } from '../ids.ts';
import {
  withOrgDefaults,
  type ApiKeyRecord,
  type KeyStore,
  type ModerationStore,
  type Organization,
  type OrgStore,
  type ReviewInput,
  type RemovedReview,
  type Review,
  type ReviewModeration,
  type ReviewStore,
  type Source,
  type SourcePatch,
  type SourceStore,
  type Store,
  type UpsertResult,
  type Widget,
  type WidgetStore,
} from '../types.ts';
import { MongoPeople } from './people.ts';
import { applyWidgetPatch } from '../widget-patch.ts';
import { withDocumentLock, type LockDocument } from './document-lock.ts';
import {
  fromDocument,
  listFilter,
  listSort,
  reviewIndexes,
  reviewKey,
  statsQueries,
  replyFiguresQueries,
  toDocument,
  type ReviewDocument,
} from './review-queries.ts';
import { ReviewMonths } from './review-months.ts';
import { replyDelayMs, replyFigures } from '../../reviews/reply-figures.ts';
import { MongoProducts } from './products.ts';
import { MongoReplies } from './replies.ts';
import type { ReplyStore } from '../reply-types.ts';
import { MongoCollect } from './collect.ts';
import type { CollectStore } from '../collect-types.ts';
import { MongoInvitations } from './invitations.ts';
import type { InvitationStore } from '../invitation-types.ts';
import type { ProductStore } from '../product-types.ts';
import { rawStats, rawStatsOf, STATS_PROJECTION, type PlatformRatingCount, type SentimentSum } from './review-queries.ts';
import { monthOf } from '../../reviews/months.ts';

/** How long a request waits for an absent server before answering 503. */
const SELECTION_TIMEOUT_MS = 2000;

const DUPLICATE_KEY = 11000;

/** Statements per bulk write: FerretDB 1.24 never answers ~100, 80 work. */
export const WRITE_BATCH = 50;

/** Natural keys per `$in` read. */
const FIND_BATCH = 500;

/** A product with at most this many reviews has its statistics counted from one read of them (more: grouped by the server). */
export const PRODUCT_STATS_READ = 500;

/**
 * Documents relayed per outbox collection in one round of the dispatcher's sweep (`unfanned`), fairly across
 * organizations: another organization's event waits at most about a round behind a backlog (a relayed document
 * costs several writes under a lock, ~0.1 s on FerretDB, so a round is a few seconds there).
 */
export const RELAY_ROUND = 25;

/** Unfanned messages of one organization answered per `unfanned` call at most (what is held is bounded by the organizations, not a backlog). */
const UNFANNED_PER_ORG = 250;

type WithMongoId<T> = T & { _id: string };

/** A bulk write that failed in the driver, not on the server: a lost connection, wrapped. */
const lostBulkWrite = (err: unknown): boolean =>
  err instanceof MongoBulkWriteError && (Array.isArray(err.writeErrors) ? err.writeErrors.length === 0 : !err.writeErrors) && !err.writeConcernError;

/** The server went away or cannot be reached: a 503, not a 500 (the driver reconnects by itself). */
/**
 * A socket that died under a write the driver had just handed to it comes back unwrapped (seen:
 * a plain Error "This socket has been ended by the other party", code EPIPE, from the review lock's
 * insert while the server was killed): the server going away all the same.
 */
const SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED']);
const socketGone = (err: unknown): boolean => err instanceof Error && SOCKET_CODES.has(String((err as NodeJS.ErrnoException).code));

function unavailable(err: unknown): unknown {
  return err instanceof MongoNetworkError || err instanceof MongoServerSelectionError || lostBulkWrite(err) || socketGone(err) ? new StoreUnavailableError('mongodb', { cause: err }) : err;
}

/** Organizations stored before `language` existed read with the default. */
function orgOrNull(org: Organization | null): Organization | null {
  return org && withOrgDefaults(org);
}

/**
 * Two upserts of the same new `_id` at once (two relays, two fan-outs) may
 * answer a duplicate key error to one of them: the record is there, which is
 * all an idempotent write wanted. Anything else is thrown.
 */
function alreadyThere(err: unknown): void {
  if (!(err instanceof MongoBulkWriteError)) throw err;
  const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY)) throw err;
}

/** A message as stored; a null `endpointId` may come back absent (FerretDB drops it from a nested document's dotted `$set`). */
function messageOf(doc: OutboxMessage & { _id?: unknown; fanned?: boolean }): OutboxMessage {
  const { _id, fanned: _f, ...message } = doc;
  return { ...message, endpointId: message.endpointId ?? null };
}

function strip<T>(doc: (T & { _id?: unknown }) | null): T | null {
  if (!doc) return null;
  const { _id, ...rest } = doc;
  return rest as T;
}

/** The lock an upsert batch and a removal batch of one organization's reviews take (document-lock.ts). */
const reviewsLock = (orgId: string): string => `reviews:${orgId}`;

export class MongoStore implements Store {
  /** Signalled after writes that recorded events (outbox-signal.ts). */
  readonly outboxWritten = new OutboxSignal();
  /** Signalled after each review upsert that landed (upsert-signal.ts). */
  readonly reviewsUpserted = new UpsertSignal();
  readonly kind = 'mongodb' as const;
  private readonly orgCol: Collection<WithMongoId<Organization>>;
  private readonly keyCol: Collection<WithMongoId<ApiKeyRecord>>;
  private readonly widgetCol: Collection<WithMongoId<Widget>>;
  private readonly reviewCol: Collection<ReviewDocument & OutboxFields>;
  private readonly moderationCol: Collection<WithMongoId<ReviewModeration>>;
  private readonly sourceCol: Collection<SourceDocument>;
  /** Held removals, one document per id (SourceDocument). */
  private readonly heldCol: Collection<HeldIdDocument>;
  private readonly webhookCol: Collection<WithMongoId<WebhookEndpoint>>;
  /** The outbox; `fanned` false until its deliveries are written. */
  private readonly messageCol: Collection<WithMongoId<OutboxMessage> & { fanned: boolean }>;
  private readonly deliveryCol: Collection<WithMongoId<WebhookDelivery>>;
  /** Reviews the platform no longer lists: the review document, moved here with `removedAt`, same natural `_id`. */
  private readonly removedCol: Collection<ReviewDocument & OutboxFields & { removedAt: Date }>;
  readonly people: MongoPeople;
  private readonly lockCol: Collection<LockDocument>;
  /** Maintained per-month aggregates: statistics and the Overview's series (review-months.ts). */
  private readonly reviewMonths: ReviewMonths;
  /** The product catalog (products.ts). */
  private readonly productStore: MongoProducts;
  /** Replies while they are written and posted (replies.ts). */
  private readonly replyStore: MongoReplies;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {
    this.orgCol = db.collection('organizations');
    this.keyCol = db.collection('api_keys');
    this.widgetCol = db.collection('widgets');
    this.reviewCol = db.collection('reviews');
    this.moderationCol = db.collection('review_moderation');
    this.sourceCol = db.collection('sources');
    this.heldCol = db.collection('held_removals');
    this.webhookCol = db.collection('webhooks');
    this.messageCol = db.collection('webhook_messages');
    this.deliveryCol = db.collection('webhook_deliveries');
    this.removedCol = db.collection('removed_reviews');
    this.people = new MongoPeople(db, unavailable);
    this.lockCol = db.collection('locks');
    this.reviewMonths = new ReviewMonths(db, this.reviewCol, this.lockCol);
    this.productStore = new MongoProducts(db, this.reviewCol);
    this.products = translateErrors<ProductStore>(
      {
        upsert: (input, now) => this.productStore.upsert(input, now),
        get: (orgId, id) => this.productStore.get(orgId, id),
        list: (orgId) => this.productStore.list(orgId),
        remove: (orgId, id) => this.productStore.remove(orgId, id),
      },
      unavailable,
    );
    this.replyStore = new MongoReplies(db);
    this.replies = translateErrors<ReplyStore>(
      {
        put: (record) => this.replyStore.put(record),
        get: (orgId, reviewId) => this.replyStore.get(orgId, reviewId),
        update: (orgId, reviewId, from, patch) => this.replyStore.update(orgId, reviewId, from, patch),
        list: (orgId, state) => this.replyStore.list(orgId, state),
        pending: () => this.replyStore.pending(),
        settings: (orgId) => this.replyStore.settings(orgId),
        putSettings: (settings) => this.replyStore.putSettings(settings),
        templates: (orgId) => this.replyStore.templates(orgId),
        getTemplate: (orgId, id) => this.replyStore.getTemplate(orgId, id),
        createTemplate: (t, max) => this.replyStore.createTemplate(t, max),
        putTemplate: (t) => this.replyStore.putTemplate(t),
        deleteTemplate: (orgId, id) => this.replyStore.deleteTemplate(orgId, id),
      },
      unavailable,
    );
    this.collectStore = new MongoCollect(db);
    const c = this.collectStore;
    this.collect = translateErrors<CollectStore>(
      {
        getSettings: (orgId) => c.getSettings(orgId),
        findByCollectId: (id) => c.findByCollectId(id),
        putSettings: (settings) => c.putSettings(settings),
        patchSettings: (orgId, patch) => c.patchSettings(orgId, patch),
        create: (submission) => c.create(submission),
        get: (id) => c.get(id),
        update: (next, expect) => c.update(next, expect),
        findPublished: (orgId, emailKey, productId) => c.findPublished(orgId, emailKey, productId),
        listByState: (orgId, state) => c.listByState(orgId, state),
        removeExpired: (before, limit) => c.removeExpired(before, limit),
      },
      unavailable,
    );
    this.invitationStore = new MongoInvitations(db);
    const inv = this.invitationStore;
    this.invitations = translateErrors<InvitationStore>(
      {
        create: (orgId, drafts, options) => inv.create(orgId, drafts, options),
        get: (id) => inv.get(id),
        list: (orgId, query) => inv.list(orgId, query),
        count: (orgId) => inv.count(orgId),
        countByState: (orgId) => inv.countByState(orgId),
        sentSince: (orgId, sinceDay) => inv.sentSince(orgId, sinceDay),
        due: (before, limit, skipOrgs, claimedBefore) => inv.due(before, limit, skipOrgs, claimedBefore),
        remindersDue: (before, limit, skipOrgs, claimedBefore) => inv.remindersDue(before, limit, skipOrgs, claimedBefore),
        expiring: (sentBefore, limit) => inv.expiring(sentBefore, limit),
        ofAddress: (orgId, emailKey, limit) => inv.ofAddress(orgId, emailKey, limit),
        update: (next, expect) => inv.update(next, expect),
        unsubscribe: (orgId, emailKey, at) => inv.unsubscribe(orgId, emailKey, at),
        unsubscribedAt: (orgId, emailKey) => inv.unsubscribedAt(orgId, emailKey),
        purge: (endedBefore, limit, options) => inv.purge(endedBefore, limit, options),
        erase: (orgId, emailKey) => inv.erase(orgId, emailKey),
      },
      unavailable,
    );
  }

  readonly products: ProductStore;
  readonly replies: ReplyStore;
  /** The review page's settings and submissions (collect.ts). */
  private readonly collectStore: MongoCollect;
  readonly collect: CollectStore;
  /** Review invitations (invitations.ts). */
  private readonly invitationStore: MongoInvitations;
  readonly invitations: InvitationStore;

  /** Per outbox collection, the organization the relay's next round starts from (its organizations are taken in turn). */
  private readonly relayNext = new Map<string, string>();

  /** Where `prune`'s pages of old messages go on from (null: from the oldest). */
  private pruneAfter: { createdAt: string; _id: string } | null = null;

  /** `options` (tests): more driver options, e.g. `monitorCommands` to count what a call reads. */
  static async connect(url: string, dbName?: string, options: MongoClientOptions = {}): Promise<MongoStore> {
    const client = new MongoClient(url, {
      // While the server is away a request fails with 503 after this long instead of hanging.
      serverSelectionTimeoutMS: SELECTION_TIMEOUT_MS,
      appName: 'review-proof',
      ...options,
    });
    await client.connect();
    const store = new MongoStore(client, client.db(dbName));
    await store.ensureIndexes();
    return store;
  }

  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.keyCol.createIndex({ hash: 1 }, { unique: true, name: 'hash_unique' }),
      this.keyCol.createIndex({ orgId: 1, createdAt: 1 }, { name: 'org_created' }),
      this.widgetCol.createIndex({ orgId: 1, createdAt: 1 }, { name: 'org_created' }),
      ...reviewIndexes.map((spec) => this.reviewCol.createIndex(spec.key, spec.options)),
      this.reviewCol.createIndex({ orgId: 1, id: 1 }, { name: 'org_id' }),
      this.moderationCol.createIndex({ orgId: 1, hiddenAt: 1 }, { name: 'org_hidden' }),
      this.sourceCol.createIndex({ orgId: 1, createdAt: 1 }, { name: 'org_created' }),
      this.heldCol.createIndex({ g: 1 }, { name: 'hold' }),
      this.heldCol.createIndex({ s: 1, g: 1 }, { name: 'source_hold' }),
      this.webhookCol.createIndex({ orgId: 1, createdAt: 1 }, { name: 'org_created' }),
      this.messageCol.createIndex({ fanned: 1, createdAt: 1 }, { name: 'fanned_created' }),
      // `prune`'s pages of old fanned messages, in (createdAt, _id) order from where the last page ended.
      this.messageCol.createIndex({ fanned: 1, createdAt: 1, _id: 1 }, { name: 'fanned_created_id' }),
      this.deliveryCol.createIndex({ status: 1, nextAttemptAt: 1 }, { name: 'status_due' }),
      this.deliveryCol.createIndex({ endpointId: 1, createdAt: -1 }, { name: 'endpoint_created' }),
      // Each query on deliveries has an index whose equality fields come first and whose order is the sort (issue 34, L1):
      // on MongoDB, `explain` of each shows an IXSCAN bounded to the endpoint (and status), no SORT stage, and no
      // other organization's record examined. FerretDB 1.24 (SQLite) scans the collection whatever the index.
      // `due(now, n, endpointId)` and `resumeWaiting`: {endpointId, status: 'pending', nextAttemptAt ≤ now} by nextAttemptAt, _id.
      this.deliveryCol.createIndex({ endpointId: 1, status: 1, nextAttemptAt: 1, _id: 1 }, { name: 'endpoint_status_due' }),
      // `deliveries(endpointId, status, n)`, the delivery log: newest first, with and without a status.
      this.deliveryCol.createIndex({ endpointId: 1, status: 1, createdAt: -1, _id: -1 }, { name: 'endpoint_status_created' }),
      this.deliveryCol.createIndex({ endpointId: 1, createdAt: -1, _id: -1 }, { name: 'endpoint_created_id' }),
      // `prune`: finished deliveries by their last attempt, and whether any delivery still refers to a message.
      this.deliveryCol.createIndex({ status: 1, lastAttemptAt: 1 }, { name: 'status_attempted' }),
      this.deliveryCol.createIndex({ messageId: 1 }, { name: 'message' }),
      this.removedCol.createIndex({ orgId: 1 }, { name: 'org' }),
      this.reviewCol.createIndex({ _outbox: 1 }, { name: 'outbox' }),
      this.removedCol.createIndex({ _outbox: 1 }, { name: 'outbox' }),
      this.sourceCol.createIndex({ _outbox: 1 }, { name: 'outbox' }),
      // The relay: the organizations with marked documents (a distinct scan of the index on MongoDB), then each one's first by _id.
      this.reviewCol.createIndex({ _outbox: 1, orgId: 1, _id: 1 }, { name: 'outbox_org' }),
      this.removedCol.createIndex({ _outbox: 1, orgId: 1, _id: 1 }, { name: 'outbox_org' }),
      this.sourceCol.createIndex({ _outbox: 1, orgId: 1, _id: 1 }, { name: 'outbox_org' }),
      this.people.ensureIndexes(),
      this.productStore.ensureIndexes(),
      this.replyStore.ensureIndexes(),
      this.collectStore.ensureIndexes(),
      this.invitationStore.ensureIndexes(),
    ]);
    await this.reviewMonths.ensureIndexes(async () => (await this.orgCol.find({}, { projection: { _id: 1 } }).toArray()).map((o) => o._id));
  }

  readonly orgs: OrgStore = translateErrors<OrgStore>({
    create: async (org) => {
      await this.orgCol.insertOne({ _id: org.id, ...org });
    },
    get: async (id) => orgOrNull(strip(await this.orgCol.findOne({ _id: id }))),
    list: async () => (await this.orgCol.find({}).sort({ createdAt: 1, _id: 1 }).toArray()).map((d) => withOrgDefaults(strip<Organization>(d)!)),
    update: async (id, patch) =>
      orgOrNull(strip(await this.orgCol.findOneAndUpdate({ _id: id }, { $set: { ...patch, updatedAt: new Date().toISOString() } }, { returnDocument: 'after' }))),
  }, unavailable);

  readonly keys: KeyStore = translateErrors<KeyStore>({
    create: async (key) => {
      await this.keyCol.insertOne({ _id: key.id, ...key });
    },
    get: async (id) => strip(await this.keyCol.findOne({ _id: id })),
    findByHash: async (hash) => strip(await this.keyCol.findOne({ hash })),
    listByOrg: async (orgId) => (await this.keyCol.find({ orgId }).sort({ createdAt: 1, _id: 1 }).toArray()).map((d) => strip<ApiKeyRecord>(d)!),
    revoke: async (id, at) => {
      await this.keyCol.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: at.toISOString() } });
      return strip(await this.keyCol.findOne({ _id: id }));
    },
    touch: async (id, at) => {
      await this.keyCol.updateOne({ _id: id }, { $set: { lastUsedAt: at.toISOString() } });
    },
  }, unavailable);

  readonly widgets: WidgetStore = translateErrors<WidgetStore>({
    create: async (widget) => {
      await this.widgetCol.insertOne({ _id: widget.id, ...widget });
    },
    get: async (id) => strip(await this.widgetCol.findOne({ _id: id })),
    listByOrg: async (orgId) => (await this.widgetCol.find({ orgId }).sort({ createdAt: 1, _id: 1 }).toArray()).map((d) => strip<Widget>(d)!),
    // Merged from the widget as stored, under a lock (document-lock.ts): overlapping updates never lose a change.
    update: (id, patch) =>
      withDocumentLock(this.lockCol, `widget:${id}`, async () => {
        const current = strip(await this.widgetCol.findOne({ _id: id }));
        if (!current) return null;
        const next = applyWidgetPatch(current, patch, new Date());
        await this.widgetCol.replaceOne({ _id: id }, next as WithMongoId<Widget>);
        return next;
      }),
  }, unavailable);

  readonly reviews: ReviewStore = translateErrors<ReviewStore>({
    list: async (query) => {
      const filter = listFilter(query);
      const docs = await this.reviewCol.find(filter, { projection: { _id: 0 } }).sort(listSort).skip(query.offset).limit(query.limit).toArray();
      // A short page that is not empty is the tail, and an empty first page is everything: the total is
      // known without counting. FerretDB answers every query but a lone _id lookup by scanning the
      // collection, so this spares a scan on most filtered and deep requests.
      const tail = docs.length > 0 ? docs.length < query.limit : query.offset === 0;
      const total = tail ? query.offset + docs.length : await this.reviewCol.countDocuments(filter);
      return { total, items: docs.map((d) => fromDocument(d)) };
    },
    // The maintained monthly aggregates added up, and the two day windows counted on the {orgId, date} index.
    stats: async (query) => {
      const q = statsQueries(query);
      // One product's, or some sources', from their reviews on the {orgId, productId|sourceId, date, id} index (no
      // monthly aggregates per product or source): most have a few reviews, read once and counted here (one query,
      // where the organization's take three); more are grouped by the server (five queries).
      if (query.productId !== undefined || query.sourceIds !== undefined) {
        const few = await this.reviewCol.find(q.match, { projection: STATS_PROJECTION }).limit(PRODUCT_STATS_READ + 1).toArray();
        if (few.length <= PRODUCT_STATS_READ) return finishStats(rawStatsOf(few, query));
        const [rows, sentiment, sentimentCount, last30, last7] = await Promise.all([
          this.reviewCol.aggregate<PlatformRatingCount>(q.byPlatformRating).toArray(),
          this.reviewCol.aggregate<SentimentSum>(q.sentimentSum).toArray(),
          this.reviewCol.countDocuments(q.sentimentCount),
          this.reviewCol.countDocuments(q.last30),
          this.reviewCol.countDocuments(q.last7),
        ]);
        return finishStats(rawStats(rows, { count: sentimentCount, sum: sentiment[0]?.sum ?? 0 }, last30, last7));
      }
      const [raw, last30, last7] = await Promise.all([
        this.reviewMonths.totals(query.orgId, query.platforms),
        this.reviewCol.countDocuments(q.last30),
        this.reviewCol.countDocuments(q.last7),
      ]);
      return finishStats({ ...raw, last30Days: last30, last7Days: last7 });
    },
    monthly: async (query) => this.reviewMonths.monthly(query),
    // The window's reviews counted per platform, and only its replied reviews read (their dates, no text).
    replyFigures: async (query) => {
      const q = replyFiguresQueries(query);
      const [counts, replied] = await Promise.all([
        this.reviewCol.aggregate<{ _id: string; count: number }>(q.received).toArray(),
        this.reviewCol.find(q.replied, { projection: q.repliedProjection }).toArray(),
      ]);
      const received = new Map(counts.map((c) => [c._id, c.count]));
      const delays = new Map<string, number[]>();
      for (const doc of replied) {
        if (!doc.reply) continue;
        const list = delays.get(doc.platform) ?? [];
        list.push(replyDelayMs({ date: doc.date, reply: doc.reply }));
        delays.set(doc.platform, list);
      }
      return replyFigures(received, delays);
    },
    count: async (orgId) => this.reviewCol.countDocuments({ orgId }),
    get: async (orgId, id) => {
      const doc = await this.reviewCol.findOne({ orgId, id }, { projection: { _id: 0 } });
      return doc ? fromDocument(doc) : null;
    },
    /**
     * Moved, not flagged: copied to `removed_reviews` first, then deleted from
     * `reviews`, then the months marked. A crash between the two leaves the
     * review live and its copy behind, which the next upsert or removal of it
     * settles; nothing is lost either way.
     *
     * Every upsert writes `updatedAt`, so "not written since the pass began"
     * is a condition of the find and of the delete. That alone is one step
     * per document on MongoDB, but FerretDB deletes by reading the matches and
     * then deleting their ids (no isolation between the two: an upsert landing
     * there was lost, 1 in 20 here). So each batch's check, copy and delete
     * hold the organization's review lock, which every upsert batch takes
     * too: an upsert is wholly before (the review stays) or wholly after (it
     * comes back from its copy, as any removed review does).
     */
    remove: async (orgId, platform, externalIds, at, unseenSince) => {
      const keys = [...new Set(externalIds)].map((e) => reviewKey(orgId, platform, e));
      const unseen = { updatedAt: { $lt: unseenSince } };
      let removed = 0;
      for (let i = 0; i < keys.length; i += WRITE_BATCH) {
        const batch = keys.slice(i, i + WRITE_BATCH);
        const docs = await withDocumentLock(this.lockCol, reviewsLock(orgId), async () => {
          const found = await this.reviewCol.find({ _id: { $in: batch }, ...unseen }).toArray();
          if (found.length === 0) return found;
          const events = await this.recordsEvents(orgId);
          await this.removedCol.bulkWrite(
            found.map((doc) => {
              const replacement = { ...doc, removedAt: at };
              if (events) {
                const m = removedMessage(fromDocument(doc), at);
                Object.assign(replacement, { _events: { ...doc._events, [m.id]: m }, _outbox: 1 });
              }
              return { replaceOne: { filter: { _id: doc._id }, replacement, upsert: true } };
            }),
            { ordered: false },
          );
          removed += (await this.reviewCol.deleteMany({ _id: { $in: found.map((d) => d._id) }, ...unseen })).deletedCount;
          if (events) this.outboxWritten.notify();
          return found;
        });
        if (docs.length > 0) await this.reviewMonths.mark(orgId, new Set(docs.map((d) => monthOf(d.date))));
      }
      return removed;
    },
    externalIds: async (orgId, platform, collectedBy) =>
      (await this.reviewCol.find({ orgId, platform, ...(collectedBy !== undefined && { sourceId: collectedBy }) }, { projection: { _id: 0, externalId: 1 } }).toArray()).map((d) => d.externalId),
    findByExternalIds: async (orgId, platform, externalIds) => {
      const keys = [...new Set(externalIds)].map((e) => reviewKey(orgId, platform, e));
      const out: Review[] = [];
      for (let i = 0; i < keys.length; i += FIND_BATCH) {
        for (const doc of await this.reviewCol.find({ _id: { $in: keys.slice(i, i + FIND_BATCH) } }, { projection: NO_OUTBOX }).toArray()) out.push(fromDocument(doc));
      }
      return out;
    },
    // Under the organization's review lock, like every write of reviews (see remove above).
    disown: async (orgId, platform, externalIds, sourceId) => {
      const keys = [...new Set(externalIds)].map((e) => reviewKey(orgId, platform, e));
      let disowned = 0;
      for (let i = 0; i < keys.length; i += WRITE_BATCH) {
        const batch = keys.slice(i, i + WRITE_BATCH);
        disowned += await withDocumentLock(this.lockCol, reviewsLock(orgId), async () => (await this.reviewCol.updateMany({ _id: { $in: batch }, sourceId }, { $unset: { sourceId: '' } })).modifiedCount);
      }
      return disowned;
    },
    listRemoved: async (orgId) =>
      (await this.removedCol.find({ orgId }).sort({ date: -1, id: -1 }).toArray()).map(
        (doc): RemovedReview => ({ ...fromDocument(doc), removedAt: doc.removedAt.toISOString() }),
      ),
    upsert: async (orgId, inputs: ReviewInput[], now) => {
      // Last one wins inside a batch, as in the embedded store.
      const unique = new Map<string, ReviewInput>();
      for (const input of inputs) unique.set(`${input.platform}\u0000${input.externalId}`, input);
      const stamp = now.toISOString();
      const docs = [...unique.values()].map((input) => toDocument({ ...input, productId: input.productId ?? null, reply: input.reply ?? null, id: newId('rev'), orgId, createdAt: stamp, updatedAt: stamp }));
      const result = { imported: 0, updated: 0 };
      for (let i = 0; i < docs.length; i += WRITE_BATCH) {
        const batch = docs.slice(i, i + WRITE_BATCH);
        // Set once the batch landed (inside the lock), for the months below even when a later step fails.
        const landed: { written: (UpsertResult & { months: Set<string> }) | null } = { written: null };
        try {
          // Under the organization's review lock: a removal (remove above) never interleaves with it.
          const back = await withDocumentLock(this.lockCol, reviewsLock(orgId), async () => {
            // Removed reviews listed again come back as they were: their id and createdAt.
            const found = await this.removedCol.find({ _id: { $in: batch.map((d) => d._id) } }, { projection: { id: 1, createdAt: 1, sourceId: 1, _events: 1 } }).toArray();
            const returning = new Map(found.map((b) => [b._id, b]));
            for (const doc of batch) {
              const was = returning.get(doc._id);
              if (was) Object.assign(doc, { id: was.id, createdAt: was.createdAt }, doc.sourceId === undefined && was.sourceId !== undefined && { sourceId: was.sourceId });
            }
            // A removal's events not relayed yet leave with the copy: relayed first (its removal did finish).
            const unrelayed = found.flatMap((b) => Object.values(b._events ?? {}));
            if (unrelayed.length > 0) await this.insertMessages(unrelayed);
            const events = await this.recordsEvents(orgId);
            if (events) await this.attachEvents(batch, now);
            landed.written = await this.writeReviews(batch);
            if (events || unrelayed.length > 0) this.outboxWritten.notify();
            if (found.length > 0) await this.removedCol.deleteMany({ _id: { $in: found.map((b) => b._id) } });
            return { found, written: landed.written };
          });
          // A review back is the same review: an update, not a new one.
          const moved = Math.min(back.found.length, back.written.imported);
          result.imported += back.written.imported - moved;
          result.updated += back.written.updated + moved;
        } finally {
          // After the writes landed: the months they touched, old and new (review-months.ts). A
          // batch that failed part-way may have written some: its new months are marked all the
          // same (best effort: the store may be the thing that failed), so they are recomputed.
          const written = landed.written;
          await this.reviewMonths.mark(orgId, written?.months ?? new Set(batch.map((d) => monthOf(d.date)))).catch((err: unknown) => {
            if (written) throw err;
          });
        }
      }
      this.reviewsUpserted.notify(orgId, inputs, now);
      return result;
    },
  }, unavailable);

  /**
   * Hidden reviews in `review_moderation`, keyed by the review id: a
   * collection of their own, so an import (which rewrites reviews) never
   * touches them and can never un-hide one.
   */
  readonly moderation: ModerationStore = translateErrors<ModerationStore>({
    hide: async (record) => {
      await this.moderationCol.replaceOne({ _id: record.reviewId }, { ...record }, { upsert: true });
      return record;
    },
    show: async (orgId, reviewId) => (await this.moderationCol.deleteOne({ _id: reviewId, orgId })).deletedCount === 1,
    listByOrg: async (orgId) =>
      (await this.moderationCol.find({ orgId }).sort({ hiddenAt: 1, _id: 1 }).toArray()).map((d) => strip<ReviewModeration>(d)!),
  }, unavailable);

  /**
   * Sources by id; credentials sealed (api/secrets) before they get here. A
   * state change receivers are told of (outbox.ts) rides in the source's own
   * document (OutboxFields), written by the same update as the change.
   */
  readonly sources: SourceStore = translateErrors<SourceStore>({
    create: async (source) => {
      await this.sourceCol.insertOne({ _id: source.id, ...source });
    },
    get: async (id) => sourceOf(await this.sourceCol.findOne({ _id: id }, { projection: SOURCE_FIELDS })),
    listByOrg: async (orgId) => (await this.sourceCol.find({ orgId }, { projection: SOURCE_FIELDS }).sort({ createdAt: 1, _id: 1 }).toArray()).map((d) => sourceOf(d)!),
    listAll: async () => (await this.sourceCol.find({}, { projection: SOURCE_FIELDS }).sort({ createdAt: 1, _id: 1 }).toArray()).map((d) => sourceOf(d)!),
    // Under the source's lock (document-lock.ts), which the relay also takes before it edits the document:
    // FerretDB does not isolate two updates of one document, and either could otherwise undo the other.
    update: (id, patch) => withDocumentLock(this.lockCol, `source:${id}`, async () => {
      const { id: _i, orgId: _o, platform: _p, createdAt: _c, held: newHold, unheld, ...fields } = patch as SourcePatch & Partial<Pick<Source, 'id' | 'orgId' | 'platform' | 'createdAt'>>;
      const now = new Date();
      const set: Record<string, unknown> = { ...fields, updatedAt: now.toISOString() };
      const raw = await this.sourceCol.findOne({ _id: id }, { projection: NO_OUTBOX });
      const before = sourceOf(raw);
      if (!raw || !before) return null;
      // A hold made, replaced or shrunk: its ids are written first under a new `_hold`, the record then points to
      // them, and the old ones go last. A crash in between leaves the record on its old ids (or none), never on
      // a part: nothing held is lost or invented (left-over documents are deleted with the next change).
      let next: { ids: string[]; since: string } | null | undefined;
      if (newHold !== undefined) next = newHold ? { ids: [...new Set(newHold.externalIds)], since: newHold.since } : null;
      else if (unheld && unheld.length > 0 && before.held) {
        if (raw._hold) {
          const keys = [...new Set(unheld)].map((e) => heldKey(raw._hold!, e));
          let out = 0;
          for (let i = 0; i < keys.length; i += HELD_BATCH) out += (await this.heldCol.deleteMany({ _id: { $in: keys.slice(i, i + HELD_BATCH) } })).deletedCount;
          if (out > 0) {
            const count = await this.heldCol.countDocuments({ g: raw._hold });
            set.held = count > 0 ? { count, since: before.held.since } : null;
            if (count === 0) next = null;
          }
        } else {
          const legacy = legacyHeldIds(raw);
          if (legacy) {
            const out = new Set(unheld);
            next = { ids: legacy.filter((e) => !out.has(e)), since: before.held.since };
          }
        }
      }
      let hold: string | null | undefined;
      if (next !== undefined) {
        hold = next && next.ids.length > 0 ? newId('src') : null;
        for (let i = 0; hold && i < next!.ids.length; i += HELD_BATCH) {
          await this.heldCol.insertMany(next!.ids.slice(i, i + HELD_BATCH).map((e) => ({ _id: heldKey(hold!, e), s: id, g: hold!, e })), { ordered: false });
        }
        set.held = hold ? { count: next!.ids.length, since: next!.since } : null;
        if (hold) set._hold = hold;
      }
      const after: Source = { ...before, ...(fields as Partial<Source>), ...('held' in set && { held: set.held as Source['held'] }), updatedAt: now.toISOString() };
      if (announcesState(before, after) && (await this.recordsEvents(before.orgId))) {
        // The source's own reviews, on the {orgId, sourceId} index (several sources may share a platform: CONTRACT §15, chains).
        const count = await this.reviewCol.countDocuments({ orgId: before.orgId, sourceId: before.id });
        const m = sourceStateMessage(after, count, now);
        set[`_events.${m.id}`] = m;
        set._outbox = 1;
      }
      // FerretDB 1.24 has no projection in findAndModify: the outbox fields are left out here.
      const doc = await this.sourceCol.findOneAndUpdate({ _id: id }, { $set: set, ...(hold === null && { $unset: { _hold: '' } }) }, { returnDocument: 'after' });
      if (!doc) return null;
      if (set._outbox === 1) this.outboxWritten.notify();
      if (hold !== undefined) await this.heldCol.deleteMany(hold ? { s: id, g: { $ne: hold } } : { s: id });
      return sourceOf(doc);
    }),
    held: async (id) => {
      const raw = await this.sourceCol.findOne({ _id: id }, { projection: { held: 1, _hold: 1 } });
      const source = sourceOf(raw);
      if (!raw || !source?.held) return null;
      if (!raw._hold) {
        const legacy = legacyHeldIds(raw);
        return legacy ? { externalIds: legacy, since: source.held.since } : null;
      }
      const ids = (await this.heldCol.find({ g: raw._hold }, { projection: { _id: 0, e: 1 } }).toArray()).map((d) => d.e);
      return { externalIds: ids, since: source.held.since };
    },
    heldAmong: async (id, externalIds) => {
      const raw = await this.sourceCol.findOne({ _id: id }, { projection: { held: 1, _hold: 1 } });
      if (!raw?.held) return [];
      const asked = [...new Set(externalIds)];
      if (!raw._hold) {
        const legacy = new Set(legacyHeldIds(raw) ?? []);
        return asked.filter((e) => legacy.has(e));
      }
      const out: string[] = [];
      for (let i = 0; i < asked.length; i += FIND_BATCH) {
        const keys = asked.slice(i, i + FIND_BATCH).map((e) => heldKey(raw._hold!, e));
        for (const d of await this.heldCol.find({ _id: { $in: keys } }, { projection: { _id: 0, e: 1 } }).toArray()) out.push(d.e);
      }
      return out;
    },
    // Under the source's lock: of two answers at once, the second finds no hold.
    takeHeld: (id) => withDocumentLock(this.lockCol, `source:${id}`, async () => {
      const held = await this.sources.held(id);
      if (!held) return null;
      await this.sourceCol.updateOne({ _id: id }, { $set: { held: null, updatedAt: new Date().toISOString() }, $unset: { _hold: '' } });
      await this.heldCol.deleteMany({ s: id });
      return held;
    }),
    delete: async (id) => {
      const gone = (await this.sourceCol.deleteOne({ _id: id })).deletedCount === 1;
      await this.heldCol.deleteMany({ s: id });
      return gone;
    },
  }, unavailable);

  /** Webhook endpoints, the outbox and delivery state (webhook-types.ts); ids are the `_id`s, so every write is idempotent. */
  readonly webhooks: WebhookStore = translateErrors<WebhookStore>({
    create: async (endpoint, maxPerOrg) => {
      await this.webhookCol.insertOne({ _id: endpoint.id, ...endpoint });
      if (maxPerOrg === undefined) return true;
      // Written first, then counted: of creations racing for the last place, each sees the others it raced with
      // (or they see it), so the organization never keeps more than the cap (they may all be refused).
      if ((await this.webhookCol.countDocuments({ orgId: endpoint.orgId })) <= maxPerOrg) return true;
      await this.webhookCol.deleteOne({ _id: endpoint.id });
      await this.deliveryCol.deleteMany({ endpointId: endpoint.id });
      return false;
    },
    get: async (id) => strip(await this.webhookCol.findOne({ _id: id })),
    listByOrg: async (orgId) => (await this.webhookCol.find({ orgId }).sort({ createdAt: 1, _id: 1 }).toArray()).map((d) => strip<WebhookEndpoint>(d)!),
    listAll: async () => (await this.webhookCol.find({}).sort({ createdAt: 1, _id: 1 }).toArray()).map((d) => strip<WebhookEndpoint>(d)!),
    update: async (id, patch) => {
      const { id: _i, orgId: _o, createdAt: _c, ...fields } = patch as Partial<WebhookEndpoint>;
      return strip(await this.webhookCol.findOneAndUpdate({ _id: id }, { $set: { ...fields, updatedAt: new Date().toISOString() } }, { returnDocument: 'after' }));
    },
    // A filter on the list read: of two writers racing, one finds it changed and writes nothing. FerretDB does not
    // isolate concurrent updates of one document (document-lock.ts: both would report a write), so under a lock too.
    replaceSecrets: (id, from, to) =>
      withDocumentLock(this.lockCol, `webhook-secrets:${id}`, async () => {
        const current = await this.webhookCol.findOne({ _id: id }, { projection: { secrets: 1 } });
        if (!current || current.secrets !== from) return null;
        return strip(await this.webhookCol.findOneAndUpdate({ _id: id, secrets: from }, { $set: { secrets: to, updatedAt: new Date().toISOString() } }, { returnDocument: 'after' }));
      }),
    remove: async (id) => {
      const gone = (await this.webhookCol.deleteOne({ _id: id })).deletedCount === 1;
      await this.deliveryCol.deleteMany({ endpointId: id });
      return gone;
    },
    addMessage: async (message) => {
      await this.messageCol.updateOne({ _id: message.id }, { $setOnInsert: { ...message, fanned: false } }, { upsert: true });
      this.outboxWritten.notify();
    },
    getMessage: async (id) => {
      const doc = await this.messageCol.findOne({ _id: id }, { projection: { fanned: 0 } });
      return doc ? messageOf(doc) : null;
    },
    // Fair across organizations (fair-take.ts): a round relays at most RELAY_ROUND documents per outbox
    // collection and answers at most `limit` messages, both round-robin over the organizations with work,
    // oldest first within each, so one organization's backlog delays another's event by a round, whatever its size.
    unfanned: async (limit) => {
      await this.relay(Math.min(limit, RELAY_ROUND));
      const fair = new FairTake<string>(Math.min(limit, UNFANNED_PER_ORG));
      for await (const m of this.messageCol.find({ fanned: false }, { projection: { _id: 1, orgId: 1 } }).sort({ createdAt: 1, _id: 1 })) fair.offer(m.orgId, m._id);
      const ids = fair.take(limit);
      const found = new Map<string, OutboxMessage>();
      for (let i = 0; i < ids.length; i += FIND_BATCH) {
        // Still waiting (another instance's sweep may have fanned it out since the scan).
        for (const doc of await this.messageCol.find({ _id: { $in: ids.slice(i, i + FIND_BATCH) } }).toArray()) if (doc.fanned === false) found.set(doc._id, messageOf(doc));
      }
      return ids.map((id) => found.get(id)).filter((m) => m !== undefined);
    },
    fanOut: async (messageId, deliveries) => {
      // Deliveries first (idempotent by id, an existing one kept), then the mark: a crash between them fans out again to the same records.
      if (deliveries.length > 0) {
        await this.deliveryCol
          .bulkWrite(
            deliveries.map((d) => ({ updateOne: { filter: { _id: d.id }, update: { $setOnInsert: { ...d } }, upsert: true } })),
            { ordered: false },
          )
          .catch(alreadyThere);
        await this.dropOrphans(deliveries);
      }
      await this.messageCol.updateOne({ _id: messageId }, { $set: { fanned: true } });
    },
    putDelivery: async (delivery) => {
      await this.deliveryCol.replaceOne({ _id: delivery.id }, { ...delivery }, { upsert: true });
      await this.dropOrphans([delivery]);
    },
    // One `update` statement (multi), not a batch of them: FerretDB answers it whatever the count.
    resumeWaiting: async (endpointId, at) =>
      (await this.deliveryCol.updateMany({ endpointId, status: 'pending', nextAttemptAt: null }, { $set: { nextAttemptAt: at } })).modifiedCount,
    getDelivery: async (id) => strip(await this.deliveryCol.findOne({ _id: id })),
    due: async (now, limit, endpointId) =>
      (await this.deliveryCol.find({ status: 'pending', nextAttemptAt: { $ne: null, $lte: now.toISOString() }, ...(endpointId === undefined ? {} : { endpointId }) }).sort({ nextAttemptAt: 1, _id: 1 }).limit(limit).toArray()).map(
        (d) => strip<WebhookDelivery>(d)!,
      ),
    deliveries: async (endpointId, status, limit) =>
      (await this.deliveryCol.find(status === null ? { endpointId } : { endpointId, status }).sort({ createdAt: -1, _id: -1 }).limit(limit).toArray()).map(
        (d) => strip<WebhookDelivery>(d)!,
      ),
    // Bounded work per call (issue 34, M1), never the whole history: at most `limit` finished deliveries (by the
    // {status, lastAttemptAt} index), then pages of at most `limit` old fanned messages, each page checked with one
    // `$in` on the {messageId} index and its unreferenced messages removed. The pages go on from where the last call
    // stopped (`pruneAfter`), so messages still referred to (pending deliveries of a disabled endpoint) are passed
    // over once per cycle rather than read again by every call. When deliveries were removed one page is read; else
    // pages until one removes something, or (answering 0) until a whole cycle from the start found nothing.
    prune: async (before, limit) => {
      const cutoff = before.toISOString();
      const finished = await this.deliveryCol
        .find({ status: { $in: ['delivered', 'failed'] }, lastAttemptAt: { $lt: cutoff } }, { projection: { _id: 1 } })
        .sort({ lastAttemptAt: 1 })
        .limit(limit)
        .toArray();
      if (finished.length > 0) await this.deliveryCol.deleteMany({ _id: { $in: finished.map((d) => d._id) } });
      let fromStart = this.pruneAfter === null;
      for (;;) {
        const after = this.pruneAfter;
        const page = await this.messageCol
          .find(
            {
              fanned: true,
              createdAt: { $lt: cutoff },
              ...(after && { $or: [{ createdAt: { $gt: after.createdAt } }, { createdAt: after.createdAt, _id: { $gt: after._id } }] }),
            },
            { projection: { _id: 1, createdAt: 1 } },
          )
          .sort({ createdAt: 1, _id: 1 })
          .limit(limit)
          .toArray();
        const last = page[page.length - 1];
        this.pruneAfter = page.length < limit || !last ? null : { createdAt: last.createdAt, _id: last._id };
        let removed = 0;
        if (page.length > 0) {
          const referenced = new Set(await this.deliveryCol.distinct('messageId', { messageId: { $in: page.map((m) => m._id) } }));
          const orphans = page.filter((m) => !referenced.has(m._id)).map((m) => m._id);
          if (orphans.length > 0) removed = (await this.messageCol.deleteMany({ _id: { $in: orphans }, fanned: true })).deletedCount;
        }
        if (removed > 0 || finished.length > 0) return finished.length + removed;
        if (this.pruneAfter === null) {
          if (fromStart) return 0;
          fromStart = true;
        }
      }
    },
  }, unavailable);

  /**
   * At most WRITE_BATCH reviews: inserted as new first (one `insert` command,
   * fast everywhere); the ones whose `_id` exists already are then updated by
   * `_id`, keeping their id and createdAt. An upsert, not an update, so that
   * the write also lands if the review vanished in between.
   */
  private async writeReviews(docs: ReviewDocument[]): Promise<UpsertResult & { months: Set<string> }> {
    const months = new Set(docs.map((d) => monthOf(d.date)));
    let existing: ReviewDocument[] = [];
    let imported = 0;
    try {
      imported = (await this.reviewCol.insertMany(docs, { ordered: false })).insertedCount;
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) throw err;
      const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      // Only "these _ids exist already" is an answer; anything else (the driver also wraps a lost
      // connection in a MongoBulkWriteError without write errors) fails the import.
      if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY) || err.insertedCount + errors.length !== docs.length) throw err;
      imported = err.insertedCount;
      existing = errors.map((e) => docs[e.index]!);
    }
    if (existing.length === 0) return { imported, updated: 0, months };
    // The month each replaced review had: a re-import may move it to another month.
    const before = await this.reviewCol.find({ _id: { $in: existing.map((d) => d._id) } }, { projection: { date: 1 } }).toArray();
    for (const old of before) months.add(monthOf(old.date));
    const ops: AnyBulkWriteOperation<ReviewDocument & OutboxFields>[] = existing.map(({ _id, id, createdAt, ...all }) => {
      // Events are added beside those not relayed yet, never over them.
      const { _events, _outbox, ...fields } = all as typeof all & OutboxFields;
      const set: Record<string, unknown> = { ...fields };
      for (const [mid, m] of Object.entries(_events ?? {})) set[`_events.${mid}`] = m;
      if (_outbox) set._outbox = 1;
      return { updateOne: { filter: { _id }, update: { $set: set, $setOnInsert: { id, createdAt } }, upsert: true } };
    });
    const written = await this.reviewCol.bulkWrite(ops, { ordered: false });
    return { imported: imported + written.upsertedCount, updated: written.matchedCount, months };
  }

  /**
   * Deliveries just written (upserts) whose endpoint is gone are removed: written first, then the endpoints
   * looked up, so of a write racing an endpoint's removal (endpoint first, then its deliveries) either the
   * removal's delete finds the record or this lookup finds the endpoint gone; an upsert never leaves a
   * pending delivery behind for a removed endpoint (the embedded store does not write one at all).
   */
  private async dropOrphans(deliveries: WebhookDelivery[]): Promise<void> {
    const endpointIds = [...new Set(deliveries.map((d) => d.endpointId))];
    const live = new Set((await this.webhookCol.find({ _id: { $in: endpointIds } }, { projection: { _id: 1 } }).toArray()).map((e) => e._id));
    const orphans = deliveries.filter((d) => !live.has(d.endpointId)).map((d) => d.id);
    if (orphans.length > 0) await this.deliveryCol.deleteMany({ _id: { $in: orphans } });
  }

  /** An organization with an endpoint gets events recorded (webhook-types.ts). */
  private async recordsEvents(orgId: string): Promise<boolean> {
    return (await this.webhookCol.countDocuments({ orgId }, { limit: 1 })) > 0;
  }

  /**
   * Puts each document's event (created, or updated when a field the API
   * shows changed; none for identical data) into the document itself, from
   * the live review it replaces. A review coming back from `removed_reviews`
   * is created again.
   */
  private async attachEvents(batch: (ReviewDocument & OutboxFields)[], now: Date): Promise<void> {
    const live = await this.reviewCol.find({ _id: { $in: batch.map((d) => d._id) } }).toArray();
    const before = new Map(live.map((d) => [d._id, fromDocument(d)]));
    for (const doc of batch) {
      const was = before.get(doc._id) ?? null;
      const after = fromDocument({ ...doc, ...(was ? { id: was.id, createdAt: new Date(was.createdAt) } : {}) });
      const m = changeMessage(was, after, now);
      if (m) Object.assign(doc, { _events: { [m.id]: m }, _outbox: 1 });
    }
  }

  private async insertMessages(messages: OutboxMessage[]): Promise<void> {
    await this.messageCol
      .bulkWrite(
        messages.map((m) => ({ updateOne: { filter: { _id: m.id }, update: { $setOnInsert: { ...m, fanned: false } }, upsert: true } })),
        { ordered: false },
      )
      .catch(alreadyThere);
  }

  /**
   * Moves at most `limit` documents' events from the reviews into the outbox
   * collection (see OutboxFields); answers how many documents it settled. A
   * way into the server like every store method: a lost server is
   * StoreUnavailableError (a 503), never the driver's own error (a 500).
   */
  relayOutbox(limit = 100): Promise<number> {
    return this.relay(limit).catch((err: unknown) => {
      throw unavailable(err);
    });
  }

  private async relay(limit: number): Promise<number> {
    let settled = 0;
    const take = async (
      col: Collection<ReviewDocument & OutboxFields>,
      finished: (ids: string[]) => Promise<Set<string>>,
      /** Runs a document's edits under the lock its other writers take (FerretDB does not isolate two updates of one document). */
      locked: (doc: { _id: string; orgId: string }, edit: () => Promise<void>) => Promise<void>,
    ): Promise<void> => {
      // Fair across organizations (fair-take.ts), at a cost independent of the backlog (issue 34, M4): the
      // organizations with marked documents (on MongoDB a distinct scan of the {_outbox, orgId, _id} index, one key
      // per organization), at most `limit` of them per round taken in turn from where the last round stopped, then
      // each one's first few by `_id` (an index range), round-robin. FerretDB scans the collection for the distinct
      // and for each organization's find, but no longer for each document relayed.
      const orgs = ((await col.distinct('orgId', { _outbox: 1 })) as string[]).sort();
      if (orgs.length === 0) return;
      const next = this.relayNext.get(col.collectionName);
      const from = next === undefined ? 0 : Math.max(0, orgs.findIndex((o) => o >= next));
      const turn = [...orgs.slice(from), ...orgs.slice(0, from)].slice(0, limit);
      this.relayNext.set(col.collectionName, orgs[(from + turn.length) % orgs.length]!);
      // Up to four rounds' worth read in all, so a round is full even when most of these organizations have little.
      const share = Math.min(limit, Math.floor((4 * limit) / turn.length));
      const fair = new FairTake<ReviewDocument & OutboxFields>(share);
      for (const orgId of turn) {
        const marked = await col.find({ _outbox: 1, orgId }, { projection: { _events: 1, _outbox: 1, orgId: 1 } }).sort({ _id: 1 }).limit(share).toArray();
        for (const doc of marked) fair.offer(orgId, doc);
      }
      const docs = fair.take(limit);
      const ready = await finished(docs.map((d) => d._id));
      for (const doc of docs) {
        if (!ready.has(doc._id)) continue;
        const messages = Object.values(doc._events ?? {});
        if (messages.length > 0) await this.insertMessages(messages);
        const unset: Record<string, ''> = {};
        for (const mid of Object.keys(doc._events ?? {})) unset[`_events.${mid}`] = '';
        // Every write of `_events`/`_outbox` holds the lock `locked` takes (reviews: upsert and remove batches under
        // the organization's review lock; sources: `sources.update` under the source's lock; the relay itself), and
        // the lock is exclusive while held (document-lock.ts renews its lease): so what is read here stays true until
        // the edit, and every edit is a lone-`_id` filter: one index lookup on MongoDB (FerretDB 1.24's updates still
        // cost more as the collection grows, ~50 ms each at 5,000 documents here, so a relayed document writes once).
        await locked(doc, async () => {
          // One write: the relayed events go, and the mark with them unless a later write added another event
          // meanwhile (message ids are unique, so an id both here and now is the same event).
          const now = await col.findOne({ _id: doc._id }, { projection: { _events: 1 } });
          if (!now) return;
          const relayed = doc._events ?? {};
          if (Object.keys(now._events ?? {}).every((mid) => mid in relayed)) await col.updateOne({ _id: doc._id }, { $unset: { _events: '', _outbox: '' } });
          else if (messages.length > 0) await col.updateOne({ _id: doc._id }, { $unset: unset });
        });
        settled++;
      }
    };
    // Reviews (live and removed) are written by upsert and remove batches under the organization's
    // review lock: the relay's edits take it too, or an import's rewrite of a document could undo
    // the relay's (or the relay's an import's) on FerretDB.
    const underReviewLock = (doc: { orgId: string }, edit: () => Promise<void>) => withDocumentLock(this.lockCol, reviewsLock(doc.orgId), edit);
    await take(this.reviewCol, async (ids) => new Set(ids), underReviewLock);
    await take(this.sourceCol as unknown as Collection<ReviewDocument & OutboxFields>, async (ids) => new Set(ids), (doc, edit) => withDocumentLock(this.lockCol, `source:${doc._id}`, edit));
    // A removal's event: only once the review left `reviews`.
    await take(this.removedCol as unknown as Collection<ReviewDocument & OutboxFields>, async (ids) => {
      const stillLive = new Set((await this.reviewCol.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
      return new Set(ids.filter((id) => !stillLive.has(id)));
    }, underReviewLock);
    return settled;
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 }).catch((err: unknown) => {
      throw unavailable(err);
    });
  }

  /** Tests: remove this store's database. */
  async dropDatabase(): Promise<void> {
    await this.db.dropDatabase();
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
