/**
 * The people contract (users, sessions, invitations, audit) for every store:
 * the embedded store, the MongoDB store on the FerretDB that the test run
 * starts (a loud named skip when there is none outside CI), and a real MongoDB
 * whenever MONGODB_URL is set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from './embedded/store.ts';
import { newId } from './ids.ts';
import { DuplicateEmailError, LastOwnerError, MembershipExistsError, normalizeEmail, RoleChangedError, type Account, type AuditRecord, type Invitation, type Session, type User } from './people-types.ts';
import type { Store } from './types.ts';
import { describeOn, mongoTargets } from '../test/mongo-suites.ts';

interface Subject {
  name: string;
  target?: ReturnType<typeof mongoTargets>[number];
  open(): Promise<{ store: Store; reopen?: () => Promise<Store>; cleanup(): Promise<void> }>;
}

const subjects: Subject[] = [
  {
    name: 'embedded',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'people-contract-'));
      let store = await EmbeddedStore.open(dir);
      return {
        store,
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
    },
  },
];
for (const target of mongoTargets()) {
  subjects.push({
    name: 'mongodb',
    target,
    async open() {
      const { openMongoStore } = await import('../test/mongo-suites.ts');
      const store = await openMongoStore(target, 'people');
      return {
        store,
        async cleanup() {
          await store.dropDatabase();
          await store.close();
        },
      };
    },
  });
}

const iso = (ms: number) => new Date(ms).toISOString();

function user(orgId: string, email: string, role: User['role'] = 'member', createdAt = Date.now()): User {
  return { id: newId('usr'), orgId, email, emailKey: normalizeEmail(email), passwordHash: 'scrypt$x', role, createdAt: iso(createdAt), lastSignInAt: null };
}

/** The account a one-organization user is. */
function account(u: User, ...more: Array<{ orgId: string; role: User['role']; createdAt: string }>): Account {
  const { orgId, role, ...fields } = u;
  return { ...fields, memberships: [{ orgId, role, createdAt: u.createdAt }, ...more] };
}

function session(u: User, n: number): Session {
  const now = Date.now();
  return { id: `${n}`.padStart(64, 'a'), userId: u.id, orgId: u.orgId, csrfToken: `csrf${n}`, createdAt: iso(now), lastSeenAt: iso(now), expiresAt: iso(now + 7 * 86_400_000) };
}

