/**
 * Maintained monthly aggregates of the `reviews` collection, for the MongoDB
 * store: one document per organization and UTC calendar month in
 * `review_months`, holding per platform the count per rating (index 0 =
 * unrated) and the sentiment count and sum. Statistics and the Overview's
 * series add these up (an organization has at most 12 per year) instead of
 * grouping every review per request.
 *
 * Why recompute rather than `$inc`: FerretDB 1.24 does not isolate concurrent
 * updates of one document (20 concurrent `$inc` left 4: document-lock.ts), and
 * a re-import that changes a review's rating, platform or date must take the
 * old values out, which two overlapping imports of the same review would both
 * do. So a write never edits the aggregates. It inserts a marker
 * `{orgId, month}` (an insert, which no server loses) for every month it
 * touched, old month and new, AFTER its review writes landed. Before answering,
 * a read recomputes the marked months from the reviews themselves (a `date`
 * range of one month on the `{orgId, date}` index, never the whole
 * organization) under a lock per month, then deletes exactly the markers it
 * read. A write that lands after those markers were read leaves a marker of its
 * own, so its month is recomputed again by the next read: the aggregates are
 * always a function of the reviews, and never drift.
 *
 * Rebuilt when missing: a database without the `built` document (written by an
 * earlier version, or the collection dropped) gets every month between each
 * organization's oldest and newest review marked at start-up.
 *
 * A crash between a batch's review writes and its markers leaves those months
 * stale until the same import is re-run (which marks them again).
 */
import { randomUUID } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import { addMonths, monthOf, monthsBetween, monthStart } from '../../reviews/months.ts';
import { emptyRawStats, type RawStats } from '../../reviews/stats-math.ts';
import type { MonthlyCount, MonthlyQuery } from '../types.ts';
import { withDocumentLock, type LockDocument } from './document-lock.ts';
import type { ReviewDocument } from './review-queries.ts';

export interface MonthPlatform {
  platform: string;
  /** Reviews per rating: index 0 = unrated, 1-5 = stars. */
  counts: number[];
  sentimentCount: number;
  /** Sum of `sentimentE6`. */
  sentimentSum: number;
}

export interface MonthDocument {
  /** `${orgId}/${YYYY-MM}`. */
  _id: string;
  orgId: string;
  month: string;
  platforms: MonthPlatform[];
}

interface MarkerDocument {
  _id: string;
  orgId: string;
  month: string;
}

/** The document that says the aggregates were built (or rebuilt) for every organization. */
const BUILT_ID = '$built';

export class ReviewMonths {
  private readonly months: Collection<MonthDocument>;
  private readonly markers: Collection<MarkerDocument>;

  constructor(
    db: Db,
    private readonly reviews: Collection<ReviewDocument>,
    private readonly locks: Collection<LockDocument>,
  ) {
    this.months = db.collection('review_months');
    this.markers = db.collection('review_months_dirty');
  }

  async ensureIndexes(orgIds: () => Promise<string[]>): Promise<void> {
    await Promise.all([
      this.months.createIndex({ orgId: 1, month: 1 }, { name: 'org_month' }),
      this.markers.createIndex({ orgId: 1, month: 1 }, { name: 'org_month' }),
    ]);
    if (await this.months.findOne({ _id: BUILT_ID })) return;
    // Rebuild: mark every month each organization has reviews in; reads recompute them.
    for (const orgId of await orgIds()) {
      const [oldest] = await this.reviews.find({ orgId }, { projection: { date: 1 } }).sort({ date: 1 }).limit(1).toArray();
      const [newest] = await this.reviews.find({ orgId }, { projection: { date: 1 } }).sort({ date: -1 }).limit(1).toArray();
      if (oldest && newest) await this.mark(orgId, monthsBetween(monthOf(oldest.date), monthOf(newest.date)));
    }
    await this.months.updateOne({ _id: BUILT_ID }, { $set: { orgId: '', month: '', platforms: [] } }, { upsert: true });
  }

  /** Called after a batch's review writes: these months of the organization changed. */
  async mark(orgId: string, months: Iterable<string>): Promise<void> {
    const docs = [...new Set(months)].map((month) => ({ _id: `${orgId}/${month}/${randomUUID()}`, orgId, month }));
    for (let i = 0; i < docs.length; i += 50) await this.markers.insertMany(docs.slice(i, i + 50), { ordered: false });
  }

  /** Recompute the organization's marked months (usually none). */
  async refresh(orgId: string): Promise<void> {
    const marked = await this.markers.find({ orgId }, { projection: { month: 1 } }).toArray();
    if (marked.length === 0) return;
    for (const month of new Set(marked.map((m) => m.month))) {
      await withDocumentLock(this.locks, `review_months:${orgId}/${month}`, async () => {
        // Re-read under the lock: another reader may have recomputed it meanwhile.
        const ids = (await this.markers.find({ orgId, month }, { projection: { _id: 1 } }).toArray()).map((m) => m._id);
        if (ids.length === 0) return;
        await this.recompute(orgId, month);
        await this.markers.deleteMany({ _id: { $in: ids } });
      });
    }
  }

