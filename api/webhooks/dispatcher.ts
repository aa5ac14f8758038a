/**
 * The dispatcher (CONTRACT §12): reads the outbox in batches, fans each
 * message out to the enabled endpoints subscribed to its type (one delivery
 * record per (message, endpoint), idempotent), then delivers what is due,
 * one worker per endpoint: an endpoint's worker has at most `perEndpoint`
 * deliveries in flight (16 unless told; started oldest due first, they may
 * finish in any order), and a slow or dead endpoint holds up only its own
 * worker. A slot is free again once the receiver answered; the attempt's
 * result is written to the delivery record just after (at most 3 × 16
 * deliveries per endpoint in flight or waiting for that write), so a restart
 * resumes from the store and a crash sends at most those again (delivery is
 * at least once; receivers deduplicate by `webhook-id`). The endpoint's own health is written at once when its state
 * or failure clock changes; its `lastDeliveryAt` alone at most once a second
 * and when the worker ends.
 *
 * The work runs through keyed jobs (api/jobs/keyed-work.ts): `sweep` (fan
 * out the outbox, then ask for each endpoint with work due) and
 * `endpoint:{id}` (that endpoint's worker). With REDIS_URL they are BullMQ
 * jobs whose id is the key, so across instances one worker per endpoint at a
 * time and each delivery attempted by one instance at a time; an instance
 * that dies leaves its job to another; `sweep` and `prune` have slots of
 * their own, an endpoint's worker gives its slot back after a turn (TURN_MS
 * of starts) behind the others, and an organization has at most ORG_SLOTS
 * workers running per instance (see `work`). Without Redis, in process. Every
 * instance's timer asks for a sweep every `pollMs`; `wake()` asks now, and
 * so does the store of this process after a write that recorded events
 * (`store.outboxWritten`, debounced: an import batch is one wake). Other
 * instances find those messages on their poll.
 */
import type { BulkImports } from '../jobs/bulk-imports.ts';
import { InProcessKeyedQueue } from '../jobs/keyed-in-process.ts';
import type { KeyedOutcome, KeyedQueue } from '../jobs/keyed-work.ts';
import type { Logger } from '../logger.ts';
import type { SecretBox } from '../secrets/secrets.ts';
import type { Store } from '../store/types.ts';
import { StoreUnavailableError } from '../store/unavailable.ts';
import { fansOutTo, freshDelivery, type OutboxMessage, type WebhookDelivery, type WebhookEndpoint } from '../store/webhook-types.ts';
import { audit, OPERATOR } from '../dashboard/audit.ts';
import { attemptDelivery } from './attempt.ts';
import type { DeliveryClient, DeliveryResult } from './deliver.ts';
import { endpointAfterAttempt, type EndpointHealth } from './endpoint-health.ts';
import { messageAfterAttempt } from './retry-schedule.ts';
import type { EndpointSecret } from './secrets.ts';

/** Messages or deliveries read per store call: a backlog never sits in memory whole. */
const BATCH = 100;
/**
 * Messages fanned out per round: their delivery records are one write (one
 * sync of the embedded log), so a bulk import's events cost a sync per
 * thousand, not per hundred, beside the import's own writes.
 */
const FAN_OUT_BATCH = 1000;
/**
 * Deliveries made per fan-out round at most, whatever the number of
 * endpoints: a batch's messages go out in rounds of at most this many
 * deliveries (20 endpoints: 100 messages a round), so the records a round
 * holds do not grow with the endpoints an organization has (or had before
 * WEBHOOK_MAX_ENDPOINTS: 300 of them made 300,000 records of one batch).
 */
export const FAN_OUT_DELIVERIES = 2000;

/** The sealed form of an endpoint's secret list. */
interface SealedSecret {
  secret: string;
  createdAt: string;
  expiresAt: string | null;
}

export function sealSecrets(box: SecretBox, endpointId: string, secrets: readonly EndpointSecret[]): string {
  const plain: SealedSecret[] = secrets.map((s) => ({ secret: s.secret, createdAt: s.createdAt.toISOString(), expiresAt: s.expiresAt?.toISOString() ?? null }));
  return box.sealJson(plain, endpointId);
}

export function openSecrets(box: SecretBox, endpoint: Pick<WebhookEndpoint, 'id' | 'secrets'>): EndpointSecret[] {
  return box.openJson<SealedSecret[]>(endpoint.secrets, endpoint.id).map((s) => ({ secret: s.secret, createdAt: new Date(s.createdAt), expiresAt: s.expiresAt === null ? null : new Date(s.expiresAt) }));
}

