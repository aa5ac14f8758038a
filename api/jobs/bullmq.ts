/**
 * Jobs on Redis with BullMQ: one job scheduler per source (`source:{id}`,
 * every N ms), kept in Redis, so schedules survive restarts and every
 * instance shares them; a Worker in each instance takes jobs, each job once.
 * A source never runs twice at once across instances: its run holds a lock
 * (`SET NX PX`, renewed while it runs); a scheduled job finding it taken
 * skips (that source is being synced right now). A failed sync worth
 * retrying is retried by BullMQ with exponential back-off (3 attempts).
 *
 * No job ever waits inside a worker slot:
 * - A run asked for by a person (`runNow`) is merged: its job id is the
 *   source and a generation (`manual-{id}-{gen}`), and the generation moves on
 *   only when that job starts, so every request made while it waits joins it
 *   (a full request makes it a full pass), and those made while it runs make
 *   one more run after it, never one per request. Finding the source's lock
 *   taken, it gives its slot back and comes again after LOCK_WAIT_MS.
 * - An organization runs at most `orgSlots` (ORG_SLOTS) syncs at once per
 *   instance; one more gives its slot back and comes again after ORG_WAIT_MS,
 *   behind the jobs already waiting, so one organization never holds every
 *   slot (as the webhook dispatcher shares its slots, webhooks/dispatcher.ts).
 */
