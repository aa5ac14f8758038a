/**
 * The review page's records on MongoDB (collect-types.ts): `collect_settings`
 * (one document per organization, `_id` = the organization id, the current
 * link indexed uniquely) and `submissions` (`_id` = the submission id), with
 * indexes for each lookup, so no request scans a collection on FerretDB
 * either. A conditional update (`update`) is a `replaceOne` whose filter holds
 * the expectation, under the document's lock (FerretDB does not isolate
 * concurrent updates): two instances racing on one submission cannot both win.
 */
import type { Collection, Db } from 'mongodb';
import type { CollectSettings, CollectStore, Submission, SubmissionState } from '../collect-types.ts';
import { withDocumentLock, type LockDocument } from './document-lock.ts';

type SettingsDocument = CollectSettings & { _id: string };
type SubmissionDocument = Submission & { _id: string };

function strip<T extends { _id: string }>(doc: T | null): Omit<T, '_id'> | null {
  if (!doc) return null;
  const { _id, ...rest } = doc;
  return rest;
}

export class MongoCollect implements CollectStore {
  private readonly settings: Collection<SettingsDocument>;
  private readonly submissions: Collection<SubmissionDocument>;
  private readonly locks: Collection<LockDocument>;

  constructor(db: Db) {
    this.locks = db.collection('locks');
    this.settings = db.collection('collect_settings');
    this.submissions = db.collection('submissions');
  }

  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.settings.createIndex({ collectId: 1 }, { unique: true, name: 'collect_id' }),
      this.submissions.createIndex({ orgId: 1, state: 1, submittedAt: 1 }, { name: 'org_state' }),
      this.submissions.createIndex({ orgId: 1, emailKey: 1, productId: 1, state: 1 }, { name: 'org_email_product' }),
    ]);
  }

  async getSettings(orgId: string): Promise<CollectSettings | null> {
    return strip(await this.settings.findOne({ _id: orgId }));
  }

  async findByCollectId(collectId: string): Promise<CollectSettings | null> {
    return strip(await this.settings.findOne({ collectId }));
  }

  async putSettings(settings: CollectSettings): Promise<CollectSettings> {
    await this.settings.replaceOne({ _id: settings.orgId }, { ...settings }, { upsert: true });
    return settings;
  }

  async create(submission: Submission): Promise<void> {
    await this.submissions.insertOne({ _id: submission.id, ...submission });
  }

  async get(id: string): Promise<Submission | null> {
    return strip(await this.submissions.findOne({ _id: id }));
  }

  async update(next: Submission, expect: { state: SubmissionState; updatedAt: string }): Promise<Submission | null> {
    // FerretDB does not isolate two conditional updates of one document (document-lock.ts): the check and the write run under its lock.
    return withDocumentLock(this.locks, `submission:${next.id}`, async () => {
      const written = await this.submissions.replaceOne({ _id: next.id, state: expect.state, updatedAt: expect.updatedAt }, { ...next });
      return written.modifiedCount === 1 ? next : null;
    });
  }

  async findPublished(orgId: string, emailKey: string, productId: string | null): Promise<Submission | null> {
    return strip(await this.submissions.findOne({ orgId, emailKey, productId, state: 'published' }));
  }

  async listByState(orgId: string, state: SubmissionState): Promise<Submission[]> {
    const docs = await this.submissions.find({ orgId, state }).sort({ submittedAt: 1, _id: 1 }).toArray();
    return docs.map((d) => strip(d)!);
  }
}