export function healthOf(e: WebhookEndpoint): EndpointHealth {
  return {
    state: e.state,
    disabledReason: e.disabledReason,
    lastDeliveryAt: e.lastDeliveryAt === null ? null : new Date(e.lastDeliveryAt),
    failingSince: e.failingSince === null ? null : new Date(e.failingSince),
  };
}

/** What the dispatcher's keyed jobs carry. */
export type DispatchWork = { kind: 'sweep' } | { kind: 'endpoint'; endpointId: string } | { kind: 'prune' };

/** How long finished deliveries and their messages are kept (the delivery log, replay): 30 days. */
export const RETENTION_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;

export interface DispatcherOptions {
  store: Store;
  /** Where its work runs (keyed-bullmq.ts with Redis); in process when absent. */
  queue?: KeyedQueue<DispatchWork>;
  box: SecretBox;
  client: DeliveryClient;
  logger: Logger;
  /** How often it looks for work without being woken. */
  pollMs?: number;
  now?: () => Date;
  random?: () => number;
  /** Finished deliveries and their messages older than this are pruned (WEBHOOK_RETENTION_DAYS). */
  retentionDays?: number;
  /** How often pruning runs (in batches, as a keyed job like the rest). */
  pruneEveryMs?: number;
  /** Records removed per store call while pruning. */
  pruneBatch?: number;
  /** Deliveries in flight at once to one endpoint (its worker's bound): 16 when absent. */
  perEndpoint?: number;
  /** This process's bulk imports (jobs/bulk-imports.ts): an organization's deliveries wait while one of its runs, when the work runs in process (no Redis). None when absent. */
  bulk?: BulkImports;
  /** How long a worker holds for a bulk import at a time, at most: BULK_HOLD_MS when absent. */
  bulkHoldMs?: number;
  /** With Redis (shared slots): how long an endpoint's worker starts deliveries before it gives its slot back: TURN_MS when absent. */
  turnMs?: number;
  /** With Redis (shared slots): endpoint workers of one organization running at once in this instance, at most: ORG_SLOTS when absent. */
  orgSlots?: number;
}

/**
 * With Redis, an endpoint's worker starts deliveries for this long, then lets
 * those in flight end and gives its slot back, asking to run again behind the
 * endpoints already waiting (round-robin): a slow endpoint with a backlog holds
 * a slot for a turn (at most this plus one 15 s exchange), not for hours.
 */
export const TURN_MS = 5000;
/** With Redis, endpoint workers of one organization at once per instance, at most: a quarter of its 32 slots. */
export const ORG_SLOTS = 8;
/** How soon a worker turned away by its organization's share asks again. */
const ORG_WAIT_MS = 1000;

/** How long a worker holds its deliveries for a bulk import of its organization at a time, at most (then a batch of up to 100 goes out). */
export const BULK_HOLD_MS = 30_000;

/** How long a worker goes on starting deliveries before it reads its endpoint again (a Disable, a Remove, a new secret). */
const REREAD_MS = 50;

/** How often a worker writes an endpoint's `lastDeliveryAt` when nothing else about it changed. */
const LAST_DELIVERY_FLUSH_MS = 1000;

/** Results waiting to be written per slot of a worker, at most (in flight and waiting: 3 per slot). */
const UNWRITTEN_PER_SLOT = 2;

export class Dispatcher {
  private readonly store: Store;
  private readonly options: DispatcherOptions;
  private readonly now: () => Date;
  private readonly queue: KeyedQueue<DispatchWork>;
  private timer: NodeJS.Timeout | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  private stopListening: (() => void) | null = null;
  private started: Promise<void> | null = null;
  /** Aborted when close() begins (a worker holding for a bulk import stops waiting). */
  private readonly closing = new AbortController();
  private get closed(): boolean {
    return this.closing.signal.aborted;
  }
  /** Each endpoint's secrets as last opened, with the sealed text they came from (opened again when it changes). */
  private readonly opened = new Map<string, { sealed: string; secrets: EndpointSecret[] }>();
  /** With Redis: this instance's running endpoint workers per organization (its share of the slots). */
  private readonly orgWorkers = new Map<string, number>();

