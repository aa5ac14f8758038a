/**
 * Bulk imports by organization (bulk-imports.ts), and the import marking its
 * organization only once it is bulk (more than BULK_RECORDS records read).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importRecords } from '../admin/import.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { newId } from '../store/ids.ts';
import type { Organization } from '../store/types.ts';
import { BulkImports, bulkImports, BULK_RECORDS } from './bulk-imports.ts';

describe('BulkImports', () => {
  it('counts nested marks per organization; an end twice counts once; idle resolves at the end, after maxMs, or on stop', async () => {
    const bulk = new BulkImports();
    expect(bulk.has('a')).toBe(false);
    await bulk.idle('a', 60_000); // nothing running: at once
    const endA1 = bulk.begin('a');
    const endA2 = bulk.begin('a');
    expect(bulk.has('a')).toBe(true);
    expect(bulk.has('b')).toBe(false);
    let woke = false;
    const waiting = bulk.idle('a', 60_000).then(() => (woke = true));
    endA1();
    endA1();
    await new Promise((r) => setTimeout(r, 20));
    expect({ has: bulk.has('a'), woke }).toEqual({ has: true, woke: false });
    endA2();
    await waiting;
    expect(bulk.has('a')).toBe(false);
    // maxMs
    const endB = bulk.begin('b');
    const t0 = Date.now();
    await bulk.idle('b', 100);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
    expect(bulk.has('b')).toBe(true);
    // aborted
    const stop = new AbortController();
    const held = bulk.idle('b', 60_000, stop.signal);
    stop.abort();
    await held;
    await bulk.idle('b', 60_000, stop.signal); // already aborted: at once
    endB();
  });
});

describe('an import', () => {
  async function withOrg(run: (store: EmbeddedStore, org: Organization) => Promise<void>): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'bulk-import-'));
    const store = await EmbeddedStore.open(dir);
    const stamp = new Date().toISOString();
    const org: Organization = { id: newId('org'), name: 'Bulk', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp };
    await store.orgs.create(org);
    try {
      await run(store, org);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const records = (n: number) => Array.from({ length: n }, (_, i) => ({ line: i + 1, record: { platform: 'GOOGLE', externalId: `r${i}`, authorName: 'A', rating: 4, content: `Review ${i}`, date: '2026-10-01T10:00:00Z' } }));

  /** Whether the organization was marked bulk at each write the import made. */
  async function marksAtWrites(n: number): Promise<boolean[]> {
    const seen: boolean[] = [];
    await withOrg(async (store, org) => {
      const upsert = store.reviews.upsert.bind(store.reviews);
      store.reviews.upsert = (orgId, inputs, now) => {
        seen.push(bulkImports.has(orgId));
        return upsert(orgId, inputs, now);
      };
      const summary = await importRecords(store, org, records(n), null);
      expect(summary.imported).toBe(n);
      expect(bulkImports.has(org.id)).toBe(false);
    });
    return seen;
  }

  it(`of ${BULK_RECORDS} records or fewer never marks its organization; a bigger one does once it read more, for every later write, and not after`, async () => {
    expect(await marksAtWrites(BULK_RECORDS)).toEqual([false]);
    expect(await marksAtWrites(10)).toEqual([false]);
    // Three writes of 2,000, 2,000 and 1: the first may be made before record 2,001 is read.
    const big = await marksAtWrites(BULK_RECORDS * 2 + 1);
    expect(big).toHaveLength(3);
    expect(big.slice(1)).toEqual([true, true]);
  }, 60_000);
});
