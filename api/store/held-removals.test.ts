/**
 * Held removals (CONTRACT §11) in both stores (review 4, M-B and L-3): the ids
 * are written once, beside the source record, when the hold is made or
 * changes; the record keeps only the count and the date, so the updates every
 * sync makes never carry the ids again (the embedded log grows by a few
 * hundred bytes, not by the hold; a MongoDB source document stays small
 * whatever the hold). Releasing or keeping takes the hold in one step. And the
 * embedded log is also rewritten by bytes, not only by record counts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { view } from '../sources/view.ts';
import { uniqueDbName } from '../test/ferretdb.ts';
import { mongoTargets } from '../test/mongo-suites.ts';
import { DurableLog } from './embedded/durable-log.ts';
import { EmbeddedStore, shouldCompactBytes } from './embedded/store.ts';
import { MongoStore } from './mongo/store.ts';
import type { Source, Store } from './types.ts';

const at = '2026-11-28T12:00:00.000Z';
const sourceRecord = (id: string, extra: Partial<Source> = {}): Source => ({
  id,
  orgId: 'org_held',
  platform: 'TRUSTPILOT',
  account: 'bu',
  name: 'Trustpilot',
  state: 'active',
  everyMinutes: 1,
  credentials: 'sealed',
  cursor: null,
  lastSyncAt: null,
  lastSuccessAt: null,
  lastFullAt: null,
  nextSyncAt: at,
  lastError: null,
  failures: 0,
  createdAt: at,
  updatedAt: at,
  ...extra,
});
/** Trustpilot-sized ids (24 hex characters). */
const ids = (n: number): string[] => Array.from({ length: n }, () => randomBytes(12).toString('hex'));
/** The update every sync ends with (sync.ts finish()), the hold left as it is. */
const syncUpdate = (store: Store, id: string) => {
  const now = new Date().toISOString();
  return store.sources.update(id, { lastSyncAt: now, state: 'active', failures: 0, lastError: null, lastSuccessAt: now, nextSyncAt: now });
};

interface Subject {
  name: string;
  skip?: string;
  /** Opens the store (again, on the same data, when called a second time). */
  open(): Promise<Store>;
  /** Bytes of the embedded log, or of the MongoDB source document as stored. */
  size(store: Store, sourceId: string): Promise<number>;
  /** Writes a source the way versions before this one did: the held ids inside the record. */
  putLegacy(source: Omit<Source, 'held'> & { held: unknown }): Promise<void>;
  cleanup(): Promise<void>;
}

function subjects(): Subject[] {
  const dir = mkdtempSync(join(tmpdir(), 'held-removals-'));
  const list: Subject[] = [
    {
      name: 'embedded',
      open: () => EmbeddedStore.open(dir),
      size: async (store) => statSync((store as EmbeddedStore).info.path).size,
      // Before the store opens: a line as an earlier version wrote it.
      putLegacy: async (source) => {
        const { log } = await DurableLog.open(join(dir, 'store.log'), () => undefined);
        await log.append({ t: 'source', v: source });
        await log.close();
      },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    },
  ];
  for (const target of mongoTargets()) {
    const dbName = uniqueDbName('held');
    let client: MongoClient | null = null;
    const raw = async () => (client ??= await MongoClient.connect(target.url)).db(dbName);
    list.push({
      name: `mongodb on ${target.name}`,
      ...(!target.url && { skip: target.missing }),
      open: () => MongoStore.connect(target.url, dbName),
      size: async (_store, sourceId) => JSON.stringify(await (await raw()).collection('sources').findOne({ _id: sourceId as never })).length,
      putLegacy: async (source) => {
        await (await raw()).collection('sources').insertOne({ _id: source.id as never, ...source });
      },
      cleanup: async () => {
        await (await raw()).dropDatabase();
        await client?.close();
      },
    });
  }
  return list;
}

