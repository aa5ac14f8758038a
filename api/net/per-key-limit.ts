/**
 * At most `perKey` tasks at a time for each key (an organization), each key
 * on its own: there is no shared queue and no cap across keys, so one key's
 * waiting tasks never hold another key's. A key's waiters start in the order
 * they came. A waiter whose signal aborts leaves the queue (its task never
 * runs). A key with nothing running and nothing waiting is forgotten.
 */

interface Slot {
  running: number;
  waiting: Array<() => void>;
}

export class PerKeyLimit {
  private readonly slots = new Map<string, Slot>();

  constructor(readonly perKey: number) {
    if (!Number.isInteger(perKey) || perKey < 1) throw new RangeError(`perKey must be a positive integer, got ${perKey}`);
  }

  /** Tasks of `key` running now. */
  running(key: string): number {
    return this.slots.get(key)?.running ?? 0;
  }

  /** Tasks of `key` waiting for a place. */
  waiting(key: string): number {
    return this.slots.get(key)?.waiting.length ?? 0;
  }

  /** Runs `task` once `key` has a free place; rejects with the signal's reason if it aborts first. */
  async run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(key, signal);
    try {
      return await task();
    } finally {
      this.release(key);
    }
  }

  /**
   * Runs `task` only if `key` has a free place now and nobody of `key` waits;
   * `null` otherwise (nothing run, nothing queued): for a caller that must not
   * wait while it holds something shared (a job door's slot), and gives it back.
   */
  tryRun<T>(key: string, task: () => Promise<T>): Promise<T> | null {
    const slot = this.slots.get(key);
    if (slot && (slot.running >= this.perKey || slot.waiting.length > 0)) return null;
    return this.run(key, task);
  }

  private acquire(key: string, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { running: 0, waiting: [] };
      this.slots.set(key, slot);
    }
    if (slot.running < this.perKey) {
      slot.running++;
      return Promise.resolve();
    }
    const queue = slot;
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const at = queue.waiting.indexOf(grant);
        if (at >= 0) queue.waiting.splice(at, 1);
        reject(signal!.reason as Error);
      };
      // The place of the task that ends passes straight to this one: `running` does not change.
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      queue.waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(key: string): void {
    const slot = this.slots.get(key)!;
    const next = slot.waiting.shift();
    if (next) return next();
    slot.running--;
    if (slot.running === 0) this.slots.delete(key);
  }
}
