/**
 * lastUsedAt is for audit, so it is written at most once a minute per key and
 * never on a response's critical path: a touch only schedules the write.
 */
import type { KeyStore } from '../store/types.ts';
import type { Logger } from '../logger.ts';

export const LAST_USED_RESOLUTION_MS = 60_000;

export class LastUsedTracker {
  private readonly written = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly keys: KeyStore,
    private readonly logger: Logger,
    private readonly resolutionMs = LAST_USED_RESOLUTION_MS,
  ) {}

  /** Called on every request: `now` is epoch ms, a Date is made only when there is something to write. */
  touch(keyId: string, storedLastUsedAt: string | null, now = Date.now()): void {
    const last = this.written.get(keyId) ?? (storedLastUsedAt ? Date.parse(storedLastUsedAt) : 0);
    if (now - last < this.resolutionMs) return;
    this.written.set(keyId, now);
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
