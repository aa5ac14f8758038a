/**
 * Replies on MongoDB (reply-types.ts): `replies`, one document per review
 * keyed by the natural `_id` `orgId/reviewId` (ids never hold "/"), and
 * `reply_settings` keyed by the organization. `update` is one
 * `findOneAndUpdate` whose filter holds the expected states: the check and
 * the write are one step, whatever instance runs at the same time.
 * `reply_templates`: one document per template, `_id` `orgId/id`.
 */
import type { Collection, Db } from 'mongodb';
import { DEFAULT_REPLY_DELAY_MINUTES, type ReplyPatch, type ReplyRecord, type ReplySettings, type ReplyState, type ReplyStore, type ReplyTemplate } from '../reply-types.ts';

type ReplyDocument = ReplyRecord & { _id: string };
type SettingsDocument = ReplySettings & { _id: string };
type TemplateDocument = ReplyTemplate & { _id: string };

const replyKey = (orgId: string, reviewId: string): string => `${orgId}/${reviewId}`;

function record(doc: ReplyDocument): ReplyRecord {
  const { _id, ...rest } = doc;
  return rest;
}

export class MongoReplies implements ReplyStore {
  private readonly col: Collection<ReplyDocument>;
  private readonly settingsCol: Collection<SettingsDocument>;
  private readonly templateCol: Collection<TemplateDocument>;

  constructor(db: Db) {
    this.col = db.collection('replies');
    this.settingsCol = db.collection('reply_settings');
    this.templateCol = db.collection('reply_templates');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndex({ orgId: 1, updatedAt: -1 }, { name: 'org_updated' });
    await this.col.createIndex({ state: 1 }, { name: 'state' });
    await this.templateCol.createIndex({ orgId: 1 }, { name: 'org' });
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
    return doc ? { orgId: doc.orgId, delayMinutes: doc.delayMinutes, ...(doc.autoReply ? { autoReply: { enabled: doc.autoReply.enabled, minRating: doc.autoReply.minRating, templateId: doc.autoReply.templateId, ...(doc.autoReply.since !== undefined && { since: doc.autoReply.since }) } } : {}) } : { orgId, delayMinutes: DEFAULT_REPLY_DELAY_MINUTES };
  }

  async putSettings(settings: ReplySettings): Promise<void> {
    await this.settingsCol.replaceOne({ _id: settings.orgId }, { ...settings }, { upsert: true });
  }

  async templates(orgId: string): Promise<ReplyTemplate[]> {
    const docs = await this.templateCol.find({ orgId }).toArray();
    return docs.map(template).sort(byName);
  }

  async getTemplate(orgId: string, id: string): Promise<ReplyTemplate | null> {
    const doc = await this.templateCol.findOne({ _id: replyKey(orgId, id) });
    return doc ? template(doc) : null;
  }

  async createTemplate(t: ReplyTemplate, maxPerOrg: number): Promise<boolean> {
    const _id = replyKey(t.orgId, t.id);
    await this.templateCol.insertOne({ _id, ...t });
    // Written first, then counted (as webhook endpoints): of creations racing for the last place, none keeps more than the cap.
    if ((await this.templateCol.countDocuments({ orgId: t.orgId })) <= maxPerOrg) return true;
    await this.templateCol.deleteOne({ _id });
    return false;
  }

  async putTemplate(t: ReplyTemplate): Promise<boolean> {
    const res = await this.templateCol.replaceOne({ _id: replyKey(t.orgId, t.id) }, { ...t });
    return res.matchedCount === 1;
  }

  async deleteTemplate(orgId: string, id: string): Promise<boolean> {
    return (await this.templateCol.deleteOne({ _id: replyKey(orgId, id) })).deletedCount === 1;
  }
}

function template(doc: TemplateDocument): ReplyTemplate {
  const { _id, ...rest } = doc;
  return rest;
}

export const byName = (a: ReplyTemplate, b: ReplyTemplate): number => a.name.localeCompare(b.name) || a.id.localeCompare(b.id);
