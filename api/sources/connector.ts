/**
 * One connector per platform (google.ts, trustpilot.ts, yelp.ts, facebook.ts,
 * g2.ts), behind this interface. A connector knows its platform's shapes and
 * nothing else: paging state, the cursor, back-off, locking and storage live
 * once, in sync.ts. `map` is a pure function (fixtures beside it, *.test.ts).
 */
import type { SourceUrls } from '../config.ts';
import type { SourcePlatform } from '../store/types.ts';
import type { HttpClient, HttpResponse } from './http.ts';

/** What `map` gives: an import record (CONTRACT §2 field names), validated like a file's record. */
export interface ImportRecord {
  platform: SourcePlatform;
  externalId: string;
  authorName: string;
  authorAvatar: string | null;
  rating: number | null;
  content: string;
  /** ISO 8601 UTC. */
  date: string;
  url: string | null;
  isVerified: boolean;
  /** The organization's public answer on the platform (CONTRACT §15), absent or null: none. */
  replyText?: string | null;
  /** When that answer was written or last changed (ISO 8601 UTC). */
  replyDate?: string | null;
}

export interface ConnectorContext<C> {
  account: string;
  credentials: C;
  http: HttpClient;
  urls: SourceUrls;
  googleOAuth: { clientId: string; clientSecret: string } | null;
  /** Per sync: what a connector keeps between its calls (Google's access token). */
  session: Map<string, unknown>;
}

export interface Page<R> {
  records: R[];
  /**
   * Where the next page starts (a token, a URL, a page number): null only at the end. A page with
   * no records that names a next one is not the end: the sync reads on (a bounded number of them).
   */
  next: string | null;
}

export interface Connector<C = unknown, R = unknown> {
  platform: SourcePlatform;
  /** The credentials JSON's fields, all strings (the dashboard's form; the CLI's stdin). */
  credentialFields: readonly string[];
  /** False where the API never lists everything (Yelp: 3 excerpts): no removal. */
  removal: boolean;
  /** The credentials JSON checked; throws a CredentialsError naming what is wrong. */
  parseCredentials(raw: unknown): C;
  /** One page, newest first, from `next` (null = the first page). */
  fetchPage(ctx: ConnectorContext<C>, next: string | null): Promise<Page<R>>;
  map(record: R): ImportRecord;
  /** The time the sync's cursor compares (ISO UTC): Google `updateTime`, else the creation time. */
  cursorTime(record: R): string;
  /** Where the platform lets a business answer its reviews (CONTRACT §15): the write beside the read (reply.ts). */
  replies?: ReplyWriter<C>;
}

/**
 * A platform's reply API (CONTRACT §15). Its limits are declared here, once,
 * and `publish` checks them before any request (reply.ts `assertReplyFits`):
 * a text too long is a ReplyTextError, and nothing is sent.
 */
export interface ReplyWriter<C> {
  /** The longest reply the platform takes, in bytes of UTF-8 (Google: 4,096); null: the platform names none. */
  maxBytes: number | null;
  /** What the stored credentials lack before this platform lets anyone reply (Trustpilot: apiSecret, businessUserId); null when nothing. */
  missing(credentials: C): string | null;
  /**
   * Posts the reply, or replaces the one there (never a second one: a call
   * after a lost answer finds its own reply and answers it). Answers the
   * reply's time as the platform gave it (ISO UTC), else null. With
   * `replace: false` (the automatic-reply rule) a reply with other words
   * already there is never replaced: a ReplyTakenError (reply.ts), nothing sent.
   */
  publish(ctx: ConnectorContext<C>, reviewId: string, text: string, options?: { replace?: boolean }): Promise<{ date: string | null }>;
  /** Removes the business's reply; a reply already gone is no error. */
  remove(ctx: ConnectorContext<C>, reviewId: string): Promise<void>;
  /** One call proving the reply credentials given (Trustpilot: a token with apiSecret), when connecting; nothing when there are none. */
  prove?(ctx: ConnectorContext<C>): Promise<void>;
}

/** The credentials given are malformed (not the platform's refusal). */
export class CredentialsError extends Error {
  override name = 'CredentialsError';
}

/** The platform refused the credentials: the source needs to be reconnected; no more calls. */
export class AuthError extends Error {
  override name = 'AuthError';
}

/** The platform's quota: wait `retryAfterMs` (from Retry-After) or back off. */
export class RateLimitError extends Error {
  override name = 'RateLimitError';
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
  }
}

/** Any other failure, in words a person can act on. */
export class PlatformError extends Error {
  override name = 'PlatformError';
}

