/**
 * The embedded store's webhook delivery records, indexed by endpoint (then
 * message id), so that an endpoint's delivery log reads that endpoint's
 * records only, never another organization's, and kept compact: a delivery is
 * one message to one endpoint, and everything it shares with its message
 * (id, organization, type, creation time) is read from the message, not held
 * per delivery.
 *
 * - A delivery as fan-out makes it (pending, never tried) is held as its due
 *   time alone (a string shared by the whole fan-out).
 * - A delivery tried at least once is a `Tried`: its attempt state only.
 * - A record that does not match its message (written for a message the
 *   store does not have, or with other fields) is held whole, as written.
 *
 * `read` gives the record back as written (a frozen WebhookDelivery). Finished
 * deliveries (delivered, failed) are kept for the log until pruned; `prunable`
 * finds the oldest of them, and the messages no delivery refers to any more,
 * through min-heaps by time: bounded work per call, whatever the backlog.
 */
import { deliveryId, freshDelivery, type DeliveryStatus, type OutboxMessage, type WebhookDelivery } from '../webhook-types.ts';
import { DueIndex, Heap } from './due-index.ts';

/** What a delivery shares with its message. */
export type MessageFacts = Pick<OutboxMessage, 'id' | 'orgId' | 'type' | 'createdAt'>;

/** A delivery tried at least once, its message's fields left out. */
class Tried {
  constructor(
    readonly status: DeliveryStatus,
    readonly attempts: number,
    readonly lastStatusCode: number | null,
    readonly lastError: string | null,
    readonly lastAttemptAt: string | null,
    readonly nextAttemptAt: string | null,
  ) {}
}

type Kept = string | Tried | WebhookDelivery;

/** The (endpoint, message) pair a delivery id names (`${messageId}~${endpointId}`, webhook-types.ts). */
export function parseDeliveryId(id: string): { messageId: string; endpointId: string } | null {
  const at = id.lastIndexOf('~');
  return at < 0 ? null : { messageId: id.slice(0, at), endpointId: id.slice(at + 1) };
}

export class DeliveryRecords {
  private readonly byEndpoint = new Map<string, Map<string, Kept>>();
  /** Deliveries per message id (a message is prunable only at 0). */
  private readonly refs = new Map<string, number>();
  /** Finished deliveries by last attempt (stale entries dropped when they reach the top): (at, message id, endpoint id). */
  private readonly finished = new Heap();
  /** Fanned-out messages that may have no delivery any more, by creation time (stale entries dropped likewise). */
  private readonly orphans = new Heap();
  private count = 0;
  /** Records read by `deliveries`, `resumable` and `prunable` so far (tests: what a call visits). */
  visits = 0;
  /** Pending deliveries by endpoint and due time. */
  readonly due = new DueIndex((endpointId, messageId) => this.get(endpointId, messageId));

  /**
   * @param message the message of that id as the store keeps it (undefined: none).
   * @param fanned whether that message is fanned out (only then may it be pruned).
   */
  constructor(
    private readonly message: (id: string) => MessageFacts | undefined,
    private readonly fanned: (id: string) => boolean,
  ) {}

  get size(): number {
    return this.count;
  }

  has(endpointId: string, messageId: string): boolean {
    return this.byEndpoint.get(endpointId)?.has(messageId) ?? false;
  }

  get(endpointId: string, messageId: string): WebhookDelivery | undefined {
    const kept = this.byEndpoint.get(endpointId)?.get(messageId);
    return kept === undefined ? undefined : this.read(endpointId, messageId, kept);
  }

  /** Writes a delivery (a new one, or a new state of one already there). */
  put(d: WebhookDelivery): void {
    const messageId = d.messageId;
    let endpoint = this.byEndpoint.get(d.endpointId);
    if (!endpoint) this.byEndpoint.set(d.endpointId, (endpoint = new Map()));
    const before = endpoint.get(messageId);
    endpoint.set(messageId, this.compact(d));
    if (before === undefined) {
      this.count++;
      this.refs.set(messageId, (this.refs.get(messageId) ?? 0) + 1);
    }
    this.due.put(d);
    if (d.status !== 'pending') this.finished.push(d.lastAttemptAt ?? d.createdAt, messageId, d.endpointId);
  }

  /** Forgets one delivery. */
  delete(endpointId: string, messageId: string): void {
    const endpoint = this.byEndpoint.get(endpointId);
    if (!endpoint?.delete(messageId)) return;
    if (endpoint.size === 0) this.byEndpoint.delete(endpointId);
    this.count--;
    this.release(messageId);
  }

  /** Forgets an endpoint's deliveries (the endpoint removed): work in proportion to its own records. */
  dropEndpoint(endpointId: string): void {
    const endpoint = this.byEndpoint.get(endpointId);
    this.due.dropEndpoint(endpointId);
    if (!endpoint) return;
    this.byEndpoint.delete(endpointId);
    this.count -= endpoint.size;
    for (const messageId of endpoint.keys()) this.release(messageId);
  }

  /** A message just fanned out: prunable once old enough if no delivery refers to it. */
  fannedOut(m: MessageFacts): void {
    if (!this.refs.has(m.id)) this.orphans.push(m.createdAt, m.id);
  }

  /** A message forgotten. */
  forgetMessage(id: string): void {
    this.refs.delete(id);
  }

