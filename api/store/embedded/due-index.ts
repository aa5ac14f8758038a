/**
 * The embedded store's index of pending webhook deliveries by due time, one
 * binary min-heap per endpoint, so that a worker asking what is due reads the
 * few it takes, not every delivery ever made (delivery-records.ts keeps
 * finished ones for the log and replay until they are pruned).
 *
 * Entries are never updated in place: a delivery whose due time changes gets
 * a new entry, and an entry whose delivery is no longer pending at that time
 * (delivered, failed, rescheduled, removed) is stale and dropped when it
 * reaches the top. `current` answers the delivery as the store has it now.
 */
import type { WebhookDelivery } from '../webhook-types.ts';

/**
 * A binary min-heap of (at, id, sub) ordered by `at` (ISO 8601 UTC: ordered
 * as strings), then `id`, then `sub`. Held as three parallel arrays: no object
 * per entry (an index may hold an entry per delivery).
 */
export class Heap {
  private readonly ats: string[] = [];
  private readonly ids: string[] = [];
  private readonly subs: string[] = [];

  get size(): number {
    return this.ats.length;
  }

  /** The least entry as [at, id, sub], or undefined when empty. */
  peek(): [string, string, string] | undefined {
    return this.ats.length === 0 ? undefined : [this.ats[0]!, this.ids[0]!, this.subs[0]!];
  }

  private before(i: number, j: number): boolean {
    const a = this.ats[i]!;
    const b = this.ats[j]!;
    if (a !== b) return a < b;
    const x = this.ids[i]!;
    const y = this.ids[j]!;
    return x < y || (x === y && this.subs[i]! < this.subs[j]!);
  }

  private swap(i: number, j: number): void {
    const { ats, ids, subs } = this;
    const at = ats[i]!;
    ats[i] = ats[j]!;
    ats[j] = at;
    const id = ids[i]!;
    ids[i] = ids[j]!;
    ids[j] = id;
    const sub = subs[i]!;
    subs[i] = subs[j]!;
    subs[j] = sub;
  }

  push(at: string, id: string, sub = ''): void {
    this.ats.push(at);
    this.ids.push(id);
    this.subs.push(sub);
    let i = this.ats.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): void {
    const n = this.ats.length - 1;
    if (n < 0) return;
    this.swap(0, n);
    this.ats.pop();
    this.ids.pop();
    this.subs.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < n && this.before(l, least)) least = l;
      if (r < n && this.before(r, least)) least = r;
      if (least === i) break;
      this.swap(i, least);
      i = least;
    }
  }
}

export class DueIndex {
  private readonly heaps = new Map<string, Heap>();

  /** @param current the delivery of that message to that endpoint as the store has it now. */
  constructor(private readonly current: (endpointId: string, messageId: string) => WebhookDelivery | undefined) {}

  /** Records a delivery as written (a pending one with a due time is indexed; anything else needs nothing). */
  put(d: WebhookDelivery): void {
    if (d.status !== 'pending' || d.nextAttemptAt === null) return;
    let heap = this.heaps.get(d.endpointId);
    if (!heap) this.heaps.set(d.endpointId, (heap = new Heap()));
    heap.push(d.nextAttemptAt, d.messageId);
  }

  /** Forgets an endpoint's entries (the endpoint removed). */
  dropEndpoint(endpointId: string): void {
    this.heaps.delete(endpointId);
  }

  /** The endpoint's pending deliveries due at `at`, earliest due first (then by message id), at most `limit`. */
  due(endpointId: string, at: string, limit: number): WebhookDelivery[] {
    const heap = this.heaps.get(endpointId);
    if (!heap) return [];
    const taken: [string, string][] = [];
    const out: WebhookDelivery[] = [];
    while (out.length < limit) {
      const top = heap.peek();
      if (!top || top[0] > at) break;
      heap.pop();
      const d = this.current(endpointId, top[1]);
      // Stale: the delivery finished, moved to another time, or is gone.
      if (!d || d.status !== 'pending' || d.nextAttemptAt !== top[0]) continue;
      // The same delivery indexed twice at the same time (written twice): taken once.
      if (taken.length > 0 && taken[taken.length - 1]![1] === top[1] && taken[taken.length - 1]![0] === top[0]) continue;
      taken.push([top[0], top[1]]);
      out.push(d);
    }
    // A read changes nothing: what was taken stays indexed until its delivery is written again.
    for (const [when, id] of taken) heap.push(when, id);
    if (heap.size === 0) this.heaps.delete(endpointId);
    return out;
  }

  /** Every endpoint with an index (for a due query over all endpoints). */
  endpoints(): string[] {
    return [...this.heaps.keys()];
  }
}
