/**
 * The embedded store: everything lives in memory and in one durable log in
 * DATA_DIR (durable-log.ts). This process is the log's only writer, which an
 * OS-level lock on the folder enforces (data-dir-lock.ts). Reviews are indexed by review-index.ts so that
 * lists, deep pages and statistics never scan an organization's reviews.
 */
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { join } from 'node:path';
import type {
  ApiKeyRecord,
  KeyStore,
  ModerationStore,
  Organization,
  OrgStore,
  RemovedReview,
  Review,
  ReviewInput,
  Source,
  SourceStore,
  ReviewModeration,
  ReviewPage,
  ReviewQuery,
  ReviewStats,
  ReviewStore,
  StatsQuery,
  Store,
  UpsertResult,
  Widget,
  WidgetStore,
} from '../types.ts';
import { newId } from '../ids.ts';
import { applyWidgetPatch } from '../widget-patch.ts';
import { DurableLog, encodeEntry, encodeLine, type OpenFile, type ReplayResult } from './durable-log.ts';
import { GroupCommit, type Plan } from './group-commit.ts';
import { withOrgDefaults } from '../types.ts';
import { checked, makeRecord, ReviewIndex } from './review-index.ts';
import { EmbeddedPeople } from './people.ts';
import { DataDirLock } from './data-dir-lock.ts';
import { StoreUnavailableError } from '../unavailable.ts';
import { deliveryId, fansOutTo, freshDelivery, type OutboxMessage, type WebhookDelivery, type WebhookEndpoint, type WebhookStore } from '../webhook-types.ts';
import { OutboxSignal } from '../outbox-signal.ts';
import { UpsertSignal } from '../upsert-signal.ts';
import { FairTake } from '../fair-take.ts';
import type { Product, ProductStore } from '../product-types.ts';
import { DEFAULT_REPLY_DELAY_MINUTES, type ReplyRecord, type ReplySettings, type ReplyStore, type ReplyTemplate } from '../reply-types.ts';
import { awaitingConfirmation, type CollectSettings, type CollectStore, type Submission } from '../collect-types.ts';
import { decide, endedAt, invitedAt, noCounts, orderKey, sentDay, type CreatedInvitation, type Invitation, type InvitationState, type InvitationStore } from '../invitation-types.ts';
import { roundRatio2 } from '../../reviews/stats-math.ts';
import { DeliveryRecords, parseDeliveryId } from './delivery-records.ts';
import { announcesState, changeType, removedMessage, reviewEventBody, sourceStateMessage } from '../../webhooks/outbox.ts';
import { newMessageId } from '../../webhooks/events.ts';
import type { ReviewEventType } from '../../webhooks/event-types.ts';

/**
 * An outbox message in the log: as it is (`body`, the signed text, as a JSON
 * string), or, as an import's batch writes it, with its event spliced in as
 * JSON (`event`): the same bytes without escaping them a second time. The
 * text back is `JSON.stringify(event)`, which gives back exactly the
 * `JSON.stringify` output it was parsed from.
 */
type LoggedMessage = OutboxMessage | (Omit<OutboxMessage, 'body'> & { event: unknown });

function fromLog(m: LoggedMessage): OutboxMessage {
  if ('body' in m) return m;
  const { event, ...rest } = m;
  return { ...rest, body: JSON.stringify(event) };
}

/**
 * An import batch's event as logged: its review is the batch's record at `i`,
 * so the event is not written a second time beside the review. Its body is
 * built from that record when it is read (`reviewEventBody`, the same bytes
 * every time: the record is frozen, and a record read back from the log
 * gives the same JSON; a version whose event shape differs builds its own).
 * A compaction writes such a message whole, as any other.
 */
interface BatchMessage {
  id: string;
  orgId: string;
  type: Extract<ReviewEventType, 'review.created' | 'review.updated'>;
  createdAt: string;
  i: number;
}

/**
 * An outbox message as the store keeps it: whole, or an import batch's, whose
 * body is built from its review when it is read (`message()`).
 */
type KeptMessage = OutboxMessage | (Omit<OutboxMessage, 'body'> & { review: Review });

/** Bodies of batch messages built lately (first in, first out), kept for the other endpoints' attempts. */
const BODY_CACHE = 4096;

/** Two delivery records alike, field by field (flat records of strings, numbers and nulls). */
function sameDelivery(a: WebhookDelivery, b: WebhookDelivery): boolean {
  for (const key of Object.keys(b) as (keyof WebhookDelivery)[]) if (a[key] !== b[key]) return false;
  return Object.keys(a).length === Object.keys(b).length;
}


type Entry =
  | { t: 'org'; v: Organization }
  | { t: 'key'; v: ApiKeyRecord }
  | { t: 'widget'; v: Widget }
  /** `o`: the webhook events of the change, in the same log record (the outbox, webhook-types.ts). */
  | { t: 'reviews'; v: Review[]; o?: (LoggedMessage | BatchMessage)[] }
  /** A review hidden (or its reason changed); `show` ends it. */
  | { t: 'hide'; v: ReviewModeration }
  | { t: 'show'; orgId: string; reviewId: string }
  /** A key's lastUsedAt: ~80 bytes instead of the whole key record again. */
  | { t: 'used'; id: string; at: string }
  /** Reviews the platform no longer lists: out of the index, kept here until listed again. */
  | { t: 'removed'; v: RemovedReview[]; o?: LoggedMessage[] }
  /**
   * `o`: its source.state_changed event, in the same entry as the change (the outbox).
   * `h`: the held ids when the hold is made or replaced (null: it ends); `u`: held ids listed
   * again, out of the hold. Absent when the hold did not change: an ordinary sync's line
   * carries the count (`v.held`), never the ids (review 4, M-B).
   */
  | { t: 'source'; v: Source; o?: LoggedMessage[]; h?: string[] | null; u?: string[] }
  | { t: 'source-gone'; id: string }
  // Webhooks (webhook-types.ts): endpoints, messages outside review changes, fan-out, delivery state.
  | { t: 'webhook'; v: WebhookEndpoint }
  | { t: 'webhook-gone'; id: string }
  | { t: 'message'; v: OutboxMessage }
  /**
   * A message fanned out: its deliveries in full (`d`), or, when all are as
   * fan-out makes them (webhook-types.ts freshDelivery), only their endpoints
   * and due time (`to`, `at`), the records rebuilt from the message.
   */
  | { t: 'fanned'; id: string; d?: WebhookDelivery[]; to?: string[]; at?: string }
  /**
   * An import batch's messages (`m`) fanned out in the batch's own commit
   * round: for each, a fresh delivery due at `at` to each endpoint listed for
   * its type (`to`). Lost in a crash with its batch's line still there, the
   * messages are fanned out by the dispatcher's sweep instead (same records).
   */
  | { t: 'fan'; m: string[]; to: Partial<Record<ReviewEventType, string[]>>; at: string }
  | { t: 'delivery'; v: WebhookDelivery }
  /** Pruned (webhook-types.ts): deliveries and messages forgotten. */
  | { t: 'pruned'; d: string[]; m: string[] }
  /** A catalog product (product-types.ts), inserted or replaced; `product-gone` forgets it. */
  | { t: 'product'; v: Product }
  | { t: 'product-gone'; orgId: string; id: string }
  /** A review's reply (reply-types.ts), inserted or replaced. */
  | { t: 'reply'; v: ReplyRecord }
  | { t: 'reply-settings'; v: ReplySettings }
  /** A reply template inserted or replaced; `reply-template-gone` forgets it. */
  | { t: 'reply-template'; v: ReplyTemplate }
  | { t: 'reply-template-gone'; orgId: string; id: string }
  /** The review page (collect-types.ts): an organization's settings, a submission as it is now. */
  | { t: 'collect'; v: CollectSettings }
  | { t: 'submission'; v: Submission }
  /** Expired unconfirmed submissions forgotten (CollectStore.removeExpired). */
  | { t: 'submission-gone'; ids: string[] }
  /** Review invitations (invitation-types.ts): a batch created, or one as it is now. */
  | { t: 'invitations'; v: Invitation[] }
  /** Invitations removed (retention's purge, an erasure): forgotten with their order records. */
  | { t: 'invitations-gone'; ids: string[] }
  /** An address (its key) that wants no more invitations from the organization. */
  | { t: 'unsubscribed'; orgId: string; k: string; at: string };

/** Records decided in the current group-commit round and not yet durable. */
interface Draft {
  orgs: Map<string, Organization>;
  keys: Map<string, ApiKeyRecord>;
  widgets: Map<string, Widget>;
  sources: Map<string, Source | null>;
  /** Holds decided in the round (null: none). */
  holds: Map<string, ReadonlySet<string> | null>;
}

/**
 * A review batch prepared ahead of its commit round (`prepareAhead`): the
 * records and their log line, valid while the organization's reviews are as
 * they were (`writes` unchanged).
 */
interface Prepared extends UpsertResult {
  records: Review[];
  messages: BatchMessage[];
  line: Buffer;
  writes: number;
}

/** Milliseconds of preparation between two turns given to the event loop. */
const PREPARE_SLICE_MS = 5;

/** Records an entry stands for (a review batch: one per review). */
const recordsIn = (entry: Entry): number => (entry.t === 'reviews' || entry.t === 'removed' || entry.t === 'invitations' ? entry.v.length : entry.t === 'invitations-gone' ? entry.ids.length : 1);

const naturalKey = (platform: string, externalId: string): string => `${platform}\u0000${externalId}`;

const clone = <T>(value: T): T => structuredClone(value);

/**
 * Records are kept frozen and handed out as they are: no copy per read on the
 * hot path (every request reads a key and an organization), and a caller that
 * tried to change one would throw instead of corrupting the store.
 */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** A source's hold after its line (`h` replaces it, `u` takes ids out); null: none. */
function nextHold(current: ReadonlySet<string> | null, entry: { h?: string[] | null; u?: string[] }): ReadonlySet<string> | null {
  if (entry.h !== undefined) return entry.h && entry.h.length > 0 ? new Set(entry.h) : null;
  if (!current || !entry.u) return current;
  const next = new Set(current);
  for (const e of entry.u) next.delete(e);
  return next.size > 0 ? next : null;
}

