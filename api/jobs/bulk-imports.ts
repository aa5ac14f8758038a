/**
 * Bulk imports running in this process, by organization. An import (a file,
 * or a source's sync) marks its organization once it has read more than one
 * write batch of records (BULK_RECORDS), until it ends; a small import, such
 * as a stream of changes a few at a time, never does.
 *
 * The webhook dispatcher holds the marked organization's deliveries
 * meanwhile (at most 30 s at a time, then a batch goes out): on a small machine a bulk import's
 * own events would otherwise take the CPU from the import they come from
 * (on 2 cores, 2,000 deliveries during a 100,000-review import slowed it by
 * a fifth); held, they go out right after it, in order, at full speed. The
 * events themselves are recorded with the import's writes as always.
 *
 * In process only, and used by the dispatcher only when its work runs in
 * process (no Redis: one instance): with Redis an endpoint's work may run on
 * any instance, and a holding job would keep one of an instance's slots.
 */

/** Records an import reads before it counts as bulk: more than one write batch (api/admin/import.ts BATCH). */
export const BULK_RECORDS = 2000;

export class BulkImports {
  private readonly running = new Map<string, number>();
  private readonly waiters = new Map<string, Set<() => void>>();

  /** Marks a bulk import of `orgId`; answers the way to end it (calling it again does nothing). */
  begin(orgId: string): () => void {
    this.running.set(orgId, (this.running.get(orgId) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.running.get(orgId) ?? 1) - 1;
      if (left > 0) {
        this.running.set(orgId, left);
        return;
      }
      this.running.delete(orgId);
      const waiting = this.waiters.get(orgId);
      this.waiters.delete(orgId);
      for (const wake of waiting ?? []) wake();
    };
  }

  /** A bulk import of `orgId` is running. */
  has(orgId: string): boolean {
    return this.running.has(orgId);
  }

  /** Resolves once no bulk import of `orgId` runs, after `maxMs` at most, or when `stop` is aborted. */
  async idle(orgId: string, maxMs: number, stop?: AbortSignal): Promise<void> {
    if (!this.running.has(orgId) || stop?.aborted) return;
    let wake!: () => void;
    const ended = new Promise<void>((resolve) => (wake = resolve));
    let set = this.waiters.get(orgId);
    if (!set) this.waiters.set(orgId, (set = new Set()));
    set.add(wake);
    const timer = setTimeout(wake, maxMs);
    stop?.addEventListener('abort', wake);
    try {
      await ended;
    } finally {
      clearTimeout(timer);
      stop?.removeEventListener('abort', wake);
      this.waiters.get(orgId)?.delete(wake);
    }
  }
}

/** The process's bulk imports (api/admin/import.ts marks them; the webhook dispatcher reads them). */
export const bulkImports = new BulkImports();
