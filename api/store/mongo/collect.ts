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
import type { CollectSettings, CollectStore, SettingsPatch, Submission, SubmissionState } from '../collect-types.ts';
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
      // removeExpired: the expired ones waiting for their confirmation, oldest first, from the index.
      this.submissions.createIndex({ state: 1, hold: 1, confirmExpiresAt: 1 }, { name: 'state_hold_expiry' }),
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

  /** `$set` of the given fields under the record's lock (FerretDB does not isolate concurrent updates of one document). */
  async patchSettings(orgId: string, patch: SettingsPatch): Promise<CollectSettings | null> {
    return withDocumentLock(this.locks, `collect-settings:${orgId}`, async () => {
      const written = await this.settings.updateOne({ _id: orgId }, { $set: { ...patch } });
      return written.matchedCount === 0 ? null : this.getSettings(orgId);
    });
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

  /**
   * A page of the expired ones (their ids, on the state/hold/expiry index),
   * then each deleted by id with the same conditions under its document's
   * lock, so a confirmation or moderator landing meanwhile is never lost.
   */
  async removeExpired(before: string, limit: number): Promise<number> {
    const expired = { state: 'pending' as const, hold: 'awaiting_confirmation' as const, confirmExpiresAt: { $ne: null, $lte: before } };
    const page = await this.submissions.find(expired, { projection: { _id: 1 } }).sort({ confirmExpiresAt: 1, _id: 1 }).limit(limit).toArray();
    let removed = 0;
    for (const { _id } of page) {
      const gone = await withDocumentLock(this.locks, `submission:${_id}`, () => this.submissions.deleteOne({ _id, ...expired }));
      removed += gone.deletedCount;
    }
    return removed;
  }
}
