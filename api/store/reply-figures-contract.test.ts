/**
 * The `Not replied` filter (`ReviewQuery.awaitingReply`) and the Overview's
 * reply figures (`ReviewStore.replyFigures`) on both stores, against brute
 * force over the stored reviews: every filter combined with it, paging, and
 * after re-imports that give reviews a reply, change one, or take one away.
 */
import { describe, expect, it } from 'vitest';
import { storeSubjects } from '../sources/testing/subjects.ts';
import { referenceList } from '../reviews/fixtures.ts';
import { REPLY_PLATFORMS, REPLY_WINDOW_DAYS, awaitsReply, medianMs, replyDelayMs, type ReplyFigures } from '../reviews/reply-figures.ts';
import { newId } from './ids.ts';
import type { Review, ReviewInput, ReviewQuery, Store } from './types.ts';

const DAY = 86_400_000;
const PLATFORMS = ['GOOGLE', 'TRUSTPILOT', 'DIRECT', 'YELP', 'FACEBOOK'];

function seeded(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

function inputs(n: number, now: number, seed: number): ReviewInput[] {
  const rnd = seeded(seed);
  const out: ReviewInput[] = [];
  for (let i = 0; i < n; i++) {
    const date = now - Math.floor(rnd() * 200 * DAY) - 1000;
    const replied = rnd() < 0.45;
    out.push({
      platform: PLATFORMS[i % PLATFORMS.length]!,
      externalId: `x${i}`,
      authorName: `A${i}`,
      authorAvatar: null,
      rating: rnd() < 0.1 ? null : 1 + Math.floor(rnd() * 5),
      content: 'Text',
      date: new Date(date).toISOString(),
      url: null,
      language: rnd() < 0.7 ? 'en' : 'de',
      isVerified: false,
      sentiment: null,
      sentimentLabel: null,
      aiSummary: null,
      aiThemes: [],
      productId: rnd() < 0.3 ? 'p1' : null,
      // Some replies dated before their review (an import out of step): they count as 0.
      reply: replied ? { text: `Thanks ${i}`, date: new Date(date + Math.floor((rnd() - 0.05) * 20 * DAY)).toISOString() } : null,
    });
  }
  return out;
}

async function allReviews(store: Store, orgId: string): Promise<Review[]> {
  return (await store.reviews.list({ orgId, limit: 100_000, offset: 0 })).items;
}

/** Brute force: the definitions of api/reviews/reply-figures.ts over every stored review. */
function expectedFigures(reviews: Review[], now: Date): ReplyFigures {
  const from = now.getTime() - REPLY_WINDOW_DAYS * DAY;
  const within = reviews.filter((r) => Date.parse(r.date) > from && Date.parse(r.date) <= now.getTime());
  const all: number[] = [];
  const platforms = REPLY_PLATFORMS.flatMap((platform) => {
    const mine = within.filter((r) => r.platform === platform);
    if (mine.length === 0) return [];
    const delays = mine.flatMap((r) => (r.reply ? [replyDelayMs({ date: r.date, reply: r.reply })] : []));
    all.push(...delays);
    return [{ platform, received: mine.length, replied: delays.length, medianReplyMs: medianMs([...delays]) }];
  });
  return { days: REPLY_WINDOW_DAYS, platforms, medianReplyMs: medianMs(all) };
}

const FILTERS: Omit<ReviewQuery, 'orgId' | 'limit' | 'offset'>[] = [
  {},
  { platforms: ['GOOGLE'] },
  { platforms: ['YELP'] },
  { platforms: ['DIRECT', 'YELP'] },
  { minRating: 4 },
  { platforms: ['TRUSTPILOT'], maxRating: 2 },
  { language: 'de' },
  { language: 'de', platforms: ['GOOGLE'], minRating: 3 },
  { since: new Date(Date.now() - 60 * DAY) },
  { productId: 'p1' },
  { productId: 'p1', language: 'en', minRating: 2 },
];

async function checkLists(store: Store, orgId: string): Promise<void> {
  const stored = await allReviews(store, orgId);
  for (const filters of FILTERS) {
    for (const [offset, limit] of [[0, 7], [5, 9], [0, 1000]] as const) {
      const q: ReviewQuery = { orgId, ...filters, awaitingReply: true, offset, limit };
      const page = await store.reviews.list(q);
      const want = referenceList(stored, q);
      expect({ filters, offset, total: page.total, ids: page.items.map((r) => r.id) }).toEqual({ filters, offset, total: want.total, ids: want.items.map((r) => r.id) });
      expect(page.items.every(awaitsReply)).toBe(true);
    }
  }
}

for (const subject of storeSubjects('reply-figures')) {
  const suite = subject.target && !subject.target.url ? describe.skip : describe;
  suite(`Not replied and reply figures: ${subject.name}`, () => {
    it('lists the reviews waiting for a reply with every filter, and counts the reply figures, like brute force, before and after re-imports', async () => {
      const { store, cleanup } = await subject.open();
      try {
        const orgId = newId('org');
        const now = Date.now();
        const first = inputs(150, now, 11);
        await store.reviews.upsert(orgId, first, new Date(now));
        await store.reviews.upsert(newId('org'), inputs(30, now, 12), new Date(now)); // another organization's never count

        let stored = await allReviews(store, orgId);
        const waiting = stored.filter(awaitsReply);
        expect(waiting.length).toBeGreaterThan(20);
        // Yelp and Facebook reviews without a reply are not waiting: nobody can answer them from here.
        expect(stored.some((r) => r.platform === 'YELP' && r.reply === null)).toBe(true);
        await checkLists(store, orgId);
        const at = new Date();
        const figures = await store.reviews.replyFigures({ orgId, now: at });
        expect(figures).toEqual(expectedFigures(stored, at));
        expect(figures.platforms.map((p) => p.platform)).toEqual(['GOOGLE', 'TRUSTPILOT', 'DIRECT']);
        expect(figures.platforms.every((p) => p.replied > 0 && p.replied < p.received)).toBe(true);

        // Replies come, change and go: reviews move in and out of the filter and the figures follow.
        const changed = first.slice(0, 60).map((r, i) =>
          i % 3 === 0 ? { ...r, reply: null } : i % 3 === 1 ? { ...r, reply: { text: 'Answered', date: new Date(Date.parse(r.date) + (i + 1) * 3_600_000).toISOString() } } : { ...r, language: 'fr', rating: 5 },
        );
        await store.reviews.upsert(orgId, changed, new Date());
        stored = await allReviews(store, orgId);
        await checkLists(store, orgId);
        const later = new Date();
        expect(await store.reviews.replyFigures({ orgId, now: later })).toEqual(expectedFigures(stored, later));
        expect(await store.reviews.replyFigures({ orgId, now: later })).toEqual(expectedFigures(stored, later)); // again, unchanged
        // The window moves on with no write: reviews leave it, and the figures follow (nothing kept from before).
        for (const days of [30, 75, 150]) {
          const future = new Date(later.getTime() + days * DAY);
          expect(await store.reviews.replyFigures({ orgId, now: future })).toEqual(expectedFigures(stored, future));
        }
      } finally {
        await cleanup();
      }
    });

    it('answers no figures for an organization without reviews on a platform that shows replies, or without reviews in the window', async () => {
      const { store, cleanup } = await subject.open();
      try {
        const empty = newId('org');
        expect(await store.reviews.replyFigures({ orgId: empty, now: new Date() })).toEqual({ days: 90, platforms: [], medianReplyMs: null });
        const orgId = newId('org');
        const now = Date.now();
        const old = inputs(10, now, 3).map((r) => ({ ...r, date: new Date(now - 200 * DAY).toISOString(), reply: null }));
        const yelp = inputs(5, now, 4).map((r, i) => ({ ...r, externalId: `y${i}`, platform: 'YELP', date: new Date(now - DAY).toISOString() }));
        await store.reviews.upsert(orgId, [...old, ...yelp], new Date(now));
        expect(await store.reviews.replyFigures({ orgId, now: new Date() })).toEqual({ days: 90, platforms: [], medianReplyMs: null });
        // One Google review of yesterday answered 90 minutes later, one not answered: 1 of 2, median 90 minutes.
        const day = now - DAY;
        await store.reviews.upsert(orgId, [
          { ...old[0]!, externalId: 'g1', platform: 'GOOGLE', date: new Date(day).toISOString(), reply: { text: 'Thanks', date: new Date(day + 90 * 60_000).toISOString() } },
          { ...old[0]!, externalId: 'g2', platform: 'GOOGLE', date: new Date(day).toISOString(), reply: null },
        ], new Date());
        expect(await store.reviews.replyFigures({ orgId, now: new Date() })).toEqual({
          days: 90,
          platforms: [{ platform: 'GOOGLE', received: 2, replied: 1, medianReplyMs: 90 * 60_000 }],
          medianReplyMs: 90 * 60_000,
        });
      } finally {
        await cleanup();
      }
    });
  });
}