for (const subject of subjects) {
  const on = (name: string, fn: () => void) => (subject.target ? describeOn(subject.target, name, fn) : describe(name, fn));
  on(`people contract: ${subject.name}`, () => {
    let store: Store;
    let opened: Awaited<ReturnType<Subject['open']>>;
    const orgA = newId('org');
    const orgB = newId('org');

    beforeAll(async () => {
      opened = await subject.open();
      store = opened.store;
    }, 60_000);
    afterAll(async () => opened.cleanup());

    it('keeps accounts with emails unique whatever their case, lists members per organization, updates and removes', async () => {
      const owner = user(orgA, 'Owner@Example.com', 'owner', Date.parse('2026-01-01T00:00:00Z'));
      const member = user(orgA, 'member@example.com', 'member', Date.parse('2026-01-02T00:00:00Z'));
      const other = user(orgB, 'someone@else.example', 'owner');
      await store.people.users.create(owner);
      await store.people.users.create(member);
      await store.people.users.create(other);
      await expect(store.people.users.create(user(orgB, 'OWNER@example.COM'))).rejects.toBeInstanceOf(DuplicateEmailError);

      expect(await store.people.users.get(owner.id)).toEqual(account(owner));
      expect(await store.people.users.member(owner.id, orgA)).toEqual(owner);
      expect(await store.people.users.member(owner.id, orgB)).toBeNull();
      expect(await store.people.users.findByEmail('  owner@EXAMPLE.com ')).toEqual(account(owner));
      expect(await store.people.users.findByEmail('nobody@example.com')).toBeNull();
      expect((await store.people.users.listByOrg(orgA)).map((u) => u.id)).toEqual([owner.id, member.id]);

      expect(await store.people.users.setRole(member.id, orgA, 'admin')).toEqual({ ...member, role: 'admin' });
      const signedIn = await store.people.users.updateAccount(member.id, { lastSignInAt: '2026-03-01T10:00:00.000Z' });
      expect(signedIn).toEqual(account({ ...member, role: 'admin', lastSignInAt: '2026-03-01T10:00:00.000Z' }));
      expect(await store.people.users.setRole('usr_missing', orgA, 'owner')).toBeNull();
      expect(await store.people.users.setRole(member.id, orgB, 'owner')).toBeNull();
      expect(await store.people.users.updateAccount('usr_missing', { lastSignInAt: null })).toBeNull();

      expect(await store.people.users.removeMembership(member.id, orgA)).toBe(true);
      expect(await store.people.users.removeMembership(member.id, orgA)).toBe(false);
      // Its only membership gone, the account is gone too.
      expect(await store.people.users.get(member.id)).toBeNull();
      expect(await store.people.users.findByEmail('member@example.com')).toBeNull();
      // The email is free again.
      const again = user(orgA, 'Member@example.com');
      await store.people.users.create(again);
      expect((await store.people.users.findByEmail('member@example.com'))?.id).toBe(again.id);
    });

    it('gives one account memberships in several organizations, a role in each, removed one at a time', async () => {
      const orgC = newId('org');
      const person = user(orgA, `agency-${Date.now()}@example.com`, 'member', Date.parse('2026-01-03T00:00:00Z'));
      await store.people.users.create(person);
      const joined = { orgId: orgC, role: 'owner' as const, createdAt: '2026-02-01T00:00:00.000Z' };
      expect(await store.people.users.addMembership(person.id, joined)).toEqual({ ...person, orgId: orgC, role: 'owner', createdAt: joined.createdAt });
      await expect(store.people.users.addMembership(person.id, { ...joined, role: 'member' })).rejects.toBeInstanceOf(MembershipExistsError);
      expect(await store.people.users.addMembership('usr_missing', joined)).toBeNull();
      expect(await store.people.users.get(person.id)).toEqual(account(person, joined));
      expect((await store.people.users.listByOrg(orgC)).map((u) => [u.id, u.role])).toEqual([[person.id, 'owner']]);
      expect((await store.people.users.listByOrg(orgA)).find((u) => u.id === person.id)?.role).toBe('member');

      // A role in one organization is that organization's only.
      await store.people.users.setRole(person.id, orgA, 'admin');
      expect((await store.people.users.member(person.id, orgC))?.role).toBe('owner');
      // The Owner rule is per organization: the only Owner of orgC stays.
      await expect(store.people.users.removeMembership(person.id, orgC)).rejects.toBeInstanceOf(LastOwnerError);
      await expect(store.people.users.setRole(person.id, orgC, 'admin')).rejects.toBeInstanceOf(LastOwnerError);

      const inA = session(person, 21);
      const inC = { ...session(person, 22), orgId: orgC };
      await store.people.sessions.create(inA);
      await store.people.sessions.create(inC);
      expect(await store.people.users.removeMembership(person.id, orgA)).toBe(true);
      // The account and its other membership stay; so does its session there.
      expect(await store.people.users.get(person.id)).toEqual({ ...account(person), memberships: [joined] });
      expect(await store.people.users.member(person.id, orgA)).toBeNull();
      expect(await store.people.sessions.get(inC.id)).toEqual(inC);
      expect(await store.people.sessions.get(inA.id)).toBeNull();
      expect((await store.people.users.listByOrg(orgA)).some((u) => u.id === person.id)).toBe(false);
    });

    it('never leaves a membership without its account when the last membership is removed while the account joins elsewhere', async () => {
      for (let round = 0; round < 12; round++) {
        const orgC = newId('org');
        const person = user(orgA, `race${round}-${Date.now()}@example.com`);
        await store.people.users.create(person);
        const joined = { orgId: orgC, role: 'member' as const, createdAt: iso(Date.now()) };
        const delay = (round % 6) * 3;
        const join = () => store.people.users.addMembership(person.id, joined).catch(() => null);
        // On MongoDB, round 0 joins at the worst moment: after the removal counted no membership left, before it deletes the account.
        const members = (store.people as unknown as { memberCol?: { countDocuments: (...args: unknown[]) => Promise<number> } }).memberCol;
        let joining: Promise<User | null> | undefined;
        if (round === 0 && members) {
          const count = members.countDocuments.bind(members);
          members.countDocuments = async (...args) => {
            const n = await count(...args);
            members.countDocuments = count;
            joining = join();
            await Promise.race([joining, new Promise((resolve) => setTimeout(resolve, 500))]);
            return n;
          };
        }
        const [removed, added] =
          round === 0 && members
            ? [await store.people.users.removeMembership(person.id, orgA), await joining]
            : await Promise.all([store.people.users.removeMembership(person.id, orgA), new Promise((resolve) => setTimeout(resolve, delay)).then(join)]);
        expect(removed).toBe(true);
        const after = await store.people.users.get(person.id);
        if (added) {
          // The add won: the account stays, with the new membership.
          expect(after?.memberships.map((m) => m.orgId)).toEqual([orgC]);
        } else {
          expect(after).toBeNull();
          // No membership of orgC was left behind: an account created again under the id has only its own.
          const again = { ...user(orgB, `again${round}-${Date.now()}@example.com`), id: person.id };
          await store.people.users.create(again);
          expect((await store.people.users.get(person.id))?.memberships.map((m) => m.orgId)).toEqual([orgB]);
          expect(await store.people.users.removeMembership(person.id, orgB)).toBe(true);
        }
      }
    }, 60_000);

    it('never leaves an organization without an Owner, even when Owners demote or remove each other at once', async () => {
      for (let round = 0; round < 3; round++) {
        const org = newId('org');
        const a = user(org, `a${round}-${Date.now()}@example.com`, 'owner');
        const b = user(org, `b${round}-${Date.now()}@example.com`, 'owner');
        await store.people.users.create(a);
        await store.people.users.create(b);
        const changes = [
          store.people.users.setRole(a.id, org, 'admin'),
          round === 1 ? store.people.users.removeMembership(b.id, org) : store.people.users.setRole(b.id, org, 'member'),
        ];
        const settled = await Promise.allSettled(changes);
        expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const refused = settled.find((r) => r.status === 'rejected');
        expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(LastOwnerError);
        expect((await store.people.users.listByOrg(org)).filter((u) => u.role === 'owner')).toHaveLength(1);
      }
      // Owners of two organizations at once: a demotion in one counts only there.
      const [org1, org2] = [newId('org'), newId('org')];
      const both = user(org1, `both-${Date.now()}@example.com`, 'owner');
      const second = user(org1, `second-${Date.now()}@example.com`, 'owner');
      await store.people.users.create(both);
      await store.people.users.create(second);
      await store.people.users.addMembership(second.id, { orgId: org2, role: 'owner', createdAt: iso(Date.now()) });
      await store.people.users.addMembership(both.id, { orgId: org2, role: 'owner', createdAt: iso(Date.now()) });
      const settled = await Promise.allSettled([store.people.users.setRole(both.id, org1, 'member'), store.people.users.setRole(second.id, org1, 'member'), store.people.users.setRole(both.id, org2, 'member')]);
      expect(settled.filter((r) => r.status === 'rejected')).toHaveLength(1);
      expect((await store.people.users.listByOrg(org1)).filter((u) => u.role === 'owner')).toHaveLength(1);
      expect((await store.people.users.listByOrg(org2)).filter((u) => u.role === 'owner').map((u) => u.id)).toEqual([second.id]);
      // The last Owner alone: refused, nothing changed; promoting and other fields still work.
      const org = newId('org');
      const only = user(org, `only-${Date.now()}@example.com`, 'owner');
      await store.people.users.create(only);
      await expect(store.people.users.setRole(only.id, org, 'member')).rejects.toBeInstanceOf(LastOwnerError);
      await expect(store.people.users.removeMembership(only.id, org)).rejects.toBeInstanceOf(LastOwnerError);
      expect(await store.people.users.get(only.id)).toEqual(account(only));
      expect(await store.people.users.setRole(only.id, org, 'owner')).toMatchObject({ role: 'owner' });
    });

    it('changes or removes a membership on the role it was checked on only: an Admin demoting someone made Owner meanwhile changes nothing', async () => {
      for (let round = 0; round < 3; round++) {
        const org = newId('org');
        const owner = user(org, `o${round}-${Date.now()}@cas.example`, 'owner');
        const target = user(org, `t${round}-${Date.now()}@cas.example`, 'admin');
        await store.people.users.create(owner);
        await store.people.users.create(target);
        // The Owner's promotion and an Admin's demotion checked on the role `admin`, at once.
        const [promoted, demoted] = await Promise.allSettled([
          store.people.users.setRole(target.id, org, 'owner', 'admin'),
          round === 2 ? store.people.users.removeMembership(target.id, org, 'admin') : store.people.users.setRole(target.id, org, 'member', 'admin'),
        ]);
        const now = await store.people.users.member(target.id, org);
        if (promoted.status === 'fulfilled' && promoted.value !== null) {
          // The promotion landed first: the demotion (or removal) checked on `admin` was refused.
          expect((demoted as PromiseRejectedResult).reason).toBeInstanceOf(RoleChangedError);
          expect(now?.role).toBe('owner');
        } else {
          // The demotion landed first: the promotion was refused; after a removal, it found no member (null).
          if (round === 2 && promoted.status === 'fulfilled') expect(promoted.value).toBeNull();
          else expect((promoted as PromiseRejectedResult).reason).toBeInstanceOf(RoleChangedError);
          expect(demoted.status).toBe('fulfilled');
          expect(now?.role ?? 'removed').toBe(round === 2 ? 'removed' : 'member');
        }
      }
      // Without `expected` (an operator), the role is changed whatever it was.
      const org = newId('org');
      const a = user(org, `plain-${Date.now()}@cas.example`, 'owner');
      const b = user(org, `plain2-${Date.now()}@cas.example`, 'owner');
      await store.people.users.create(a);
      await store.people.users.create(b);
      await expect(store.people.users.setRole(b.id, org, 'member', 'admin')).rejects.toBeInstanceOf(RoleChangedError);
      expect((await store.people.users.member(b.id, org))?.role).toBe('owner');
      expect(await store.people.users.setRole(b.id, org, 'member')).toMatchObject({ role: 'member' });
    });

    it('keeps sessions, touches them, and ends them one by one or all of a removed user at once', async () => {
      const u = user(orgA, `s${Date.now()}@example.com`);
      const keep = user(orgA, `k${Date.now()}@example.com`);
      await store.people.users.create(u);
      await store.people.users.create(keep);
      const [s1, s2, s3] = [session(u, 1), session(u, 2), session(keep, 3)];
      for (const s of [s1, s2, s3]) await store.people.sessions.create(s);
      expect(await store.people.sessions.get(s1.id)).toEqual(s1);
      await store.people.sessions.touch(s1.id, new Date('2026-05-05T05:05:05Z'));
      expect((await store.people.sessions.get(s1.id))?.lastSeenAt).toBe('2026-05-05T05:05:05.000Z');
      await store.people.sessions.remove(s1.id);
      expect(await store.people.sessions.get(s1.id)).toBeNull();

      expect(await store.people.users.removeMembership(u.id, orgA)).toBe(true);
      expect(await store.people.sessions.get(s2.id)).toBeNull();
      expect(await store.people.sessions.get(s3.id)).toEqual(s3);
      await store.people.sessions.removeByUser(keep.id);
      expect(await store.people.sessions.get(s3.id)).toBeNull();

      // One organization's sessions of a user, the others kept.
      const inA = session(keep, 4);
      const inB = { ...session(keep, 5), orgId: orgB };
      await store.people.sessions.create(inA);
      await store.people.sessions.create(inB);
      await store.people.sessions.removeByUserInOrg(keep.id, orgA);
      expect(await store.people.sessions.get(inA.id)).toBeNull();
      expect(await store.people.sessions.get(inB.id)).toEqual(inB);
    });

    it('consumes an invitation exactly once, even when two acceptances race', async () => {
      const now = Date.now();
      const invitation: Invitation = {
        id: 'b'.repeat(64),
        orgId: orgA,
        email: 'New@Example.com',
        emailKey: 'new@example.com',
        role: 'admin',
        invitedBy: 'usr_x',
        createdAt: iso(now),
        expiresAt: iso(now + 7 * 86_400_000),
        acceptedAt: null,
        voidedAt: null,
      };
      const later: Invitation = { ...invitation, id: 'c'.repeat(64), createdAt: iso(now + 1000), email: 'x@example.com', emailKey: 'x@example.com' };
      await store.people.invitations.create(invitation);
      await store.people.invitations.create(later);
      expect(await store.people.invitations.get(invitation.id)).toEqual(invitation);
      expect((await store.people.invitations.listByOrg(orgA)).map((i) => i.id)).toEqual([later.id, invitation.id]);
      expect(await store.people.invitations.listByOrg(orgB)).toEqual([]);

      const at = new Date('2026-06-01T00:00:00Z');
      const results = await Promise.all([store.people.invitations.consume(invitation.id, at), store.people.invitations.consume(invitation.id, at)]);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect(results.find((r) => r !== null)).toEqual({ ...invitation, acceptedAt: at.toISOString() });
      expect(await store.people.invitations.consume(invitation.id, at)).toBeNull();
      expect(await store.people.invitations.consume('d'.repeat(64), at)).toBeNull();
    });

    it('reopens an acceptance that could not be completed, its own only, and settles it once again', async () => {
      const now = Date.now();
      const invitation: Invitation = {
        id: '9'.repeat(64),
        orgId: orgA,
        email: 'reopen@example.com',
        emailKey: 'reopen@example.com',
        role: 'member',
        invitedBy: 'usr_x',
        createdAt: iso(now),
        expiresAt: iso(now + 7 * 86_400_000),
        acceptedAt: null,
        voidedAt: null,
      };
      await store.people.invitations.create(invitation);
      const at = new Date('2026-06-03T00:00:00Z');
      expect(await store.people.invitations.reopen(invitation.id, at)).toBe(false);
      expect(await store.people.invitations.consume(invitation.id, at)).not.toBeNull();
      // Another acceptance's time is not this one.
      expect(await store.people.invitations.reopen(invitation.id, new Date(at.getTime() + 1))).toBe(false);
      expect(await store.people.invitations.reopen(invitation.id, at)).toBe(true);
      expect(await store.people.invitations.get(invitation.id)).toEqual(invitation);
      const second = new Date('2026-06-04T00:00:00Z');
      const results = await Promise.all([store.people.invitations.consume(invitation.id, second), store.people.invitations.void(invitation.id, second)]);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      const settled = await store.people.invitations.get(invitation.id);
      expect([settled?.acceptedAt, settled?.voidedAt].filter((v) => v !== null)).toEqual([second.toISOString()]);
      expect(await store.people.invitations.reopen(invitation.id, at)).toBe(false);
      // A void stays void.
      if (settled?.voidedAt) expect(await store.people.invitations.reopen(invitation.id, second)).toBe(false);
    });

    it('voids an invitation for good: never accepted afterwards, never voided twice', async () => {
      const now = Date.now();
      const invitation: Invitation = {
        id: 'e'.repeat(64),
        orgId: orgA,
        email: 'void@example.com',
        emailKey: 'void@example.com',
        role: 'member',
        invitedBy: 'usr_x',
        createdAt: iso(now),
        expiresAt: iso(now + 7 * 86_400_000),
        acceptedAt: null,
        voidedAt: null,
      };
      await store.people.invitations.create(invitation);
      const at = new Date('2026-06-02T00:00:00Z');
      expect(await store.people.invitations.void(invitation.id, at)).toEqual({ ...invitation, voidedAt: at.toISOString() });
      expect(await store.people.invitations.get(invitation.id)).toEqual({ ...invitation, voidedAt: at.toISOString() });
      expect(await store.people.invitations.consume(invitation.id, at)).toBeNull();
      expect(await store.people.invitations.void(invitation.id, at)).toBeNull();
      expect(await store.people.invitations.void('f'.repeat(64), at)).toBeNull();
      expect((await store.people.invitations.get(invitation.id))?.acceptedAt).toBeNull();
    });

    it('of an acceptance and a revocation racing, exactly one happens', async () => {
      const now = Date.now();
      const at = new Date('2026-06-03T00:00:00Z');
      for (let round = 0; round < 8; round++) {
        const invitation: Invitation = {
          id: round.toString(16).padStart(64, '7'),
          orgId: orgA,
          email: `race${round}@example.com`,
          emailKey: `race${round}@example.com`,
          role: 'member',
          invitedBy: 'usr_x',
          createdAt: iso(now),
          expiresAt: iso(now + 7 * 86_400_000),
          acceptedAt: null,
          voidedAt: null,
        };
        await store.people.invitations.create(invitation);
        const first = round % 2 === 0 ? 'consume' : 'void';
        const [a, b] = await Promise.all(
          first === 'consume'
            ? [store.people.invitations.consume(invitation.id, at), store.people.invitations.void(invitation.id, at)]
            : [store.people.invitations.void(invitation.id, at), store.people.invitations.consume(invitation.id, at)],
        );
        expect([a, b].filter((r) => r !== null)).toHaveLength(1);
        const stored = await store.people.invitations.get(invitation.id);
        expect([stored?.acceptedAt, stored?.voidedAt].filter((v) => v !== null)).toHaveLength(1);
        expect(stored).toEqual([a, b].find((r) => r !== null));
      }
    });

    it('lists audit records of one organization, newest first, at most the limit', async () => {
      const base = Date.parse('2026-07-01T00:00:00Z');
      const records: AuditRecord[] = Array.from({ length: 5 }, (_, i) => ({
        id: newId('aud'),
        orgId: i === 2 ? orgB : orgA,
        at: iso(base + i * 1000),
        actor: { userId: 'usr_a', email: 'owner@example.com' },
        action: 'key.created' as const,
        target: { id: `key_${i}`, label: `Key ${i}` },
        details: (i === 4 ? { from: 'member', to: 'admin' } : {}) as Record<string, string>,
      }));
      for (const r of records) await store.people.audit.append(r);
      const listed = await store.people.audit.listByOrg(orgA, 3);
      expect(listed).toEqual([records[4], records[3], records[1]]);
      expect(await store.people.audit.listByOrg(orgB, 10)).toEqual([records[2]]);
    });

    it.runIf(subject.name === 'embedded')('reopens with every acknowledged change', async () => {
      const u = user(orgB, `durable${Date.now()}@example.com`, 'admin');
      await store.people.users.create(u);
      const s = session(u, 9);
      await store.people.sessions.create(s);
      await store.people.users.updateAccount(u.id, { lastSignInAt: '2026-08-01T00:00:00.000Z' });
      const joined = { orgId: orgA, role: 'member' as const, createdAt: '2026-08-02T00:00:00.000Z' };
      await store.people.users.addMembership(u.id, joined);
      await store.people.users.setRole(u.id, orgA, 'admin');
      store = await opened.reopen!();
      expect(await store.people.users.findByEmail(u.email)).toEqual(account({ ...u, lastSignInAt: '2026-08-01T00:00:00.000Z' }, { ...joined, role: 'admin' }));
      expect(await store.people.sessions.get(s.id)).toEqual(s);
      expect((await store.people.audit.listByOrg(orgB, 10)).length).toBe(1);
    });
  });
}