for (const subject of subjects()) {
  const suite = subject.skip !== undefined ? describe.skip : describe;
  suite(`held removals [${subject.name}${subject.skip ? `: SKIPPED, ${subject.skip}` : ''}]`, () => {
    let store: Store | null = null;
    afterAll(async () => {
      await store?.close();
      await subject.cleanup();
    });

    it('a large hold is written once: the record keeps the count, the updates of later syncs carry nothing of it, and it survives a restart', async () => {
      store = await subject.open();
      const id = 'src_held';
      await store.sources.create(sourceRecord(id));
      // 20,000 ids (5,000 on FerretDB, whose inserts are slow: the document's size is what is checked there).
      const n = store instanceof EmbeddedStore ? 20_000 : 5_000;
      const held = ids(n);
      const since = '2026-11-28T11:00:00.000Z';
      await store.sources.update(id, { held: { externalIds: held, since } });

      // 20 syncs' updates: a few hundred bytes each (before: the ids, ~530 KiB for 20,000, every time).
      const before = await subject.size(store, id);
      for (let i = 0; i < 20; i++) await syncUpdate(store, id);
      const grew = (await subject.size(store, id)) - before;
      if (store instanceof EmbeddedStore) expect(grew / 20).toBeLessThan(1024);
      // MongoDB: the document does not hold the ids (a hold of any size stays far from the 16 MiB limit, L-3).
      else expect(await subject.size(store, id)).toBeLessThan(4096);

      const source = (await store.sources.get(id))!;
      expect(source.held).toEqual({ count: n, since });
      expect(view(source).heldRemovals).toBe(n);
      expect(new Set((await store.sources.held(id))!.externalIds)).toEqual(new Set(held));
      expect((await store.sources.held(id))!.since).toBe(since);

      // Asked about what a sync saw: only those held.
      expect((await store.sources.heldAmong(id, [held[3]!, 'not-held', held[7]!, held[3]!])).sort()).toEqual([held[3]!, held[7]!].sort());
      // Listed again: out of the hold, the rest as it was; only the change is written.
      const beforeUnheld = await subject.size(store, id);
      expect((await store.sources.update(id, { unheld: [held[3]!, held[7]!, 'not-held'] }))!.held).toEqual({ count: n - 2, since });
      if (store instanceof EmbeddedStore) expect((await subject.size(store, id)) - beforeUnheld).toBeLessThan(1024);
      expect(await store.sources.heldAmong(id, [held[3]!, held[7]!, held[8]!])).toEqual([held[8]!]);

      // A restart (the embedded log replayed; MongoDB read again): the same hold.
      await store.close();
      store = await subject.open();
      expect((await store.sources.get(id))!.held).toEqual({ count: n - 2, since });
      const after = (await store.sources.held(id))!;
      expect(after.externalIds.length).toBe(n - 2);
      expect(new Set(after.externalIds)).toEqual(new Set(held.filter((e) => e !== held[3] && e !== held[7])));

      // Two answers at once (Remove them / Keep them): one takes the hold, the other finds none.
      const answers = await Promise.all([store.sources.takeHeld(id), store.sources.takeHeld(id)]);
      expect(answers.filter((a) => a === null).length).toBe(1);
      expect(answers.find((a) => a !== null)!.externalIds.length).toBe(n - 2);
      expect((await store.sources.get(id))!.held ?? null).toBeNull();
      expect(await store.sources.held(id)).toBeNull();
      expect(await store.sources.heldAmong(id, [held[8]!])).toEqual([]);
    }, 180_000);

    it('a new hold replaces the old one; ending it, or deleting the source, leaves none behind', async () => {
      store ??= await subject.open();
      const id = 'src_replace';
      await store.sources.create(sourceRecord(id));
      const first = ids(50);
      const second = ids(30);
      await store.sources.update(id, { held: { externalIds: first, since: at } });
      await store.sources.update(id, { held: { externalIds: second, since: '2026-11-29T12:00:00.000Z' } });
      expect((await store.sources.get(id))!.held).toEqual({ count: 30, since: '2026-11-29T12:00:00.000Z' });
      expect(new Set((await store.sources.held(id))!.externalIds)).toEqual(new Set(second));
      expect(await store.sources.heldAmong(id, first)).toEqual([]);
      // Every id listed again: the hold ends.
      expect((await store.sources.update(id, { unheld: second }))!.held ?? null).toBeNull();
      expect(await store.sources.held(id)).toBeNull();
      await store.sources.update(id, { held: { externalIds: first, since: at } });
      expect((await store.sources.update(id, { held: null }))!.held ?? null).toBeNull();
      expect(await store.sources.takeHeld(id)).toBeNull();
      await store.sources.update(id, { held: { externalIds: first, since: at } });
      expect(await store.sources.delete(id)).toBe(true);
      await store.sources.create(sourceRecord(id));
      expect(await store.sources.held(id)).toBeNull();
      expect(await store.sources.heldAmong(id, first)).toEqual([]);
    }, 120_000);

    it('a source written the earlier way (the held ids inside the record) reads as the same hold and can be released', async () => {
      await store?.close();
      store = null;
      const legacy = ids(12);
      await subject.putLegacy({ ...sourceRecord('src_legacy'), held: { externalIds: legacy, since: at } });
      store = await subject.open();
      const source = (await store.sources.get('src_legacy'))!;
      expect(source.held).toEqual({ count: 12, since: at });
      expect(view(source).heldRemovals).toBe(12);
      expect(await store.sources.heldAmong('src_legacy', [legacy[0]!, 'x'])).toEqual([legacy[0]!]);
      expect((await store.sources.update('src_legacy', { unheld: [legacy[0]!] }))!.held).toEqual({ count: 11, since: at });
      const taken = (await store.sources.takeHeld('src_legacy'))!;
      expect(new Set(taken.externalIds)).toEqual(new Set(legacy.slice(1)));
      expect(taken.since).toBe(at);
      expect((await store.sources.get('src_legacy'))!.held ?? null).toBeNull();
    }, 120_000);
  });
}

describe('embedded compaction by bytes', () => {
  it('shouldCompactBytes: once what was appended since the last rewrite exceeds that size, and the floor', () => {
    expect(shouldCompactBytes(300, 100, 50)).toBe(true);
    expect(shouldCompactBytes(200, 100, 50)).toBe(false);
    expect(shouldCompactBytes(300, 100, 500)).toBe(false);
    expect(shouldCompactBytes(1000, 0, 500)).toBe(true);
  });

  it('a few large records written again and again get the log rewritten, though they are far fewer than the live records', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'compact-bytes-'));
    try {
      let store = await EmbeddedStore.open(dir, { compactMinBytes: 64 * 1024 });
      await store.sources.create(sourceRecord('src_big'));
      // 200 updates of 4 KiB: 800 KiB appended, 200 superseded records (the record rule waits for 5,000).
      for (let i = 0; i < 200; i++) await store.sources.update('src_big', { lastError: `${i} ${'x'.repeat(4096)}` });
      expect(store.info.compactions).toBeGreaterThan(0);
      // Never more than twice the live data plus the floor (~4 KiB live, 64 KiB floor).
      expect(statSync(store.info.path).size).toBeLessThan(160 * 1024);
      await store.close();
      store = await EmbeddedStore.open(dir);
      expect((await store.sources.get('src_big'))!.lastError).toBe(`199 ${'x'.repeat(4096)}`);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
