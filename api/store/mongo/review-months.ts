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
 * a read recomputes the marked months from the reviews themselves (the `date`
 * range of those months on the `{orgId, date}` index, in one pass) under a
 * lock per organization, then deletes exactly the markers it read. A write that lands after those markers were read leaves a marker of its
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

/** How long one recomputation may hold its organization's lock, and how long a reader waits for it. */
const RECOMPUTE_LEASE_MS = 120_000;

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
    try {
      await this.months.updateOne({ _id: BUILT_ID }, { $set: { orgId: '', month: '', platforms: [] } }, { upsert: true });
    } catch (err) {
      // Two instances starting at once both upsert it: the one that lost finds it written (E11000).
      if ((err as { code?: number }).code !== 11000) throw err;
    }
  }

  /** Called after a batch's review writes: these months of the organization changed. */
  async mark(orgId: string, months: Iterable<string>): Promise<void> {
    const docs = [...new Set(months)].map((month) => ({ _id: `${orgId}/${month}/${randomUUID()}`, orgId, month }));
    for (let i = 0; i < docs.length; i += 50) await this.markers.insertMany(docs.slice(i, i + 50), { ordered: false });
  }

  /**
   * Recompute the organization's marked months (usually none), all in one
   * pass: one range read of the reviews' platform, rating, date and sentiment
   * (a `date` range of the `{orgId, date}` index; on FerretDB, which scans for
   * any filter but `_id`, one scan instead of three per month), bucketed here
   * with exact integer sums. Under one lock per organization, with a lease
   * long enough for a large recomputation.
   */
  async refresh(orgId: string): Promise<void> {
    if ((await this.markers.countDocuments({ orgId }, { limit: 1 })) === 0) return;
    await withDocumentLock(
      this.locks,
      `review_months:${orgId}`,
      async () => {
        // Re-read under the lock: another reader may have recomputed them meanwhile.
        const marked = await this.markers.find({ orgId }, { projection: { month: 1 } }).toArray();
        if (marked.length === 0) return;
        const months = [...new Set(marked.map((m) => m.month))].sort();
        await this.recompute(orgId, months);
        const ids = marked.map((m) => m._id);
        for (let i = 0; i < ids.length; i += 500) await this.markers.deleteMany({ _id: { $in: ids.slice(i, i + 500) } });
      },
      { ttlMs: RECOMPUTE_LEASE_MS, waitMs: RECOMPUTE_LEASE_MS },
    );
  }

  private async recompute(orgId: string, months: string[]): Promise<void> {
    const buckets = new Map<string, Map<string, MonthPlatform>>(months.map((m) => [m, new Map()]));
    const range: Filter<ReviewDocument> = { orgId, date: { $gte: monthStart(months[0]!), $lt: monthStart(addMonths(months.at(-1)!, 1)) } };
    const cursor = this.reviews.find(range, { projection: { _id: 0, platform: 1, rating: 1, date: 1, sentimentE6: 1 } });
    for await (const doc of cursor) {
      const bucket = buckets.get(monthOf(doc.date));
      if (!bucket) continue; // a month in the range that was not marked
      let p = bucket.get(doc.platform);
      if (!p) bucket.set(doc.platform, (p = { platform: doc.platform, counts: [0, 0, 0, 0, 0, 0], sentimentCount: 0, sentimentSum: 0 }));
      p.counts[doc.rating ?? 0]!++;
      if (doc.sentimentE6 !== null && doc.sentimentE6 !== undefined) {
        p.sentimentCount++;
        p.sentimentSum += doc.sentimentE6;
      }
    }
    for (const [month, bucket] of buckets) {
      const _id = `${orgId}/${month}`;
      const platforms = [...bucket.values()].sort((a, b) => (a.platform < b.platform ? -1 : 1));
      if (platforms.length === 0) await this.months.deleteOne({ _id });
      else await this.months.replaceOne({ _id }, { orgId, month, platforms }, { upsert: true });
    }
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
