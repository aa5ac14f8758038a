/**
 * Sending slots for invitation mails (CONTRACT §1 `SMTP_RATE_PER_MINUTE`,
 * §14): at most that many mails a minute across all instances, handed out
 * fairly between organizations. Two implementations of one small interface:
 * in Redis when REDIS_URL is set (every instance shares one schedule), in
 * process otherwise. The mail door (door.ts) asks before each mail.
 *
 * The rate is a schedule, not a bucket: a slot every 60,000 / rate ms and no
 * burst (GCRA with a tolerance of one), so in any minute no more than `rate`
 * mails leave, and they leave evenly (relays and mailbox providers like a
 * steady sender better than bursts).
 *
 * Fairness: every organization with mail waiting is registered as waiting
 * (refreshed at each ask; dropped when its queue is empty or when it has not
 * asked for `staleMs`, a crashed instance). A free slot goes to the waiting
 * organization served longest ago (one never served first), so with N
 * organizations waiting each gets every Nth slot: one organization's 100,000
 * mails hold another's first mail for at most N slots, not for hours. The
 * order is kept as a counter per organization (the hash `served`), which is
 * not forgotten when a queue empties: an organization sending one mail at a
 * time cannot jump the line by leaving and coming back.
 *
 * Redis is down: `take` rejects, and the door waits and asks again; it never
 * sends without a slot (that would break the limit across instances).
 */
import type { Redis } from 'ioredis';

export interface MailSlots {
  /**
   * One slot for a mail of `organizationId`: 0 when granted (send now), else
   * how many ms to wait before asking again. `now` (ms) is for tests; unset,
   * the clock is the store's (Redis's own, so that instances agree).
   */
  take(organizationId: string, now?: number): Promise<number>;
  /** The organization has nothing more to send (from this instance). */
  leave(organizationId: string): Promise<void>;
}

export interface SlotOptions {
  ratePerMinute: number;
  /** How long a waiting organization that stopped asking keeps its turn (default: two slots + 5 s). */
  staleMs?: number;
}

/** How soon an organization whose turn it is not asks again. */
export const TURN_RETRY_MS = 25;

const timing = (options: SlotOptions): { interval: number; stale: number; retry: number } => {
  if (!Number.isInteger(options.ratePerMinute) || options.ratePerMinute < 1) throw new RangeError('ratePerMinute is a whole number ≥ 1');
  const interval = 60_000 / options.ratePerMinute;
  return { interval, stale: options.staleMs ?? Math.ceil(2 * interval) + 5000, retry: Math.max(1, Math.min(TURN_RETRY_MS, Math.floor(interval))) };
};

/** One process's schedule (no REDIS_URL: a single instance). */
export class InProcessSlots implements MailSlots {
  readonly #interval: number;
  readonly #stale: number;
  readonly #retry: number;
  #tat = 0;
  #seq = 0;
  readonly #waiting = new Map<string, number>();
  readonly #served = new Map<string, number>();

  constructor(options: SlotOptions) {
    ({ interval: this.#interval, stale: this.#stale, retry: this.#retry } = timing(options));
  }

  async take(organizationId: string, now: number = Date.now()): Promise<number> {
    for (const [org, seen] of this.#waiting) if (seen <= now - this.#stale) this.#waiting.delete(org);
    this.#waiting.set(organizationId, now);
    if (this.#tat > now) return Math.ceil(this.#tat - now);
    let best: string | null = null;
    let bestServed = Infinity;
    for (const org of this.#waiting.keys()) {
      const served = this.#served.get(org) ?? 0;
      if (served < bestServed || (served === bestServed && best !== null && org < best)) [best, bestServed] = [org, served];
    }
    if (best !== organizationId) return this.#retry;
    this.#tat = Math.max(this.#tat, now) + this.#interval;
    this.#served.set(organizationId, ++this.#seq);
    return 0;
  }

  async leave(organizationId: string): Promise<void> {
    this.#waiting.delete(organizationId);
  }
}

/**
 * The same schedule in Redis, one Lua script per ask (atomic across
 * instances). Keys, under the client's prefix: `mail:tat` (when the next slot
 * is free, ms), `mail:waiting` (sorted set: organization → last ask),
 * `mail:served` (hash: organization → order of its last slot), `mail:seq`.
 */
const TAKE = `
local org = ARGV[1]
local now = tonumber(ARGV[2])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local interval = tonumber(ARGV[3])
local stale = tonumber(ARGV[4])
local retry = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - stale)
redis.call('ZADD', KEYS[2], now, org)
redis.call('PEXPIRE', KEYS[2], stale * 2)
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat > now then return math.ceil(tat - now) end
local best, bestServed = nil, nil
for _, member in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  local served = tonumber(redis.call('HGET', KEYS[3], member) or '0')
  if bestServed == nil or served < bestServed or (served == bestServed and member < best) then
    best, bestServed = member, served
  end
end
if best ~= org then return retry end
redis.call('SET', KEYS[1], string.format('%.3f', math.max(tat, now) + interval), 'PX', math.ceil(interval) + 60000)
redis.call('HSET', KEYS[3], org, redis.call('INCR', KEYS[4]))
redis.call('PEXPIRE', KEYS[3], 86400000)
redis.call('PEXPIRE', KEYS[4], 86400000)
return 0
`;

export class RedisSlots implements MailSlots {
  readonly #redis: Redis;
  readonly #interval: number;
  readonly #stale: number;
  readonly #retry: number;

  /** `redis` is the caller's client (its keyPrefix applies); it is not closed here. */
  constructor(redis: Redis, options: SlotOptions) {
    this.#redis = redis;
    ({ interval: this.#interval, stale: this.#stale, retry: this.#retry } = timing(options));
  }

  async take(organizationId: string, now?: number): Promise<number> {
    const answer = await this.#redis.eval(TAKE, 4, 'mail:tat', 'mail:waiting', 'mail:served', 'mail:seq', organizationId, now === undefined ? '' : String(now), String(this.#interval), String(this.#stale), String(this.#retry));
    return Number(answer);
  }

  async leave(organizationId: string): Promise<void> {
    await this.#redis.zrem('mail:waiting', organizationId);
  }
}

/** The composition root's choice: Redis when REDIS_URL is set (the caller's client, with its key prefix), in process otherwise. */
export function createMailSlots(ratePerMinute: number, redis: Redis | null): MailSlots {
  return redis ? new RedisSlots(redis, { ratePerMinute }) : new InProcessSlots({ ratePerMinute });
}
