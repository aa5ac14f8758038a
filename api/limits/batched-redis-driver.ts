/**
 * The `db` handed to koa-ratelimit's Redis driver (async-ratelimiter).
 *
 * That driver makes one call per request, `db.ratelimiter(key, now, duration,
 * max, peek)`, normally an ioredis scripted command: one Lua call, one Redis
 * round trip and one socket write per request. This object answers the same
 * call with the same result, but gathers the calls made during two turns of the
 * event loop and sends them to Redis as ONE script call that applies them in
 * order. Under load that turns N round trips into one; alone, a request waits
 * no longer than the next turn of the loop (no timer).
 *
 * Exactness is kept: Redis runs the batch atomically and, inside it, each call
 * does exactly what async-ratelimiter's script does (sliding-window log: drop
 * entries older than the window, count, refuse at the limit, else add one),
 * so any number of instances sharing one Redis still admit exactly the limit.
 * One deliberate difference: each entry's member is made unique (its score is
 * the timestamp, as before), so two requests in the same instant, on two
 * instances, are counted twice rather than once.
 *
 * Two ways to spare a busy id a round trip per request (a write to Redis's
 * socket costs as much CPU as a small answer to a client on this machine):
 *
 * - **Leases** (every caller; never more than the limit): when an id was
 *   asked for in the last moments and has at least LEASE_HEADROOM places left
 *   in its window, the batch also reserves up to LEASE_MAX more for this
 *   instance, and the next calls for that id are answered here from them. A
 *   reserved place is an entry of the window like any other, scored at the
 *   lease's end (when it is used, it is used before that), so the window never
 *   holds more than the limit; the places a lease did not use go back (removed)
 *   when it ends. Nearer the limit every call is Redis's, as without leases.
 * - **Counting after the answer** (`admitAhead`, chosen by the caller: the
 *   public widget data, where each visitor's address is an id of its own):
 *   while this instance knows the id to have used less than half its limit, the
 *   call is admitted at once and counted in Redis within LATER_MS, with the
 *   other ids' counts in one write; from half on, every call waits for Redis's
 *   exact answer. Several instances can then pass the limit only if the id's
 *   requests at the others pass half of it within those milliseconds.
 */
import type { Redis } from 'ioredis';

/** What async-ratelimiter returns from its script: [remaining before this call, reset (epoch s), max]. */
export type Reply = [number, number, number];

interface Pending {
  key: string;
  now: number;
  duration: number;
  max: number;
  peek: boolean;
  member: string;
  resolve: (reply: Reply) => void;
  reject: (err: unknown) => void;
}

/** Places of one id's window reserved for this instance, handed out one per call. */
interface Lease {
  /** The tokens' members are `${member}.${j}`, j from 1 to `last`. */
  member: string;
  /** The next token to hand out. */
  next: number;
  last: number;
  /** Remaining before the first token's call (the window's count when it was reserved). */
  remaining: number;
  /** Epoch seconds, as the script answers it. */
  reset: number;
  max: number;
  duration: number;
  /** The tokens' score: after this (the caller's clock, ms) the lease answers nothing. */
  until: number;
  /** The next lease, asked for before this one ran out, used when it does. */
  following?: Lease;
}

/** How often an id was asked for lately: calls in this LEASE_MS period and the one before. */
interface Demand {
  period: number;
  current: number;
  previous: number;
}

/** What this instance knows of an id counted after the answer (admitAhead). */
interface Ahead {
  /** The window's count as Redis last said, plus this instance's calls not yet answered by Redis. */
  count: number;
  /** Calls admitted here whose count Redis has not answered yet. */
  unreported: number;
  /** Epoch seconds. */
  reset: number;
  /** When Redis last answered for it (ms). */
  updated: number;
  /** The window (ms). */
  duration: number;
}

/** A call admitted ahead, to be counted in Redis. */
interface Report {
  key: string;
  now: number;
  duration: number;
  member: string;
  ahead: Ahead;
}

/** A lease asked for with a batch. */
interface LeaseAsk {
  key: string;
  now: number;
  duration: number;
  max: number;
  want: number;
  until: number;
  member: string;
}

