/**
 * Tests that can see a missing fsync (kill -9 cannot: the page cache survives
 * it): the log's file handles are wrapped to count and order writes and syncs,
 * or to fail them. Also group commit (syncs per write under concurrency) and
 * the log's growth from lastUsedAt.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../ids.ts';
import type { ApiKeyRecord } from '../types.ts';
import { DurableLog, type OpenFile } from './durable-log.ts';
import { EmbeddedStore } from './store.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'durability-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An `open` whose handles count bytes written, data syncs and folder syncs; `failSyncs` makes the next syncs fail. */
function instrumentedOpen() {
  const state = { written: 0, synced: 0, datasyncs: 0, folderSyncs: [] as string[], failSyncs: 0 };
  const open: OpenFile = async (path, flags, mode) => {
    const handle = await openFile(path, flags, mode);
    return new Proxy(handle, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'write') {
          return async (...args: unknown[]) => {
            const result = await (value as (...a: unknown[]) => Promise<{ bytesWritten: number }>).apply(target, args);
            if (path.endsWith('store.log')) state.written += result.bytesWritten;
            return result;
          };
        }
        if (prop === 'datasync' || prop === 'sync') {
          return async () => {
            if (state.failSyncs > 0) {
              state.failSyncs--;
              throw Object.assign(new Error('EIO: injected sync failure'), { code: 'EIO' });
            }
            const before = state.written;
            await (value as () => Promise<void>).call(target);
            if (prop === 'sync' && !path.endsWith('.log') && !path.endsWith('.compact')) state.folderSyncs.push(path);
            else if (path.endsWith('store.log')) {
              state.datasyncs++;
              state.synced = before;
            }
          };
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as FileHandle;
  };
  return { open, state };
}

const keyRecord = (orgId: string, i: number): ApiKeyRecord => ({
  id: newId('key'),
  orgId,
  name: `k${i}`,
  prefix: 'rvp_live_abcdef',
  hash: i.toString(16).padStart(64, '0'),
  createdAt: new Date().toISOString(),
  lastUsedAt: null,
  expiresAt: null,
  revokedAt: null,
});

describe('the durable log syncs what it acknowledges', () => {
  it('acknowledges an append only once every byte written is synced', async () => {
    const { open, state } = instrumentedOpen();
    const { log } = await DurableLog.open(join(tempDir(), 'store.log'), () => undefined, open);
    let checked = 0;
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        log.append({ i, pad: 'x'.repeat(i * 10) }).then(() => {
          expect(state.synced).toBe(state.written);
          checked++;
        }),
      ),
    );
    await log.close();
    expect(checked).toBe(100);
    expect(state.written).toBeGreaterThan(0);
    expect(state.datasyncs).toBeGreaterThan(0);
  });

  it('syncs the folder after creating store.log, and not when it already exists', async () => {
    const dir = tempDir();
    const first = instrumentedOpen();
    const { log } = await DurableLog.open(join(dir, 'store.log'), () => undefined, first.open);
    await log.close();
    expect(first.state.folderSyncs).toEqual([dir]);
    const again = instrumentedOpen();
    await (await DurableLog.open(join(dir, 'store.log'), () => undefined, again.open)).log.close();
    expect(again.state.folderSyncs).toEqual([]);
    // The store's own log, in a new DATA_DIR, too.
    const storeDir = tempDir();
    const viaStore = instrumentedOpen();
    await (await EmbeddedStore.open(storeDir, { open: viaStore.open })).close();
    expect(viaStore.state.folderSyncs).toContain(dirname(join(storeDir, 'store.log')));
  });

  it('changes nothing in memory when a sync fails, and goes on after it', async () => {
    const dir = tempDir();
    const { open, state } = instrumentedOpen();
    const store = await EmbeddedStore.open(dir, { open });
    const key = keyRecord('org_x', 1);
    await store.keys.create(key);
    state.failSyncs = 1;
    // EIO: the disk's trouble, answered as the store being unavailable (a 503), the cause kept.
    await expect(store.keys.revoke(key.id, new Date())).rejects.toMatchObject({ name: 'StoreUnavailableError', cause: { message: expect.stringMatching(/injected sync failure/) } });
    expect((await store.keys.get(key.id))?.revokedAt).toBeNull();
    expect((await store.keys.revoke(key.id, new Date()))?.revokedAt).not.toBeNull();
    await store.close();
    const reopened = await EmbeddedStore.open(dir);
    expect((await reopened.keys.get(key.id))?.revokedAt).not.toBeNull();
    await reopened.close();
  });

  it('refuses every later write when a failed write cannot be cut back off durably, and the refused record never returns', async () => {
    const dir = tempDir();
    const { open, state } = instrumentedOpen();
    const store = await EmbeddedStore.open(dir, { open });
    const key = keyRecord('org_y', 1);
    await store.keys.create(key);
    state.failSyncs = 2; // the write's sync, then the sync of its truncation
    // A 503 (the store unavailable until a restart), never a 500: this write and every later one.
    const unrepaired = { name: 'StoreUnavailableError', cause: { message: expect.stringMatching(/could not be repaired after a failed write \(.*injected sync failure/) } };
    await expect(store.keys.revoke(key.id, new Date())).rejects.toMatchObject(unrepaired);
    await expect(store.keys.revoke(key.id, new Date())).rejects.toMatchObject(unrepaired);
    await expect(store.ping()).rejects.toMatchObject({ name: 'StoreUnavailableError' });
    expect((await store.keys.get(key.id))?.revokedAt).toBeNull();
    await store.close();
    const reopened = await EmbeddedStore.open(dir);
    expect((await reopened.keys.get(key.id))?.revokedAt).toBeNull();
    await reopened.close();
  });
});

