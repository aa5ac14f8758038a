/**
 * The sender's crash and concurrency semantics (CONTRACT §14: "a mail is
 * `sent` only once the relay accepted it; a crash in between may send that one
 * mail twice, never more"), on the embedded store and on FerretDB, against a
 * local SMTP relay (smtp-server) whose received mails are counted:
 * - a sender in a child process is killed (SIGKILL) right after the relay
 *   accepted a mail and before that mail was written `sent`, while the relay
 *   still holds the next mails unanswered; a new process then sends what is
 *   left: every invitation ends `sent`, each address got exactly one mail but
 *   the one the crash caught, which got two. Writing `sent` before the relay
 *   answered would lose the held mails (the restarted sender would skip
 *   them); sending without a claim would send them twice in the next test.
 * - two senders on one store at once (two instances) send each invitation
 *   once: the claim.
 * - one organization's backlog does not hold another's mail: its due
 *   invitation is in the first batch, not after the 100 others; nor its
 *   reminder: each pass takes invitations and reminders together.
 * - the last moment (the door's `ready()`): a cancellation, an unsubscribe or
 *   an erasure while the mail waits for its slot sends nothing; a claim that ran out
 *   while the mail waited, taken by a second run, gives the relay one mail.
 * - a run bounded in time (the admin route's) answers at its deadline even
 *   inside a batch at a slow rate, letting go of what it did not send.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.ts';
import { MailDoor } from '../mail/door.ts';
import { InProcessSlots, type MailSlots } from '../mail/slots.ts';
import { startSmtpSink, type SmtpSink } from '../mail/test-sink.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import type { InvitationDraft } from '../store/invitation-types.ts';
import type { Store } from '../store/types.ts';
import { describeOn, mongoTargets, openMongoStore } from '../test/mongo-suites.ts';
import { LEASE_MS, MAX_RETRY_MS, NO_ANSWER_TWICE, InvitationSender } from './sender.ts';
import { InvitationLinks } from './links.ts';
import { InvitationsService } from './service.ts';
import type { SenderChildConfig } from './test-sender-child.ts';

const CHILD = join(import.meta.dirname, 'test-sender-child.ts');
const PUBLIC_URL = 'https://reviews.example';
const secretsKey = randomBytes(32);
let sink: SmtpSink;
let seq = 0;

beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(async () => sink?.close());

interface Target {
  /** A store on the target (the embedded store's directory, or a database of its own). */
  open(): Promise<Store>;
  /** What the child process opens. */
  spec: SenderChildConfig['store'];
  cleanup(): Promise<void>;
}