/**
 * A source line written before the ids left the record (`held: {externalIds, since}`): read as
 * the same hold, the ids beside the record and the count in it (a compaction writes it anew).
 */
function legacyHold(entry: { v: Source; h?: string[] | null }): void {
  const held = entry.v.held as unknown as { externalIds?: unknown; since: string } | null | undefined;
  if (!held || !Array.isArray(held.externalIds)) return;
  const ids = held.externalIds as string[];
  entry.h = ids.length > 0 ? ids : null;
  entry.v = { ...entry.v, held: ids.length > 0 ? { count: new Set(ids).size, since: held.since } : null };
}

/** A batch being prepared: its records and, for each, the live review it replaces (null: none). */
type Batch = UpsertResult & { records: Review[]; befores: (Review | null)[] };

export interface EmbeddedStoreInfo {
  replay: ReplayResult;
  path: string;
  /** The log was rewritten at start-up, superseded records dropped. */
  compacted: boolean;
  /** Rewrites while running (same rule as at start-up). */
  compactions: number;
}

export interface EmbeddedStoreOptions {
  /** How files are opened (tests inject a wrapper that counts or fails syncs). */
  open?: OpenFile;
  /** Growth (bytes) below which the log is never rewritten for its size (`shouldCompactBytes`; tests lower it). */
  compactMinBytes?: number;
}

/**
 * Updates append records that supersede earlier ones (a re-import, a
 * revocation, a lastUsedAt touch), so the log holds superseded versions. It is
 * rewritten, at start-up and while running, once they outnumber the live
 * records (and are more than a few thousand): replay time and disk use stay
 * proportional to the data.
 */
export function shouldCompact(replayedRecords: number, liveRecords: number): boolean {
  const superseded = replayedRecords - liveRecords;
  return superseded > liveRecords && superseded >= 5000;
}

/** `shouldCompactBytes`'s floor: growth below it never rewrites the log for its size. */
export const COMPACT_MIN_BYTES = 64 * 1024 * 1024;

/**
 * The same rule by bytes, as record counts miss a few large records written
 * again and again (review 4, M-B): the log is rewritten once what was appended
 * since the last rewrite (`logBytes - baseBytes`, `baseBytes` the size that
 * rewrite left: the live data then, or the size found at start-up) is more
 * than that size and at least `minBytes`. So the log never exceeds twice the
 * live data plus `minBytes`, and a rewrite (at most the log's size) never
 * costs more than twice the bytes appended since the last one.
 */
export function shouldCompactBytes(logBytes: number, baseBytes: number, minBytes = COMPACT_MIN_BYTES): boolean {
  const appended = logBytes - baseBytes;
  return appended > baseBytes && appended >= minBytes;
}

export class EmbeddedStore implements Store {
  readonly kind = 'embedded' as const;
  private readonly orgMap = new Map<string, Organization>();
  private readonly keyMap = new Map<string, ApiKeyRecord>();
  private readonly keyByHash = new Map<string, string>();
  /** Key records created or revoked so far (keys.changes()). */
  private keyChanges = 0;
  private readonly widgetMap = new Map<string, Widget>();
  private readonly sourceMap = new Map<string, Source>();
  /** Held removals by source (CONTRACT §11): the ids; the source record keeps their count and date. */
  private readonly holdMap = new Map<string, ReadonlySet<string>>();
  private readonly endpointMap = new Map<string, WebhookEndpoint>();
  /** The outbox: every message kept (replay needs it), and those not yet fanned out, in order. */
  private readonly messageMap = new Map<string, KeptMessage>();
  private readonly unfannedSet = new Set<string>();
  /** Bodies of batch messages lately built, by message id (oldest first). */
  private readonly bodies = new Map<string, string>();
  readonly outboxWritten = new OutboxSignal();
  readonly reviewsUpserted = new UpsertSignal();
  /** Delivery records by endpoint, compact, with the pending ones by due time (delivery-records.ts). */
  private readonly deliveryRecords = new DeliveryRecords(
    (id) => this.messageMap.get(id),
    (id) => this.messageMap.has(id) && !this.unfannedSet.has(id),
  );
  /** Removed reviews by organization, then natural key (platform NUL externalId). */
  private readonly removedMap = new Map<string, Map<string, RemovedReview>>();
  private readonly index = new ReviewIndex();
  /** Catalog products by organization, then product id. */
  private readonly productMap = new Map<string, Map<string, Product>>();
  /** Replies by organization, then review id (reply-types.ts). */
  private readonly replyMap = new Map<string, Map<string, ReplyRecord>>();
  private readonly replySettingsMap = new Map<string, ReplySettings>();
  /** Reply templates by organization, then id. */
  private readonly templateMap = new Map<string, Map<string, ReplyTemplate>>();
  /** The review page: settings by organization, the current link's organization, submissions by id. */
  private readonly collectMap = new Map<string, CollectSettings>();
  private readonly collectIds = new Map<string, string>();
  private readonly submissionMap = new Map<string, Submission>();
  /** The same submissions by organization: its lists and lookups never walk other organizations'. */
  private readonly orgSubmissions = new Map<string, Map<string, Submission>>();
  /** Submissions waiting for their confirmation: id → when the link expires. */
  private readonly awaiting = new Map<string, string>();
  /**
   * The same by expiry, soonest first (entries of submissions no longer
   * waiting are skipped and dropped when met): `collect.removeExpired` reads
   * from the front and stops at the first one not expired, never the whole.
   */
  private readonly awaitingByExpiry: { at: string; id: string }[] = [];
  /** Review invitations by id, and by organization in creation order (invitation-types.ts). */
  private readonly invitationMap = new Map<string, Invitation>();
  private readonly orgInvitations = new Map<string, Map<string, Invitation>>();
  /** Per organization and address key: when it was last invited (not skipped). Rebuilt from the invitations. */
  private readonly lastInvited = new Map<string, string>();
  /** Per organization and address key: when it unsubscribed. */
  private readonly unsubscribedMap = new Map<string, string>();
  /** orderKey(org, address, orderRef) → the invitation's id. */
  private readonly invitationOrders = new Map<string, string>();
  /**
   * Per organization: its invitations ordered by (createdAt, id), oldest first (an invitation's createdAt
   * never changes), so a page of the list, newest first, reads from the end: no copy or sort of the
   * organization's invitations per request (up to 250,000 of them).
   */
  private readonly invitationOrder = new Map<string, Invitation[]>();
  /** Per organization and address key: its invitations' ids (what an unsubscribe stops). */
  private readonly addressInvitations = new Map<string, Set<string>>();
  /**
   * The invitations the sender still has work on (`scheduled`, `sent`, `reminded`), by id: its walks
   * for what is due, reminders and expiry read these, not every invitation ever made.
   */
  private readonly liveInvitations = new Map<string, Invitation>();
  /** Per organization: its invitations in each state, kept as they change (the Collect page's counts, no walk). */
  private readonly invitationStates = new Map<string, Record<InvitationState, number>>();
  /**
   * Per organization and UTC day an invitation counts as sent (`sentDay`):
   * how many, and how many of them are reviewed now. The conversion figures
   * add up a window's days (a few hundred at most), never walk invitations.
   */
  private readonly invitationDays = new Map<string, Map<string, { sent: number; reviewed: number }>>();
  /** Hidden reviews by organization, then review id. */
  private readonly hidden = new Map<string, Map<string, ReviewModeration>>();
  /** Review batches applied per organization: a batch prepared ahead is still valid while this is unchanged. */
  private readonly reviewWrites = new Map<string, number>();
  /** Log lines of entries encoded ahead (review batches), so the commit round does not encode them again. */
  private readonly encoded = new WeakMap<Entry, Buffer>();
  private log!: DurableLog;
  people!: EmbeddedPeople;
  private lock!: DataDirLock;
  private closed = false;
  /** Records the log holds, superseded ones included. */
  private logRecords = 0;
  /** The log's size when it was last rewritten (or opened): `shouldCompactBytes`. */
  private baseBytes = 0;
  private compactMinBytes = COMPACT_MIN_BYTES;
  /** An erasure asked for the log to be rewritten at the next pause (the erased address leaves the disk). */
  private compactWanted = false;
  /** Erasures waiting for that rewrite (the pause right after their commit round): told whether it failed. */
  private readonly compactWaiters: ((failure: unknown) => void)[] = [];
  /**
   * Addresses (orgId NUL emailKey) whose invitations were removed since the log was last rewritten: their
   * old lines may still be in it (a removal writes only the removal line). Filled by replay too; emptied
   * by each rewrite. An erasure of one of them rewrites the log even when it finds nothing left to remove.
   */
  private readonly goneAddresses = new Set<string>();
  private openFile: OpenFile = open;
  private dataDir = '';
  info!: EmbeddedStoreInfo;

  private readonly commits = new GroupCommit<Entry, Draft>({
    draft: () => ({ orgs: new Map(), keys: new Map(), widgets: new Map(), sources: new Map(), holds: new Map() }),
    put: (draft, entry) => {
      if (entry.t === 'org') draft.orgs.set(entry.v.id, entry.v);
      else if (entry.t === 'source') {
        draft.sources.set(entry.v.id, entry.v);
        if (entry.h !== undefined || entry.u) draft.holds.set(entry.v.id, nextHold(this.hold(draft, entry.v.id), entry));
      } else if (entry.t === 'source-gone') {
        draft.sources.set(entry.id, null);
        draft.holds.set(entry.id, null);
      }
      else if (entry.t === 'key') draft.keys.set(entry.v.id, entry.v);
      else if (entry.t === 'widget') draft.widgets.set(entry.v.id, entry.v);
      else if (entry.t === 'used') {
        const key = draft.keys.get(entry.id) ?? this.keyMap.get(entry.id);
        if (key) draft.keys.set(entry.id, { ...key, lastUsedAt: entry.at });
      }
    },
    append: (entries) => this.log.appendLines(entries.map((e) => this.encoded.get(e) ?? encodeEntry(e))),
    apply: (entries) => {
      for (const entry of entries) {
        this.apply(entry);
        this.logRecords += recordsIn(entry);
      }
    },
    between: () => this.compactIfDue(),
  });

