/**
 * Review invitations on MongoDB (invitation-types.ts):
 * - `review_invitations`, one document per invitation (`_id` = its id),
 *   indexed by organization and creation, and by organization, state and
 *   creation, for the lists;
 * - `invitation_recipients`, one per organization and address key (`_id`
 *   `orgId NUL emailKey`): when it was last invited and when it unsubscribed;
 * - `invitation_orders`, one per organization, address key and orderRef
 *   (`_id` orderKey): the invitation that order's address got;
 * - `invitation_counts`, one per organization: its stored invitations (down
 *   again when retention's purge or an erasure removes some).
 * Every lookup of a batch is by `_id` (found without a scan on FerretDB too).
 * A batch is decided and written under the organization's lock (FerretDB does
 * not isolate concurrent updates, document-lock.ts), so two instances
 * creating at once cannot both invite one address in its window, nor pass
 * the cap. Without transactions a crash midway may leave part of a batch;
 * sending it again converges (orderRef + address answer what is stored).
 */
import type { Collection, Db } from 'mongodb';
import { decide, ENDED_STATES, INVITATION_LINK_DAYS, INVITE_WINDOW_DAYS, invitedAt, noCounts, orderKey, type CreatedInvitation, type CreateOptions, type Invitation, type InvitationDraft, type InvitationPage, type InvitationState } from '../invitation-types.ts';
import { withDocumentLock, type LockDocument } from './document-lock.ts';

type InvitationDocument = Invitation & { _id: string };
interface RecipientDocument {
  _id: string;
  orgId: string;
  /** The latest `invitedAt` (sendAt, else createdAt) of the address's invitations not skipped: the 30-day rule's. */
  lastInvitedAt: string | null;
  unsubscribedAt: string | null;
}
interface OrderDocument {
  _id: string;
  invitationId: string;
}
interface CountDocument {
  _id: string;
  n: number;
}

const recipientKey = (orgId: string, emailKey: string): string => `${orgId}\u0000${emailKey}`;

function strip(doc: InvitationDocument): Invitation {
  const { _id, ...rest } = doc;
  return rest;
}

export class MongoInvitations {
  private readonly col: Collection<InvitationDocument>;
  private readonly recipients: Collection<RecipientDocument>;
  private readonly orders: Collection<OrderDocument>;
  private readonly counts: Collection<CountDocument>;
  private readonly locks: Collection<LockDocument>;

