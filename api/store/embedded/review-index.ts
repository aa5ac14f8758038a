/**
 * In-memory index of every review of every organization, for the embedded
 * store. The store replays its durable log into it at start-up (`apply`) and
 * asks it every read; nothing here scans an organization's reviews per request.
 *
 * Per organization, each review is referenced from four lists sorted in API
 * order (date descending, then id descending): all reviews, its rating (or
 * unrated), its platform, and its platform × rating bucket; and from the same
 * four lists again within its language (for the `language` filter); a review that
 * names a product, or that a source collected (`sourceId`: a widget's `sourceIds`),
 * is in the same eight lists again within that product's or source's scope, with
 * its own aggregates (eight references more, about 64 bytes). A review
 * waiting for a reply (`awaitsReply`: Google, Trustpilot or DIRECT, no reply)
 * is in the same eight lists again within the `awaiting` scope of the organization
 * and of its product and source (the dashboard's `Not replied` filter), and a replied one of those platforms
 * in its platform's `replied` list (the Overview's reply figures). A query picks the
 * lists that exactly cover its filters, cuts each at `since` by binary search,
 * finds the page start in their union by a k-way selection (no walking of
 * `offset` items) and merges `limit` items.
 *
 * Writes are lazy: new records collect in a pending array and replaced ones in
 * a removal set; the next read sorts the pending records once and merges them
 * into every list, so bulk imports and start-up replay stay O(n log n).
 * Statistics are kept incrementally per platform, and per platform and UTC
 * month (the Overview's series); only the day windows are computed at read
 * time, by binary search on dates.
 *
 * Records are frozen once indexed: lists hold references to them and reads
 * return them, so nobody may change one in place (an update is a new record).
 * Dates are compared as canonical ISO strings (`YYYY-MM-DDTHH:mm:ss.sssZ`),
 * whose lexical order is chronological; records are normalized to that form.
 * Review ids are assumed unique (they are, from `newId`).
 */
import type { MonthlyCount, MonthlyQuery, ReplyFiguresQuery, Review, ReviewInput, ReviewPage, ReviewQuery, ReviewStats, StatsQuery } from '../types.ts';
import { awaitsReply, hasShownReply, REPLY_PLATFORMS, REPLY_WINDOW_DAYS, replyDelayMs, replyFigures, type ReplyFigures } from '../../reviews/reply-figures.ts';
import { monthsBetween } from '../../reviews/months.ts';
import { dayWindow, emptyRawStats, finishStats, sentimentUnits, type RawStats } from '../../reviews/stats-math.ts';
import { ShardedMap } from './sharded-map.ts';

/** True when `a` comes before `b` in API order. */
function precedes(a: Review, b: Review): boolean {
  return a.date > b.date || (a.date === b.date && a.id > b.id);
}

function apiOrder(a: Review, b: Review): number {
  if (a.date !== b.date) return a.date > b.date ? -1 : 1;
  return a.id > b.id ? -1 : a.id < b.id ? 1 : 0;
}

/** A record with numbers that order it like `apiOrder` does (ties fall back to `apiOrder`). */
interface Keyed {
  /** The date in ms: canonical dates are one string per instant, so ms order is their lexical order. */
  ms: number;
  /** The id's first 9 UTF-16 code units, three per number (exact below 2^53); a missing one counts as 0. */
  id0: number;
  id1: number;
  id2: number;
  review: Review;
}

/** Code units `at`, `at+1`, `at+2` of `id` as one number that orders like them. */
function codeUnits(id: string, at: number): number {
  return ((id.charCodeAt(at) || 0) * 65536 + (id.charCodeAt(at + 1) || 0)) * 65536 + (id.charCodeAt(at + 2) || 0);
}

function keyedOrder(a: Keyed, b: Keyed): number {
  return b.ms - a.ms || b.id0 - a.id0 || b.id1 - a.id1 || b.id2 - a.id2 || apiOrder(a.review, b.review);
}

/** Above this many records a sort compares numbers, not strings. */
const KEYED_SORT_MIN = 256;

/**
 * `records` sorted in API order, in place. A large batch (the whole log at
 * start-up) is sorted by numbers computed once per record (the date's ms, the
 * id's first code units), which order exactly like the strings: V8 compares
 * strings in a runtime call, and the ~20 million comparisons of a million
 * records took about ten seconds on strings, well under one on numbers.
 */
function sortInApiOrder(records: Review[]): Review[] {
  if (records.length < KEYED_SORT_MIN) return records.sort(apiOrder);
  const keyed: Keyed[] = records.map((review) => ({
    ms: Date.parse(review.date),
    id0: codeUnits(review.id, 0),
    id1: codeUnits(review.id, 3),
    id2: codeUnits(review.id, 6),
    review,
  }));
  keyed.sort(keyedOrder);
  for (let i = 0; i < keyed.length; i++) records[i] = keyed[i]!.review;
  return records;
}

