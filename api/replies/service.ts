/**
 * Replies (CONTRACT §15): the one door the CLI, the admin API and the
 * dashboard call. A reply is a job on the keyed job door (api/jobs/
 * keyed-work.ts: BullMQ with REDIS_URL, in process otherwise), its durable
 * state in the store (ReplyStore), its outcome published through the
 * ReviewReplies port.
 *
 * - States: `draft` → (Owner/Admin approve) `scheduled` for the
 *   organization's delay (0–60 minutes, default 5; editable and cancellable
 *   meanwhile) → `publishing` (attempts, retries included) → `published` or
 *   `failed`; `deleted` once removed.
 * - Roles: Owner and Admin publish, approve, cancel and delete; a Member
 *   writes drafts.
 * - The text is checked against the platform's limit (the connector's,
 *   declared once) when it is written, and again by the connector before any
 *   request.
 * - 429 and 5xx (and a lost answer) are retried on the job door after the
 *   platform's Retry-After, else with exponential back-off, up to
 *   `maxAttempts`; then `failed` with the platform's reason. An authorization
 *   refusal fails at once and moves the source to `needs_reauth`.
 * - Never two replies: Google's PUT replaces; Trustpilot's writer reads the
 *   review's reply before posting (trustpilot.ts). A job that died after the
 *   platform took the reply leaves it `publishing`; resumed, it posts again
 *   through those same doors and finds it there.
 */
import type { SourceUrls } from '../config.ts';
import { audit } from '../dashboard/audit.ts';
import { ApiError, badRequest, notFound } from '../errors.ts';
import type { KeyedOutcome, KeyedQueue } from '../jobs/keyed-work.ts';
import type { Logger } from '../logger.ts';
import { PerKeyLimit } from '../net/per-key-limit.ts';
import type { SecretBox } from '../secrets/secrets.ts';
import { AuthError, CredentialsError, RateLimitError, ShapeError, type ConnectorContext, type ReplyWriter } from '../sources/connector.ts';
import { CONNECTORS } from '../sources/connectors.ts';
import { NetworkError, type HttpClient } from '../sources/http.ts';
import { assertReplyFits, PlatformBusyError, ReplyTakenError, ReplyTextError } from '../sources/reply.ts';
import { refuseSource } from '../sources/service.ts';
import { platformName } from '../sources/sync.ts';
import type { Role } from '../store/people-types.ts';
import { DEFAULT_REPLY_DELAY_MINUTES, REPLY_STATES, type AutoReplyRule, type ReplyActor, type ReplyRecord, type ReplyState, type ReplyTemplate } from '../store/reply-types.ts';
import type { Review, ReviewInput, Source, SourcePlatform, Store } from '../store/types.ts';
import { eventBody, newMessageId, replyFailedEvent } from '../webhooks/events.ts';
import { AUTO_REPLIES_PER_MINUTE, ReplyActionLimiter } from './limits.ts';
import { fillTemplate, ReplyTemplates, type TemplateView } from './templates.ts';
import type { ReviewReplies } from './port.ts';

export type { ReviewReplies, PublishedReply } from './port.ts';

/** Who asks: a dashboard user with their role in the organization, or the operator (CLI, admin API). */
export interface ReplyCaller {
  actor: ReplyActor;
  role: Role | 'operator';
}

export const OPERATOR_CALLER: ReplyCaller = { actor: { userId: null, email: 'operator' }, role: 'operator' };

/** The job's data: which review's reply. */
export interface ReplyJob {
  orgId: string;
  reviewId: string;
}

/** Who schedules the automatic-reply rule's replies: the audit log and the composer name the rule. */
export const AUTO_REPLY_ACTOR: ReplyActor = { userId: null, email: 'automatic reply rule' };
const AUTO_REPLY_CALLER: ReplyCaller = { actor: AUTO_REPLY_ACTOR, role: 'operator' };
/** How much earlier than the rule's `since` a review's own date may be and still be answered (platforms that publish late). */
export const AUTO_REPLY_GRACE_MS = 2 * 24 * 3600_000;
/** Reviews (orgId/reviewId) whose automatic reply this process is scheduling right now. */
const AUTO_IN_FLIGHT = new Set<string>();

/** Whether reviews of this platform can be answered here at all: DIRECT, or a platform whose connector has a reply writer. */
export function answerable(platform: string): boolean {
  const p = platform.toUpperCase();
  return p === 'DIRECT' || (CONNECTORS[p as SourcePlatform]?.replies ?? null) !== null;
}

export const MAX_DELAY_MINUTES = 60;
/** Platform attempts of one publish (the first included) before it is `failed`. */
export const MAX_ATTEMPTS = 5;
/**
 * Reply jobs of one organization running at once in an instance, at most: its
 * platform places (PER_ORG_PER_HOST, api/sources/http.ts), so 2 of the door's
 * 8 slots. A job past its organization's share gives its slot back at once
 * and comes back after ORG_WAIT_MS, behind the others (never waiting inside
 * a slot: another organization's reply goes first).
 */
export const REPLY_ORG_SLOTS = 2;
/** How soon a job turned away by its organization's share asks again (at most; the poll interval when shorter). */
const ORG_WAIT_MS = 1000;

export interface RepliesDeps {
  store: Store;
  box: SecretBox;
  /** Shared connections and trust (api/sources/http.ts); each call counted among the organization's lookups. */
  http: HttpClient;
  urls: SourceUrls;
  googleOAuth: { clientId: string; clientSecret: string } | null;
  logger: Logger;
  queue: KeyedQueue<ReplyJob>;
  /** Where a published (or deleted) reply is shown: the Review's `reply`. */
  replies: ReviewReplies;
  now?: () => Date;
  /** Milliseconds per minute of the delay (tests shorten it, like SOURCES_MINUTE_MS). */
  minuteMs?: number;
  /** The longest a job waits before looking again (a delay, a Retry-After): an edit or a cancel meanwhile is seen then. */
  pollMs?: number;
  maxAttempts?: number;
  /** The first back-off after a 5xx without Retry-After (doubled each attempt). */
  retryBaseMs?: number;
  /** The longest wait between two attempts, whatever Retry-After says. */
  maxRetryWaitMs?: number;
  /** Jobs of one organization running at once in this instance: REPLY_ORG_SLOTS when absent. */
  orgSlots?: number;
  /** Publishes and deletes per organization (limits.ts; shared in Redis when built with it): in process when absent. */
  actions?: ReplyActionLimiter;
  /** The automatic-reply rule's own posts per organization (AUTO_REPLIES_PER_MINUTE): in process when absent. */
  autoActions?: ReplyActionLimiter;
}

