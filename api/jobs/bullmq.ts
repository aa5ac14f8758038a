/**
 * Jobs on Redis with BullMQ: one job scheduler per source (`source:{id}`,
 * every N ms), kept in Redis, so schedules survive restarts and every
 * instance shares them; a Worker in each instance takes jobs, each job once.
 * A source never runs twice at once across instances: its run holds a lock
 * (`SET NX PX`, renewed while it runs); a scheduled job finding it taken
 * skips (that source is being synced right now), a run asked for by a
 * person waits for it. A failed sync worth retrying is retried by BullMQ
 * with exponential back-off (3 attempts).
 */
import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import type { Jobs, SyncHandler, SyncJob } from './jobs.ts';

const QUEUE = 'source-sync';
const LOCK_MS = 60_000;

interface Data extends SyncJob {
  /** Asked for by a person (CLI, dashboard): waits for a run in progress instead of skipping. */
  manual?: boolean;
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
}

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
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

  async schedule(sourceId: string, everyMs: number): Promise<void> {
    await this.queue.upsertJobScheduler(
      `source:${sourceId}`,
      { every: everyMs },
      { name: 'sync', data: { sourceId } satisfies Data, opts: { attempts: 3, backoff: { type: 'exponential', delay: Math.min(everyMs, 60_000) }, removeOnComplete: 1000, removeOnFail: 1000 } },
    );
  }

  async unschedule(sourceId: string): Promise<void> {
    await this.queue.removeJobScheduler(`source:${sourceId}`);
  }

  async runNow(job: SyncJob): Promise<R> {
    const added = await this.queue.add('sync', { ...job, manual: true } satisfies Data, { removeOnComplete: 1000, removeOnFail: 1000 });
    return (await added.waitUntilFinished(this.events)) as R;
  }

  async start(): Promise<void> {
    this.worker = new Worker(QUEUE, (job: Job<Data>) => this.process(job), {
      connection: this.client(),
      prefix: this.prefix,
      concurrency: this.options.concurrency ?? 4,
    });
    this.worker.on('error', (err) => this.options.logger.warn({ err: err.message }, 'jobs: worker error'));
    await this.events.waitUntilReady();
  }

  private async process(job: Job<Data>): Promise<R> {
    const { sourceId } = job.data;
    const key = `source-lock:${sourceId}`;
    const token = randomUUID();
    for (;;) {
      if ((await this.locks.set(key, token, 'PX', LOCK_MS, 'NX')) === 'OK') break;
      if (!job.data.manual) {
        this.options.logger.info({ sourceId, jobId: job.id }, 'source sync skipped: a run of it is in progress');
        return this.options.skipped(job.data);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const renew = setInterval(() => void this.locks.eval(RENEW, 1, key, token, String(LOCK_MS)).catch(() => undefined), LOCK_MS / 3);
    try {
      const result = await this.options.handler(job.data);
      this.options.logger.info({ sourceId, jobId: job.id, slot: job.id?.startsWith('repeat:') ? job.id : null }, 'source job done');
      // A scheduled run that failed for a reason worth retrying: BullMQ tries again with back-off.
      if (result.retry !== null && !job.data.manual) throw new Error(result.retry);
      return result.value;
    } finally {
      clearInterval(renew);
      await this.locks.eval(RELEASE, 1, key, token).catch(() => undefined);
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
