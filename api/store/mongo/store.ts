/**
 * The MongoDB store (production), on the official driver. Every query and
 * pipeline is plain data built by the pure functions of review-queries.ts, the
 * same ones the tests run through mingo. Indexes are created at start.
 *
 * Review batches are written with one unordered bulkWrite of idempotent upserts
 * keyed by (orgId, platform, externalId): without a replica-set transaction a
 * failed batch may be partly applied, but re-running it converges to the same
 * state and nothing already stored is lost or duplicated.
 */
import { MongoClient, type Collection, type Db, type Document, type AnyBulkWriteOperation } from 'mongodb';
import { finishStats, type RawStats } from '../../reviews/stats-math.ts';
import { newId } from '../ids.ts';
import {
  withOrgDefaults,
  type ApiKeyRecord,
  type KeyStore,
  type Organization,
  type OrgStore,
  type ReviewInput,
  type ReviewStore,
  type Store,
  type Widget,
  type WidgetStore,
} from '../types.ts';
import { fromDocument, listFilter, listSort, reviewIndexes, statsPipeline, toDocument, type ReviewDocument } from './review-queries.ts';

type WithMongoId<T> = T & { _id: string };

function orgOrNull(org: Organization | null): Organization | null {
  return org && withOrgDefaults(org);
}

function strip<T>(doc: (T & { _id?: unknown }) | null): T | null {
  if (!doc) return null;
  const { _id, ...rest } = doc;
  return rest as T;
}

export class MongoStore implements Store {
  readonly kind = 'mongodb' as const;
  private readonly orgCol: Collection<WithMongoId<Organization>>;
  private readonly keyCol: Collection<WithMongoId<ApiKeyRecord>>;
  private readonly widgetCol: Collection<WithMongoId<Widget>>;
  private readonly reviewCol: Collection<ReviewDocument>;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {
    this.orgCol = db.collection('organizations');
    this.keyCol = db.collection('api_keys');
    this.widgetCol = db.collection('widgets');
    this.reviewCol = db.collection('reviews');
  }

  static async connect(url: string, dbName?: string): Promise<MongoStore> {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000, appName: 'review-proof' });
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
    ]);
  }

  readonly orgs: OrgStore = {
    create: async (org) => {
      await this.orgCol.insertOne({ _id: org.id, ...org });
    },
    get: async (id) => orgOrNull(strip(await this.orgCol.findOne({ _id: id }))),
    list: async () => (await this.orgCol.find({}).sort({ createdAt: 1, _id: 1 }).toArray()).map((d) => withOrgDefaults(strip<Organization>(d)!)),
    update: async (id, patch) =>
      orgOrNull(strip(await this.orgCol.findOneAndUpdate({ _id: id }, { $set: { ...patch, updatedAt: new Date().toISOString() } }, { returnDocument: 'after' }))),
  };

  readonly keys: KeyStore = {
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
  };

  readonly widgets: WidgetStore = {
    create: async (widget) => {
      await this.widgetCol.insertOne({ _id: widget.id, ...widget });
    },
    get: async (id) => strip(await this.widgetCol.findOne({ _id: id })),
    listByOrg: async (orgId) => (await this.widgetCol.find({ orgId }).sort({ createdAt: 1, _id: 1 }).toArray()).map((d) => strip<Widget>(d)!),
    update: async (id, patch) =>
      strip(await this.widgetCol.findOneAndUpdate({ _id: id }, { $set: { ...patch, updatedAt: new Date().toISOString() } }, { returnDocument: 'after' })),
  };

  readonly reviews: ReviewStore = {
    list: async (query) => {
      const filter = listFilter(query);
      const [total, docs] = await Promise.all([
        this.reviewCol.countDocuments(filter),
        this.reviewCol.find(filter, { projection: { _id: 0 } }).sort(listSort).skip(query.offset).limit(query.limit).toArray(),
      ]);
      return { total, items: docs.map((d) => fromDocument(d)) };
    },
    stats: async (query) => {
      const [raw] = await this.reviewCol.aggregate<RawStats>(statsPipeline(query) as Document[]).toArray();
      return finishStats(raw!);
    },
    count: async (orgId) => this.reviewCol.countDocuments({ orgId }),
    upsert: async (orgId, inputs: ReviewInput[], now) => {
      // Last one wins inside a batch, as in the embedded store.
      const unique = new Map<string, ReviewInput>();
      for (const input of inputs) unique.set(`${input.platform}\u0000${input.externalId}`, input);
      if (unique.size === 0) return { imported: 0, updated: 0 };
      const stamp = now.toISOString();
      const ops: AnyBulkWriteOperation<ReviewDocument>[] = [...unique.values()].map((input) => {
        const doc = toDocument({ ...input, id: '', orgId, createdAt: stamp, updatedAt: stamp });
        const { id: _id, createdAt, orgId: _org, ...fields } = doc;
        return {
          updateOne: {
            filter: { orgId, platform: input.platform, externalId: input.externalId },
            update: { $set: fields, $setOnInsert: { id: newId('rev'), orgId, createdAt } },
            upsert: true,
          },
        };
      });
      const result = await this.reviewCol.bulkWrite(ops, { ordered: false });
      return { imported: result.upsertedCount, updated: result.matchedCount };
    },
  };

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