/** The composer's view of one review's reply (RepliesService.about). */
export interface ReplyAbout {
  review: Review;
  platform: string;
  reply: ReplyRecord | null;
  noReplyApi: string | null;
  blocked: string | null;
  maxBytes: number | null;
  delayMinutes: number;
  /** The organization's templates filled in for this review, and the one proposed for it. */
  templates: TemplateView[];
  proposal: TemplateView | null;
}

/** What `replies publish --json` answers (CONTRACT §15). */
export interface PublishView {
  reviewId: string;
  state: ReplyState;
  scheduledAt: string | null;
  reply: { text: string; date: string } | null;
  error: string | null;
}

/** One line of `replies list --json`. */
export interface ListView {
  reviewId: string;
  platform: string;
  state: ReplyState;
  text: string;
  scheduledAt: string | null;
  publishedAt: string | null;
  error: string | null;
}

/** What the dashboard's routes answer: the list line with who wrote and approved it. */
export interface ReplyView extends ListView {
  date: string | null;
  author: string;
  approvedBy: string | null;
  updatedAt: string;
}

export function publishView(r: ReplyRecord): PublishView {
  return { reviewId: r.reviewId, state: r.state, scheduledAt: r.scheduledAt, reply: r.state === 'published' && r.date !== null ? { text: r.text, date: r.date } : null, error: r.error };
}

export function listView(r: ReplyRecord): ListView {
  return { reviewId: r.reviewId, platform: r.platform, state: r.state, text: r.text, scheduledAt: r.scheduledAt, publishedAt: r.publishedAt, error: r.error };
}

export function replyView(r: ReplyRecord): ReplyView {
  return { ...listView(r), date: r.date, author: r.author.email, approvedBy: r.approvedBy?.email ?? null, updatedAt: r.updatedAt };
}

export function parseReplyState(value: unknown): ReplyState | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !(REPLY_STATES as readonly string[]).includes(value)) {
    throw badRequest(`state must be one of ${REPLY_STATES.join(', ')}`, [{ parameter: 'state', message: 'unknown state' }]);
  }
  return value as ReplyState;
}

/** Where a review's reply goes: DIRECT (here), or a source's platform through its writer. */
interface Target {
  platform: string;
  source: Source | null;
  writer: ReplyWriter<unknown> | null;
}

const forbidden = (message: string): ApiError => new ApiError(403, 'forbidden', message);
const conflict = (message: string): ApiError => new ApiError(409, 'conflict', message);

/** The answer to an approval of words that are no longer the draft's. */
export const DRAFT_CHANGED = 'The draft changed since you opened it; read it again.';

const jobKey = (j: ReplyJob): string => `reply:${j.orgId}:${j.reviewId}`;

export class RepliesService {
  private readonly now: () => Date;
  private readonly minuteMs: number;
  private readonly pollMs: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly maxRetryWaitMs: number;
  /** Per source, what its writer keeps between calls (Trustpilot's token): in memory only, never stored or logged. */
  private readonly sessions = new Map<string, Map<string, unknown>>();
  /** Whether start() listens to the store's review upserts already (the automatic-reply rule). */
  private listening: (() => void) | null = null;
  /** Each organization's share of the job door's slots in this instance. */
  private readonly share: PerKeyLimit;
  private readonly actions: ReplyActionLimiter;
  private readonly autoActions: ReplyActionLimiter;
  /** The organization's reply templates (templates.ts). */
  readonly templates: ReplyTemplates;

  constructor(private readonly deps: RepliesDeps) {
    this.templates = new ReplyTemplates({ store: deps.store, ...(deps.now && { now: deps.now }) });
    this.now = deps.now ?? (() => new Date());
    this.minuteMs = deps.minuteMs ?? 60_000;
    this.pollMs = deps.pollMs ?? 15_000;
    this.maxAttempts = deps.maxAttempts ?? MAX_ATTEMPTS;
    this.retryBaseMs = deps.retryBaseMs ?? 30_000;
    this.maxRetryWaitMs = deps.maxRetryWaitMs ?? 15 * 60_000;
    this.share = new PerKeyLimit(deps.orgSlots ?? REPLY_ORG_SLOTS);
    this.actions = deps.actions ?? new ReplyActionLimiter(null);
    this.autoActions = deps.autoActions ?? new ReplyActionLimiter(null, AUTO_REPLIES_PER_MINUTE, 'reply-auto');
  }

  /**
   * Starts the job door with this service's handler, and resumes what was
   * waiting (a restart, a crash mid-post). From then on the automatic-reply
   * rule looks at each review upsert of this process (autoReplyNew).
   */
  async start(): Promise<void> {
    if (!this.listening) {
      this.listening =
        this.deps.store.reviewsUpserted?.listen((orgId, inputs, now) => {
          this.autoReplyNew(orgId, inputs, now).catch((err: unknown) => this.deps.logger.warn({ orgId, err: (err as Error).message }, 'automatic replies: not scheduled'));
        }) ?? (() => undefined);
    }
    await this.deps.queue.start((job) => this.run(job));
    for (const r of await this.deps.store.replies.pending()) await this.request(r);
  }

  /** Stops looking at the store's review upserts (the automatic-reply rule); the job door is closed by its owner. */
  stopListening(): void {
    this.listening?.();
    this.listening = null;
  }