/** A lease's unused tokens, to remove from the window. */
interface Refund {
  key: string;
  member: string;
  from: number;
  to: number;
  /** Batches that failed with it (given up after REFUND_TRIES: the places then leave with the window). */
  tries: number;
}

/** How long a lease lasts (ms), and the period over which an id's demand is counted. */
export const LEASE_MS = 200;
/** Most tokens one lease reserves. */
export const LEASE_MAX = 128;
/**
 * Leases are given only while this many places are left in the window: near
 * the limit every call is Redis's, so places reserved by one instance and not
 * used yet can refuse another's request only if the others use 896 places in
 * a lease's 200 ms. The plans' limits (60 and 200 a minute) never lease.
 */
export const LEASE_HEADROOM = 8 * LEASE_MAX;

/**
 * KEYS: the distinct keys of the batch. ARGV, in four parts:
 * 1. the number of reports (calls admitted ahead, counted first, so that the
 *    calls of part 2 see them); per report: key index, now, duration, member
 *    (added whatever the count: the call was admitted already). Answer: the
 *    window's count after it, and its reset.
 * 2. the number of calls; per call: key index, now (ms), duration (ms), max,
 *    peek ('1'/'0'), member. Answer: three numbers per call.
 * 3. the number of lease asks; per ask: key index, now, duration, max, wanted,
 *    the tokens' score (the lease's end), member. Answer: tokens granted, the
 *    remaining before them, the reset.
 * 4. the number of refunds; per refund: key index, member, first and last token.
 * Every entry added keeps the key alive for its window at least (PTTL checked,
 * so a lease token's later score is never cut short by a later call).
 */
const BATCH_SCRIPT = `
local out = {}
local function keep(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
local function window(key, now, duration)
  local count = 0
  local oldest = now
  if redis.call('EXISTS', key) == 1 then
    redis.call('ZREMRANGEBYSCORE', key, 0, now - duration)
    count = redis.call('ZCARD', key)
    if count > 0 then
      oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
    end
  end
  return count, oldest
end
local at = 1
local n
n = tonumber(ARGV[at])
at = at + 1
for i = 1, n do
  local key = KEYS[tonumber(ARGV[at])]
  local now = tonumber(ARGV[at + 1])
  local duration = tonumber(ARGV[at + 2])
  local member = ARGV[at + 3]
  at = at + 4
  local count, oldest = window(key, now, duration)
  redis.call('ZADD', key, now, member)
  keep(key, duration)
  if count == 0 then oldest = now end
  out[#out + 1] = count + 1
  out[#out + 1] = math.floor((oldest + duration) / 1000)
end
n = tonumber(ARGV[at])
at = at + 1
for i = 1, n do
  local key = KEYS[tonumber(ARGV[at])]
  local now = tonumber(ARGV[at + 1])
  local duration = tonumber(ARGV[at + 2])
  local max = tonumber(ARGV[at + 3])
  local peek = ARGV[at + 4] == '1'
  local member = ARGV[at + 5]
  at = at + 6
  local count, oldest = window(key, now, duration)
  local remaining = max - count
  if remaining > 0 and not peek then
    redis.call('ZADD', key, now, member)
    keep(key, duration)
  end
  if remaining < 0 then remaining = 0 end
  out[#out + 1] = remaining
  out[#out + 1] = math.floor((oldest + duration) / 1000)
  out[#out + 1] = max
end
n = tonumber(ARGV[at])
at = at + 1
for i = 1, n do
  local key = KEYS[tonumber(ARGV[at])]
  local now = tonumber(ARGV[at + 1])
  local duration = tonumber(ARGV[at + 2])
  local max = tonumber(ARGV[at + 3])
  local wanted = tonumber(ARGV[at + 4])
  local later = tonumber(ARGV[at + 5])
  local member = ARGV[at + 6]
  at = at + 7
  local count, oldest = window(key, now, duration)
  local granted = 0
  if max - count >= ${LEASE_HEADROOM} then granted = math.min(wanted, ${LEASE_MAX}) end
  for j = 1, granted do
    redis.call('ZADD', key, later, member .. '.' .. j)
  end
  if granted > 0 then
    keep(key, later - now + duration)
    if count == 0 then oldest = later end
  end
  out[#out + 1] = granted
  out[#out + 1] = max - count
  out[#out + 1] = math.floor((oldest + duration) / 1000)
end
n = tonumber(ARGV[at])
at = at + 1
for i = 1, n do
  local key = KEYS[tonumber(ARGV[at])]
  local member = ARGV[at + 1]
  for j = tonumber(ARGV[at + 2]), tonumber(ARGV[at + 3]) do
    redis.call('ZREM', key, member .. '.' .. j)
  end
  at = at + 4
end
return out
`;

