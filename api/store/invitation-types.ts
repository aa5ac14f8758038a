/**
 * Review invitations (CONTRACT §14): one customer asked, after a purchase, to
 * review the organization or one of its products. Both stores implement
 * `InvitationStore`; `invitation-contract.test.ts` runs the same suite on
 * each. Validation lives in api/invitations (the one door); the rules that
 * must hold across concurrent writers (at most one invitation per address
 * per organization per 30 days, unsubscribed addresses, one invitation per
 * order and address, the cap per organization) are decided by the store
 * while it writes, so two requests at once cannot both get past them.
 *
 * An invitee's email is personal data: it lives in the invitation only (for
 * the mail and the organization's own list), and addresses are matched by
 * `emailKey`, an HMAC of the lower-cased address (api/collect/tokens.ts), so
 * the unsubscribed list holds no address at all.
 */

export const INVITATION_STATES = ['scheduled', 'sent', 'reminded', 'reviewed', 'failed', 'skipped', 'expired', 'cancelled', 'unsent'] as const;
export type InvitationState = (typeof INVITATION_STATES)[number];

/** Why an invitation was `skipped` (decided when it was created; `unsubscribed` wins). */
export const SKIP_REASONS = ['recently_invited', 'unsubscribed'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** An address gets at most one invitation per organization in this many days (§14). */
export const INVITE_WINDOW_DAYS = 30;

/** A link works this many days after its mail was sent (or, never mailed by the service, after creation). */
export const INVITATION_LINK_DAYS = 30;

/**
 * The states an invitation has ended in: nothing more is mailed and its link
 * no longer opens a form. Retention (`InvitationStore.purge`) removes these
 * once they ended long enough ago; an `unsent` link ends when it expires.
 * The others (`scheduled`, `sent`, `reminded`, an `unsent` link still open)
 * are live and never purged.
 */
export const ENDED_STATES = ['reviewed', 'cancelled', 'skipped', 'expired', 'failed'] as const satisfies readonly InvitationState[];

/**
 * How long an ended invitation is kept when INVITATION_RETENTION_DAYS is not
 * set, and the least it may be: the Collect page's conversion over 90 days
 * counts invitations sent in the last 90 days (and one ends no sooner than it
 * is sent), and the 30-day rule looks back 30 days.
 */
export const DEFAULT_RETENTION_DAYS = 180;
export const MIN_RETENTION_DAYS = 90;

export interface Invitation {
  id: string;
  orgId: string;
  /** The invitee's address as given (trimmed): never in a log, a webhook or another organization's answer. */
  email: string;
  /** HMAC of the lower-cased address: how addresses are matched. */
  emailKey: string;
  name: string | null;
  productId: string | null;
  orderRef: string | null;
  /** The mail's language (a page language); null: the organization's. */
  locale: string | null;
  state: InvitationState;
  /** `skipped` only. */
  reason: SkipReason | null;
  /** `failed` only: the relay's answer. */
  lastError: string | null;
  createdAt: string;
  /** When the mail is due (`scheduled`); null for `unsent` and `skipped`. */
  sendAt: string | null;
  sentAt: string | null;
  remindedAt: string | null;
  reviewedAt: string | null;
  /** The review page's submission written through the link (`reviewed`). */
  submissionId: string | null;
  updatedAt: string;
  /**
   * The sender's claim (api/invitations/sender.ts): while it lies ahead, a
   * mail (or the reminder) of this invitation is with one sender, and no
   * other takes it. Absent or null: nobody holds it. Never shown.
   */
  leaseUntil?: string | null;
  /**
   * The sender's record that one mail of this invitation (or its reminder) reached the relay and no answer came
   * (it may have been delivered): it is sent once more at most. Absent or null: none. Never shown.
   */
  unknownAt?: string | null;
  /** `sent` only: when its one reminder is due (set when the mail was sent with the reminder setting on); null or absent: none. */
  remindAt?: string | null;
}

/**
 * What the service asks the store to create: the invitation as it would be
 * if no rule stopped it (`scheduled` or `unsent`); the store turns it into
 * `skipped` when a rule does.
 */
export type InvitationDraft = Invitation & { state: 'scheduled' | 'unsent' };

export interface CreateOptions {
  /** Stored invitations an organization may hold; a batch that would pass it creates nothing. */
  max: number;
}

export interface CreatedInvitation {
  invitation: Invitation;
  /** False: the same orderRef and address was invited before (that invitation is answered, nothing new stored). */
  created: boolean;
}

export interface InvitationPage {
  data: Invitation[];
  total: number;
}

export interface InvitationStore {
  /**
   * Creates a batch of one organization's invitations, in order, each decided
   * against what is stored and the batch's earlier items: an orderRef and
   * address invited before answers that invitation; an unsubscribed address
   * is `skipped`/`unsubscribed`; an address whose latest invitation (not
   * skipped) reaches it less than INVITE_WINDOW_DAYS before the draft would
   * (`invitedAt`: the mail's `sendAt`, else `createdAt`) is
   * `skipped`/`recently_invited`. Null when the new invitations would take
   * the organization past `max`: nothing is created.
   */
  create(orgId: string, drafts: InvitationDraft[], options: CreateOptions): Promise<CreatedInvitation[] | null>;
  get(id: string): Promise<Invitation | null>;
  /** Newest first (createdAt, then id, descending), optionally in one state. */
  list(orgId: string, query: { state?: InvitationState; limit: number; offset: number }): Promise<InvitationPage>;
  /** Stored invitations of the organization (every state). */
  count(orgId: string): Promise<number>;
  /** How many of the organization's invitations are in each state (every state named, 0 for none). */
  countByState(orgId: string): Promise<Record<InvitationState, number>>;
  /**
   * The conversion figures of the Collect page: the organization's
   * invitations *sent* on the UTC day `sinceDay` (YYYY-MM-DD) or later
   * (`sentDay`), and how many of those are `reviewed` now.
   */
  sentSince(orgId: string, sinceDay: string): Promise<{ sent: number; reviewed: number }>;
  /**
   * Replaces the invitation when it is still in the state `expect` says and
   * unchanged since (`updatedAt`): one writer wins (a link used twice at
   * once, a cancel racing a send); null otherwise.
   */
  update(next: Invitation, expect: { state: InvitationState; updatedAt: string }): Promise<Invitation | null>;
  /**
   * For the sender (api/invitations/sender.ts): at most `limit` `scheduled`
   * invitations whose `sendAt` is at or before `before` (ISO), soonest first,
   * leaving out those claimed (`leaseUntil` after `claimedBefore`, the real
   * time, else `before`: a run `--at` a later time never takes a live claim) and those of the
   * organizations in `skipOrgs` (an organization that has its share of a
   * batch already: the others' come next). The sender claims each with
   * `update`, checks `unsubscribedAt` again, and moves it on (to `sent` once
   * the relay took the mail, or `failed`).
   */
  due(before: string, limit: number, skipOrgs?: readonly string[], claimedBefore?: string): Promise<Invitation[]>;
  /** The same for reminders: `sent` invitations whose `remindAt` is at or before `before`, soonest first, not claimed (by `claimedBefore`), not of `skipOrgs`. */
  remindersDue(before: string, limit: number, skipOrgs?: readonly string[], claimedBefore?: string): Promise<Invitation[]>;
  /** At most `limit` `sent` or `reminded` invitations mailed at or before `sentBefore` (ISO), soonest first: those that expire. */
  expiring(sentBefore: string, limit: number): Promise<Invitation[]>;
  /**
   * Retention: removes at most `limit` invitations that ended (`endedAt`)
   * before `endedBefore` (ISO), the organization's only when `orgId` is
   * given, none of `skipOrgs`'. Their order records go with them (the same
   * orderRef and address sent again is a new invitation, under the rules of
   * §14 as any other), and the organization's `count` goes down by as many,
   * so the cap counts what is kept. Live invitations never go. Answers how
   * many went per organization ({} when nothing was left).
   */
  purge(endedBefore: string, limit: number, options?: { orgId?: string; skipOrgs?: readonly string[] }): Promise<Record<string, number>>;
  /**
   * Erasure: removes every invitation of one address (its key) in the
   * organization at once, whatever its state, with their order records and
   * the address's last-invited time; how many went. The unsubscribe entry
   * stays (a key, no address: it keeps the address from being mailed again).
   * A live invitation erased is never mailed: the sender's conditional
   * writes find nothing.
   */
  erase(orgId: string, emailKey: string): Promise<number>;
  /** The organization's invitations of one address (its key), newest first, at most `limit` (an unsubscribe stops their mails). */
  ofAddress(orgId: string, emailKey: string, limit: number): Promise<Invitation[]>;
  /** Records that this address (its key) wants no more invitations from the organization. */
  unsubscribe(orgId: string, emailKey: string, at: string): Promise<void>;
  /** When the address unsubscribed from the organization, or null. */
  unsubscribedAt(orgId: string, emailKey: string): Promise<string | null>;
}

/**
 * The UTC day (YYYY-MM-DD) an invitation counts as sent for the conversion
 * figures, or null when it never was: the day the relay accepted its mail
 * (`sentAt`); or, for a link never meant to be mailed by the service
 * (created `unsent`, without a relay: no `sendAt`, whatever its state now),
 * the day it was created, when it was handed to the organization's own
 * mailer. Skipped invitations, and mails not sent yet (or refused, or
 * cancelled before going), are not sent.
 */
export function sentDay(inv: Pick<Invitation, 'state' | 'sentAt' | 'sendAt' | 'createdAt'>): string | null {
  if (inv.sentAt !== null) return inv.sentAt.slice(0, 10);
  if (inv.sendAt === null && inv.state !== 'skipped') return inv.createdAt.slice(0, 10);
  return null;
}

/**
 * When an invitation ended, or null while it is live: for an ended state,
 * its last change (`updatedAt`), but never before the time it was due to reach
 * the address (a cancelled invitation due later counts for the 30-day rule
 * until then); for an `unsent` link, the day it expired (INVITATION_LINK_DAYS
 * after creation) or its last change, whichever is later.
 */
export function endedAt(inv: Pick<Invitation, 'state' | 'updatedAt' | 'sendAt' | 'createdAt'>): string | null {
  const later = (a: string, b: string): string => (a > b ? a : b);
  if ((ENDED_STATES as readonly string[]).includes(inv.state)) return later(inv.updatedAt, invitedAt(inv));
  if (inv.state === 'unsent') return later(inv.updatedAt, new Date(Date.parse(inv.createdAt) + INVITATION_LINK_DAYS * 86_400_000).toISOString());
  return null;
}

/** Zero for every state: the shape of `countByState`. */
export const noCounts = (): Record<InvitationState, number> => Object.fromEntries(INVITATION_STATES.map((s) => [s, 0])) as Record<InvitationState, number>;

/**
 * When an invitation reaches the address: its mail's `sendAt`, else (never
 * mailed by the service: `unsent`) its creation. The 30-day rule measures
 * this, not the creation alone: two invitations created 31 days apart but
 * due the same day would otherwise both be mailed (review 9 M1).
 */
export const invitedAt = (inv: Pick<Invitation, 'sendAt' | 'createdAt'>): string => inv.sendAt ?? inv.createdAt;

/**
 * The decision for one draft given the address's record: the rules of §14,
 * `unsubscribed` first. `lastInvitedAt` is the latest `invitedAt` of the
 * address's invitations that were not skipped; a draft reaching the address
 * before 30 days after it is skipped, including one scheduled before an
 * invitation already due later (so the invitations kept are always 30 days
 * apart, whatever order they were made in).
 */
export function decide(draft: InvitationDraft, recipient: { lastInvitedAt: string | null; unsubscribedAt: string | null } | undefined): Invitation {
  const skip = (reason: SkipReason): Invitation => ({ ...draft, state: 'skipped', reason, sendAt: null });
  if (recipient?.unsubscribedAt) return skip('unsubscribed');
  if (recipient?.lastInvitedAt && Date.parse(invitedAt(draft)) - Date.parse(recipient.lastInvitedAt) < INVITE_WINDOW_DAYS * 86_400_000) return skip('recently_invited');
  return draft;
}

/** The key of an order's invitation of one address. */
export const orderKey = (orgId: string, emailKey: string, orderRef: string): string => `${orgId}\u0000${emailKey}\u0000${orderRef}`;
