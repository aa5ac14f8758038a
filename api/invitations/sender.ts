/**
 * The invitation sender (CONTRACT §14): `runDue(at)` mails what is due at
 * `at`, reminds, and expires (`at` decides only what is due: the mails
 * leave now, and `sentAt`, `remindedAt`, the reminder's time and every claim
 * come from the real clock, `now`), in bounded, fair batches; `start(queue)` runs it
 * again and again on the keyed job door (BullMQ with REDIS_URL, in process
 * otherwise). The schedule is the store's (`sendAt`, `remindAt`, `sentAt`), so
 * it survives restarts: whatever came due while no instance ran is sent by
 * the first run after.
 *
 * One run:
 * 1. **Expiry**: `sent` and `reminded` invitations mailed 30 days (LINK_DAYS)
 *    before `at` without a review become `expired` (no mail).
 * 2. **Invitations**: `scheduled` ones whose `sendAt` came. Each is claimed
 *    first (a conditional update writing `leaseUntil`: no other run, here or
 *    in another instance, takes it while the claim lasts), then the address is
 *    checked again (an address that unsubscribed since the invitation was
 *    created is never mailed: the invitation becomes `skipped`, reason
 *    `unsubscribed`, as if it had been unsubscribed at creation), the mail is
 *    rendered (the invitation's locale, else the settings' language, else the
 *    organization's; the sender name setting, else the organization's name;
 *    the product's name and picture) and handed to the mail door, and only
 *    once the relay accepted it is the invitation written `sent` (conditional
 *    on the claim). A relay's refusal of the recipient or the message (a 5xx to
 *    RCPT TO or DATA that the door's `inviteesFault` says is the invitee's:
 *    5.1.x, 5.2.x, 5.6.x, a bare 550; or a bad address) makes it `failed` with
 *    the relay's answer in `lastError`; anything else (away, 4xx, a 5xx to AUTH
 *    or MAIL FROM: a quota, bad credentials; a 5.7.x relay access denied or an
 *    unverified sender at RCPT TO or DATA) is the relay's, not the invitee's: it
 *    stays `scheduled`, claimed for RETRY_MS and more the longer it lasts (it
 *    is tried again then), for RETRY_FOR_MS after it was due, then `failed`
 *    with a fixed reason. No answer after the relay had the whole mail (the
 *    door waited 10 minutes): it may have been delivered; tried once more,
 *    recorded in `unknownAt`, and the second time `failed` (NO_ANSWER_TWICE).
 * 3. **Reminders**: `sent` invitations whose `remindAt` came (set when the
 *    mail was sent with the reminder setting on: REMINDER_DAYS later), with the
 *    same claim: not when the setting was turned off since or the address
 *    unsubscribed (then no reminder, the invitation stays `sent`), nor when the
 *    address's review of that subject already stands (written elsewhere), and never
 *    after a review or a cancellation (those states are not `sent`). Accepted:
 *    `reminded`. A refused reminder leaves the invitation `sent`, without one.
 * Each pass takes one batch of invitations and one of reminders together: one
 * organization's backlog of invitations never holds the others' reminders.
 *
 * The last moment: once the mail door granted the mail its slot, right before
 * the relay, it asks `ready()`: the address must not have unsubscribed (for a
 * reminder: the setting still on, no review of that subject by that address
 * published meanwhile), and a
 * conditional write renewing the claim must succeed (the invitation is still
 * the version claimed: not cancelled, not stopped by an unsubscribe, not
 * claimed by another run after this claim ran out while the mail waited).
 * Otherwise the mail is dropped unsent.
 *
 * Crash semantics: a mail is written `sent` only after the relay accepted
 * it. A crash between the two leaves the invitation claimed and `scheduled`;
 * once its claim ran out (LEASE_MS) a run takes it again and sends that one
 * mail a second time (as it does, once, after a relay that never answered the
 * end of the mail). Claims are written and compared with the real clock
 * (`now`), never `at`: a run `--at` a later time never takes a live claim. A claim is written before the mail leaves, so no two
 * runs send one invitation at once, and a run never sends without holding
 * the claim: a mail is sent at most twice, and only the one(s) a crash caught
 * between the relay's answer and the write (sender-crash.test.ts).
 *
 * Fairness: a batch holds at most `perOrg` invitations of one organization
 * (PER_ORG, at most a quarter of the batch, at least 1, so a slow rate's small
 * batch still holds several organizations; the store leaves out the
 * organizations that have their share, so the others' come in the same
 * batch), and the mail door hands out
 * SMTP_RATE_PER_MINUTE's slots between organizations in turn: one
 * organization's 100,000 due invitations never hold another's first mail for
 * more than a few slots. A batch is sized to about two minutes of the rate,
 * well inside the claim's thirty minutes; should a claim run out all the same
 * while its mail waits (Redis away), the last-moment check drops the mail.
 * `runDueFor` (the admin route) checks its deadline before each pass and
 * withdraws the mails still waiting for a slot at the deadline.
 *
 * Nothing here reads a rating, a sentiment or an opinion: every invitee of
 * one organization, product and language gets the same mail.
 */
