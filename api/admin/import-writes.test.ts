/**
 * The import writes one batch while it reads the next: batches still land in
 * order, and after a failed write no later batch is written and the import
 * fails (what landed before stays).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import type { ReviewInput, Store } from '../store/types.ts';
import { importReviews } from './import.ts';
import { createOrganization } from './orgs.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const ndjson = (n: number): Readable =>
  Readable.from([
    Buffer.from(
      Array.from({ length: n }, (_, i) => JSON.stringify({ platform: 'GOOGLE', externalId: `w${i}`, authorName: 'A', rating: 4, content: 'Friendly staff.', date: '2026-01-01T00:00:00.000Z', language: 'en', sentiment: 0.8, aiSummary: 'Friendly staff.', aiThemes: ['staff'] })).join('\n'),
    ),
  ]);

/** The store with its review upserts recorded, and failing from call `failAt` on (0 = never). */
async function openStore(failAt = 0): Promise<{ store: Store; batches: string[][] }> {
  const dir = mkdtempSync(join(tmpdir(), 'rp-import-writes-'));
  dirs.push(dir);
  const real = await EmbeddedStore.open(dir);
  const batches: string[][] = [];
  const reviews = {
    ...real.reviews,
    upsert: async (orgId: string, inputs: ReviewInput[], now: Date) => {
      batches.push(inputs.map((r) => r.externalId));
      if (failAt > 0 && batches.length >= failAt) throw new Error('disk full');
      return real.reviews.upsert(orgId, inputs, now);
    },
  };
  return { store: Object.assign(Object.create(real) as Store, { reviews }), batches };
}

describe('import writes', () => {
  it('writes every batch, in input order', async () => {
    const { store, batches } = await openStore();
    const org = await createOrganization(store, { name: 'W', plan: 'growth', rateLimit: null });
    const summary = await importReviews(store, org, ndjson(7000), 'ndjson', createLogger('silent'), null);
    expect(summary.imported).toBe(7000);
    expect(batches.flat()).toEqual(Array.from({ length: 7000 }, (_, i) => `w${i}`));
    expect(await store.reviews.count(org.id)).toBe(7000);
    await store.close();
  });

  it('fails on a failed write, writes no later batch, and keeps the batches written before', async () => {
    const { store, batches } = await openStore(2);
    const org = await createOrganization(store, { name: 'W', plan: 'growth', rateLimit: null });
    await expect(importReviews(store, org, ndjson(9000), 'ndjson', createLogger('silent'), null)).rejects.toThrow('disk full');
    expect(batches).toHaveLength(2);
    expect(await store.reviews.count(org.id)).toBe(2000);
    await store.close();
  });
});
