/**
 * Keyed work on Redis with BullMQ (keyed-work.ts). The key is the BullMQ job
 * id: while a job of that id waits or runs, adding it again adds nothing, so
 * across every instance one run of a key at a time. A Worker in each instance
 * takes up to `concurrency` jobs (keys) at once, and upkeep work (a sweep,
 * pruning: `upkeep` keys) runs on a queue and `upkeepConcurrency` slots of its
 * own, never behind the rest. A run that answers `{ again: true }` gave its
 * slot back with work left: once it ended, its key is added again, behind the
 * keys already waiting (round-robin), after `delayMs` when given (a delayed job
 * still holds its key). BullMQ holds a lock on each
 * running job and renews it while its instance lives; an instance that dies
 * stops renewing it, and after `lockMs` its job is moved back to waiting and
 * another instance's worker runs it (stalled-job recovery). Jobs leave Redis
 * when they end: the state worth keeping is in the store.
 */
import { hostname } from 'node:os';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import type { KeyedHandler, KeyedOutcome, KeyedQueue, KeyedWork } from './keyed-work.ts';

export interface BullKeyedOptions {
  redisUrl: string;
  /** REDIS_KEY_PREFIX: BullMQ's keys live under `{prefix}bull`. */
  keyPrefix: string;
  /** The queue's name (one per kind of work). */
  name: string;
  logger: Logger;
  /** Keys run at once by this instance: 32 when absent. */
  concurrency?: number;
  /** Upkeep keys run at once by this instance, on slots of their own: 2 when absent. */
  upkeepConcurrency?: number;
  /** How long a dead instance's job stays locked before another instance takes it over. */
  lockMs?: number;
}

export class BullKeyedQueue<D> implements KeyedQueue<D> {
  readonly kind = 'bullmq' as const;
  /** The work, and the upkeep (its own queue, so its own slots). */
  private readonly queues: { work: Queue; upkeep: Queue };
  private readonly workers: Worker[] = [];
  private readonly prefix: string;
  private readonly clients: Redis[] = [];
  /** Resolved by close(): a start still waiting for an unreachable Redis gives up then. */
  private readonly closing: Promise<void>;
  private markClosing!: () => void;
  private closed = false;

  constructor(private readonly options: BullKeyedOptions) {
    this.closing = new Promise((resolve) => (this.markClosing = resolve));
    this.prefix = `${options.keyPrefix}bull`;
    this.queues = { work: this.newQueue(options.name), upkeep: this.newQueue(`${options.name}-upkeep`) };
  }

  private newQueue(name: string): Queue {
    const queue = new Queue(name, { connection: this.client(), prefix: this.prefix });
    queue.on('error', (err) => this.options.logger.warn({ err: err.message, queue: name }, 'jobs: queue error'));
    return queue;
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
    await this.add(work.upkeep ? this.queues.upkeep : this.queues.work, work.key, work.data);
  }

  private async add(queue: Queue, key: string, data: D, delayMs?: number): Promise<void> {
    await queue.add('work', data, { jobId: BullKeyedQueue.jobId(key), removeOnComplete: true, removeOnFail: true, ...(delayMs && { delay: delayMs }) });
  }

  async start(handler: KeyedHandler<D>): Promise<void> {
    const lockMs = this.options.lockMs ?? 30_000;
    const lanes: [Queue, number][] = [[this.queues.work, this.options.concurrency ?? 32], [this.queues.upkeep, this.options.upkeepConcurrency ?? 2]];
    for (const [queue, concurrency] of lanes) {
      const worker = new Worker(queue.name, (job: Job<D>) => handler(job.data), {
        connection: this.client(),
        prefix: this.prefix,
        concurrency,
        // Which process runs a job (BullMQ's processedBy): for the operator, and the two-process test.
        name: `${hostname()}:${process.pid}`,
        lockDuration: lockMs,
        stalledInterval: Math.max(1000, Math.floor(lockMs / 2)),
        // A job found stalled is run again by whoever finds it; the store says what is left to do.
        maxStalledCount: 1_000_000,
      });
      worker.on('error', (err) => this.options.logger.warn({ err: err.message, queue: queue.name }, 'jobs: worker error'));
      worker.on('failed', (job, err) => this.options.logger.error({ err: err.message, queue: queue.name, jobId: job?.id }, 'keyed job failed'));
      // Its slot given back with work left: the job is gone (removeOnComplete), so the key is added again, at the back.
      // Lost if this instance dies right now: the asker asks again (the dispatcher's sweep asks for every endpoint with work due).
      worker.on('completed', (job, outcome: void | KeyedOutcome) => {
        if (!outcome?.again || this.closed) return;
        // The job id is the key (its ':' replaced, which jobId() leaves as it is).
        this.add(queue, String(job.id), job.data as D, outcome.delayMs).catch((err: unknown) =>
          this.options.logger.warn({ err: err instanceof Error ? err.message : String(err), queue: queue.name, jobId: job.id }, 'jobs: could not queue a job again'),
        );
      });
      this.workers.push(worker);
    }
    // Redis may be unreachable for as long as it likes: closing must not wait for it.
    await Promise.race([Promise.all(this.workers.map((w) => w.waitUntilReady())), this.closing]);
  }

  /**
   * Graceful for 3 s (the runs in progress may end), then cut: Redis may be
   * gone, and the service has 10 s in all to exit. A delivery cut short is
   * still pending in the store and is attempted again (at least once).
   */
  async close(): Promise<void> {
    this.closed = true;
    this.markClosing();
    const graceful = (async () => {
      await Promise.all(this.workers.map((w) => w.close()));
      await Promise.all([this.queues.work.close(), this.queues.upkeep.close()]);
    })().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([graceful, new Promise((r) => (timer = setTimeout(r, 3000)))]);
    clearTimeout(timer);
    for (const client of this.clients) client.disconnect();
  }
}