  constructor(options: DispatcherOptions) {
    this.options = options;
    this.store = options.store;
    this.now = options.now ?? (() => new Date());
    this.queue = options.queue ?? new InProcessKeyedQueue<DispatchWork>(options.logger);
  }

  start(): void {
    this.started = this.queue.start((work) => this.run(work));
    this.started.catch((err: unknown) => this.options.logger.error({ err }, 'webhooks: the delivery queue could not start'));
    const every = this.options.pollMs ?? 1000;
    this.timer = setInterval(() => this.wake(), every);
    this.timer.unref();
    this.pruneTimer = setInterval(() => this.request({ kind: 'prune' }), this.options.pruneEveryMs ?? 3600_000);
    this.pruneTimer.unref();
    this.stopListening = this.store.outboxWritten?.listen(() => this.wake()) ?? null;
    this.wake();
    this.request({ kind: 'prune' });
  }

  private request(work: DispatchWork): void {
    if (this.closed) return;
    const key = work.kind === 'endpoint' ? `endpoint:${work.endpointId}` : work.kind;
    // The sweep and pruning never wait behind endpoint workers for a slot.
    this.queue.request({ key, data: work, upkeep: work.kind !== 'endpoint' }).catch((err: unknown) => this.options.logger.warn({ err, work: work.kind }, 'webhooks: could not ask for work'));
  }

  /**
   * Forgets finished deliveries, and messages no delivery refers to any more,
   * older than the retention, a batch per store call (never the whole backlog
   * at once). Answers how many records were removed.
   */
  async prune(): Promise<number> {
    const before = new Date(this.now().getTime() - (this.options.retentionDays ?? RETENTION_DAYS) * DAY_MS);
    let total = 0;
    for (;;) {
      const removed = await this.store.webhooks.prune(before, this.options.pruneBatch ?? 500);
      total += removed;
      if (removed === 0 || this.closed) return total;
    }
  }

  private async run(work: DispatchWork): Promise<void | KeyedOutcome> {
    try {
      if (work.kind === 'sweep') await this.pass();
      else if (work.kind === 'endpoint') return await this.work(work.endpointId);
      else await this.prune();
    } catch (err) {
      // The store away (a 503 elsewhere): the next sweep tries again; nothing was lost.
      if (!(err instanceof StoreUnavailableError)) throw err;
      this.options.logger.warn({ err: err.message, work: work.kind }, 'webhooks: the store is not answering');
    }
  }

  /** The endpoint's secrets, opened once per sealed version rather than once per attempt. */
  private secretsOf(endpoint: WebhookEndpoint): EndpointSecret[] {
    const cached = this.opened.get(endpoint.id);
    if (cached && cached.sealed === endpoint.secrets) return cached.secrets;
    const secrets = openSecrets(this.options.box, endpoint);
    this.opened.set(endpoint.id, { sealed: endpoint.secrets, secrets });
    return secrets;
  }

  /** Looks for work now (after an import, a replay, a test). */
  wake(): void {
    this.request({ kind: 'sweep' });
  }

  /**
   * One sweep: fans out the waiting messages a batch at a time until none is
   * left, asking for the worker of every endpoint a round of a batch gave
   * deliveries right after that round (so deliveries start while the outbox
   * still fills), then asks for the worker of each enabled endpoint with work
   * due (retries that came due). The store answers a batch fairly across
   * organizations (round-robin, oldest first within each; the MongoDB store
   * also relays its outbox so, a bounded round at a time): another
   * organization's event is in the first round of a batch, whatever one
   * organization's backlog.
   */
  async pass(): Promise<void> {
    for (;;) {
      const read = await this.fanOutBatch();
      if (read === 0 || this.closed) break;
    }
    const now = this.now();
    const endpoints = await this.store.webhooks.listAll();
    // Secrets of endpoints gone are not kept in memory.
    const live = new Set(endpoints.map((e) => e.id));
    for (const id of this.opened.keys()) if (!live.has(id)) this.opened.delete(id);
    for (const endpoint of endpoints) {
      if (endpoint.state !== 'enabled' || this.closed) continue;
      if ((await this.store.webhooks.due(now, 1, endpoint.id)).length === 0) continue;
      await this.queue.request({ key: `endpoint:${endpoint.id}`, data: { kind: 'endpoint', endpointId: endpoint.id } });
    }
  }

