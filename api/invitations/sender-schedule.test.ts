/**
 * The sender's schedule on the keyed job door (CONTRACT §14 "Schedules …
 * survive restarts"), in process and on BullMQ with a real Redis: a sender
 * started on the door mails what is due with nobody asking; stopped, and
 * started again as a new process would (a new store handle, a new queue, a
 * new door), it mails what came due while nothing ran, and what comes due
 * later, because the schedule is the store's, not the queue's.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { BullKeyedQueue } from '../jobs/keyed-bullmq.ts';
import { InProcessKeyedQueue } from '../jobs/keyed-in-process.ts';
import type { KeyedQueue } from '../jobs/keyed-work.ts';
import { createLogger } from '../logger.ts';
import { MailDoor } from '../mail/door.ts';
import { InProcessSlots } from '../mail/slots.ts';
import { startSmtpSink, type SmtpSink } from '../mail/test-sink.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import type { InvitationDraft } from '../store/invitation-types.ts';
import type { Store } from '../store/types.ts';
import { InvitationLinks } from './links.ts';
import { InvitationSender } from './sender.ts';

const logger = createLogger('silent');
const PUBLIC_URL = 'https://reviews.example';
const secretsKey = randomBytes(32);
let sink: SmtpSink;
let seq = 0;

beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(async () => sink?.close());

function draft(orgId: string, email: string, sendAt: number): InvitationDraft {
  const stamp = new Date(Math.min(sendAt, Date.now()) - 1000).toISOString();
  return {
    id: `inv_${String(++seq).padStart(20, '0')}`, orgId, email, emailKey: `k-${email}`, name: null, productId: null, orderRef: null, locale: null,
    state: 'scheduled', reason: null, lastError: null, createdAt: stamp, sendAt: new Date(sendAt).toISOString(), sentAt: null, remindedAt: null, reviewedAt: null, submissionId: null, updatedAt: stamp,
  };
}

/** One "process": a store handle, a mail door, a queue and the sender started on it (a run every 200 ms). */
async function instance(dir: string, queue: KeyedQueue<Record<string, never>>): Promise<{ store: Store; stop(): Promise<void> }> {
  const store = await EmbeddedStore.open(dir);
  const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }) });
  const links = new InvitationLinks(secretsKey);
  const sender = new InvitationSender({ store, mail: door, link: (inv) => `${PUBLIC_URL}/r/i/${links.token(inv)}`, secretsKey, publicUrl: PUBLIC_URL, logger, ratePerMinute: 1_000_000 });
  await sender.start(queue, 200);
  return {
    store,
    async stop() {
      sender.close();
      await door.close();
      await queue.close();
      await store.close();
    },
  };
}

const kinds: [string, () => KeyedQueue<Record<string, never>>][] = [
  ['in process', () => new InProcessKeyedQueue(logger)],
  ['BullMQ (Redis)', () => new BullKeyedQueue({ redisUrl: inject('redisUrl'), keyPrefix: `sched${process.pid}${randomBytes(3).toString('hex')}:`, name: 'invitations', logger })],
];

describe.each(kinds)('the invitation schedule, %s', (_name, makeQueue) => {
  it('mails what is due with nobody asking, and after a restart what came due meanwhile and later', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sender-schedule-'));
    const tag = randomBytes(4).toString('hex');
    const received = (address: string): number => sink.inbox.filter((m) => m.to.includes(address)).length;
    try {
      const first = await instance(dir, makeQueue());
      const stamp = new Date().toISOString();
      const orgId = `org_sched${tag}`;
      await first.store.orgs.create({ id: orgId, name: 'Schedule Shop', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
      const [a] = (await first.store.invitations.create(orgId, [draft(orgId, `a-${tag}@example.com`, Date.now() - 1000)], { max: 100 }))!;
      await vi.waitFor(async () => expect((await first.store.invitations.get(a!.invitation.id))?.state).toBe('sent'), { timeout: 20_000, interval: 50 });
      await first.stop();

      // While nothing runs: one comes due now, one a little later.
      const down = await EmbeddedStore.open(dir);
      const made = (await down.invitations.create(orgId, [draft(orgId, `b-${tag}@example.com`, Date.now() - 500), draft(orgId, `c-${tag}@example.com`, Date.now() + 1500)], { max: 100 }))!;
      await down.close();
      expect(received(`b-${tag}@example.com`)).toBe(0);

      const second = await instance(dir, makeQueue());
      try {
        await vi.waitFor(
          async () => {
            for (const m of made) expect((await second.store.invitations.get(m.invitation.id))?.state).toBe('sent');
          },
          { timeout: 20_000, interval: 50 },
        );
      } finally {
        await second.stop();
      }
      expect([received(`a-${tag}@example.com`), received(`b-${tag}@example.com`), received(`c-${tag}@example.com`)]).toEqual([1, 1, 1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
