/**
 * The document lock (document-lock.ts) on a real server: exclusive while the
 * holder works, even past the lease (the holder renews it), and taken over
 * once a dead holder's lease has run out.
 */
import { MongoClient, type Collection } from 'mongodb';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { uniqueDbName } from '../../test/ferretdb.ts';
import { describeOn, mongoTargets } from '../../test/mongo-suites.ts';
import { StoreUnavailableError } from '../unavailable.ts';
import { withDocumentLock, type LockDocument } from './document-lock.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const target of mongoTargets()) {
  describeOn(target, 'MongoDB document lock', () => {
    const dbName = uniqueDbName('locks');
    let client: MongoClient;
    let locks: Collection<LockDocument>;
    beforeAll(async () => {
      client = await MongoClient.connect(target.url);
      locks = client.db(dbName).collection<LockDocument>('locks');
    });
    afterAll(async () => {
      await client.db(dbName).dropDatabase();
      await client.close();
    });

    it('stays exclusive while the holder works three leases long, then passes to the waiter', async () => {
      const events: string[] = [];
      // Leases long enough for a renewal (every third of one) to land on a loaded machine, where a
      // FerretDB write can take several hundred milliseconds.
      const ttlMs = 1_500;
      const first = withDocumentLock(
        locks,
        'long',
        async () => {
          events.push('first in');
          await sleep(3 * ttlMs);
          events.push('first out');
        },
        { ttlMs, waitMs: 10_000 },
      );
      // The second asks once the first holds the lock (a loaded FerretDB may take longer than any fixed wait to grant it).
      await vi.waitFor(() => expect(events).toContain('first in'), { timeout: 10_000, interval: 20 });
      const second = withDocumentLock(locks, 'long', async () => void events.push('second in'), { ttlMs, waitMs: 10_000 });
      await Promise.all([first, second]);
      expect(events).toEqual(['first in', 'first out', 'second in']);
      expect(await locks.countDocuments({ _id: 'long' })).toBe(0);
    });

    it("takes over a dead holder's lock once its lease ran out, and never deletes a live one", async () => {
      await locks.insertOne({ _id: 'dead', token: 'crashed', expiresAt: Date.now() + 300 });
      const started = Date.now();
      await withDocumentLock(locks, 'dead', async () => {
        expect(Date.now() - started).toBeGreaterThanOrEqual(250);
        expect((await locks.findOne({ _id: 'dead' }))?.token).not.toBe('crashed');
      }, { ttlMs: 1_000, waitMs: 5_000 });
      await locks.insertOne({ _id: 'alive', token: 'holder', expiresAt: Date.now() + 60_000 });
      const refused = await withDocumentLock(locks, 'alive', async () => 'entered', { waitMs: 300 }).catch((err: Error) => err);
      expect(refused).toBeInstanceOf(StoreUnavailableError);
      expect(String((refused as Error).cause)).toMatch(/could not lock alive/);
      expect((await locks.findOne({ _id: 'alive' }))?.token).toBe('holder');
    });
  });
}
