/**
 * Test helper run as a child process by crash.test.ts: opens the embedded
 * store in DATA_DIR and writes review batches through the store's upsert (the
 * one door every import and sync takes) until it is killed. Batch k creates
 * reviews `k-0`…`k-9` and changes the review `base` to `base k`; it prints
 * `k` once the batch is durable.
 */
import { EmbeddedStore } from '../../store/embedded/store.ts';
import type { ReviewInput } from '../../store/types.ts';

const dataDir = process.env.DATA_DIR!;
const orgId = process.env.ORG_ID!;
const from = Number(process.env.FROM ?? '0');

const review = (externalId: string, content: string): ReviewInput => ({
  platform: 'GOOGLE', externalId, authorName: 'A', authorAvatar: null, rating: 4, content, date: '2026-10-01T10:00:00.000Z', url: null,
  language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [],
});

const store = await EmbeddedStore.open(dataDir);
for (let k = from; ; k++) {
  const batch = [review('base', `base ${k}`)];
  for (let j = 0; j < 10; j++) batch.push(review(`${k}-${j}`, `${k}-${j}`));
  await store.reviews.upsert(orgId, batch, new Date());
  process.stdout.write(`${k}\n`);
}
