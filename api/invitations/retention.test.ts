/**
 * Invitation retention's schedule on the keyed job door (review 9 M4), in
 * process and on BullMQ with a real Redis, with an injected clock: started,
 * it purges the ended invitations older than the retention with nobody
 * asking, in bounded runs that are fair across organizations (one
 * organization's backlog never holds another's), logs how many went (never
 * an address), leaves live and recent ones, and purges what ends later
 * without being asked again; a run with nothing to purge is one store call.
 * And INVITATION_RETENTION_DAYS: a value too short for the conversion figures
 * is refused at start-up.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import { BullKeyedQueue } from '../jobs/keyed-bullmq.ts';
import { InProcessKeyedQueue } from '../jobs/keyed-in-process.ts';
import type { KeyedQueue } from '../jobs/keyed-work.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import type { InvitationDraft, InvitationStore } from '../store/invitation-types.ts';
import type { Store } from '../store/types.ts';
import { InvitationRetention } from './retention.ts';

const DAY = 86_400_000;
const NOW = new Date('2026-06-01T12:00:00.000Z');
const ago = (days: number): string => new Date(NOW.getTime() - days * DAY).toISOString();
let seq = 0;

/** A link handed out `days` ago (ended 30 days later, when it expired), or a scheduled invitation (live). */
function draft(orgId: string, days: number, live = false): InvitationDraft {
  const n = ++seq;
  return {
    id: `inv_ret${String(n).padStart(17, '0')}`, orgId, email: `person${n}@example.com`, emailKey: `key-${n}`, name: null, productId: null, orderRef: `order-${n}`, locale: null,
    state: live ? 'scheduled' : 'unsent', reason: null, lastError: null, createdAt: ago(days), sendAt: live ? ago(days - 1) : null, sentAt: null, remindedAt: null, reviewedAt: null,
    submissionId: null, updatedAt: ago(days),
  };
}

const logger = createLogger('silent');
const kinds: [string, () => KeyedQueue<Record<string, never>>][] = [
  ['in process', () => new InProcessKeyedQueue(logger)],
  ['BullMQ (Redis)', () => new BullKeyedQueue({ redisUrl: inject('redisUrl'), keyPrefix: `ret${process.pid}${randomBytes(3).toString('hex')}:`, name: 'invitation-retention', logger })],
];

describe.each(kinds)('the invitation retention schedule, %s', (_name, makeQueue) => {
  it('purges what ended before the retention with nobody asking, in bounded runs fair across organizations, logging counts and no address', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'invitation-retention-'));
    const store = await EmbeddedStore.open(dir);
    const lines: Record<string, unknown>[] = [];
    const log = createLogger('info', { write: (chunk: string) => lines.push(JSON.parse(chunk) as Record<string, unknown>) });
    let calls = 0;
    const invitations: InvitationStore = {
      ...store.invitations,
      purge: async (endedBefore, limit, options) => {
        calls++;
        return store.invitations.purge(endedBefore, limit, options);
      },
    };
    const counted: Store = Object.assign(Object.create(store) as Store, { invitations });
    let metric = 0;
    const retention = new InvitationRetention({ store: counted, logger: log, retentionDays: 180, now: () => NOW, batch: 4, perRun: 10, perOrg: 5, onPurged: (n) => (metric += n) });
    const queue = makeQueue();
    try {
      const big = 'org_retbig';
      const small = 'org_retsmall';
      const bigOld = Array.from({ length: 30 }, () => draft(big, 300));
      const bigKept = [draft(big, 300, true), draft(big, 150)]; // live; a link that ended 120 days ago
      const smallOld = Array.from({ length: 3 }, () => draft(small, 300));
      await store.invitations.create(big, [...bigOld, ...bigKept], { max: 1000 });
      await store.invitations.create(small, smallOld, { max: 1000 });

      await retention.start(queue, 200);
      await vi.waitFor(async () => expect([await store.invitations.count(big), await store.invitations.count(small)]).toEqual([2, 0]), { timeout: 20_000, interval: 50 });
      for (const d of bigKept) expect(await store.invitations.get(d.id)).not.toBeNull();

      const runs = lines.filter((l) => l.msg === 'invitations: ended invitations purged');
      expect(runs.reduce((n, l) => n + Number(l.purged), 0)).toBe(33);
      expect(metric).toBe(33);
      // Bounded: no run took more than 10; fair: the first run reached the small organization behind the big one's 30.
      for (const l of runs) expect(Number(l.purged)).toBeLessThanOrEqual(10);
      expect(Object.keys(runs[0]!.organizations as object).sort()).toEqual([big, small]);
      expect(JSON.stringify(lines)).not.toContain('@');

      // One that ends later is purged by a later run, with nobody asking.
      const late = draft(small, 400);
      await store.invitations.create(small, [late], { max: 1000 });
      await vi.waitFor(async () => expect(await store.invitations.get(late.id)).toBeNull(), { timeout: 20_000, interval: 50 });

      // With nothing to purge, a run is one store call.
      retention.close();
      await queue.close();
      const before = calls;
      expect(await new InvitationRetention({ store: counted, logger: log, retentionDays: 180, now: () => NOW }).purge()).toMatchObject({ purged: 0, more: false });
      expect(calls - before).toBe(1);
    } finally {
      retention.close();
      await queue.close().catch(() => undefined);
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('INVITATION_RETENTION_DAYS', () => {
  it('is 180 days unless set; less than the 90 days the conversion figures need is refused at start-up, with why', () => {
    expect(loadConfig({}).invitationRetentionDays).toBe(180);
    expect(loadConfig({ INVITATION_RETENTION_DAYS: '90' }).invitationRetentionDays).toBe(90);
    expect(loadConfig({ INVITATION_RETENTION_DAYS: '730' }).invitationRetentionDays).toBe(730);
    expect(() => loadConfig({ INVITATION_RETENTION_DAYS: '30' })).toThrow(ConfigError);
    expect(() => loadConfig({ INVITATION_RETENTION_DAYS: '30' })).toThrow("INVITATION_RETENTION_DAYS: must be at least 90, got 30: the Collect page's conversion over 90 days counts the invitations sent in the last 90 days, so none may be removed sooner");
    for (const bad of ['-5', '1.5', 'forever', '99999999']) expect(() => loadConfig({ INVITATION_RETENTION_DAYS: bad }), bad).toThrow(/INVITATION_RETENTION_DAYS: must be a whole number of days from 90 to 36500/);
  });
});
