/**
 * Replies (CONTRACT §15): the organization's answer to one review, as the
 * replies service (api/replies/) keeps it while it is written, scheduled,
 * posted and removed. One record per review (the platforms show one reply).
 * Both stores implement `ReplyStore`; validation and the state rules live in
 * api/replies (the one door): a store keeps what it is given, and `update`
 * writes only while the record is in one of the states the caller expects,
 * so a cancel and the job taking the reply never both win.
 */

export const REPLY_STATES = ['draft', 'scheduled', 'publishing', 'published', 'failed', 'deleted'] as const;
export type ReplyState = (typeof REPLY_STATES)[number];

/** Who wrote or approved it: a dashboard user, or the operator (CLI, admin API: `userId` null). */
export interface ReplyActor {
  userId: string | null;
  email: string;
}

export interface ReplyRecord {
  orgId: string;
  reviewId: string;
  /** The review's platform (upper case, `DIRECT` included). */
  platform: string;
  /** The source that posts it; null for `DIRECT` (answered here, on the widget). */
  sourceId: string | null;
  text: string;
  state: ReplyState;
  /** When it is (or was) due to be posted: the organization's delay after it was approved. */
  scheduledAt: string | null;
  /** When the platform took it (the service's clock). */
  publishedAt: string | null;
  /** The reply's date as the platform gave it (Google `updateTime`, Trustpilot `createdAt`), else the service's clock. */
  date: string | null;
  /** Why it failed, in words a person can act on; while `publishing`, the last attempt's reason. */
  error: string | null;
  author: ReplyActor;
  approvedBy: ReplyActor | null;
  /** While `publishing` after a refused attempt (429, 5xx, a lost answer): when the next attempt is due. */
  retryAt: string | null;
  /** Platform attempts of the publish in progress (retries included); an attempt > 1 may follow a lost answer. */
  attempts: number;
  createdAt: string;
  updatedAt: string;
}

export type ReplyPatch = Partial<Omit<ReplyRecord, 'orgId' | 'reviewId' | 'createdAt'>>;

/** An organization's reply settings. */
export interface ReplySettings {
  orgId: string;
  /** Minutes between approval and posting, during which the reply can be edited or cancelled (0–60). */
  delayMinutes: number;
  /** The one optional rule (CONTRACT §15): absent or disabled = nothing is posted without a person. */
  autoReply?: AutoReplyRule;
}

/** Reply with a template to reviews of `minRating` stars or more that have no text, after the delay. */
export interface AutoReplyRule {
  enabled: boolean;
  /** 1–5. */
  minRating: number;
  templateId: string;
  /**
   * When it was last turned on (ISO; the service sets it): only reviews the
   * store created from then on are answered, never one that existed before.
   */
  since?: string;
}

export const DEFAULT_REPLY_DELAY_MINUTES = 5;

/**
 * A reply template (CONTRACT §15, "Templates"): per organization, a name, the
 * language it is written in, the ratings it suits (1–5) and a text with
 * `{author}`, `{business}` and `{product}`. The replies service validates and
 * fills them in; a store keeps what it is given.
 */
export interface ReplyTemplate {
  orgId: string;
  id: string;
  name: string;
  /** Two-letter ISO 639-1 code, lower case. */
  language: string;
  /** The star ratings it suits, ascending, each 1–5, at least one. */
  ratings: number[];
  text: string;
  createdAt: string;
  updatedAt: string;
}

/** Templates an organization may keep (the replies service's cap, kept by the stores). */
export const MAX_REPLY_TEMPLATES = 100;

export interface ReplyStore {
  /** Insert or replace the review's reply (a new draft, a publish asked for). */
  put(record: ReplyRecord): Promise<void>;
  get(orgId: string, reviewId: string): Promise<ReplyRecord | null>;
  /**
   * Writes `patch` only while the record's state is one of `from`; answers the
   * record as written, or null (gone, or in another state: nothing written).
   */
  update(orgId: string, reviewId: string, from: readonly ReplyState[], patch: ReplyPatch): Promise<ReplyRecord | null>;
  /** The organization's replies, newest change first; only those in `state` when given. */
  list(orgId: string, state?: ReplyState): Promise<ReplyRecord[]>;
  /** Every reply waiting for the job (scheduled or publishing), any organization: resumed at start-up. */
  pending(): Promise<ReplyRecord[]>;
  settings(orgId: string): Promise<ReplySettings>;
  putSettings(settings: ReplySettings): Promise<void>;
  /** The organization's templates, by name. */
  templates(orgId: string): Promise<ReplyTemplate[]>;
  getTemplate(orgId: string, id: string): Promise<ReplyTemplate | null>;
  /**
   * Adds the template unless its organization already has `maxPerOrg`: then
   * nothing is written and the answer is false (never more than the cap,
   * whatever runs at the same time: racing creations may all be refused on MongoDB).
   */
  createTemplate(template: ReplyTemplate, maxPerOrg: number): Promise<boolean>;
  /** Replaces a template that exists; false (nothing written) when it does not. */
  putTemplate(template: ReplyTemplate): Promise<boolean>;
  /** False when there was none. */
  deleteTemplate(orgId: string, id: string): Promise<boolean>;
}
