/**
 * The embedded store's index of pending webhook deliveries by due time, one
 * binary min-heap per endpoint, so that a worker asking what is due reads the
 * few it takes, not every delivery ever made (the delivery map keeps finished
 * ones for the log and replay until they are pruned).
 *
 * Entries are never updated in place: a delivery whose due time changes gets
 * a new entry, and an entry whose delivery is no longer pending at that time
 * (delivered, failed, rescheduled, removed) is stale and dropped when it
 * reaches the top. `current` answers the delivery as the store has it now.
 */
import type { WebhookDelivery } from '../webhook-types.ts';

interface Entry {
  /** nextAttemptAt (ISO 8601 UTC: ordered as strings). */
  at: string;
  id: string;
}

function before(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.id < b.id);
}

class Heap {
  private readonly items: Entry[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Entry | undefined {
    return this.items[0];
  }

  push(entry: Entry): void {
    const items = this.items;
    items.push(entry);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): Entry | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let least = i;
        if (l < items.length && before(items[l]!, items[least]!)) least = l;
        if (r < items.length && before(items[r]!, items[least]!)) least = r;
        if (least === i) break;
        [items[i], items[least]] = [items[least]!, items[i]!];
        i = least;
      }
    }
    return top;
  }
}

export class DueIndex {
  private readonly heaps = new Map<string, Heap>();

  constructor(private readonly current: (id: string) => WebhookDelivery | undefined) {}

  /** Records a delivery as written (a pending one with a due time is indexed; anything else needs nothing). */
  put(d: WebhookDelivery): void {
    if (d.status !== 'pending' || d.nextAttemptAt === null) return;
    let heap = this.heaps.get(d.endpointId);
    if (!heap) this.heaps.set(d.endpointId, (heap = new Heap()));
    heap.push({ at: d.nextAttemptAt, id: d.id });
  }

  /** Forgets an endpoint's entries (the endpoint removed). */
  dropEndpoint(endpointId: string): void {
    this.heaps.delete(endpointId);
  }

  /** The endpoint's pending deliveries due at `at`, earliest due first (then by id), at most `limit`. */
  due(endpointId: string, at: string, limit: number): WebhookDelivery[] {
    const heap = this.heaps.get(endpointId);
    if (!heap) return [];
    const taken: Entry[] = [];
    const out: WebhookDelivery[] = [];
    while (out.length < limit) {
      const top = heap.peek();
      if (!top || top.at > at) break;
      heap.pop();
      const d = this.current(top.id);
      // Stale: the delivery finished, moved to another time, or is gone.
      if (!d || d.status !== 'pending' || d.nextAttemptAt !== top.at || d.endpointId !== endpointId) continue;
      // The same delivery indexed twice at the same time (written twice): taken once.
      if (taken.length > 0 && taken[taken.length - 1]!.id === top.id && taken[taken.length - 1]!.at === top.at) continue;
      taken.push(top);
      out.push(d);
    }
    // A read changes nothing: what was taken stays indexed until its delivery is written again.
    for (const entry of taken) heap.push(entry);
    if (heap.size === 0) this.heaps.delete(endpointId);
    return out;
  }

  /** Every endpoint with an index (for a due query over all endpoints). */
  endpoints(): string[] {
    return [...this.heaps.keys()];
  }
}