describe('group commit', () => {
  it('makes 200 concurrent writes share a few fdatasyncs, and a revocation does not wait behind queued touches', async () => {
    const { open, state } = instrumentedOpen();
    const store = await EmbeddedStore.open(tempDir(), { open });
    const keys = Array.from({ length: 200 }, (_, i) => keyRecord('org_g', i));
    const syncsBefore = state.datasyncs;
    await Promise.all(keys.map((k) => store.keys.create(k)));
    const createSyncs = state.datasyncs - syncsBefore;
    const touchBefore = state.datasyncs;
    await Promise.all(keys.map((k) => store.keys.touch(k.id, new Date())));
    const touchSyncs = state.datasyncs - touchBefore;
    console.log(`[group commit] 200 concurrent key creations: ${createSyncs} fdatasync; 200 concurrent touches: ${touchSyncs} fdatasync (${(touchSyncs / 200).toFixed(3)} per write)`);
    expect(createSyncs).toBeGreaterThanOrEqual(1);
    expect(touchSyncs).toBeGreaterThanOrEqual(1);
    expect(createSyncs).toBeLessThanOrEqual(3);
    expect(touchSyncs).toBeLessThanOrEqual(3);

    // 500 touches queued, then a revocation: it is in the next round or the one after, not the 501st.
    const rounds = store.commitRounds;
    const touches = keys.flatMap((k) => [store.keys.touch(k.id, new Date()), store.keys.touch(k.id, new Date())]).concat(keys.slice(0, 100).map((k) => store.keys.touch(k.id, new Date())));
    const revoked = await store.keys.revoke(keys[0]!.id, new Date());
    expect(store.commitRounds - rounds).toBeLessThanOrEqual(2);
    expect(revoked?.revokedAt).not.toBeNull();
    await Promise.all(touches);
    // A touch after the revocation never undoes it.
    expect((await store.keys.get(keys[0]!.id))?.revokedAt).not.toBeNull();
    await store.close();
  });
});

describe("lastUsedAt and the log's growth", () => {
  it('writes a small record per touch, and compaction while running keeps the log bounded', async () => {
    const dir = tempDir();
    const store = await EmbeddedStore.open(dir);
    const keys = Array.from({ length: 1000 }, (_, i) => keyRecord('org_l', i));
    await Promise.all(keys.map((k) => store.keys.create(k)));
    const path = join(dir, 'store.log');
    const before = statSync(path).size;
    const minute = Date.parse('2026-11-23T12:00:00Z');
    await Promise.all(keys.map((k) => store.keys.touch(k.id, new Date(minute))));
    const perTouch = (statSync(path).size - before) / keys.length;
    const perDay = perTouch * 1000 * 1440;
    console.log(`[lastUsedAt] ${perTouch.toFixed(1)} log bytes per touch; 1,000 active keys touched each minute append ${(perDay / 1e6).toFixed(0)} MB/day before compaction`);
    expect(perTouch).toBeLessThan(100);
    expect((await store.keys.get(keys[5]!.id))?.lastUsedAt).toBe(new Date(minute).toISOString());

    // An hour of touches (60 × 1,000 = 60,000 records): compacted as it goes.
    for (let m = 1; m <= 60; m++) await Promise.all(keys.map((k) => store.keys.touch(k.id, new Date(minute + m * 60_000))));
    const liveSize = 1000 * 330;
    console.log(`[lastUsedAt] after an hour of touches: log ${(statSync(path).size / 1e6).toFixed(2)} MB, ${store.info.compactions} compactions while running`);
    expect(store.info.compactions).toBeGreaterThan(0);
    expect(statSync(path).size).toBeLessThan(liveSize + 5000 * 100 + 200_000);
    await store.close();
    const reopened = await EmbeddedStore.open(dir);
    expect((await reopened.keys.get(keys[5]!.id))?.lastUsedAt).toBe(new Date(minute + 60 * 60_000).toISOString());
    await reopened.close();
  }, 120_000);
});