  constructor(db: Db) {
    this.col = db.collection('review_invitations');
    this.recipients = db.collection('invitation_recipients');
    this.orders = db.collection('invitation_orders');
    this.counts = db.collection('invitation_counts');
    this.locks = db.collection('locks');
  }

  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.col.createIndex({ orgId: 1, createdAt: -1, _id: -1 }, { name: 'org_created' }),
      this.col.createIndex({ orgId: 1, state: 1, createdAt: -1, _id: -1 }, { name: 'org_state_created' }),
      // due(): the scheduled ones whose time came, soonest first, from the index.
      this.col.createIndex({ state: 1, sendAt: 1, _id: 1 }, { name: 'state_send_at' }),
      // sentSince(): the mails of a window, from the index.
      this.col.createIndex({ orgId: 1, sentAt: 1 }, { name: 'org_sent' }),
      // remindersDue() and expiring(): the same, by remindAt and by sentAt.
      this.col.createIndex({ state: 1, remindAt: 1, _id: 1 }, { name: 'state_remind_at' }),
      this.col.createIndex({ state: 1, sentAt: 1, _id: 1 }, { name: 'state_sent_at' }),
      // ofAddress(): an address's invitations in its organization.
      this.col.createIndex({ orgId: 1, emailKey: 1, createdAt: -1 }, { name: 'org_email_created' }),
      // purge(): the ended ones by their last change, oldest first.
      this.col.createIndex({ state: 1, updatedAt: 1, _id: 1 }, { name: 'state_updated' }),
    ]);
  }

  async create(orgId: string, drafts: InvitationDraft[], options: CreateOptions): Promise<CreatedInvitation[] | null> {
    return withDocumentLock(this.locks, `invitations:${orgId}`, async () => {
      const out: CreatedInvitation[] = [];
      const fresh: Invitation[] = [];
      const batchOrders = new Map<string, Invitation>();
      const recipients = new Map<string, { lastInvitedAt: string | null; unsubscribedAt: string | null; changed: boolean }>();
      for (const draft of drafts) {
        const ok = draft.orderRef === null ? null : orderKey(orgId, draft.emailKey, draft.orderRef);
        if (ok !== null) {
          const earlier = batchOrders.get(ok) ?? (await this.ordered(ok));
          if (earlier) {
            out.push({ invitation: earlier, created: false });
            continue;
          }
        }
        const rk = recipientKey(orgId, draft.emailKey);
        let recipient = recipients.get(rk);
        if (!recipient) {
          const doc = await this.recipients.findOne({ _id: rk });
          recipient = { lastInvitedAt: doc?.lastInvitedAt ?? null, unsubscribedAt: doc?.unsubscribedAt ?? null, changed: false };
          recipients.set(rk, recipient);
        }
        const invitation = decide({ ...draft, orgId }, recipient);
        // The latest time an invitation reaches the address (its mail's sendAt, else its creation): the 30-day rule's.
        if (invitation.state !== 'skipped' && (recipient.lastInvitedAt === null || recipient.lastInvitedAt < invitedAt(invitation))) {
          recipient.lastInvitedAt = invitedAt(invitation);
          recipient.changed = true;
        }
        if (ok !== null) batchOrders.set(ok, invitation);
        fresh.push(invitation);
        out.push({ invitation, created: true });
      }
      if (fresh.length === 0) return out;
      const count = (await this.counts.findOne({ _id: orgId }))?.n ?? 0;
      if (count + fresh.length > options.max) return null;
      // The count first: a crash after it over-counts (the cap errs on the safe side), never under-counts.
      await this.counts.updateOne({ _id: orgId }, { $set: { n: count + fresh.length } }, { upsert: true });
      await this.col.insertMany(fresh.map((i) => ({ _id: i.id, ...i })));
      const orders = fresh.filter((i) => i.orderRef !== null).map((i) => ({ _id: orderKey(orgId, i.emailKey, i.orderRef!), invitationId: i.id }));
      if (orders.length > 0) await this.orders.insertMany(orders);
      for (const [rk, r] of recipients) {
        if (r.changed) await this.recipients.updateOne({ _id: rk }, { $set: { orgId, lastInvitedAt: r.lastInvitedAt }, $setOnInsert: { unsubscribedAt: null } }, { upsert: true });
      }
      return out;
    });
  }

  /** The invitation an order's address got, or null. */
  private async ordered(key: string): Promise<Invitation | null> {
    const order = await this.orders.findOne({ _id: key });
    return order ? this.get(order.invitationId) : null;
  }

  async get(id: string): Promise<Invitation | null> {
    const doc = await this.col.findOne({ _id: id });
    return doc ? strip(doc) : null;
  }

  async list(orgId: string, query: { state?: InvitationState; limit: number; offset: number }): Promise<InvitationPage> {
    const filter = query.state === undefined ? { orgId } : { orgId, state: query.state };
    const [docs, total] = await Promise.all([
      query.limit === 0 ? Promise.resolve([]) : this.col.find(filter).sort({ createdAt: -1, _id: -1 }).skip(query.offset).limit(query.limit).toArray(),
      this.col.countDocuments(filter),
    ]);
    return { data: docs.map(strip), total };
  }

  async due(before: string, limit: number, skipOrgs: readonly string[] = [], claimedBefore: string = before): Promise<Invitation[]> {
    return this.unclaimed('scheduled', 'sendAt', before, limit, skipOrgs, claimedBefore);
  }

  async remindersDue(before: string, limit: number, skipOrgs: readonly string[] = [], claimedBefore: string = before): Promise<Invitation[]> {
    return this.unclaimed('sent', 'remindAt', before, limit, skipOrgs, claimedBefore);
  }

  /** `state` invitations whose `field` is at or before `before`, not claimed past `claimedBefore` (the real time), not of `skipOrgs`: from the index on state and field. */
  private async unclaimed(state: InvitationState, field: 'sendAt' | 'remindAt', before: string, limit: number, skipOrgs: readonly string[], claimedBefore: string): Promise<Invitation[]> {
    const filter: Record<string, unknown> = {
      state,
      [field]: { $ne: null, $lte: before },
      $or: [{ leaseUntil: null }, { leaseUntil: { $lte: claimedBefore } }],
      ...(skipOrgs.length > 0 && { orgId: { $nin: [...skipOrgs] } }),
    };
    const docs = await this.col.find(filter).sort({ [field]: 1, _id: 1 }).limit(limit).toArray();
    return docs.map(strip);
  }

  async expiring(sentBefore: string, limit: number): Promise<Invitation[]> {
    const docs = await this.col.find({ state: { $in: ['sent', 'reminded'] }, sentAt: { $ne: null, $lte: sentBefore } }).sort({ sentAt: 1, _id: 1 }).limit(limit).toArray();
    return docs.map(strip);
  }

  async ofAddress(orgId: string, emailKey: string, limit: number): Promise<Invitation[]> {
    const docs = await this.col.find({ orgId, emailKey }).sort({ createdAt: -1, _id: -1 }).limit(limit).toArray();
    return docs.map(strip);
  }

  async count(orgId: string): Promise<number> {
    return (await this.counts.findOne({ _id: orgId }))?.n ?? 0;
  }

  /** One `$group` by state over the organization's invitations (on the server, found by the org_created index). */
  async countByState(orgId: string): Promise<Record<InvitationState, number>> {
    const rows = await this.col.aggregate<{ _id: InvitationState; count: number }>([{ $match: { orgId } }, { $group: { _id: '$state', count: { $sum: 1 } } }]).toArray();
    const counts = noCounts();
    for (const row of rows) if (Object.hasOwn(counts, row._id)) counts[row._id] = row.count;
    return counts;
  }

  /**
   * `sentDay` on or after `sinceDay` as queries: mailed from that day on
   * (`sentAt`, the org_sent index), or links never meant to be mailed
   * (`unsent` ones: no sendAt, not skipped) created from that day on.
   */
  async sentSince(orgId: string, sinceDay: string): Promise<{ sent: number; reviewed: number }> {
    const since = `${sinceDay}T00:00:00.000Z`;
    const mailed = { orgId, sentAt: { $gte: since } };
    const links = { orgId, sentAt: null, sendAt: null, createdAt: { $gte: since } };
    const [m, l, mr, lr] = await Promise.all([
      this.col.countDocuments(mailed),
      this.col.countDocuments({ ...links, state: { $ne: 'skipped' } }),
      this.col.countDocuments({ ...mailed, state: 'reviewed' }),
      this.col.countDocuments({ ...links, state: 'reviewed' }),
    ]);
    return { sent: m + l, reviewed: mr + lr };
  }

  async update(next: Invitation, expect: { state: InvitationState; updatedAt: string }): Promise<Invitation | null> {
    return withDocumentLock(this.locks, `invitation:${next.id}`, async () => {
      const written = await this.col.replaceOne({ _id: next.id, state: expect.state, updatedAt: expect.updatedAt }, { ...next });
      return written.modifiedCount === 1 ? next : null;
    });
  }

  async unsubscribe(orgId: string, emailKey: string, at: string): Promise<void> {
    // Under the organization's lock: a batch being decided sees the address either before or after, never half.
    await withDocumentLock(this.locks, `invitations:${orgId}`, async () => {
      await this.recipients.updateOne({ _id: recipientKey(orgId, emailKey), unsubscribedAt: null }, { $set: { orgId, unsubscribedAt: at } });
      await this.recipients.updateOne({ _id: recipientKey(orgId, emailKey) }, { $setOnInsert: { orgId, lastInvitedAt: null, unsubscribedAt: at } }, { upsert: true });
    });
  }

  /**
   * `endedAt(inv) < endedBefore` (invitation-types.ts) as a query: an ended
   * state changed last before it and not due to reach the address after it,
   * or an `unsent` link expired before it.
   */
  private endedFilter(endedBefore: string): Record<string, unknown> {
    const ended = { state: { $in: [...ENDED_STATES] }, updatedAt: { $lt: endedBefore } };
    const linkCreatedBefore = new Date(Date.parse(endedBefore) - INVITATION_LINK_DAYS * 86_400_000).toISOString();
    return { $or: [{ ...ended, sendAt: null }, { ...ended, sendAt: { $lt: endedBefore } }, { state: 'unsent', updatedAt: { $lt: endedBefore }, createdAt: { $lt: linkCreatedBefore } }] };
  }

  async purge(endedBefore: string, limit: number, options: { orgId?: string; skipOrgs?: readonly string[] } = {}): Promise<Record<string, number>> {
    const filter = this.endedFilter(endedBefore);
    const orgFilter = options.orgId !== undefined ? { orgId: options.orgId } : (options.skipOrgs?.length ?? 0) > 0 ? { orgId: { $nin: [...options.skipOrgs!] } } : {};
    const found = await this.col.find({ ...filter, ...orgFilter }, { projection: { _id: 1, orgId: 1 } }).sort({ updatedAt: 1, _id: 1 }).limit(limit).toArray();
    const byOrg = new Map<string, string[]>();
    for (const doc of found) {
      let ids = byOrg.get(doc.orgId);
      if (!ids) byOrg.set(doc.orgId, (ids = []));
      ids.push(doc._id);
    }
    const out: Record<string, number> = {};
    for (const [orgId, ids] of byOrg) {
      // Asked again as it is deleted (one that changed since it was found stays).
      const n = await this.remove(orgId, { _id: { $in: ids }, ...filter }, { endedBefore });
      if (n > 0) out[orgId] = n;
    }
    return out;
  }

  async erase(orgId: string, emailKey: string): Promise<number> {
    return this.remove(orgId, { orgId, emailKey }, { erased: emailKey });
  }

  /**
   * Deletes the organization's invitations `filter` finds, their order
   * records, and as many from its count, under the organization's lock (the
   * count is read and written as `create` does: FerretDB loses concurrent
   * updates of one document). `erased`: the address's last-invited time goes
   * too (its record stays only for an unsubscribe). `endedBefore` (a purge):
   * the records of the addresses concerned that were last invited before it
   * and never unsubscribed go too (the 30-day rule cannot need them), so
   * nothing of an address outlives its invitations but an unsubscribe.
   */
  private async remove(orgId: string, filter: Record<string, unknown>, options: { erased?: string; endedBefore?: string }): Promise<number> {
    const erased = options.erased;
    return withDocumentLock(this.locks, `invitations:${orgId}`, async () => {
      const docs = await this.col.find({ ...filter, orgId }, { projection: { _id: 1, emailKey: 1, orderRef: 1 } }).toArray();
      if (erased !== undefined) {
        const rk = recipientKey(orgId, erased);
        await this.recipients.deleteOne({ _id: rk, unsubscribedAt: null });
        await this.recipients.updateOne({ _id: rk }, { $set: { lastInvitedAt: null } });
      }
      if (docs.length === 0) return 0;
      const ids = docs.map((d) => d._id);
      await this.col.deleteMany({ ...filter, orgId, _id: { $in: ids } });
      const left = new Set((await this.col.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
      const gone = docs.filter((d) => !left.has(d._id));
      const orders = gone.filter((d) => d.orderRef !== null).map((d) => orderKey(orgId, d.emailKey, d.orderRef!));
      if (orders.length > 0) await this.orders.deleteMany({ _id: { $in: orders }, invitationId: { $in: gone.map((d) => d._id) } });
      if (options.endedBefore !== undefined && gone.length > 0) {
        const keys = [...new Set(gone.map((d) => recipientKey(orgId, d.emailKey)))];
        // Never one invited in the last 30 days, whatever cutoff a caller gives: the 30-day rule reads those.
        const windowStart = new Date(Date.now() - INVITE_WINDOW_DAYS * 86_400_000).toISOString();
        const before = options.endedBefore < windowStart ? options.endedBefore : windowStart;
        await this.recipients.deleteMany({ _id: { $in: keys }, unsubscribedAt: null, lastInvitedAt: { $lt: before } });
      }
      if (gone.length > 0) {
        const count = (await this.counts.findOne({ _id: orgId }))?.n ?? 0;
        await this.counts.updateOne({ _id: orgId }, { $set: { n: Math.max(0, count - gone.length) } }, { upsert: true });
      }
      return gone.length;
    });
  }

  async unsubscribedAt(orgId: string, emailKey: string): Promise<string | null> {
    return (await this.recipients.findOne({ _id: recipientKey(orgId, emailKey) }))?.unsubscribedAt ?? null;
  }
}
