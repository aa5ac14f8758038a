/**
 * Trustpilot: Business Units API, `GET {TRUSTPILOT_API_URL}/v1/business-units/{id}/reviews`
 * with the `apikey` header, `orderBy=createdat.desc`, `perPage=100`, `page=N`
 * (the answer's `links` holds a `next-page` link while there is one).
 *
 * Replies (CONTRACT §15) use the private API with a business user's token:
 * `POST {TRUSTPILOT_API_URL}/v1/oauth/oauth-business-users-for-applications/accesstoken`
 * (`grant_type=client_credentials`, Basic `apiKey:apiSecret`; no refresh
 * token: asked for again shortly before `expires_in` runs out), then `POST` /
 * `DELETE /v1/private/reviews/{id}/reply` with `{"authorBusinessUserId","message"}`.
 */
import { createHash } from 'node:crypto';
import { accountPath } from './account.ts';
import { answerObject, checkReply, CredentialsError, credentialString, httpsOrNull, isObject, jsonOrThrow, listField, PlatformError, ShapeError, utc, type Connector, type ConnectorContext, type ImportRecord, type ReplyWriter } from './connector.ts';
import type { HttpRequest, HttpResponse } from './http.ts';
import { assertReplyFits, reviewSegment, writeAnswer, ReplyTakenError, quotedReply } from './reply.ts';

export interface TrustpilotCredentials {
  apiKey: string;
  /** The application's API secret: only to reply (the token endpoint's Basic authentication). */
  apiSecret?: string;
  /** The business user a reply is posted as (`authorBusinessUserId`): only to reply. */
  businessUserId?: string;
}

/** An optional credentials field: absent or blank → undefined; anything but a string → a CredentialsError. */
function optionalCredential(raw: unknown, field: string): string | undefined {
  const value = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>)[field] : undefined;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new CredentialsError(`the credentials JSON's "${field}" must be a string`);
  return value.trim() === '' ? undefined : value.trim();
}

export function parseTrustpilotCredentials(raw: unknown): TrustpilotCredentials {
  const apiKey = credentialString(raw, 'apiKey');
  const apiSecret = optionalCredential(raw, 'apiSecret');
  const businessUserId = optionalCredential(raw, 'businessUserId');
  return { apiKey, ...(apiSecret !== undefined && { apiSecret }), ...(businessUserId !== undefined && { businessUserId }) };
}

export interface TrustpilotReview {
  id: string;
  stars?: number | null;
  title?: string | null;
  text?: string | null;
  createdAt: string;
  updatedAt?: string | null;
  isVerified?: boolean;
  verificationLevel?: string;
  consumer?: { id?: string; displayName?: string | null; imageUrl?: string | null } | null;
  /** The business's answer (checked by fetchPage: connector.ts checkReply); its date is `updatedAt`, else `createdAt`. */
  companyReply?: { text: string; createdAt?: string | null; updatedAt?: string | null } | null;
}

export const PER_PAGE = 100;

/** "Great service" / "Great service, fast delivery": a title that is the text's start adds nothing. */
function repeatsStart(title: string, text: string): boolean {
  const t = title.replace(/(\.\.\.|…)$/u, '').trim().toLowerCase();
  return t !== '' && text.trim().toLowerCase().startsWith(t);
}

export function trustpilotContent(title: string, text: string): string {
  const ti = title.trim();
  const tx = text.trim();
  if (ti === '' || repeatsStart(ti, tx)) return tx;
  if (tx === '') return ti;
  return `${ti}\n\n${tx}`;
}

export function mapTrustpilot(r: TrustpilotReview): ImportRecord {
  return {
    platform: 'TRUSTPILOT',
    externalId: r.id,
    authorName: r.consumer?.displayName?.trim() || 'A Trustpilot user',
    authorAvatar: httpsOrNull(r.consumer?.imageUrl),
    rating: typeof r.stars === 'number' ? r.stars : null,
    content: trustpilotContent(r.title ?? '', r.text ?? ''),
    date: utc(r.createdAt),
    url: `https://www.trustpilot.com/reviews/${encodeURIComponent(r.id)}`,
    isVerified: r.isVerified === true || r.verificationLevel === 'verified',
    replyText: r.companyReply ? r.companyReply.text : null,
    replyDate: r.companyReply ? utc(r.companyReply.updatedAt ?? r.companyReply.createdAt) : null,
  };
}

/**
 * `links`: a list of `{href, method, rel}`; a `next-page` link (with its
 * address) while more follow, even after an empty page (sync.ts reads on, up to
 * a bound). Absent: no next page. Anything else is not the documented shape.
 */
