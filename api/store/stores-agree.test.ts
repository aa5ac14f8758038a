/**
 * The embedded store and the MongoDB store (on FerretDB) behind the same API
 * answer the same 200 requests with the same bytes, apart from what each store
 * assigns (review ids, createdAt). The data set has no two reviews of one
 * organization with the same date, so the order never depends on the ids.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seededRandom } from '../demo/seeded-random.ts';
import { generateFixture } from '../reviews/fixtures.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { describeOn, ferretdbTarget, openMongoStore } from '../test/mongo-suites.ts';
import type { MongoStore } from './mongo/store.ts';
import { EmbeddedStore } from './embedded/store.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const target = ferretdbTarget();

/** The requests: lists over every parameter, statistics, and refusals. */
function requests(count: number): string[] {
  const rnd = seededRandom(18);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const out: string[] = [];
  while (out.length < count) {
    const n = out.length;
    if (n % 10 === 0) {
      out.push('/api/v1/reviews/stats');
      continue;
    }
    if (n % 10 === 5) {
      out.push(`/api/v1/reviews?${pick(['limit=0', 'minRating=9', 'since=yesterday', 'offset=-1', 'platform=%3Cb%3E', 'sort=asc', 'minRating=4&maxRating=2'])}`);
      continue;
    }
    const params = new URLSearchParams();
    const platform = pick([null, null, 'google', 'FACEBOOK', 'yelp', 'TRIPADVISOR', 'nosuch']);
    if (platform) params.set('platform', platform);
    const min = pick([null, null, '1', '3', '4.5', '5']);
    if (min) params.set('minRating', min);
    const max = pick([null, null, null, '2', '4']);
    if (max && (!min || Number(min) <= Number(max))) params.set('maxRating', max);
    const since = pick([null, null, '2026-11-14', '2026-10-22T12:00:00Z', '2026-01-01']);
    if (since) params.set('since', since);
    const limit = pick([null, '1', '7', '33', '100']);
    if (limit) params.set('limit', limit);
    const offset = pick([null, null, '3', '25', '59', '100000']);
    if (offset) params.set('offset', offset);
    out.push(`/api/v1/reviews?${params}`);
  }
  return out;
}

/** The body with what a store assigns (ids, createdAt) replaced by placeholders. */
function comparable(text: string): string {
  return text.replace(/"id":"rev_[A-Za-z0-9_-]+"/g, '"id":"<id>"').replace(/"createdAt":"[^"]+"/g, '"createdAt":"<t>"');
}

describeOn(target, 'the embedded and the MongoDB store answer the API alike', () => {
  let embedded: TestService;
  let mongo: TestService;
  let mongoStore: MongoStore;
  let embeddedDir: string;
  const keys = new Map<TestService, string>();

  beforeAll(async () => {
    const fixture = generateFixture({ sizes: [60] });
    const [fixtureOrg] = fixture.orgIds as [string];
    // Distinct dates (1 ms apart at most): the API order then never falls back to the ids.
    const seen = new Set<number>();
    const inputs = fixture.inputs(fixtureOrg).map((r) => {
      let t = Date.parse(r.date);
      while (seen.has(t)) t += 1;
      seen.add(t);
      return { ...r, date: new Date(t).toISOString() };
    });
    embeddedDir = mkdtempSync(join(tmpdir(), 'stores-agree-'));
    mongoStore = await openMongoStore(target, 'agree');
    embedded = await startTestService({ store: await EmbeddedStore.open(embeddedDir) });
    mongo = await startTestService({ store: mongoStore });
    for (const t of [embedded, mongo]) {
      const { orgId, key } = await t.org('growth', 1_000_000);
      keys.set(t, key);
      await t.service.store.reviews.upsert(orgId, inputs, fixture.now);
    }
  });
  afterAll(async () => {
    await embedded?.close();
    await mongo?.close();
    await embedded?.service.store.close();
    await mongoStore?.dropDatabase();
    await mongoStore?.close();
    rmSync(embeddedDir, { recursive: true, force: true });
  });

  it('gives the same status, content type and body to the same 200 requests', async () => {
    const paths = requests(200);
    let compared = 0;
    let next = 0;
    // Four requests in flight to each service at a time.
    const worker = async () => {
      while (next < paths.length) {
        const path = paths[next++]!;
        const [a, b] = await Promise.all([embedded.get(path, { key: keys.get(embedded)! }), mongo.get(path, { key: keys.get(mongo)! })]);
        expect(b.status, path).toBe(a.status);
        expect(b.headers['content-type'], path).toBe(a.headers['content-type']);
        expect(comparable(b.text), path).toBe(comparable(a.text));
        compared++;
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    expect(compared).toBe(200);
    expect(new Set(paths).size).toBeGreaterThan(120);
  });
});
