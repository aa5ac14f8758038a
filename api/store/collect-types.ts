/**
 * The review page's records (CONTRACT §13): an organization's collection
 * settings and the reviews written on its page, kept as *submissions* apart
 * from the reviews themselves. A submission becomes a `DIRECT` Review only
 * when it is published, so every read of reviews (API, statistics, widgets,
 * JSON-LD, webhooks) counts published ones only, without knowing about
 * submissions. The reviewer's email lives here only. Validation and rules
 * live in api/collect (the one door): a store keeps what it is given.
 */

export const MODERATION_MODES = ['publish', 'hold'] as const;
export type ModerationMode = (typeof MODERATION_MODES)[number];

export interface CollectSettings {
  orgId: string;
  /** `col_` + random: the page's address; replacing it ends the old one. */
  collectId: string;
  /** An optional "also share your experience on …" link (https), on every thank-you page. */
  shareUrl: string | null;
  /** publish: a confirmed review is published at once; hold: every uninvited one waits for a person. */
  moderation: ModerationMode;
  /** Invitation settings (CONTRACT §14, the Collect page); absent: the defaults (`invitationSettings`). */
  invitations?: InvitationSettings;
  updatedAt: string;
}

/** What `CollectStore.patchSettings` may change. */
export type SettingsPatch = Partial<Pick<CollectSettings, 'collectId' | 'shareUrl' | 'moderation' | 'invitations'>> & { updatedAt: string };

/** How an organization's invitations are mailed (CONTRACT §14: delay, reminder, default language, sender name). */
export interface InvitationSettings {
  /** Days from creation to the mail when an invitation gives no `sendAt` (0 = at once). */
  delayDays: number;
  /** One reminder `REMINDER_DAYS` after the mail when no review came. */
  reminder: boolean;
  /** The mail's language when the invitation has none (a page language); null: the organization's. */
  language: string | null;
  /** The mail's sender display name; null: the organization's name. */
  senderName: string | null;
}

export const DEFAULT_INVITATION_SETTINGS: InvitationSettings = Object.freeze({ delayDays: 7, reminder: true, language: null, senderName: null });
/** Days from the mail to its reminder. */
export const REMINDER_DAYS = 7;
/** Bounds of `delayDays`. */
export const MAX_INVITATION_DELAY_DAYS = 60;

/** An organization's invitation settings, the defaults filled in (settings stored before they existed read as the defaults). */
export function invitationSettings(settings: CollectSettings | null): InvitationSettings {
  return { ...DEFAULT_INVITATION_SETTINGS, ...settings?.invitations };
}

export const SUBMISSION_STATES = ['pending', 'published', 'rejected', 'replaced', 'deleted'] as const;
export type SubmissionState = (typeof SUBMISSION_STATES)[number];

/** Why a pending submission waits. */
export const HOLD_REASONS = ['awaiting_confirmation', 'moderation', 'no_mail', 'links'] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

/** Why an Owner or Admin rejected a submission (CONTRACT §13). */
export const REJECT_REASONS = ['spam', 'offensive', 'personal_data', 'not_genuine'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

export interface Submission {
  id: string;
  orgId: string;
  /** The collection link it was written on (kept when the link is replaced later). */
  collectId: string;
  productId: string | null;
  rating: number;
  content: string;
  authorName: string;
  /** The reviewer's email: never in a Review, an answer, a widget, a webhook or a log. */
  email: string;
  /** HMAC of the lower-cased email (one review per email per organization and product). */
  emailKey: string;
  /** The page's language when it was written (the review's language). */
  language: string;
  state: SubmissionState;
  /** While pending: why it waits. */
  hold: HoldReason | null;
  /** The email step was done (the confirmation page's button). */
  confirmed: boolean;
  rejectReason: RejectReason | null;
  /**
   * Until when the confirmation link works (null: no email step). The links
   * themselves are HMACs of the id (api/collect/tokens.ts): nothing secret stored.
   */
  confirmExpiresAt: string | null;
  /** The Review's natural key once published (`DIRECT` + this): kept by a later submission that replaces it. */
  reviewExternalId: string | null;
  /** The confirmation mail was accepted by the relay. */
  mailSentAt: string | null;
  submittedAt: string;
  /** Written through an invitation's link (CONTRACT §14): its review is `isVerified`. Absent on older records: none. */
  invitationId?: string | null;
  decidedAt: string | null;
  updatedAt: string;
}

/** Still waiting for its email step: the submissions `CollectStore.removeExpired` forgets once their link expired. */
export function awaitingConfirmation(s: Submission): boolean {
  return s.state === 'pending' && s.hold === 'awaiting_confirmation' && s.confirmExpiresAt !== null;
}

export interface CollectStore {
  getSettings(orgId: string): Promise<CollectSettings | null>;
  /** The settings of the organization whose current link this is. */
  findByCollectId(collectId: string): Promise<CollectSettings | null>;
  putSettings(settings: CollectSettings): Promise<CollectSettings>;
  /**
   * Changes the given fields of the organization's stored settings and
   * nothing else, as one write: the review page's settings, the invitation
   * settings and a replaced link, saved at the same time, each keep theirs
   * (a read-then-put of the whole record would lose one). Null when the
   * organization has no settings stored.
   */
  patchSettings(orgId: string, patch: SettingsPatch): Promise<CollectSettings | null>;
  create(submission: Submission): Promise<void>;
  get(id: string): Promise<Submission | null>;
  /**
   * Replaces the submission when it is still as `expect` says (its state and
   * `updatedAt`): one writer wins a race (a confirmation clicked twice, two
   * moderators); null when it changed meanwhile or is not there.
   */
  update(next: Submission, expect: { state: SubmissionState; updatedAt: string }): Promise<Submission | null>;
  /** The published submission of this email (key) for this product (null: about the organization). */
  findPublished(orgId: string, emailKey: string, productId: string | null): Promise<Submission | null>;
  /** An organization's submissions in a state, oldest first. */
  listByState(orgId: string, state: SubmissionState): Promise<Submission[]>;
  /**
   * Forgets at most `limit` submissions, of any organization, still pending
   * their confirmation (`hold` awaiting_confirmation) whose link expired at
   * or before `before` (ISO): they can never be confirmed, and hold an email.
   * Answers how many went; a batch, never the whole store at once (the
   * caller asks again while a full batch went).
   */
  removeExpired(before: string, limit: number): Promise<number>;
}
