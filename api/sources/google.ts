/**
 * Google: Business Profile API v4, `GET {GOOGLE_BUSINESS_API_URL}/v4/{accounts/a/locations/l}/reviews`
 * (`pageSize=50`, `orderBy=updateTime desc`, `pageToken`), with an access
 * token obtained from the stored refresh token at `GOOGLE_OAUTH_TOKEN_URL`
 * (grant_type=refresh_token, the operator's OAuth client; scope
 * business.manage). The access token lives for the sync only; a 401 in the
 * middle of a sync (it expired) is answered by one refresh and one retry. An
 * `invalid_grant` from the token endpoint, or a 401 with a fresh token, means
 * the person must connect again.
 */
import { accountPath } from './account.ts';
import { answerObject, AuthError, checkReply, credentialString, httpsOrNull, isObject, jsonOrThrow, listField, PlatformError, RateLimitError, retryAfterMs, ShapeError, utc, type Connector, type ConnectorContext, type ImportRecord, type ReplyWriter } from './connector.ts';
import type { HttpRequest, HttpResponse } from './http.ts';
import { assertReplyFits, quotedReply, ReplyTakenError, reviewSegment, writeAnswer } from './reply.ts';

export interface GoogleCredentials {
  refreshToken: string;
}

export interface GoogleReview {
  name?: string;
  reviewId: string;
  reviewer?: { displayName?: string | null; profilePhotoUrl?: string | null; isAnonymous?: boolean } | null;
  starRating?: 'STAR_RATING_UNSPECIFIED' | 'ONE' | 'TWO' | 'THREE' | 'FOUR' | 'FIVE' | string;
  comment?: string | null;
  createTime: string;
  updateTime?: string | null;
  /** The business's answer (checked by fetchPage: connector.ts checkReply). */
  reviewReply?: { comment: string; updateTime: string } | null;
}

const STARS: Record<string, number> = { ONE: 1, TWO: 2, THREE: 3, FOUR: 4, FIVE: 5 };

const TRANSLATED = '(Translated by Google)';
const ORIGINAL = '(Original)';

/**
 * Where Google added a machine translation only the original text is kept:
 * `(Translated by Google) <translation>\n\n(Original)\n<original>`, and the
 * other order, `<original>\n\n(Translated by Google)\n<translation>`.
 */
export function originalText(comment: string): string {
  const text = comment.trim();
  const o = text.indexOf(ORIGINAL);
  const t = text.indexOf(TRANSLATED);
  if (t === -1) return text;
  if (o !== -1 && o > t) return text.slice(o + ORIGINAL.length).trim();
  if (o !== -1 && o < t) return text.slice(o + ORIGINAL.length, t).trim();
  return t > 0 ? text.slice(0, t).trim() : text.slice(TRANSLATED.length).trim();
}

export function mapGoogle(r: GoogleReview): ImportRecord {
  const anonymous = r.reviewer?.isAnonymous === true;
  return {
    platform: 'GOOGLE',
    externalId: r.reviewId,
    authorName: anonymous ? 'A Google user' : r.reviewer?.displayName?.trim() || 'A Google user',
    authorAvatar: anonymous ? null : httpsOrNull(r.reviewer?.profilePhotoUrl),
    rating: STARS[r.starRating ?? ''] ?? null,
    content: originalText(r.comment ?? ''),
    date: utc(r.createTime),
    url: null,
    isVerified: false,
    replyText: r.reviewReply ? r.reviewReply.comment : null,
    replyDate: r.reviewReply ? utc(r.reviewReply.updateTime) : null,
  };
}

const TOKEN_KEY = 'google.accessToken';

async function accessToken(ctx: ConnectorContext<GoogleCredentials>, fresh = false): Promise<string> {
  const kept = ctx.session.get(TOKEN_KEY) as string | undefined;
  if (kept && !fresh) return kept;
  if (!ctx.googleOAuth) throw new PlatformError('Google sources need the operator\'s OAuth client: set GOOGLE_OAUTH_CLIENT_ID and GOOGLE_OAUTH_CLIENT_SECRET');
  const body = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: ctx.credentials.refreshToken,
    client_id: ctx.googleOAuth.clientId,
    client_secret: ctx.googleOAuth.clientSecret,
  }).toString();
  const res = await ctx.http.call(ctx.urls.googleToken, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  if (res.status === 400 || res.status === 401) {
    let error = '';
    try {
      error = String((JSON.parse(res.text) as { error?: string }).error ?? '');
    } catch {
      // Named by status below.
    }
    if (error === 'invalid_grant' || res.status === 401) throw new AuthError('Google refused the stored authorization (invalid_grant: revoked, expired or the password changed): reconnect the source');
  }
  const token = jsonOrThrow<{ access_token?: string }>(res, 'Google\'s token endpoint').access_token;
  if (!token) throw new PlatformError('Google\'s token endpoint answered without an access token');
  ctx.session.set(TOKEN_KEY, token);
  return token;
}