  /**
   * Fans out one batch of waiting messages in rounds whose writes are made
   * together (the embedded store commits a round at once), asking for the
   * workers of the endpoints a round gave deliveries once its records are
   * written. Answers how many messages it read (0 when closed meanwhile).
   */
  private async fanOutBatch(): Promise<number> {
    const messages = await this.store.webhooks.unfanned(FAN_OUT_BATCH);
    if (messages.length === 0) return 0;
    const byOrg = new Map<string, WebhookEndpoint[]>();
    for (const message of messages) if (!byOrg.has(message.orgId)) byOrg.set(message.orgId, await this.store.webhooks.listByOrg(message.orgId));
    // Rounds of at most FAN_OUT_DELIVERIES records (a message's own are never split): each round's writes go together.
    let round: Promise<void>[] = [];
    let touched = new Set<string>();
    let held = 0;
    const flush = async (): Promise<void> => {
      await Promise.all(round);
      for (const endpointId of touched) if (!this.closed) this.request({ kind: 'endpoint', endpointId });
      round = [];
      touched = new Set();
      held = 0;
    };
    for (const message of messages) {
      const deliveries = this.deliveriesOf(message, byOrg.get(message.orgId)!);
      if (held > 0 && held + deliveries.length > FAN_OUT_DELIVERIES) {
        await flush();
        if (this.closed) return 0;
      }
      for (const d of deliveries) touched.add(d.endpointId);
      held += deliveries.length;
      round.push(this.store.webhooks.fanOut(message.id, deliveries));
    }
    await flush();
    return messages.length;
  }

  private deliveriesOf(message: OutboxMessage, endpoints: WebhookEndpoint[]): WebhookDelivery[] {
    const at = this.now().toISOString();
    return endpoints
      .filter((e) => (message.endpointId === null ? fansOutTo(e, message.type) : e.id === message.endpointId))
      .map((e) => freshDelivery(message, e.id, at));
  }

