/**
 * People in the embedded store: accounts and their memberships, sessions, invitations and audit
 * records in memory, made durable in their own log (`DATA_DIR/people.log`,
 * the same DurableLog as the rest of the store, under the same lock). Kept
 * apart from store.log so that the review log's compaction and this one's
 * never interfere. Writes are durable first, visible second, one at a time.
 *
 * Log lines written when a user belonged to one organization (`user`, with
 * `orgId` and `role`) read as an account with that one membership; the next
 * compaction rewrites them in today's form.
 */
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { DurableLog } from './durable-log.ts';
import { StoreUnavailableError } from '../unavailable.ts';
import {
  DuplicateEmailError,
  LastOwnerError,
  RoleChangedError,
  memberOf,
  MembershipExistsError,
  normalizeEmail,
  type Account,
  type Membership,
  type AuditRecord,
  type AuditStore,
  type Invitation,
  type InvitationStore,
  type PeopleStore,
  type Session,
  type SessionStore,
  type User,
  type UserStore,
} from '../people-types.ts';

type AccountFields = Omit<Account, 'memberships'>;

type Entry =
  /** An account with one membership: what every line was before memberships, and what create writes. */
  | { t: 'user'; v: User }
  | { t: 'account'; v: AccountFields }
  | { t: 'member'; userId: string; v: Membership }
  | { t: 'member-'; userId: string; orgId: string }
  /** The account, its memberships and its sessions. */
  | { t: 'user-'; id: string }
  | { t: 'session'; v: Session }
  | { t: 'session-'; ids: string[] }
  | { t: 'inv'; v: Invitation }
  | { t: 'audit'; v: AuditRecord };

/** Session touches rewrite whole records: compact at open once superseded lines dominate. */
const COMPACT_AFTER = 2000;

export class EmbeddedPeople implements PeopleStore {
  private readonly userMap = new Map<string, Account>();
  private readonly userByEmail = new Map<string, string>();
  private readonly sessionMap = new Map<string, Session>();
  private readonly invitationMap = new Map<string, Invitation>();
  private readonly auditList: AuditRecord[] = [];
  private log!: DurableLog;
  /** The people log's disk error, until a write succeeds (the store's readiness). */
  get diskFailure(): Error | null {
    return this.log.diskFailure;
  }
  /** The people log refuses every write until a restart (durable-log.ts `brokenBy`), or null. */
  get brokenBy(): Error | null {
    return this.log.brokenBy;
  }
  /**
   * Throws StoreUnavailableError (503) while sessions cannot be written: sign-in asks before it
   * checks a password. This log's own state by default; the embedded store sets its disk probe.
   */
  assertWritable: () => Promise<void> = async () => {
    const failure = this.log.diskFailure ?? this.log.brokenBy;
    if (failure) throw new StoreUnavailableError('embedded', { cause: failure });
  };
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  static async open(dataDir: string): Promise<EmbeddedPeople> {
    const people = new EmbeddedPeople();
    const path = join(dataDir, 'people.log');
    await rm(`${path}.compact`, { force: true });
    let lines = 0;
    let { log } = await DurableLog.open(path, (entry) => {
      lines++;
      people.apply(entry as Entry);
    });
    // Expired sessions are dropped for good at the next compaction.
    const now = Date.now();
    for (const [id, s] of people.sessionMap) if (Date.parse(s.expiresAt) <= now) people.sessionMap.delete(id);
    let memberships = 0;
    for (const a of people.userMap.values()) memberships += a.memberships.length;
    const live = people.userMap.size + memberships + people.sessionMap.size + people.invitationMap.size + people.auditList.length;
    if (lines - live > Math.max(live, COMPACT_AFTER)) {
      await log.close();
      await DurableLog.rewrite(path, people.snapshot());
      log = (await DurableLog.open(path, () => undefined)).log;
    }
    people.log = log;
    return people;
  }

  private *snapshot(): IterableIterator<Entry> {
    for (const { memberships, ...v } of this.userMap.values()) {
      yield { t: 'account', v };
      for (const m of memberships) yield { t: 'member', userId: v.id, v: m };
    }
    for (const v of this.sessionMap.values()) yield { t: 'session', v };
    for (const v of this.invitationMap.values()) yield { t: 'inv', v };
    for (const v of this.auditList) yield { t: 'audit', v };
  }

