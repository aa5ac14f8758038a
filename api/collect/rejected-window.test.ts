/**
 * The Overview's "Rejected reviews by rating (last 90 days)": rejections are
 * counted by the day of the decision, over the 90 days before now; an older
 * rejection no longer counts, and no other state ever does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import type { Submission } from '../store/collect-types.ts';
import { CollectService } from './service.ts';

const NOW = new Date('2026-11-28T12:00:00.000Z');
const daysAgo = (n: number) => new Date(NOW.getTime() - n * 86_400_000).toISOString();

function submission(id: string, over: Partial<Submission>): Submission {
  const at = daysAgo(200);
  return {
    id, orgId: 'org_a', collectId: 'col_aaaaaaaaaaaaaaaaaaaa', productId: null, rating: 4, content: 'Good', authorName: 'Ana',
    email: `${id}@example.com`, emailKey: id, language: 'en', state: 'rejected', hold: null, confirmed: true,
    rejectReason: 'spam', confirmExpiresAt: null, reviewExternalId: null, mailSentAt: null, submittedAt: at, decidedAt: null, updatedAt: at, ...over,
  };
}

let dir: string;
let store: EmbeddedStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rp-rejected-'));
  store = await EmbeddedStore.open(dir);
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('counts the rejections decided in the last 90 days, by rating, and nothing older or not rejected', async () => {
  await store.collect.create(submission('sub_recent_one_aaaaaaa', { rating: 1, decidedAt: daysAgo(3) }));
  await store.collect.create(submission('sub_recent_two_aaaaaaa', { rating: 1, decidedAt: daysAgo(89) }));
  await store.collect.create(submission('sub_recent_thr_aaaaaaa', { rating: 5, decidedAt: daysAgo(30) }));
  await store.collect.create(submission('sub_old_one_aaaaaaaaaa', { rating: 2, decidedAt: daysAgo(91) }));
  await store.collect.create(submission('sub_old_two_aaaaaaaaaa', { rating: 1, decidedAt: daysAgo(150) }));
  await store.collect.create(submission('sub_published_aaaaaaaa', { rating: 3, state: 'published', rejectReason: null, decidedAt: daysAgo(1) }));
  const service = new CollectService({ store, secretsKey: Buffer.alloc(32, 1), publicUrl: 'https://reviews.example', logger: createLogger('silent'), now: () => NOW });
  expect(await service.rejectedByRating('org_a')).toEqual([
    { rating: 1, count: 2 },
    { rating: 2, count: 0 },
    { rating: 3, count: 0 },
    { rating: 4, count: 0 },
    { rating: 5, count: 1 },
  ]);
});
