/**
 * Keyed work without Redis (keyed-work.ts): one run per key at a time in this
 * process; a key asked for while it runs runs once more afterwards, so no
 * request is lost. Every key runs on its own, so a slow one holds up only
 * itself. Right for the embedded store, which has one writer process anyway.
 */
import type { Logger } from '../logger.ts';
import type { KeyedHandler, KeyedQueue, KeyedWork } from './keyed-work.ts';

export class InProcessKeyedQueue<D> implements KeyedQueue<D> {
  readonly kind = 'in-process' as const;
  private handler: KeyedHandler<D> | null = null;
  /** The run in progress per key, and whether it was asked for again meanwhile. */
  private readonly running = new Map<string, { done: Promise<void>; again: D | null }>();
  /** Asked for before start(). */
  private readonly waiting = new Map<string, D>();
  private closed = false;

  constructor(private readonly logger: Logger) {}

  async request(work: KeyedWork<D>): Promise<void> {
    if (this.closed) return;
    if (!this.handler) {
      this.waiting.set(work.key, work.data);
      return;
    }
    const run = this.running.get(work.key);
    if (run) {
      run.again = work.data;
      return;
    }
    this.run(work.key, work.data);
  }

  private run(key: string, data: D): void {
    const entry: { done: Promise<void>; again: D | null } = { done: Promise.resolve(), again: null };
    this.running.set(key, entry);
    entry.done = this.handler!(data)
      .then(
        async (outcome) => {
          // Every key runs on its own here: a run that asks to run again does, once its delay is over.
          if (!outcome?.again) return;
          if (outcome.delayMs) await new Promise((r) => setTimeout(r, outcome.delayMs));
          entry.again ??= data;
        },
        (err: unknown) => this.logger.error({ err, key }, 'keyed job failed'),
      )
      .finally(() => {
        this.running.delete(key);
        if (entry.again !== null && !this.closed) this.run(key, entry.again);
      });
  }

  async start(handler: KeyedHandler<D>): Promise<void> {
    this.handler = handler;
    for (const [key, data] of this.waiting) this.run(key, data);
    this.waiting.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((r) => r.done));
  }
}
