/**
 * Group commit for the embedded store's writes. A write is a plan: a
 * synchronous function that reads the current state and decides the log
 * entries to append and its answer. Plans queue up while the log syncs; the
 * next round runs every queued plan in order against a draft (the committed
 * state plus what earlier plans of the round decided), appends all their
 * entries with ONE fdatasync, and only then makes them visible and answers.
 *
 * So concurrent writes share a sync (200 writes at once cost 2 syncs, not
 * 200; a revocation never waits behind a queue of lastUsedAt touches), a
 * read-modify-write always starts from the latest decided state (no write
 * undoes another), and a failed append changes nothing in memory: every plan
 * of that round is rejected, and the next round starts from committed state.
 */

export interface Plan<E, T> {
  entries: E[];
  result: T;
}

export interface GroupCommitHooks<E, D> {
  /** A fresh draft over the committed state. */
  draft(): D;
  /** Records an entry in the draft, so later plans of the round see it. */
  put(draft: D, entry: E): void;
  /** Appends durably (one sync). */
  append(entries: E[]): Promise<void>;
  /** Makes durable entries visible. */
  apply(entries: E[]): void;
  /** Runs between rounds while no write is in flight (compaction). */
  between?(): Promise<void>;
}

interface Queued<E, D> {
  plan: (draft: D) => Plan<E, unknown>;
  /** Runs in a round of its own (a review batch: its plan reads the committed index only). */
  alone: boolean;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

export class GroupCommit<E, D> {
  private queue: Queued<E, D>[] = [];
  private running: Promise<void> | null = null;
  /** Rounds written (one sync each): for tests and metrics. */
  rounds = 0;

  constructor(private readonly hooks: GroupCommitHooks<E, D>) {}

  submit<T>(plan: (draft: D) => Plan<E, T>, alone = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ plan, alone, resolve: resolve as (value: unknown) => void, reject });
      this.running ??= this.run();
    });
  }

  /** Resolves when every queued write has been answered. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        await this.round(this.take());
        await this.hooks.between?.();
      }
    } finally {
      this.running = null;
    }
  }

  /** The next round: everything queued, except that an `alone` write is never grouped. */
  private take(): Queued<E, D>[] {
    const first = this.queue[0]!;
    if (first.alone) return this.queue.splice(0, 1);
    const end = this.queue.findIndex((q) => q.alone);
    return this.queue.splice(0, end === -1 ? this.queue.length : end);
  }

  private async round(batch: Queued<E, D>[]): Promise<void> {
    const draft = this.hooks.draft();
    const decided: { queued: Queued<E, D>; plan: Plan<E, unknown> }[] = [];
    for (const queued of batch) {
      try {
        const plan = queued.plan(draft);
        for (const entry of plan.entries) this.hooks.put(draft, entry);
        decided.push({ queued, plan });
      } catch (err) {
        queued.reject(err as Error);
      }
    }
    const entries = decided.flatMap((d) => d.plan.entries);
    try {
      if (entries.length > 0) {
        await this.hooks.append(entries);
        this.rounds++;
      }
    } catch (err) {
      for (const d of decided) d.queued.reject(err as Error);
      return;
    }
    this.hooks.apply(entries);
    for (const d of decided) d.queued.resolve(d.plan.result);
  }
}
