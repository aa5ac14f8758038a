/**
 * What every platform's reply writer shares (connector.ts ReplyWriter,
 * CONTRACT §15): the text checked against the platform's limit before any
 * request, and a write's answer read into an outcome a person can act on.
 * Retrying belongs to the replies job (api/replies/), not here: these only
 * say whether a failure is worth another attempt (RateLimitError,
 * PlatformBusyError, NetworkError) or not (AuthError, PlatformError).
 */
import { AuthError, PlatformError, RateLimitError, retryAfterMs, type ReplyWriter } from './connector.ts';
import type { HttpResponse } from './http.ts';
import { segmentProblem } from './account.ts';

/** The reply's text cannot be sent as it is (empty, or beyond the platform's limit): a 400, nothing sent. */
export class ReplyTextError extends Error {
  override name = 'ReplyTextError';
}

/** A 5xx: the platform is failing now; worth another attempt (after Retry-After when it gave one). */
export class PlatformBusyError extends PlatformError {
  override name = 'PlatformBusyError';
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
  }
}

/** The text's size as the platform counts it. */
/**
 * The review already has a reply on the platform that is not the one being
 * posted (written there by a person, or through another tool), and the caller
 * asked never to replace one (the automatic-reply rule): nothing was sent.
 */
export class ReplyTakenError extends Error {
  override name = 'ReplyTakenError';
}

/** The reply found on a platform, quoted for a person (at most 280 characters, whole code points). */
export function quotedReply(text: string): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  return `“${chars.length > 280 ? `${chars.slice(0, 279).join('')}…` : chars.join('')}”`;
}

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Throws a ReplyTextError when `text` is empty or longer than `writer` takes. */
export function assertReplyFits(writer: Pick<ReplyWriter<unknown>, 'maxBytes'>, label: string, text: string): void {
  if (text.trim() === '') throw new ReplyTextError('the reply is empty: write what to answer');
  const bytes = utf8Bytes(text);
  if (writer.maxBytes !== null && bytes > writer.maxBytes) {
    throw new ReplyTextError(`the reply is ${bytes.toLocaleString('en-US')} bytes of UTF-8; ${label} takes at most ${writer.maxBytes.toLocaleString('en-US')}: shorten it by ${(bytes - writer.maxBytes).toLocaleString('en-US')}`);
  }
}

/** The review's id as one URL path segment (checked like a source's account: it must not leave its place). */
export function reviewSegment(label: string, reviewId: string): string {
  const problem = segmentProblem(reviewId);
  if (problem) throw new PlatformError(`${label}'s review id "${reviewId.slice(0, 80)}" ${problem}: this review cannot be answered through the API`);
  return encodeURIComponent(reviewId);
}

/** The platform's own words about a refusal (Google `error.message`, Trustpilot `message`), short; '' when it gave none. */
export function platformMessage(res: HttpResponse): string {
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return '';
  }
  const pick = (value: unknown): string => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim().slice(0, 300) : '');
  if (body !== null && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const inner = b.error !== null && typeof b.error === 'object' ? (b.error as Record<string, unknown>) : null;
    return pick(inner?.message) || pick(b.message) || pick(b.error_description) || pick(b.details);
  }
  return '';
}

export interface WriteAnswerOptions {
  /** The statuses that mean the stored authorization is refused (the source needs reconnecting). */
  isAuth: (res: HttpResponse) => boolean;
  /** What a 403 (not an authorization refusal) means on this platform, in words a person can act on. */
  forbidden: string;
  /** What a 404 means. */
  notFound: string;
}

/**
 * A write's answer: the parsed JSON (null for an empty body) when it is a
 * success; else the error it stands for, with the platform's own words.
 */
export function writeAnswer(res: HttpResponse, label: string, o: WriteAnswerOptions): unknown {
  const said = platformMessage(res);
  const their = said ? ` (${label} said: "${said}")` : '';
  if (res.status === 429) throw new RateLimitError(`${label} is rate limiting this account (429); the reply will be tried again${their}`, retryAfterMs(res.headers['retry-after']));
  if (o.isAuth(res)) throw new AuthError(`${label} refused the source's authorization (${res.status}): reconnect the source, then publish again${their}`);
  if (res.status >= 500) throw new PlatformBusyError(`${label} is failing (${res.status})${their}`, retryAfterMs(res.headers['retry-after']));
  if (res.status === 403) throw new PlatformError(`${label} refused to let this account reply (403): ${o.forbidden}${their}`);
  if (res.status === 404) throw new PlatformError(`${label} does not know this review (404): ${o.notFound}${their}`);
  if (res.status < 200 || res.status >= 300) throw new PlatformError(`${label} refused the reply (${res.status})${their}`);
  if (res.text.trim() === '') return null;
  try {
    return JSON.parse(res.text) as unknown;
  } catch {
    throw new PlatformError(`${label} answered something that is not JSON (${res.status}): the reply may be there: publish again to be sure (it replaces it, never adds a second)`);
  }
}