function nextPage(links: unknown, page: number): string | null {
  if (links === undefined) return null;
  if (!Array.isArray(links)) throw new ShapeError('Trustpilot', '"links" is not a list');
  let more = false;
  for (const link of links) {
    if (!isObject(link)) throw new ShapeError('Trustpilot', 'a link that is not an object');
    if (link.rel !== 'next-page') continue;
    if (typeof link.href !== 'string' || link.href === '') throw new ShapeError('Trustpilot', 'a next-page link without an address');
    more = true;
  }
  return more ? String(page + 1) : null;
}

/** A token is asked for again this long before Trustpilot said it expires (at most a tenth of its life). */
export const TOKEN_MARGIN_MS = 5 * 60_000;

interface KeptToken {
  token: string;
  /** Epoch ms after which it is not used any more. */
  until: number;
}

/** Where the token is kept in the context's session: per API key and secret, so new credentials never use an old token. */
function tokenKey(c: TrustpilotCredentials): string {
  return `trustpilot.token:${createHash('sha256').update(`${c.apiKey}\u0000${c.apiSecret ?? ''}`).digest('base64url').slice(0, 16)}`;
}

/** `expires_in` in seconds: a number, or a string of digits (Trustpilot's documented answer writes `"359999"`). */
function expiresInSeconds(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  if (typeof value === 'string' && /^\d+$/.test(value.trim()) && Number(value) > 0) return Number(value);
  return null;
}

async function businessToken(ctx: ConnectorContext<TrustpilotCredentials>, fresh: boolean): Promise<string> {
  const key = tokenKey(ctx.credentials);
  const kept = ctx.session.get(key) as KeptToken | undefined;
  if (kept && !fresh && Date.now() < kept.until) return kept.token;
  const { apiKey, apiSecret } = ctx.credentials;
  // Not an AuthError: a read-only source still reads; it cannot reply until reconnected with the secret.
  if (!apiSecret) throw new PlatformError(trustpilotReplies.missing(ctx.credentials) ?? 'Trustpilot replies need the application\'s API secret');
  const res = await ctx.http.call(`${ctx.urls.trustpilot}/v1/oauth/oauth-business-users-for-applications/accesstoken`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${apiKey}:${apiSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
  });
  // Trustpilot answers a wrong key or secret with 400/401 (invalid_client): the person must reconnect.
  const body = answerObject(jsonOrThrow<unknown>(res, 'Trustpilot\'s token endpoint', (r) => r.status === 400 || r.status === 401 || r.status === 403), 'Trustpilot\'s token endpoint');
  const token = body.access_token;
  if (typeof token !== 'string' || token === '') throw new ShapeError('Trustpilot\'s token endpoint', 'no "access_token"');
  const seconds = expiresInSeconds(body.expires_in);
  if (seconds === null) throw new ShapeError('Trustpilot\'s token endpoint', '"expires_in" is not a number of seconds');
  const lifeMs = seconds * 1000;
  ctx.session.set(key, { token, until: Date.now() + lifeMs - Math.min(TOKEN_MARGIN_MS, lifeMs / 10) } satisfies KeptToken);
  return token;
}