import type { Logger } from '../logger.ts';
import type { Accepted, OutgoingMail } from '../mail/door.ts';
import { MailDoorClosed, MailNotSent, withoutAddresses } from '../mail/door.ts';
import { invitationLanguage, renderInvitation, type InvitationMailKind } from '../mail/invitation.ts';
import { unsubscribePath } from '../mail/unsubscribe-routes.ts';
import { UnsubscribeTokens } from '../mail/unsubscribe-token.ts';
import type { KeyedHandler, KeyedQueue } from '../jobs/keyed-work.ts';
import { invitationSettings, REMINDER_DAYS, type InvitationSettings } from '../store/collect-types.ts';
import type { Invitation } from '../store/invitation-types.ts';
import type { Product } from '../store/product-types.ts';
import type { Organization, Store } from '../store/types.ts';
import { LINK_DAYS } from './service.ts';

const DAY_MS = 86_400_000;

/** A relay's answer as a log line may hold it: the invitee's address (and any other) left out (personal data never reaches a log). */
export { withoutAddresses };
/**
 * How long a claim holds an invitation: a sender that died lets it go after this. It outlasts the mail door's
 * deadline for a whole mail with the relay (MAIL_DEADLINE_MS, 20 minutes; each silence at most DATA_TIMEOUT_MS,
 * 10 minutes, RFC 5321 §4.5.3.2.6), so no other run takes an invitation whose mail the relay is still answering.
 */
export const LEASE_MS = 30 * 60_000;
/** A relay away, answering 4xx or refusing for a reason of its own: the invitation is tried again after this at first... */
export const RETRY_MS = 5 * 60_000;
/** ... and less often the longer it lasts (a tenth of the time since the mail was due), at most after this. */
export const MAX_RETRY_MS = 60 * 60_000;
/** ... for this long after the mail was due (the 30-day rule's window is over by then), then it is `failed` (RELAY_GAVE_UP). */
export const RETRY_FOR_MS = 30 * DAY_MS;
/** `lastError` of an invitation the relay never took in RETRY_FOR_MS (its own text is in the operator's log only). */
export const RELAY_GAVE_UP = 'the mail relay did not take the mail in 30 days';
/** `lastError` of an invitation whose mail twice reached the relay without an answer (it may have been delivered). */
export const NO_ANSWER_TWICE = 'the mail relay did not answer after taking the mail, twice; it may have been delivered';
/** Invitations (or reminders) of one organization in a batch at most. */
export const PER_ORG = 25;
/** A batch at most. */
export const MAX_BATCH = 100;
/** How often the job looks for due invitations (a minute). */
export const RUN_EVERY_MS = 60_000;
/** Mails one job run sends at most before it gives its slot back (and asks to run again). */
const MAILS_PER_JOB = 500;
/** The job's one key: one run at a time across every instance. */
export const RUN_DUE_KEY = 'invitations-run-due';