  /**
   * An endpoint's worker: its due deliveries, oldest due first, at most
   * `perEndpoint` in flight, until none is due or it is disabled. A slot is
   * the exchange with the receiver: it is free again once the answer is in,
   * while the result is written to the store after it (in flight and
   * waiting for that write, at most (1 + `UNWRITTEN_PER_SLOT`) × `perEndpoint`
   * deliveries, so the store's syncs do not pace the receiver; a crash before
   * a result is written sends that delivery again, at least once). A delivery in flight, or whose result
   * is not yet written, or was written while the store was being asked what
   * is due, is not started again by this run (the store's answer may predate
   * its result).
   *
   * With Redis its instance's slots are shared by every endpoint: a worker
   * runs for a turn (it starts deliveries for `turnMs`, lets those in flight
   * end, and answers `again`: the queue runs it again behind the endpoints
   * already waiting), and an organization runs at most `orgSlots` workers at
   * once per instance (one more answers `again` a second later without
   * sending), so slow endpoints never hold every slot.
   */
  private async work(endpointId: string): Promise<void | KeyedOutcome> {
    const limit = Math.max(1, this.options.perEndpoint ?? 16);
    /** Deliveries in flight or waiting for their result to be written, at most: what a crash may send again. */
    const maxOpen = limit * (1 + UNWRITTEN_PER_SLOT);
    /** Exchanges with the receiver in flight. */
    const running = new Map<string, Promise<void>>();
    /** Results being written. */
    const writing = new Map<string, Promise<void>>();
    /** Deliveries written, with the count of writes when they were, kept while a due query may predate them. */
    const finished = new Map<string, number>();
    let finishes = 0;
    const failures: unknown[] = [];
    const first = await this.store.webhooks.get(endpointId);
    if (!first) return;
    const state: WorkerState = {
      endpoint: first, health: healthOf(first), written: healthOf(first), flushedAt: Date.now(), readAt: Date.now(), chain: Promise.resolve(), clockPending: 0, clockDecided: 0,
    };
    const done = (id: string): void => {
      writing.delete(id);
      finished.set(id, finishes++);
    };
    const start = (delivery: WebhookDelivery): void => {
      const exchange = this.attemptInWorker(state, delivery).then(
        ({ written }) => {
          writing.set(delivery.id, written.catch((err: unknown) => void failures.push(err)).finally(() => done(delivery.id)));
        },
        // An attempt that threw (the store away) ends the run once seen, with that error.
        (err: unknown) => {
          failures.push(err);
          finished.set(delivery.id, finishes++);
        },
      );
      running.set(delivery.id, exchange.finally(() => running.delete(delivery.id)));
    };
    /** A hold for a bulk import just ended: the next batch goes out before the worker holds again. */
    let sendAfterHold = false;
    const shared = this.queue.kind === 'bullmq';
    const orgId = first.orgId;
    if (shared) {
      const running = this.orgWorkers.get(orgId) ?? 0;
      // (A disabled one runs and ends at once rather than coming back every second.)
      if (running >= Math.max(1, this.options.orgSlots ?? ORG_SLOTS) && first.state === 'enabled') return { again: true, delayMs: ORG_WAIT_MS };
      this.orgWorkers.set(orgId, running + 1);
    }
    /** When this turn stops starting deliveries (never without Redis: every key runs on its own there). */
    const turnEnds = shared ? Date.now() + (this.options.turnMs ?? TURN_MS) : Infinity;
    /** The turn ended with deliveries perhaps still due. */
    let more = false;
    try {
      while (!this.closed) {
        if (failures.length > 0) throw failures[0];
        if (Date.now() >= turnEnds) {
          more = true;
          break;
        }
        // A failure clock this worker decided lands before the endpoint is read again (read first, the store would give
        // back the clock it replaces): a wait only after an answer changed the clock, never on a run of successes.
        if (state.clockPending > 0) await state.chain;
        const decided = state.clockDecided;
        const fresh = await this.store.webhooks.get(endpointId);
        if (!fresh || fresh.state !== 'enabled' || state.health.state !== 'enabled') break;
        state.endpoint = fresh;
        // Another writer's change (a person re-enabling it, which clears the clock; a new secret) is taken; this worker's
        // unwritten lastDeliveryAt is kept, and so is its clock when an answer changed it while the endpoint was read.
        const stored = healthOf(fresh);
        const failingSince = state.clockDecided === decided ? stored.failingSince : state.health.failingSince;
        state.health = { ...stored, failingSince, lastDeliveryAt: later(state.health.lastDeliveryAt, stored.lastDeliveryAt) };
        state.written = stored;
        state.readAt = Date.now();
        const asked = finishes;
        const due = (await this.store.webhooks.due(this.now(), BATCH, endpointId)).filter((d) => !running.has(d.id) && !writing.has(d.id) && (finished.get(d.id) ?? -1) < asked);
        for (const [id, at] of finished) if (at < asked) finished.delete(id);
        if (due.length === 0) {
          if (running.size === 0 && writing.size === 0) break;
          await Promise.race([...running.values(), ...writing.values()]);
          continue;
        }
        // A bulk import of this endpoint's organization runs in this process: its deliveries wait for it, so that the
        // import keeps the CPU (those in flight finish meanwhile); after BULK_HOLD_MS this batch goes out, then it waits again.
        if (!sendAfterHold && this.queue.kind === 'in-process' && this.options.bulk?.has(state.endpoint.orgId)) {
          await this.options.bulk.idle(state.endpoint.orgId, this.options.bulkHoldMs ?? BULK_HOLD_MS, this.closing.signal);
          sendAfterHold = true;
          continue;
        }
        sendAfterHold = false;
        let stop = false;
        for (const delivery of due) {
          while (running.size >= limit) await Promise.race(running.values());
          while (running.size + writing.size >= maxOpen) await Promise.race([...running.values(), ...writing.values()]);
          if (this.closed || failures.length > 0 || state.health.state !== 'enabled') break;
          if (Date.now() >= turnEnds) {
            more = stop = true;
            break;
          }
          // A person's Disable or Remove, a new URL or secret, is seen within REREAD_MS, not after the whole batch.
          if (Date.now() - state.readAt >= REREAD_MS) {
            const now = await this.store.webhooks.get(endpointId);
            if (!now || now.state !== 'enabled') {
              stop = true;
              break;
            }
            state.endpoint = now;
            state.readAt = Date.now();
            // An answer that came in meanwhile may have disabled it (410).
            if (state.health.state !== 'enabled') break;
          }
          start(delivery);
        }
        if (stop) break;
      }
      await Promise.all(running.values());
      await Promise.all(writing.values());
      if (failures.length > 0) throw failures[0];
      return more && !this.closed ? { again: true } : undefined;
    } finally {
      await Promise.allSettled(running.values());
      await Promise.allSettled(writing.values());
      await state.chain;
      await this.flushLastDelivery(state, true).finally(() => {
        if (!shared) return;
        const left = (this.orgWorkers.get(orgId) ?? 1) - 1;
        if (left > 0) this.orgWorkers.set(orgId, left);
        else this.orgWorkers.delete(orgId);
      });
    }
  }

