/**
 * Whether Redis can be used right now. Limiters ask before every call: while
 * Redis is away they go straight to their in-process insurance limiter instead
 * of waiting on a dead connection. Transitions are logged once each way;
 * ioredis reconnects by itself, and shared limits resume on the next request.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import { BATCH_COMMAND } from './batched-redis-driver.ts';

export class RedisHealth {
  private up = false;
  private everUp = false;

  constructor(
    readonly client: Redis,
    private readonly logger: Logger,
  ) {
    client.on('ready', () => {
      if (!this.up) logger.info({ redis: 'up' }, this.everUp ? 'redis is back: shared rate limits resumed' : 'redis connected');
      this.up = true;
      this.everUp = true;
    });
    const down = (reason: string) => () => {
      if (this.up) logger.warn({ redis: 'down', reason }, 'redis unavailable: rate limits fall back to per-process limits');
      this.up = false;
    };
    client.on('close', down('close'));
    client.on('end', down('end'));
    client.on('error', (err: Error) => {
      if (this.up) logger.warn({ redis: 'error', err: err.message }, 'redis error');
    });
  }

  get usable(): boolean {
    return this.up && this.client.status === 'ready';
  }

  /** A command failed although the connection looked ready (e.g. a timeout). */
  markFailed(err: unknown): void {
    if (this.up) {
      this.logger.warn({ redis: 'down', err: (err as Error).message }, 'redis command failed: rate limits fall back to per-process limits');
    }
    this.up = false;
    // A timed-out connection may still claim to be ready; reconnect to find out.
    if (this.client.status === 'ready') this.client.disconnect(true);
  }

  async ping(): Promise<void> {
    if (this.client.status !== 'ready') throw new Error(`redis is ${this.client.status}`);
    await this.client.ping();
  }
}

export function createRedis(url: string, name: string, keyPrefix: string): Redis {
  return new Redis(url, {
    keyPrefix,
    connectionName: name,
    // Fail fast while disconnected: callers fall back instead of queueing.
    enableOfflineQueue: false,
    // Commands issued in the same tick (concurrent requests' limiter calls) share one socket write.
    enableAutoPipelining: true,
    // The rate limiter batches its own calls, and a script in an auto-pipeline is sent whole every time (batched-redis-driver.ts).
    autoPipeliningIgnoredCommands: [BATCH_COMMAND],
    maxRetriesPerRequest: 0,
    commandTimeout: 1000,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(100 * times, 2000),
    lazyConnect: false,
  });
}
