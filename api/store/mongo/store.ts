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
import { MongoBulkWriteError, MongoClient, MongoNetworkError, MongoServerSelectionError, type AnyBulkWriteOperation, type Collection, type Db } from 'mongodb';
import { StoreUnavailableError, translateErrors } from '../unavailable.ts';
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
  type ReviewModeration,
  type ReviewStore,
  type Source,
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
  toDocument,
  type ReviewDocument,
} from './review-queries.ts';
import { ReviewMonths } from './review-months.ts';
import { monthOf } from '../../reviews/months.ts';

/** How long a request waits for an absent server before answering 503. */
const SELECTION_TIMEOUT_MS = 2000;

const DUPLICATE_KEY = 11000;

/** Statements per bulk write: FerretDB 1.24 never answers ~100, 80 work. */
export const WRITE_BATCH = 50;

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

function strip<T>(doc: (T & { _id?: unknown }) | null): T | null {
  if (!doc) return null;
  const { _id, ...rest } = doc;
  return rest as T;
}

/** The lock an upsert batch and a removal batch of one organization's reviews take (document-lock.ts). */
const reviewsLock = (orgId: string): string => `reviews:${orgId}`;

export class MongoStore implements Store {
  readonly kind = 'mongodb' as const;
  private readonly orgCol: Collection<WithMongoId<Organization>>;
  private readonly keyCol: Collection<WithMongoId<ApiKeyRecord>>;
  private readonly widgetCol: Collection<WithMongoId<Widget>>;
  private readonly reviewCol: Collection<ReviewDocument>;
  private readonly moderationCol: Collection<WithMongoId<ReviewModeration>>;
  private readonly sourceCol: Collection<WithMongoId<Source>>;
  /** Reviews the platform no longer lists: the review document, moved here with `removedAt`, same natural `_id`. */
  private readonly removedCol: Collection<ReviewDocument & { removedAt: Date }>;
  readonly people: MongoPeople;
  private readonly lockCol: Collection<LockDocument>;
  /** Maintained per-month aggregates: statistics and the Overview's series (review-months.ts). */
  private readonly reviewMonths: ReviewMonths;

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
    this.removedCol = db.collection('removed_reviews');
    this.people = new MongoPeople(db, unavailable);
    this.lockCol = db.collection('locks');
    this.reviewMonths = new ReviewMonths(db, this.reviewCol, this.lockCol);
  }

  static async connect(url: string, dbName?: string): Promise<MongoStore> {
    const client = new MongoClient(url, {
      // While the server is away a request fails with 503 after this long instead of hanging.
      serverSelectionTimeoutMS: SELECTION_TIMEOUT_MS,
      appName: 'review-proof',
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
      this.removedCol.createIndex({ orgId: 1 }, { name: 'org' }),
      this.people.ensureIndexes(),
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
      const [raw, last30, last7] = await Promise.all([
        this.reviewMonths.totals(query.orgId, query.platforms),
        this.reviewCol.countDocuments(q.last30),
        this.reviewCol.countDocuments(q.last7),
      ]);
      return finishStats({ ...raw, last30Days: last30, last7Days: last7 });
    },
    monthly: async (query) => this.reviewMonths.monthly(query),
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
          await this.removedCol.bulkWrite(
            found.map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: { ...doc, removedAt: at }, upsert: true } })),
            { ordered: false },
          );
          removed += (await this.reviewCol.deleteMany({ _id: { $in: found.map((d) => d._id) }, ...unseen })).deletedCount;
          return found;
        });
        if (docs.length > 0) await this.reviewMonths.mark(orgId, new Set(docs.map((d) => monthOf(d.date))));
      }
      return removed;
    },
    externalIds: async (orgId, platform) =>
      (await this.reviewCol.find({ orgId, platform }, { projection: { _id: 0, externalId: 1 } }).toArray()).map((d) => d.externalId),
    listRemoved: async (orgId) =>
      (await this.removedCol.find({ orgId }).sort({ date: -1, id: -1 }).toArray()).map(
        (doc): RemovedReview => ({ ...fromDocument(doc), removedAt: doc.removedAt.toISOString() }),
      ),
    upsert: async (orgId, inputs: ReviewInput[], now) => {
      // Last one wins inside a batch, as in the embedded store.
      const unique = new Map<string, ReviewInput>();
      for (const input of inputs) unique.set(`${input.platform}\u0000${input.externalId}`, input);
      const stamp = now.toISOString();
      const docs = [...unique.values()].map((input) => toDocument({ ...input, id: newId('rev'), orgId, createdAt: stamp, updatedAt: stamp }));
      const result = { imported: 0, updated: 0 };
      for (let i = 0; i < docs.length; i += WRITE_BATCH) {
        const batch = docs.slice(i, i + WRITE_BATCH);
        // Set once the batch landed (inside the lock), for the months below even when a later step fails.
        const landed: { written: (UpsertResult & { months: Set<string> }) | null } = { written: null };
        try {
          // Under the organization's review lock: a removal (remove above) never interleaves with it.
          const back = await withDocumentLock(this.lockCol, reviewsLock(orgId), async () => {
            // Removed reviews listed again come back as they were: their id and createdAt.
            const found = await this.removedCol.find({ _id: { $in: batch.map((d) => d._id) } }, { projection: { id: 1, createdAt: 1 } }).toArray();
            const returning = new Map(found.map((b) => [b._id, b]));
            for (const doc of batch) {
              const was = returning.get(doc._id);
              if (was) Object.assign(doc, { id: was.id, createdAt: was.createdAt });
            }
            landed.written = await this.writeReviews(batch);
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

  /** Sources by id; credentials sealed (api/secrets) before they get here. */
  readonly sources: SourceStore = translateErrors<SourceStore>({
    create: async (source) => {
      await this.sourceCol.insertOne({ _id: source.id, ...source });
    },
    get: async (id) => strip(await this.sourceCol.findOne({ _id: id })),
    listByOrg: async (orgId) => (await this.sourceCol.find({ orgId }).sort({ createdAt: 1, _id: 1 }).toArray()).map((d) => strip<Source>(d)!),
    listAll: async () => (await this.sourceCol.find({}).sort({ createdAt: 1, _id: 1 }).toArray()).map((d) => strip<Source>(d)!),
    update: async (id, patch) => {
      const { id: _i, orgId: _o, platform: _p, createdAt: _c, ...fields } = patch as Partial<Source>;
      return strip(await this.sourceCol.findOneAndUpdate({ _id: id }, { $set: { ...fields, updatedAt: new Date().toISOString() } }, { returnDocument: 'after' }));
    },
    delete: async (id) => (await this.sourceCol.deleteOne({ _id: id })).deletedCount === 1,
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
    const ops: AnyBulkWriteOperation<ReviewDocument>[] = existing.map(({ _id, id, createdAt, ...fields }) => ({
      updateOne: { filter: { _id }, update: { $set: fields, $setOnInsert: { id, createdAt } }, upsert: true },
    }));
    const written = await this.reviewCol.bulkWrite(ops, { ordered: false });
    return { imported: imported + written.upsertedCount, updated: written.matchedCount, months };
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
