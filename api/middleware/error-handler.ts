/**
 * The one place that renders errors: every ApiError becomes the JSON envelope
 * with its status and headers; Koa's own client errors keep their status with a
 * generic code; anything else is logged and becomes a plain 500 that leaks
 * nothing. Also turns an unanswered request into 404 not_found.
 */
import type { Context, Next } from 'koa';
import { ApiError, internalError, notFound, storeUnavailable } from '../errors.ts';
import { StoreUnavailableError } from '../store/unavailable.ts';
import type { Logger } from '../logger.ts';

const CLIENT_CODES: Record<number, string> = {
  400: 'bad_request',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  411: 'length_required',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  431: 'request_header_fields_too_large',
};

function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof StoreUnavailableError) return storeUnavailable(err.store);
  const e = err as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true) {
    const code = CLIENT_CODES[e.status] ?? 'bad_request';
    return new ApiError(e.status, code, typeof e.message === 'string' ? e.message : 'Bad request.');
  }
  return null;
}

/** Makes `err` the request's answer: its JSON envelope, status and headers (anything unknown: logged, a plain 500). */
export function renderError(ctx: Context, err: unknown, baseLogger: Logger): void {
  let apiError = toApiError(err);
  if (err instanceof StoreUnavailableError) {
    const log = (ctx.state.log as Logger | undefined) ?? baseLogger;
    log.warn({ err: err.cause, requestId: ctx.state.requestId }, err.message);
  }
  if (!apiError) {
    const log = (ctx.state.log as Logger | undefined) ?? baseLogger;
    log.error({ err, requestId: ctx.state.requestId }, 'unhandled error');
    apiError = internalError();
  }
  ctx.status = apiError.status;
  for (const [name, value] of Object.entries(apiError.headers)) ctx.set(name, value);
  ctx.body = apiError.toJSON();
  ctx.type = 'application/json; charset=utf-8';
  ctx.state.errorCode = apiError.code;
}

/** Nothing answered the request: its 404 (thrown, to be rendered). */
export function throwIfUnanswered(ctx: Context): void {
  if (ctx.status === 404 && ctx.body == null) throw notFound();
}

/** renderError and throwIfUnanswered as a Koa middleware (the admin app). */
export function errorHandler(baseLogger: Logger) {
  return async function errorHandler(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      throwIfUnanswered(ctx);
    } catch (err) {
      renderError(ctx, err, baseLogger);
    }
  };
}