  /** The endpoint's deliveries, newest first (then by id), with `status` (null: any), at most `limit`. */
  list(endpointId: string, status: DeliveryStatus | null, limit: number): WebhookDelivery[] {
    const endpoint = this.byEndpoint.get(endpointId);
    if (!endpoint || limit <= 0) return [];
    const found: WebhookDelivery[] = [];
    for (const [messageId, kept] of endpoint) {
      this.visits++;
      const d = this.read(endpointId, messageId, kept);
      if (status === null || d.status === status) found.push(d);
    }
    return found.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id)).slice(0, limit);
  }

  /** The endpoint's pending deliveries with no due time (waiting for it to be enabled). */
  waiting(endpointId: string): WebhookDelivery[] {
    const out: WebhookDelivery[] = [];
    for (const [messageId, kept] of this.byEndpoint.get(endpointId) ?? []) {
      this.visits++;
      // A fresh delivery always has a due time.
      if (typeof kept === 'string') continue;
      if (kept.status === 'pending' && kept.nextAttemptAt === null) out.push(this.read(endpointId, messageId, kept));
    }
    return out;
  }

  /**
   * At most `limit` finished deliveries last tried before `cutoff`, oldest
   * first, then at most `limit` fanned-out messages created before it that
   * no delivery refers to (once those deliveries are gone). Reads the heaps'
   * tops only; changes nothing but dropping stale heap entries.
   */
  prunable(cutoff: string, limit: number): { d: { endpointId: string; messageId: string }[]; m: string[] } {
    const d: { endpointId: string; messageId: string }[] = [];
    const taken: [string, string, string][] = [];
    const seen = new Set<string>();
    const freed = new Map<string, number>();
    while (d.length < limit) {
      const top = this.finished.peek();
      if (!top || top[0] >= cutoff) break;
      this.finished.pop();
      this.visits++;
      const [at, messageId, endpointId] = top;
      const current = this.get(endpointId, messageId);
      // Stale: pending again, tried again since, or gone.
      if (!current || current.status === 'pending' || (current.lastAttemptAt ?? current.createdAt) !== at) continue;
      // The same record indexed twice at the same time (written twice): taken once.
      const key = `${endpointId}\u0000${messageId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      taken.push(top);
      d.push({ endpointId, messageId });
      freed.set(messageId, (freed.get(messageId) ?? 0) + 1);
    }
    // A plan changes nothing: what was taken stays indexed until the prune is applied (then it is stale).
    for (const [at, id, sub] of taken) this.finished.push(at, id, sub);
    const m: string[] = [];
    const kept: [string, string][] = [];
    const candidates = (at: string, id: string): void => {
      if (m.length < limit && at < cutoff && (this.refs.get(id) ?? 0) - (freed.get(id) ?? 0) === 0 && this.fanned(id) && this.message(id) && !m.includes(id)) m.push(id);
    };
    // Messages whose last deliveries this very batch forgets.
    for (const id of freed.keys()) {
      const message = this.message(id);
      if (message) candidates(message.createdAt, id);
    }
    while (m.length < limit) {
      const top = this.orphans.peek();
      if (!top || top[0] >= cutoff) break;
      this.orphans.pop();
      this.visits++;
      const [at, id] = top;
      const message = this.message(id);
      // Stale: gone, or referred to again (pushed again when its last delivery goes).
      if (!message || message.createdAt !== at || (this.refs.get(id) ?? 0) > 0 || !this.fanned(id)) continue;
      const before = m.length;
      candidates(at, id);
      if (m.length > before) kept.push([at, id]);
    }
    for (const [at, id] of kept) this.orphans.push(at, id);
    return { d, m };
  }

  /** Every delivery, as written (compaction). */
  *all(): IterableIterator<WebhookDelivery> {
    for (const [endpointId, endpoint] of this.byEndpoint) for (const [messageId, kept] of endpoint) yield this.read(endpointId, messageId, kept);
  }

  private release(messageId: string): void {
    const n = (this.refs.get(messageId) ?? 1) - 1;
    if (n > 0) {
      this.refs.set(messageId, n);
      return;
    }
    this.refs.delete(messageId);
    const message = this.message(messageId);
    if (message && this.fanned(messageId)) this.orphans.push(message.createdAt, messageId);
  }

  private compact(d: WebhookDelivery): Kept {
    const m = this.message(d.messageId);
    if (!m || d.id !== deliveryId(d.messageId, d.endpointId) || d.orgId !== m.orgId || d.type !== m.type || d.createdAt !== m.createdAt) return Object.isFrozen(d) ? d : Object.freeze({ ...d });
    if (d.status === 'pending' && d.attempts === 0 && d.lastStatusCode === null && d.lastError === null && d.lastAttemptAt === null && d.nextAttemptAt !== null) return d.nextAttemptAt;
    return new Tried(d.status, d.attempts, d.lastStatusCode, d.lastError, d.lastAttemptAt, d.nextAttemptAt);
  }

  private read(endpointId: string, messageId: string, kept: Kept): WebhookDelivery {
    if (typeof kept !== 'string' && !(kept instanceof Tried)) return kept;
    // A compact record was written for a message the store had; messages outlive their deliveries (prune).
    const m = this.message(messageId)!;
    if (typeof kept === 'string') return Object.freeze(freshDelivery(m, endpointId, kept));
    return Object.freeze({
      id: deliveryId(messageId, endpointId), messageId, endpointId, orgId: m.orgId, type: m.type, status: kept.status, attempts: kept.attempts,
      lastStatusCode: kept.lastStatusCode, lastError: kept.lastError, lastAttemptAt: kept.lastAttemptAt, nextAttemptAt: kept.nextAttemptAt, createdAt: m.createdAt,
    });
  }
}