  private request(j: ReplyJob): Promise<void> {
    return this.deps.queue.request({ key: jobKey(j), data: { orgId: j.orgId, reviewId: j.reviewId } });
  }

  // --- The door: drafts, publishing, approval, edits, cancel, delete, lists. ---

  /** A draft: any member of the organization; Owner or Admin publish it (approve). */
  async draft(caller: ReplyCaller, orgId: string, reviewId: string, text: unknown): Promise<ReplyRecord> {
    const review = await this.review(orgId, reviewId);
    const target = await this.target(review);
    const checked = this.text(target, text);
    const existing = await this.deps.store.replies.get(orgId, reviewId);
    if (existing?.state === 'publishing') throw conflict('This reply is being posted right now: wait until it is published or failed.');
    if (existing?.state === 'scheduled' && !publisher(caller)) throw forbidden('This reply is approved and waiting to be posted: only an Owner or Admin can change it now.');
    const record = this.fresh(orgId, review, target, checked, caller.actor, existing, { state: 'draft', scheduledAt: null, approvedBy: null });
    await this.deps.store.replies.put(record);
    return record;
  }

  /**
   * Owner or Admin: posted after the organization's delay (`now`: at once).
   * Without `text`, the draft (or failed reply) there is what is posted: an approval.
   */
  async publish(caller: ReplyCaller, orgId: string, reviewId: string, text: unknown, options: { now?: boolean } = {}): Promise<ReplyRecord> {
    if (!publisher(caller)) throw forbidden('Only an Owner or Admin can publish a reply; a Member writes a draft for them to approve.');
    const review = await this.review(orgId, reviewId);
    const target = await this.target(review);
    const existing = await this.deps.store.replies.get(orgId, reviewId);
    if (existing?.state === 'publishing') throw conflict('This reply is being posted right now: wait until it is published or failed.');
    // No text given: the caller's own draft, or a failed or waiting reply (approved already), is what is posted;
    // someone else's draft (a Member's, the rule's) is approved only with the words read (approve's rule).
    if ((text === undefined || text === null) && existing?.state === 'draft' && !sameActor(existing.author, caller.actor)) {
      throw badRequest('Send the draft\'s text as you read it (text): this draft was written by someone else, and only the words read are approved.', [{ parameter: 'text', message: 'required' }]);
    }
    const kept = existing && existing.state !== 'deleted' && existing.state !== 'published' ? existing.text : undefined;
    const wanted = text === undefined || text === null ? kept : text;
    if (wanted === undefined) throw badRequest('Write the reply\'s text (there is no draft to approve).', [{ parameter: 'text', message: 'required' }]);
    const checked = this.text(target, wanted);
    this.ready(target);
    // Counted once it would be scheduled (a refusal above costs nothing): a 429 with Retry-After past the rate.
    // The rule's replies never use the people's budget: they are counted apart when they are posted (attempt).
    if (caller !== AUTO_REPLY_CALLER) await this.actions.take(orgId);
    const delay = options.now ? 0 : (await this.deps.store.replies.settings(orgId)).delayMinutes;
    const at = this.now();
    // The draft's writer stays its author; the publisher is who approved it.
    const author = existing?.state === 'draft' && existing.text === checked ? existing.author : caller.actor;
    const record = this.fresh(orgId, review, target, checked, author, existing, { state: 'scheduled', scheduledAt: new Date(at.getTime() + delay * this.minuteMs).toISOString(), approvedBy: caller.actor });
    await this.deps.store.replies.put(record);
    await this.request(record);
    return record;
  }

  /**
   * Owner or Admin: the draft there, posted after the delay. `seen` is the
   * draft's text as the approver read it: a draft changed since (a Member
   * saved other words meanwhile) is a 409 and nothing is scheduled; what is
   * scheduled is the text the approver read, never newer words.
   */
  async approve(caller: ReplyCaller, orgId: string, reviewId: string, seen: unknown): Promise<ReplyRecord> {
    if (!publisher(caller)) throw forbidden('Only an Owner or Admin can publish a reply; a Member writes a draft for them to approve.');
    if (typeof seen !== 'string' || seen === '') throw badRequest('Send the draft\'s text as you read it (text).', [{ parameter: 'text', message: 'required' }]);
    const existing = await this.deps.store.replies.get(orgId, reviewId);
    if (!existing || existing.state !== 'draft') throw conflict(`There is no draft to approve for this review${existing ? ` (its reply is ${existing.state})` : ''}.`);
    if (existing.text !== seen) throw conflict(DRAFT_CHANGED);
    return this.publish(caller, orgId, reviewId, seen);
  }

  /** A new text for a reply not yet posted: a draft (anyone), or a scheduled one (Owner or Admin: it keeps its time). */
  async edit(caller: ReplyCaller, orgId: string, reviewId: string, text: unknown): Promise<ReplyRecord> {
    const existing = await this.deps.store.replies.get(orgId, reviewId);
    if (!existing || (existing.state !== 'draft' && existing.state !== 'scheduled')) throw conflict(`Only a draft or a reply waiting to be posted can be edited${existing ? ` (this one is ${existing.state})` : ''}.`);
    if (existing.state === 'draft') return this.draft(caller, orgId, reviewId, text);
    if (!publisher(caller)) throw forbidden('This reply is approved and waiting to be posted: only an Owner or Admin can change it now.');
    const target = await this.target(await this.review(orgId, reviewId));
    const checked = this.text(target, text);
    const updated = await this.deps.store.replies.update(orgId, reviewId, ['scheduled'], { text: checked, updatedAt: this.now().toISOString() });
    if (!updated) throw conflict('This reply started being posted meanwhile: it can no longer be edited.');
    return updated;
  }

