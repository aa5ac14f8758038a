/**
 * A data folder of the embedded store holding N generated reviews of one
 * organization (agency plan, a limit of 10,000,000 a minute), written through the store itself in this
 * process: the same log format and fsync'ed batches of 2,000 as an import, with
 * every review-intelligence field already filled, so a million reviews take a
 * minutes rather than the import's enrichment time. Used by bench/startup.ts
 * and bench/profile.ts.
 */
import { createOrganization } from '../api/admin/orgs.ts';
import { EmbeddedStore } from '../api/store/embedded/store.ts';
import type { ReviewInput } from '../api/store/types.ts';

const BATCH = 2000;
const PLATFORMS = ['GOOGLE', 'YELP', 'TRUSTPILOT', 'G2', 'CAPTERRA', 'FACEBOOK'];
const WORDS = 'great friendly fast coffee service staff quality price support helpful recommend again slow cold warm cozy team product delivery easy'.split(' ');
const THEMES = ['service', 'staff', 'price', 'quality', 'delivery', 'food', 'support'];

/** Deterministic reviews like bench/run.ts's, with the fields enrichment would add. */
function* batches(n: number, products: number): Generator<ReviewInput[]> {
  let seed = 42;
  const rnd = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const now = Date.now();
  for (let i = 0; i < n; ) {
    const batch: ReviewInput[] = [];
    for (let k = 0; k < BATCH && i < n; k++, i++) {
      const platform = PLATFORMS[i % PLATFORMS.length]!;
      const rated = platform !== 'FACEBOOK' || rnd() < 0.3;
      const content = Array.from({ length: 8 + Math.floor(rnd() * 30) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
      const sentiment = Math.round(rnd() * 100) / 100;
      batch.push({
        platform,
        externalId: `bench-${i}`,
        authorName: `Reviewer ${i}`,
        authorAvatar: null,
        rating: rated ? 1 + Math.floor(rnd() * 5) : null,
        content,
        date: new Date(now - Math.floor(rnd() * 730 * 86_400_000)).toISOString(),
        url: `https://example.com/r/${i}`,
        language: 'en',
        isVerified: rnd() < 0.5,
        sentiment,
        sentimentLabel: sentiment > 0.6 ? 'POSITIVE' : sentiment < 0.4 ? 'NEGATIVE' : 'NEUTRAL',
        aiSummary: content.slice(0, 60),
        aiThemes: [THEMES[i % THEMES.length]!],
        ...(products > 0 && { productId: benchProductId(i % products) }),
      });
    }
    yield batch;
  }
}

/** A catalog id of the benches: P-00000, P-00001, … (bench/run.ts names its products alike). */
export const benchProductId = (k: number): string => `P-${String(k).padStart(5, '0')}`;

/**
 * Writes `n` reviews of one organization into an embedded store in `dataDir`;
 * returns the seconds taken. With `products`, review i names product
 * `benchProductId(i mod products)` (the catalog itself is not written: the
 * review endpoints never read it).
 */
export async function fillDataFolder(dataDir: string, n: number, products = 0): Promise<{ seconds: number; orgId: string }> {
  const started = performance.now();
  const store = await EmbeddedStore.open(dataDir);
  let orgId: string;
  try {
    const org = await createOrganization(store, { name: 'Start-up bench', plan: 'agency', rateLimit: 10_000_000 });
    orgId = org.id;
    for (const batch of batches(n, products)) await store.reviews.upsert(org.id, batch, new Date());
  } finally {
    await store.close();
  }
  return { seconds: (performance.now() - started) / 1000, orgId };
}