/** A call with the access token; a 401 (it expired) answered by one refresh and one retry. */
async function authorized(ctx: ConnectorContext<GoogleCredentials>, url: string, init: HttpRequest): Promise<HttpResponse> {
  const call = async (fresh: boolean) => ctx.http.call(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${await accessToken(ctx, fresh)}` } });
  const res = await call(false);
  return res.status === 401 ? call(true) : res;
}

const replyWords = {
  isAuth: (r: HttpResponse) => r.status === 401,
  forbidden: 'Google lets a project reply only once it approved the project\'s Business Profile API access, and only for a verified location the connected Google account manages',
  notFound: 'it may have been removed on Google; the next sync shows it',
};

/**
 * Replies (CONTRACT §15): `PUT …/reviews/{reviewId}/reply` `{"comment"}`
 * creates the reply or replaces the one there, so a second call after a lost
 * answer never makes two; it answers the ReviewReply `{comment, updateTime}`.
 * With `replace: false` the review is read first (`GET …/reviews/{id}`, its
 * `reviewReply`) and another reply there is refused (ReplyTakenError).
 * `DELETE` the same path answers `{}`. At most 4,096 bytes of UTF-8.
 */
export const googleReplies: ReplyWriter<GoogleCredentials> = {
  maxBytes: 4096,
  missing: () => null,
  async publish(ctx, reviewId, text, options = {}) {
    assertReplyFits(googleReplies, 'Google', text);
    const review = `${ctx.urls.googleBusiness}/v4/${accountPath('GOOGLE', ctx.account)}/reviews/${reviewSegment('Google', reviewId)}`;
    const url = `${review}/reply`;
    if (options.replace === false) {
      // Never replacing (the automatic-reply rule): the review is read first (`GET …/reviews/{id}`); a reply with other words there is left as it is.
      const body = writeAnswer(await authorized(ctx, review, {}), 'Google', replyWords);
      if (!isObject(body)) throw new ShapeError('Google', 'the review is not a Review object');
      const there = body.reviewReply;
      if (there !== undefined && there !== null) {
        if (!isObject(there) || typeof there.comment !== 'string') throw new ShapeError('Google', '"reviewReply" without its comment');
        if (there.comment !== text) throw new ReplyTakenError(`Google already shows another reply to this review (written there, or by another tool), ${quotedReply(there.comment)}: it was left as it is`);
      }
    }
    const res = await authorized(ctx, url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ comment: text }) });
    const body = writeAnswer(res, 'Google', replyWords);
    if (!isObject(body)) throw new ShapeError('Google', 'the reply\'s answer is not a ReviewReply object');
    if (typeof body.comment !== 'string') throw new ShapeError('Google', 'the ReviewReply has no "comment"');
    const time = body.updateTime;
    if (time !== undefined && (typeof time !== 'string' || Number.isNaN(Date.parse(time)))) throw new ShapeError('Google', '"updateTime" is not a time');
    return { date: typeof time === 'string' ? utc(time) : null };
  },
  async remove(ctx, reviewId) {
    const url = `${ctx.urls.googleBusiness}/v4/${accountPath('GOOGLE', ctx.account)}/reviews/${reviewSegment('Google', reviewId)}/reply`;
    const res = await authorized(ctx, url, { method: 'DELETE' });
    // No reply there (already removed, on Google or by an earlier attempt whose answer was lost): what was asked for.
    if (res.status === 404) return;
    const body = writeAnswer(res, 'Google', replyWords);
    if (body !== null && !isObject(body)) throw new ShapeError('Google', 'the removal\'s answer is not an object');
  },
};

export const google: Connector<GoogleCredentials, GoogleReview> = {
  platform: 'GOOGLE',
  credentialFields: ['refreshToken'],
  removal: true,
  parseCredentials: (raw) => ({ refreshToken: credentialString(raw, 'refreshToken') }),
  async fetchPage(ctx, next) {
    const url = `${ctx.urls.googleBusiness}/v4/${accountPath('GOOGLE', ctx.account)}/reviews?pageSize=50&orderBy=${encodeURIComponent('updateTime desc')}${next ? `&pageToken=${encodeURIComponent(next)}` : ''}`;
    let res = await ctx.http.call(url, { headers: { authorization: `Bearer ${await accessToken(ctx)}` } });
    // The access token expired during the sync: one refresh, one retry.
    if (res.status === 401) res = await ctx.http.call(url, { headers: { authorization: `Bearer ${await accessToken(ctx, true)}` } });
    if (res.status === 429) throw new RateLimitError('Google is rate limiting this project (429)', retryAfterMs(res.headers['retry-after']));
    const body = answerObject(jsonOrThrow<unknown>(res, 'Google', (r) => r.status === 401), 'Google');
    // Google's JSON leaves an empty list out: a listing without `reviews` is empty only when it says so (`totalReviewCount: 0`).
    const records = body.reviews === undefined && body.totalReviewCount === 0 && body.nextPageToken === undefined ? [] : listField<GoogleReview>(body, 'reviews', 'Google');
    checkReply(records as unknown as Record<string, unknown>[], 'reviewReply', 'comment', ['updateTime'], 'Google');
    // An empty page that still names a next one is not the end (sync.ts reads on, up to a bound).
    const token = body.nextPageToken;
    if (token !== undefined && typeof token !== 'string') throw new ShapeError('Google', '"nextPageToken" is not a string');
    return { records, next: token !== undefined && token !== '' ? token : null };
  },
  map: mapGoogle,
  cursorTime: (r) => utc(r.updateTime ?? r.createTime),
  replies: googleReplies,
};
