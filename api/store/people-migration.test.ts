/**
 * Data written when a user belonged to one organization (a user record with
 * `orgId` and `role`) still works on both stores: it reads as an account with
 * that one membership, which can then join other organizations.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../dashboard/password.ts';
import { DurableLog } from './embedded/durable-log.ts';
import { EmbeddedStore } from './embedded/store.ts';
import { MongoStore } from './mongo/store.ts';
import type { Store } from './types.ts';
import { describeOn, mongoTargets } from '../test/mongo-suites.ts';
import { uniqueDbName } from '../test/ferretdb.ts';

const legacy = async () => ({
  id: 'usr_legacy1',
  orgId: 'org_legacy1',
  email: 'Old@Example.com',
  emailKey: 'old@example.com',
  passwordHash: await hashPassword('an old password 123'),
  role: 'owner' as const,
  createdAt: '2025-01-01T00:00:00.000Z',
  lastSignInAt: '2025-02-01T00:00:00.000Z',
});

async function expectMigrated(store: Store, old: Awaited<ReturnType<typeof legacy>>) {
  const found = await store.people.users.findByEmail('old@example.com');
  expect(found).toEqual({
    id: old.id,
    email: old.email,
    emailKey: old.emailKey,
    passwordHash: old.passwordHash,
    createdAt: old.createdAt,
    lastSignInAt: old.lastSignInAt,
    memberships: [{ orgId: old.orgId, role: 'owner', createdAt: old.createdAt }],
  });
  // Its password still signs in; it is listed in its organization and can join another.
  expect(await verifyPassword('an old password 123', found!.passwordHash)).toBe(true);
  expect((await store.people.users.listByOrg(old.orgId)).map((u) => [u.id, u.role])).toEqual([[old.id, 'owner']]);
  expect(await store.people.users.member(old.id, old.orgId)).toMatchObject({ id: old.id, orgId: old.orgId, role: 'owner' });
  await store.people.users.addMembership(old.id, { orgId: 'org_new', role: 'member', createdAt: '2026-01-01T00:00:00.000Z' });
  expect((await store.people.users.get(old.id))?.memberships.map((m) => m.orgId)).toEqual([old.orgId, 'org_new']);
}

describe('people migration: embedded', () => {
  it('reads a people.log of one-organization users as accounts with one membership, and keeps it after reopening', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'people-migration-'));
    try {
      const old = await legacy();
      // The log as the previous version wrote it: a user line, then the same user rewritten at sign-in.
      await DurableLog.rewrite(join(dir, 'people.log'), [
        { t: 'user', v: { ...old, lastSignInAt: null } },
        { t: 'user', v: old },
      ]);
      let store = await EmbeddedStore.open(dir);
      await expectMigrated(store, old);
      await store.close();
      store = await EmbeddedStore.open(dir);
      expect((await store.people.users.get(old.id))?.memberships.map((m) => [m.orgId, m.role])).toEqual([[old.orgId, 'owner'], ['org_new', 'member']]);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

for (const target of mongoTargets()) {
  describeOn(target, 'people migration: mongodb', () => {
    it('moves a one-organization user document\'s orgId and role into a membership when the store opens', async () => {
      const dbName = uniqueDbName('people-migration');
      const client = await MongoClient.connect(target.url);
      const old = await legacy();
      try {
        await client.db(dbName).collection('users').insertOne({ _id: old.id as never, ...old });
        const store = await MongoStore.connect(target.url, dbName);
        try {
          await expectMigrated(store, old);
          const raw = await client.db(dbName).collection('users').findOne({ _id: old.id as never });
          expect(raw).not.toHaveProperty('orgId');
          expect(raw).not.toHaveProperty('role');
          // Opening again (another instance, a restart) changes nothing.
          const again = await MongoStore.connect(target.url, dbName);
          expect((await again.people.users.get(old.id))?.memberships.map((m) => m.orgId)).toEqual([old.orgId, 'org_new']);
          await again.close();
        } finally {
          await store.dropDatabase();
          await store.close();
        }
      } finally {
        await client.close();
      }
    }, 30_000);
  });
}