  /** Owner or Admin: a reply waiting for its delay goes back to draft; nothing is posted. */
  async cancel(caller: ReplyCaller, orgId: string, reviewId: string): Promise<ReplyRecord> {
    if (!publisher(caller)) throw forbidden('Only an Owner or Admin can cancel a reply waiting to be posted.');
    const updated = await this.deps.store.replies.update(orgId, reviewId, ['scheduled'], { state: 'draft', scheduledAt: null, approvedBy: null, updatedAt: this.now().toISOString() });
    if (!updated) {
      const existing = await this.deps.store.replies.get(orgId, reviewId);
      throw conflict(existing ? `This reply is ${existing.state}, not waiting to be posted: it cannot be cancelled.` : 'This review has no reply waiting to be posted.');
    }
    return updated;
  }

  /**
   * Owner or Admin: the reply leaves the platform (a reply already gone is no
   * error) and the review; audited. Not while it is being posted.
   */
  async remove(caller: ReplyCaller, orgId: string, reviewId: string): Promise<ReplyRecord> {
    if (!publisher(caller)) throw forbidden('Only an Owner or Admin can delete a reply.');
    const review = await this.review(orgId, reviewId);
    const target = await this.target(review);
    const existing = await this.deps.store.replies.get(orgId, reviewId);
    if (existing?.state === 'publishing') throw conflict('This reply is being posted right now: delete it once it is published or failed.');
    await this.actions.take(orgId);
    // Taken out of the job's way first: a scheduled reply is never posted after this.
    if (existing?.state === 'scheduled' && !(await this.deps.store.replies.update(orgId, reviewId, ['scheduled'], { state: 'draft', scheduledAt: null, updatedAt: this.now().toISOString() }))) {
      throw conflict('This reply started being posted meanwhile: delete it once it is published or failed.');
    }
    // The platform is asked whenever a reply may be there: the review shows one (ours, or one written elsewhere),
    // ours was ever published (a draft saved over it since keeps publishedAt), or failed after it may have been taken.
    const onPlatform = !existing || review.reply !== null || existing.publishedAt !== null || existing.state === 'published' || existing.state === 'failed';
    if (target.writer && target.source && onPlatform) {
      this.ready(target);
      try {
        await target.writer.remove(this.context(target.source), review.externalId);
      } catch (err) {
        throw await this.refusal(target, err);
      }
    }
    await this.deps.replies.set(orgId, reviewId, null);
    const at = this.now().toISOString();
    const record = this.fresh(orgId, review, target, existing?.text ?? '', existing?.author ?? caller.actor, existing, { state: 'deleted', scheduledAt: null, approvedBy: existing?.approvedBy ?? null });
    await this.deps.store.replies.put({ ...record, publishedAt: null, date: null, updatedAt: at });
    await audit(this.deps.store, orgId, auditActor(caller.actor), 'reply.deleted', reviewTarget(review), { platform: platformName(target.platform) });
    return { ...record, publishedAt: null, date: null, updatedAt: at };
  }

  /** The organization a review belongs to (the CLI names a review by its id alone): a 404 when none has it. */
  async orgOf(reviewId: string): Promise<string> {
    if (typeof reviewId !== 'string' || reviewId === '') throw notFound('Review');
    for (const org of await this.deps.store.orgs.list()) {
      if (await this.deps.store.reviews.get(org.id, reviewId)) return org.id;
    }
    throw notFound(`Review ${JSON.stringify(reviewId.slice(0, 64))}`);
  }

