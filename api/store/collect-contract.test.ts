/**
 * The review page's records (collect-types.ts) behave the same in both
 * stores: settings found by the current link only (a replaced link finds
 * nothing), submissions replaced only while they are as the caller last saw
 * them (one of two racing updates wins), lookups by email key and state,
 * expired unconfirmed submissions forgotten in batches, and everything still
 * there after a restart (embedded) or on another connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EmbeddedStore } from './embedded/store.ts';
import type { Submission } from './collect-types.ts';
import type { Store } from './types.ts';
import { describeOn, mongoTargets, openMongoStore } from '../test/mongo-suites.ts';

function submission(id: string, over: Partial<Submission> = {}): Submission {
  const at = '2026-11-20T10:00:00.000Z';
  return {
    id, orgId: 'org_a', collectId: 'col_aaaaaaaaaaaaaaaaaaaa', productId: null, rating: 4, content: 'Good', authorName: 'Ana',
    email: 'ana@example.com', emailKey: 'k1', language: 'en', state: 'pending', hold: 'awaiting_confirmation', confirmed: false,
    rejectReason: null, confirmExpiresAt: null, reviewExternalId: null, mailSentAt: null, submittedAt: at, decidedAt: null, updatedAt: at, ...over,
  };
}

function suite(open: () => Promise<{ store: Store; reopen(): Promise<Store>; cleanup(): Promise<void> }>): void {
  let h: Awaited<ReturnType<typeof open>>;
  beforeAll(async () => {
    h = await open();
  });
  afterAll(async () => h?.cleanup());

  it('finds settings by the current link only, and keeps submissions with conditional updates', async () => {
    const s = h.store.collect;
    expect(await s.getSettings('org_a')).toBeNull();
    await s.putSettings({ orgId: 'org_a', collectId: 'col_old_aaaaaaaaaaaaaaaa', shareUrl: null, moderation: 'publish', updatedAt: 'x' });
    expect((await s.findByCollectId('col_old_aaaaaaaaaaaaaaaa'))?.orgId).toBe('org_a');
    await s.putSettings({ orgId: 'org_a', collectId: 'col_new_aaaaaaaaaaaaaaaa', shareUrl: 'https://g.example/r', moderation: 'hold', updatedAt: 'y' });
    expect(await s.findByCollectId('col_old_aaaaaaaaaaaaaaaa')).toBeNull();
    expect(await s.findByCollectId('col_new_aaaaaaaaaaaaaaaa')).toEqual({ orgId: 'org_a', collectId: 'col_new_aaaaaaaaaaaaaaaa', shareUrl: 'https://g.example/r', moderation: 'hold', updatedAt: 'y' });

    const a = submission('sub_aaaaaaaaaaaaaaaaaaaa');
    await s.create(a);
    await s.create(submission('sub_bbbbbbbbbbbbbbbbbbbb', { submittedAt: '2026-11-21T10:00:00.000Z', updatedAt: '2026-11-21T10:00:00.000Z' }));
    expect(await s.get(a.id)).toEqual(a);
    // Two racing updates from the same state: one wins.
    const published = { ...a, state: 'published' as const, reviewExternalId: a.id, updatedAt: '2026-11-22T00:00:00.000Z' };
    const rejected = { ...a, state: 'rejected' as const, rejectReason: 'spam' as const, updatedAt: '2026-11-22T00:00:01.000Z' };
    const results = await Promise.all([s.update(published, a), s.update(rejected, a)]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const winner = (await s.get(a.id))!;
    expect(winner.state).toBe(results[0] ? 'published' : 'rejected');
    // A stale expectation changes nothing.
    expect(await s.update({ ...a, content: 'stale' }, a)).toBeNull();
    expect((await s.get(a.id))!.content).toBe('Good');

    expect((await s.listByState('org_a', 'pending')).map((x) => x.id)).toEqual(['sub_bbbbbbbbbbbbbbbbbbbb']);
    expect(await s.listByState('org_b', 'pending')).toEqual([]);
    if (winner.state === 'published') expect((await s.findPublished('org_a', 'k1', null))?.id).toBe(a.id);
    expect(await s.findPublished('org_a', 'k1', 'mug')).toBeNull();
    expect(await s.findPublished('org_a', 'k2', null)).toBeNull();

    const again = await h.reopen();
    expect(await again.collect.get(a.id)).toEqual(winner);
    expect((await again.collect.findByCollectId('col_new_aaaaaaaaaaaaaaaa'))?.orgId).toBe('org_a');
    expect(await again.collect.findByCollectId('col_old_aaaaaaaaaaaaaaaa')).toBeNull();
  });

  it('patches only the fields given: saves of different fields at the same time each keep theirs, after a restart too', async () => {
    const s = h.store.collect;
    expect(await s.patchSettings('org_patch', { shareUrl: null, updatedAt: '2026-11-01T00:00:00.000Z' })).toBeNull();
    await s.putSettings({ orgId: 'org_patch', collectId: 'col_patchaaaaaaaaaaaaaaa', shareUrl: null, moderation: 'publish', updatedAt: '2026-11-01T00:00:00.000Z' });
    const invitations = { delayDays: 3, reminder: false, language: 'de', senderName: 'Acme' };
    await Promise.all([
      s.patchSettings('org_patch', { shareUrl: 'https://example.com/share', moderation: 'hold', updatedAt: '2026-11-02T00:00:00.000Z' }),
      s.patchSettings('org_patch', { invitations, updatedAt: '2026-11-02T00:00:00.000Z' }),
      s.patchSettings('org_patch', { collectId: 'col_patchbbbbbbbbbbbbbbb', updatedAt: '2026-11-02T00:00:00.000Z' }),
    ]);
    const expected = { orgId: 'org_patch', collectId: 'col_patchbbbbbbbbbbbbbbb', shareUrl: 'https://example.com/share', moderation: 'hold', invitations, updatedAt: '2026-11-02T00:00:00.000Z' };
    expect(await s.getSettings('org_patch')).toEqual(expected);
    // The replaced link no longer finds the organization; the new one does.
    expect(await s.findByCollectId('col_patchaaaaaaaaaaaaaaa')).toBeNull();
    expect((await s.findByCollectId('col_patchbbbbbbbbbbbbbbb'))?.orgId).toBe('org_patch');
    const again = await h.reopen();
    expect(await again.collect.getSettings('org_patch')).toEqual(expected);
  });

  it('forgets expired unconfirmed submissions of every organization, a bounded batch at a time, and nothing else', async () => {
    const s = h.store.collect;
    const day = (d: number) => `2026-10-${String(d).padStart(2, '0')}T10:00:00.000Z`;
    const awaiting = (id: string, orgId: string, expires: string) => submission(id, { orgId, emailKey: `e-${id}`, confirmExpiresAt: expires });
    // Expired and still waiting: three of org_c, one of org_d.
    const expired = [awaiting('sub_exp1aaaaaaaaaaaaaaaa', 'org_c', day(8)), awaiting('sub_exp2aaaaaaaaaaaaaaaa', 'org_d', day(9)), awaiting('sub_exp3aaaaaaaaaaaaaaaa', 'org_c', day(10)), awaiting('sub_exp4aaaaaaaaaaaaaaaa', 'org_c', day(11))];
    // Kept: not expired yet, confirmed and held, published, rejected, and held for a person without mail.
    const kept = [
      awaiting('sub_keep1aaaaaaaaaaaaaaa', 'org_c', day(20)),
      submission('sub_keep2aaaaaaaaaaaaaaa', { orgId: 'org_c', emailKey: 'e-k2', hold: 'moderation', confirmed: true, confirmExpiresAt: null }),
      submission('sub_keep3aaaaaaaaaaaaaaa', { orgId: 'org_c', emailKey: 'e-k3', state: 'published', hold: null, confirmed: true, confirmExpiresAt: null, reviewExternalId: 'sub_keep3aaaaaaaaaaaaaaa' }),
      submission('sub_keep4aaaaaaaaaaaaaaa', { orgId: 'org_c', emailKey: 'e-k4', state: 'rejected', hold: null, rejectReason: 'spam', confirmExpiresAt: day(1) }),
      submission('sub_keep5aaaaaaaaaaaaaaa', { orgId: 'org_c', emailKey: 'e-k5', hold: 'no_mail', confirmExpiresAt: null }),
    ];
    for (const x of [...expired.slice(0, 2), ...kept, ...expired.slice(2)]) await s.create(x);
    // Confirmed meanwhile (an update): no longer waiting, so kept though its old link's time has passed.
    const confirming = awaiting('sub_keep6aaaaaaaaaaaaaaa', 'org_c', day(9));
    await s.create(confirming);
    await s.update({ ...confirming, hold: 'moderation', confirmed: true, confirmExpiresAt: null, updatedAt: day(9) }, confirming);

    const now = day(15);
    expect(await s.removeExpired(now, 2)).toBe(2);
    expect(await s.removeExpired(now, 2)).toBe(2);
    expect(await s.removeExpired(now, 2)).toBe(0);
    for (const x of expired) expect(await s.get(x.id), x.id).toBeNull();
    for (const x of [...kept, confirming]) expect(await s.get(x.id), x.id).not.toBeNull();
    expect((await s.listByState('org_c', 'pending')).map((x) => x.id)).toEqual(['sub_keep1aaaaaaaaaaaaaaa', 'sub_keep2aaaaaaaaaaaaaaa', 'sub_keep5aaaaaaaaaaaaaaa', 'sub_keep6aaaaaaaaaaaaaaa']);

    // After a restart (embedded: replayed from the log) they stay gone; the next to expire goes when it does.
    const again = await h.reopen();
    for (const x of expired) expect(await again.collect.get(x.id)).toBeNull();
    expect(await again.collect.removeExpired(now, 10)).toBe(0);
    expect(await again.collect.removeExpired(day(20), 10)).toBe(1);
    expect(await again.collect.get('sub_keep1aaaaaaaaaaaaaaa')).toBeNull();
  });
}

describeOn({ name: 'embedded', url: 'embedded', missing: '' }, 'collect store contract', () =>
  suite(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'collect-contract-'));
    let store: Store = await EmbeddedStore.open(dir);
    return {
      get store() {
        return store;
      },
      async reopen() {
        await store.close();
        store = await EmbeddedStore.open(dir);
        return store;
      },
      async cleanup() {
        await store.close().catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }),
);

for (const target of mongoTargets()) {
  describeOn(target, 'collect store contract', () =>
    suite(async () => {
      const store = await openMongoStore(target, 'collect');
      const other: Store[] = [];
      return {
        store,
        async reopen() {
          // Another connection to the same database: what a second instance reads.
          const { MongoStore } = await import('./mongo/store.ts');
          const second = await MongoStore.connect(target.url, (store as unknown as { db: { databaseName: string } }).db.databaseName);
          other.push(second);
          return second;
        },
        async cleanup() {
          for (const o of other) await o.close();
          await store.dropDatabase();
          await store.close();
        },
      };
    }),
  );
}