/** Calls per script run: bounds how long one batch holds Redis. */
const MAX_BATCH = 500;
/** How long counts admitted ahead (and a lease's unused tokens) wait to go to Redis with others (ms). */
export const LATER_MS = 20;
/** Batches a lease's unused places are sent with before they are left to leave with the window. */
const REFUND_TRIES = 5;
/** Most ids whose demand or ahead-count is remembered (the least recently asked for forgotten first). */
const MAX_TRACKED = 50_000;

type BatchCommand = (...args: (string | number)[]) => Promise<number[]>;

/**
 * The batch script's command name. It is kept out of ioredis's auto-pipelining
 * (createRedis): the calls are already batched here, and ioredis sends a script
 * inside an auto-pipeline as EVAL with the whole Lua text every time (it only
 * remembers a loaded script per socket, and each pipeline is a new one), which
 * was the largest single cost of a request in the profile; outside a pipeline it
 * is EVALSHA after the first call on a connection.
 */
export const BATCH_COMMAND = 'rpRateLimitBatch2';

export interface BatchedRateLimitOptions {
  /** Seconds each script call took (metrics). */
  onLatency?: (seconds: number) => void;
  /** A batch that carried no caller's call failed (counts after the answer, refunds): Redis is in trouble. */
  onError?: (err: unknown) => void;
  /** Most ids whose demand or ahead-count is remembered (MAX_TRACKED; tests use fewer). */
  maxTracked?: number;
}

export class BatchedRateLimitDb {
  private queue: Pending[] = [];
  private reports: Report[] = [];
  private refunds: Refund[] = [];
  private soon = false;
  private laterTimer: NodeJS.Timeout | null = null;
  private sequence = 0;
  private sweeps = 0;
  private readonly prefix = `${process.pid.toString(36)}.${Math.random().toString(36).slice(2, 8)}.`;
  private readonly run: BatchCommand;
  private readonly leases = new Map<string, Lease>();
  /** Keys with a lease asked for and not answered yet: one at a time per key. */
  private readonly asking = new Set<string>();
  /** Calls waiting for a key's lease on its way (answered from it, or sent to Redis if it falls short). */
  private readonly waiting = new Map<string, Pending[]>();
  /** Leases to ask for with the next batch although no call waits (the current one runs low). */
  private prefetch = new Map<string, LeaseAsk>();
  private readonly demand = new Map<string, Demand>();
  private readonly ahead = new Map<string, Ahead>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly options: BatchedRateLimitOptions;

  constructor(client: Redis, options: BatchedRateLimitOptions | ((seconds: number) => void) = {}) {
    this.options = typeof options === 'function' ? { onLatency: options } : options;
    const commands = client as unknown as Record<string, BatchCommand | undefined>;
    if (!commands[BATCH_COMMAND]) client.defineCommand(BATCH_COMMAND, { lua: BATCH_SCRIPT });
    this.run = (commands[BATCH_COMMAND] as BatchCommand).bind(client);
    // Ended leases give their unused places back; ids not asked for lately are forgotten.
    this.sweeper = setInterval(() => this.sweep(Date.now()), LEASE_MS);
    this.sweeper.unref();
  }