export interface RunDueResult {
  /** Invitations mailed (the relay accepted them): now `sent`. */
  sent: number;
  /** Reminders mailed: now `reminded`. */
  reminded: number;
  /** Mails the relay refused: the invitation `failed` (a refused reminder leaves its invitation `sent`). */
  failed: number;
  /** `sent`/`reminded` invitations without a review 30 days after the mail: now `expired`. */
  expired: number;
}

/** What the sender needs of the mail door (api/mail/door.ts). */
export interface MailSender {
  /** Resolves null when the mail was dropped unsent (its `ready` answered false, or its `signal` was aborted). */
  send(mail: OutgoingMail): Promise<Accepted | null>;
}

export interface InvitationSenderOptions {
  store: Store;
  mail: MailSender;
  /** The invitation's review link (InvitationsService.link). */
  link(invitation: Invitation): string | null;
  secretsKey: Buffer;
  publicUrl: string;
  logger: Logger;
  /** SMTP_RATE_PER_MINUTE: sizes the batches (about two minutes of mail each, at most MAX_BATCH). */
  ratePerMinute: number;
  perOrg?: number;
  leaseMs?: number;
  /** The real clock (claims, the stamps sentAt and remindedAt); `runDue(at)` only decides what is due. */
  now?: () => Date;
  /** Tests only: called after the relay accepted a mail, before it is written `sent` (the crash test stops here). */
  afterAccepted?: (invitation: Invitation) => Promise<void>;
}

type Outcome = 'sent' | 'reminded' | 'failed' | 'none' | 'withdrawn';

interface Context {
  org: Organization;
  settings: InvitationSettings;
}