import { randomUUID } from 'node:crypto';
import { DelayedError, Queue, QueueEvents, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import { ORG_SLOTS, type Jobs, type SyncHandler, type SyncJob } from './jobs.ts';

const QUEUE = 'source-sync';
const LOCK_MS = 60_000;
/** How soon a job turned away by its organization's share comes again. */
const ORG_WAIT_MS = 1000;
/** How soon a person's run that found its source being synced comes again. */
const LOCK_WAIT_MS = 1000;

interface Data extends SyncJob {
  /** Asked for by a person (CLI, dashboard): comes again after a run in progress instead of skipping. */
  manual?: boolean;
  /** A person's run: its generation (the job id's last part). */
  gen?: string;
}

export interface BullJobsOptions<R> {
  redisUrl: string;
  /** REDIS_KEY_PREFIX: BullMQ's keys live under `{prefix}bull`. */
  keyPrefix: string;
  handler: SyncHandler<R>;
  logger: Logger;
  concurrency?: number;
  /** What a skipped scheduled run answers (the source was being synced elsewhere). */
  skipped: (job: SyncJob) => R;
  /** Syncs of one organization running at once in this instance, at most: ORG_SLOTS when absent. */
  orgSlots?: number;
}

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
/** A person asks for a run: the generation it joins (a full request marks that generation full). */
const ASK = `local g = redis.call('hget', KEYS[1], 'gen') or '0'
if ARGV[1] == '1' then redis.call('hset', KEYS[1], 'full:' .. g, '1') end
return g`;
/** A person's run starts: requests from now on make the next generation; answers whether one asked for a full pass. */
const BEGIN = `local full = redis.call('hget', KEYS[1], 'full:' .. ARGV[1])
redis.call('hdel', KEYS[1], 'full:' .. ARGV[1])
if (redis.call('hget', KEYS[1], 'gen') or '0') == ARGV[1] then redis.call('hincrby', KEYS[1], 'gen', 1) end
return full`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

export class BullJobs<R> implements Jobs<R> {
  readonly kind = 'bullmq' as const;
  private readonly queue: Queue;
  private readonly events: QueueEvents;
  private worker: Worker | null = null;
  private readonly locks: Redis;
  private connection: { url: string };
  private readonly prefix: string;
  /** Connections made here (BullMQ leaves connections it was given open). */
  private readonly clients: Redis[] = [];
  /** This instance's running syncs per organization (its share of the slots). */
  private readonly orgRunning = new Map<string, number>();

  constructor(private readonly options: BullJobsOptions<R>) {
    this.prefix = `${options.keyPrefix}bull`;
    this.connection = { url: options.redisUrl };
    this.queue = new Queue(QUEUE, { connection: this.client(), prefix: this.prefix });
    this.events = new QueueEvents(QUEUE, { connection: this.client(), prefix: this.prefix });
    this.locks = new Redis(options.redisUrl, { maxRetriesPerRequest: null, keyPrefix: options.keyPrefix });
    this.clients.push(this.locks);
    this.queue.on('error', (err) => options.logger.warn({ err: err.message }, 'jobs: queue error'));
    this.events.on('error', (err) => options.logger.warn({ err: err.message }, 'jobs: queue events error'));
  }

  private client(): Redis {
    const client = new Redis(this.connection.url, { maxRetriesPerRequest: null });
    client.on('error', () => undefined);
    this.clients.push(client);
    return client;
  }

  async schedule(sourceId: string, everyMs: number, orgId?: string): Promise<void> {
    await this.queue.upsertJobScheduler(
      `source:${sourceId}`,
      { every: everyMs },
      { name: 'sync', data: { sourceId, ...(orgId !== undefined && { orgId }) } satisfies Data, opts: { attempts: 3, backoff: { type: 'exponential', delay: Math.min(everyMs, 60_000) }, removeOnComplete: 1000, removeOnFail: 1000 } },
    );
  }

  async unschedule(sourceId: string): Promise<void> {
    await this.queue.removeJobScheduler(`source:${sourceId}`);
    await this.locks.del(`source-manual:${sourceId}`);
  }

  /** Joins the source's person-asked run that has not started yet, or makes it (module comment). */
  async runNow(job: SyncJob): Promise<R> {
    const gen = String(await this.locks.eval(ASK, 1, `source-manual:${job.sourceId}`, job.full ? '1' : '0'));
    // An id already waiting, running or just finished adds nothing: this request has that job's answer.
    // A failed one leaves at once: a run that failed before its generation moved on (Redis away) is not every later request's answer.
    const added = await this.queue.add('sync', { ...job, manual: true, gen } satisfies Data, { jobId: `manual-${job.sourceId}-${gen}`, removeOnComplete: 1000, removeOnFail: true });
    return (await added.waitUntilFinished(this.events)) as R;
  }

  async start(): Promise<void> {
    this.worker = new Worker(QUEUE, (job: Job<Data>, token?: string) => this.process(job, token), {
      connection: this.client(),
      prefix: this.prefix,
      concurrency: this.options.concurrency ?? 4,
    });
    this.worker.on('error', (err) => this.options.logger.warn({ err: err.message }, 'jobs: worker error'));
    await this.events.waitUntilReady();
  }

  private async process(job: Job<Data>, token?: string): Promise<R> {
    const { sourceId } = job.data;
    const org = job.data.orgId ?? sourceId;
    const running = this.orgRunning.get(org) ?? 0;
    if (running >= Math.max(1, this.options.orgSlots ?? ORG_SLOTS)) return this.later(job, token, ORG_WAIT_MS);
    this.orgRunning.set(org, running + 1);
    try {
      return await this.locked(job, token);
    } finally {
      const left = (this.orgRunning.get(org) ?? 1) - 1;
      if (left > 0) this.orgRunning.set(org, left);
      else this.orgRunning.delete(org);
    }
  }

  /** Gives the slot back: the job comes again after `ms`, behind those waiting. */
  private async later(job: Job<Data>, token: string | undefined, ms: number): Promise<never> {
    await job.moveToDelayed(Date.now() + ms, token);
    throw new DelayedError();
  }

  private async locked(job: Job<Data>, token: string | undefined): Promise<R> {
    const { sourceId } = job.data;
    const key = `source-lock:${sourceId}`;
    const lock = randomUUID();
    if ((await this.locks.set(key, lock, 'PX', LOCK_MS, 'NX')) !== 'OK') {
      if (job.data.manual) return this.later(job, token, LOCK_WAIT_MS);
      this.options.logger.info({ sourceId, jobId: job.id }, 'source sync skipped: a run of it is in progress');
      return this.options.skipped(job.data);
    }
    const renew = setInterval(() => void this.locks.eval(RENEW, 1, key, lock, String(LOCK_MS)).catch(() => undefined), LOCK_MS / 3);
    try {
      let run: SyncJob = { sourceId, ...(job.data.full && { full: true }) };
      if (job.data.manual && job.data.gen !== undefined) {
        // Requests from now on make the next run; one that asked for a full pass while this one waited makes it full.
        const full = await this.locks.eval(BEGIN, 1, `source-manual:${sourceId}`, job.data.gen);
        if (full === '1') run = { sourceId, full: true };
      }
      const result = await this.options.handler(run);
      this.options.logger.info({ sourceId, jobId: job.id, slot: job.id?.startsWith('repeat:') ? job.id : null }, 'source job done');
      // A scheduled run that failed for a reason worth retrying: BullMQ tries again with back-off.
      if (result.retry !== null && !job.data.manual) throw new Error(result.retry);
      return result.value;
    } finally {
      clearInterval(renew);
      await this.locks.eval(RELEASE, 1, key, lock).catch(() => undefined);
    }
  }

  /** Graceful for a few seconds (a run in progress ends, or its lock expires and the job is retried), then cut: shutdown has 10 s in all, and Redis may be gone. */
  async close(): Promise<void> {
    const graceful = (async () => {
      await this.worker?.close();
      await Promise.allSettled([this.queue.close(), this.events.close()]);
    })().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([graceful, new Promise((r) => (timer = setTimeout(r, 3000)))]);
    clearTimeout(timer);
    for (const client of this.clients) client.disconnect();
  }
}