/** A private-API call with the business user's token; a 401 with a kept token (revoked early) is answered by one new token and one retry. */
async function privateCall(ctx: ConnectorContext<TrustpilotCredentials>, url: string, init: HttpRequest): Promise<HttpResponse> {
  const call = async (fresh: boolean) => ctx.http.call(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${await businessToken(ctx, fresh)}` } });
  const res = await call(false);
  return res.status === 401 ? call(true) : res;
}

const replyWords = {
  isAuth: (r: HttpResponse) => r.status === 401,
  forbidden: 'the Trustpilot plan needs the API module, and businessUserId must be a user of this business unit',
  notFound: 'it may have been removed on Trustpilot, or it belongs to another business unit',
};

/** The reply on the review now (the private review's `companyReply`), or null. */
async function currentReply(ctx: ConnectorContext<TrustpilotCredentials>, id: string): Promise<{ text: string; date: string | null } | null> {
  const res = await privateCall(ctx, `${ctx.urls.trustpilot}/v1/private/reviews/${id}`, {});
  const body = writeAnswer(res, 'Trustpilot', replyWords);
  if (!isObject(body)) throw new ShapeError('Trustpilot', 'the private review is not an object');
  const reply = body.companyReply;
  if (reply === undefined || reply === null) return null;
  if (!isObject(reply) || typeof reply.text !== 'string') throw new ShapeError('Trustpilot', '"companyReply" without its text');
  const at = reply.updatedAt ?? reply.createdAt;
  return { text: reply.text, date: typeof at === 'string' && !Number.isNaN(Date.parse(at)) ? utc(at) : null };
}

/**
 * Trustpilot shows one company reply per review. Never two: before posting,
 * the review's reply is read (`GET /v1/private/reviews/{id}`); our text
 * already there (an earlier attempt whose answer was lost) is the outcome, and
 * another reply there is refused with `replace: false` (ReplyTakenError), else
 * removed first, so the POST replaces rather than adds
 * whatever Trustpilot does with a second one. Costs one read per publish.
 */
export const trustpilotReplies: ReplyWriter<TrustpilotCredentials> = {
  maxBytes: null,
  missing: (c) => {
    const lacking = [!c.apiSecret && 'apiSecret', !c.businessUserId && 'businessUserId'].filter(Boolean);
    return lacking.length === 0 ? null : `Trustpilot lets a business reply only through its private API: reconnect the source with ${lacking.join(' and ')} (the application's API secret, and the id of the business user the reply is posted as)`;
  },
  async publish(ctx, reviewId, text, options = {}) {
    assertReplyFits(trustpilotReplies, 'Trustpilot', text);
    const lacking = trustpilotReplies.missing(ctx.credentials);
    if (lacking) throw new PlatformError(lacking);
    const id = reviewSegment('Trustpilot', reviewId);
    const there = await currentReply(ctx, id);
    if (there && there.text === text) return { date: there.date };
    // Another reply there, and the caller never replaces one (the automatic-reply rule): refused, nothing deleted.
    if (there && options.replace === false) throw new ReplyTakenError(`Trustpilot already shows another reply to this review (written there, or by another tool), ${quotedReply(there.text)}: it was left as it is`);
    const url = `${ctx.urls.trustpilot}/v1/private/reviews/${id}/reply`;
    if (there) writeAnswer(await privateCall(ctx, url, { method: 'DELETE' }), 'Trustpilot', replyWords);
    const res = await privateCall(ctx, url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ authorBusinessUserId: ctx.credentials.businessUserId, message: text }) });
    const body = writeAnswer(res, 'Trustpilot', replyWords);
    // 201, documented without a body; a `createdAt` (top level or in `reply`) is taken when it is a time.
    const inner = isObject(body) && isObject(body.reply) ? body.reply : body;
    const at = isObject(inner) ? inner.createdAt : undefined;
    if (at !== undefined && (typeof at !== 'string' || Number.isNaN(Date.parse(at)))) throw new PlatformError('Trustpilot accepted the reply but answered a "createdAt" that is not a time: the reply is there; the next sync shows its date');
    return { date: typeof at === 'string' ? utc(at) : null };
  },
  async prove(ctx) {
    if (ctx.credentials.apiSecret) await businessToken(ctx, true);
  },
  async remove(ctx, reviewId) {
    const lacking = trustpilotReplies.missing(ctx.credentials);
    if (lacking) throw new PlatformError(lacking);
    const res = await privateCall(ctx, `${ctx.urls.trustpilot}/v1/private/reviews/${reviewSegment('Trustpilot', reviewId)}/reply`, { method: 'DELETE' });
    if (res.status === 404) return;
    writeAnswer(res, 'Trustpilot', replyWords);
  },
};

export const trustpilot: Connector<TrustpilotCredentials, TrustpilotReview> = {
  platform: 'TRUSTPILOT',
  credentialFields: ['apiKey', 'apiSecret', 'businessUserId'],
  removal: true,
  parseCredentials: parseTrustpilotCredentials,
  async fetchPage(ctx, next) {
    const page = next === null ? 1 : Number(next);
    const url = `${ctx.urls.trustpilot}/v1/business-units/${accountPath('TRUSTPILOT', ctx.account)}/reviews?orderBy=createdat.desc&perPage=${PER_PAGE}&page=${page}`;
    const body = answerObject(jsonOrThrow<unknown>(await ctx.http.call(url, { headers: { apikey: ctx.credentials.apiKey } }), 'Trustpilot'), 'Trustpilot');
    const records = listField<TrustpilotReview>(body, 'reviews', 'Trustpilot');
    checkReply(records as unknown as Record<string, unknown>[], 'companyReply', 'text', ['updatedAt', 'createdAt'], 'Trustpilot');
    return { records, next: nextPage(body.links, page) };
  },
  map: mapTrustpilot,
  cursorTime: (r) => utc(r.createdAt),
  replies: trustpilotReplies,
};
