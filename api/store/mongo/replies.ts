/**
 * Replies on MongoDB (reply-types.ts): `replies`, one document per review
 * keyed by the natural `_id` `orgId/reviewId` (ids never hold "/"), and
 * `reply_settings` keyed by the organization. `update` is one
 * `findOneAndUpdate` whose filter holds the expected states: the check and
 * the write are one step, whatever instance runs at the same time.
 */
import type { Collection, Db } from 'mongodb';
import { DEFAULT_REPLY_DELAY_MINUTES, type ReplyPatch, type ReplyRecord, type ReplySettings, type ReplyState, type ReplyStore } from '../reply-types.ts';

type ReplyDocument = ReplyRecord & { _id: string };
type SettingsDocument = ReplySettings & { _id: string };

const replyKey = (orgId: string, reviewId: string): string => `${orgId}/${reviewId}`;

function record(doc: ReplyDocument): ReplyRecord {
  const { _id, ...rest } = doc;
  return rest;
}

export class MongoReplies implements ReplyStore {
  private readonly col: Collection<ReplyDocument>;
  private readonly settingsCol: Collection<SettingsDocument>;

  constructor(db: Db) {
    this.col = db.collection('replies');
    this.settingsCol = db.collection('reply_settings');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndex({ orgId: 1, updatedAt: -1 }, { name: 'org_updated' });
    await this.col.createIndex({ state: 1 }, { name: 'state' });
  }

  async put(r: ReplyRecord): Promise<void> {
    await this.col.replaceOne({ _id: replyKey(r.orgId, r.reviewId) }, { ...r }, { upsert: true });
  }

  async get(orgId: string, reviewId: string): Promise<ReplyRecord | null> {
    const doc = await this.col.findOne({ _id: replyKey(orgId, reviewId) });
    return doc ? record(doc) : null;
  }

  async update(orgId: string, reviewId: string, from: readonly ReplyState[], patch: ReplyPatch): Promise<ReplyRecord | null> {
    const { ...set } = patch as Record<string, unknown>;
    delete set.orgId;
    delete set.reviewId;
    const doc = await this.col.findOneAndUpdate({ _id: replyKey(orgId, reviewId), state: { $in: [...from] } }, { $set: set }, { returnDocument: 'after' });
    return doc ? record(doc) : null;
  }

  async list(orgId: string, state?: ReplyState): Promise<ReplyRecord[]> {
    const docs = await this.col.find({ orgId, ...(state !== undefined && { state }) }).toArray();
    return docs.map(record).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.reviewId.localeCompare(b.reviewId));
  }

  async pending(): Promise<ReplyRecord[]> {
    return (await this.col.find({ state: { $in: ['scheduled', 'publishing'] } }).toArray()).map(record);
  }

  async settings(orgId: string): Promise<ReplySettings> {
    const doc = await this.settingsCol.findOne({ _id: orgId });
    return doc ? { orgId: doc.orgId, delayMinutes: doc.delayMinutes } : { orgId, delayMinutes: DEFAULT_REPLY_DELAY_MINUTES };
  }

  async putSettings(settings: ReplySettings): Promise<void> {
    await this.settingsCol.replaceOne({ _id: settings.orgId }, { ...settings }, { upsert: true });
  }
}