async function org(store: Store, name: string): Promise<string> {
  const id = `org_${String(++seq).padStart(4, '0')}${randomBytes(8).toString('hex')}`;
  const stamp = new Date().toISOString();
  await store.orgs.create({ id, name, plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
  return id;
}

function drafts(orgId: string, emails: string[], sendAt: string): InvitationDraft[] {
  const stamp = new Date(Date.parse(sendAt) - 60_000).toISOString();
  return emails.map((email) => ({
    id: `inv_${String(++seq).padStart(20, '0')}`, orgId, email, emailKey: `k-${email}`, name: null, productId: null, orderRef: null, locale: null,
    state: 'scheduled', reason: null, lastError: null, createdAt: stamp, sendAt, sentAt: null, remindedAt: null, reviewedAt: null, submissionId: null, updatedAt: stamp,
  }));
}

function child(config: SenderChildConfig): { proc: ChildProcess; stdout: () => string; exited: Promise<number | null> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD], { env: { ...process.env, SENDER_CHILD: JSON.stringify(config) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  void exited.then((code) => {
    if (code !== 0 && code !== null && err) process.stderr.write(`sender child: ${err}\n`);
  });
  return { proc, stdout: () => out, exited };
}

const received = (address: string): number => sink.inbox.filter((m) => m.to.includes(address)).length;

/** Sending slots that grant none (the mail waits in the door, as behind a slow rate or with Redis away) until opened. */
function gated(): { slots: MailSlots; open(): void } {
  const real = new InProcessSlots({ ratePerMinute: 1_000_000 });
  let open = false;
  return { slots: { take: async (o, now) => (open ? real.take(o, now) : 20), leave: (o) => real.leave(o) }, open: () => void (open = true) };
}

function senderOn(store: Store, door: MailDoor, options: { leaseMs?: number; ratePerMinute?: number; now?: () => Date } = {}): InvitationSender {
  const links = new InvitationLinks(secretsKey);
  return new InvitationSender({ store, mail: door, link: (inv) => `${PUBLIC_URL}/r/i/${links.token(inv)}`, secretsKey, publicUrl: PUBLIC_URL, logger: createLogger('silent'), ratePerMinute: 1_000_000, ...options });
}

/** Invitations mailed four days before `at` whose reminder is due since a minute. */
async function mailedWithReminderDue(store: Store, orgId: string, emails: string[], at: Date): Promise<string[]> {
  const sentAt = new Date(at.getTime() - 4 * 86_400_000).toISOString();
  const made = drafts(orgId, emails, sentAt);
  await store.invitations.create(orgId, made, { max: 1000 });
  for (const d of made) {
    const inv = (await store.invitations.get(d.id))!;
    const next = await store.invitations.update({ ...inv, state: 'sent', sentAt, sendAt: sentAt, remindAt: new Date(at.getTime() - 60_000).toISOString(), updatedAt: new Date(Date.parse(inv.updatedAt) + 1).toISOString() }, inv);
    expect(next).not.toBeNull();
  }
  return made.map((d) => d.id);
}

function suite(target: () => Promise<Target>): void {
  it('a sender killed between the relay accepting a mail and writing it sent: after a restart every invitation is mailed once, but that one twice', async () => {
    const tg = await target();
    try {
      const now = Date.now();
      const sendAt = new Date(now - 60_000).toISOString();
      const tag = randomBytes(4).toString('hex');
      const emails = Array.from({ length: 6 }, (_, i) => `crash${i}-${tag}@example.com`);
      let store = await tg.open();
      const orgId = await org(store, 'Crash Shop');
      await store.invitations.create(orgId, drafts(orgId, emails, sendAt), { max: 100 });
      if (tg.spec.kind === 'embedded') await store.close();

      // The relay accepts the first mail and holds every later one unanswered (their DATA is in, no 250 yet).
      let answered = 0;
      sink.answerData = () => (answered++ === 0 ? Promise.resolve() : new Promise<never>(() => undefined));
      const config: SenderChildConfig = { store: tg.spec, smtpUrl: sink.url, at: new Date(now).toISOString(), secretsKeyHex: secretsKey.toString('hex'), publicUrl: PUBLIC_URL, hangAfterAccepted: 1 };
      const first = child(config);
      await vi.waitFor(
        () => {
          expect(first.stdout()).toMatch(/^accepted /);
          expect(sink.held.length).toBeGreaterThanOrEqual(1);
        },
        { timeout: 30_000, interval: 50 },
      );
      const caught = /^accepted (\S+)/.exec(first.stdout())![1]!;
      first.proc.kill('SIGKILL');
      await first.exited;
      sink.answerData = null;
      sink.held.length = 0;
      expect(received(caught)).toBe(1);

      // Restarted once the claims ran out: everything left is sent.
      const second = child({ ...config, at: new Date(now + LEASE_MS + 60_000).toISOString(), clock: new Date(now + LEASE_MS + 60_000).toISOString(), hangAfterAccepted: 0 });
      expect(await second.exited).toBe(0);
      expect(JSON.parse(second.stdout().trim())).toMatchObject({ sent: emails.length, failed: 0 });

      store = tg.spec.kind === 'embedded' ? await tg.open() : store;
      const page = await store.invitations.list(orgId, { limit: 100, offset: 0 });
      expect(page.data.map((i) => i.state)).toEqual(emails.map(() => 'sent'));
      expect(Object.fromEntries(emails.map((e) => [e, received(e)]))).toEqual(Object.fromEntries(emails.map((e) => [e, e === caught ? 2 : 1])));
      await store.close();
    } finally {
      sink.answerData = null;
      await tg.cleanup();
    }
  });

  it('two senders on one store at once (two instances) mail each invitation once', async () => {
    const tg = await target();
    const stores = [await tg.open(), tg.spec.kind === 'mongo' ? await tg.open() : null];
    const doors: MailDoor[] = [];
    try {
      const at = new Date();
      const tag = randomBytes(4).toString('hex');
      const emails: string[] = [];
      for (const name of ['Twin A', 'Twin B', 'Twin C']) {
        const orgId = await org(stores[0]!, name);
        const mine = Array.from({ length: 15 }, (_, i) => `twin${i}-${name.slice(-1)}-${tag}@example.com`);
        emails.push(...mine);
        await stores[0]!.invitations.create(orgId, drafts(orgId, mine, new Date(at.getTime() - 1000).toISOString()), { max: 100 });
      }
      const links = new InvitationLinks(secretsKey);
      const senders = [0, 1].map((i) => {
        const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }) });
        doors.push(door);
        return new InvitationSender({ store: stores[i] ?? stores[0]!, mail: door, link: (inv) => `${PUBLIC_URL}/r/i/${links.token(inv)}`, secretsKey, publicUrl: PUBLIC_URL, logger: createLogger('silent'), ratePerMinute: 1_000_000, perOrg: 4 });
      });
      const results = await Promise.all(senders.map((s) => s.runDue(at)));
      expect(results[0]!.sent + results[1]!.sent).toBe(emails.length);
      expect(emails.filter((e) => received(e) !== 1)).toEqual([]);
    } finally {
      await Promise.all(doors.map((d) => d.close()));
      for (const s of stores) await s?.close();
      await tg.cleanup();
    }
  });

  it("one organization's backlog does not hold another's mail: it is in the first batch", async () => {
    const tg = await target();
    const store = await tg.open();
    const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }), concurrency: 1 });
    try {
      const at = new Date();
      const tag = randomBytes(4).toString('hex');
      const big = await org(store, 'Big Shop');
      const small = await org(store, 'Small Shop');
      const backlog = Array.from({ length: 100 }, (_, i) => `big${i}-${tag}@example.com`);
      // The backlog was due first: soonest first alone would mail the small shop's last.
      await store.invitations.create(big, drafts(big, backlog, new Date(at.getTime() - 120_000).toISOString()), { max: 1000 });
      const lone = `small-${tag}@example.com`;
      await store.invitations.create(small, drafts(small, [lone], new Date(at.getTime() - 1000).toISOString()), { max: 1000 });
      const before = sink.inbox.length;
      const links = new InvitationLinks(secretsKey);
      const sender = new InvitationSender({ store, mail: door, link: (inv) => `${PUBLIC_URL}/r/i/${links.token(inv)}`, secretsKey, publicUrl: PUBLIC_URL, logger: createLogger('silent'), ratePerMinute: 1_000_000 });
      expect(await sender.runDue(at)).toMatchObject({ sent: 101 });
      const order = sink.inbox.slice(before).map((m) => m.to[0]);
      // In the first batch (25 of the big shop's at most, then its turn), not behind all 100.
      expect(order.indexOf(lone)).toBeGreaterThanOrEqual(0);
      expect(order.indexOf(lone)).toBeLessThan(30);
    } finally {
      await door.close();
      await store.close();
      await tg.cleanup();
    }
  });

  it('a cancellation while the mail waits for its slot: no mail, the invitation stays cancelled', async () => {
    const tg = await target();
    const store = await tg.open();
    const gate = gated();
    const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: gate.slots });
    try {
      const at = new Date();
      const orgId = await org(store, 'Cancel Shop');
      const email = `cancel-${randomBytes(4).toString('hex')}@example.com`;
      const [draft] = drafts(orgId, [email], new Date(at.getTime() - 1000).toISOString());
      await store.invitations.create(orgId, [draft!], { max: 10 });
      const running = senderOn(store, door).runDue(at);
      // Claimed and handed to the door: it waits there for its slot.
      await vi.waitFor(() => expect(door.queued(orgId)).toBe(1), { timeout: 10_000, interval: 20 });
      expect((await store.invitations.get(draft!.id))!.leaseUntil).not.toBeNull();
      // The Owner cancels (the service's own cancel: it needs no collect service).
      const service = new InvitationsService({ store, secretsKey, publicUrl: PUBLIC_URL, logger: createLogger('silent'), collect: null as never, mails: true });
      expect(await service.cancel(orgId, draft!.id)).toEqual({ id: draft!.id, state: 'cancelled' });
      gate.open();
      expect(await running).toMatchObject({ sent: 0, failed: 0 });
      expect(received(email)).toBe(0);
      expect((await store.invitations.get(draft!.id))!.state).toBe('cancelled');
    } finally {
      await door.close();
      await store.close();
      await tg.cleanup();
    }
  });

  it('an erasure while the claimed mail waits for its slot: no mail, and nothing of the invitation comes back', async () => {
    const tg = await target();
    const store = await tg.open();
    const gate = gated();
    const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: gate.slots });
    try {
      const at = new Date();
      const orgId = await org(store, 'Erase Shop');
      const email = `erase-${randomBytes(4).toString('hex')}@example.com`;
      const [draft] = drafts(orgId, [email], new Date(at.getTime() - 1000).toISOString());
      await store.invitations.create(orgId, [draft!], { max: 10 });
      const running = senderOn(store, door).runDue(at);
      // Claimed and handed to the door: it waits there for its slot.
      await vi.waitFor(() => expect(door.queued(orgId)).toBe(1), { timeout: 10_000, interval: 20 });
      expect((await store.invitations.get(draft!.id))!.leaseUntil).not.toBeNull();
      // The operator's erasure (invitations erase): the store's, by the address's key.
      expect(await store.invitations.erase(orgId, draft!.emailKey)).toBe(1);
      gate.open();
      expect(await running).toMatchObject({ sent: 0, failed: 0 });
      expect(received(email)).toBe(0);
      expect(await store.invitations.get(draft!.id)).toBeNull();
      expect(await store.invitations.count(orgId)).toBe(0);
    } finally {
      await door.close();
      await store.close();
      await tg.cleanup();
    }
  });

  it('an unsubscribe while a reminder waits for its slot: no reminder', async () => {
    const tg = await target();
    const store = await tg.open();
    const gate = gated();
    const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: gate.slots });
    try {
      const at = new Date();
      const orgId = await org(store, 'Unsubscribe Shop');
      const email = `unsub-${randomBytes(4).toString('hex')}@example.com`;
      const [id] = await mailedWithReminderDue(store, orgId, [email], at);
      const running = senderOn(store, door).runDue(at);
      await vi.waitFor(() => expect(door.queued(orgId)).toBe(1), { timeout: 10_000, interval: 20 });
      // What InvitationsService.unsubscribe writes: the address's record, then its reminder dropped (stopMails).
      const held = (await store.invitations.get(id!))!;
      await store.invitations.unsubscribe(orgId, held.emailKey, new Date().toISOString());
      expect(await store.invitations.update({ ...held, remindAt: null, updatedAt: new Date(Date.parse(held.updatedAt) + 1).toISOString() }, held)).not.toBeNull();
      gate.open();
      expect(await running).toMatchObject({ reminded: 0, failed: 0 });
      expect(received(email)).toBe(0);
      expect(await store.invitations.get(id!)).toMatchObject({ state: 'sent', remindAt: null });
    } finally {
      await door.close();
      await store.close();
      await tg.cleanup();
    }
  });

  it('a claim that runs out while its mail waits for a slot, then taken by a second run: the relay gets the mail once', async () => {
    const tg = await target();
    const store = await tg.open();
    const gate = gated();
    const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: gate.slots });
    try {
      const orgId = await org(store, 'Lease Shop');
      const email = `lease-${randomBytes(4).toString('hex')}@example.com`;
      const [draft] = drafts(orgId, [email], new Date(Date.now() - 1000).toISOString());
      await store.invitations.create(orgId, [draft!], { max: 10 });
      // A short claim stands in for the ten minutes an outage must outlast.
      const first = senderOn(store, door, { leaseMs: 300 }).runDue(new Date());
      await vi.waitFor(() => expect(door.queued(orgId)).toBe(1), { timeout: 10_000, interval: 20 });
      const claimed = (await store.invitations.get(draft!.id))!;
      await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(claimed.leaseUntil!)), { timeout: 10_000, interval: 50 });
      // A second run (BullMQ's rerun of a stalled job, or run-due) finds the claim over and takes the invitation.
      const second = senderOn(store, door, { leaseMs: 60_000 }).runDue(new Date());
      await vi.waitFor(() => expect(door.queued(orgId)).toBe(2), { timeout: 10_000, interval: 20 });
      gate.open();
      const results = await Promise.all([first, second]);
      expect(results[0].sent + results[1].sent).toBe(1);
      expect(received(email)).toBe(1);
      expect((await store.invitations.get(draft!.id))!).toMatchObject({ state: 'sent', leaseUntil: null });
    } finally {
      await door.close();
      await store.close();
      await tg.cleanup();
    }
  });

  it('a relay that answers the end of the mail only after the door stopped waiting: the mail is sent once more at most, then failed with a fixed reason', async () => {
    const tg = await target();
    const store = await tg.open();
    // The door waits 1 s for the answer to the end of DATA (10 minutes in production); the relay answers after 1.5 s and keeps the mail.
    const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }), socketTimeoutMs: 1000 });
    sink.answerData = () => new Promise<void>((resolve) => setTimeout(resolve, 1500));
    try {
      const orgId = await org(store, 'Slow Relay Shop');
      const email = `slow-${randomBytes(4).toString('hex')}@example.com`;
      const [draft] = drafts(orgId, [email], new Date(Date.now() - 1000).toISOString());
      await store.invitations.create(orgId, [draft!], { max: 10 });
      // Later runs of the job (each past the wait before a retry: the real clock moved on).
      const run = (hoursLater: number) => senderOn(store, door, { now: () => new Date(Date.now() + hoursLater * MAX_RETRY_MS) }).runDue(new Date(Date.now() + hoursLater * MAX_RETRY_MS));
      expect(await run(0)).toMatchObject({ sent: 0, failed: 0 });
      await vi.waitFor(() => expect(received(email)).toBe(1), { timeout: 10_000, interval: 50 });
      expect(await store.invitations.get(draft!.id)).toMatchObject({ state: 'scheduled', lastError: null });
      expect((await store.invitations.get(draft!.id))!.unknownAt).not.toBeNull();
      // Once more (the one possible duplicate), then failed: no relay text, nothing sent again.
      expect(await run(1.1)).toMatchObject({ sent: 0, failed: 1 });
      await vi.waitFor(() => expect(received(email)).toBe(2), { timeout: 10_000, interval: 50 });
      expect(await store.invitations.get(draft!.id)).toMatchObject({ state: 'failed', lastError: NO_ANSWER_TWICE, leaseUntil: null });
      expect(await run(3)).toMatchObject({ sent: 0, failed: 0 });
      expect(received(email)).toBe(2);
    } finally {
      sink.answerData = null;
      await door.close();
      await store.close();
      await tg.cleanup();
    }
  });

  it('a relay slow at every step (each silence under the socket timeout, their sum past the claim): the door cuts the mail off before the claim runs out, and a second instance does not send it again', async () => {
    const tg = await target();
    const store = await tg.open();
    // Scaled down, with wide margins for a loaded machine: claim 3 s (30 minutes), the door's deadline 2 s
    // (20 minutes), each silence below the socket timeout of 4 s (10 minutes): 0.3 s, 0.3 s, then 3.5 s for the end
    // of DATA, so the mail is handed over long before the deadline and the silences add up past the claim.
    const slowDoor = () => new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }), socketTimeoutMs: 4000, deadlineMs: 2000 });
    const one = slowDoor();
    const two = slowDoor();
    sink.answerMailFrom = 300;
    sink.answerRcptTo = 300;
    sink.answerData = () => new Promise<void>((resolve) => setTimeout(resolve, 3500));
    try {
      const orgId = await org(store, 'Slow Steps Shop');
      const email = `steps-${randomBytes(4).toString('hex')}@example.com`;
      const [draft] = drafts(orgId, [email], new Date(Date.now() - 1000).toISOString());
      await store.invitations.create(orgId, [draft!], { max: 10 });
      const first = senderOn(store, one, { leaseMs: 3000 }).runDue(new Date());
      // The claim has run out (3 s): another instance's run of the job.
      await new Promise((resolve) => setTimeout(resolve, 3600));
      expect(await senderOn(store, two, { leaseMs: 3000 }).runDue(new Date())).toMatchObject({ sent: 0 });
      expect(await first).toMatchObject({ sent: 0, failed: 0 });
      // The relay kept the one mail handed over (an unknown outcome, recorded), and no second one came.
      await vi.waitFor(() => expect(received(email)).toBe(1), { timeout: 10_000, interval: 50 });
      expect(await store.invitations.get(draft!.id)).toMatchObject({ state: 'scheduled', lastError: null, unknownAt: expect.any(String) });
    } finally {
      sink.answerMailFrom = null;
      sink.answerRcptTo = null;
      sink.answerData = null;
      await one.close();
      await two.close();
      await store.close();
      await tg.cleanup();
    }
  });

  it('a run --at a later time leaves alone what the regular run holds: the mail with the relay is not sent again', async () => {
    const tg = await target();
    const store = await tg.open();
    const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }) });
    const other = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }) });
    let accept!: () => void;
    try {
      const orgId = await org(store, 'At Shop');
      const email = `at-${randomBytes(4).toString('hex')}@example.com`;
      const [draft] = drafts(orgId, [email], new Date(Date.now() - 1000).toISOString());
      await store.invitations.create(orgId, [draft!], { max: 10 });
      // The regular run's mail is with the relay, whose answer to DATA is held.
      sink.answerData = () => new Promise<void>((resolve) => (accept = resolve));
      const job = senderOn(store, door).runDue(new Date());
      await vi.waitFor(() => expect(sink.held).toHaveLength(1), { timeout: 10_000, interval: 20 });
      sink.answerData = null;
      // The operator's `run-due --at` a week ahead, meanwhile.
      expect(await senderOn(store, other).runDue(new Date(Date.now() + 7 * 86_400_000))).toMatchObject({ sent: 0 });
      accept();
      expect(await job).toMatchObject({ sent: 1 });
      expect(received(email)).toBe(1);
      expect(await store.invitations.get(draft!.id)).toMatchObject({ state: 'sent', leaseUntil: null });
    } finally {
      sink.answerData = null;
      sink.held.length = 0;
      await door.close();
      await other.close();
      await store.close();
      await tg.cleanup();
    }
  });

  it("a refusal of the relay's own (MAIL FROM: a quota) fails nothing: every invitation stays scheduled, no relay text, and goes once the relay takes mail", async () => {
    const tg = await target();
    const store = await tg.open();
    const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }) });
    try {
      const tag = randomBytes(4).toString('hex');
      const one = await org(store, 'Quota One');
      const two = await org(store, 'Quota Two');
      const sendAt = new Date(Date.now() - 1000).toISOString();
      const made = [...drafts(one, [`q1-${tag}@example.com`, `q2-${tag}@example.com`], sendAt), ...drafts(two, [`q3-${tag}@example.com`], sendAt)];
      await store.invitations.create(one, made.slice(0, 2), { max: 10 });
      await store.invitations.create(two, made.slice(2), { max: 10 });
      sink.answerMailFrom = '550 5.4.5 Daily user sending limit exceeded. relay-7.mx.operator.internal';
      expect(await senderOn(store, door).runDue(new Date())).toMatchObject({ sent: 0, failed: 0 });
      for (const d of made) expect(await store.invitations.get(d.id)).toMatchObject({ state: 'scheduled', lastError: null, leaseUntil: expect.any(String) });
      // The quota is back: the next run after the wait sends each once.
      sink.answerMailFrom = null;
      const later = new Date(Date.now() + 2 * MAX_RETRY_MS);
      expect(await senderOn(store, door, { now: () => later }).runDue(later)).toMatchObject({ sent: 3, failed: 0 });
      expect(made.map((d) => received(d.email))).toEqual([1, 1, 1]);
    } finally {
      sink.answerMailFrom = null;
      await door.close();
      await store.close();
      await tg.cleanup();
    }
  });

  it("the relay's refusal at RCPT TO (554 5.7.1 relay access denied) or at the end of DATA (SES's bare 554) fails nothing: both organizations' invitations stay scheduled, no lastError", async () => {
    const tg = await target();
    const store = await tg.open();
    const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }) });
    try {
      const tag = randomBytes(4).toString('hex');
      const one = await org(store, 'Relay One');
      const two = await org(store, 'Relay Two');
      const sendAt = new Date(Date.now() - 1000).toISOString();
      const made = [...drafts(one, [`r1-${tag}@example.com`, `r2-${tag}@example.com`], sendAt), ...drafts(two, [`r3-${tag}@example.com`], sendAt)];
      await store.invitations.create(one, made.slice(0, 2), { max: 10 });
      await store.invitations.create(two, made.slice(2), { max: 10 });
      for (const d of made) sink.refuse.set(d.email, `554 5.7.1 <${d.email}>: Relay access denied`);
      expect(await senderOn(store, door).runDue(new Date())).toMatchObject({ sent: 0, failed: 0 });
      for (const d of made) expect(await store.invitations.get(d.id)).toMatchObject({ state: 'scheduled', lastError: null });
      // The relay takes the recipients now, but the account's sender is not verified: refused at the end of DATA.
      sink.refuse.clear();
      sink.answerData = async () => '554 Message rejected: Email address is not verified. The following identities failed the check in region EU-WEST-1: no-reply@shop.example (account 123456789012)';
      const later = new Date(Date.now() + 2 * MAX_RETRY_MS);
      expect(await senderOn(store, door, { now: () => later }).runDue(later)).toMatchObject({ sent: 0, failed: 0 });
      for (const d of made) expect(await store.invitations.get(d.id)).toMatchObject({ state: 'scheduled', lastError: null });
      expect(made.map((d) => received(d.email))).toEqual([0, 0, 0]);
    } finally {
      sink.refuse.clear();
      sink.answerData = null;
      await door.close();
      await store.close();
      await tg.cleanup();
    }
  });

  it("at a slow rate (a batch of two) one organization's backlog does not hold another's mail: it is in the first batch", async () => {
    const tg = await target();
    const store = await tg.open();
    const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }), concurrency: 1 });
    try {
      const at = new Date();
      const tag = randomBytes(4).toString('hex');
      const big = await org(store, 'Big Slow');
      const small = await org(store, 'Small Slow');
      const backlog = Array.from({ length: 10 }, (_, i) => `slowbig${i}-${tag}@example.com`);
      await store.invitations.create(big, drafts(big, backlog, new Date(at.getTime() - 120_000).toISOString()), { max: 100 });
      const lone = `slowsmall-${tag}@example.com`;
      await store.invitations.create(small, drafts(small, [lone], new Date(at.getTime() - 1000).toISOString()), { max: 10 });
      const before = sink.inbox.length;
      // SMTP_RATE_PER_MINUTE 1 sizes the batches (two mails); the slots here are fast.
      expect(await senderOn(store, door, { ratePerMinute: 1 }).runDue(at)).toMatchObject({ sent: 11 });
      const order = sink.inbox.slice(before).map((m) => m.to[0]);
      expect(order.indexOf(lone)).toBeGreaterThanOrEqual(0);
      expect(order.indexOf(lone)).toBeLessThan(2);
    } finally {
      await door.close();
      await store.close();
      await tg.cleanup();
    }
  });

  it('a review published, or the reminder setting turned off, while the reminder waits for its slot: no reminder', async () => {
    const tg = await target();
    const store = await tg.open();
    const gate = gated();
    const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: gate.slots });
    try {
      const at = new Date();
      const tag = randomBytes(4).toString('hex');
      const reviewed = await org(store, 'Reviewed Meanwhile');
      const turnedOff = await org(store, 'Setting Off Meanwhile');
      const [rid] = await mailedWithReminderDue(store, reviewed, [`reviewed-${tag}@example.com`], at);
      const [oid] = await mailedWithReminderDue(store, turnedOff, [`off-${tag}@example.com`], at);
      const running = senderOn(store, door).runDue(at);
      await vi.waitFor(() => expect(door.queued(reviewed) + door.queued(turnedOff)).toBe(2), { timeout: 10_000, interval: 20 });
      // Ana's review, written on the review page (it does not touch the invitation), is published.
      const inv = (await store.invitations.get(rid!))!;
      const stamp = new Date().toISOString();
      await store.collect.create({
        id: `sub_${tag}`, orgId: reviewed, collectId: `col_${tag}`, productId: null, rating: 5, content: 'Lovely.', authorName: 'Ana', email: inv.email, emailKey: inv.emailKey, language: 'en',
        state: 'published', hold: null, confirmed: true, rejectReason: null, confirmExpiresAt: null, reviewExternalId: `sub_${tag}`, mailSentAt: null, submittedAt: stamp, decidedAt: stamp, updatedAt: stamp,
      });
      // The other shop turns its reminders off.
      await store.collect.putSettings({ orgId: turnedOff, collectId: `col_off${tag}`, shareUrl: null, moderation: 'publish', updatedAt: stamp, invitations: { delayDays: 7, reminder: false, language: null, senderName: null } });
      gate.open();
      expect(await running).toMatchObject({ reminded: 0, failed: 0 });
      expect(received(inv.email)).toBe(0);
      expect(received(`off-${tag}@example.com`)).toBe(0);
      expect(await store.invitations.get(rid!)).toMatchObject({ state: 'sent', remindAt: null, leaseUntil: null });
      expect(await store.invitations.get(oid!)).toMatchObject({ state: 'sent', remindAt: null, leaseUntil: null });
    } finally {
      await door.close();
      await store.close();
      await tg.cleanup();
    }
  });

  it("one organization's backlog of due invitations does not hold another's reminder: it goes in the first pass", async () => {
    const tg = await target();
    const store = await tg.open();
    const door = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }), concurrency: 1 });
    try {
      const at = new Date();
      const tag = randomBytes(4).toString('hex');
      const small = await org(store, 'Small Reminding');
      const reminded = `remind-${tag}@example.com`;
      await mailedWithReminderDue(store, small, [reminded], at);
      const big = await org(store, 'Big Inviting');
      // More than a batch holds of one organization (25), due before the reminder.
      const backlog = Array.from({ length: 60 }, (_, i) => `backlog${i}-${tag}@example.com`);
      await store.invitations.create(big, drafts(big, backlog, new Date(at.getTime() - 120_000).toISOString()), { max: 1000 });
      const before = sink.inbox.length;
      expect(await senderOn(store, door).runDue(at)).toMatchObject({ sent: 60, reminded: 1 });
      const order = sink.inbox.slice(before).map((m) => m.to[0]);
      // With the first batch of invitations (25 of the big shop's), not behind all 60.
      expect(order.indexOf(reminded)).toBeGreaterThanOrEqual(0);
      expect(order.indexOf(reminded)).toBeLessThan(26);
    } finally {
      await door.close();
      await store.close();
      await tg.cleanup();
    }
  });
}

