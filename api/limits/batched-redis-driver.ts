/**
 * The `db` handed to koa-ratelimit's Redis driver (async-ratelimiter).
 *
 * That driver makes one call per request, `db.ratelimiter(key, now, duration,
 * max, peek)`, normally an ioredis scripted command: one Lua call, one Redis
 * round trip and one socket write per request. This object answers the same
 * call with the same result, but gathers the calls made during two turns of the
 * event loop and sends them to Redis as ONE script call that applies them in
 * order. Under load that turns N round trips into one (a write to Redis's
 * socket costs as much CPU as a small answer to a client on this machine, so
 * the second turn, which gathers the next poll's requests too, took the calls
 * per write from about 3 to 5 under the benchmark's load); alone, a request
 * waits no longer than the next turn of the loop (no timer).
 *
 * Exactness is kept: Redis runs the batch atomically and, inside it, each call
 * does exactly what async-ratelimiter's script does (sliding-window log: drop
 * entries older than the window, count, refuse at the limit, else add one),
 * so any number of instances sharing one Redis still admit exactly the limit.
 * One deliberate difference: each entry's member is made unique (its score is
 * the timestamp, as before), so two requests in the same instant, on two
 * instances, are counted twice rather than once.
 */
import type { Redis } from 'ioredis';

/** What async-ratelimiter returns from its script: [remaining before this call, reset (epoch s), max]. */
type Reply = [number, number, number];

interface Pending {
  key: string;
  now: number;
  duration: number;
  max: number;
  peek: boolean;
  resolve: (reply: Reply) => void;
  reject: (err: unknown) => void;
}

/**
 * KEYS: the distinct keys of the batch. ARGV[1]: the number of calls; then per
 * call: key index, now (ms), duration (ms), max, peek ('1'/'0'), member.
 * Returns the calls' replies, three numbers each, in order.
 */
const BATCH_SCRIPT = `
local out = {}
local n = tonumber(ARGV[1])
for i = 0, n - 1 do
  local base = 2 + i * 6
  local key = KEYS[tonumber(ARGV[base])]
  local now = tonumber(ARGV[base + 1])
  local duration = tonumber(ARGV[base + 2])
  local max = tonumber(ARGV[base + 3])
  local peek = ARGV[base + 4] == '1'
  local member = ARGV[base + 5]
  local count = 0
  local oldest = now
  if redis.call('EXISTS', key) == 1 then
    redis.call('ZREMRANGEBYSCORE', key, 0, now - duration)
    count = redis.call('ZCARD', key)
    if count > 0 then
      oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
    end
  end
  local remaining = max - count
  if remaining > 0 and not peek then
    redis.call('ZADD', key, now, member)
    redis.call('PEXPIRE', key, duration)
  end
  if remaining < 0 then remaining = 0 end
  out[#out + 1] = remaining
  out[#out + 1] = math.floor((oldest + duration) / 1000)
  out[#out + 1] = max
end
return out
`;

/** Calls per script run: bounds how long one batch holds Redis. */
const MAX_BATCH = 500;

type BatchCommand = (...args: (string | number)[]) => Promise<number[]>;

/**
 * The batch script's command name. It is kept out of ioredis's auto-pipelining
 * (createRedis): the calls are already batched here, and ioredis sends a script
 * inside an auto-pipeline as EVAL with the whole Lua text every time (it only
 * remembers a loaded script per socket, and each pipeline is a new one), which
 * was the largest single cost of a request in the profile; outside a pipeline it
 * is EVALSHA after the first call on a connection.
 */
export const BATCH_COMMAND = 'rpRateLimitBatch';

export class BatchedRateLimitDb {
  private queue: Pending[] = [];
  private scheduled = false;
  private sequence = 0;
  private readonly prefix = `${process.pid.toString(36)}.${Math.random().toString(36).slice(2, 8)}.`;
  private readonly run: BatchCommand;

  constructor(
    client: Redis,
    /** Seconds each script call took (metrics). */
    private readonly onLatency?: (seconds: number) => void,
  ) {
    const commands = client as unknown as Record<string, BatchCommand | undefined>;
    if (!commands[BATCH_COMMAND]) client.defineCommand(BATCH_COMMAND, { lua: BATCH_SCRIPT });
    this.run = (commands[BATCH_COMMAND] as BatchCommand).bind(client);
  }

  /** async-ratelimiter's call (its key already carries koa-ratelimit's namespace and the id). */
  ratelimiter(key: string, now: number, duration: number, max: number, peek: string): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      this.queue.push({ key, now, duration, max, peek: peek === '1', resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // The next turn, then the one after: the requests read in the next poll join this batch.
        setImmediate(() => setImmediate(() => this.flush()));
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const all = this.queue;
    this.queue = [];
    for (let start = 0; start < all.length; start += MAX_BATCH) this.send(all.slice(start, start + MAX_BATCH));
  }

  private send(batch: Pending[]): void {
    const keyIndex = new Map<string, number>();
    const args: (string | number)[] = [String(batch.length)];
    for (const call of batch) {
      let index = keyIndex.get(call.key);
      if (index === undefined) {
        index = keyIndex.size + 1;
        keyIndex.set(call.key, index);
      }
      args.push(index, call.now, call.duration, call.max, call.peek ? '1' : '0', `${this.prefix}${(this.sequence++).toString(36)}`);
    }
    const started = process.hrtime.bigint();
    this.run(keyIndex.size, ...keyIndex.keys(), ...args).then(
      (out) => {
        this.onLatency?.(Number(process.hrtime.bigint() - started) / 1e9);
        batch.forEach((call, i) => call.resolve([out[i * 3]!, out[i * 3 + 1]!, out[i * 3 + 2]!]));
      },
      (err: unknown) => {
        for (const call of batch) call.reject(err);
      },
    );
  }
}