  /** async-ratelimiter's call (its key already carries koa-ratelimit's namespace and the id). */
  ratelimiter(key: string, now: number, duration: number, max: number, peek: string): Promise<Reply> {
    const peeking = peek === '1';
    if (!peeking) {
      this.noteDemand(key, now);
      const lease = this.usableLease(key, now, duration, max);
      if (lease) {
        const j = lease.next++;
        // A quarter left: the next lease is asked for now, so that calls need not wait for it.
        if (!lease.following && lease.last - lease.next < LEASE_MAX / 4 && !this.asking.has(key)) {
          this.prefetch.set(key, { key, now, duration, max, want: Math.max(2, this.wanted(key, now)), until: now + LEASE_MS, member: this.nextMember() });
          this.scheduleSoon();
        }
        return Promise.resolve([lease.remaining - (j - 1), lease.reset, max]);
      }
      // A lease is on its way: the call waits for it rather than making a round trip of its own.
      const waiting = this.asking.has(key) ? this.waiting.get(key) : undefined;
      if (waiting) {
        return new Promise<Reply>((resolve, reject) => {
          waiting.push({ key, now, duration, max, peek: false, member: this.nextMember(), resolve, reject });
        });
      }
    }
    return new Promise<Reply>((resolve, reject) => {
      this.queue.push({ key, now, duration, max, peek: peeking, member: this.nextMember(), resolve, reject });
      this.scheduleSoon();
    });
  }

  /**
   * Admits a call at once, without waiting for Redis, while this instance knows
   * `key` to have used less than half of `max` in its window; Redis counts it
   * within LATER_MS. Null: at or above half, ask `ratelimiter` (exact).
   */
  admitAhead(key: string, now: number, duration: number, max: number): Reply | null {
    let known = this.ahead.get(key);
    if (known) {
      // Last asked for last: at the cap the least recently seen address is forgotten, never a busy one.
      this.ahead.delete(key);
      if (now - known.updated > duration && known.unreported === 0) known = undefined;
      else this.ahead.set(key, known);
    }
    const used = known?.count ?? 0;
    if (used >= Math.floor(max / 2)) return null;
    if (!known) {
      known = { count: 0, unreported: 0, reset: Math.ceil((now + duration) / 1000), updated: now, duration };
      this.remember(this.ahead, key, known);
    }
    known.count++;
    known.unreported++;
    this.reports.push({ key, now, duration, member: this.nextMember(), ahead: known });
    this.scheduleLater();
    return [max - used, known.reset, max];
  }

  /** Sends what waits now (tests). */
  async flushNow(): Promise<void> {
    if (this.laterTimer) clearTimeout(this.laterTimer);
    this.laterTimer = null;
    this.soon = false;
    await this.flush();
  }