const CANONICAL_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The review's date in canonical form; throws on a date the index cannot order. */
function canonicalDate(value: string): string {
  // Fast path for the stored form (every record at start-up replay): a day up to 28, an hour
  // up to 23, a month 01-12, minutes and seconds up to 59 are a real instant as written. Anything
  // else (Feb 30 or 24:00, which Date.parse rolls over) takes the long way.
  if (
    CANONICAL_DATE.test(value) &&
    value.slice(8, 10) <= '28' &&
    value.slice(11, 13) <= '23' &&
    value.slice(5, 7) >= '01' &&
    value.slice(5, 7) <= '12' &&
    value.slice(8, 10) >= '01' &&
    value.slice(14, 16) <= '59' &&
    value.slice(17, 19) <= '59'
  ) {
    return value;
  }
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`review date is not a date: ${JSON.stringify(value)}`);
  const iso = new Date(ms).toISOString();
  if (!CANONICAL_DATE.test(iso)) throw new RangeError(`review date is outside years 0000-9999: ${value}`);
  return iso;
}

/** A query bound as a string comparable with canonical dates, clamped to years 0000-9999. */
function boundKey(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('invalid date bound');
  const iso = date.toISOString();
  // toISOString writes years 0-9999 in this 24-character form, others with a sign and six digits.
  if (iso.length === 24) return iso;
  // Before year 0 every review is after the bound; after 9999 none is.
  return iso.startsWith('-') ? '' : '9999-12-31T23:59:59.999Z';
}

/** Checks what the index relies on; returns the canonical date. Throws RangeError. */
function checkedDate(record: Pick<Review, 'platform' | 'externalId' | 'rating' | 'sentiment' | 'date'>): string {
  if (typeof record.platform !== 'string' || record.platform === '') throw new RangeError('review platform is required');
  if (typeof record.externalId !== 'string' || record.externalId === '') throw new RangeError('review externalId is required');
  if (record.rating !== null && !(Number.isInteger(record.rating) && record.rating >= 1 && record.rating <= 5)) {
    throw new RangeError(`review rating must be an integer 1-5 or null: ${String(record.rating)}`);
  }
  if (record.sentiment !== null && !Number.isFinite(record.sentiment)) throw new RangeError('review sentiment must be a number or null');
  return canonicalDate(record.date);
}

/** A record the index can hold, with its date in canonical form. */
/** The record as the index will hold it (date normalized); throws RangeError when it cannot be indexed. */
export function checked(record: Review): Review {
  const date = checkedDate(record);
  // Records stored before reviews could name a product read as about none.
  // Records stored before replies were collected read as answered by none.
  const withProduct = record.productId === undefined || record.reply === undefined ? { ...record, productId: record.productId ?? null, reply: record.reply ?? null } : record;
  return date === withProduct.date ? withProduct : { ...withProduct, date };
}

/**
 * Superseded records held between reads, at most (checked after each written
 * batch, `settle`): an import that updates the same reviews again and again
 * with no read in between (a re-upload) would otherwise keep every version in
 * `pending` and `removed`, so memory would grow with the file instead of with
 * the data. Imports of new reviews never reach it.
 */
export const MAX_SUPERSEDED = 20_000;

/** Up to this many changes to a list are spliced in; more are merged/filtered in one pass. */
const SPLICE_MAX = 8;

class SortedList {
  items: Review[] = [];
  /** Records to merge at the next flush, in API order. */
  incoming: Review[] = [];

