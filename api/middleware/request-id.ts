/** X-Request-Id on every answer: a sane incoming id is kept, otherwise a new UUID. */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.ts';

const SANE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestId(logger: Logger) {
  return async function requestId(ctx: Context, next: Next): Promise<void> {
    const incoming = ctx.get('x-request-id');
    // An id carrying our secret prefix (an API key or the admin token pasted by mistake) would land in every log line.
    const id = SANE_ID.test(incoming) && !/rvp_/i.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    // The child logger is made on first use: most requests at level warn never log.
    let child: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', {
      configurable: true,
      enumerable: true,
      get: () => (child ??= logger.child({ requestId: id })),
    });
    ctx.set('X-Request-Id', id);
    await next();
  };
}
