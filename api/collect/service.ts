/**
 * The review page (CONTRACT §13) as one service: the collection link and its
 * settings, submissions from the page, their confirmation by email, the
 * reviewer's private edit/delete link, and moderation. Routes (the page, the
 * dashboard, the admin API and so the CLI) call this service, never the store.
 *
 * A submission becomes a `DIRECT` Review only when it is published (upserted
 * by its natural key, so the store's outbox sends `review.created`, then
 * `review.updated` for an edit or a replacement, and `review.removed` for a
 * deletion); everything that reads reviews counts only published ones. The
 * reviewer's email stays in the submission: no Review, answer, widget,
 * JSON-LD, webhook or log line carries it.
 *
 * Nothing here reads the rating to decide anything (no gating, 16 CFR 465):
 * what happens after a submission depends on the mail configuration, the
 * moderation setting and the link count only.
 */
import { ApiError, badRequest } from '../errors.ts';
import type { KeyedHandler, KeyedOutcome, KeyedQueue } from '../jobs/keyed-work.ts';
import type { Logger } from '../logger.ts';
import type { Product } from '../store/product-types.ts';
import { PRODUCT_ID } from '../store/product-types.ts';
import type { CollectSettings, HoldReason, ModerationMode, RejectReason, Submission } from '../store/collect-types.ts';
import { MODERATION_MODES, REJECT_REASONS } from '../store/collect-types.ts';
import type { Organization, ReviewInput, Store } from '../store/types.ts';
import type { ConfirmationMail } from './mail.ts';
import { audit } from '../dashboard/audit.ts';

/** Who decides: a dashboard user, or the operator (admin API, CLI). */
export type Actor = { id: string; email: string } | { userId: null; email: string };
import { CollectKeys, COLLECT_ID, newCollectId, newSubmissionId, type FormTokenCheck } from './tokens.ts';

export const MAX_CONTENT = 5000;
export const MAX_NAME = 100;
export const MAX_EMAIL = 254;
/** More links than this in a review's text: held for a person. */
export const MAX_LINKS = 2;
export const CONFIRM_DAYS = 7;
/** The Overview's rejected counts cover this many days of decisions. */
export const REJECTED_WINDOW_DAYS = 90;
/** Submissions per client address per hour (the routes count them with the project's limiter). */
export const SUBMISSIONS_PER_HOUR = 5;

export interface SubmissionFields {
  rating: string;
  content: string;
  authorName: string;
  email: string;
  consent: boolean;
}

export type FieldName = 'rating' | 'content' | 'authorName' | 'email' | 'consent';
export type FieldErrors = Partial<Record<FieldName, true>>;

export interface ReviewPageContext {
  org: Organization;
  settings: CollectSettings;
  product: Product | null;
}

export type SubmitOutcome =
  | { ok: true; thanks: Thanks }
  | { ok: false; errors: FieldErrors; form: FormTokenCheck | 'ok' };

/** What the thank-you page says: the same for every rating. */
export interface Thanks {
  /** A confirmation mail is on its way (else the review waits for a person). */
  mail: boolean;
  shareUrl: string | null;
}

export type ConfirmOutcome = 'published' | 'held' | 'gone';

export interface PendingItem {
  id: string;
  rating: number;
  content: string;
  authorName: string;
  productId: string | null;
  submittedAt: string;
  reason: HoldReason | null;
}

/**
 * The collect queue's work: a confirmation mail (the submission only; the
 * links are derived from its id), or the upkeep that forgets expired
 * unconfirmed submissions (`expire`).
 */
export type MailWork = { submissionId: string } | { expire: true };

export interface CollectServiceOptions {
  store: Store;
  secretsKey: Buffer;
  publicUrl: string;
  logger: Logger;
  /** Sends confirmation mails (SMTP_URL set); absent, reviews from the page wait for a person. */
  mailer?: { send(mail: ConfirmationMail): Promise<void> };
  /** The job door the mails go through (in process when absent). */
  queue?: KeyedQueue<MailWork>;
  now?: () => Date;
  /** How often expired unconfirmed submissions are looked for (an hour), and how many go per store call (500). */
  expireEveryMs?: number;
  expireBatch?: number;
}

