/**
 * Tells this process that a batch of reviews was upserted (after the write is
 * durable): the automatic-reply rule (api/replies/auto-reply.ts) looks there
 * for the reviews the batch created. In process only, and best effort: a
 * listener's failure never fails the write, and a crash between the write and
 * the listener leaves those reviews without an automatic reply (never with two).
 */
import type { ReviewInput } from './types.ts';

export type UpsertListener = (orgId: string, inputs: readonly ReviewInput[], now: Date) => void;

export class UpsertSignal {
  private readonly listeners = new Set<UpsertListener>();

  /** Calls `listener` after each upsert that landed; answers the way to stop. */
  listen(listener: UpsertListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called by a store once an upsert batch is durable. */
  notify(orgId: string, inputs: readonly ReviewInput[], now: Date): void {
    for (const listener of this.listeners) {
      try {
        listener(orgId, inputs, now);
      } catch {
        // A listener's trouble is its own (it logs); the write stands.
      }
    }
  }
}
