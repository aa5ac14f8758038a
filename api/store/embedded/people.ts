/**
 * People in the embedded store: users, sessions, invitations and audit
 * records in memory, made durable in their own log (`DATA_DIR/people.log`,
 * the same DurableLog as the rest of the store, under the same lock). Kept
 * apart from store.log so that the review log's compaction and this one's
 * never interfere. Writes are durable first, visible second, one at a time.
 */
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { DurableLog } from './durable-log.ts';
import { StoreUnavailableError } from '../unavailable.ts';
import {
  DuplicateEmailError,
  LastOwnerError,
  normalizeEmail,
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

type Entry =
  | { t: 'user'; v: User }
  | { t: 'user-'; id: string }
  | { t: 'session'; v: Session }
  | { t: 'session-'; ids: string[] }
  | { t: 'inv'; v: Invitation }
  | { t: 'audit'; v: AuditRecord };

/** Session touches rewrite whole records: compact at open once superseded lines dominate. */
const COMPACT_AFTER = 2000;

export class EmbeddedPeople implements PeopleStore {
  private readonly userMap = new Map<string, User>();
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
    const live = people.userMap.size + people.sessionMap.size + people.invitationMap.size + people.auditList.length;
    if (lines - live > Math.max(live, COMPACT_AFTER)) {
      await log.close();
      await DurableLog.rewrite(path, people.snapshot());
      log = (await DurableLog.open(path, () => undefined)).log;
    }
    people.log = log;
    return people;
  }

  private *snapshot(): IterableIterator<Entry> {
    for (const v of this.userMap.values()) yield { t: 'user', v };
    for (const v of this.sessionMap.values()) yield { t: 'session', v };
    for (const v of this.invitationMap.values()) yield { t: 'inv', v };
    for (const v of this.auditList) yield { t: 'audit', v };
  }

  private apply(entry: Entry): void {
    switch (entry.t) {
      case 'user': {
        const before = this.userMap.get(entry.v.id);
        if (before) this.userByEmail.delete(before.emailKey);
        this.userMap.set(entry.v.id, Object.freeze(entry.v));
        this.userByEmail.set(entry.v.emailKey, entry.v.id);
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
  private assertOwnerRemains(user: User): void {
    for (const other of this.userMap.values()) if (other.orgId === user.orgId && other.role === 'owner' && other.id !== user.id) return;
    throw new LastOwnerError();
  }

  readonly users: UserStore = {
    create: (user) =>
      this.exclusive(async () => {
        if (this.userByEmail.has(user.emailKey)) throw new DuplicateEmailError(user.email);
        await this.write({ t: 'user', v: { ...user } });
      }),
    get: async (id) => this.userMap.get(id) ?? null,
    findByEmail: async (email) => {
      const id = this.userByEmail.get(normalizeEmail(email));
      return (id === undefined ? undefined : this.userMap.get(id)) ?? null;
    },
    listByOrg: async (orgId) =>
      [...this.userMap.values()].filter((u) => u.orgId === orgId).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
    update: (id, patch) =>
      this.exclusive(async () => {
        const user = this.userMap.get(id);
        if (!user) return null;
        if (user.role === 'owner' && patch.role !== undefined && patch.role !== 'owner') this.assertOwnerRemains(user);
        const next: User = { ...user, ...patch };
        await this.write({ t: 'user', v: next });
        return next;
      }),
    remove: (id) =>
      this.exclusive(async () => {
        const user = this.userMap.get(id);
        if (!user) return false;
        if (user.role === 'owner') this.assertOwnerRemains(user);
        await this.write({ t: 'user-', id });
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
  };

  readonly invitations: InvitationStore = {
    create: (invitation) => this.exclusive(async () => this.write({ t: 'inv', v: { ...invitation } })),
    get: async (id) => this.invitationMap.get(id) ?? null,
    listByOrg: async (orgId) =>
      [...this.invitationMap.values()].filter((i) => i.orgId === orgId).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id)),
    consume: (id, at) => this.settleInvitation(id, { acceptedAt: at.toISOString() }),
    void: (id, at) => this.settleInvitation(id, { voidedAt: at.toISOString() }),
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