const LINK = /\bhttps?:\/\/|\bwww\./gi;
export const countLinks = (text: string): number => text.match(LINK)?.length ?? 0;
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;
/** Characters counted as a person sees them (code points). */
const length = (s: string): number => [...s].length;

const DAY_MS = 24 * 3600_000;
/** A mail the relay did not take is tried again, for a day. */
const MAIL_RETRY_MS = 60_000;

export class CollectService {
  readonly keys: CollectKeys;
  private readonly store: Store;
  private readonly now: () => Date;
  private queue: KeyedQueue<MailWork> | null = null;
  private expireTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: CollectServiceOptions) {
    this.store = options.store;
    this.keys = new CollectKeys(options.secretsKey);
    this.now = options.now ?? (() => new Date());
  }

  /** Whether confirmation mails are sent (else every review from the page waits for a person). */
  get mails(): boolean {
    return this.options.mailer !== undefined;
  }

  /** Starts the mail queue (the composition root calls it once). */
  async start(queue: KeyedQueue<MailWork>): Promise<void> {
    this.queue = queue;
    await queue.start(this.mailHandler);
    // Expired unconfirmed submissions: looked for now and every hour, one run at a time across instances.
    this.expireTimer = setInterval(() => this.requestExpiry(), this.options.expireEveryMs ?? 3600_000);
    this.expireTimer.unref();
    this.requestExpiry();
  }

  /** Stops asking for upkeep (before the queue closes). */
  close(): void {
    if (this.expireTimer) clearInterval(this.expireTimer);
    this.expireTimer = null;
  }

  private requestExpiry(): void {
    this.queue?.request({ key: 'collect-expire', data: { expire: true }, upkeep: true }).catch((err: unknown) => this.options.logger.warn({ err: (err as Error).message }, 'collect: could not ask for the expiry upkeep'));
  }

  /**
   * Forgets the submissions whose confirmation link expired unused (they can
   * never be published, and each holds an email), a batch per store call
   * until a batch comes back short. Answers how many went.
   */
  async removeExpired(): Promise<number> {
    const batch = this.options.expireBatch ?? 500;
    let total = 0;
    for (;;) {
      const removed = await this.store.collect.removeExpired(this.now().toISOString(), batch);
      total += removed;
      if (removed < batch) break;
    }
    if (total > 0) this.options.logger.info({ removed: total }, 'collect: expired unconfirmed submissions removed');
    return total;
  }

  // ---- The link and settings -------------------------------------------------

  url(collectId: string, productId?: string | null): string {
    return `${this.options.publicUrl}/r/${collectId}${productId ? `?product=${encodeURIComponent(productId)}` : ''}`;
  }

  private async org(orgId: string): Promise<Organization> {
    const org = await this.store.orgs.get(orgId);
    if (!org) throw new ApiError(404, 'org_not_found', `No organization ${JSON.stringify(orgId)}.`);
    return org;
  }

  /** The organization's settings, made (with a first link) on first use. */
  async settings(orgId: string): Promise<CollectSettings> {
    await this.org(orgId);
    const stored = await this.store.collect.getSettings(orgId);
    if (stored) return stored;
    return this.store.collect.putSettings({ orgId, collectId: newCollectId(), shareUrl: null, moderation: 'publish', updatedAt: this.now().toISOString() });
  }

  /** The collection link; `rotate` replaces it (the old one answers 404 from then on). */
  async link(orgId: string, rotate: Actor | null = null): Promise<{ collectId: string; url: string }> {
    let settings = await this.settings(orgId);
    if (rotate) {
      settings = (await this.store.collect.patchSettings(orgId, { collectId: newCollectId(), updatedAt: this.now().toISOString() })) ?? settings;
      await audit(this.store, orgId, rotate, 'collect.link_rotated', { id: settings.collectId, label: 'Review page link' });
    }
    return { collectId: settings.collectId, url: this.url(settings.collectId) };
  }

  /** Changes the share link (https only, or null) and the moderation mode; 400 naming each problem. */
  async updateSettings(orgId: string, actor: Actor, patch: { shareUrl?: unknown; moderation?: unknown }): Promise<{ shareUrl: string | null; moderation: ModerationMode }> {
    const settings = await this.settings(orgId);
    const problems: { parameter: string; message: string }[] = [];
    let shareUrl = settings.shareUrl;
    if (patch.shareUrl !== undefined) {
      if (patch.shareUrl === null || patch.shareUrl === '') shareUrl = null;
      else if (typeof patch.shareUrl !== 'string' || !isHttpsUrl(patch.shareUrl)) problems.push({ parameter: 'shareUrl', message: 'shareUrl must be an https:// address (at most 2,000 characters).' });
      else shareUrl = patch.shareUrl;
    }
    let moderation = settings.moderation;
    if (patch.moderation !== undefined) {
      if (!MODERATION_MODES.includes(patch.moderation as ModerationMode)) problems.push({ parameter: 'moderation', message: 'moderation must be "publish" or "hold".' });
      else moderation = patch.moderation as ModerationMode;
    }
    if (problems.length > 0) throw badRequest(problems.map((p) => p.message).join(' '), problems);
    // Only these fields are written: the invitation settings or a new link saved meanwhile stay.
    const saved = (await this.store.collect.patchSettings(orgId, { ...(patch.shareUrl !== undefined && { shareUrl }), ...(patch.moderation !== undefined && { moderation }), updatedAt: this.now().toISOString() })) ?? settings;
    if (saved.shareUrl !== settings.shareUrl || saved.moderation !== settings.moderation) {
      await audit(this.store, orgId, actor, 'collect.settings_changed', { id: orgId, label: 'Review page settings' }, { words: `moderation: ${saved.moderation === 'hold' ? 'hold every review' : 'publish confirmed reviews'}; share link: ${saved.shareUrl ?? 'none'}` });
    }
    return { shareUrl: saved.shareUrl, moderation: saved.moderation };
  }

  // ---- The page ---------------------------------------------------------------

  /** What the page shows for this link and product; null: no such link (or a replaced one), or no such product. */
  async page(collectId: string, productId: string | null): Promise<ReviewPageContext | null> {
    if (!COLLECT_ID.test(collectId)) return null;
    if (productId !== null && !PRODUCT_ID.test(productId)) return null;
    const settings = await this.store.collect.findByCollectId(collectId);
    if (!settings) return null;
    const org = await this.store.orgs.get(settings.orgId);
    if (!org) return null;
    const product = productId === null ? null : await this.store.products.get(org.id, productId);
    if (productId !== null && !product) return null;
    return { org, settings, product };
  }

  formToken(page: ReviewPageContext): string {
    return this.keys.formToken(page.settings.collectId, page.product?.id ?? null, this.now());
  }

  /** Checks every field; an empty object when all are good. */
  check(fields: SubmissionFields, withEmail = true): FieldErrors {
    const errors: FieldErrors = {};
    if (!/^[1-5]$/.test(fields.rating)) errors.rating = true;
    const content = fields.content.trim();
    if (content.length === 0 || length(content) > MAX_CONTENT) errors.content = true;
    const name = fields.authorName.trim();
    if (name.length === 0 || length(name) > MAX_NAME) errors.authorName = true;
    if (withEmail && (fields.email.length > MAX_EMAIL || !EMAIL.test(fields.email.trim()))) errors.email = true;
    if (withEmail && !fields.consent) errors.consent = true;
    return errors;
  }

  /**
   * A review written on the page (the caller has counted the address and
   * looked at the honeypot). Held for a person without mail; else pending
   * its confirmation, whose mail goes out as a job.
   */
  async submit(page: ReviewPageContext, formToken: unknown, fields: SubmissionFields, language: string): Promise<SubmitOutcome> {
    const now = this.now();
    const errors = this.check(fields);
    const form = this.keys.checkFormToken(formToken, page.settings.collectId, page.product?.id ?? null, now);
    if (Object.keys(errors).length > 0 || form !== 'ok') return { ok: false, errors, form };
    const stamp = now.toISOString();
    const content = fields.content.trim();
    const mail = this.mails;
    const submission: Submission = {
      id: newSubmissionId(),
      orgId: page.org.id,
      collectId: page.settings.collectId,
      productId: page.product?.id ?? null,
      rating: Number(fields.rating),
      content,
      authorName: fields.authorName.trim(),
      email: fields.email.trim(),
      emailKey: this.keys.emailKey(fields.email),
      language,
      state: 'pending',
      hold: mail ? 'awaiting_confirmation' : countLinks(content) > MAX_LINKS ? 'links' : 'no_mail',
      confirmed: false,
      rejectReason: null,
      confirmExpiresAt: mail ? new Date(now.getTime() + CONFIRM_DAYS * DAY_MS).toISOString() : null,
      reviewExternalId: null,
      mailSentAt: null,
      submittedAt: stamp,
      decidedAt: null,
      updatedAt: stamp,
    };
    await this.store.collect.create(submission);
    if (mail) await this.requestMail(submission.id);
    return { ok: true, thanks: { mail, shareUrl: page.settings.shareUrl } };
  }

  private async requestMail(submissionId: string): Promise<void> {
    if (!this.queue) throw new Error('the collect mail queue is not started');
    await this.queue.request({ key: `collect-mail:${submissionId}`, data: { submissionId } });
  }

  /** The mail job: renders and sends the confirmation of one submission, once the relay takes it. */
  readonly mailHandler: KeyedHandler<MailWork> = async (work): Promise<void | KeyedOutcome> => {
    if ('expire' in work) {
      await this.removeExpired();
      return;
    }
    const { submissionId } = work;
    const mailer = this.options.mailer;
    const sub = await this.store.collect.get(submissionId);
    if (!mailer || !sub || sub.state !== 'pending' || sub.hold !== 'awaiting_confirmation' || sub.mailSentAt !== null) return;
    const org = await this.store.orgs.get(sub.orgId);
    if (!org) return;
    const product = sub.productId === null ? null : await this.store.products.get(sub.orgId, sub.productId);
    try {
      await mailer.send({
        to: sub.email,
        language: sub.language,
        organization: org.name,
        subject: product?.name ?? org.name,
        rating: sub.rating,
        content: sub.content,
        confirmUrl: `${this.options.publicUrl}/r/confirm/${this.keys.link('confirm', sub.id)}`,
        manageUrl: `${this.options.publicUrl}/r/review/${this.keys.link('manage', sub.id)}`,
      });
    } catch (err) {
      // The relay's answer, never the address or the links.
      this.options.logger.warn({ submission: sub.id, err: err instanceof Error ? err.message : String(err) }, 'collect: the confirmation mail was not accepted; tried again later');
      if (this.now().getTime() - Date.parse(sub.submittedAt) < DAY_MS) return { again: true, delayMs: MAIL_RETRY_MS };
      return;
    }
    await this.store.collect.update({ ...sub, mailSentAt: this.now().toISOString(), updatedAt: this.now().toISOString() }, sub);
  };

  // ---- Confirmation -----------------------------------------------------------

  /** The submission a confirmation link opens while it can still be confirmed; null otherwise. */
  async confirmable(token: string): Promise<Submission | null> {
    const id = this.keys.openLink('confirm', token);
    const sub = id === null ? null : await this.store.collect.get(id);
    if (!sub || sub.state !== 'pending' || sub.hold !== 'awaiting_confirmation') return null;
    if (sub.confirmExpiresAt === null || Date.parse(sub.confirmExpiresAt) <= this.now().getTime()) return null;
    return sub;
  }

  /** The confirmation page's button: published, or held for a person; `gone` once used or expired. */
  async confirm(token: string): Promise<ConfirmOutcome> {
    // A lost race is tried again on what won it: the mail job stamps `mailSentAt` after the relay took the
    // mail, so a reviewer who clicks at once may meet that write; only a confirmation that is no longer
    // confirmable (used, expired) is `gone`.
    for (let attempt = 0; attempt < 5; attempt++) {
      const sub = await this.confirmable(token);
      if (!sub) return 'gone';
      const settings = await this.store.collect.getSettings(sub.orgId);
      const hold: HoldReason | null = countLinks(sub.content) > MAX_LINKS ? 'links' : settings?.moderation === 'hold' ? 'moderation' : null;
      const confirmed: Submission = { ...sub, confirmed: true, hold, confirmExpiresAt: null, updatedAt: this.now().toISOString() };
      if (hold !== null) {
        if (await this.store.collect.update(confirmed, sub)) return 'held';
      } else if ((await this.publish(sub, confirmed, { verified: false })) !== null) return 'published';
    }
    return 'gone';
  }

  /**
   * Publishes: the submission's state first (one writer wins), then its
   * Review. A reviewer's earlier published review of the same product
   * (same email) is replaced: the new one takes its natural key, so the
   * Review keeps its id (`review.updated`). `verified` is for invitation
   * links (§14), the only reviews ever `isVerified`: the page never sets it.
   *
   * Except through an invitation link: the organization holds every link,
   * so a link is no proof of being the address's owner, and a review written
   * through one never replaces or takes over an earlier one of that address
   * (`already_reviewed`, nothing written). Only a review proven by its
   * confirmation mail replaces.
   */
  private async publish(expected: Submission, next: Submission, options: { verified: boolean }): Promise<Submission | null | 'already_reviewed'> {
    const prior = await this.store.collect.findPublished(next.orgId, next.emailKey, next.productId);
    if (prior && prior.id !== next.id && isInvited(next)) return 'already_reviewed';
    const externalId = prior && prior.id !== next.id ? prior.reviewExternalId : (next.reviewExternalId ?? next.id);
    const stamp = this.now().toISOString();
    const published: Submission = { ...next, state: 'published', hold: null, reviewExternalId: externalId ?? next.id, decidedAt: stamp, updatedAt: stamp };
    const won = await this.store.collect.update(published, expected);
    if (!won) return null;
    await this.store.reviews.upsert(next.orgId, [this.reviewOf(published, options.verified)], this.now());
    if (prior && prior.id !== next.id) await this.store.collect.update({ ...prior, state: 'replaced', updatedAt: stamp }, prior);
    return won;
  }

  private reviewOf(sub: Submission, verified: boolean): ReviewInput {
    return {
      platform: 'DIRECT',
      externalId: sub.reviewExternalId ?? sub.id,
      authorName: sub.authorName,
      authorAvatar: null,
      rating: sub.rating,
      content: sub.content,
      date: sub.submittedAt,
      url: null,
      language: sub.language,
      isVerified: verified,
      sentiment: null,
      sentimentLabel: null,
      aiSummary: null,
      aiThemes: [],
      productId: sub.productId,
    };
  }

  // ---- Reviews through an invitation's link (CONTRACT §14) ----------------

  /**
   * The submission of an invitee, not yet published (pending, held for a
   * person: what a crash before `publishInvited` leaves, never a lost
   * review). The invitations service claims the invitation next, then
   * publishes it, or discards it when another submission won the link.
   */
  async createInvited(args: { orgId: string; invitationId: string; productId: string | null; email: string; fields: Omit<SubmissionFields, 'email'>; language: string }): Promise<Submission> {
    const settings = await this.settings(args.orgId);
    const stamp = this.now().toISOString();
    const submission: Submission = {
      id: newSubmissionId(),
      orgId: args.orgId,
      collectId: settings.collectId,
      productId: args.productId,
      rating: Number(args.fields.rating),
      content: args.fields.content.trim(),
      authorName: args.fields.authorName.trim(),
      email: args.email,
      emailKey: this.keys.emailKey(args.email),
      language: args.language,
      state: 'pending',
      hold: 'moderation',
      confirmed: true,
      rejectReason: null,
      confirmExpiresAt: null,
      reviewExternalId: null,
      mailSentAt: null,
      submittedAt: stamp,
      invitationId: args.invitationId,
      decidedAt: null,
      updatedAt: stamp,
    };
    await this.store.collect.create(submission);
    return submission;
  }

  /**
   * Publishes an invitee's review at once, `isVerified` (the only reviews
   * that are); null when it changed meanwhile; `already_reviewed` (nothing
   * written) when the address has a published review of that product (or of
   * the organization): a link never replaces it.
   */
  async publishInvited(sub: Submission): Promise<Submission | null | 'already_reviewed'> {
    return this.publish(sub, sub, { verified: true });
  }

  /** Whether the address (its key) has a published review of this product, or of the organization when null. */
  async hasPublished(orgId: string, emailKey: string, productId: string | null): Promise<boolean> {
    return (await this.store.collect.findPublished(orgId, emailKey, productId)) !== null;
  }

  /** Forgets an invitee's submission that lost its link to another one (the link is single use). */
  async discardInvited(sub: Submission): Promise<void> {
    const stamp = this.now().toISOString();
    await this.store.collect.update({ ...sub, state: 'deleted', hold: null, decidedAt: stamp, updatedAt: stamp }, sub);
  }

  /** The reviewer's private link of a submission (edit or delete). */
  manageUrl(submissionId: string): string {
    return `${this.options.publicUrl}/r/review/${this.keys.link('manage', submissionId)}`;
  }

  // ---- The reviewer's private link -------------------------------------------

  /** The submission a private link opens (pending or published); null otherwise. */
  async manageable(token: string): Promise<Submission | null> {
    const id = this.keys.openLink('manage', token);
    const sub = id === null ? null : await this.store.collect.get(id);
    return sub && (sub.state === 'pending' || sub.state === 'published') ? sub : null;
  }

  /** An edit by the reviewer: the same Review (its id kept, `review.updated`); too many links take it back to a person. */
  async edit(token: string, fields: Omit<SubmissionFields, 'email' | 'consent'>): Promise<{ ok: true } | { ok: false; errors: FieldErrors } | 'gone'> {
    const sub = await this.manageable(token);
    if (!sub) return 'gone';
    const errors = this.check({ ...fields, email: '', consent: true }, false);
    if (Object.keys(errors).length > 0) return { ok: false, errors };
    const stamp = this.now().toISOString();
    const next: Submission = { ...sub, rating: Number(fields.rating), content: fields.content.trim(), authorName: fields.authorName.trim(), updatedAt: stamp };
    if (sub.state === 'published' && countLinks(next.content) > MAX_LINKS) {
      const held: Submission = { ...next, state: 'pending', hold: 'links' };
      if (!(await this.store.collect.update(held, sub))) return 'gone';
      await this.removeReview(sub);
      return { ok: true };
    }
    if (!(await this.store.collect.update(next, sub))) return 'gone';
    if (next.state === 'published') await this.store.reviews.upsert(next.orgId, [this.reviewOf(next, isInvited(next))], this.now());
    return { ok: true };
  }

  /** The reviewer deletes their review (`review.removed` when it was published). */
  async delete(token: string): Promise<boolean> {
    const sub = await this.manageable(token);
    if (!sub) return false;
    const stamp = this.now().toISOString();
    if (!(await this.store.collect.update({ ...sub, state: 'deleted', decidedAt: stamp, updatedAt: stamp }, sub))) return false;
    if (sub.state === 'published') await this.removeReview(sub);
    return true;
  }

  private async removeReview(sub: Submission): Promise<void> {
    if (sub.reviewExternalId === null) return;
    const at = this.now();
    await this.store.reviews.remove(sub.orgId, 'DIRECT', [sub.reviewExternalId], at, new Date(at.getTime() + 1));
  }

  // ---- Moderation -------------------------------------------------------------

  async pending(orgId: string): Promise<PendingItem[]> {
    await this.org(orgId);
    return (await this.store.collect.listByState(orgId, 'pending')).map((s) => ({
      id: s.id,
      rating: s.rating,
      content: s.content,
      authorName: s.authorName,
      productId: s.productId,
      submittedAt: s.submittedAt,
      reason: s.hold,
    }));
  }

  /** A submission of the organization (any, for the operator: null). */
  private async pendingOne(orgId: string | null, id: string): Promise<Submission> {
    const sub = await this.store.collect.get(id);
    if (!sub || (orgId !== null && sub.orgId !== orgId)) throw new ApiError(404, 'review_not_found', `No review ${JSON.stringify(id)} from the review page in this organization.`);
    return sub;
  }

  /** A person publishes a pending review (awaiting its email step, or held). */
  async publishPending(orgId: string | null, id: string, actor: Actor): Promise<{ id: string; status: 'published' }> {
    const sub = await this.pendingOne(orgId, id);
    if (sub.state !== 'pending') throw new ApiError(409, 'not_pending', `The review ${id} is ${sub.state}, not pending.`);
    const done = await this.publish(sub, { ...sub, confirmExpiresAt: null }, { verified: isInvited(sub) });
    if (done === 'already_reviewed') throw new ApiError(409, 'already_reviewed', `The review ${id} came through an invitation link, and its author's address already has a published review of the same ${sub.productId === null ? 'organization' : 'product'}: a link never replaces it. Reject this one, or leave it.`);
    if (!done) throw new ApiError(409, 'not_pending', `The review ${id} changed meanwhile; reload.`);
    await audit(this.store, sub.orgId, actor, 'review.published', { id, label: `${sub.authorName} (${sub.rating}★)` }, { words: `${sub.rating} stars${sub.hold ? `, held: ${sub.hold.replace(/_/g, ' ')}` : ''}` });
    return { id, status: 'published' };
  }

  /** A person rejects a pending or published review, with one of §13's reasons. */
  async reject(orgId: string | null, id: string, reason: unknown, actor: Actor): Promise<{ id: string; status: 'rejected'; reason: RejectReason; rating: number }> {
    if (!REJECT_REASONS.includes(reason as RejectReason)) {
      const message = `reason must be one of ${REJECT_REASONS.join(', ')}.`;
      throw badRequest(message, [{ parameter: 'reason', message }]);
    }
    const sub = await this.pendingOne(orgId, id);
    if (sub.state !== 'pending' && sub.state !== 'published') throw new ApiError(409, 'not_pending', `The review ${id} is ${sub.state}.`);
    const stamp = this.now().toISOString();
    const done = await this.store.collect.update({ ...sub, state: 'rejected', hold: null, rejectReason: reason as RejectReason, confirmExpiresAt: null, decidedAt: stamp, updatedAt: stamp }, sub);
    if (!done) throw new ApiError(409, 'not_pending', `The review ${id} changed meanwhile; reload.`);
    if (sub.state === 'published') await this.removeReview(sub);
    await audit(this.store, sub.orgId, actor, 'review.rejected', { id, label: `${sub.authorName} (${sub.rating}★)` }, { words: `reason: ${(reason as string).replace(/_/g, ' ')}; ${sub.rating} stars` });
    return { id, status: 'rejected', reason: reason as RejectReason, rating: sub.rating };
  }

  /** Reviews rejected in the last 90 days by rating (the Overview: rejecting for being negative is suppression). */
  async rejectedByRating(orgId: string): Promise<{ rating: number; count: number }[]> {
    const counts = [0, 0, 0, 0, 0];
    const since = new Date(this.now().getTime() - REJECTED_WINDOW_DAYS * 86_400_000).toISOString();
    for (const s of await this.store.collect.listByState(orgId, 'rejected')) if ((s.decidedAt ?? s.updatedAt) >= since) counts[s.rating - 1]!++;
    return counts.map((count, i) => ({ rating: i + 1, count }));
  }
}

/** Written through an invitation's link: its review is `isVerified` (§13: no other review of the service is). */
export const isInvited = (sub: Submission): boolean => typeof sub.invitationId === 'string';

export function isHttpsUrl(value: string): boolean {
  if (value.length > 2000) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}