  /**
   * What the dashboard's composer needs for one review: its reply record (null
   * when none), whether the platform takes replies (`noReplyApi`: why not, in
   * words), what stops a publish now while a draft is still possible
   * (`blocked`: a source to reconnect, credentials missing), the platform's
   * limit in bytes of UTF-8 (null: none), and the organization's delay.
   */
  async about(orgId: string, reviewId: string): Promise<ReplyAbout> {
    const review = await this.review(orgId, reviewId);
    let target: Target | null = null;
    let noReplyApi: string | null = null;
    try {
      target = await this.target(review);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 400) throw err;
      noReplyApi = err.message;
    }
    let blocked: string | null = null;
    if (target) {
      try {
        this.ready(target);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        blocked = err.message;
      }
    }
    return {
      review,
      platform: review.platform.toUpperCase(),
      reply: await this.deps.store.replies.get(orgId, reviewId),
      noReplyApi,
      blocked,
      maxBytes: target?.writer?.maxBytes ?? null,
      delayMinutes: await this.delay(orgId),
      ...(await this.templates.forReview(review, (await this.deps.store.orgs.get(orgId))?.name ?? '')),
    };
  }

  async get(orgId: string, reviewId: string): Promise<ReplyRecord> {
    const r = await this.deps.store.replies.get(orgId, reviewId);
    if (!r) throw notFound('Reply');
    return r;
  }

  list(orgId: string, state?: ReplyState): Promise<ReplyRecord[]> {
    return this.deps.store.replies.list(orgId, state);
  }

  async delay(orgId: string): Promise<number> {
    return (await this.deps.store.replies.settings(orgId)).delayMinutes;
  }

  /** Owner or Admin: minutes between approval and posting (0–60). */
  async setDelay(caller: ReplyCaller, orgId: string, minutes: unknown): Promise<number> {
    if (!publisher(caller)) throw forbidden('Only an Owner or Admin can change the reply delay.');
    const n = typeof minutes === 'string' && /^\d+$/.test(minutes.trim()) ? Number(minutes) : minutes;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_DELAY_MINUTES) {
      throw badRequest(`The delay must be a whole number of minutes from 0 to ${MAX_DELAY_MINUTES} (default ${DEFAULT_REPLY_DELAY_MINUTES}).`, [{ parameter: 'delayMinutes', message: '0–60' }]);
    }
    const before = await this.deps.store.replies.settings(orgId);
    await this.deps.store.replies.putSettings({ ...before, orgId, delayMinutes: n });
    return n;
  }

  /**
   * The automatic-reply rule (CONTRACT §15) for one upsert batch, once it
   * landed: each review it created (its createdAt is the batch's time: never a
   * review that existed before, so turning the rule on touches none of those),
   * written by its customer since the rule was turned on (its own `date` at
   * or after `since`, less AUTO_REPLY_GRACE_MS) and, for a platform's review,
   * since its source was connected (its `date` at or after the source's
   * `createdAt`, no grace: a newly connected source's history, however young,
   * is never answered, its first pass answers nothing), collected rather than
   * imported from a file (a Google or Trustpilot review its connected source
   * synced, a DIRECT one from the review page), with no text, a rating of the rule's
   * minimum or more and no reply yet, gets the rule's template, filled in as
   * the composer proposes it, scheduled through `publish` after the
   * organization's delay (cancellable meanwhile) and audited as
   * `reply.auto_scheduled`. Off, or its template deleted meanwhile: nothing.
   * Its replies never use the people's publish budget: they are posted at
   * most AUTO_REPLIES_PER_MINUTE a minute, the others waiting their turn.
   * A review whose reply cannot be scheduled (no credentials) is logged and
   * left for a person. Answers how many were scheduled.
   */
  async autoReplyNew(orgId: string, inputs: readonly ReviewInput[], now: Date): Promise<number> {
    const blank = inputs.filter((r) => r.content.trim() === '' && answerable(r.platform));
    if (blank.length === 0) return 0;
    const stamp = now.toISOString();
    const rule = (await this.deps.store.replies.settings(orgId)).autoReply;
    if (!rule?.enabled || (rule.since !== undefined && stamp < rule.since)) return 0;
    const wanted = blank.filter((r) => (r.rating ?? 0) >= rule.minRating);
    if (wanted.length === 0) return 0;
    const template = await this.deps.store.replies.getTemplate(orgId, rule.templateId);
    if (!template) {
      this.deps.logger.warn({ orgId }, 'automatic replies: the rule\'s template was deleted; nothing scheduled');
      return 0;
    }
    const byPlatform = new Map<string, string[]>();
    for (const r of wanted) byPlatform.set(r.platform, [...(byPlatform.get(r.platform) ?? []), r.externalId]);
    const business = (await this.deps.store.orgs.get(orgId))?.name ?? '';
    let scheduled = 0;
    // Each source read once for the batch (a first pass brings hundreds of reviews of one source).
    const sources = new Map<string, Promise<Source | null>>();
    for (const [platform, ids] of byPlatform) {
      for (const review of await this.deps.store.reviews.findByExternalIds(orgId, platform, [...new Set(ids)])) {
        // Created by this write, as stored (the last record of the batch wins), with no reply anywhere yet.
        if (review.createdAt !== stamp || (rule.since !== undefined && review.createdAt < rule.since) || review.content.trim() !== '' || (review.rating ?? 0) < rule.minRating || review.reply) continue;
        // Written by its customer since the rule was turned on (a grace for platforms that publish late): nothing older than the rule is answered.
        if (rule.since !== undefined && !(Date.parse(review.date) >= Date.parse(rule.since) - AUTO_REPLY_GRACE_MS)) continue;
        // Collected, never imported from a file: a platform review written since its source was connected (no grace: a newly connected source's first pass answers nothing), a DIRECT one from the review page.
        if (!(await this.collected(orgId, review, sources))) continue;
        // One at a time per review in this process (the only one that heard this write): the look and the put never interleave with another's.
        const key = `${orgId}/${review.id}`;
        if (AUTO_IN_FLIGHT.has(key)) continue;
        AUTO_IN_FLIGHT.add(key);
        try {
          if (await this.autoSchedule(orgId, review, rule, template, business)) scheduled++;
        } finally {
          AUTO_IN_FLIGHT.delete(key);
        }
      }
    }
    return scheduled;
  }

  /**
   * Whether the review came from where the rule answers: a platform's review
   * its source collected, written (its own date) at or after the time that
   * source was connected, so that nothing of what the source found on the
   * platform when it was connected is ever answered; a DIRECT one published
   * from the review page (never a file import).
   */
  private async collected(orgId: string, review: Review, sources: Map<string, Promise<Source | null>>): Promise<boolean> {
    if (review.platform.toUpperCase() !== 'DIRECT') {
      if (review.sourceId === undefined) return false;
      if (!sources.has(review.sourceId)) sources.set(review.sourceId, this.deps.store.sources.get(review.sourceId));
      const source = await sources.get(review.sourceId)!;
      return source !== null && source.orgId === orgId && Date.parse(review.date) >= Date.parse(source.createdAt);
    }
    const submission = await this.deps.store.collect.get(review.externalId);
    return submission !== null && submission.orgId === orgId && submission.reviewExternalId === review.externalId;
  }

  /** One review's automatic reply, unless it has one already; false when none was scheduled (logged). */
  private async autoSchedule(orgId: string, review: Review, rule: AutoReplyRule, template: ReplyTemplate, business: string): Promise<boolean> {
    if (await this.deps.store.replies.get(orgId, review.id)) return false;
    const product = review.productId ? ((await this.deps.store.products.get(orgId, review.productId))?.name ?? null) : null;
    const text = fillTemplate(template.text, { author: review.authorName, business, product });
    try {
      const record = await this.publish(AUTO_REPLY_CALLER, orgId, review.id, text);
      await audit(this.deps.store, orgId, auditActor(AUTO_REPLY_ACTOR), 'reply.auto_scheduled', reviewTarget(review), {
        platform: platformName(review.platform.toUpperCase()),
        by: `automatic reply rule (${rule.minRating}+ stars, template “${template.name}”)`,
        scheduledAt: record.scheduledAt ?? '',
      });
      return true;
    } catch (err) {
      this.deps.logger.warn({ orgId, reviewId: review.id, err: (err as Error).message }, 'automatic replies: this review\'s reply was not scheduled');
      return false;
    }
  }

  /** The organization's automatic-reply rule (off when never set). */
  async autoReply(orgId: string): Promise<AutoReplyRule | null> {
    const rule = (await this.deps.store.replies.settings(orgId)).autoReply;
    return rule ? { enabled: rule.enabled, minRating: rule.minRating, templateId: rule.templateId } : null;
  }

  /**
   * Sets the one optional rule (CONTRACT §15): {enabled, minRating 1–5, templateId}.
   * The template must exist in the organization and suit every rating from
   * minRating to 5 (else a 400: a 4-star template would answer 5-star reviews).
   * Audited; it applies to reviews that arrive afterwards only.
   */
  async setAutoReply(caller: ReplyCaller, orgId: string, input: unknown): Promise<AutoReplyRule> {
    if (!publisher(caller)) throw forbidden('Only an Owner or Admin can change the automatic reply rule.');
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw badRequest('Send {enabled, minRating, templateId}.');
    const { enabled, minRating, templateId } = input as Record<string, unknown>;
    if (typeof enabled !== 'boolean') throw badRequest('enabled must be true or false.', [{ parameter: 'enabled', message: 'true or false' }]);
    if (typeof minRating !== 'number' || !Number.isInteger(minRating) || minRating < 1 || minRating > 5) {
      throw badRequest('minRating must be a whole number of stars from 1 to 5.', [{ parameter: 'minRating', message: '1–5' }]);
    }
    if (typeof templateId !== 'string' || templateId === '') throw badRequest('Choose a reply template (templateId).', [{ parameter: 'templateId', message: 'required' }]);
    const template = await this.deps.store.replies.getTemplate(orgId, templateId);
    if (!template) throw badRequest('No such reply template in this organization.', [{ parameter: 'templateId', message: 'unknown' }]);
    const missing = [1, 2, 3, 4, 5].filter((r) => r >= minRating && !template.ratings.includes(r));
    if (missing.length > 0) {
      throw badRequest(`The template “${template.name}” does not suit ${missing.join(', ')}-star reviews: choose one that suits every rating from ${minRating} to 5, or raise the minimum.`, [{ parameter: 'templateId', message: 'ratings' }]);
    }
    const before = await this.deps.store.replies.settings(orgId);
    // Turned on now (or kept on): reviews created before this moment are never answered by it.
    const since = enabled ? (before.autoReply?.enabled && before.autoReply.since ? before.autoReply.since : this.now().toISOString()) : undefined;
    await this.deps.store.replies.putSettings({ ...before, orgId, autoReply: { enabled, minRating, templateId, ...(since !== undefined && { since }) } });
    const rule: AutoReplyRule = { enabled, minRating, templateId };
    await audit(this.deps.store, orgId, auditActor(caller.actor), 'reply.auto_rule_changed', { id: template.id, label: `Automatic replies (${minRating}+ stars, “${template.name}”)` }, { words: enabled ? 'on' : 'off' });
    return rule;
  }

  /** Waits (polling the store, at most `timeoutMs`) until the reply is published or failed; answers it as it is then. */
  async settled(orgId: string, reviewId: string, timeoutMs = 10 * 60_000): Promise<ReplyRecord> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.get(orgId, reviewId);
      if (r.state !== 'scheduled' && r.state !== 'publishing') return r;
      if (Date.now() >= until) return r;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  // --- The job. ---

  /**
   * The handler the job door runs: a plain function of the job's data. An
   * organization with its share of jobs running already gets its slot back at
   * once, asking again shortly (it never waits inside a slot for its platform place).
   */
  async run(job: ReplyJob): Promise<void | KeyedOutcome> {
    const turn = this.share.tryRun(job.orgId, () => this.attempt(job));
    return turn ? await turn : { again: true, delayMs: Math.min(ORG_WAIT_MS, this.pollMs) };
  }

  private async attempt(job: ReplyJob): Promise<void | KeyedOutcome> {
    const { store } = this.deps;
    const r = await store.replies.get(job.orgId, job.reviewId);
    if (!r || (r.state !== 'scheduled' && r.state !== 'publishing')) return;
    const due = r.state === 'scheduled' ? r.scheduledAt : r.retryAt;
    const wait = due ? Date.parse(due) - this.now().getTime() : 0;
    if (wait > 0) return { again: true, delayMs: Math.min(wait, this.pollMs) };
    if (r.state === 'scheduled' && isRuleReply(r)) {
      // The rule's own budget (AUTO_REPLIES_PER_MINUTE): past it, the reply waits its turn (its time moved on), never dropped.
      const later = await this.autoActions.admit(r.orgId);
      if (later !== null) {
        const at = new Date(this.now().getTime() + later * 1000).toISOString();
        const moved = await store.replies.update(r.orgId, r.reviewId, ['scheduled'], { scheduledAt: at });
        return moved ? { again: true, delayMs: Math.min(later * 1000, this.pollMs) } : { again: true, delayMs: 0 };
      }
    }
    // The state and the attempt counted in one step: a cancel meanwhile wins, and so does another instance.
    const taken = await store.replies.update(r.orgId, r.reviewId, [r.state], { state: 'publishing', attempts: (r.state === 'scheduled' ? 0 : r.attempts) + 1, retryAt: null, updatedAt: this.now().toISOString() });
    if (!taken) return;
    const log = this.deps.logger.child({ orgId: r.orgId, reviewId: r.reviewId, platform: r.platform, attempt: taken.attempts });
    let date: string | null;
    let target: Target;
    const byRule = isRuleReply(taken);
    try {
      const review = await this.review(r.orgId, r.reviewId);
      // The rule's reply is looked at again just before the platform call: what it was scheduled for may no longer hold.
      const stale = byRule ? await this.ruleNoLongerHolds(taken, review) : null;
      if (stale) {
        await this.withdraw(taken, review, stale);
        return;
      }
      target = await this.target(review);
      this.ready(target);
      // The rule never replaces a reply on the platform (one written there during the delay, which no sync has brought yet).
      date = target.writer && target.source ? (await target.writer.publish(this.context(target.source), review.externalId, taken.text, byRule ? { replace: false } : {})).date : null;
    } catch (err) {
      if (byRule && err instanceof ReplyTakenError) {
        const review = await this.deps.store.reviews.get(r.orgId, r.reviewId);
        await this.withdraw(taken, review, `${err.message}; the automatic reply was not posted`);
        return;
      }
      const retryable = err instanceof RateLimitError || err instanceof PlatformBusyError || err instanceof NetworkError;
      // Our own errors and the platforms' are meant for people; anything else is logged and named in general words.
      const known = err instanceof Error && err.name !== 'Error';
      if (!known) log.error({ err }, 'reply: unexpected error');
      // A malformed answer is not retried for a reply: its words never say it will be (the sync's own do).
      const reason =
        err instanceof ShapeError
          ? `${err.label} answered something that is not its documented shape (${err.what}): that answer was not used and the reply is not tried again; look at the review on ${err.label}, then publish again`
          : known
            ? err.message
            : 'an unexpected error on our side (the service log has it): publish again';
      if (retryable && taken.attempts < this.maxAttempts) {
        const after = err instanceof RateLimitError || err instanceof PlatformBusyError ? err.retryAfterMs : null;
        const waitMs = Math.min(this.maxRetryWaitMs, after ?? this.retryBaseMs * 2 ** (taken.attempts - 1));
        const retryAt = new Date(this.now().getTime() + waitMs).toISOString();
        log.info({ waitMs, reason }, 'reply: attempt failed, trying again');
        const kept = await store.replies.update(r.orgId, r.reviewId, ['publishing'], { retryAt, error: `${reason} (attempt ${taken.attempts} of ${this.maxAttempts}; next at ${retryAt})` });
        return kept ? { again: true, delayMs: Math.min(waitMs, this.pollMs) } : undefined;
      }
      if (err instanceof AuthError && r.sourceId) await refuseSource(store, r.sourceId, err.message);
      await this.fail(taken, retryable ? `${reason}; gave up after ${taken.attempts} attempts: publish again later` : reason);
      return;
    }
    const at = this.now().toISOString();
    const done = await store.replies.update(r.orgId, r.reviewId, ['publishing'], { state: 'published', publishedAt: at, date: date ?? at, error: null, retryAt: null, updatedAt: at });
    if (!done) return;
    await this.deps.replies.set(done.orgId, done.reviewId, { text: done.text, date: done.date ?? at });
    const review = await store.reviews.get(done.orgId, done.reviewId);
    await audit(store, done.orgId, auditActor(done.approvedBy ?? done.author), 'reply.published', review ? reviewTarget(review) : { id: done.reviewId, label: done.reviewId }, { platform: platformName(target.platform), attempts: String(done.attempts), by: 'service' });
    log.info({}, 'reply published');
  }

  /**
   * Why the rule's reply must not be posted now, or null: the review got a
   * reply meanwhile (a sync brought one written on the platform), text (edited
   * into a complaint), a rating below the rule's minimum, or the rule was
   * turned off. A reply of our own words there (an earlier attempt whose
   * answer was lost, brought back by a sync) is no reason.
   */
  private async ruleNoLongerHolds(r: ReplyRecord, review: Review): Promise<string | null> {
    const rule = (await this.deps.store.replies.settings(r.orgId)).autoReply;
    if (!rule?.enabled) return 'the automatic reply rule was turned off before it was posted';
    if (review.reply && review.reply.text !== r.text) return 'the review got another reply before the automatic one was posted';
    if (review.content.trim() !== '') return 'the review has text now (it was edited), so the rule no longer applies';
    if ((review.rating ?? 0) < rule.minRating) return `the review's rating is now ${review.rating ?? 'none'}, below the rule's ${rule.minRating} stars`;
    return null;
  }

  /** The rule's reply, taken to be posted, goes back to draft with the reason; nothing was posted (audited `reply.auto_withdrawn`). */
  private async withdraw(r: ReplyRecord, review: Review | null, reason: string): Promise<void> {
    const { store } = this.deps;
    const back = await store.replies.update(r.orgId, r.reviewId, ['publishing'], { state: 'draft', scheduledAt: null, approvedBy: null, retryAt: null, error: `Not posted: ${reason}.`, updatedAt: this.now().toISOString() });
    if (!back) return;
    this.deps.logger.info({ orgId: r.orgId, reviewId: r.reviewId, platform: r.platform, reason }, 'automatic reply withdrawn');
    await audit(store, r.orgId, auditActor(AUTO_REPLY_ACTOR), 'reply.auto_withdrawn', review ? reviewTarget(review) : { id: r.reviewId, label: r.reviewId }, { platform: platformName(r.platform), reason, by: 'service' });
  }

  private async fail(r: ReplyRecord, reason: string): Promise<void> {
    const { store } = this.deps;
    const at = this.now();
    const failed = await store.replies.update(r.orgId, r.reviewId, ['publishing'], { state: 'failed', error: reason, retryAt: null, updatedAt: at.toISOString() });
    if (!failed) return;
    this.deps.logger.warn({ orgId: r.orgId, reviewId: r.reviewId, platform: r.platform, reason }, 'reply failed');
    const review = await store.reviews.get(r.orgId, r.reviewId);
    await audit(store, r.orgId, auditActor(r.approvedBy ?? r.author), 'reply.failed', review ? reviewTarget(review) : { id: r.reviewId, label: r.reviewId }, { platform: platformName(r.platform), reason, by: 'service' });
    // An event only where someone listens (as the stores record review events).
    if ((await store.webhooks.listByOrg(r.orgId)).length > 0) {
      const body = eventBody(replyFailedEvent({ reviewId: r.reviewId, platform: r.platform, reason }, at));
      await store.webhooks.addMessage({ id: newMessageId(), orgId: r.orgId, type: 'reply.failed', body, createdAt: at.toISOString(), endpointId: null });
    }
  }

  // --- Helpers. ---

  private async review(orgId: string, reviewId: string): Promise<Review> {
    const review = typeof reviewId === 'string' && reviewId !== '' ? await this.deps.store.reviews.get(orgId, reviewId) : null;
    if (!review) throw notFound('Review');
    return review;
  }

  /** Where the review's reply goes; a 400 where no reply API exists. */
  private async target(review: Review): Promise<Target> {
    const platform = review.platform.toUpperCase();
    if (platform === 'DIRECT') return { platform, source: null, writer: null };
    const name = platformName(platform);
    const writer = (CONNECTORS[platform as SourcePlatform]?.replies ?? null) as ReplyWriter<unknown> | null;
    if (!writer) {
      throw badRequest(`${name} offers no reply API: answer this review on ${name} itself.`, [{ parameter: 'reviewId', message: 'this platform offers no reply API' }]);
    }
    const source = review.sourceId ? await this.deps.store.sources.get(review.sourceId) : null;
    if (!source || source.orgId !== review.orgId) {
      throw badRequest(`This ${name} review came from a file import, not from a connected ${name} source: without one this platform offers no reply API here. Connect the ${name} source (its next sync collects this review), then reply.`, [{ parameter: 'reviewId', message: 'this platform offers no reply API for a file import' }]);
    }
    return { platform, source, writer };
  }

  /** The text checked against the platform's limit: a 400 naming it, nothing stored. */
  private text(target: Target, text: unknown): string {
    if (typeof text !== 'string') throw badRequest('The reply\'s text must be a string.', [{ parameter: 'text', message: 'a string' }]);
    try {
      assertReplyFits(target.writer ?? { maxBytes: null }, platformName(target.platform), text);
    } catch (err) {
      if (err instanceof ReplyTextError) throw badRequest(`${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`, [{ parameter: 'text', message: err.message }]);
      throw err;
    }
    return text;
  }

  /** The source can reply now: connected, and holding what its platform requires (a 400/409 saying what is missing). */
  private ready(target: Target): void {
    if (!target.source || !target.writer) return;
    const name = platformName(target.platform);
    if (target.source.state === 'needs_reauth') throw conflict(`The ${name} source "${target.source.name}" needs reconnecting before it can reply (${target.source.lastError ?? 'its authorization was refused'}).`);
    const missing = target.writer.missing(this.credentials(target.source));
    if (missing) throw badRequest(missing, [{ parameter: 'credentials', message: missing }]);
  }

  private credentials(source: Source): unknown {
    try {
      return CONNECTORS[source.platform].parseCredentials(this.deps.box.openJson(source.credentials, source.id));
    } catch (err) {
      const why = err instanceof CredentialsError ? err.message : 'its stored credentials cannot be opened with this SECRETS_KEY';
      throw conflict(`The ${platformName(source.platform)} source "${source.name}" cannot reply: ${why}; reconnect it.`);
    }
  }

  private context(source: Source): ConnectorContext<unknown> {
    let session = this.sessions.get(source.id);
    if (!session) this.sessions.set(source.id, (session = new Map()));
    return { account: source.account, credentials: this.credentials(source), http: this.deps.http.fork(source.orgId), urls: this.deps.urls, googleOAuth: this.deps.googleOAuth, session };
  }

  /** A platform's refusal of a delete, as the caller's answer (an authorization refusal also marks the source). */
  private async refusal(target: Target, err: unknown): Promise<ApiError> {
    if (err instanceof AuthError && target.source) {
      await refuseSource(this.deps.store, target.source.id, err.message);
      return conflict(err.message);
    }
    if (err instanceof RateLimitError || err instanceof PlatformBusyError || err instanceof NetworkError) {
      const seconds = Math.max(1, Math.ceil(((err as { retryAfterMs?: number | null }).retryAfterMs ?? 30_000) / 1000));
      return new ApiError(503, 'service_unavailable', `${err.message}. Nothing was removed: try again in ${seconds} seconds.`, [], { 'Retry-After': String(seconds) });
    }
    if (err instanceof Error && err.name !== 'Error') return new ApiError(502, 'platform_error', err.message);
    throw err;
  }

  private fresh(orgId: string, review: Review, target: Target, text: string, author: ReplyActor, existing: ReplyRecord | null, o: Pick<ReplyRecord, 'state' | 'scheduledAt' | 'approvedBy'>): ReplyRecord {
    const at = this.now().toISOString();
    return {
      orgId, reviewId: review.id, platform: target.platform, sourceId: target.source?.id ?? null, text, state: o.state, scheduledAt: o.scheduledAt,
      publishedAt: existing?.publishedAt ?? null, date: existing?.date ?? null, error: null, author, approvedBy: o.approvedBy, retryAt: null, attempts: 0,
      createdAt: existing?.createdAt ?? at, updatedAt: at,
    };
  }
}

/** Whether two actors are the same person (a signed-in user by id, the operator or the rule by name). */
function sameActor(a: ReplyRecord['author'], b: ReplyRecord['author']): boolean {
  return a.userId !== null || b.userId !== null ? a.userId === b.userId : a.email === b.email;
}

/** Whether the automatic-reply rule approved this reply (and nobody since). */
function isRuleReply(r: ReplyRecord): boolean {
  return r.approvedBy !== null && r.approvedBy.userId === null && r.approvedBy.email === AUTO_REPLY_ACTOR.email;
}

function publisher(caller: ReplyCaller): boolean {
  return caller.role === 'operator' || caller.role === 'owner' || caller.role === 'admin';
}

function auditActor(actor: ReplyActor): { id: string; email: string } | { userId: null; email: string } {
  return actor.userId === null ? { userId: null, email: actor.email } : { id: actor.userId, email: actor.email };
}

/** The review as the audit log names it (as moderation does): author, platform, date. */
function reviewTarget(review: Review): { id: string; label: string } {
  return { id: review.id, label: `${review.authorName.slice(0, 60)} on ${review.platform} (${review.date.slice(0, 10)})` };
}
