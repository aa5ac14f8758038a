/** X-Request-Id on every answer: a sane incoming id is kept, otherwise a new UUID. */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.ts';

const SANE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * The request's state: its id, and a child logger carrying that id, made on
 * first use (most requests at level warn never log). A class rather than a
 * getter defined on each request's object: it is on every request's path.
 */
class RequestState {
  [name: string]: unknown;
  private child: Logger | undefined;

  constructor(
    readonly requestId: string,
    private readonly logger: Logger,
  ) {}

  get log(): Logger {
    return (this.child ??= this.logger.child({ requestId: this.requestId }));
  }
}

/** The request's id: a sane incoming X-Request-Id, otherwise a new UUID. */
export function requestIdFor(incoming: string | undefined): string {
  // An id carrying our secret prefix (an API key or the admin token pasted by mistake) would land in every log line.
  return incoming !== undefined && SANE_ID.test(incoming) && !/rvp_/i.test(incoming) ? incoming : randomUUID();
}

/** Gives the request its id (X-Request-Id on the answer) and its state, whose `log` carries the id. */
export function assignRequestId(ctx: Context, logger: Logger): void {
  const id = requestIdFor(ctx.get('x-request-id'));
  const state = new RequestState(id, logger);
  // Koa starts every request with an empty state; anything already there is kept.
  for (const name in ctx.state) {
    Object.assign(state, ctx.state);
    break;
  }
  ctx.state = state;
  ctx.res.setHeader('X-Request-Id', id);
}

/** assignRequestId as a Koa middleware (the admin app). */
export function requestId(logger: Logger) {
  return function requestId(ctx: Context, next: Next): Promise<void> {
    assignRequestId(ctx, logger);
    return next();
  };
}
