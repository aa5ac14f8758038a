/**
 * Tells this process's webhook dispatcher that the outbox was written (an
 * acknowledged write that recorded events), so it need not wait for its poll
 * timer. In process only: another instance's dispatcher still finds the
 * messages on its next poll. Debounced: every write of one event-loop turn
 * (an import batch's messages, a group-commit round) is one signal.
 */
export class OutboxSignal {
  private readonly listeners = new Set<() => void>();
  private scheduled = false;

  /** Calls `listener` after outbox writes; answers the way to stop. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called by a store once an outbox write is durable. */
  notify(): void {
    if (this.scheduled || this.listeners.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (const listener of this.listeners) listener();
    });
  }
}
