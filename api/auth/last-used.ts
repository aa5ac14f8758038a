/**
 * lastUsedAt is for audit, so it is written at most once a minute per key and
 * never on a response's critical path: a touch only schedules the write.
 */
import type { KeyStore } from '../store/types.ts';
import type { Logger } from '../logger.ts';

export const LAST_USED_RESOLUTION_MS = 60_000;

export class LastUsedTracker {
  /** Per key: the stored lastUsedAt last seen, and the latest use written or stored (epoch ms). */
  private readonly seen = new Map<string, { stored: string | null; last: number }>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly keys: KeyStore,
    private readonly logger: Logger,
    private readonly resolutionMs = LAST_USED_RESOLUTION_MS,
  ) {}

  /**
   * Called on every request with the key's stored lastUsedAt: `now` is epoch ms,
   * and a Date is made, like the stored time parsed, only when needed.
   */
  touch(keyId: string, storedLastUsedAt: string | null, now = Date.now()): void {
    let seen = this.seen.get(keyId);
    if (seen === undefined || seen.stored !== storedLastUsedAt) {
      // The stored time (another instance may have written it) is parsed when it changes, not per request.
      seen = { stored: storedLastUsedAt, last: Math.max(seen?.last ?? 0, storedLastUsedAt ? Date.parse(storedLastUsedAt) : 0) };
      this.seen.set(keyId, seen);
    }
    if (now - seen.last < this.resolutionMs) return;
    seen.last = now;
    const write = this.keys
      .touch(keyId, new Date(now))
      .catch((err: unknown) => this.logger.warn({ err: (err as Error).message, keyId }, 'could not record lastUsedAt'))
      .finally(() => this.inFlight.delete(write));
    this.inFlight.add(write);
  }

  /** Waits for scheduled writes (shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }
}
