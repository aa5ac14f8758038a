/**
 * Keyed work on Redis with BullMQ (keyed-work.ts). The key is the BullMQ job
 * id: while a job of that id waits or runs, adding it again adds nothing, so
 * across every instance one run of a key at a time. A Worker in each instance
 * takes up to `concurrency` jobs (keys) at once. BullMQ holds a lock on each
 * running job and renews it while its instance lives; an instance that dies
 * stops renewing it, and after `lockMs` its job is moved back to waiting and
 * another instance's worker runs it (stalled-job recovery). Jobs leave Redis
 * when they end: the state worth keeping is in the store.
 */
import { hostname } from 'node:os';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import type { KeyedHandler, KeyedQueue, KeyedWork } from './keyed-work.ts';

export interface BullKeyedOptions {
  redisUrl: string;
  /** REDIS_KEY_PREFIX: BullMQ's keys live under `{prefix}bull`. */
  keyPrefix: string;
  /** The queue's name (one per kind of work). */
  name: string;
  logger: Logger;
  /** Keys run at once by this instance. */
  concurrency?: number;
  /** How long a dead instance's job stays locked before another instance takes it over. */
  lockMs?: number;
}

export class BullKeyedQueue<D> implements KeyedQueue<D> {
  readonly kind = 'bullmq' as const;
  private readonly queue: Queue;
  private worker: Worker | null = null;
  private readonly prefix: string;
  private readonly clients: Redis[] = [];
  /** Resolved by close(): a start still waiting for an unreachable Redis gives up then. */
  private readonly closing: Promise<void>;
  private markClosing!: () => void;

  constructor(private readonly options: BullKeyedOptions) {
    this.closing = new Promise((resolve) => (this.markClosing = resolve));
    this.prefix = `${options.keyPrefix}bull`;
    this.queue = new Queue(options.name, { connection: this.client(), prefix: this.prefix });
    this.queue.on('error', (err) => options.logger.warn({ err: err.message, queue: options.name }, 'jobs: queue error'));
  }

  private client(): Redis {
    const client = new Redis(this.options.redisUrl, { maxRetriesPerRequest: null });
    client.on('error', () => undefined);
    this.clients.push(client);
    return client;
  }

  /** BullMQ ids may not hold ':'. */
  private static jobId(key: string): string {
    return key.replaceAll(':', '-');
  }

  async request(work: KeyedWork<D>): Promise<void> {
    await this.queue.add('work', work.data, { jobId: BullKeyedQueue.jobId(work.key), removeOnComplete: true, removeOnFail: true });
  }

  async start(handler: KeyedHandler<D>): Promise<void> {
    const lockMs = this.options.lockMs ?? 30_000;
    this.worker = new Worker(this.options.name, (job: Job<D>) => handler(job.data), {
      connection: this.client(),
      prefix: this.prefix,
      concurrency: this.options.concurrency ?? 32,
      // Which process runs a job (BullMQ's processedBy): for the operator, and the two-process test.
      name: `${hostname()}:${process.pid}`,
      lockDuration: lockMs,
      stalledInterval: Math.max(1000, Math.floor(lockMs / 2)),
      // A job found stalled is run again by whoever finds it; the store says what is left to do.
      maxStalledCount: 1_000_000,
    });
    this.worker.on('error', (err) => this.options.logger.warn({ err: err.message, queue: this.options.name }, 'jobs: worker error'));
    this.worker.on('failed', (job, err) => this.options.logger.error({ err: err.message, queue: this.options.name, jobId: job?.id }, 'keyed job failed'));
    // Redis may be unreachable for as long as it likes: closing must not wait for it.
    await Promise.race([this.worker.waitUntilReady(), this.closing]);
  }

  /**
   * Graceful for 3 s (the runs in progress may end), then cut: Redis may be
   * gone, and the service has 10 s in all to exit. A delivery cut short is
   * still pending in the store and is attempted again (at least once).
   */
  async close(): Promise<void> {
    this.markClosing();
    const graceful = (async () => {
      await this.worker?.close();
      await this.queue.close();
    })().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([graceful, new Promise((r) => (timer = setTimeout(r, 3000)))]);
    clearTimeout(timer);
    for (const client of this.clients) client.disconnect();
  }
}
