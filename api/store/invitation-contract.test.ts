/**
 * Review invitations (invitation-types.ts) behave the same in both stores:
 * the rules of CONTRACT §14 decided while a batch is written (an address
 * invited at most once per organization in 30 days, `unsubscribed` winning
 * over `recently_invited`, one invitation per orderRef and address, the cap
 * per organization), lists by state newest first, conditional updates (one
 * of two racing writers wins), and everything still there after a restart
 * (embedded) or on another connection (MongoDB).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OpenFile } from './embedded/durable-log.ts';
import { EmbeddedStore } from './embedded/store.ts';
import { StoreUnavailableError } from './unavailable.ts';
import type { InvitationDraft } from './invitation-types.ts';
import type { Store } from './types.ts';
import { describeOn, mongoTargets, openMongoStore } from '../test/mongo-suites.ts';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-01T10:00:00.000Z');
const at = (days: number): string => new Date(T0 + days * DAY).toISOString();
let seq = 0;

function draft(orgId: string, emailKey: string, over: Partial<InvitationDraft> = {}): InvitationDraft {
  const id = `inv_${String(++seq).padStart(20, '0')}`;
  const createdAt = over.createdAt ?? at(0);
  return {
    id, orgId, email: `${emailKey}@example.com`, emailKey, name: null, productId: null, orderRef: null, locale: null,
    state: 'scheduled', reason: null, lastError: null, createdAt, sendAt: createdAt, sentAt: null, remindedAt: null,
    reviewedAt: null, submissionId: null, updatedAt: createdAt, ...over,
  } as InvitationDraft;
}

function suite(open: () => Promise<{ store: Store; reopen(): Promise<Store>; cleanup(): Promise<void> }>): void {
  let h: Awaited<ReturnType<typeof open>>;
  beforeAll(async () => {
    h = await open();
  });
  afterAll(async () => h?.cleanup());

  it('invites an address at most once per organization in 30 days, unsubscribed winning, decided at creation', async () => {
    const s = h.store.invitations;
    const first = await s.create('org_a', [draft('org_a', 'k1'), draft('org_a', 'k1', { createdAt: at(1), updatedAt: at(1), sendAt: at(1) })], { max: 100 });
    expect(first!.map((r) => [r.invitation.state, r.invitation.reason, r.created])).toEqual([
      ['scheduled', null, true],
      ['skipped', 'recently_invited', true],
    ]);
    expect(first![1]!.invitation.sendAt).toBeNull();
    // Day 29 still in the window, counted from the last invitation that was not skipped (day 0).
    const later = await s.create('org_a', [draft('org_a', 'k1', { createdAt: at(29.9), updatedAt: at(29.9) })], { max: 100 });
    expect(later![0]!.invitation.reason).toBe('recently_invited');
    const after = await s.create('org_a', [draft('org_a', 'k1', { createdAt: at(30), updatedAt: at(30) })], { max: 100 });
    expect(after![0]!.invitation.state).toBe('scheduled');
    // Another organization's window is its own; `unsent` counts as invited like `scheduled`.
    const other = await s.create('org_b', [draft('org_b', 'k1', { state: 'unsent', sendAt: null }), draft('org_b', 'k1')], { max: 100 });
    expect(other!.map((r) => r.invitation.state)).toEqual(['unsent', 'skipped']);

    // Unsubscribed: skipped whatever else holds, and it wins over recently_invited.
    expect(await s.unsubscribedAt('org_a', 'k1')).toBeNull();
    await s.unsubscribe('org_a', 'k1', at(31));
    await s.unsubscribe('org_a', 'k2', at(31));
    await s.unsubscribe('org_a', 'k2', at(40)); // the first date stays
    expect(await s.unsubscribedAt('org_a', 'k1')).toBe(at(31));
    expect(await s.unsubscribedAt('org_a', 'k2')).toBe(at(31));
    expect(await s.unsubscribedAt('org_b', 'k1')).toBeNull();
    const unsub = await s.create('org_a', [draft('org_a', 'k1', { createdAt: at(31), updatedAt: at(31) }), draft('org_a', 'k2', { createdAt: at(90), updatedAt: at(90) })], { max: 100 });
    expect(unsub!.map((r) => r.invitation.reason)).toEqual(['unsubscribed', 'unsubscribed']);

    const again = await h.reopen();
    expect(await again.invitations.unsubscribedAt('org_a', 'k2')).toBe(at(31));
    // The window survives the restart (rebuilt from the invitations): day 35 is within 30 days of day 30.
    const k1 = await again.invitations.create('org_b', [draft('org_b', 'k1', { createdAt: at(20), updatedAt: at(20) })], { max: 100 });
    expect(k1![0]!.invitation.reason).toBe('recently_invited');
    await again.invitations.unsubscribe('org_a', 'k3', at(1));
    const k3 = await again.invitations.create('org_a', [draft('org_a', 'k3', { createdAt: at(2), updatedAt: at(2) })], { max: 100 });
    expect(k3![0]!.invitation.reason).toBe('unsubscribed');
  });

  it('measures the 30 days on when the mail goes out (sendAt, else createdAt), not on creation alone', async () => {
    const s = h.store.invitations;
    const one = async (orgId: string, key: string, created: number, sendAt: number | null): Promise<string> => {
      const r = await s.create(orgId, [draft(orgId, key, { createdAt: at(created), updatedAt: at(created), ...(sendAt === null ? { state: 'unsent', sendAt: null } : { sendAt: at(sendAt) }) })], { max: 100 });
      return r![0]!.invitation.state === 'skipped' ? `skipped:${r![0]!.invitation.reason}` : r![0]!.invitation.state;
    };
    // Created on day 0 for day 40, then on day 31 for day 40 too: 31 days apart at creation, the same day in the mailbox.
    expect(await one('org_m', 'm1', 0, 40)).toBe('scheduled');
    expect(await one('org_m', 'm1', 31, 40)).toBe('skipped:recently_invited');
    // Day 31 with the default delay (day 38): two days before the one already due on day 40.
    expect(await one('org_m', 'm1', 31, 38)).toBe('skipped:recently_invited');
    // Day 69.9 is within 30 days of day 40; day 70 is not.
    expect(await one('org_m', 'm1', 32, 69.9)).toBe('skipped:recently_invited');
    expect(await one('org_m', 'm1', 32, 70)).toBe('scheduled');
    // In one batch the same: the second item is due 10 days after the first.
    const batch = await s.create('org_m', [draft('org_m', 'm2', { sendAt: at(50) }), draft('org_m', 'm2', { createdAt: at(31), updatedAt: at(31), sendAt: at(60) })], { max: 100 });
    expect(batch!.map((r) => r.invitation.state)).toEqual(['scheduled', 'skipped']);
    // Never mailed by the service (unsent): counted at its creation.
    expect(await one('org_m', 'm3', 0, null)).toBe('unsent');
    expect(await one('org_m', 'm3', 1, 29)).toBe('skipped:recently_invited');
    expect(await one('org_m', 'm3', 1, 30)).toBe('scheduled');
    // After a restart (embedded: rebuilt from the invitations; MongoDB: another connection) the window is the mail's still.
    const again = await h.reopen();
    const late = await again.invitations.create('org_m', [draft('org_m', 'm1', { createdAt: at(60), updatedAt: at(60), sendAt: at(90) })], { max: 100 });
    expect(late![0]!.invitation.reason).toBe('recently_invited');
  });

  it('lets one of several requests at once invite an address, the others skipped; one order at once stored once', async () => {
    const s = h.store.invitations;
    const results = await Promise.all([0, 1, 2, 3, 4].map(() => s.create('org_r', [draft('org_r', 'race')], { max: 100 })));
    expect(results.map((r) => r![0]!.invitation.state).sort()).toEqual(['scheduled', 'skipped', 'skipped', 'skipped', 'skipped']);
    const orders = await Promise.all([0, 1, 2].map(() => s.create('org_r', [draft('org_r', 'race2', { orderRef: 'R-1' })], { max: 100 })));
    expect(new Set(orders.map((r) => r![0]!.invitation.id)).size).toBe(1);
    expect(orders.filter((r) => r![0]!.created)).toHaveLength(1);
    expect(await s.count('org_r')).toBe(6);
  });

  it('finds the scheduled invitations whose time came, of every organization, soonest first, a bounded batch', async () => {
    const s = h.store.invitations;
    // Before every other invitation of the suite: only these can be due.
    const T = (d: number): string => new Date(Date.parse('2020-01-01T00:00:00.000Z') + d * DAY).toISOString();
    const made = await s.create('org_due1', [draft('org_due1', 'd1', { sendAt: T(3) }), draft('org_due1', 'd2', { sendAt: T(1) }), draft('org_due1', 'd3', { state: 'unsent', sendAt: null })], { max: 100 });
    await s.create('org_due2', [draft('org_due2', 'd1', { sendAt: T(2) }), draft('org_due2', 'd4', { sendAt: T(9) })], { max: 100 });
    const mine = <I extends { orgId: string }>(list: I[]): I[] => list.filter((i) => i.orgId.startsWith('org_due'));
    expect(mine(await s.due(T(0), 10))).toEqual([]);
    expect(mine(await s.due(T(3), 10)).map((i) => [i.orgId, i.emailKey, i.sendAt])).toEqual([
      ['org_due1', 'd2', T(1)],
      ['org_due2', 'd1', T(2)],
      ['org_due1', 'd1', T(3)],
    ]);
    // A cancelled one is no longer due.
    const first = made![1]!.invitation;
    await s.update({ ...first, state: 'cancelled', updatedAt: T(0) }, first);
    expect(mine(await s.due(T(3), 1)).map((i) => i.emailKey)).toEqual(['d1']);
  });

  it('leaves claimed invitations and skipped organizations out of due; finds reminders by remindAt and the mailed ones to expire by sentAt', async () => {
    const s = h.store.invitations;
    // Before every other invitation of the suite (2019): only these can be due.
    const T = (d: number): string => new Date(Date.parse('2019-01-01T00:00:00.000Z') + d * DAY).toISOString();
    const mine = <I extends { orgId: string }>(list: I[]): I[] => list.filter((i) => i.orgId.startsWith('org_lease'));
    const made = await s.create('org_lease1', [draft('org_lease1', 'e1', { sendAt: T(1), createdAt: T(0), updatedAt: T(0) }), draft('org_lease1', 'e2', { sendAt: T(2), createdAt: T(0), updatedAt: T(0) })], { max: 100 });
    await s.create('org_lease2', [draft('org_lease2', 'e1', { sendAt: T(3), createdAt: T(0), updatedAt: T(0) })], { max: 100 });
    const e1 = made![0]!.invitation;
    // Claimed until day 5: not due before then, due again after (a sender that died).
    const claimed = await s.update({ ...e1, leaseUntil: T(5), updatedAt: T(1) }, e1);
    expect(claimed).not.toBeNull();
    expect(mine(await s.due(T(4), 10)).map((i) => [i.orgId, i.emailKey])).toEqual([['org_lease1', 'e2'], ['org_lease2', 'e1']]);
    expect(mine(await s.due(T(5), 10)).map((i) => [i.orgId, i.emailKey])).toEqual([['org_lease1', 'e1'], ['org_lease1', 'e2'], ['org_lease2', 'e1']]);
    // An organization that has its share is left out: the next one's come first.
    expect(mine(await s.due(T(5), 10, ['org_lease1'])).map((i) => [i.orgId, i.emailKey])).toEqual([['org_lease2', 'e1']]);

    // Sent with a reminder at day 8 (e1) and without one (e2): only e1's reminder is due, and not while claimed.
    const sent1 = (await s.update({ ...claimed!, state: 'sent', sentAt: T(1), remindAt: T(8), leaseUntil: null, updatedAt: T(1.5) }, claimed!))!;
    const e2 = made![1]!.invitation;
    const sent2 = (await s.update({ ...e2, state: 'sent', sentAt: T(2), remindAt: null, updatedAt: T(2) }, e2))!;
    expect(mine(await s.remindersDue(T(7), 10))).toEqual([]);
    expect(mine(await s.remindersDue(T(8), 10)).map((i) => i.id)).toEqual([sent1.id]);
    expect(mine(await s.remindersDue(T(8), 10, ['org_lease1']))).toEqual([]);
    const leased = (await s.update({ ...sent1, leaseUntil: T(9), updatedAt: T(8) }, sent1))!;
    expect(mine(await s.remindersDue(T(8.5), 10))).toEqual([]);
    expect(mine(await s.remindersDue(T(9), 10)).map((i) => i.id)).toEqual([sent1.id]);
    const reminded = (await s.update({ ...leased, state: 'reminded', remindedAt: T(8), remindAt: null, leaseUntil: null, updatedAt: T(8.2) }, leased))!;
    expect(mine(await s.remindersDue(T(20), 10))).toEqual([]);

    // Expiry: sent or reminded, mailed at or before the given time, soonest first, bounded.
    expect(mine(await s.expiring(T(0.5), 10))).toEqual([]);
    expect(mine(await s.expiring(T(2), 10)).map((i) => [i.id, i.state])).toEqual([[reminded.id, 'reminded'], [sent2.id, 'sent']]);
    expect(mine(await s.expiring(T(2), 1)).map((i) => i.id)).toEqual([reminded.id]);
    await s.update({ ...sent2, state: 'expired', updatedAt: T(32) }, sent2);
    expect(mine(await s.expiring(T(40), 10)).map((i) => i.id)).toEqual([reminded.id]);

    // One address's invitations in its organization, newest first, bounded.
    const later = await s.create('org_lease1', [draft('org_lease1', 'e1', { sendAt: T(40), createdAt: T(40), updatedAt: T(40) })], { max: 100 });
    expect((await s.ofAddress('org_lease1', 'e1', 10)).map((i) => i.id)).toEqual([later![0]!.invitation.id, e1.id]);
    expect((await s.ofAddress('org_lease1', 'e1', 1)).map((i) => i.id)).toEqual([later![0]!.invitation.id]);
    expect(await s.ofAddress('org_lease2', 'e2', 10)).toEqual([]);
  });

  it('compares claims with the time the sender gives (claimedBefore, the real clock), not the time asked about: a later --at never takes a live claim', async () => {
    const s = h.store.invitations;
    // 2018: before every other invitation of the suite.
    const T = (d: number): string => new Date(Date.parse('2018-01-01T00:00:00.000Z') + d * DAY).toISOString();
    const mine = <I extends { orgId: string }>(list: I[]): I[] => list.filter((i) => i.orgId === 'org_clock1');
    const made = await s.create('org_clock1', [draft('org_clock1', 'c1', { sendAt: T(1), createdAt: T(0), updatedAt: T(0) }), draft('org_clock1', 'c2', { sendAt: T(1.5), createdAt: T(0), updatedAt: T(0) })], { max: 100 });
    const c1 = made![0]!.invitation;
    // Claimed at day 1 for ten minutes (the regular run); the clock reads day 1 and a minute.
    const claimed = (await s.update({ ...c1, leaseUntil: new Date(Date.parse(T(1)) + 600_000).toISOString(), updatedAt: T(1) }, c1))!;
    const clock = new Date(Date.parse(T(1)) + 60_000).toISOString();
    // A run as if it were day 8: what came due by then, but the live claim left out.
    expect(mine(await s.due(T(8), 10, [], clock)).map((i) => i.emailKey)).toEqual(['c2']);
    // Once the clock passed the claim, it is taken again.
    expect(mine(await s.due(T(8), 10, [], T(2))).map((i) => i.emailKey)).toEqual(['c1', 'c2']);
    // The same for reminders; and the sender's record of an unknown outcome is kept as written.
    const sent = (await s.update({ ...claimed, state: 'sent', sentAt: T(1), remindAt: T(3), leaseUntil: new Date(Date.parse(T(3)) + 600_000).toISOString(), unknownAt: T(3), updatedAt: T(3) }, claimed))!;
    expect(mine(await s.remindersDue(T(10), 10, [], new Date(Date.parse(T(3)) + 60_000).toISOString()))).toEqual([]);
    expect(mine(await s.remindersDue(T(10), 10, [], T(4))).map((i) => [i.id, i.unknownAt])).toEqual([[sent.id, T(3)]]);
    expect((await (await h.reopen()).invitations.get(sent.id))!.unknownAt).toBe(T(3));
  });

  it('answers the stored invitation for the same orderRef and address, in a batch and later', async () => {
    const s = h.store.invitations;
    const a = draft('org_c', 'x1', { orderRef: 'A-1' });
    const res = await s.create('org_c', [a, draft('org_c', 'x1', { orderRef: 'A-1' }), draft('org_c', 'x2', { orderRef: 'A-1' })], { max: 100 });
    expect(res!.map((r) => [r.invitation.id, r.created])).toEqual([
      [a.id, true],
      [a.id, false],
      [res![2]!.invitation.id, true],
    ]);
    const again = await s.create('org_c', [draft('org_c', 'x1', { orderRef: 'A-1', createdAt: at(60), updatedAt: at(60) })], { max: 100 });
    expect(again).toEqual([{ invitation: res![0]!.invitation, created: false }]);
    // The same orderRef in another organization is another order.
    const elsewhere = await s.create('org_d', [draft('org_d', 'x1', { orderRef: 'A-1' })], { max: 100 });
    expect(elsewhere![0]!.created).toBe(true);
    expect(await s.count('org_c')).toBe(2);
  });

  it('refuses a batch that would pass the cap, creating nothing; repeats do not count', async () => {
    const s = h.store.invitations;
    const ok = await s.create('org_e', [draft('org_e', 'c1', { orderRef: 'o1' }), draft('org_e', 'c2')], { max: 3 });
    expect(ok).toHaveLength(2);
    expect(await s.create('org_e', [draft('org_e', 'c3'), draft('org_e', 'c4')], { max: 3 })).toBeNull();
    expect(await s.count('org_e')).toBe(2);
    // The refused batch left no trace: c3 is not "recently invited".
    const repeat = await s.create('org_e', [draft('org_e', 'c1', { orderRef: 'o1' }), draft('org_e', 'c3')], { max: 3 });
    expect(repeat!.map((r) => [r.created, r.invitation.state])).toEqual([
      [false, 'scheduled'],
      [true, 'scheduled'],
    ]);
    expect(await s.count('org_e')).toBe(3);
  });

  it('counts invitations by state and the sent and reviewed of a window of days as they change, after a restart too', async () => {
    const s = h.store.invitations;
    const o = 'org_c9';
    const mk = (k: string, over: Partial<InvitationDraft> = {}) => draft(o, k, over);
    const unsent = { state: 'unsent' as const, sendAt: null };
    const [a, b, c, d, e, f, g, fl, i] = [
      mk('ca'), // scheduled, never sent
      mk('cb'), // sent on day 1
      mk('cc'), // sent on day 1, reviewed on day 3
      mk('cd', { ...unsent, createdAt: at(2), updatedAt: at(2) }), // a link for the shop's own mailer: sent the day it was created
      mk('ce', { ...unsent, createdAt: at(2), updatedAt: at(2) }), // the same, reviewed
      mk('cb', { createdAt: at(0.5), updatedAt: at(0.5) }), // skipped (recently_invited): never sent
      mk('cg', { createdAt: at(-50), updatedAt: at(-50) }), // sent long before
      mk('ch'), // the relay refused it: failed, never sent
      mk('ci', { ...unsent, createdAt: at(2), updatedAt: at(2) }), // a link handed out, then cancelled: it was sent
    ];
    await s.create(o, [g!, a!, b!, c!, fl!, f!, d!, e!, i!], { max: 100 });
    const move = async (id: string, change: Record<string, unknown>) => {
      const now = (await s.get(id))!;
      expect(await s.update({ ...now, ...change } as typeof now, now)).not.toBeNull();
    };
    await move(b!.id, { state: 'sent', sentAt: at(1), updatedAt: at(1) });
    await move(c!.id, { state: 'sent', sentAt: at(1), updatedAt: at(1) });
    await move(c!.id, { state: 'reviewed', reviewedAt: at(3), updatedAt: at(3) });
    await move(e!.id, { state: 'reviewed', reviewedAt: at(3), updatedAt: at(3) });
    await move(g!.id, { state: 'sent', sentAt: at(-45), updatedAt: at(-45) });
    await move(fl!.id, { state: 'failed', lastError: '550 no such user', updatedAt: at(1) });
    await move(i!.id, { state: 'cancelled', updatedAt: at(3) });
    const expected = { scheduled: 1, sent: 2, reminded: 0, reviewed: 2, failed: 1, skipped: 1, expired: 0, cancelled: 1, unsent: 1 };
    const day = (n: number) => at(n).slice(0, 10);
    const check = async (store: Store) => {
      expect(await store.invitations.countByState(o)).toEqual(expected);
      expect(await store.invitations.sentSince(o, day(1))).toEqual({ sent: 5, reviewed: 2 });
      expect(await store.invitations.sentSince(o, day(2))).toEqual({ sent: 3, reviewed: 1 });
      expect(await store.invitations.sentSince(o, day(3))).toEqual({ sent: 0, reviewed: 0 });
      expect(await store.invitations.sentSince(o, day(-60))).toEqual({ sent: 6, reviewed: 2 });
      expect(await store.invitations.countByState('org_c10')).toEqual({ scheduled: 0, sent: 0, reminded: 0, reviewed: 0, failed: 0, skipped: 0, expired: 0, cancelled: 0, unsent: 0 });
      expect(await store.invitations.sentSince('org_c10', day(-60))).toEqual({ sent: 0, reviewed: 0 });
    };
    await check(h.store);
    await check(await h.reopen());
  });

  it('lists newest first by state with the total, and replaces an invitation only as last seen', async () => {
    const s = h.store.invitations;
    const drafts = [0, 1, 2, 3].map((d) => draft('org_f', `l${d}`, { createdAt: at(d), updatedAt: at(d) }));
    await s.create('org_f', drafts, { max: 100 });
    const page = await s.list('org_f', { limit: 2, offset: 1 });
    expect(page.total).toBe(4);
    expect(page.data.map((i) => i.id)).toEqual([drafts[2]!.id, drafts[1]!.id]);
    const inv = (await s.get(drafts[0]!.id))!;
    expect(inv.email).toBe('l0@example.com');
    const sent = { ...inv, state: 'sent' as const, sentAt: at(7), updatedAt: at(7) };
    const cancelled = { ...inv, state: 'cancelled' as const, updatedAt: at(7) };
    const results = await Promise.all([s.update(sent, inv), s.update(cancelled, inv)]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const winner = (await s.get(inv.id))!;
    expect(await s.update({ ...inv, name: 'stale' }, inv)).toBeNull();
    expect((await s.list('org_f', { state: winner.state, limit: 10, offset: 0 })).data.map((i) => i.id)).toEqual([inv.id]);
    expect((await s.list('org_f', { state: 'scheduled', limit: 10, offset: 0 })).total).toBe(3);
    expect((await s.list('org_g', { limit: 10, offset: 0 })).total).toBe(0);
    const again = await h.reopen();
    expect(await again.invitations.get(inv.id)).toEqual(winner);
    expect(await again.invitations.count('org_f')).toBe(4);
  });

  it('purges only invitations that ended before the cutoff, in bounded batches; the count goes down, the cap admits new ones, and the order invites anew', async () => {
    const s = h.store.invitations;
    const o = 'org_ret';
    const cutoff = at(-100);
    const old = { createdAt: at(-300), updatedAt: at(-300), sendAt: at(-300) };
    const mk = (k: string, over: Partial<InvitationDraft> = {}) => draft(o, k, { ...old, ...over });
    const unsent = { state: 'unsent' as const, sendAt: null };
    const goneCancelled = mk('r1');
    const goneReviewed = mk('r2', { orderRef: 'o-r' });
    const goneUnsent = mk('r3', unsent); // its link expired on day -270
    const goneSkipped = mk('r1', { createdAt: at(-299), updatedAt: at(-299), sendAt: at(-299) }); // recently_invited at creation
    const keepRecentEnd = mk('r4'); // expired on day -90: ended after the cutoff
    const keepSent = mk('r5'); // mailed long ago and still waiting: live
    const keepScheduled = mk('r6', { sendAt: at(-50) }); // live
    const keepDueLater = mk('r7', { sendAt: at(-50) }); // cancelled long ago, but it was due after the cutoff (the 30-day rule)
    const keepUnsentOpen = mk('r8', { ...unsent, createdAt: at(-110), updatedAt: at(-110) }); // its link still open at the cutoff
    const all = [goneCancelled, goneReviewed, goneUnsent, goneSkipped, keepRecentEnd, keepSent, keepScheduled, keepDueLater, keepUnsentOpen];
    const made = await s.create(o, all, { max: 9 });
    expect(made!.map((r) => r.invitation.state)).toEqual(['scheduled', 'scheduled', 'unsent', 'skipped', 'scheduled', 'scheduled', 'scheduled', 'scheduled', 'unsent']);
    const move = async (id: string, change: Record<string, unknown>) => {
      const now = (await s.get(id))!;
      expect(await s.update({ ...now, ...change } as typeof now, now)).not.toBeNull();
    };
    await move(goneCancelled.id, { state: 'cancelled', updatedAt: at(-200) });
    await move(goneReviewed.id, { state: 'sent', sentAt: at(-299), updatedAt: at(-299) });
    await move(goneReviewed.id, { state: 'reviewed', reviewedAt: at(-250), updatedAt: at(-250) });
    await move(keepRecentEnd.id, { state: 'sent', sentAt: at(-120), updatedAt: at(-120) });
    await move(keepRecentEnd.id, { state: 'expired', updatedAt: at(-90) });
    await move(keepSent.id, { state: 'sent', sentAt: at(-299), updatedAt: at(-299) });
    await move(keepDueLater.id, { state: 'cancelled', updatedAt: at(-200) });
    const other = draft('org_ret2', 'r1', { ...old });
    await s.create('org_ret2', [other], { max: 9 });
    await h.store.invitations.update({ ...other, state: 'failed', lastError: '550', updatedAt: at(-150) }, other);
    // At the cap: nothing new is admitted.
    expect(await s.create(o, [draft(o, 'r9', { createdAt: at(0), updatedAt: at(0) })], { max: 9 })).toBeNull();
    expect(await s.count(o)).toBe(9);

    // Batches of 2, this organization only; then nothing is left, and a purge that finds nothing answers {}.
    expect(await s.purge(cutoff, 2, { orgId: o })).toEqual({ [o]: 2 });
    expect(await s.purge(cutoff, 2, { orgId: o })).toEqual({ [o]: 2 });
    expect(await s.purge(cutoff, 2, { orgId: o })).toEqual({});
    const gone = [goneCancelled, goneReviewed, goneUnsent, goneSkipped];
    const kept = [keepRecentEnd, keepSent, keepScheduled, keepDueLater, keepUnsentOpen];
    const check = async (store: Store) => {
      for (const g of gone) expect(await store.invitations.get(g.id), g.emailKey).toBeNull();
      for (const k of kept) expect(await store.invitations.get(k.id), k.emailKey).not.toBeNull();
      expect(await store.invitations.count(o)).toBe(5);
      expect((await store.invitations.list(o, { limit: 100, offset: 0 })).data.map((i) => i.id).sort()).toEqual(kept.map((k) => k.id).sort());
      expect(await store.invitations.countByState(o)).toEqual({ scheduled: 1, sent: 1, reminded: 0, reviewed: 0, failed: 0, skipped: 0, expired: 1, cancelled: 1, unsent: 1 });
      expect(await store.invitations.ofAddress(o, 'r1', 10)).toEqual([]);
    };
    await check(h.store);
    // Another organization's: left out when skipped, taken when not.
    expect((await s.purge(cutoff, 100, { skipOrgs: [o, 'org_ret2'] }))).not.toHaveProperty('org_ret2');
    expect(await s.get(other.id)).not.toBeNull();
    expect(await s.purge(cutoff, 100, { skipOrgs: [o] })).toMatchObject({ org_ret2: 1 });
    expect(await s.get(other.id)).toBeNull();
    expect(await s.purge(cutoff, 100)).toEqual({});

    // The cap counts what is kept: four more fit under 9 again (three here, the order's below).
    const fresh = await s.create(o, ['r10', 'r11', 'r12'].map((k) => draft(o, k, { createdAt: at(0), updatedAt: at(0) })), { max: 9 });
    expect(fresh!.every((r) => r.created)).toBe(true);
    // The purged order's address and orderRef again: a new invitation (decided by the rules as any other), not the purged one.
    const again = await s.create(o, [draft(o, 'r2', { orderRef: 'o-r', createdAt: at(0), updatedAt: at(0) })], { max: 9 });
    expect(again![0]!.created).toBe(true);
    expect(again![0]!.invitation.id).not.toBe(goneReviewed.id);
    expect(again![0]!.invitation.state).toBe('scheduled');
    expect(await s.count(o)).toBe(9);
    expect(await s.create(o, [draft(o, 'r13', { createdAt: at(0), updatedAt: at(0) })], { max: 9 })).toBeNull();
    // The same order once more answers the new one.
    const repeat = await s.create(o, [draft(o, 'r2', { orderRef: 'o-r', createdAt: at(1), updatedAt: at(1) })], { max: 9 });
    expect(repeat![0]).toMatchObject({ created: false, invitation: { id: again![0]!.invitation.id } });

    const reopened = await h.reopen();
    for (const g of gone) expect(await reopened.invitations.get(g.id)).toBeNull();
    expect(await reopened.invitations.count(o)).toBe(9);
    expect(await reopened.invitations.purge(cutoff, 100)).toEqual({});
  });

  it('erases every invitation of one address in an organization at once, whatever its state; its unsubscribe stays, its 30-day record goes', async () => {
    const s = h.store.invitations;
    const o = 'org_x';
    const a = draft(o, 'e1', { createdAt: at(0), updatedAt: at(0), sendAt: at(0) });
    const b = draft(o, 'e1', { createdAt: at(31), updatedAt: at(31), sendAt: at(40), orderRef: 'o-e' });
    const c = draft(o, 'e3', { createdAt: at(0), updatedAt: at(0), sendAt: at(0) });
    const keep = draft(o, 'e2', { createdAt: at(0), updatedAt: at(0) });
    const elsewhere = draft('org_y', 'e1', { createdAt: at(0), updatedAt: at(0) });
    await s.create(o, [a, b, c, keep], { max: 10 });
    await s.create('org_y', [elsewhere], { max: 10 });
    await s.update({ ...a, state: 'sent', sentAt: at(0), updatedAt: at(0.5) }, a);
    await s.unsubscribe(o, 'e1', at(35));
    expect(await s.count(o)).toBe(4);

    expect(await s.erase(o, 'e1')).toBe(2);
    expect(await s.get(a.id)).toBeNull();
    expect(await s.get(b.id)).toBeNull();
    expect(await s.ofAddress(o, 'e1', 10)).toEqual([]);
    expect(await s.count(o)).toBe(2);
    expect((await s.countByState(o)).scheduled).toBe(2);
    expect(await s.get(elsewhere.id)).not.toBeNull();
    // The claim a sender holds finds nothing to write: the erased invitation is never mailed.
    expect(await s.update({ ...b, leaseUntil: at(41), updatedAt: at(40) }, b)).toBeNull();
    expect(await s.due(at(50), 10)).not.toContainEqual(expect.objectContaining({ id: b.id }));
    // The unsubscribe stays: the same order again is a new invitation, skipped.
    expect(await s.unsubscribedAt(o, 'e1')).toBe(at(35));
    const again = await s.create(o, [draft(o, 'e1', { orderRef: 'o-e', createdAt: at(41), updatedAt: at(41) })], { max: 10 });
    expect(again![0]).toMatchObject({ created: true, invitation: { state: 'skipped', reason: 'unsubscribed' } });
    // An address not unsubscribed: erased, then invited the next day (nothing left of the one erased).
    expect(await s.erase(o, 'e3')).toBe(1);
    const next = await s.create(o, [draft(o, 'e3', { createdAt: at(1), updatedAt: at(1), sendAt: at(1) })], { max: 10 });
    expect(next![0]!.invitation.state).toBe('scheduled');
    expect(await s.erase(o, 'e9')).toBe(0);

    const reopened = await h.reopen();
    expect(await reopened.invitations.get(a.id)).toBeNull();
    expect(await reopened.invitations.count(o)).toBe(3);
    expect(await reopened.invitations.unsubscribedAt(o, 'e1')).toBe(at(35));
  });

  it('pages newest first (createdAt, then id) in every state and offset, batches written out of time order and changed states included, after a restart too', async () => {
    const s = h.store.invitations;
    // Three batches, the second written last but created earliest; ids and times interleaved.
    const batch = (day: number, n: number) => Array.from({ length: n }, (_, k) => draft('org_p', `p${day}-${k}`, { createdAt: at(day + (k % 3) / 10), updatedAt: at(day) }));
    const a = batch(5, 9);
    const b = batch(1, 7);
    const c = batch(9, 8);
    await s.create('org_p', a, { max: 1000 });
    await s.create('org_p', c, { max: 1000 });
    await s.create('org_p', b, { max: 1000 });
    // Some move on: sent, cancelled.
    for (const [i, d] of [...a, ...b, ...c].entries()) {
      if (i % 4 === 0) await s.update({ ...d, state: 'sent', sentAt: at(12), updatedAt: at(12) }, { state: 'scheduled', updatedAt: d.updatedAt });
      else if (i % 5 === 0) await s.update({ ...d, state: 'cancelled', updatedAt: at(12) }, { state: 'scheduled', updatedAt: d.updatedAt });
    }
    const check = async (store: Store) => {
      const all = [];
      for (const d of [...a, ...b, ...c]) all.push((await store.invitations.get(d.id))!);
      const newest = all.sort((x, y) => (x.createdAt < y.createdAt ? 1 : x.createdAt > y.createdAt ? -1 : x.id < y.id ? 1 : -1));
      for (const state of [undefined, 'scheduled', 'sent', 'cancelled', 'reviewed'] as const) {
        const expected = newest.filter((i) => state === undefined || i.state === state);
        for (const [offset, limit] of [[0, 5], [3, 4], [0, 100], [expected.length - 1, 5], [expected.length, 5], [expected.length + 3, 2]] as const) {
          const page = await store.invitations.list('org_p', { ...(state && { state }), limit, offset: Math.max(0, offset) });
          expect(page.total, `${state} total`).toBe(expected.length);
          expect(page.data.map((i) => i.id), `${state} ${offset} ${limit}`).toEqual(expected.slice(Math.max(0, offset), Math.max(0, offset) + limit).map((i) => i.id));
        }
      }
    };
    await check(h.store);
    await check(await h.reopen());
  });
}

describeOn({ name: 'embedded', url: 'embedded', missing: '' }, 'invitation store contract', () =>
  suite(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'invitation-contract-'));
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

describe('invitation retention on the embedded log', () => {
  it('a purge survives a restart (purged stays purged, nothing else lost) and the log is rewritten without the purged records', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'invitation-retention-'));
    let store = await EmbeddedStore.open(dir);
    try {
      const o = 'org_log';
      // 6,000 links handed out 300 days ago (expired 270 days ago: ended), and a few live ones.
      const old = Array.from({ length: 6000 }, (_, i) => draft(o, `old-${i}`, { state: 'unsent', sendAt: null, createdAt: at(-300), updatedAt: at(-300) }));
      for (let i = 0; i < old.length; i += 500) await store.invitations.create(o, old.slice(i, i + 500), { max: 10_000 });
      const live = [0, 1, 2].map((i) => draft(o, `live-${i}`, { createdAt: at(-300), updatedAt: at(-300), sendAt: at(10) }));
      await store.invitations.create(o, live, { max: 10_000 });
      const compactions = (store as EmbeddedStore).info.compactions;
      let purged = 0;
      for (;;) {
        const n = (await store.invitations.purge(at(-100), 1000))[o] ?? 0;
        if (n === 0) break;
        purged += n;
      }
      expect(purged).toBe(6000);
      // The purge left more superseded records than live ones: the log was rewritten (between commit rounds).
      await vi.waitFor(() => expect((store as EmbeddedStore).info.compactions).toBeGreaterThan(compactions), { timeout: 10_000, interval: 20 });
      const text = readFileSync(join(dir, 'store.log'), 'utf8');
      expect(text).not.toContain(old[0]!.id);
      expect(text).not.toContain('old-5999@example.com');
      await store.close();
      store = await EmbeddedStore.open(dir);
      // Replayed: the live state only, not 6,000 records and their removal.
      expect((store as EmbeddedStore).info.replay.entries).toBeLessThan(100);
      expect(await store.invitations.count(o)).toBe(3);
      for (const d of live) expect((await store.invitations.get(d.id))?.state).toBe('scheduled');
      expect(await store.invitations.get(old[0]!.id)).toBeNull();
      expect(await store.invitations.purge(at(-100), 1000)).toEqual({});
    } finally {
      await store.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an erasure rewrites the log at once: the address leaves the disk, and stays gone after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'invitation-erase-'));
    let store = await EmbeddedStore.open(dir);
    try {
      const o = 'org_erase';
      const mine = draft(o, 'erase-me');
      const theirs = draft(o, 'stays');
      await store.invitations.create(o, [mine, theirs], { max: 10 });
      await store.invitations.update({ ...mine, state: 'cancelled', updatedAt: at(1) }, mine);
      await store.invitations.unsubscribe(o, 'erase-me', at(2));
      expect(readFileSync(join(dir, 'store.log'), 'utf8')).toContain('erase-me@example.com');
      expect(await store.invitations.erase(o, 'erase-me')).toBe(1);
      const text = readFileSync(join(dir, 'store.log'), 'utf8');
      expect(text).not.toContain('erase-me@example.com');
      expect(text).toContain('stays@example.com');
      await store.close();
      store = await EmbeddedStore.open(dir);
      expect(await store.invitations.get(mine.id)).toBeNull();
      expect(await store.invitations.get(theirs.id)).not.toBeNull();
      expect(await store.invitations.unsubscribedAt(o, 'erase-me')).toBe(at(2));
    } finally {
      await store.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // A disk whose log rewrites fail (ENOSPC on the side file) while `rewrites.fail` is set; appends still work.
  const failingRewrites = (rewrites: { fail: boolean }): OpenFile => async (path, flags, mode) => {
    if (rewrites.fail && path.endsWith('.compact')) throw Object.assign(new Error('ENOSPC: no space left on device, open'), { code: 'ENOSPC' });
    return openFile(path, flags, mode);
  };

  it("a purge rewrites the log, so a purged address leaves the disk within the day's run", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'invitation-purge-rewrite-'));
    const store = await EmbeddedStore.open(dir);
    try {
      const o = 'org_pr';
      // Many live links: one purged invitation alone never makes the log due for a rewrite by size or ratio.
      await store.invitations.create(o, Array.from({ length: 200 }, (_, i) => draft(o, `live-${i}`, { state: 'unsent', sendAt: null })), { max: 10_000 });
      const old = draft(o, 'purged-one', { state: 'unsent', sendAt: null, createdAt: at(-300), updatedAt: at(-300) });
      await store.invitations.create(o, [old], { max: 10_000 });
      expect(readFileSync(join(dir, 'store.log'), 'utf8')).toContain('purged-one@example.com');
      expect(await store.invitations.purge(at(-180), 100)).toEqual({ [o]: 1 });
      await vi.waitFor(() => expect(readFileSync(join(dir, 'store.log'), 'utf8')).not.toContain('purged-one@example.com'), { timeout: 10_000, interval: 20 });
      expect(readFileSync(join(dir, 'store.log'), 'utf8')).toContain('live-199@example.com');
      // Nothing purged: nothing rewritten.
      const compactions = store.info.compactions;
      expect(await store.invitations.purge(at(-180), 100)).toEqual({});
      await store.invitations.create(o, [draft(o, 'after')], { max: 10_000 });
      expect(store.info.compactions).toBe(compactions);
      // A run's full batches (as many as asked for: more may follow) leave the rewrite to its last one, once a run.
      await store.invitations.create(o, ['two-a', 'two-b'].map((k) => draft(o, k, { state: 'unsent', sendAt: null, createdAt: at(-300), updatedAt: at(-300) })), { max: 10_000 });
      expect(await store.invitations.purge(at(-180), 1)).toEqual({ [o]: 1 });
      expect(await store.invitations.purge(at(-180), 1)).toEqual({ [o]: 1 });
      await store.invitations.create(o, [draft(o, 'after-2')], { max: 10_000 });
      expect(store.info.compactions).toBe(compactions);
      expect(readFileSync(join(dir, 'store.log'), 'utf8')).toContain('two-a@example.com');
      expect(await store.invitations.purge(at(-180), 1)).toEqual({});
      await vi.waitFor(() => expect(store.info.compactions).toBe(compactions + 1), { timeout: 10_000, interval: 20 });
      const text = readFileSync(join(dir, 'store.log'), 'utf8');
      expect(text).not.toContain('two-a@example.com');
      expect(text).not.toContain('two-b@example.com');
    } finally {
      await store.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an erasure after a purge whose rewrite failed still rewrites the log: the address leaves the disk though nothing is left to remove', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'invitation-erase-purged-'));
    const rewrites = { fail: true };
    let store = await EmbeddedStore.open(dir, { open: failingRewrites(rewrites) });
    try {
      const o = 'org_ep';
      await store.invitations.create(o, Array.from({ length: 200 }, (_, i) => draft(o, `live-${i}`, { state: 'unsent', sendAt: null })), { max: 10_000 });
      const old = draft(o, 'victim', { state: 'unsent', sendAt: null, createdAt: at(-300), updatedAt: at(-300) });
      await store.invitations.create(o, [old], { max: 10_000 });
      expect(await store.invitations.purge(at(-180), 100)).toEqual({ [o]: 1 });
      // Another write: its round comes after the pause that tried (and failed) to rewrite the log.
      await store.invitations.create(o, [draft(o, 'later')], { max: 10_000 });
      expect(await store.invitations.get(old.id)).toBeNull();
      expect(readFileSync(join(dir, 'store.log'), 'utf8')).toContain('victim@example.com');
      rewrites.fail = false;
      expect(await store.invitations.erase(o, 'victim')).toBe(0);
      expect(readFileSync(join(dir, 'store.log'), 'utf8')).not.toContain('victim@example.com');
      // The same after a restart: the log replayed (old lines, then their removal) still knows the address may be on disk.
      await store.invitations.create(o, [draft(o, 'victim2', { state: 'unsent', sendAt: null, createdAt: at(-300), updatedAt: at(-300) })], { max: 10_000 });
      rewrites.fail = true;
      expect(await store.invitations.purge(at(-180), 100)).toEqual({ [o]: 1 });
      await store.invitations.create(o, [draft(o, 'later2')], { max: 10_000 });
      await store.close();
      rewrites.fail = false;
      store = await EmbeddedStore.open(dir, { open: failingRewrites(rewrites) });
      expect(readFileSync(join(dir, 'store.log'), 'utf8')).toContain('victim2@example.com');
      expect(await store.invitations.erase(o, 'victim2')).toBe(0);
      expect(readFileSync(join(dir, 'store.log'), 'utf8')).not.toContain('victim2@example.com');
    } finally {
      await store.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an erasure whose rewrite fails fails (503), and answers only once a later attempt has the address off the disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'invitation-erase-fails-'));
    const rewrites = { fail: false };
    const store = await EmbeddedStore.open(dir, { open: failingRewrites(rewrites) });
    try {
      const o = 'org_ef';
      await store.invitations.create(o, [draft(o, 'gone-soon'), draft(o, 'stays')], { max: 10 });
      rewrites.fail = true;
      await expect(store.invitations.erase(o, 'gone-soon')).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(readFileSync(join(dir, 'store.log'), 'utf8')).toContain('gone-soon@example.com');
      rewrites.fail = false;
      // The invitations went at the first attempt; the second one still rewrites the log before it answers.
      expect(await store.invitations.erase(o, 'gone-soon')).toBe(0);
      const text = readFileSync(join(dir, 'store.log'), 'utf8');
      expect(text).not.toContain('gone-soon@example.com');
      expect(text).toContain('stays@example.com');
    } finally {
      await store.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

for (const target of mongoTargets()) {
  describeOn(target, 'invitation store contract', () =>
    suite(async () => {
      const store = await openMongoStore(target, 'invitations');
      const other: Store[] = [];
      let current: Store = store;
      return {
        get store() {
          return current;
        },
        async reopen() {
          // Another connection to the same database: what a second instance reads.
          const { MongoStore } = await import('./mongo/store.ts');
          const second = await MongoStore.connect(target.url, (store as unknown as { db: { databaseName: string } }).db.databaseName);
          other.push(second);
          current = second;
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

for (const target of mongoTargets()) {
  describeOn(target, 'invitation retention on MongoDB', () => {
    it("removes a purged address's last-invited record unless it unsubscribed; an erasure keeps only the unsubscribe", async () => {
      const store = await openMongoStore(target, 'invitation-recipients');
      try {
        const db = (store as unknown as { db: import('mongodb').Db }).db;
        const recipient = (k: string) => db.collection<{ _id: string }>('invitation_recipients').findOne({ _id: `org_rec\u0000${k}` });
        const old = (k: string) => draft('org_rec', k, { state: 'unsent', sendAt: null, createdAt: at(-300), updatedAt: at(-300) });
        await store.invitations.create('org_rec', [old('rk1'), old('rk2'), draft('org_rec', 'rk3', { createdAt: at(0), updatedAt: at(0) })], { max: 10 });
        await store.invitations.unsubscribe('org_rec', 'rk2', at(-200));
        expect(await recipient('rk1')).not.toBeNull();
        expect(await store.invitations.purge(at(-100), 10)).toEqual({ org_rec: 2 });
        expect(await recipient('rk1')).toBeNull();
        expect(await recipient('rk2')).toMatchObject({ unsubscribedAt: at(-200) });
        expect(await store.invitations.unsubscribedAt('org_rec', 'rk2')).toBe(at(-200));
        expect(await store.invitations.erase('org_rec', 'rk3')).toBe(1);
        expect(await recipient('rk3')).toBeNull();
      } finally {
        await store.dropDatabase();
        await store.close();
      }
    });
  });
}