describeOn({ name: 'embedded', url: 'embedded', missing: '' }, 'invitation sender: crash and concurrency', () =>
  suite(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sender-crash-'));
    return { open: () => EmbeddedStore.open(dir), spec: { kind: 'embedded', dir }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }),
);

for (const mongo of mongoTargets()) {
  describeOn(mongo, 'invitation sender: crash and concurrency', () =>
    suite(async () => {
      const first = await openMongoStore(mongo, 'sender');
      const db = (first as unknown as { db: { databaseName: string } }).db.databaseName;
      const { MongoStore } = await import('../store/mongo/store.ts');
      let used = false;
      return {
        open: async () => {
          if (!used) {
            used = true;
            return first;
          }
          return MongoStore.connect(mongo.url, db);
        },
        spec: { kind: 'mongo', url: mongo.url, db },
        cleanup: async () => {
          const dropper = await MongoStore.connect(mongo.url, db);
          await dropper.dropDatabase();
          await dropper.close();
        },
      };
    }),
  );
}

describeOn({ name: 'embedded', url: 'embedded', missing: '' }, 'invitation sender: bounded runs', () => {
  it('a run bounded in time answers at its deadline, inside a batch, at a slow rate: more is left, the mails not sent let go; asked again, it sends the rest, each once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sender-bounded-'));
    const store = await EmbeddedStore.open(dir);
    // 60 a minute: one slot a second, a batch of 100 would take 100 seconds (500 mails, 500 seconds).
    const slow = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 60 }) });
    const fast = new MailDoor({ smtpUrl: sink.url, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }) });
    try {
      const at = new Date();
      const orgId = await org(store, 'Bounded Shop');
      const tag = randomBytes(4).toString('hex');
      const emails = Array.from({ length: 20 }, (_, i) => `bounded${i}-${tag}@example.com`);
      const made = drafts(orgId, emails, new Date(at.getTime() - 1000).toISOString());
      await store.invitations.create(orgId, made, { max: 1000 });
      const bounded = await senderOn(store, slow, { ratePerMinute: 60 }).runDueFor(at, 1500);
      expect(bounded.more).toBe(true);
      expect(bounded.sent).toBeLessThan(emails.length);
      // The ones withdrawn were let go: the next run takes them at once.
      const left = (await Promise.all(made.map((d) => store.invitations.get(d.id)))).filter((i) => i!.state === 'scheduled');
      expect(left).toHaveLength(emails.length - bounded.sent);
      expect(left.filter((i) => i!.leaseUntil !== null)).toEqual([]);
      expect(await senderOn(store, fast).runDueFor(at, 60_000)).toEqual({ sent: emails.length - bounded.sent, reminded: 0, failed: 0, expired: 0, more: false });
      await vi.waitFor(() => expect(emails.filter((e) => received(e) !== 1)).toEqual([]), { timeout: 10_000, interval: 50 });
    } finally {
      await slow.close();
      await fast.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