export class InvitationSender {
  private readonly store: Store;
  private readonly tokens: UnsubscribeTokens;
  private readonly now: () => Date;
  private readonly batch: number;
  private readonly perOrg: number;
  private readonly leaseMs: number;
  private queue: KeyedQueue<Record<string, never>> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: InvitationSenderOptions) {
    this.store = options.store;
    this.tokens = new UnsubscribeTokens(options.secretsKey);
    this.now = options.now ?? (() => new Date());
    this.batch = Math.max(1, Math.min(MAX_BATCH, options.ratePerMinute * 2));
    // A share that leaves room for a few organizations in every batch, however small a slow rate makes it.
    this.perOrg = Math.max(1, Math.min(options.perOrg ?? PER_ORG, Math.floor(this.batch / 4)));
    this.leaseMs = options.leaseMs ?? LEASE_MS;
  }

  /** Everything due at `at` (the CLI's `run-due [--at]`): expiry, invitations, reminders, until none is left. */
  async runDue(at: Date): Promise<RunDueResult> {
    const { more: _more, ...total } = await this.runDueFor(at, Infinity);
    return total;
  }

  /**
   * The same for at most about `forMs` (then `more` says work is left, and the
   * caller asks again): the admin route answers within minutes whatever the
   * rate, and the CLI asks again until nothing is left.
   */
  async runDueFor(at: Date, forMs: number): Promise<RunDueResult & { more: boolean }> {
    const deadline = Date.now() + forMs;
    const total: RunDueResult = { sent: 0, reminded: 0, failed: 0, expired: 0 };
    // At the deadline, the mails still waiting for a slot are withdrawn (their claims let go): a batch at a slow
    // rate lasts minutes, the answer must not wait for it.
    const stop = new AbortController();
    const timer = Number.isFinite(forMs) ? setTimeout(() => stop.abort(), Math.max(0, forMs)) : null;
    try {
      for (let round = 0; ; round++) {
        const { result, more } = await this.run(at, MAILS_PER_JOB, { deadline, signal: stop.signal, first: round === 0 });
        total.sent += result.sent;
        total.reminded += result.reminded;
        total.failed += result.failed;
        total.expired += result.expired;
        if (!more || this.closed) return { ...total, more: false };
        if (Date.now() >= deadline) return { ...total, more: true };
      }
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /**
   * One run, at most `maxMails` mails: `more` when it stopped with work left.
   * Each pass takes one batch of due invitations and one of due reminders
   * together (one organization's backlog of invitations never holds the
   * others' reminders). With a `deadline`, it is checked before each pass (but
   * a run's first, so every run moves on), and `signal` withdraws the mails
   * still waiting for a slot.
   */
  async run(at: Date, maxMails: number, bound: { deadline: number; signal: AbortSignal; first?: boolean } | null = null): Promise<{ result: RunDueResult; more: boolean }> {
    const result: RunDueResult = { sent: 0, reminded: 0, failed: 0, expired: 0 };
    result.expired = await this.expire(at);
    const stamp = at.toISOString();
    let mails = 0;
    // Claims are compared with the real clock, whatever `at` says: a run `--at` a later time never takes what
    // another run holds now.
    const claimedBefore = (): string => this.now().toISOString();
    const kinds = ['invitation', 'reminder'] as const;
    const last = { invitation: '', reminder: '' };
    const done = { invitation: false, reminder: false };
    for (let pass = 0; ; pass++) {
      if (this.closed) return { result, more: false };
      if (mails >= maxMails) return { result, more: true };
      if (bound && (pass > 0 || !bound.first) && (Date.now() >= bound.deadline || bound.signal.aborted)) return { result, more: true };
      const batches = await Promise.all(
        kinds.map((kind) => (done[kind] ? Promise.resolve([]) : this.pick((limit, skip) => (kind === 'invitation' ? this.store.invitations.due(stamp, limit, skip, claimedBefore()) : this.store.invitations.remindersDue(stamp, limit, skip, claimedBefore()))))),
      );
      if (batches.every((b) => b.length === 0)) break;
      const contexts = new Map<string, Promise<Context | null>>();
      const products = new Map<string, Promise<Product | null>>();
      const outcomes = await Promise.all(kinds.map((kind, k) => Promise.all(batches[k]!.map((inv) => this.mailOne(inv, kind, at, contexts, products, bound?.signal)))));
      let withdrawn = false;
      kinds.forEach((kind, k) => {
        const picked = batches[k]!;
        let progressed = false;
        for (const o of outcomes[k]!) {
          if (o === 'withdrawn') withdrawn = true;
          if (o === 'none' || o === 'withdrawn') continue;
          progressed = true;
          result[o]++;
        }
        mails += picked.length;
        // Each one picked is claimed, moved on or put off (none of them is due again now); the same batch twice
        // means a store that did not keep a write: stop rather than turn round.
        const ids = picked.map((i) => `${i.id}@${i.updatedAt}`).join();
        if (picked.length === 0 || (!progressed && ids === last[kind])) done[kind] = true;
        last[kind] = ids;
      });
      if (withdrawn) return { result, more: true };
      if (done.invitation && done.reminder) break;
    }
    return { result, more: false };
  }

  /**
   * A batch, fair between organizations: at most `perOrg` of each; an
   * organization that has its share is left out of the next look, so the
   * others' due invitations come in the same batch.
   */
  private async pick(find: (limit: number, skipOrgs: string[]) => Promise<Invitation[]>): Promise<Invitation[]> {
    const chosen = new Map<string, Invitation>();
    const perOrg = new Map<string, number>();
    const full: string[] = [];
    for (let look = 0; look < 8 && chosen.size < this.batch; look++) {
      const found = await find(this.batch, full);
      let filled = false;
      for (const inv of found) {
        if (chosen.has(inv.id) || full.includes(inv.orgId)) continue;
        const n = perOrg.get(inv.orgId) ?? 0;
        if (n >= this.perOrg) {
          full.push(inv.orgId);
          filled = true;
          continue;
        }
        perOrg.set(inv.orgId, n + 1);
        chosen.set(inv.id, inv);
        if (chosen.size >= this.batch) break;
      }
      // Nobody reached their share in this look: there is nothing more to find.
      if (!filled || found.length < this.batch) break;
    }
    return [...chosen.values()];
  }

  /** A stamp after `prev` (the conditional updates compare `updatedAt`: every write changes it). */
  private stamp(prev: string): string {
    return new Date(Math.max(this.now().getTime(), Date.parse(prev) + 1)).toISOString();
  }

  private async expire(at: Date): Promise<number> {
    const before = new Date(at.getTime() - LINK_DAYS * DAY_MS).toISOString();
    let expired = 0;
    for (;;) {
      if (this.closed) return expired;
      const found = await this.store.invitations.expiring(before, MAX_BATCH);
      let moved = 0;
      for (const inv of found) {
        if (await this.store.invitations.update({ ...inv, state: 'expired', leaseUntil: null, remindAt: null, updatedAt: this.stamp(inv.updatedAt) }, inv)) moved++;
      }
      expired += moved;
      if (found.length < MAX_BATCH || moved === 0) return expired;
    }
  }

  private async mailOne(inv: Invitation, kind: InvitationMailKind, at: Date, contexts: Map<string, Promise<Context | null>>, products: Map<string, Promise<Product | null>>, signal?: AbortSignal): Promise<Outcome> {
    const log = this.options.logger;
    // From the real clock, never `at`: a run `--at` a later time holds nothing into the future.
    const lease = (): string => new Date(this.now().getTime() + this.leaseMs).toISOString();
    const claim = await this.store.invitations.update({ ...inv, leaseUntil: lease(), updatedAt: this.stamp(inv.updatedAt) }, inv);
    // Another run (here or in another instance) claimed it, or it was cancelled or used meanwhile.
    if (!claim) return 'none';
    /** The version this run holds: the claim, then the claim renewed right before the mail leaves. */
    let claimed: Invitation = claim;
    /** Writes the invitation's next version (conditional on the claim); false when something else changed it first. */
    const write = async (next: Partial<Invitation>): Promise<boolean> => (await this.store.invitations.update({ ...claimed, ...next, leaseUntil: null, updatedAt: this.stamp(claimed.updatedAt) }, claimed)) !== null;
    /** Never mailed again: a scheduled invitation is skipped as it would have been at creation; a sent one gets no reminder. */
    const unsubscribed = (): Promise<boolean> => write(kind === 'invitation' ? { state: 'skipped', reason: 'unsubscribed', sendAt: null } : { remindAt: null });

    if ((await this.store.invitations.unsubscribedAt(inv.orgId, inv.emailKey)) !== null) {
      await unsubscribed();
      return 'none';
    }
    let context = contexts.get(inv.orgId);
    if (!context) contexts.set(inv.orgId, (context = this.context(inv.orgId)));
    const ctx = await context;
    if (!ctx) {
      await write({ state: 'cancelled', remindAt: null });
      return 'none';
    }
    if (kind === 'reminder' && !ctx.settings.reminder) {
      await write({ remindAt: null });
      return 'none';
    }
    // A review of this subject by this address already stands (written on the review page, or through another
    // invitation, which the link refuses to replace): a reminder would ask again for what was given. No reminder.
    if (kind === 'reminder' && (await this.store.collect.findPublished(inv.orgId, inv.emailKey, inv.productId)) !== null) {
      await write({ remindAt: null });
      return 'none';
    }
    let product: Product | null = null;
    if (inv.productId !== null) {
      const key = `${inv.orgId}\u0000${inv.productId}`;
      let found = products.get(key);
      if (!found) products.set(key, (found = this.store.products.get(inv.orgId, inv.productId)));
      product = await found;
    }

    /** Why the last-moment check refused the mail. */
    let refusal = null as 'unsubscribed' | 'changed' | 'no-reminder' | null;
    /**
     * The last moment (the door asks once the slot is granted, right before the relay): the address has not
     * unsubscribed, and the invitation is still the version this run claimed (not cancelled, not stopped by an
     * unsubscribe, not claimed by another run after this claim ran out); the claim is renewed by the same
     * conditional write, so no other run can take it while the relay has it.
     */
    const ready = async (): Promise<boolean> => {
      if ((await this.store.invitations.unsubscribedAt(inv.orgId, inv.emailKey)) !== null) {
        refusal = 'unsubscribed';
        return false;
      }
      // A reminder: the setting still on, and no review of this subject by this address published while it waited.
      if (kind === 'reminder' && (!invitationSettings(await this.store.collect.getSettings(inv.orgId)).reminder || (await this.store.collect.findPublished(inv.orgId, inv.emailKey, inv.productId)) !== null)) {
        refusal = 'no-reminder';
        return false;
      }
      const renewed = await this.store.invitations.update({ ...claimed, leaseUntil: lease(), updatedAt: this.stamp(claimed.updatedAt) }, claimed);
      if (!renewed) {
        refusal = 'changed';
        return false;
      }
      claimed = renewed;
      return true;
    };

    let mail: OutgoingMail;
    try {
      const reviewUrl = this.options.link(inv);
      if (reviewUrl === null) throw new TypeError('the invitation has no link');
      const rendered = renderInvitation({
        kind,
        locale: inv.locale,
        // The invitation's locale first (renderInvitation), else the settings' language, else the organization's.
        organization: { name: ctx.org.name, language: invitationLanguage(ctx.settings.language, ctx.org.language), senderName: ctx.settings.senderName },
        product: product && { name: product.name, imageUrl: product.imageUrl },
        inviteeName: inv.name,
        reviewUrl,
        unsubscribeUrl: `${this.options.publicUrl}${unsubscribePath(this.tokens.make(inv.orgId, inv.email))}`,
      });
      mail = { organizationId: inv.orgId, to: inv.email, fromName: rendered.fromName, subject: rendered.subject, text: rendered.text, html: rendered.html, headers: rendered.headers, ready, ...(signal && { signal }) };
    } catch (err) {
      const reason = `the mail could not be made: ${(err as Error).message}`;
      log.error({ invitation: inv.id, err: (err as Error).message }, 'invitations: the mail could not be made');
      await write(kind === 'invitation' ? { state: 'failed', lastError: reason } : { remindAt: null });
      return 'failed';
    }

    try {
      const accepted = await this.options.mail.send(mail);
      if (accepted === null) {
        if (refusal === 'unsubscribed') {
          await unsubscribed();
          return 'none';
        }
        if (refusal === 'no-reminder') {
          await write({ remindAt: null });
          return 'none';
        }
        if (refusal === 'changed') {
          // Cancelled, stopped by an unsubscribe, or another run's now: its new state stands, nothing was sent.
          log.info({ invitation: inv.id, kind }, 'invitations: changed while its mail waited for a slot; not sent');
          return 'none';
        }
        // Withdrawn unsent at the run's deadline: the claim is let go, the next run takes it at once.
        await write({});
        return 'withdrawn';
      }
    } catch (err) {
      if (err instanceof MailDoorClosed) {
        // Shutting down: the claim is let go, the next run (after a restart) takes it at once.
        this.closed = true;
        await write({}).catch(() => undefined);
        return 'none';
      }
      const refused = err instanceof MailNotSent ? err : new MailNotSent('the mail could not be handed to the relay', null, false);
      const now = this.now().getTime();
      /** Tried again after a while (the claim is the wait), growing with the time since the mail was due. */
      const later = async (next: Partial<Invitation> = {}): Promise<void> => {
        const since = Date.parse((kind === 'invitation' ? inv.sendAt : inv.remindAt) ?? new Date(now).toISOString());
        const wait = Math.min(MAX_RETRY_MS, Math.max(RETRY_MS, Math.floor((now - since) / 10)));
        await this.store.invitations.update({ ...claimed, ...next, leaseUntil: new Date(now + wait).toISOString(), updatedAt: this.stamp(claimed.updatedAt) }, claimed);
      };
      if (refused.unknown) {
        // The relay had the whole mail and never answered: it may have delivered it. Sent again once (the one
        // possible duplicate); a second time, the invitation is `failed` rather than mailed again and again.
        if (claimed.unknownAt == null) {
          log.warn({ invitation: inv.id, kind }, 'invitations: no answer from the relay after it had the mail; tried once more later');
          await later({ unknownAt: new Date(now).toISOString() });
          return 'none';
        }
        log.warn({ invitation: inv.id, kind }, 'invitations: no answer from the relay after it had the mail, a second time; not sent again');
        await write(kind === 'invitation' ? { state: 'failed', lastError: NO_ANSWER_TWICE, unknownAt: null } : { remindAt: null, unknownAt: null });
        return 'failed';
      }
      if (!refused.permanent) {
        const since = Date.parse((kind === 'invitation' ? inv.sendAt : inv.remindAt) ?? new Date(now).toISOString());
        if (now - since < RETRY_FOR_MS) {
          // The relay's trouble (away, 4xx, AUTH or MAIL FROM refused, a quota), not the invitee's: tried again.
          log.warn({ invitation: inv.id, kind, reason: withoutAddresses(refused.reason) }, 'invitations: the relay did not take the mail now; tried again later');
          await later();
          return 'none';
        }
        log.warn({ invitation: inv.id, kind, reason: withoutAddresses(refused.reason) }, 'invitations: the relay did not take the mail in RETRY_FOR_MS; given up');
        await write(kind === 'invitation' ? { state: 'failed', lastError: RELAY_GAVE_UP } : { remindAt: null });
        return 'failed';
      }
      // The relay refused this recipient or this message (5xx to RCPT TO or DATA): its answer is the invitation's.
      log.warn({ invitation: inv.id, kind, reason: withoutAddresses(refused.reason) }, 'invitations: the relay refused the mail');
      await write(kind === 'invitation' ? { state: 'failed', lastError: refused.reason } : { remindAt: null });
      return 'failed';
    }

    // The relay accepted it: from here on a crash sends this one mail again (after the claim), never more.
    await this.options.afterAccepted?.(claimed);
    // The real time it was mailed, whatever `at` says (`at` only decides what is due: sendAt, the reminder, expiry).
    const mailedAt = this.now();
    const marked = await write(
      kind === 'invitation'
        ? { state: 'sent', sentAt: mailedAt.toISOString(), lastError: null, unknownAt: null, remindAt: ctx.settings.reminder ? new Date(mailedAt.getTime() + REMINDER_DAYS * DAY_MS).toISOString() : null }
        : { state: 'reminded', remindedAt: mailedAt.toISOString(), remindAt: null, unknownAt: null },
    );
    // Not written: cancelled (or reviewed) while the mail was with the relay; the mail is out all the same.
    if (!marked) log.info({ invitation: inv.id, kind }, 'invitations: mailed while it changed; its new state stands');
    return kind === 'invitation' ? 'sent' : 'reminded';
  }

  private async context(orgId: string): Promise<Context | null> {
    const org = await this.store.orgs.get(orgId);
    if (!org) return null;
    return { org, settings: invitationSettings(await this.store.collect.getSettings(orgId)) };
  }

  // ---- The schedule --------------------------------------------------------------

  /** The job's handler: a run of at most MAILS_PER_JOB mails, then its slot back if work is left. */
  readonly handler: KeyedHandler<Record<string, never>> = async () => {
    const { result, more } = await this.run(this.now(), MAILS_PER_JOB);
    if (result.sent + result.reminded + result.failed + result.expired > 0) this.options.logger.info({ ...result }, 'invitations: due mail sent');
    return more ? { again: true } : undefined;
  };

  /**
   * Starts the schedule on the keyed job door: a run now and every `everyMs`
   * (one at a time across every instance: one key). The composition root
   * calls it once, with SMTP_URL set.
   */
  async start(queue: KeyedQueue<Record<string, never>>, everyMs: number = RUN_EVERY_MS): Promise<void> {
    this.queue = queue;
    await queue.start(this.handler);
    this.timer = setInterval(() => this.request(), everyMs);
    this.timer.unref();
    this.request();
  }

  /** Asks for a run soon (e.g. after invitations were created due at once). */
  request(): void {
    if (this.closed) return;
    this.queue?.request({ key: RUN_DUE_KEY, data: {} }).catch((err: unknown) => this.options.logger.warn({ err: (err as Error).message }, 'invitations: could not ask for a run'));
  }

  /** Stops asking and makes runs in progress stop after their current mails (then the queue and the door close). */
  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