  static async open(dataDir: string, options: EmbeddedStoreOptions = {}): Promise<EmbeddedStore> {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const store = new EmbeddedStore();
    if (options.open) store.openFile = options.open;
    if (options.compactMinBytes !== undefined) store.compactMinBytes = options.compactMinBytes;
    store.dataDir = dataDir;
    store.lock = await DataDirLock.acquire(dataDir);
    const path = join(dataDir, 'store.log');
    try {
      // A side file left by a compaction that crashed before its rename: the log itself is intact.
      await rm(`${path}.compact`, { force: true });
      const opened = await DurableLog.open(
        path,
        (entry) => {
          store.logRecords += recordsIn(entry as Entry);
          store.apply(entry as Entry);
        },
        store.openFile,
      );
      store.log = opened.log;
      store.baseBytes = opened.log.bytes;
      // The index is sorted before the server listens: the first request must not pay for it.
      store.index.flushAll();
      store.people = await EmbeddedPeople.open(dataDir);
      // Sign-in asks before it checks a password: either log's disk failure, probed as /readyz does.
      store.people.assertWritable = () => store.ping();
      store.info = { replay: opened.replay, path, compacted: false, compactions: 0 };
      if (shouldCompact(store.logRecords, store.liveRecords())) {
        await store.compact();
        store.info.compacted = true;
      }
    } catch (err) {
      await store.lock.release();
      throw err;
    }
    return store;
  }

  /** Webhook delivery records read so far by the delivery log, `resumeWaiting` and `prune` (tests: what a call visits). */
  get deliveryVisits(): number {
    return this.deliveryRecords.visits;
  }

  /** Syncs of the log so far, one per group-commit round (tests, figures). */
  get commitRounds(): number {
    return this.commits.rounds;
  }

  /**
   * Rewrites the log with the live state only (DurableLog.rewrite: side file,
   * fsync, rename, folder fsync; a crash leaves the old log or the new one).
   * Runs between commit rounds, so no write is in flight.
   */
  private async compact(): Promise<void> {
    const path = this.info.path;
    await this.log.close();
    try {
      const { bytes } = await DurableLog.rewrite(path, this.snapshot(), this.openFile);
      this.log = await DurableLog.reopen(path, bytes, this.openFile);
      this.logRecords = this.liveRecords();
      this.baseBytes = bytes;
      this.goneAddresses.clear();
    } catch (err) {
      // The old log is intact: keep appending to it.
      this.log = await DurableLog.reopen(path, (await stat(path)).size, this.openFile);
      throw err;
    }
  }

  private async compactIfDue(): Promise<void> {
    // Erasures waiting for this pause: answered once it is over, with its failure if the log was not rewritten.
    const waiting = this.compactWaiters.splice(0);
    let failure: unknown = null;
    try {
      if (this.closed) {
        failure = new Error('the store closed before the log was rewritten');
        return;
      }
      if (!(this.compactWanted || shouldCompact(this.logRecords, this.liveRecords()) || shouldCompactBytes(this.log.bytes, this.baseBytes, this.compactMinBytes))) return;
      this.compactWanted = false;
      try {
        await this.compact();
        this.info.compactions++;
      } catch (err) {
        // Not fatal for the store: the log stays as it was and compaction is tried again after later
        // writes. Fatal for an erasure waiting on it: the address is still on disk.
        failure = err;
      }
    } finally {
      for (const done of waiting) done(failure);
    }
  }

  /** Records alive now: what a compacted log holds. */
  private liveRecords(): number {
    let hidden = 0;
    for (const org of this.hidden.values()) hidden += org.size;
    let removed = 0;
    for (const org of this.removedMap.values()) removed += org.size;
    const webhooks = this.endpointMap.size + this.messageMap.size + (this.messageMap.size - this.unfannedSet.size) + this.deliveryRecords.size;
    let products = 0;
    for (const org of this.productMap.values()) products += org.size;
    let replies = this.replySettingsMap.size;
    for (const org of this.replyMap.values()) replies += org.size;
    for (const org of this.templateMap.values()) replies += org.size;
    return this.orgMap.size + this.keyMap.size + this.widgetMap.size + this.sourceMap.size + this.index.size + hidden + removed + webhooks + products + replies + this.collectMap.size + this.submissionMap.size + this.invitationMap.size + this.unsubscribedMap.size;
  }

  /** The current state as log entries (reviews in batches), for compaction. */
  private *snapshot(): IterableIterator<Entry> {
    for (const v of this.orgMap.values()) yield { t: 'org', v };
    for (const v of this.keyMap.values()) yield { t: 'key', v };
    for (const v of this.widgetMap.values()) yield { t: 'widget', v };
    for (const v of this.sourceMap.values()) {
      const hold = this.holdMap.get(v.id);
      yield hold ? { t: 'source', v, h: [...hold] } : { t: 'source', v };
    }
    for (const org of this.productMap.values()) for (const v of org.values()) yield { t: 'product', v };
    for (const org of this.replyMap.values()) for (const v of org.values()) yield { t: 'reply', v };
    for (const v of this.replySettingsMap.values()) yield { t: 'reply-settings', v };
    for (const org of this.templateMap.values()) for (const v of org.values()) yield { t: 'reply-template', v };
    for (const v of this.collectMap.values()) yield { t: 'collect', v };
    for (const v of this.submissionMap.values()) yield { t: 'submission', v };
    let invitations: Invitation[] = [];
    for (const v of this.invitationMap.values()) {
      invitations.push(v);
      if (invitations.length === 2000) {
        yield { t: 'invitations', v: invitations };
        invitations = [];
      }
    }
    if (invitations.length > 0) yield { t: 'invitations', v: invitations };
    for (const [key, at] of this.unsubscribedMap) {
      const [orgId, k] = key.split('\u0000') as [string, string];
      yield { t: 'unsubscribed', orgId, k, at };
    }
    for (const org of this.removedMap.values()) if (org.size > 0) yield { t: 'removed', v: [...org.values()] };
    for (const org of this.hidden.values()) for (const v of org.values()) yield { t: 'hide', v };
    for (const v of this.endpointMap.values()) yield { t: 'webhook', v };
    for (const kept of this.messageMap.values()) {
      const v = this.message(kept);
      yield { t: 'message', v };
      if (!this.unfannedSet.has(v.id)) yield { t: 'fanned', id: v.id, d: [] };
    }
    for (const v of this.deliveryRecords.all()) yield { t: 'delivery', v };
    let batch: Review[] = [];
    for (const review of this.index.all()) {
      batch.push(review);
      if (batch.length === 2000) {
        yield { t: 'reviews', v: batch };
        batch = [];
      }
    }
    if (batch.length > 0) yield { t: 'reviews', v: batch };
  }

