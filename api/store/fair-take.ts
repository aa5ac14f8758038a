/**
 * Taking outbox work fairly across organizations (issue 34): one
 * organization's backlog never makes another's event wait behind it. Items
 * are offered oldest first; each organization keeps at most `perOrg` of its
 * own (so what is held is bounded by the organizations with work, not by a
 * backlog's size), and `take` answers them round-robin over the
 * organizations, in the order each was first seen, oldest first within each.
 */
export class FairTake<T> {
  private readonly queues = new Map<string, T[]>();

  constructor(private readonly perOrg: number) {}

  /** Offers an item of `orgId`; answers false once that organization's share is full. */
  offer(orgId: string, item: T): boolean {
    let queue = this.queues.get(orgId);
    if (!queue) this.queues.set(orgId, (queue = []));
    if (queue.length >= this.perOrg) return false;
    queue.push(item);
    return true;
  }

  /** At most `limit` items: each organization's oldest, then each one's next, and so on. */
  take(limit: number): T[] {
    const out: T[] = [];
    const queues = [...this.queues.values()];
    for (let i = 0; out.length < limit; i++) {
      let any = false;
      for (const queue of queues) {
        if (i >= queue.length) continue;
        any = true;
        out.push(queue[i]!);
        if (out.length >= limit) break;
      }
      if (!any) break;
    }
    return out;
  }
}
