/**
 * People in MongoDB: one collection each for users, sessions, invitations and
 * audit records. Only what FerretDB 1.24 implements: plain finds, sorts,
 * single-document updates, a unique index; every document is keyed by its
 * natural `_id` (user id, session hash, invitation hash, audit id), so reads
 * and updates by id never scan.
 */
import { MongoServerError, type Collection, type Db } from 'mongodb';
import { translateErrors } from '../unavailable.ts';
import { withDocumentLock, type LockDocument } from './document-lock.ts';
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

export class MongoPeople implements PeopleStore {
  private readonly userCol: Collection<Doc<User>>;
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
  private underOwnerRule<T>(id: string, work: (user: User) => Promise<T>, missing: T): Promise<T> {
    return (async () => {
      const found = strip<User>(await this.userCol.findOne({ _id: id }));
      if (!found) return missing;
      return withDocumentLock(this.lockCol, `owners:${found.orgId}`, async () => {
        const user = strip<User>(await this.userCol.findOne({ _id: id }));
        return user ? work(user) : missing;
      });
    })();
  }

  private async assertOwnerRemains(user: User): Promise<void> {
    const other = await this.userCol.findOne({ orgId: user.orgId, role: 'owner', _id: { $ne: user.id } });
    if (!other) throw new LastOwnerError();
  }

  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.userCol.createIndex({ emailKey: 1 }, { unique: true, name: 'email_unique' }),
      this.userCol.createIndex({ orgId: 1, createdAt: 1 }, { name: 'org_created' }),
      this.sessionCol.createIndex({ userId: 1 }, { name: 'user' }),
      this.invitationCol.createIndex({ orgId: 1, createdAt: -1 }, { name: 'org_created' }),
      this.auditCol.createIndex({ orgId: 1, at: -1 }, { name: 'org_at' }),
    ]);
  }

  readonly users: UserStore = translateErrors<UserStore>({
    create: async (user) => {
      try {
        await this.userCol.insertOne({ _id: user.id, ...user });
      } catch (err) {
        if (err instanceof MongoServerError && err.code === 11000) throw new DuplicateEmailError(user.email);
        throw err;
      }
    },
    get: async (id) => strip(await this.userCol.findOne({ _id: id })),
    findByEmail: async (email) => strip(await this.userCol.findOne({ emailKey: normalizeEmail(email) })),
    listByOrg: async (orgId) => all(await this.userCol.find({ orgId }).sort({ createdAt: 1, _id: 1 }).toArray()),
    update: async (id, patch) => {
      if (patch.role === undefined) return strip(await this.userCol.findOneAndUpdate({ _id: id }, { $set: patch }, { returnDocument: 'after' }));
      return this.underOwnerRule(id, async (user) => {
        if (user.role === 'owner' && patch.role !== 'owner') await this.assertOwnerRemains(user);
        return strip<User>(await this.userCol.findOneAndUpdate({ _id: id }, { $set: patch }, { returnDocument: 'after' }));
      }, null);
    },
    remove: async (id) => {
      const removed = await this.underOwnerRule(id, async (user) => {
        if (user.role === 'owner') await this.assertOwnerRemains(user);
        return (await this.userCol.deleteOne({ _id: id })).deletedCount === 1;
      }, false);
      await this.sessionCol.deleteMany({ userId: id });
      return removed;
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
  }, (err) => this.translate(err));

  readonly invitations: InvitationStore = translateErrors<InvitationStore>({
    create: async (invitation) => {
      await this.invitationCol.insertOne({ _id: invitation.id, ...invitation });
    },
    get: async (id) => invitation(await this.invitationCol.findOne({ _id: id })),
    listByOrg: async (orgId) => (await this.invitationCol.find({ orgId }).sort({ createdAt: -1, _id: -1 }).toArray()).map((d) => invitation(d)!),
    consume: (id, at) => this.settleInvitation(id, 'acceptedAt', at),
    void: (id, at) => this.settleInvitation(id, 'voidedAt', at),
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