  private apply(entry: Entry): void {
    switch (entry.t) {
      case 'user': {
        // The account, and its membership (other memberships of the account stay).
        const { orgId, role, ...fields } = entry.v;
        this.apply({ t: 'account', v: fields });
        this.apply({ t: 'member', userId: fields.id, v: { orgId, role, createdAt: fields.createdAt } });
        break;
      }
      case 'account': {
        const before = this.userMap.get(entry.v.id);
        if (before) this.userByEmail.delete(before.emailKey);
        this.userMap.set(entry.v.id, Object.freeze({ ...entry.v, memberships: before?.memberships ?? [] }));
        this.userByEmail.set(entry.v.emailKey, entry.v.id);
        break;
      }
      case 'member': {
        const account = this.userMap.get(entry.userId);
        if (!account) break;
        const others = account.memberships.filter((m) => m.orgId !== entry.v.orgId);
        const at = account.memberships.findIndex((m) => m.orgId === entry.v.orgId);
        const memberships = at === -1 ? [...others, Object.freeze({ ...entry.v })] : account.memberships.map((m, i) => (i === at ? Object.freeze({ ...entry.v }) : m));
        this.userMap.set(account.id, Object.freeze({ ...account, memberships: Object.freeze(memberships) as Membership[] }));
        break;
      }
      case 'member-': {
        const account = this.userMap.get(entry.userId);
        if (account) this.userMap.set(account.id, Object.freeze({ ...account, memberships: Object.freeze(account.memberships.filter((m) => m.orgId !== entry.orgId)) as Membership[] }));
        // Sessions in that organization end with the membership; the others go on.
        for (const [id, s] of this.sessionMap) if (s.userId === entry.userId && s.orgId === entry.orgId) this.sessionMap.delete(id);
        break;
      }
      case 'user-': {
        const user = this.userMap.get(entry.id);
        if (user) this.userByEmail.delete(user.emailKey);
        this.userMap.delete(entry.id);
        for (const [id, s] of this.sessionMap) if (s.userId === entry.id) this.sessionMap.delete(id);
        break;
      }
      case 'session':
        this.sessionMap.set(entry.v.id, Object.freeze(entry.v));
        break;
      case 'session-':
        for (const id of entry.ids) this.sessionMap.delete(id);
        break;
      case 'inv':
        // Lines written before voidedAt existed read as never voided.
        this.invitationMap.set(entry.v.id, Object.freeze({ ...entry.v, voidedAt: entry.v.voidedAt ?? null }));
        break;
      case 'audit':
        this.auditList.push(Object.freeze(entry.v));
        break;
    }
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(entry: Entry): Promise<void> {
    if (this.closed) throw new Error('the store is closed');
    await this.log.append(entry);
    this.apply(entry);
  }

  /** Inside `exclusive`: the check and the change it guards are one step. */
  private assertOwnerRemains(userId: string, orgId: string): void {
    for (const other of this.userMap.values()) {
      if (other.id !== userId && other.memberships.some((m) => m.orgId === orgId && m.role === 'owner')) return;
    }
    throw new LastOwnerError();
  }

  readonly users: UserStore = {
    create: (user) =>
      this.exclusive(async () => {
        if (this.userByEmail.has(user.emailKey)) throw new DuplicateEmailError(user.email);
        // One line: the account and its first membership (never an account without one).
        await this.write({ t: 'user', v: { ...user } });
      }),
    addMembership: (id, membership) =>
      this.exclusive(async () => {
        const account = this.userMap.get(id);
        if (!account) return null;
        if (account.memberships.some((m) => m.orgId === membership.orgId)) throw new MembershipExistsError();
        await this.write({ t: 'member', userId: id, v: { ...membership } });
        return memberOf(this.userMap.get(id)!, membership.orgId);
      }),
    get: async (id) => this.userMap.get(id) ?? null,
    member: async (id, orgId) => memberOf(this.userMap.get(id) ?? null, orgId),
    findByEmail: async (email) => {
      const id = this.userByEmail.get(normalizeEmail(email));
      return (id === undefined ? undefined : this.userMap.get(id)) ?? null;
    },
    listByOrg: async (orgId) =>
      [...this.userMap.values()]
        .map((a) => memberOf(a, orgId))
        .filter((u): u is User => u !== null)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
    updateAccount: (id, patch) =>
      this.exclusive(async () => {
        const account = this.userMap.get(id);
        if (!account) return null;
        const { memberships: _, ...fields } = account;
        await this.write({ t: 'account', v: { ...fields, ...patch } });
        return this.userMap.get(id)!;
      }),
    setRole: (id, orgId, role, expected) =>
      this.exclusive(async () => {
        const user = memberOf(this.userMap.get(id) ?? null, orgId);
        if (!user) return null;
        if (expected !== undefined && user.role !== expected) throw new RoleChangedError();
        if (user.role === 'owner' && role !== 'owner') this.assertOwnerRemains(id, orgId);
        await this.write({ t: 'member', userId: id, v: { orgId, role, createdAt: user.createdAt } });
        return memberOf(this.userMap.get(id)!, orgId);
      }),
    removeMembership: (id, orgId, expected) =>
      this.exclusive(async () => {
        const account = this.userMap.get(id);
        const user = memberOf(account ?? null, orgId);
        if (!account || !user) return false;
        if (expected !== undefined && user.role !== expected) throw new RoleChangedError();
        if (user.role === 'owner') this.assertOwnerRemains(id, orgId);
        // The last membership: the account goes too (one line, so never an account without one).
        await this.write(account.memberships.length === 1 ? { t: 'user-', id } : { t: 'member-', userId: id, orgId });
        return true;
      }),
  };

  readonly sessions: SessionStore = {
    assertWritable: () => this.assertWritable(),
    create: (session) => this.exclusive(async () => this.write({ t: 'session', v: { ...session } })),
    get: async (id) => this.sessionMap.get(id) ?? null,
    touch: (id, at) =>
      this.exclusive(async () => {
        const session = this.sessionMap.get(id);
        if (!session) return;
        await this.write({ t: 'session', v: { ...session, lastSeenAt: at.toISOString() } });
      }),
    remove: (id) =>
      this.exclusive(async () => {
        if (this.sessionMap.has(id)) await this.write({ t: 'session-', ids: [id] });
      }),
    removeByUser: (userId) =>
      this.exclusive(async () => {
        const ids = [...this.sessionMap.values()].filter((s) => s.userId === userId).map((s) => s.id);
        if (ids.length > 0) await this.write({ t: 'session-', ids });
      }),
    removeByUserInOrg: (userId, orgId) =>
      this.exclusive(async () => {
        const ids = [...this.sessionMap.values()].filter((s) => s.userId === userId && s.orgId === orgId).map((s) => s.id);
        if (ids.length > 0) await this.write({ t: 'session-', ids });
      }),
  };

  readonly invitations: InvitationStore = {
    create: (invitation) => this.exclusive(async () => this.write({ t: 'inv', v: { ...invitation } })),
    get: async (id) => this.invitationMap.get(id) ?? null,
    listByOrg: async (orgId) =>
      [...this.invitationMap.values()].filter((i) => i.orgId === orgId).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id)),
    consume: (id, at) => this.settleInvitation(id, { acceptedAt: at.toISOString() }),
    void: (id, at) => this.settleInvitation(id, { voidedAt: at.toISOString() }),
    reopen: (id, at) =>
      this.exclusive(async () => {
        const invitation = this.invitationMap.get(id);
        if (!invitation || invitation.acceptedAt !== at.toISOString() || invitation.voidedAt !== null) return false;
        await this.write({ t: 'inv', v: { ...invitation, acceptedAt: null } });
        return true;
      }),
  };

  /** Accepts or voids an open invitation; one at a time, so the first of the two wins. */
  private settleInvitation(id: string, change: Pick<Invitation, 'acceptedAt'> | Pick<Invitation, 'voidedAt'>): Promise<Invitation | null> {
    return this.exclusive(async () => {
      const invitation = this.invitationMap.get(id);
      if (!invitation || invitation.acceptedAt !== null || invitation.voidedAt !== null) return null;
      const next = { ...invitation, ...change };
      await this.write({ t: 'inv', v: next });
      return next;
    });
  }

  readonly audit: AuditStore = {
    append: (record) => this.exclusive(async () => this.write({ t: 'audit', v: { ...record } })),
    listByOrg: async (orgId, limit) => {
      const out: AuditRecord[] = [];
      for (let i = this.auditList.length - 1; i >= 0 && out.length < limit; i--) if (this.auditList[i]!.orgId === orgId) out.push(this.auditList[i]!);
      return out;
    },
  };

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.exclusive(async () => undefined);
    await this.log.close();
  }
}
