/**
 * Review invitations (invitation-types.ts) behave the same in both stores:
 * the rules of CONTRACT §14 decided while a batch is written (an address
 * invited at most once per organization in 30 days, `unsubscribed` winning
 * over `recently_invited`, one invitation per orderRef and address, the cap
 * per organization), lists by state newest first, conditional updates (one
 * of two racing writers wins), and everything still there after a restart
 * (embedded) or on another connection (MongoDB).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EmbeddedStore } from './embedded/store.ts';
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
