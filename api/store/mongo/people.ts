/**
 * People in MongoDB: one collection each for accounts (`users`), memberships
 * (`memberships`, keyed `orgId|userId`), sessions, invitations and audit
 * records. Only what FerretDB 1.24 implements: plain finds, sorts,
 * single-document updates, a unique index; every document is keyed by its
 * natural `_id` (user id, session hash, invitation hash, audit id), so reads
 * and updates by id never scan. A membership is its own document, so that
 * changes in two organizations never rewrite one document at once (FerretDB
 * loses one of two concurrent updates of a document).
 *
 * Users stored before memberships (`orgId` and `role` on the user document)
 * are migrated when the store opens (ensureIndexes): the membership document
 * is written, then the two fields are removed; both steps are idempotent, so
 * instances starting together or a crash in between are harmless.
 */
import { MongoServerError, type Collection, type Db } from 'mongodb';
import { translateErrors } from '../unavailable.ts';
import { withDocumentLock, type LockDocument } from './document-lock.ts';
import {
  DuplicateEmailError,
  LastOwnerError,
  RoleChangedError,
  memberOf,
  MembershipExistsError,
  normalizeEmail,
  type Account,
  type Membership,
  type Role,
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

type Doc<T> = T & { _id: string };

function strip<T>(doc: (T & { _id?: unknown }) | null): T | null {
  if (!doc) return null;
  const { _id, ...rest } = doc;
  return rest as T;
}

const all = <T>(docs: Doc<T>[]): T[] => docs.map((d) => strip<T>(d)!);

/** Documents written before voidedAt existed read as never voided. */
function invitation(doc: Doc<Invitation> | null): Invitation | null {
  const found = strip<Invitation>(doc);
  return found && { ...found, voidedAt: found.voidedAt ?? null };
}

type AccountDoc = Doc<Omit<Account, 'memberships'>> & { orgId?: string; role?: Role };
type MembershipDoc = Doc<Membership & { userId: string }>;

const membershipKey = (orgId: string, userId: string): string => `${orgId}|${userId}`;
const isDuplicate = (err: unknown): boolean => err instanceof MongoServerError && err.code === 11000;

function membership(doc: MembershipDoc): Membership {
  return { orgId: doc.orgId, role: doc.role, createdAt: doc.createdAt };
}

export class MongoPeople implements PeopleStore {
  private readonly userCol: Collection<AccountDoc>;
  private readonly memberCol: Collection<MembershipDoc>;
  private readonly sessionCol: Collection<Doc<Session>>;
  private readonly invitationCol: Collection<Doc<Invitation>>;
  private readonly auditCol: Collection<Doc<AuditRecord>>;
  private readonly claimCol: Collection<{ _id: string; at: string; as?: 'acceptedAt' | 'voidedAt' }>;
  private readonly lockCol: Collection<LockDocument>;

  /** `translate`: the store's mapping of a lost server to StoreUnavailableError (a 503, never a 500). */
  constructor(
    db: Db,
    private readonly translate: (err: unknown) => unknown = (err) => err,
  ) {
    this.userCol = db.collection('users');
    this.memberCol = db.collection('memberships');
    this.sessionCol = db.collection('sessions');
    this.invitationCol = db.collection('invitations');
    this.auditCol = db.collection('audit');
    this.claimCol = db.collection('invitation_claims');
    this.lockCol = db.collection('locks');
  }

  /**
   * Role changes and removals of one organization run one at a time under its
   * `owners:` document lock, so "unless it leaves no Owner" is checked and
   * acted on in one step (FerretDB has no transactions; two Owners demoting
   * each other at once otherwise both passed the check).
   */
  private underOwnerRule<T>(orgId: string, work: () => Promise<T>): Promise<T> {
    return withDocumentLock(this.lockCol, `owners:${orgId}`, work);
  }

  /**
   * A membership added to an account and the account's deletion when its last
   * membership goes run one at a time under its `account:` document lock:
   * otherwise a join counted after the removal's count was taken lost its
   * account (a membership without an account, an invitation spent for nothing).
   */
  private underAccountLock<T>(userId: string, work: () => Promise<T>): Promise<T> {
    return withDocumentLock(this.lockCol, `account:${userId}`, work);
  }

  /** Another Owner of the organization, whose account exists (a crash in create can leave a membership behind). */
  private async assertOwnerRemains(userId: string, orgId: string): Promise<void> {
    const owners = await this.memberCol.find({ orgId, role: 'owner' }).toArray();
    for (const owner of owners) if (owner.userId !== userId && (await this.userCol.findOne({ _id: owner.userId }, { projection: { _id: 1 } }))) return;
    throw new LastOwnerError();
  }

  private async account(doc: AccountDoc | null): Promise<Account | null> {
    if (!doc) return null;
    const { _id, orgId: _o, role: _r, ...fields } = doc;
    const memberships = (await this.memberCol.find({ userId: _id }).sort({ createdAt: 1, _id: 1 }).toArray()).map(membership);
    return { ...fields, memberships };
  }

  private async member(id: string, orgId: string): Promise<User | null> {
    const found = await this.memberCol.findOne({ _id: membershipKey(orgId, id) });
    if (!found) return null;
    const doc = await this.userCol.findOne({ _id: id });
    if (!doc) return null;
    const { _id, orgId: _o, role: _r, ...fields } = doc;
    return memberOf({ ...fields, memberships: [membership(found)] }, orgId);
  }

  /** Users written before memberships: their membership document, then the fields off the user. */
  private async migrateOneOrgUsers(): Promise<void> {
    for (const doc of await this.userCol.find({ orgId: { $exists: true } }).toArray()) {
      if (typeof doc.orgId !== 'string' || doc.role === undefined) continue;
      try {
        await this.memberCol.insertOne({ _id: membershipKey(doc.orgId, doc._id), userId: doc._id, orgId: doc.orgId, role: doc.role, createdAt: doc.createdAt });
      } catch (err) {
        if (!isDuplicate(err)) throw err;
      }
      await this.userCol.updateOne({ _id: doc._id }, { $unset: { orgId: '', role: '' } });
    }
  }

  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.userCol.createIndex({ emailKey: 1 }, { unique: true, name: 'email_unique' }),
      this.memberCol.createIndex({ orgId: 1, createdAt: 1 }, { name: 'org_created' }),
      this.memberCol.createIndex({ userId: 1 }, { name: 'user' }),
      this.sessionCol.createIndex({ userId: 1 }, { name: 'user' }),
      this.invitationCol.createIndex({ orgId: 1, createdAt: -1 }, { name: 'org_created' }),
      this.auditCol.createIndex({ orgId: 1, at: -1 }, { name: 'org_at' }),
    ]);
    await this.migrateOneOrgUsers();
  }

  readonly users: UserStore = translateErrors<UserStore>({
    create: async (user) => {
      const { orgId, role, ...fields } = user;
      // The membership first: a crash in between leaves a membership without an account, which
      // nothing lists or counts, never an account without a membership.
      await this.memberCol.insertOne({ _id: membershipKey(orgId, user.id), userId: user.id, orgId, role, createdAt: user.createdAt });
      try {
        await this.userCol.insertOne({ _id: user.id, ...fields });
      } catch (err) {
        await this.memberCol.deleteOne({ _id: membershipKey(orgId, user.id) });
        if (isDuplicate(err)) throw new DuplicateEmailError(user.email);
        throw err;
      }
    },
    // Under the account's lock, as removeMembership's count-and-delete of the account is: a join
    // either lands before the count (the account stays) or after the delete (null, nothing written).
    addMembership: async (id, m) =>
      this.underAccountLock(id, async () => {
        if (!(await this.userCol.findOne({ _id: id }, { projection: { _id: 1 } }))) return null;
        try {
          await this.memberCol.insertOne({ _id: membershipKey(m.orgId, id), userId: id, orgId: m.orgId, role: m.role, createdAt: m.createdAt });
        } catch (err) {
          if (isDuplicate(err)) throw new MembershipExistsError();
          throw err;
        }
        return this.member(id, m.orgId);
      }),
    get: async (id) => this.account(await this.userCol.findOne({ _id: id })),
    member: async (id, orgId) => this.member(id, orgId),
    findByEmail: async (email) => this.account(await this.userCol.findOne({ emailKey: normalizeEmail(email) })),
    listByOrg: async (orgId) => {
      const members = await this.memberCol.find({ orgId }).sort({ createdAt: 1, _id: 1 }).toArray();
      if (members.length === 0) return [];
      const accounts = new Map((await this.userCol.find({ _id: { $in: members.map((m) => m.userId) } }).toArray()).map((d) => [d._id, d]));
      const out: User[] = [];
      for (const m of members) {
        const doc = accounts.get(m.userId);
        if (!doc) continue;
        const { _id, orgId: _o, role: _r, ...fields } = doc;
        out.push(memberOf({ ...fields, memberships: [membership(m)] }, orgId)!);
      }
      return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },
    updateAccount: async (id, patch) => this.account(await this.userCol.findOneAndUpdate({ _id: id }, { $set: patch }, { returnDocument: 'after' })),
    setRole: async (id, orgId, role, expected) =>
      this.underOwnerRule(orgId, async () => {
        const user = await this.member(id, orgId);
        if (!user) return null;
        if (expected !== undefined && user.role !== expected) throw new RoleChangedError();
        if (user.role === 'owner' && role !== 'owner') await this.assertOwnerRemains(id, orgId);
        await this.memberCol.updateOne({ _id: membershipKey(orgId, id) }, { $set: { role } });
        return { ...user, role };
      }),
    removeMembership: async (id, orgId, expected) => {
      const removed = await this.underOwnerRule(orgId, async () => {
        const user = await this.member(id, orgId);
        if (!user) return false;
        if (expected !== undefined && user.role !== expected) throw new RoleChangedError();
        if (user.role === 'owner') await this.assertOwnerRemains(id, orgId);
        return (await this.memberCol.deleteOne({ _id: membershipKey(orgId, id) })).deletedCount === 1;
      });
      if (!removed) return false;
      await this.sessionCol.deleteMany({ userId: id, orgId });
      // The last membership gone: the account goes, and every session with it. Counted and
      // deleted under the account's lock, so that a join (addMembership) never lands in between.
      await this.underAccountLock(id, async () => {
        if ((await this.memberCol.countDocuments({ userId: id })) > 0) return;
        await this.userCol.deleteOne({ _id: id });
        await this.sessionCol.deleteMany({ userId: id });
      });
      return true;
    },
  }, (err) => this.translate(err));

  readonly sessions: SessionStore = translateErrors<SessionStore>({
    create: async (session) => {
      await this.sessionCol.insertOne({ _id: session.id, ...session });
    },
    get: async (id) => strip(await this.sessionCol.findOne({ _id: id })),
    touch: async (id, at) => {
      await this.sessionCol.updateOne({ _id: id }, { $set: { lastSeenAt: at.toISOString() } });
    },
    remove: async (id) => {
      await this.sessionCol.deleteOne({ _id: id });
    },
    removeByUser: async (userId) => {
      await this.sessionCol.deleteMany({ userId });
    },
    removeByUserInOrg: async (userId, orgId) => {
      await this.sessionCol.deleteMany({ userId, orgId });
    },
  }, (err) => this.translate(err));

  readonly invitations: InvitationStore = translateErrors<InvitationStore>({
    create: async (invitation) => {
      await this.invitationCol.insertOne({ _id: invitation.id, ...invitation });
    },
    get: async (id) => invitation(await this.invitationCol.findOne({ _id: id })),
    listByOrg: async (orgId) => (await this.invitationCol.find({ orgId }).sort({ createdAt: -1, _id: -1 }).toArray()).map((d) => invitation(d)!),
    consume: (id, at) => this.settleInvitation(id, 'acceptedAt', at),
    void: (id, at) => this.settleInvitation(id, 'voidedAt', at),
    // The invitation first, then the claim: until the claim is gone any other consume or void
    // fails on it (never a second claim whose update then matches nothing), after it the next
    // one settles the invitation exactly once again. A crash in between leaves it unsettleable
    // until it expires: never accepted twice.
    reopen: async (id, at) => {
      const { matchedCount } = await this.invitationCol.updateOne({ _id: id, acceptedAt: at.toISOString(), voidedAt: null }, { $set: { acceptedAt: null } });
      if (matchedCount !== 1) return false;
      await this.claimCol.deleteOne({ _id: id, as: 'acceptedAt', at: at.toISOString() });
      return true;
    },
  }, (err) => this.translate(err));

  /**
   * Accepts or voids an invitation, exactly once and never both, even when an
   * acceptance and a revocation (or two of either) race: the winner is whoever
   * inserts the claim document keyed by the invitation's _id (a duplicate _id
   * is refused atomically everywhere). A conditional update of the invitation
   * alone is not enough: measured on FerretDB 1.24 (SQLite), two concurrent
   * findOneAndUpdate calls both matched. The update that follows is
   * conditional too, so the invitation document never shows both.
   */
  private async settleInvitation(id: string, field: 'acceptedAt' | 'voidedAt', at: Date): Promise<Invitation | null> {
    const open = invitation(await this.invitationCol.findOne({ _id: id, acceptedAt: null, voidedAt: null }));
    if (!open) return null;
    try {
      await this.claimCol.insertOne({ _id: id, at: at.toISOString(), as: field });
    } catch (err) {
      if (err instanceof MongoServerError && err.code === 11000) return null;
      throw err;
    }
    const { matchedCount } = await this.invitationCol.updateOne({ _id: id, acceptedAt: null, voidedAt: null }, { $set: { [field]: at.toISOString() } });
    return matchedCount === 1 ? { ...open, [field]: at.toISOString() } : null;
  }

  readonly audit: AuditStore = translateErrors<AuditStore>({
    append: async (record) => {
      await this.auditCol.insertOne({ _id: record.id, ...record });
    },
    listByOrg: async (orgId, limit) => all(await this.auditCol.find({ orgId }).sort({ at: -1, _id: -1 }).limit(limit).toArray()),
  }, (err) => this.translate(err));
}