  /**
   * One month from its reviews: a `date` range of the `{orgId, date}` index.
   * One accumulator per `$group` (FerretDB 1.24 answers 0 for the others).
   */
  private async recompute(orgId: string, month: string): Promise<void> {
    const match: Filter<ReviewDocument> = { orgId, date: { $gte: monthStart(month), $lt: monthStart(addMonths(month, 1)) } };
    const withSentiment = { ...match, sentimentE6: { $ne: null } };
    const [ratings, sentimentSums, sentimentCounts] = await Promise.all([
      this.reviews.aggregate<{ _id: { platform: string; rating: number | null }; n: number }>([{ $match: match }, { $group: { _id: { platform: '$platform', rating: '$rating' }, n: { $sum: 1 } } }]).toArray(),
      this.reviews.aggregate<{ _id: string; n: number }>([{ $match: withSentiment }, { $group: { _id: '$platform', n: { $sum: '$sentimentE6' } } }]).toArray(),
      this.reviews.aggregate<{ _id: string; n: number }>([{ $match: withSentiment }, { $group: { _id: '$platform', n: { $sum: 1 } } }]).toArray(),
    ]);
    const platforms = new Map<string, MonthPlatform>();
    const of = (platform: string) => {
      let p = platforms.get(platform);
      if (!p) platforms.set(platform, (p = { platform, counts: [0, 0, 0, 0, 0, 0], sentimentCount: 0, sentimentSum: 0 }));
      return p;
    };
    for (const { _id, n } of ratings) of(_id.platform).counts[_id.rating ?? 0]! += n;
    for (const { _id, n } of sentimentSums) of(_id).sentimentSum = n;
    for (const { _id, n } of sentimentCounts) of(_id).sentimentCount = n;
    const _id = `${orgId}/${month}`;
    const list = [...platforms.values()].filter((p) => p.counts.some((c) => c > 0)).sort((a, b) => (a.platform < b.platform ? -1 : 1));
    if (list.length === 0) await this.months.deleteOne({ _id });
    else await this.months.replaceOne({ _id }, { orgId, month, platforms: list }, { upsert: true });
  }

  private async read(orgId: string, range?: { from: string; to: string }): Promise<MonthDocument[]> {
    await this.refresh(orgId);
    const filter: Filter<MonthDocument> = { orgId };
    if (range) filter.month = { $gte: range.from, $lte: range.to };
    return this.months.find(filter).toArray();
  }

  async monthly(q: MonthlyQuery): Promise<MonthlyCount[]> {
    const rows: MonthlyCount[] = [];
    for (const doc of await this.read(q.orgId, q)) {
      for (const p of doc.platforms) {
        const count = p.counts.reduce((a, b) => a + b, 0);
        const rated = p.counts.slice(1);
        rows.push({
          month: doc.month,
          platform: p.platform,
          count,
          ratedCount: rated.reduce((a, b) => a + b, 0),
          ratingSum: rated.reduce((sum, n, i) => sum + n * (i + 1), 0),
        });
      }
    }
    return rows.sort((a, b) => (a.month !== b.month ? (a.month < b.month ? -1 : 1) : a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0));
  }

  /** Every month added up: the statistics without their day windows (the caller counts those). */
  async totals(orgId: string, platforms?: readonly string[]): Promise<RawStats> {
    const wanted = platforms === undefined ? null : new Set(platforms);
    const raw = emptyRawStats();
    const byPlatform = new Map<string, RawStats['platforms'][number]>();
    for (const doc of await this.read(orgId)) {
      for (const p of doc.platforms) {
        if (wanted && !wanted.has(p.platform)) continue;
        let row = byPlatform.get(p.platform);
        if (!row) byPlatform.set(p.platform, (row = { platform: p.platform, count: 0, ratedCount: 0, ratingSum: 0 }));
        raw.unratedCount += p.counts[0]!;
        for (let s = 1; s <= 5; s++) {
          const n = p.counts[s]!;
          raw.starCounts[s - 1] = (raw.starCounts[s - 1] ?? 0) + n;
          row.ratedCount += n;
          row.ratingSum += n * s;
        }
        row.count += p.counts.reduce((a, b) => a + b, 0);
        raw.sentimentCount += p.sentimentCount;
        raw.sentimentSum += p.sentimentSum;
      }
    }
    raw.platforms = [...byPlatform.values()];
    for (const p of raw.platforms) {
      raw.totalReviews += p.count;
      raw.ratedCount += p.ratedCount;
      raw.ratingSum += p.ratingSum;
    }
    return raw;
  }
}
