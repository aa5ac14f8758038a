/**
 * Sessions in Redis (when REDIS_URL is set), so that every instance sees a
 * sign-in and a sign-out at once: one key per session that expires with it,
 * and one set per user naming its sessions (to end them all when the user is
 * removed, or those of one organization when they leave it). Redis down means nobody can sign in or stay signed in: the
 * dashboard answers 503 rather than guess.
 */
import { serviceUnavailable } from '../errors.ts';
import type { RedisHealth } from '../limits/redis-health.ts';
import type { Session, SessionStore } from '../store/people-types.ts';
import { IDLE_MS } from './session.ts';

export class RedisSessions implements SessionStore {
  constructor(private readonly redis: RedisHealth) {}

  private async run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      this.redis.markFailed(err);
      throw serviceUnavailable('Sessions are unavailable right now (Redis is not answering). Try again in a moment.', [{ component: 'redis', message: 'not answering' }]);
    }
  }

  /** Kept until the sooner of the idle and the absolute end; the middleware checks both again. */
  private ttl(session: Session): number {
    return Math.max(1, Math.min(Date.parse(session.expiresAt), Date.parse(session.lastSeenAt) + IDLE_MS) - Date.now());
  }

  assertWritable(): Promise<void> {
    return this.run(async () => {
      await this.redis.client.ping();
    });
  }

  create(session: Session): Promise<void> {
    return this.run(async () => {
      await this.redis.client
        .multi()
        .set(`sess:${session.id}`, JSON.stringify(session), 'PX', this.ttl(session))
        .sadd(`usess:${session.userId}`, session.id)
        .pexpire(`usess:${session.userId}`, Date.parse(session.expiresAt) - Date.now())
        .exec();
    });
  }

  get(id: string): Promise<Session | null> {
    return this.run(async () => {
      const text = await this.redis.client.get(`sess:${id}`);
      return text ? (JSON.parse(text) as Session) : null;
    });
  }

  touch(id: string, at: Date): Promise<void> {
    return this.run(async () => {
      const session = await this.get(id);
      if (!session) return;
      const next = { ...session, lastSeenAt: at.toISOString() };
      await this.redis.client.set(`sess:${id}`, JSON.stringify(next), 'PX', this.ttl(next), 'XX');
    });
  }

  remove(id: string): Promise<void> {
    return this.run(async () => {
      await this.redis.client.del(`sess:${id}`);
    });
  }

  removeByUser(userId: string): Promise<void> {
    return this.run(async () => {
      const ids = await this.redis.client.smembers(`usess:${userId}`);
      await this.redis.client.del(`usess:${userId}`, ...ids.map((id) => `sess:${id}`));
    });
  }

  /** The user's sessions in one organization: each one read to know its organization. */
  removeByUserInOrg(userId: string, orgId: string): Promise<void> {
    return this.run(async () => {
      const ids = await this.redis.client.smembers(`usess:${userId}`);
      if (ids.length === 0) return;
      const texts = await this.redis.client.mget(...ids.map((id) => `sess:${id}`));
      // Gone ones (expired, signed out) leave the set too.
      const ending = ids.filter((_, i) => {
        const text = texts[i];
        return !text || (JSON.parse(text) as Session).orgId === orgId;
      });
      if (ending.length === 0) return;
      await this.redis.client
        .multi()
        .del(...ending.map((id) => `sess:${id}`))
        .srem(`usess:${userId}`, ...ending)
        .exec();
    });
  }
}