  /**
   * One attempt by a worker. Answers once the receiver answered (or the
   * attempt failed), with the write of its result still going on: the
   * delivery record, then the endpoint's health, the health writes in the
   * order the answers came. The health is decided as the answer comes in,
   * so a 410 stops the worker before its next start.
   */
  private async attemptInWorker(state: WorkerState, delivery: WebhookDelivery): Promise<{ written: Promise<void> }> {
    const endpoint = state.endpoint;
    const message = await this.store.webhooks.getMessage(delivery.messageId);
    if (!message) return { written: this.store.webhooks.putDelivery({ ...delivery, status: 'failed', nextAttemptAt: null, lastError: 'the message is gone' }) };
    const result = await attemptDelivery(this.options.client, { url: endpoint.url, orgId: endpoint.orgId, secrets: this.secretsOf(endpoint) }, { id: message.id, body: message.body }, this.now());
    const now = this.now();
    // Not sent (the delivery thread stopped): no attempt, nothing against the endpoint; tried again shortly.
    if (result.notSent) return { written: this.store.webhooks.putDelivery(notSentAgain(delivery, result, now)) };
    const before = state.health;
    const after = endpointAfterAttempt(before, result, now);
    state.health = after;
    const put = this.store.webhooks.putDelivery(this.afterAttempt(delivery, result, now));
    const clock = time(after.failingSince) !== time(before.failingSince);
    if (clock) {
      state.clockPending++;
      state.clockDecided++;
    }
    const written = Promise.all([put, state.chain])
      .then(() => this.recordHealth(state, before, after))
      .finally(() => {
        if (clock) state.clockPending--;
      });
    state.chain = written.catch(() => undefined);
    return { written };
  }

  private afterAttempt(delivery: WebhookDelivery, result: DeliveryResult, now: Date): WebhookDelivery {
    const attempts = delivery.attempts + 1;
    const outcome = messageAfterAttempt(result, attempts, now, this.options.random);
    return {
      ...delivery,
      status: outcome.status,
      attempts,
      lastStatusCode: result.statusCode,
      lastError: result.error,
      lastAttemptAt: now.toISOString(),
      nextAttemptAt: outcome.status === 'pending' && outcome.nextAttemptAt ? outcome.nextAttemptAt.toISOString() : null,
    };
  }

  /** Writes the endpoint's health after one of its worker's attempts (`before` → `after`): state and failure clock at once, lastDeliveryAt batched. */
  private async recordHealth(state: WorkerState, before: EndpointHealth, after: EndpointHealth): Promise<void> {
    const written = state.written;
    if (before.state === 'enabled' && after.state === 'disabled') {
      // This worker disables it (410, five days of failures): state, reason and clock together.
      await this.store.webhooks.update(state.endpoint.id, patchOf(after));
      state.written = after;
      state.flushedAt = Date.now();
    } else if (time(after.failingSince) !== time(written.failingSince)) {
      // Only the failure clock (and the last delivery): never `state`, which a person may have just set.
      await this.store.webhooks.update(state.endpoint.id, { failingSince: after.failingSince?.toISOString() ?? null, lastDeliveryAt: after.lastDeliveryAt?.toISOString() ?? null });
      state.written = { ...written, failingSince: after.failingSince, lastDeliveryAt: after.lastDeliveryAt };
      state.flushedAt = Date.now();
    } else {
      await this.flushLastDelivery(state, false);
    }
    if (before.state === 'enabled' && after.state === 'disabled') {
      this.options.logger.warn({ webhookId: state.endpoint.id, reason: after.disabledReason }, 'webhook endpoint disabled');
      await audit(this.store, state.endpoint.orgId, OPERATOR, 'webhook.disabled', { id: state.endpoint.id, label: state.endpoint.url }, { reason: after.disabledReason ?? '' });
    }
  }

  private async flushLastDelivery(state: WorkerState, force: boolean): Promise<void> {
    const at = state.health.lastDeliveryAt;
    if (time(at) === time(state.written.lastDeliveryAt)) return;
    if (!force && Date.now() - state.flushedAt < LAST_DELIVERY_FLUSH_MS) return;
    await this.store.webhooks.update(state.endpoint.id, { lastDeliveryAt: at?.toISOString() ?? null });
    state.written = { ...state.written, lastDeliveryAt: at };
    state.flushedAt = Date.now();
  }

