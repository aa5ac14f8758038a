/**
 * Keyed work: a job interface for work that must never run twice at once for
 * the same key, anywhere, and that is asked for again and again (the webhook
 * dispatcher's "deliver what is due to endpoint X" and "fan out the outbox").
 * Asking for a key that is already waiting or running adds nothing. Two
 * implementations, chosen once in the composition root like `Jobs`:
 * BullMQ on Redis (keyed-bullmq.ts: the key is the job id, so one instance at
 * a time holds it, and a dead instance's job is taken over by another) and in
 * process (keyed-in-process.ts). The handler is a plain function of the
 * work's data; the durable state lives in the store, the queue only
 * schedules.
 */
export interface KeyedWork<D> {
  /** At most one run of a key at a time, across every instance. */
  key: string;
  data: D;
  /**
   * Upkeep (a sweep, pruning): runs on slots of its own, so it never waits
   * behind the rest. A key is always asked for with the same value.
   */
  upkeep?: boolean;
}

/**
 * What a run may answer: `again`, it gave its slot back with work left, and
 * asks to run again behind the keys already waiting (after `delayMs` when given).
 */
export interface KeyedOutcome {
  again: true;
  delayMs?: number;
}

export type KeyedHandler<D> = (data: D) => Promise<void | KeyedOutcome>;

export interface KeyedQueue<D> {
  readonly kind: 'bullmq' | 'in-process';
  /** Asks for the work to run soon (nothing is added while the same key waits or runs). */
  request(work: KeyedWork<D>): Promise<void>;
  /** Starts taking work: `handler` runs each piece, up to `concurrency` keys at once in this instance. */
  start(handler: KeyedHandler<D>): Promise<void>;
  /** Stops taking work and waits for the runs in progress. */
  close(): Promise<void>;
}