  /**
   * Shutdown: every lease gives its unused places back, and those, with the
   * counts admitted ahead, go to Redis before the caller closes it.
   */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const [key, first] of this.leases) {
      for (let lease: Lease | undefined = first; lease; lease = lease.following) this.giveBack(key, lease);
    }
    this.leases.clear();
    await this.flushNow().catch(() => {});
    if (this.laterTimer) clearTimeout(this.laterTimer);
    this.laterTimer = null;
  }

  private nextMember(): string {
    return `${this.prefix}${(this.sequence++).toString(36)}`;
  }

  private scheduleSoon(): void {
    if (this.soon) return;
    this.soon = true;
    // The next turn, then the one after: the requests read in the next poll join this batch.
    setImmediate(() =>
      setImmediate(() => {
        this.soon = false;
        void this.flush();
      }),
    );
  }

  private scheduleLater(): void {
    if (this.laterTimer || this.soon) return;
    this.laterTimer = setTimeout(() => {
      this.laterTimer = null;
      void this.flush();
    }, LATER_MS);
    this.laterTimer.unref();
  }

  private noteDemand(key: string, now: number): void {
    const period = Math.floor(now / LEASE_MS);
    const seen = this.demand.get(key);
    if (!seen) {
      this.remember(this.demand, key, { period, current: 1, previous: 0 });
      return;
    }
    if (seen.period !== period) {
      seen.previous = seen.period === period - 1 ? seen.current : 0;
      seen.current = 0;
      seen.period = period;
    }
    seen.current++;
  }

  /** Tokens to reserve with a batch for `key`: about as many calls as came in the last LEASE_MS (none for a first call). */
  private wanted(key: string, now: number): number {
    const seen = this.demand.get(key);
    if (!seen) return 0;
    const period = Math.floor(now / LEASE_MS);
    const recent = seen.period === period ? seen.current + seen.previous : seen.period === period - 1 ? seen.current : 0;
    // The calls of this batch are in `recent`: a lease is worth it from the second call on.
    return recent >= 2 ? Math.min(LEASE_MAX, recent) : 0;
  }

  private remember<T>(map: Map<string, T>, key: string, value: T): void {
    if (map.size >= (this.options.maxTracked ?? MAX_TRACKED)) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
    map.set(key, value);
  }

  /** The lease that can answer a call for `key` now, moving on to the following one when the current is spent. */
  private usableLease(key: string, now: number, duration: number, max: number): Lease | null {
    let lease = this.leases.get(key);
    while (lease && (lease.next > lease.last || now >= lease.until)) {
      this.giveBack(key, lease);
      lease = lease.following;
      if (lease) this.leases.set(key, lease);
      else this.leases.delete(key);
    }
    return lease && lease.max === max && lease.duration === duration ? lease : null;
  }

  private sweep(now: number): void {
    for (const [key, first] of this.leases) {
      let lease: Lease | undefined = first;
      while (lease && lease.until <= now) {
        this.giveBack(key, lease);
        lease = lease.following;
      }
      if (lease) this.leases.set(key, lease);
      else this.leases.delete(key);
    }
    // The maps below can hold many ids (one per visitor's address): swept every tenth time only.
    if (++this.sweeps % 10 !== 0) return;
    const period = Math.floor(now / LEASE_MS);
    for (const [key, seen] of this.demand) if (seen.period < period - 1) this.demand.delete(key);
    for (const [key, known] of this.ahead) if (known.unreported === 0 && now - known.updated > known.duration) this.ahead.delete(key);
  }

  private giveBack(key: string, lease: Lease): void {
    if (lease.next > lease.last) return;
    this.refunds.push({ key, member: lease.member, from: lease.next, to: lease.last, tries: 0 });
    // Spent: never handed out or given back again.
    lease.next = lease.last + 1;
    this.scheduleLater();
  }

  private async flush(): Promise<void> {
    const calls = this.queue;
    const reports = this.reports;
    const refunds = this.refunds;
    const prefetch = this.prefetch;
    this.prefetch = new Map();
    this.queue = [];
    this.reports = [];
    this.refunds = [];
    if (this.laterTimer) {
      clearTimeout(this.laterTimer);
      this.laterTimer = null;
    }
    const sends: Promise<void>[] = [];
    for (let start = 0; start < Math.max(calls.length, reports.length, refunds.length, start === 0 ? prefetch.size : 0); start += MAX_BATCH) {
      sends.push(this.send(calls.slice(start, start + MAX_BATCH), reports.slice(start, start + MAX_BATCH), refunds.slice(start, start + MAX_BATCH), start === 0 ? prefetch : new Map()));
    }
    await Promise.all(sends);
  }

  private async send(calls: Pending[], reports: Report[], refunds: Refund[], prefetch: Map<string, LeaseAsk>): Promise<void> {
    const keyIndex = new Map<string, number>();
    const index = (key: string): number => {
      let found = keyIndex.get(key);
      if (found === undefined) {
        found = keyIndex.size + 1;
        keyIndex.set(key, found);
      }
      return found;
    };
    const args: (string | number)[] = [reports.length];
    for (const report of reports) args.push(index(report.key), report.now, report.duration, report.member);
    args.push(calls.length);
    // The last call of each key, not a peek, asks for a lease when the key is in demand (one ask in flight per key).
    const asks = new Map<string, LeaseAsk>(prefetch);
    for (const call of calls) {
      args.push(index(call.key), call.now, call.duration, call.max, call.peek ? '1' : '0', call.member);
      if (call.peek || this.asking.has(call.key)) continue;
      const want = this.wanted(call.key, call.now);
      if (want > 0) asks.set(call.key, { key: call.key, now: call.now, duration: call.duration, max: call.max, want, until: call.now + LEASE_MS, member: call.member });
      else asks.delete(call.key);
    }
    const leaseAsks = [...asks.values()].filter((ask) => !this.asking.has(ask.key));
    for (const ask of leaseAsks) {
      this.asking.add(ask.key);
      this.waiting.set(ask.key, []);
    }
    args.push(leaseAsks.length);
    for (const ask of leaseAsks) args.push(index(ask.key), ask.now, ask.duration, ask.max, ask.want, ask.until, ask.member);
    args.push(refunds.length);
    for (const refund of refunds) args.push(index(refund.key), refund.member, refund.from, refund.to);

    const started = process.hrtime.bigint();
    let out: number[];
    try {
      out = await this.run(keyIndex.size, ...keyIndex.keys(), ...args);
    } catch (err) {
      for (const ask of leaseAsks) {
        this.asking.delete(ask.key);
        for (const call of this.takeWaiting(ask.key)) call.reject(err);
      }
      for (const call of calls) call.reject(err);
      // Places to give back are asked again with a later batch (removing them twice is harmless).
      for (const refund of refunds) if (++refund.tries < REFUND_TRIES) this.refunds.push(refund);
      if (refunds.length > 0) this.scheduleLater();
      // The counts admitted ahead are lost with Redis (as a window kept in Redis is when it goes away).
      for (const report of reports) report.ahead.unreported = Math.max(0, report.ahead.unreported - 1);
      if (calls.length === 0) this.options.onError?.(err);
      return;
    }
    this.options.onLatency?.(Number(process.hrtime.bigint() - started) / 1e9);
    let at = 0;
    for (const report of reports) {
      const known = report.ahead;
      known.unreported = Math.max(0, known.unreported - 1);
      known.count = out[at]! + known.unreported;
      known.reset = out[at + 1]!;
      known.updated = report.now;
      at += 2;
    }
    calls.forEach((call, i) => {
      const remaining = out[at + i * 3]!;
      call.resolve([remaining, out[at + i * 3 + 1]!, out[at + i * 3 + 2]!]);
      // An id counted after the answer, asked exactly (it had used half): what Redis says now.
      const known = call.peek ? undefined : this.ahead.get(call.key);
      if (known) {
        known.count = call.max - remaining + (remaining > 0 ? 1 : 0) + known.unreported;
        known.updated = call.now;
      }
    });
    at += calls.length * 3;
    for (const ask of leaseAsks) {
      this.asking.delete(ask.key);
      const granted = out[at]!;
      const remaining = out[at + 1]!;
      const reset = out[at + 2]!;
      at += 3;
      if (granted <= 0) continue;
      const lease: Lease = { member: ask.member, next: 1, last: granted, remaining, reset, max: ask.max, duration: ask.duration, until: ask.until };
      const current = this.leases.get(ask.key);
      if (current && current.next <= current.last && !current.following && current.max === ask.max && current.duration === ask.duration) {
        current.following = lease;
      } else {
        if (current) {
          this.giveBack(ask.key, current);
          if (current.following) this.giveBack(ask.key, current.following);
        }
        this.leases.set(ask.key, lease);
      }
    }
    // The calls that waited for a lease: answered from it while it lasts, the rest asked of Redis.
    for (const ask of leaseAsks) {
      for (const call of this.takeWaiting(ask.key)) {
        const lease = this.usableLease(call.key, call.now, call.duration, call.max);
        if (lease) {
          const j = lease.next++;
          call.resolve([lease.remaining - (j - 1), lease.reset, call.max]);
        } else {
          this.queue.push(call);
          this.scheduleSoon();
        }
      }
    }
  }

  private takeWaiting(key: string): Pending[] {
    const calls = this.waiting.get(key) ?? [];
    this.waiting.delete(key);
    return calls;
  }
}