  /** One attempt, its result written to the delivery and the endpoint. Answers the result. */
  async attempt(endpoint: WebhookEndpoint, delivery: WebhookDelivery): Promise<DeliveryResult | null> {
    const message = await this.store.webhooks.getMessage(delivery.messageId);
    if (!message) {
      await this.store.webhooks.putDelivery({ ...delivery, status: 'failed', nextAttemptAt: null, lastError: 'the message is gone' });
      return null;
    }
    const result = await attemptDelivery(this.options.client, { url: endpoint.url, orgId: endpoint.orgId, secrets: this.secretsOf(endpoint) }, { id: message.id, body: message.body }, this.now());
    const now = this.now();
    if (result.notSent) {
      await this.store.webhooks.putDelivery(notSentAgain(delivery, result, now));
      return result;
    }
    await this.store.webhooks.putDelivery(this.afterAttempt(delivery, result, now));
    // The endpoint as it is now, not as it was read before the exchange (up to 15 s ago): a person's Disable, Enable or
    // new secret meanwhile stands. As a worker's recordHealth does, this writes `state` only when this very answer
    // disables it (410, five days of failures); otherwise only the fields the attempt owns, the failure clock and the
    // last delivery.
    const current = await this.store.webhooks.get(endpoint.id);
    if (!current) return result;
    const before = healthOf(current);
    const after = endpointAfterAttempt(before, result, now);
    const disables = before.state === 'enabled' && after.state === 'disabled';
    const patch = disables
      ? patchOf(after)
      : { lastDeliveryAt: after.lastDeliveryAt?.toISOString() ?? null, failingSince: after.failingSince?.toISOString() ?? null };
    if (disables || patch.lastDeliveryAt !== current.lastDeliveryAt || patch.failingSince !== current.failingSince) {
      await this.store.webhooks.update(endpoint.id, patch);
    }
    if (disables) {
      this.options.logger.warn({ webhookId: endpoint.id, reason: after.disabledReason }, 'webhook endpoint disabled');
      await audit(this.store, current.orgId, OPERATOR, 'webhook.disabled', { id: current.id, label: current.url }, { reason: after.disabledReason ?? '' });
    }
    return result;
  }

  /** Stops looking for work and waits for the workers (an attempt in flight ends within its timeout). */
  async close(): Promise<void> {
    this.closing.abort();
    this.stopListening?.();
    if (this.timer) clearInterval(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    // The queue's close first: a start still waiting for an unreachable Redis gives up with it.
    const closing = this.queue.close();
    await this.started?.catch(() => undefined);
    await closing;
  }
}

/** What an endpoint's worker knows of it while it runs. */
interface WorkerState {
  endpoint: WebhookEndpoint;
  /** Its health after every attempt so far. */
  health: EndpointHealth;
  /** Its health as last written to (or read from) the store. */
  written: EndpointHealth;
  flushedAt: number;
  /** When the endpoint was last read from the store. */
  readAt: number;
  /** Health updates, one after another. */
  chain: Promise<void>;
  /** Answers that changed the failure clock, decided and not yet written. */
  clockPending: number;
  /** Answers that changed the failure clock, counted. */
  clockDecided: number;
}

/** How soon a delivery that was not sent (the delivery thread stopped) is tried again. */
const NOT_SENT_RETRY_MS = 1000;

/** A delivery not sent: pending again shortly, its attempts as they were, the reason in its log. */
function notSentAgain(delivery: WebhookDelivery, result: DeliveryResult, now: Date): WebhookDelivery {
  return { ...delivery, status: 'pending', lastError: result.error, nextAttemptAt: new Date(now.getTime() + NOT_SENT_RETRY_MS).toISOString() };
}

function time(d: Date | null): number | null {
  return d === null ? null : d.getTime();
}

function later(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.getTime() >= b.getTime() ? a : b;
}

function patchOf(h: EndpointHealth): { state: EndpointHealth['state']; disabledReason: string | null; lastDeliveryAt: string | null; failingSince: string | null } {
  return { state: h.state, disabledReason: h.disabledReason, lastDeliveryAt: h.lastDeliveryAt?.toISOString() ?? null, failingSince: h.failingSince?.toISOString() ?? null };
}