/** Retry-After as milliseconds: seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return null;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The answer's JSON when it is a success; else the error it stands for:
 * 429 → RateLimitError, `isAuth` (401/403 by default) → AuthError, the rest → PlatformError.
 */
export function jsonOrThrow<T>(res: HttpResponse, label: string, isAuth: (res: HttpResponse) => boolean = (r) => r.status === 401 || r.status === 403): T {
  if (res.status === 429) throw new RateLimitError(`${label} is rate limiting this account (429)`, retryAfterMs(res.headers['retry-after']));
  if (isAuth(res)) throw new AuthError(`${label} refused the credentials (${res.status}): reconnect the source with new credentials`);
  if (res.status < 200 || res.status >= 300) {
    throw new PlatformError(
      res.status >= 500
        ? `${label} is failing (${res.status}); it will be tried again with back-off`
        : res.status === 404
          ? `${label} does not know this account (404): check the account id`
          : `${label} refused the request (${res.status})`,
    );
  }
  try {
    return JSON.parse(res.text) as T;
  } catch {
    throw new PlatformError(`${label} answered something that is not JSON (${res.status})`);
  }
}

/**
 * A platform answered 200 with something that is not its documented shape (the
 * list field missing or not an array, an item that is not an object, a next
 * link or page token not of the documented form). The sync fails and removes
 * nothing: an answer we do not understand never reads as an empty listing.
 */
export class ShapeError extends PlatformError {
  override name = 'ShapeError';
  /** The platform's name, and what was wrong with its answer (a reply's failure says them in its own words). */
  readonly label: string;
  readonly what: string;
  constructor(label: string, what: string) {
    super(`${label} answered something that is not its documented shape (${what}): that answer was not used and nothing was removed; it will be tried again`);
    this.label = label;
    this.what = what;
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The answer as a JSON object (a platform's list answer always is one). */
export function answerObject(body: unknown, label: string): Record<string, unknown> {
  if (!isObject(body)) throw new ShapeError(label, 'not a JSON object');
  return body;
}

/** The answer's list `field`: present, an array, every item an object. */
export function listField<T>(body: Record<string, unknown>, field: string, label: string): T[] {
  const list = body[field];
  if (list === undefined) throw new ShapeError(label, `no "${field}" list`);
  if (!Array.isArray(list)) throw new ShapeError(label, `"${field}" is not a list`);
  const bad = list.findIndex((item) => !isObject(item));
  if (bad !== -1) throw new ShapeError(label, `item ${bad + 1} of "${field}" is not an object`);
  return list as T[];
}

/** An optional object field: absent (or null) → undefined; present and not an object → not the shape. */
export function optionalObject(body: Record<string, unknown>, field: string, label: string): Record<string, unknown> | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new ShapeError(label, `"${field}" is not an object`);
  return value;
}

/**
 * An item's reply object (Google `reviewReply`, Trustpilot `companyReply`): absent or null is no
 * reply; otherwise an object whose `text` field is a string and whose date fields, where present,
 * are strings, at least one of them. Anything else is not the documented shape: the page is not used.
 */
export function checkReply(items: readonly Record<string, unknown>[], field: string, text: string, dates: readonly string[], label: string): void {
  items.forEach((item, i) => {
    const reply = item[field];
    if (reply === undefined || reply === null) return;
    const where = `item ${i + 1}'s "${field}"`;
    if (!isObject(reply)) throw new ShapeError(label, `${where} is not an object`);
    if (typeof reply[text] !== 'string') throw new ShapeError(label, `${where} has no "${text}" string`);
    if (dates.some((d) => reply[d] !== undefined && reply[d] !== null && typeof reply[d] !== 'string')) throw new ShapeError(label, `${where} has a date that is not a string`);
    if (!dates.some((d) => typeof reply[d] === 'string')) throw new ShapeError(label, `${where} has no date`);
  });
}

/** A non-empty string field of the credentials JSON. */
export function credentialString(raw: unknown, field: string): string {
  const value = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>)[field] : undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new CredentialsError(`the credentials JSON needs "${field}" (a non-empty string)`);
  return value.trim();
}

/** Only https: avatars are kept (CONTRACT §11). */
export function httpsOrNull(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  try {
    return new URL(value).protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

/** A platform date (any ISO 8601 form, `+0000` offsets included) as canonical UTC; the text unchanged when unreadable (validation rejects it). */
export function utc(value: unknown): string {
  if (typeof value !== 'string') return '';
  const fixed = value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = Date.parse(fixed);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}