  /** How many items have a date strictly after `key` (they form a prefix). */
  countAfter(key: string): number {
    const items = this.items;
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (items[mid]!.date > key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** How many of the first `cut` items come strictly before `x`. */
  countBefore(x: Review, cut: number): number {
    const items = this.items;
    let lo = 0;
    let hi = cut;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (precedes(items[mid]!, x)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Position of this very record, or -1. */
  indexOf(x: Review): number {
    const i = this.countBefore(x, this.items.length);
    return this.items[i] === x ? i : -1;
  }

  remove(gone: Review[], goneSet: Set<Review>): void {
    // A handful: splice in place (one memmove each); more: one filtering pass.
    if (gone.length <= SPLICE_MAX) {
      for (const x of gone) {
        const i = this.indexOf(x);
        if (i >= 0) this.items.splice(i, 1);
      }
    } else {
      this.items = this.items.filter((x) => !goneSet.has(x));
    }
  }

  /** Merge `incoming` (already in API order) into the items. */
  mergeIncoming(): void {
    const sorted = this.incoming;
    if (sorted.length === 0) return;
    this.incoming = [];
    const items = this.items;
    if (items.length === 0) {
      this.items = sorted;
      return;
    }
    if (sorted.length <= SPLICE_MAX) {
      for (const x of sorted) items.splice(this.countBefore(x, items.length), 0, x);
      return;
    }
    const out: Review[] = new Array(items.length + sorted.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < items.length && j < sorted.length) {
      out[k++] = precedes(sorted[j]!, items[i]!) ? sorted[j++]! : items[i++]!;
    }
    while (i < items.length) out[k++] = items[i++]!;
    while (j < sorted.length) out[k++] = sorted[j++]!;
    this.items = out;
  }
}

/** Incrementally maintained aggregates of one platform of one organization. */
interface Aggregates {
  count: number;
  ratedCount: number;
  ratingSum: number;
  sentimentCount: number;
  sentimentSum: number;
  /** Index 0 = unrated, 1-5 = stars. */
  ratingCounts: number[];
}

/** One platform's reviews in one UTC calendar month. */
interface MonthAggregates {
  count: number;
  ratedCount: number;
  ratingSum: number;
}

class PlatformState {
  readonly agg: Aggregates = { count: 0, ratedCount: 0, ratingSum: 0, sentimentCount: 0, sentimentSum: 0, ratingCounts: [0, 0, 0, 0, 0, 0] };
  /** By `YYYY-MM` (the canonical date's first 7 characters: the UTC month); a month with no review has no entry. */
  readonly months = new Map<string, MonthAggregates>();

  add(r: Review, sign: 1 | -1): void {
    const key = r.date.slice(0, 7);
    let m = this.months.get(key);
    if (!m) this.months.set(key, (m = { count: 0, ratedCount: 0, ratingSum: 0 }));
    m.count += sign;
    if (r.rating !== null) {
      m.ratedCount += sign;
      m.ratingSum += sign * r.rating;
    }
    if (m.count === 0) this.months.delete(key);
    const a = this.agg;
    a.count += sign;
    a.ratingCounts[r.rating ?? 0]! += sign;
    if (r.rating !== null) {
      a.ratedCount += sign;
      a.ratingSum += sign * r.rating;
    }
    if (r.sentiment !== null) {
      a.sentimentCount += sign;
      a.sentimentSum += sign * sentimentUnits(r.sentiment);
    }
  }
}

/** A platform's lists within a list set: all its reviews, and one per rating (index 0 = unrated). */
interface PlatformLists {
  list: SortedList;
  buckets: SortedList[];
}

/**
 * The sorted lists of one set of reviews: all of an organization's, or those
 * of one language (so that `language=` is answered like the other filters,
 * from lists that cover it exactly, never by scanning).
 */
class ListSet {
  readonly all = new SortedList();
  /** Index 0 = unrated, 1-5 = stars. */
  readonly byRating = [0, 1, 2, 3, 4, 5].map(() => new SortedList());
  readonly platforms = new Map<string, PlatformLists>();

  platform(id: string): PlatformLists {
    let p = this.platforms.get(id);
    if (!p) {
      p = { list: new SortedList(), buckets: [0, 1, 2, 3, 4, 5].map(() => new SortedList()) };
      this.platforms.set(id, p);
    }
    return p;
  }

  listsOf(r: Review): SortedList[] {
    const p = this.platform(r.platform);
    const slot = r.rating ?? 0;
    return [this.all, this.byRating[slot]!, p.list, p.buckets[slot]!];
  }

  /** Queue a record (sorted calls keep each list's incoming run sorted). */
  distribute(r: Review): void {
    for (const list of this.listsOf(r)) list.incoming.push(r);
  }

  mergeIncoming(): void {
    this.all.mergeIncoming();
    for (const list of this.byRating) list.mergeIncoming();
    for (const p of this.platforms.values()) {
      p.list.mergeIncoming();
      for (const list of p.buckets) list.mergeIncoming();
    }
  }

  /** The lists whose union is exactly the reviews of this set matching the filters. */
  listsFor(q: Pick<ReviewQuery, 'platforms' | 'minRating' | 'maxRating'>): SortedList[] {
    const platforms = q.platforms === undefined ? null : [...new Set(q.platforms)].flatMap((id) => this.platforms.get(id) ?? []);
    if (q.minRating === undefined && q.maxRating === undefined) return platforms === null ? [this.all] : platforms.map((p) => p.list);
    // Ratings are integers: minRating 3.5 means 4 and up; unrated never matches.
    const lo = Math.max(1, Math.ceil(q.minRating ?? 1));
    const hi = Math.min(5, Math.floor(q.maxRating ?? 5));
    const lists: SortedList[] = [];
    for (let r = lo; r <= hi; r++) {
      if (platforms === null) lists.push(this.byRating[r]!);
      else for (const p of platforms) lists.push(p.buckets[r]!);
    }
    return lists;
  }
}

/**
 * The sorted lists of one set of reviews and of each of its languages: the
 * reviews waiting for a reply (`awaitsReply`) of an organization or of a
 * product, answered like the other filters, from lists that cover the query.
 */
class ListScope {
  readonly main = new ListSet();
  readonly languages = new Map<string, ListSet>();

  language(code: string): ListSet {
    let set = this.languages.get(code);
    if (!set) this.languages.set(code, (set = new ListSet()));
    return set;
  }

  listsOf(r: Review): SortedList[] {
    return [...this.main.listsOf(r), ...this.language(r.language).listsOf(r)];
  }

  /** Queue a record in both of its sets; the sets to merge are added to `touched`. */
  distribute(r: Review, touched: Set<ListSet>): void {
    const lang = this.language(r.language);
    this.main.distribute(r);
    lang.distribute(r);
    touched.add(this.main).add(lang);
  }

  listsFor(q: Pick<ReviewQuery, 'platforms' | 'minRating' | 'maxRating' | 'language'>): SortedList[] {
    if (q.language === undefined) return this.main.listsFor(q);
    return this.languages.get(q.language)?.listsFor(q) ?? [];
  }
}

/**
 * The reviews of one catalog product: its own lists (all, and per language)
 * and aggregates per platform, so a product's pages and statistics are
 * answered like the organization's, never by scanning its reviews.
 */
class ProductReviews {
  readonly main = new ListSet();
  readonly languages = new Map<string, ListSet>();
  readonly platforms = new Map<string, PlatformState>();
  /** Its reviews waiting for a reply (the `Not replied` filter of one product's reviews). */
  readonly awaiting = new ListScope();
  /** Live reviews naming the product. */
  count = 0;

  platform(id: string): PlatformState {
    let state = this.platforms.get(id);
    if (!state) this.platforms.set(id, (state = new PlatformState()));
    return state;
  }

  language(code: string): ListSet {
    let set = this.languages.get(code);
    if (!set) this.languages.set(code, (set = new ListSet()));
    return set;
  }

  add(r: Review, sign: 1 | -1): void {
    this.count += sign;
    this.platform(r.platform).add(r, sign);
  }
}

class OrgReviews {
  /** By natural key (sharded: one Map of a million entries rehashes all of them at once as it grows). */
  readonly byKey = new ShardedMap<Review>();
  /** Every review of the organization. */
  readonly main = new ListSet();
  /** The reviews of each language. */
  readonly languages = new Map<string, ListSet>();
  /** Statistics per platform. */
  readonly platforms = new Map<string, PlatformState>();
  /** The reviews of each catalog product that reviews name. */
  readonly products = new Map<string, ProductReviews>();
  /** The reviews waiting for a reply (`awaitsReply`): the `Not replied` filter, combined with the others like `language` is. */
  readonly awaiting = new ListScope();
  /** Per platform that shows replies, its reviews that have one: the Overview's reply figures read only these. */
  readonly replied = new Map<string, SortedList>();
  /** The last reply figures, valid while `generation` stands and the window cuts every list at the same places. */
  replyCache: { generation: number; cuts: string; figures: ReplyFigures } | null = null;
  /** The reviews each source collected (`sourceId`, CONTRACT §15 chains): lists and aggregates like a product's. */
  readonly sources = new Map<string, ProductReviews>();
  /** Indexed records not yet in the lists, in arrival order. */
  pending: Review[] = [];
  /** Records replaced since the last flush (in the lists or in `pending`). */
  readonly removed = new Set<Review>();
  /** Bumped by every write: what a cached answer was computed from. */
  generation = 0;
  /** Statistics without their time windows, by the platforms asked for, valid while `generation` stands. */
  readonly statsCache = new Map<string, CachedStats>();

  platform(id: string): PlatformState {
    let state = this.platforms.get(id);
    if (!state) {
      state = new PlatformState();
      this.platforms.set(id, state);
    }
    return state;
  }

  language(code: string): ListSet {
    let set = this.languages.get(code);
    if (!set) {
      set = new ListSet();
      this.languages.set(code, set);
    }
    return set;
  }

  product(id: string): ProductReviews {
    let p = this.products.get(id);
    if (!p) this.products.set(id, (p = new ProductReviews()));
    return p;
  }

  repliedList(platform: string): SortedList {
    let list = this.replied.get(platform);
    if (!list) this.replied.set(platform, (list = new SortedList()));
    return list;
  }

  source(id: string): ProductReviews {
    let s = this.sources.get(id);
    if (!s) this.sources.set(id, (s = new ProductReviews()));
    return s;
  }

  listsOf(r: Review): SortedList[] {
    const lists = [...this.main.listsOf(r), ...this.language(r.language).listsOf(r)];
    const awaiting = awaitsReply(r);
    if (awaiting) lists.push(...this.awaiting.listsOf(r));
    else if (hasShownReply(r)) lists.push(this.repliedList(r.platform));
    if (r.productId !== null) {
      const p = this.product(r.productId);
      lists.push(...p.main.listsOf(r), ...p.language(r.language).listsOf(r));
      if (awaiting) lists.push(...p.awaiting.listsOf(r));
    }
    if (r.sourceId !== undefined) {
      const s = this.source(r.sourceId);
      lists.push(...s.main.listsOf(r), ...s.language(r.language).listsOf(r));
      if (awaiting) lists.push(...s.awaiting.listsOf(r));
    }
    return lists;
  }

  /** A review's share of the aggregates: its platform's, its product's and its source's. */
  private count(r: Review, sign: 1 | -1): void {
    this.platform(r.platform).add(r, sign);
    if (r.productId !== null) this.product(r.productId).add(r, sign);
    if (r.sourceId !== undefined) this.source(r.sourceId).add(r, sign);
  }

  put(record: Review): void {
    const key = naturalKey(record.platform, record.externalId);
    const old = this.byKey.get(key);
    if (old === record) return;
    this.generation++;
    if (old) {
      this.count(old, -1);
      const sameLists =
        old.date === record.date && old.id === record.id && old.rating === record.rating && old.language === record.language && old.productId === record.productId && old.sourceId === record.sourceId && (old.reply === null) === (record.reply === null);
      // Flushing is per organization, so a record found in `all` is in all its lists.
      const at = sameLists ? this.main.all.indexOf(old) : -1;
      if (at >= 0) {
        // Same place in the same lists: swap the reference, no re-sort.
        for (const list of this.listsOf(old)) list.items[list.indexOf(old)] = record;
      } else {
        this.removed.add(old);
        this.pending.push(record);
      }
    } else {
      this.pending.push(record);
    }
    this.byKey.set(key, record);
    this.count(record, 1);
  }

  /** Takes a review out of every list and aggregate (a removal); its record, or null. */
  drop(platform: string, externalId: string): Review | null {
    const key = naturalKey(platform, externalId);
    const old = this.byKey.get(key);
    if (!old) return null;
    this.generation++;
    this.count(old, -1);
    // Flush takes it out of the lists (or out of `pending`), as for a replaced record.
    this.removed.add(old);
    this.byKey.delete(key);
    return old;
  }

  /** Bring every list up to date with the pending writes. */
  flush(): void {
    if (this.pending.length === 0 && this.removed.size === 0) return;
    if (this.removed.size > 0) {
      const inLists = new Set(this.removed);
      this.pending = this.pending.filter((r) => {
        if (!this.removed.has(r)) return true;
        inLists.delete(r);
        return false;
      });
      const perList = new Map<SortedList, Review[]>();
      for (const r of inLists) {
        for (const list of this.listsOf(r)) {
          const gone = perList.get(list);
          if (gone) gone.push(r);
          else perList.set(list, [r]);
        }
      }
      for (const [list, gone] of perList) list.remove(gone, inLists);
      this.removed.clear();
    }
    const sorted = sortInApiOrder(this.pending);
    this.pending = [];
    // Distribute once in sorted order, so each list merges an already sorted run.
    // Only the product sets written to are merged: a catalog may hold thousands.
    const productSets = new Set<ListSet>();
    const repliedLists = new Set<SortedList>();
    for (const r of sorted) {
      this.main.distribute(r);
      this.language(r.language).distribute(r);
      const awaiting = awaitsReply(r);
      if (awaiting) this.awaiting.distribute(r, productSets);
      else if (hasShownReply(r)) {
        const list = this.repliedList(r.platform);
        list.incoming.push(r);
        repliedLists.add(list);
      }
      if (r.productId !== null) {
        const p = this.product(r.productId);
        const lang = p.language(r.language);
        p.main.distribute(r);
        lang.distribute(r);
        productSets.add(p.main).add(lang);
        if (awaiting) p.awaiting.distribute(r, productSets);
      }
      if (r.sourceId !== undefined) {
        const s = this.source(r.sourceId);
        const lang = s.language(r.language);
        s.main.distribute(r);
        lang.distribute(r);
        productSets.add(s.main).add(lang);
        if (awaiting) s.awaiting.distribute(r, productSets);
      }
    }
    this.main.mergeIncoming();
    for (const set of this.languages.values()) set.mergeIncoming();
    for (const set of productSets) set.mergeIncoming();
    for (const list of repliedLists) list.mergeIncoming();
  }

  /**
   * The scopes a query reads: the organization, one product's reviews, or the reviews of the
   * sources named (each review has at most one source, so their lists are disjoint).
   */
  scopesFor(q: Pick<ReviewQuery, 'productId' | 'sourceIds'>): { main: ListSet; languages: Map<string, ListSet>; awaiting: ListScope; platforms: Map<string, PlatformState> }[] {
    if (q.sourceIds !== undefined) {
      if (q.productId !== undefined) throw new RangeError('a review query takes productId or sourceIds, not both');
      return [...new Set(q.sourceIds)].flatMap((id) => this.sources.get(id) ?? []);
    }
    const scope = q.productId === undefined ? this : this.products.get(q.productId);
    return scope === undefined ? [] : [scope];
  }

  /** The lists whose union is exactly the reviews matching the filters; none for a language no review has. */
  listsFor(q: Pick<ReviewQuery, 'platforms' | 'minRating' | 'maxRating' | 'language' | 'productId' | 'sourceIds' | 'awaitingReply'>): SortedList[] {
    return this.scopesFor(q).flatMap((scope) => {
      // Only platforms that show replies have reviews in `awaiting`: a filter on another platform finds none there.
      if (q.awaitingReply === true) return scope.awaiting.listsFor(q);
      return q.language === undefined ? scope.main.listsFor(q) : (scope.languages.get(q.language)?.listsFor(q) ?? []);
    });
  }
}

function freeze(record: Review): Review {
  Object.freeze(record.aiThemes);
  return Object.freeze(record);
}

/** A record with exactly the Review fields, in one order (one hidden class, stable log lines). */
/** `sourceId`: the collecting source, the input's or else the stored review's (it stays when a file import rewrites the review). */
export function makeRecord(input: ReviewInput, date: string, id: string, orgId: string, createdAt: string, updatedAt: string, sourceId: string | undefined = input.sourceId): Review {
  const record: Review = {
    id,
    orgId,
    platform: input.platform,
    externalId: input.externalId,
    authorName: input.authorName,
    authorAvatar: input.authorAvatar,
    rating: input.rating,
    content: input.content,
    date,
    url: input.url,
    language: input.language,
    isVerified: input.isVerified,
    sentiment: input.sentiment,
    sentimentLabel: input.sentimentLabel,
    aiSummary: input.aiSummary,
    aiThemes: [...input.aiThemes],
    createdAt,
    updatedAt,
    productId: input.productId ?? null,
    reply: input.reply ? { text: input.reply.text, date: input.reply.date } : null,
  };
  if (sourceId !== undefined) record.sourceId = sourceId;
  return record;
}

function naturalKey(platform: string, externalId: string): string {
  return `${platform}\u0000${externalId}`;
}

/**
 * The position of the `offset`-th item of the union of the given prefixes
 * (`cuts[i]` items of `lists[i]`): per list, how many of its items precede it.
 * For each list, binary search the item whose rank in the union is `offset`;
 * a rank costs one binary search per list: O(k² log² n) in all.
 */
function selectSplits(lists: SortedList[], cuts: number[], offset: number): number[] | null {
  const rank = (x: Review): number => {
    let sum = 0;
    for (let m = 0; m < lists.length; m++) sum += lists[m]!.countBefore(x, cuts[m]!);
    return sum;
  };
  for (let i = 0; i < lists.length; i++) {
    const items = lists[i]!.items;
    let lo = 0;
    let hi = cuts[i]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const r = rank(items[mid]!);
      if (r === offset) {
        const x = items[mid]!;
        return lists.map((list, m) => list.countBefore(x, cuts[m]!));
      }
      if (r < offset) lo = mid + 1;
      else hi = mid;
    }
  }
  return null;
}

export interface IndexUpsertResult {
  imported: number;
  updated: number;
  /** The full records written, in order: what the store appends to its log. */
  records: Review[];
}

export class ReviewIndex {
  private readonly orgs = new Map<string, OrgReviews>();

  private org(orgId: string): OrgReviews {
    let org = this.orgs.get(orgId);
    if (!org) {
      org = new OrgReviews();
      this.orgs.set(orgId, org);
    }
    return org;
  }

  /**
   * Index a stored record: inserts it, or replaces the review with the same
   * orgId+platform+externalId. Replaying a log through `apply` rebuilds the
   * state the writes produced. The index takes the record over and freezes it.
   */
  apply(record: Review): void {
    const stored = checked(record);
    this.org(stored.orgId).put(freeze(stored));
  }

  /**
   * Insert or update by (orgId, platform, externalId), all or nothing: every
   * input is checked before any is indexed. A new review gets `newId()` and
   * createdAt = now; an update keeps both. A repeat inside the batch updates
   * the earlier one.
   */
  upsert(orgId: string, inputs: readonly ReviewInput[], now: Date, newId: () => string): IndexUpsertResult {
    const stamp = now.toISOString();
    // Check everything before indexing anything: a bad input leaves the index untouched.
    const dates = inputs.map(checkedDate);
    const org = this.org(orgId);
    const records: Review[] = [];
    let imported = 0;
    let updated = 0;
    inputs.forEach((input, i) => {
      const existing = org.byKey.get(naturalKey(input.platform, input.externalId));
      if (existing) updated++;
      else imported++;
      const record = makeRecord(input, dates[i]!, existing?.id ?? newId(), orgId, existing?.createdAt ?? stamp, stamp, input.sourceId ?? existing?.sourceId);
      org.put(freeze(record));
      records.push(record);
    });
    this.settle(orgId);
    return { imported, updated, records };
  }

  /** After a written batch: folds the pending writes in once superseded versions pile up (MAX_SUPERSEDED). */
  settle(orgId: string): void {
    const org = this.orgs.get(orgId);
    if (org && org.removed.size >= MAX_SUPERSEDED) org.flush();
  }

  list(q: ReviewQuery): ReviewPage {
    const org = this.orgs.get(q.orgId);
    if (!org) return { total: 0, items: [] };
    org.flush();
    const since = q.since === undefined ? null : boundKey(q.since);
    const lists: SortedList[] = [];
    const cuts: number[] = [];
    let total = 0;
    for (const list of org.listsFor(q)) {
      const cut = since === null ? list.items.length : list.countAfter(since);
      if (cut === 0) continue;
      lists.push(list);
      cuts.push(cut);
      total += cut;
    }
    const offset = Math.max(0, Math.floor(q.offset));
    const limit = Math.max(0, Math.floor(q.limit));
    if (offset >= total || limit === 0) return { total, items: [] };
    if (lists.length === 1) return { total, items: lists[0]!.items.slice(offset, Math.min(offset + limit, cuts[0]!)) };
    const heads = selectSplits(lists, cuts, offset);
    if (heads === null) throw new Error('review index: page selection failed');
    const items: Review[] = [];
    while (items.length < limit) {
      let best = -1;
      for (let m = 0; m < lists.length; m++) {
        if (heads[m]! < cuts[m]! && (best < 0 || precedes(lists[m]!.items[heads[m]!]!, lists[best]!.items[heads[best]!]!))) best = m;
      }
      if (best < 0) break;
      items.push(lists[best]!.items[heads[best]!]!);
      heads[best]!++;
    }
    return { total, items };
  }

  /**
   * The statistics of an organization (or of some of its platforms): the
   * maintained aggregates, kept finished per platform selection until the next
   * write (the generation), plus the two time windows, counted for every call
   * (they end at `now`, to the millisecond).
   */
  stats(q: StatsQuery): ReviewStats {
    const org = this.orgs.get(q.orgId);
    if (!org) return finishStats(emptyRawStats());
    org.flush();
    // All platforms, or the ones named (none named is its own selection: nothing); of one product, or of all.
    const platforms = q.platforms === undefined ? '*' : `=${q.platforms.join('\u0000')}`;
    const product = q.productId === undefined ? platforms : `${platforms}\u0001${q.productId}`;
    const selection = q.sourceIds === undefined ? product : `${product}\u0002${[...new Set(q.sourceIds)].sort().join('\u0000')}`;
    let cached = org.statsCache.get(selection);
    if (!cached || cached.generation !== org.generation) {
      const scopes = org.scopesFor(q);
      if (scopes.length === 0) return finishStats(emptyRawStats());
      cached = aggregateStats(scopes, org.generation, q.platforms);
      // A few platform selections per organization (its widgets'); more would be another caller's loop.
      if (org.statsCache.size >= 64) org.statsCache.clear();
      org.statsCache.set(selection, cached);
    }
    const { finished, lists } = cached;
    const keys = windowKeys(q.now);
    return {
      totalReviews: finished.totalReviews,
      averageRating: finished.averageRating,
      averageSentiment: finished.averageSentiment,
      last30Days: countWithin(lists, keys.from30, keys.now),
      last7Days: countWithin(lists, keys.from7, keys.now),
      platforms: finished.platforms,
      ratingDistribution: finished.ratingDistribution,
    };
  }

  /**
   * Brings every organization's lists up to date now (the store calls it after
   * replaying its log, so the first request after start-up does not wait for
   * the sort of everything replayed).
   */
  flushAll(): void {
    for (const org of this.orgs.values()) org.flush();
  }

  /** Bumped by every write to the organization's reviews (0 before the first). */
  generation(orgId: string): number {
    return this.orgs.get(orgId)?.generation ?? 0;
  }

  count(orgId: string): number {
    return this.orgs.get(orgId)?.byKey.size ?? 0;
  }

  /** A catalog product's live reviews: how many, and their rated count and star sum (maintained, no review read). */
  productCounts(orgId: string, productId: string): { count: number; ratedCount: number; ratingSum: number } {
    const p = this.orgs.get(orgId)?.products.get(productId);
    const out = { count: p?.count ?? 0, ratedCount: 0, ratingSum: 0 };
    if (p) {
      for (const state of p.platforms.values()) {
        out.ratedCount += state.agg.ratedCount;
        out.ratingSum += state.agg.ratingSum;
      }
    }
    return out;
  }

  /**
   * The reply figures of the last 90 days up to `now`: per platform that shows
   * replies, its reviews in the window (a binary search on its list) and the
   * replied ones among them, read from its list of replied reviews cut at
   * the window (only the window's replied reviews are read, for the median).
   */
  replyFigures(q: ReplyFiguresQuery): ReplyFigures {
    const org = this.orgs.get(q.orgId);
    if (!org) return replyFigures(new Map(), new Map());
    org.flush();
    const { from, to } = dayWindow(q.now, REPLY_WINDOW_DAYS);
    const fromKey = boundKey(from);
    const toKey = boundKey(to);
    // Where the window cuts each list (binary searches). The same cuts in the same generation are the
    // same reviews: the last answer stands, and the replied reviews are read again only after a write
    // or when a review enters or leaves the window.
    const cuts: [string, SortedList | undefined, number, number, number][] = [];
    for (const platform of REPLY_PLATFORMS) {
      const list = org.main.platforms.get(platform)?.list;
      if (!list) continue;
      const replied = org.replied.get(platform);
      cuts.push([platform, replied, countWithin([list], fromKey, toKey), replied?.countAfter(toKey) ?? 0, replied?.countAfter(fromKey) ?? 0]);
    }
    const key = cuts.map((c) => `${c[0]}:${c[2]}:${c[3]}:${c[4]}`).join(' ');
    const cached = org.replyCache;
    if (cached && cached.generation === org.generation && cached.cuts === key) return cached.figures;
    const received = new Map<string, number>();
    const delays = new Map<string, number[]>();
    for (const [platform, replied, count, start, end] of cuts) {
      received.set(platform, count);
      const mine: number[] = [];
      for (let i = start; i < end; i++) {
        const r = replied!.items[i]!;
        mine.push(replyDelayMs({ date: r.date, reply: r.reply! }));
      }
      delays.set(platform, mine);
    }
    const figures = replyFigures(received, delays);
    // Shared by every answer until the next write: frozen, like the statistics.
    for (const p of figures.platforms) Object.freeze(p);
    Object.freeze(figures.platforms);
    org.replyCache = { generation: org.generation, cuts: key, figures: Object.freeze(figures) };
    return figures;
  }

  /** The maintained month × platform aggregates from..to: (months × platforms) map reads, no review read. */
  monthly(q: MonthlyQuery): MonthlyCount[] {
    const org = this.orgs.get(q.orgId);
    if (!org) return [];
    const rows: MonthlyCount[] = [];
    const platforms = [...org.platforms.keys()].sort();
    for (const month of monthsBetween(q.from, q.to)) {
      for (const platform of platforms) {
        const m = org.platforms.get(platform)!.months.get(month);
        if (m && m.count > 0) rows.push({ month, platform, count: m.count, ratedCount: m.ratedCount, ratingSum: m.ratingSum });
      }
    }
    return rows;
  }

  /** Every stored review, organization by organization (the store's compaction snapshot). */
  *all(): IterableIterator<Review> {
    for (const org of this.orgs.values()) yield* org.byKey.values();
  }

  /** How many reviews are stored, over all organizations. */
  get size(): number {
    let n = 0;
    for (const org of this.orgs.values()) n += org.byKey.size;
    return n;
  }

  /** A review by id: walks the organization's reviews (rare, by-hand actions only; no second map of every id). */
  get(orgId: string, id: string): Review | null {
    const org = this.orgs.get(orgId);
    if (org) for (const review of org.byKey.values()) if (review.id === id) return review;
    return null;
  }

  /** Takes the review out of the index (a removal); its record, or null when it was not there. */
  drop(orgId: string, platform: string, externalId: string): Review | null {
    const org = this.orgs.get(orgId);
    const old = org?.drop(platform, externalId) ?? null;
    if (org && old) this.settle(orgId);
    return old;
  }

  /** The external ids of an organization's reviews of one platform. */
  externalIds(orgId: string, platform: string, collectedBy?: string): string[] {
    const out: string[] = [];
    const org = this.orgs.get(orgId);
    if (org) for (const review of org.byKey.values()) if (review.platform === platform && (collectedBy === undefined || review.sourceId === collectedBy)) out.push(review.externalId);
    return out;
  }

  findByExternal(orgId: string, platform: string, externalId: string): Review | null {
    return this.orgs.get(orgId)?.byKey.get(naturalKey(platform, externalId)) ?? null;
  }
}

/** Reviews of the lists dated in (fromKey, toKey] (binary searches, no scan). */
function countWithin(lists: readonly SortedList[], fromKey: string, toKey: string): number {
  let n = 0;
  for (const list of lists) n += list.countAfter(fromKey) - list.countAfter(toKey);
  return n;
}

/**
 * The bounds of the statistics' windows for `now`: the last 30 and 7 days end
 * at now. Requests answered in the same millisecond share them (the ISO
 * strings cost more than the counting), so the last ones are kept.
 */
let lastWindows = { ms: Number.NaN, now: '', from30: '', from7: '' };

function windowKeys(now: Date): { now: string; from30: string; from7: string } {
  const ms = now.getTime();
  if (ms !== lastWindows.ms) {
    lastWindows = { ms, now: boundKey(now), from30: boundKey(dayWindow(now, 30).from), from7: boundKey(dayWindow(now, 7).from) };
  }
  return lastWindows;
}

/** What stats() keeps per platform selection: the finished aggregates (frozen, shared by every answer) and the lists the windows count. */
interface CachedStats {
  generation: number;
  finished: ReviewStats;
  lists: SortedList[];
}

/**
 * The maintained aggregates of an organization (or one of its products, or some of its sources: disjoint
 * scopes, added up) over the chosen platforms (all when none are named), finished, without the windows.
 */
function aggregateStats(scopes: readonly { platforms: Map<string, PlatformState>; main: ListSet }[], generation: number, platforms: readonly string[] | undefined): CachedStats {
  const raw: RawStats = emptyRawStats();
  const byPlatform = new Map<string, RawStats['platforms'][number]>();
  const chosenOf = (org: { platforms: Map<string, PlatformState> }) =>
    platforms === undefined
      ? [...org.platforms.entries()]
      : [...new Set(platforms)].flatMap((id) => {
          const state = org.platforms.get(id);
          return state ? [[id, state] as const] : [];
        });
  for (const scope of scopes) {
    for (const [platform, state] of chosenOf(scope)) {
      const a = state.agg;
      if (a.count === 0) continue;
      raw.totalReviews += a.count;
      raw.ratedCount += a.ratedCount;
      raw.ratingSum += a.ratingSum;
      raw.sentimentCount += a.sentimentCount;
      raw.sentimentSum += a.sentimentSum;
      raw.unratedCount += a.ratingCounts[0]!;
      for (let s = 1; s <= 5; s++) raw.starCounts[s - 1] = (raw.starCounts[s - 1] ?? 0) + a.ratingCounts[s]!;
      let p = byPlatform.get(platform);
      if (!p) {
        byPlatform.set(platform, (p = { platform, count: 0, ratedCount: 0, ratingSum: 0 }));
        raw.platforms.push(p);
      }
      p.count += a.count;
      p.ratedCount += a.ratedCount;
      p.ratingSum += a.ratingSum;
    }
  }
  const finished = finishStats(raw);
  for (const p of finished.platforms) Object.freeze(p);
  for (const r of finished.ratingDistribution) Object.freeze(r);
  Object.freeze(finished.platforms);
  Object.freeze(finished.ratingDistribution);
  const lists = scopes.flatMap((scope) => (platforms === undefined ? [scope.main.all] : chosenOf(scope).flatMap(([id]) => scope.main.platforms.get(id)?.list ?? [])));
  return { generation, finished: Object.freeze(finished), lists };
}
