/**
 * The framework floor: what the mandated stack alone costs. Koa, @koa/router
 * and koa-ratelimit on ioredis (the same Redis, a limit as high as the
 * service's), answering each path with the bytes the service answered and
 * nothing else: no authentication, no parameters, no store, no metrics, no
 * logs. The service can come close to this, never above it; the gap between
 * this floor and the bare server is the price of the stack itself.
 * Run as its own process: `tsx bench/floor-server.ts FILE REDIS_URL`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Router from '@koa/router';
import { Redis } from 'ioredis';
import Koa from 'koa';
import ratelimit from 'koa-ratelimit';
import { type Fixture, fixtureKey } from './fixture.ts';

const fixture = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Fixture;
const redis = new Redis(process.argv[3]!, { keyPrefix: 'floor:', enableAutoPipelining: true });

const app = new Koa();
const router = new Router();
router.use(ratelimit({ driver: 'redis', db: redis, duration: 60_000, max: 10_000_000, id: () => 'bench' }));
/** Each recorded answer by its whole URL: two of them share a path and differ by their query. */
const answers = new Map(
  Object.entries(fixture.responses).map(([url, response]) => [
    url,
    {
      body: Buffer.from(response.body, 'base64'),
      // koa-ratelimit sets its own X-RateLimit-* fields.
      headers: Object.entries(response.headers).filter(([name]) => !name.startsWith('x-ratelimit-')),
    },
  ]),
);
for (const path of new Set([...answers.keys()].map((key) => new URL(key.split(' ')[0]!, 'https://x').pathname))) {
  router.get(path, async (ctx) => {
    const encoding = ctx.get('accept-encoding');
    const answer = (encoding && answers.get(fixtureKey(ctx.url, encoding))) || answers.get(ctx.url);
    if (!answer) return;
    for (const [name, value] of answer.headers) ctx.set(name, value);
    ctx.body = answer.body;
  });
}
app.use(router.routes());

const server = createServer({ cert: fixture.cert, key: fixture.key }, app.callback());
server.keepAliveTimeout = 5000;
server.listen(fixture.port, '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  redis.disconnect();
  server.close(() => process.exit(0));
});