  private apply(entry: Entry): void {
    if (entry.t === 'source') legacyHold(entry);
    if (entry.t !== 'reviews' && entry.t !== 'used' && entry.t !== 'show' && entry.t !== 'source-gone' && entry.t !== 'webhook-gone' && entry.t !== 'fanned' && entry.t !== 'fan' && entry.t !== 'pruned' && entry.t !== 'product-gone' && entry.t !== 'reply-template-gone' && entry.t !== 'submission-gone' && entry.t !== 'unsubscribed' && entry.t !== 'invitations-gone') deepFreeze(entry.v);
    if (entry.t === 'reviews' && entry.o) for (const m of entry.o) this.addMessage('i' in m ? this.batchMessage(m, entry.v[m.i]!) : deepFreeze(fromLog(m)));
    if ((entry.t === 'removed' || entry.t === 'source') && entry.o) for (const m of entry.o) this.addMessage(deepFreeze(fromLog(m)));
    switch (entry.t) {
      case 'used': {
        const key = this.keyMap.get(entry.id);
        if (key) this.keyMap.set(entry.id, deepFreeze({ ...key, lastUsedAt: entry.at }));
        break;
      }
      case 'org':
        this.orgMap.set(entry.v.id, withOrgDefaults(entry.v));
        break;
      case 'key':
        this.keyMap.set(entry.v.id, entry.v);
        this.keyByHash.set(entry.v.hash, entry.v.id);
        this.keyChanges++;
        break;
      case 'widget':
        this.widgetMap.set(entry.v.id, entry.v);
        break;
      case 'source': {
        if (entry.h !== undefined || entry.u) {
          const hold = nextHold(this.holdMap.get(entry.v.id) ?? null, entry);
          if (hold) this.holdMap.set(entry.v.id, hold);
          else this.holdMap.delete(entry.v.id);
        }
        this.sourceMap.set(entry.v.id, entry.v);
        break;
      }
      case 'source-gone':
        this.sourceMap.delete(entry.id);
        this.holdMap.delete(entry.id);
        break;
      case 'webhook':
        this.endpointMap.set(entry.v.id, entry.v);
        break;
      case 'reply': {
        let org = this.replyMap.get(entry.v.orgId);
        if (!org) this.replyMap.set(entry.v.orgId, (org = new Map()));
        org.set(entry.v.reviewId, entry.v);
        break;
      }
      case 'reply-settings':
        this.replySettingsMap.set(entry.v.orgId, entry.v);
        break;
      case 'reply-template': {
        let org = this.templateMap.get(entry.v.orgId);
        if (!org) this.templateMap.set(entry.v.orgId, (org = new Map()));
        org.set(entry.v.id, entry.v);
        break;
      }
      case 'reply-template-gone':
        this.templateMap.get(entry.orgId)?.delete(entry.id);
        break;
      case 'webhook-gone':
        this.endpointMap.delete(entry.id);
        this.deliveryRecords.dropEndpoint(entry.id);
        break;
      case 'message':
        this.addMessage(entry.v);
        break;
      case 'fanned': {
        const fanned = this.unfannedSet.delete(entry.id);
        // Fanning out twice (a crash before the marker) writes the same records: a delivery already there is kept.
        for (const d of this.fannedDeliveries(entry)) {
          if (this.deliveryRecords.has(d.endpointId, d.messageId)) continue;
          this.deliveryRecords.put(deepFreeze(d));
        }
        const message = this.messageMap.get(entry.id);
        if (fanned && message) this.deliveryRecords.fannedOut(message);
        break;
      }
      case 'fan':
        for (const id of entry.m) {
          const message = this.messageMap.get(id);
          if (!message || !this.unfannedSet.delete(id)) continue;
          for (const endpointId of entry.to[message.type as ReviewEventType] ?? []) {
            if (!this.endpointMap.has(endpointId)) continue;
            if (this.deliveryRecords.has(endpointId, id)) continue;
            this.deliveryRecords.put(freshDelivery(message, endpointId, entry.at));
          }
          this.deliveryRecords.fannedOut(message);
        }
        break;
      case 'delivery':
        this.deliveryRecords.put(entry.v);
        break;
      case 'pruned':
        // Messages first: those whose last deliveries go in the same entry are not queued for a later prune.
        for (const id of entry.m) {
          this.messageMap.delete(id);
          this.unfannedSet.delete(id);
          this.deliveryRecords.forgetMessage(id);
        }
        for (const id of entry.d) {
          const pair = parseDeliveryId(id);
          if (pair) this.deliveryRecords.delete(pair.endpointId, pair.messageId);
        }
        break;
      case 'removed':
        for (const review of entry.v) {
          this.index.drop(review.orgId, review.platform, review.externalId);
          let org = this.removedMap.get(review.orgId);
          if (!org) this.removedMap.set(review.orgId, (org = new Map()));
          org.set(naturalKey(review.platform, review.externalId), review);
        }
        for (const orgId of new Set(entry.v.map((r) => r.orgId))) this.reviewWrites.set(orgId, (this.reviewWrites.get(orgId) ?? 0) + 1);
        break;
      case 'reviews':
        for (const review of entry.v) {
          // Listed again: back as it was (the record keeps the removed one's id and createdAt, prepareInto).
          this.removedMap.get(review.orgId)?.delete(naturalKey(review.platform, review.externalId));
          this.index.apply(review);
        }
        for (const orgId of new Set(entry.v.map((r) => r.orgId))) {
          this.index.settle(orgId);
          this.reviewWrites.set(orgId, (this.reviewWrites.get(orgId) ?? 0) + 1);
        }
        break;
      case 'hide': {
        let org = this.hidden.get(entry.v.orgId);
        if (!org) this.hidden.set(entry.v.orgId, (org = new Map()));
        org.set(entry.v.reviewId, entry.v);
        break;
      }
      case 'show':
        this.hidden.get(entry.orgId)?.delete(entry.reviewId);
        break;
      case 'product': {
        let org = this.productMap.get(entry.v.orgId);
        if (!org) this.productMap.set(entry.v.orgId, (org = new Map()));
        org.set(entry.v.id, entry.v);
        break;
      }
      case 'product-gone':
        this.productMap.get(entry.orgId)?.delete(entry.id);
        break;
      case 'collect': {
        const before = this.collectMap.get(entry.v.orgId);
        if (before) this.collectIds.delete(before.collectId);
        this.collectMap.set(entry.v.orgId, entry.v);
        this.collectIds.set(entry.v.collectId, entry.v.orgId);
        break;
      }
      case 'submission': {
        this.submissionMap.set(entry.v.id, entry.v);
        let org = this.orgSubmissions.get(entry.v.orgId);
        if (!org) this.orgSubmissions.set(entry.v.orgId, (org = new Map()));
        org.set(entry.v.id, entry.v);
        if (awaitingConfirmation(entry.v)) {
          const at = entry.v.confirmExpiresAt!;
          if (this.awaiting.get(entry.v.id) !== at) {
            this.awaiting.set(entry.v.id, at);
            // Written in expiry order (CONFIRM_DAYS after submitting): its place is found from the end, usually at once.
            const queue = this.awaitingByExpiry;
            let i = queue.length;
            while (i > 0 && queue[i - 1]!.at > at) i--;
            queue.splice(i, 0, { at, id: entry.v.id });
          }
        } else this.awaiting.delete(entry.v.id);
        break;
      }
      case 'invitations':
        for (const v of entry.v) this.putInvitation(v);
        break;
      case 'invitations-gone':
        this.dropInvitations(entry.ids);
        break;
      case 'unsubscribed':
        this.unsubscribedMap.set(`${entry.orgId}\u0000${entry.k}`, entry.at);
        break;
      case 'submission-gone': {
        for (const id of entry.ids) {
          const gone = this.submissionMap.get(id);
          if (!gone) continue;
          this.submissionMap.delete(id);
          this.orgSubmissions.get(gone.orgId)?.delete(id);
          this.awaiting.delete(id);
        }
        this.dropStaleAwaiting();
        break;
      }
    }
  }

  private putInvitation(v: Invitation): void {
    const before = this.invitationMap.get(v.id);
    if (before) this.countInvitation(before, -1);
    this.countInvitation(v, 1);
    this.invitationMap.set(v.id, v);
    let org = this.orgInvitations.get(v.orgId);
    if (!org) this.orgInvitations.set(v.orgId, (org = new Map()));
    org.set(v.id, v);
    let order = this.invitationOrder.get(v.orgId);
    if (!order) this.invitationOrder.set(v.orgId, (order = []));
    if (before && before.createdAt === v.createdAt) order[orderIndex(order, before)] = v;
    else {
      if (before) order.splice(orderIndex(order, before), 1);
      order.splice(orderIndex(order, v), 0, v);
    }
    const addressKey = `${v.orgId}\u0000${v.emailKey}`;
    let ids = this.addressInvitations.get(addressKey);
    if (!ids) this.addressInvitations.set(addressKey, (ids = new Set()));
    ids.add(v.id);
    if (v.state === 'scheduled' || v.state === 'sent' || v.state === 'reminded') this.liveInvitations.set(v.id, v);
    else this.liveInvitations.delete(v.id);
    if (v.orderRef !== null) this.invitationOrders.set(orderKey(v.orgId, v.emailKey, v.orderRef), v.id);
    if (v.state !== 'skipped') {
      const key = `${v.orgId}\u0000${v.emailKey}`;
      // The latest time an invitation reaches the address (its mail's sendAt, else its creation): the 30-day rule's.
      const last = this.lastInvited.get(key);
      if (last === undefined || last < invitedAt(v)) this.lastInvited.set(key, invitedAt(v));
    }
  }

  /**
   * Forgets invitations (retention, erasure) everywhere they are kept: the
   * order records pointing at them go too, and the last-invited time of each
   * address concerned is taken again from the invitations it has left.
   */
  private dropInvitations(ids: readonly string[]): void {
    const byOrg = new Map<string, Set<string>>();
    const addresses = new Set<string>();
    for (const id of ids) {
      const v = this.invitationMap.get(id);
      if (!v) continue;
      this.countInvitation(v, -1);
      this.invitationMap.delete(id);
      const org = this.orgInvitations.get(v.orgId);
      org?.delete(id);
      if (org?.size === 0) this.orgInvitations.delete(v.orgId);
      let gone = byOrg.get(v.orgId);
      if (!gone) byOrg.set(v.orgId, (gone = new Set()));
      gone.add(id);
      const addressKey = `${v.orgId}\u0000${v.emailKey}`;
      const own = this.addressInvitations.get(addressKey);
      own?.delete(id);
      if (own?.size === 0) this.addressInvitations.delete(addressKey);
      addresses.add(addressKey);
      this.goneAddresses.add(addressKey);
      this.liveInvitations.delete(id);
      if (v.orderRef !== null) {
        const ok = orderKey(v.orgId, v.emailKey, v.orderRef);
        if (this.invitationOrders.get(ok) === id) this.invitationOrders.delete(ok);
      }
    }
    // One pass over each organization's ordered list, not a splice per invitation.
    for (const [orgId, gone] of byOrg) {
      const kept = (this.invitationOrder.get(orgId) ?? []).filter((i) => !gone.has(i.id));
      if (kept.length > 0) this.invitationOrder.set(orgId, kept);
      else this.invitationOrder.delete(orgId);
      if (this.invitationStates.get(orgId) && !this.orgInvitations.has(orgId)) this.invitationStates.delete(orgId);
    }
    for (const addressKey of addresses) {
      let last: string | undefined;
      for (const id of this.addressInvitations.get(addressKey) ?? []) {
        const v = this.invitationMap.get(id)!;
        if (v.state !== 'skipped' && (last === undefined || last < invitedAt(v))) last = invitedAt(v);
      }
      if (last === undefined) this.lastInvited.delete(addressKey);
      else this.lastInvited.set(addressKey, last);
    }
  }

  /** Adds (1) or takes away (-1) an invitation from its organization's counts by state and by day sent. */
  private countInvitation(v: Invitation, by: 1 | -1): void {
    let states = this.invitationStates.get(v.orgId);
    if (!states) this.invitationStates.set(v.orgId, (states = noCounts()));
    states[v.state] += by;
    const day = sentDay(v);
    if (day === null) return;
    let days = this.invitationDays.get(v.orgId);
    if (!days) this.invitationDays.set(v.orgId, (days = new Map()));
    let figures = days.get(day);
    if (!figures) days.set(day, (figures = { sent: 0, reviewed: 0 }));
    figures.sent += by;
    if (v.state === 'reviewed') figures.reviewed += by;
    if (figures.sent === 0) days.delete(day);
  }

  /** Drops the front entries of `awaitingByExpiry` whose submission no longer waits (or waits under another expiry). */
  private dropStaleAwaiting(): void {
    const queue = this.awaitingByExpiry;
    let stale = 0;
    while (stale < queue.length && this.awaiting.get(queue[stale]!.id) !== queue[stale]!.at) stale++;
    if (stale > 0) queue.splice(0, stale);
  }

  /** A write: its plan runs in the next group-commit round (group-commit.ts). */
  private commit<T>(plan: (draft: Draft) => Plan<Entry, T>, alone = false): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    return this.commits.submit(plan, alone);
  }

  private org(d: Draft, id: string): Organization | null {
    return d.orgs.get(id) ?? this.orgMap.get(id) ?? null;
  }

  private key(d: Draft, id: string): ApiKeyRecord | null {
    return d.keys.get(id) ?? this.keyMap.get(id) ?? null;
  }

  private widget(d: Draft, id: string): Widget | null {
    return d.widgets.get(id) ?? this.widgetMap.get(id) ?? null;
  }

  private source(d: Draft, id: string): Source | null {
    const drafted = d.sources.get(id);
    return drafted === undefined ? (this.sourceMap.get(id) ?? null) : drafted;
  }

  private hold(d: Draft, id: string): ReadonlySet<string> | null {
    const drafted = d.holds.get(id);
    return drafted === undefined ? (this.holdMap.get(id) ?? null) : drafted;
  }

  readonly sources: SourceStore = {
    create: (source) => this.commit(() => ({ entries: [{ t: 'source', v: clone(source) }], result: undefined })),
    get: async (id) => this.sourceMap.get(id) ?? null,
    listByOrg: async (orgId) =>
      [...this.sourceMap.values()].filter((s) => s.orgId === orgId).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
    listAll: async () => [...this.sourceMap.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
    update: (id, patch) =>
      this.commit((d) => {
        const source = this.source(d, id);
        if (!source) return { entries: [], result: null };
        const now = new Date();
        const { held: newHold, unheld, ...fields } = patch;
        const next: Source = { ...source, ...clone(fields), id: source.id, orgId: source.orgId, platform: source.platform, createdAt: source.createdAt, updatedAt: now.toISOString() };
        // The hold's ids go in the line only when it is made, replaced or shrinks: the record keeps the count.
        const holding: Pick<Extract<Entry, { t: 'source' }>, 'h' | 'u'> = {};
        if (newHold !== undefined) {
          const ids = newHold ? [...new Set(newHold.externalIds)] : [];
          holding.h = ids.length > 0 ? ids : null;
          next.held = ids.length > 0 ? { count: ids.length, since: newHold!.since } : null;
        } else if (unheld && unheld.length > 0) {
          const current = this.hold(d, id);
          const out = current ? [...new Set(unheld)].filter((e) => current.has(e)) : [];
          if (out.length > 0) {
            holding.u = out;
            const count = current!.size - out.length;
            next.held = count > 0 && source.held ? { count, since: source.held.since } : null;
          }
        }
        if (!announcesState(source, next) || !this.recordsEvents(source.orgId)) return { entries: [{ t: 'source', v: next, ...holding }], result: next };
        // The source's own reviews (several sources may share a platform: CONTRACT §15, chains).
        const count = this.index.list({ orgId: source.orgId, sourceIds: [source.id], limit: 0, offset: 0 }).total;
        return { entries: [{ t: 'source', v: next, o: [sourceStateMessage(next, count, now)], ...holding }], result: next };
      }),
    held: async (id) => {
      const source = this.sourceMap.get(id);
      const hold = this.holdMap.get(id);
      return source?.held && hold ? { externalIds: [...hold], since: source.held.since } : null;
    },
    heldAmong: async (id, externalIds) => {
      const hold = this.holdMap.get(id);
      return hold ? [...new Set(externalIds)].filter((e) => hold.has(e)) : [];
    },
    // Alone: its plan reads the committed hold, so of two answers at once the second finds none.
    takeHeld: (id) =>
      this.commit(() => {
        const source = this.sourceMap.get(id);
        const hold = this.holdMap.get(id);
        if (!source?.held || !hold) return { entries: [], result: null };
        const next: Source = { ...source, held: null, updatedAt: new Date().toISOString() };
        return { entries: [{ t: 'source', v: next, h: null }], result: { externalIds: [...hold], since: source.held.since } };
      }, true),
    delete: (id) => this.commit((d) => (this.source(d, id) ? { entries: [{ t: 'source-gone', id }], result: true } : { entries: [], result: false })),
  };

  private fannedDeliveries(entry: { id: string; d?: WebhookDelivery[]; to?: string[]; at?: string }): WebhookDelivery[] {
    if (entry.d) return entry.d;
    const message = this.messageMap.get(entry.id);
    if (!message || !entry.to || entry.at === undefined) return [];
    return entry.to.map((endpointId) => freshDelivery(message, endpointId, entry.at!));
  }

  /** A fan-out's log entry, compact when every delivery is fresh (the usual case: one line per message, not per delivery). */
  private fannedEntry(messageId: string, deliveries: WebhookDelivery[]): Entry {
    const message = this.messageMap.get(messageId);
    const at = deliveries[0]?.nextAttemptAt ?? null;
    const fresh = message !== undefined && at !== null && deliveries.every((d) => sameDelivery(d, freshDelivery(message, d.endpointId, at)));
    return fresh ? { t: 'fanned', id: messageId, to: deliveries.map((d) => d.endpointId), at } : { t: 'fanned', id: messageId, d: deliveries.map((d) => ({ ...d })) };
  }

  private addMessage(m: KeptMessage): void {
    if (this.messageMap.has(m.id)) return;
    this.messageMap.set(m.id, m);
    this.unfannedSet.add(m.id);
    // Applied after the durable append (group-commit.ts): the write is acknowledged.
    this.outboxWritten.notify();
  }

  /** A batch message as the outbox keeps it: its review is the record the batch wrote. */
  private batchMessage(m: BatchMessage, review: Review): KeptMessage {
    return { id: m.id, orgId: m.orgId, type: m.type, createdAt: m.createdAt, endpointId: null, review };
  }

  /** A kept message as readers get it, the body of a batch message built (and kept a while: the other endpoints' attempts read it too). */
  private message(kept: KeptMessage): OutboxMessage {
    if (!('review' in kept)) return kept;
    let body = this.bodies.get(kept.id);
    if (body === undefined) {
      body = reviewEventBody(kept.type as BatchMessage['type'], kept.review, kept.createdAt);
      this.bodies.set(kept.id, body);
      if (this.bodies.size > BODY_CACHE) this.bodies.delete(this.bodies.keys().next().value!);
    }
    return { id: kept.id, orgId: kept.orgId, type: kept.type, body, createdAt: kept.createdAt, endpointId: kept.endpointId };
  }

  /** The fan-out of a batch's messages, decided in its commit round from the endpoints as they are then (dispatcher.ts deliveriesOf). */
  private fanAtWrite(orgId: string, messages: BatchMessage[], at: Date): Entry | null {
    if (messages.length === 0) return null;
    const to: Partial<Record<ReviewEventType, string[]>> = {};
    for (const type of new Set(messages.map((m) => m.type))) {
      to[type] = [...this.endpointMap.values()].filter((e) => e.orgId === orgId && fansOutTo(e, type)).map((e) => e.id);
    }
    return { t: 'fan', m: messages.map((m) => m.id), to, at: at.toISOString() };
  }

  /** An organization with an endpoint gets events recorded (webhook-types.ts). */
  private recordsEvents(orgId: string): boolean {
    for (const e of this.endpointMap.values()) if (e.orgId === orgId) return true;
    return false;
  }

  readonly webhooks: WebhookStore = {
    // Alone, its plan reads the committed endpoints: the count and the write are one step.
    create: (endpoint, maxPerOrg) =>
      this.commit(() => {
        if (maxPerOrg !== undefined) {
          let count = 0;
          for (const e of this.endpointMap.values()) if (e.orgId === endpoint.orgId) count++;
          if (count >= maxPerOrg) return { entries: [], result: false };
        }
        return { entries: [{ t: 'webhook', v: clone(endpoint) }], result: true };
      }, true),
    get: async (id) => this.endpointMap.get(id) ?? null,
    listByOrg: async (orgId) =>
      [...this.endpointMap.values()].filter((e) => e.orgId === orgId).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
    listAll: async () => [...this.endpointMap.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
    update: (id, patch) =>
      this.commit(() => {
        const endpoint = this.endpointMap.get(id);
        if (!endpoint) return { entries: [], result: null };
        const next: WebhookEndpoint = { ...endpoint, ...clone(patch), updatedAt: new Date().toISOString() };
        return { entries: [{ t: 'webhook', v: next }], result: next };
      }, true),
    // Alone, its plan reads the committed endpoint: the comparison and the write are one step (the single writer).
    replaceSecrets: (id, from, to) =>
      this.commit(() => {
        const endpoint = this.endpointMap.get(id);
        if (!endpoint || endpoint.secrets !== from) return { entries: [], result: null };
        const next: WebhookEndpoint = { ...endpoint, secrets: to, updatedAt: new Date().toISOString() };
        return { entries: [{ t: 'webhook', v: next }], result: next };
      }, true),
    remove: (id) => this.commit(() => (this.endpointMap.has(id) ? { entries: [{ t: 'webhook-gone', id }], result: true } : { entries: [], result: false }), true),
    addMessage: (message) => this.commit(() => ({ entries: [{ t: 'message', v: clone(message) }], result: undefined }), true),
    getMessage: async (id) => {
      const kept = this.messageMap.get(id);
      return kept ? this.message(kept) : null;
    },
    // Round-robin over the organizations with waiting messages, oldest first within each (fair-take.ts):
    // one organization's backlog never puts another's message behind it in the dispatcher's batch.
    unfanned: async (limit) => {
      const fair = new FairTake<KeptMessage>(limit);
      for (const id of this.unfannedSet) {
        const kept = this.messageMap.get(id)!;
        fair.offer(kept.orgId, kept);
      }
      return fair.take(limit).map((kept) => this.message(kept));
    },
    // Both grouped with the writes around them (one sync for a batch of them): a 'fanned' entry twice in a round
    // is harmless (a delivery already there is kept), and a delivery's state is written as given.
    // A delivery to an endpoint removed meanwhile is not written (a removal commits alone: this plan sees it or not at all).
    fanOut: (messageId, deliveries) =>
      this.commit(() => ({
        entries: this.unfannedSet.has(messageId) ? [this.fannedEntry(messageId, deliveries.filter((d) => this.endpointMap.has(d.endpointId)))] : [],
        result: undefined,
      })),
    // A flat record: a copy of its fields is a full copy.
    putDelivery: (delivery) => this.commit(() => ({ entries: this.endpointMap.has(delivery.endpointId) ? [{ t: 'delivery', v: { ...delivery } }] : [], result: undefined })),
    // Alone, its plan reads the committed deliveries: one write of all of them, whatever the backlog (a rare act: enable).
    resumeWaiting: (endpointId, at) =>
      this.commit(() => {
        const entries: Entry[] = [];
        if (this.endpointMap.has(endpointId)) for (const d of this.deliveryRecords.waiting(endpointId)) entries.push({ t: 'delivery', v: { ...d, nextAttemptAt: at } });
        return { entries, result: entries.length };
      }, true),
    getDelivery: async (id) => {
      const pair = parseDeliveryId(id);
      return (pair && this.deliveryRecords.get(pair.endpointId, pair.messageId)) ?? null;
    },
    due: async (now, limit, endpointId) => {
      const at = now.toISOString();
      const index = this.deliveryRecords.due;
      if (endpointId !== undefined) return index.due(endpointId, at, limit);
      const due = index.endpoints().flatMap((id) => index.due(id, at, limit));
      return due.sort((a, b) => a.nextAttemptAt!.localeCompare(b.nextAttemptAt!) || a.id.localeCompare(b.id)).slice(0, limit);
    },
    // The endpoint's own records only (delivery-records.ts): never another endpoint's or organization's.
    deliveries: async (endpointId, status, limit) => this.deliveryRecords.list(endpointId, status, limit),
    // Oldest first from the records' time-ordered heaps: work bounded by `limit`, whatever the backlog.
    prune: (before, limit) =>
      this.commit(() => {
        const found = this.deliveryRecords.prunable(before.toISOString(), limit);
        const d = found.d.map((p) => deliveryId(p.messageId, p.endpointId));
        const m = found.m;
        return { entries: d.length + m.length > 0 ? [{ t: 'pruned', d, m }] : [], result: d.length + m.length };
      }, true)
  };

  readonly orgs: OrgStore = {
    create: (org) => this.commit(() => ({ entries: [{ t: 'org', v: clone(org) }], result: undefined })),
    get: async (id) => this.orgMap.get(id) ?? null,
    list: async () => [...this.orgMap.values()],
    update: (id, patch) =>
      this.commit((d) => {
        const org = this.org(d, id);
        if (!org) return { entries: [], result: null };
        const next: Organization = { ...org, ...patch, updatedAt: new Date().toISOString() };
        return { entries: [{ t: 'org', v: next }], result: next };
      }),
  };

  readonly keys: KeyStore = {
    create: (key) => this.commit(() => ({ entries: [{ t: 'key', v: clone(key) }], result: undefined })),
    get: async (id) => this.keyMap.get(id) ?? null,
    findByHash: async (hash) => {
      const id = this.keyByHash.get(hash);
      return (id === undefined ? undefined : this.keyMap.get(id)) ?? null;
    },
    listByOrg: async (orgId) =>
      [...this.keyMap.values()].filter((k) => k.orgId === orgId).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
    revoke: (id, at) =>
      this.commit((d) => {
        const key = this.key(d, id);
        if (!key) return { entries: [], result: null };
        if (key.revokedAt !== null) return { entries: [], result: key };
        const next = { ...key, revokedAt: at.toISOString() };
        return { entries: [{ t: 'key', v: next }], result: next };
      }),
    touch: (id, at) =>
      this.commit((d) => ({ entries: this.key(d, id) ? [{ t: 'used', id, at: at.toISOString() }] : [], result: undefined })),
    changes: () => this.keyChanges,
  };

  readonly widgets: WidgetStore = {
    create: (widget) => this.commit(() => ({ entries: [{ t: 'widget', v: clone(widget) }], result: undefined })),
    get: async (id) => this.widgetMap.get(id) ?? null,
    listByOrg: async (orgId) =>
      [...this.widgetMap.values()].filter((w) => w.orgId === orgId).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
    update: (id, patch) =>
      this.commit((d) => {
        const widget = this.widget(d, id);
        if (!widget) return { entries: [], result: null };
        // Merged here, inside the round, from the widget as it is now.
        const next = applyWidgetPatch(widget, patch, new Date());
        return { entries: [{ t: 'widget', v: next }], result: next };
      }),
  };

  readonly reviews: ReviewStore = {
    list: async (query: ReviewQuery): Promise<ReviewPage> => this.index.list(query),
    stats: async (query: StatsQuery): Promise<ReviewStats> => this.index.stats(query),
    count: async (orgId: string) => this.index.count(orgId),
    get: async (orgId: string, id: string) => this.index.get(orgId, id),
    monthly: async (query) => this.index.monthly(query),
    replyFigures: async (query) => this.index.replyFigures(query),
    generation: (orgId: string) => this.index.generation(orgId),
    upsert: (orgId: string, inputs: ReviewInput[], now: Date): Promise<UpsertResult> => this.upsertReviews(orgId, inputs, now),
    // Alone in its round, resolved against the committed index: a removal never races a batch of the same organization.
    // The `unseenSince` check is made in the same round, against the committed index: an upsert is before it or after it, never between.
    remove: (orgId, platform, externalIds, at, unseenSince) =>
      this.commit(() => {
        const removedAt = at.toISOString();
        const cutoff = unseenSince.toISOString();
        const v: RemovedReview[] = [];
        for (const externalId of new Set(externalIds)) {
          const live = this.index.findByExternal(orgId, platform, externalId);
          if (live && live.updatedAt < cutoff) v.push({ ...live, aiThemes: [...live.aiThemes], removedAt });
        }
        const o = this.recordsEvents(orgId) ? v.map((r) => removedMessage(r, at)) : [];
        return { entries: v.length > 0 ? [o.length > 0 ? { t: 'removed', v, o } : { t: 'removed', v }] : [], result: v.length };
      }, true),
    externalIds: async (orgId, platform, collectedBy) => this.index.externalIds(orgId, platform, collectedBy),
    findByExternalIds: async (orgId, platform, externalIds) => {
      const out: Review[] = [];
      for (const externalId of externalIds) {
        const live = this.index.findByExternal(orgId, platform, externalId);
        if (live) out.push(live);
      }
      return out;
    },
    // Alone in its round, against the committed index, like a removal: the records as they are, less the marker.
    disown: (orgId, platform, externalIds, sourceId) =>
      this.commit(() => {
        const v: Review[] = [];
        for (const externalId of new Set(externalIds)) {
          const live = this.index.findByExternal(orgId, platform, externalId);
          if (!live || live.sourceId !== sourceId) continue;
          const { sourceId: _gone, ...rest } = live;
          v.push({ ...rest, aiThemes: [...live.aiThemes] });
        }
        return { entries: v.length > 0 ? [{ t: 'reviews', v }] : [], result: v.length };
      }, true),
    listRemoved: async (orgId) => [...(this.removedMap.get(orgId)?.values() ?? [])].sort((a, b) => b.date.localeCompare(a.date) || b.id.localeCompare(a.id)),
  };

  /**
   * A review batch is prepared ahead (ids, checks, the log line), in slices
   * that give the event loop turns: prepared and encoded in one synchronous
   * run, 2,000 reviews held it for tens of ms. It commits in a round of its
   * own, whose plan resolves ids against the committed index: when another
   * batch of the same organization landed meanwhile (two imports at once),
   * the preparation may be stale and the plan prepares the batch again, there.
   * Either way the batch is one log entry, written and synced all or nothing.
   * Two calls at once for the same organization commit in the order their
   * preparations finish, not necessarily the order they were made: each
   * batch is whole, none is lost or duplicated, and the counts are right,
   * but which of two concurrent writes of the same review lands last is not
   * decided by call order (it never was across two processes' imports).
   */
  private async upsertReviews(orgId: string, inputs: ReviewInput[], now: Date): Promise<UpsertResult> {
    if (this.closed) throw new Error('the store is closed');
    const ahead = await this.prepareAhead(orgId, inputs, now);
    const result = await this.commit(() => {
      const ready = ahead.writes === (this.reviewWrites.get(orgId) ?? 0) ? ahead : this.prepare(orgId, inputs, now);
      const entry: Entry = ready.messages.length > 0 ? { t: 'reviews', v: ready.records, o: ready.messages } : { t: 'reviews', v: ready.records };
      if (ready === ahead) this.encoded.set(entry, ahead.line);
      // Fanned out in the same round (one sync): the deliveries exist once the import is answered.
      const fan = this.fanAtWrite(orgId, ready.messages, now);
      return { entries: fan ? [entry, fan] : [entry], result: { imported: ready.imported, updated: ready.updated } };
    }, true);
    this.reviewsUpserted.notify(orgId, inputs, now);
    return result;
  }

  /** `prepare` and the batch's log line, giving the event loop a turn every few ms. */
  private async prepareAhead(orgId: string, inputs: ReviewInput[], now: Date): Promise<Prepared> {
    const writes = this.reviewWrites.get(orgId) ?? 0;
    let since = performance.now();
    const pause = async (): Promise<void> => {
      if (performance.now() - since < PREPARE_SLICE_MS) return;
      await nextTurn();
      since = performance.now();
    };
    const SLICE = 100;
    let prepared: Batch = { imported: 0, updated: 0, records: [], befores: [] };
    const inBatch = new Map<string, number>();
    const stamp = now.toISOString();
    for (let from = 0; from < inputs.length; from += SLICE) {
      this.prepareInto(prepared, inBatch, orgId, inputs, from, Math.min(inputs.length, from + SLICE), stamp);
      await pause();
    }
    // If the organization's reviews changed while this ran, the plan prepares again anyway.
    if (writes !== (this.reviewWrites.get(orgId) ?? 0)) prepared = this.prepareBatch(orgId, inputs, now);
    // JSON.stringify of the entry, element by element: `{"t":"reviews","v":[` + records joined by "," + `]}` is the same text.
    const parts: string[] = new Array(prepared.records.length);
    for (let from = 0; from < parts.length; from += SLICE) {
      const to = Math.min(parts.length, from + SLICE);
      for (let i = from; i < to; i++) parts[i] = JSON.stringify(prepared.records[i]);
      await pause();
    }
    const messages = this.messagesOf(orgId, prepared, now);
    const o = messages.length > 0 ? `,"o":[${messages.map((m) => JSON.stringify(m)).join(',')}]` : '';
    const line = encodeLine(`{"t":"reviews","v":[${parts.join(',')}]${o}}`);
    return { imported: prepared.imported, updated: prepared.updated, records: prepared.records, messages, line, writes };
  }

  /**
   * The product catalog. Each upsert and removal commits alone in its round,
   * resolved against the committed state: `created` and the review check are
   * exact. Review counts come from the index's per-product aggregates.
   */
  readonly products: ProductStore = {
    upsert: (input, now) =>
      this.commit(() => {
        const before = this.productMap.get(input.orgId)?.get(input.id);
        const stamp = now.toISOString();
        const product: Product = { ...input, createdAt: before?.createdAt ?? stamp, updatedAt: stamp };
        return { entries: [{ t: 'product', v: product }], result: { product, created: before === undefined } };
      }, true),
    get: async (orgId, id) => this.productMap.get(orgId)?.get(id) ?? null,
    list: async (orgId) =>
      [...(this.productMap.get(orgId)?.values() ?? [])]
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((product) => {
          const { count, ratedCount, ratingSum } = this.index.productCounts(orgId, product.id);
          return { ...product, reviewCount: count, averageRating: ratedCount > 0 ? roundRatio2(ratingSum, ratedCount) : null };
        }),
    remove: (orgId, id) =>
      this.commit(() => {
        if (!this.productMap.get(orgId)?.has(id)) return { entries: [], result: 'not_found' as const };
        if (this.index.productCounts(orgId, id).count > 0) return { entries: [], result: 'has_reviews' as const };
        return { entries: [{ t: 'product-gone', orgId, id }], result: 'removed' as const };
      }, true),
  };

  /**
   * Replies (reply-types.ts). Each write commits alone in its round, resolved
   * against the committed state, so `update`'s state check and its write are
   * one step.
   */
  readonly replies: ReplyStore = {
    put: (record) => this.commit(() => ({ entries: [{ t: 'reply', v: clone(record) }], result: undefined }), true),
    get: async (orgId, reviewId) => this.replyMap.get(orgId)?.get(reviewId) ?? null,
    update: (orgId, reviewId, from, patch) =>
      this.commit(() => {
        const before = this.replyMap.get(orgId)?.get(reviewId);
        if (!before || !from.includes(before.state)) return { entries: [], result: null };
        const v: ReplyRecord = { ...before, ...clone(patch), orgId, reviewId };
        return { entries: [{ t: 'reply', v }], result: v };
      }, true),
    list: async (orgId, state) =>
      [...(this.replyMap.get(orgId)?.values() ?? [])]
        .filter((r) => state === undefined || r.state === state)
        .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.reviewId.localeCompare(b.reviewId)),
    pending: async () => {
      const out: ReplyRecord[] = [];
      for (const org of this.replyMap.values()) for (const r of org.values()) if (r.state === 'scheduled' || r.state === 'publishing') out.push(r);
      return out;
    },
    settings: async (orgId) => this.replySettingsMap.get(orgId) ?? { orgId, delayMinutes: DEFAULT_REPLY_DELAY_MINUTES },
    putSettings: (settings) => this.commit(() => ({ entries: [{ t: 'reply-settings', v: clone(settings) }], result: undefined }), true),
    templates: async (orgId) => [...(this.templateMap.get(orgId)?.values() ?? [])].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)),
    getTemplate: async (orgId, id) => this.templateMap.get(orgId)?.get(id) ?? null,
    createTemplate: (t, maxPerOrg) =>
      this.commit(() => {
        if ((this.templateMap.get(t.orgId)?.size ?? 0) >= maxPerOrg) return { entries: [], result: false };
        return { entries: [{ t: 'reply-template', v: clone(t) }], result: true };
      }, true),
    putTemplate: (t) =>
      this.commit(() => {
        if (!this.templateMap.get(t.orgId)?.has(t.id)) return { entries: [], result: false };
        return { entries: [{ t: 'reply-template', v: clone(t) }], result: true };
      }, true),
    deleteTemplate: (orgId, id) =>
      this.commit(() => {
        if (!this.templateMap.get(orgId)?.has(id)) return { entries: [], result: false };
        return { entries: [{ t: 'reply-template-gone', orgId, id }], result: true };
      }, true),
  };

  /**
   * The review page's settings and submissions (collect-types.ts). Few and
   * written by hand: each write commits alone, checked against the committed
   * state, so `update`'s expectation is exact. Per-organization lists walk
   * the submissions (moderation queues are short).
   */
  readonly collect: CollectStore = {
    getSettings: async (orgId) => this.collectMap.get(orgId) ?? null,
    findByCollectId: async (collectId) => {
      const orgId = this.collectIds.get(collectId);
      return orgId === undefined ? null : (this.collectMap.get(orgId) ?? null);
    },
    putSettings: (settings) => this.commit(() => ({ entries: [{ t: 'collect', v: clone(settings) }], result: settings }), true),
    // Applied to the committed record in the commit round: a concurrent patch of other fields is kept.
    patchSettings: (orgId, patch) =>
      this.commit(() => {
        const now = this.collectMap.get(orgId);
        if (!now) return { entries: [], result: null };
        const next: CollectSettings = { ...now, ...patch };
        return { entries: [{ t: 'collect', v: clone(next) }], result: next };
      }, true),
    create: (submission) =>
      this.commit(() => {
        if (this.submissionMap.has(submission.id)) throw new Error(`submission ${submission.id} exists`);
        return { entries: [{ t: 'submission', v: clone(submission) }], result: undefined };
      }, true),
    get: async (id) => this.submissionMap.get(id) ?? null,
    update: (next, expect) =>
      this.commit(() => {
        const now = this.submissionMap.get(next.id);
        if (!now || now.state !== expect.state || now.updatedAt !== expect.updatedAt) return { entries: [], result: null };
        return { entries: [{ t: 'submission', v: clone(next) }], result: next };
      }, true),
    findPublished: async (orgId, emailKey, productId) => {
      for (const s of this.orgSubmissions.get(orgId)?.values() ?? []) if (s.state === 'published' && s.emailKey === emailKey && s.productId === productId) return s;
      return null;
    },
    listByState: async (orgId, state) =>
      [...(this.orgSubmissions.get(orgId)?.values() ?? [])].filter((s) => s.state === state).sort((a, b) => a.submittedAt.localeCompare(b.submittedAt) || a.id.localeCompare(b.id)),
    // From the soonest expiry, up to the first not expired: the expired ones and the few entries of
    // submissions confirmed or decided meanwhile, never the whole store.
    removeExpired: (before, limit) =>
      this.commit(() => {
        this.dropStaleAwaiting();
        const ids: string[] = [];
        for (const { at, id } of this.awaitingByExpiry) {
          if (ids.length >= limit || at > before) break;
          if (this.awaiting.get(id) === at) ids.push(id);
        }
        return { entries: ids.length > 0 ? [{ t: 'submission-gone', ids }] : [], result: ids.length };
      }, true),
  };

  /** `state` invitations whose `field` came by `before`, not claimed past `claimedBefore` (the real time), not of `skipOrgs`; soonest first. */
  private unclaimedInvitations(state: 'scheduled' | 'sent', field: 'sendAt' | 'remindAt', before: string, limit: number, skipOrgs: readonly string[], claimedBefore: string): Invitation[] {
    const skip = new Set(skipOrgs);
    return soonest(this.liveInvitations.values(), field, limit, (i) => {
      const when = i[field];
      return i.state === state && when != null && when <= before && (i.leaseUntil == null || i.leaseUntil <= claimedBefore) && !skip.has(i.orgId);
    });
  }

  /**
   * Review invitations (invitation-types.ts). A batch commits alone in its
   * round, decided against the committed state and its own earlier items,
   * so the rules hold whatever runs at the same time. Lists walk the
   * organization's invitations (a cap per organization bounds them).
   */
  readonly invitations: InvitationStore = {
    create: (orgId, drafts, options) =>
      this.commit(() => {
        const out: CreatedInvitation[] = [];
        const fresh: Invitation[] = [];
        const batchOrders = new Map<string, Invitation>();
        const batchLast = new Map<string, string>();
        for (const draft of drafts) {
          const ok = draft.orderRef === null ? null : orderKey(orgId, draft.emailKey, draft.orderRef);
          const earlier = ok === null ? undefined : (batchOrders.get(ok) ?? this.invitationMap.get(this.invitationOrders.get(ok) ?? ''));
          if (earlier) {
            out.push({ invitation: earlier, created: false });
            continue;
          }
          const rk = `${orgId}\u0000${draft.emailKey}`;
          const invitation = decide({ ...draft, orgId }, { lastInvitedAt: batchLast.get(rk) ?? this.lastInvited.get(rk) ?? null, unsubscribedAt: this.unsubscribedMap.get(rk) ?? null });
          if (invitation.state !== 'skipped') batchLast.set(rk, invitedAt(invitation));
          if (ok !== null) batchOrders.set(ok, invitation);
          fresh.push(invitation);
          out.push({ invitation, created: true });
        }
        if ((this.orgInvitations.get(orgId)?.size ?? 0) + fresh.length > options.max) return { entries: [], result: null };
        return { entries: fresh.length > 0 ? [{ t: 'invitations', v: clone(fresh) }] : [], result: out };
      }, true),
    get: async (id) => this.invitationMap.get(id) ?? null,
    // From the newest back: a page reads its own invitations (and, with a state, those it passes), never a copy of all.
    list: async (orgId, { state, limit, offset }) => {
      const order = this.invitationOrder.get(orgId) ?? [];
      const total = state === undefined ? order.length : (this.invitationStates.get(orgId)?.[state] ?? 0);
      const data: Invitation[] = [];
      // Past the last one of the state (the counts say so): nothing to walk.
      if (offset >= total) return { data, total };
      if (state === undefined) {
        for (let i = order.length - 1 - offset; i >= 0 && data.length < limit; i--) data.push(order[i]!);
      } else {
        let skipped = 0;
        for (let i = order.length - 1; i >= 0 && data.length < limit; i--) {
          if (order[i]!.state !== state) continue;
          if (skipped < offset) skipped++;
          else data.push(order[i]!);
        }
      }
      return { data, total };
    },
    count: async (orgId) => this.orgInvitations.get(orgId)?.size ?? 0,
    countByState: async (orgId) => ({ ...(this.invitationStates.get(orgId) ?? noCounts()) }),
    sentSince: async (orgId, sinceDay) => {
      const out = { sent: 0, reviewed: 0 };
      for (const [day, figures] of this.invitationDays.get(orgId) ?? []) {
        if (day < sinceDay) continue;
        out.sent += figures.sent;
        out.reviewed += figures.reviewed;
      }
      return out;
    },
    // The address's own invitations (a handful: one per 30 days), asked once per unsubscribe.
    ofAddress: async (orgId, emailKey, limit) =>
      [...(this.addressInvitations.get(`${orgId}\u0000${emailKey}`) ?? [])]
        .map((id) => this.invitationMap.get(id)!)
        .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
        .slice(0, limit),
    // Walks of the live invitations (scheduled, sent, reminded): the sender asks a few times a minute.
    due: async (before, limit, skipOrgs = [], claimedBefore = before) => this.unclaimedInvitations('scheduled', 'sendAt', before, limit, skipOrgs, claimedBefore),
    remindersDue: async (before, limit, skipOrgs = [], claimedBefore = before) => this.unclaimedInvitations('sent', 'remindAt', before, limit, skipOrgs, claimedBefore),
    expiring: async (sentBefore, limit) => soonest(this.liveInvitations.values(), 'sentAt', limit, (i) => (i.state === 'sent' || i.state === 'reminded') && i.sentAt !== null && i.sentAt <= sentBefore),
    update: (next, expect) =>
      this.commit(() => {
        const now = this.invitationMap.get(next.id);
        if (!now || now.state !== expect.state || now.updatedAt !== expect.updatedAt) return { entries: [], result: null };
        return { entries: [{ t: 'invitations', v: [clone(next)] }], result: next };
      }, true),
    unsubscribe: (orgId, emailKey, at) =>
      this.commit(() => (this.unsubscribedMap.has(`${orgId}\u0000${emailKey}`) ? { entries: [], result: undefined } : { entries: [{ t: 'unsubscribed', orgId, k: emailKey, at }], result: undefined }), true),
    unsubscribedAt: async (orgId, emailKey) => this.unsubscribedMap.get(`${orgId}\u0000${emailKey}`) ?? null,
    // Each organization's invitations from the oldest (by creation: one cannot end before it was created), up to
    // the first created at or after the cutoff: a run with nothing to purge reads only the old live ones.
    purge: (endedBefore, limit, options = {}) =>
      this.commit(() => {
        const skip = new Set(options.skipOrgs ?? []);
        const ids: string[] = [];
        const byOrg: Record<string, number> = {};
        const orgs = options.orgId !== undefined ? [options.orgId] : [...this.invitationOrder.keys()];
        for (const orgId of orgs) {
          if (ids.length >= limit) break;
          if (skip.has(orgId)) continue;
          for (const inv of this.invitationOrder.get(orgId) ?? []) {
            if (ids.length >= limit || inv.createdAt >= endedBefore) break;
            const ended = endedAt(inv);
            if (ended === null || ended >= endedBefore) continue;
            ids.push(inv.id);
            byOrg[orgId] = (byOrg[orgId] ?? 0) + 1;
          }
        }
        // Retention's "with them goes the address" holds on disk too: the pause right after the last batch of a
        // run (fewer than asked for) rewrites the log when something was removed since the last rewrite: once a
        // run, not once a batch; nothing removed, nothing rewritten. Nobody waits for it: a failed rewrite is
        // tried again by the next run (or an erasure of the address).
        if (ids.length < limit && (ids.length > 0 || this.goneAddresses.size > 0)) this.compactWanted = true;
        return { entries: ids.length > 0 ? [{ t: 'invitations-gone', ids }] : [], result: byOrg };
      }, true),
    // The log is rewritten right after (before the answer), so the address leaves the disk too: also when
    // nothing is left to remove but the log may still hold its old lines (invitations purged or erased since
    // the last rewrite). A failed rewrite fails the erasure (503): it never answers with the address on disk.
    erase: async (orgId, emailKey) => {
      let rewritten: Promise<unknown> = Promise.resolve(null);
      const addressKey = `${orgId}\u0000${emailKey}`;
      const n = await this.commit(() => {
        const ids = [...(this.addressInvitations.get(addressKey) ?? [])];
        if (ids.length > 0 || this.goneAddresses.has(addressKey)) {
          // Asked in the plan, so the pause right after this round (not a later one) rewrites the log.
          this.compactWanted = true;
          rewritten = new Promise((resolve) => this.compactWaiters.push(resolve));
        }
        return { entries: ids.length > 0 ? [{ t: 'invitations-gone', ids }] : [], result: ids.length };
      }, true);
      const failure = await rewritten;
      if (failure !== null) throw new StoreUnavailableError('embedded', { cause: failure });
      return n;
    },
  };

  /**
   * Hidden reviews live beside the reviews, never inside them: an import
   * rewrites a review but cannot touch these. A hide and a show each commit
   * alone, so two concurrent ones apply in the order they were submitted.
   */
  readonly moderation: ModerationStore = {
    hide: (record) => this.commit(() => ({ entries: [{ t: 'hide', v: clone(record) }], result: record }), true),
    show: (orgId, reviewId) =>
      this.commit(() => (this.hidden.get(orgId)?.has(reviewId) ? { entries: [{ t: 'show', orgId, reviewId }], result: true } : { entries: [], result: false }), true),
    listByOrg: async (orgId) => [...(this.hidden.get(orgId)?.values() ?? [])].sort((a, b) => a.hiddenAt.localeCompare(b.hiddenAt) || a.reviewId.localeCompare(b.reviewId)),
  };

  /**
   * The full records a batch writes: an existing platform+externalId keeps its
   * id and createdAt; a repeat inside the batch updates the earlier one. Each
   * record is checked as the index would check it, before anything is logged:
   * a record the index refuses must never reach the log, where replaying it
   * would stop the next start-up.
   */
  private prepare(orgId: string, inputs: ReviewInput[], now: Date): UpsertResult & { records: Review[]; messages: BatchMessage[] } {
    const prepared = this.prepareBatch(orgId, inputs, now);
    return { ...prepared, messages: this.messagesOf(orgId, prepared, now) };
  }

  private prepareBatch(orgId: string, inputs: ReviewInput[], now: Date): Batch {
    const prepared: Batch = { imported: 0, updated: 0, records: [], befores: [] };
    this.prepareInto(prepared, new Map(), orgId, inputs, 0, inputs.length, now.toISOString());
    return prepared;
  }

  /** The batch's webhook events (none for an organization without endpoints, none for an identical re-import). */
  private messagesOf(orgId: string, batch: Batch, now: Date): BatchMessage[] {
    if (!this.recordsEvents(orgId)) return [];
    const out: BatchMessage[] = [];
    const createdAt = now.toISOString();
    for (let i = 0; i < batch.records.length; i++) {
      const type = changeType(batch.befores[i]!, batch.records[i]!);
      if (type !== null) out.push({ id: newMessageId(), orgId, type, createdAt, i });
    }
    return out;
  }

  /** `prepare` of inputs[from, to), continuing `into` (`inBatch`: natural key → index in its records). */
  private prepareInto(into: Batch, inBatch: Map<string, number>, orgId: string, inputs: ReviewInput[], from: number, to: number, stamp: string): void {
    const records = into.records;
    for (let i = from; i < to; i++) {
      const input = inputs[i]!;
      const natural = `${input.platform}\u0000${input.externalId}`;
      const at = inBatch.get(natural);
      if (at !== undefined) {
        const earlier = records[at]!;
        records[at] = checked(makeRecord(input, input.date, earlier.id, orgId, earlier.createdAt, stamp, input.sourceId ?? earlier.sourceId));
        continue;
      }
      const live = this.index.findByExternal(orgId, input.platform, input.externalId);
      const existing = live ?? this.removedMap.get(orgId)?.get(natural) ?? null;
      // What receivers saw before: the live review; a removed one coming back is created again.
      into.befores.push(live);
      if (existing) {
        into.updated++;
        records.push(checked(makeRecord(input, input.date, existing.id, orgId, existing.createdAt, stamp, input.sourceId ?? existing.sourceId)));
      } else {
        into.imported++;
        records.push(checked(makeRecord(input, input.date, newId('rev'), orgId, stamp, stamp)));
      }
      inBatch.set(natural, records.length - 1);
    }
  }

  /**
   * Not ready while the disk refuses writes: after a log's write failed for
   * want of space (or an I/O error), a probe file in DATA_DIR is written and
   * synced on each ping until one succeeds (the disk took a write again), so
   * an instance taken out of rotation sees its own recovery. Not ready for
   * good (until a restart replays the log) when a failed write could not be
   * cut back off the log (durable-log.ts `brokenBy`).
   */
  async ping(): Promise<void> {
    if (this.closed) throw new Error('the store is closed');
    // A log that could not be repaired after a failed write refuses every write until a restart: no probe can clear that.
    const broken = this.log.brokenBy ?? this.people.brokenBy;
    if (broken) throw new StoreUnavailableError('embedded', { cause: broken });
    const failure = this.log.diskFailure ?? this.people.diskFailure;
    if (!failure) return;
    const probe = join(this.dataDir, '.write-probe');
    try {
      const file = await this.openFile(probe, 'w', 0o600);
      try {
        await file.write(Buffer.alloc(4096));
        await file.datasync();
      } finally {
        await file.close();
        await rm(probe, { force: true });
      }
    } catch (err) {
      throw new StoreUnavailableError('embedded', { cause: err });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Writes already queued are answered first.
    await this.commits.idle();
    try {
      await this.log.close();
      await this.people.close();
    } finally {
      await this.lock.release();
    }
  }
}

/**
 * The `limit` matching invitations least by `field` (then id), in order, from
 * one walk: a sorted window of at most `limit` (a batch is small), not a sort
 * of everything that matches (10,000 due at once are taken 100 at a time).
 */
/** Where `v` is, or goes, in an organization's invitations ordered by (createdAt, id). */
function orderIndex(order: readonly Invitation[], v: Invitation): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const m = order[mid]!;
    if (m.createdAt < v.createdAt || (m.createdAt === v.createdAt && m.id < v.id)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function soonest(all: Iterable<Invitation>, field: 'sendAt' | 'remindAt' | 'sentAt', limit: number, match: (i: Invitation) => boolean): Invitation[] {
  const out: Invitation[] = [];
  if (limit <= 0) return out;
  const less = (a: Invitation, b: Invitation): boolean => a[field]! < b[field]! || (a[field] === b[field] && a.id < b.id);
  for (const i of all) {
    if (!match(i)) continue;
    if (out.length === limit && !less(i, out[limit - 1]!)) continue;
    let lo = 0;
    let hi = out.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (less(out[mid]!, i)) lo = mid + 1;
      else hi = mid;
    }
    out.splice(lo, 0, i);
    if (out.length > limit) out.pop();
  }
  return out;
}
