/**
 * The reply writers (CONTRACT §15) against the local HTTPS fakes of Google and
 * Trustpilot (testing/platform-fake.ts): the documented requests, the limit
 * checked before any request, Trustpilot's business-user token kept between
 * calls, a reply never posted twice, and each refusal as the error the
 * replies job acts on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuthError, PlatformError, RateLimitError, ShapeError, type ConnectorContext } from './connector.ts';
import { googleReviews } from './fixtures.ts';
import { googleReplies, type GoogleCredentials } from './google.ts';
import { HttpClient, NetworkError } from './http.ts';
import { PlatformBusyError, ReplyTextError } from './reply.ts';
import { PlatformFake } from './testing/platform-fake.ts';
import { trustpilotReviews } from './testing/generate.ts';
import { parseTrustpilotCredentials, trustpilotReplies, type TrustpilotCredentials } from './trustpilot.ts';

let fake: PlatformFake;
let http: HttpClient;

beforeAll(async () => {
  fake = await PlatformFake.start();
  http = new HttpClient({ extraCa: [fake.ca] });
}, 60_000);
afterAll(async () => {
  http.close();
  await fake.close();
});

const LOCATION = 'accounts/1/locations/2';

function googleCtx(): ConnectorContext<GoogleCredentials> {
  return { account: LOCATION, credentials: { refreshToken: fake.keys.googleRefresh }, http, urls: fake.urls(), googleOAuth: { clientId: 'c', clientSecret: 's' }, session: new Map() };
}

function trustpilotCtx(session = new Map<string, unknown>(), credentials?: TrustpilotCredentials): ConnectorContext<TrustpilotCredentials> {
  return {
    account: 'bu-1',
    credentials: credentials ?? { apiKey: fake.keys.trustpilot, apiSecret: fake.keys.trustpilotSecret, businessUserId: fake.keys.trustpilotBusinessUser },
    http, urls: fake.urls(), googleOAuth: null, session,
  };
}

beforeEach(() => {
  fake.google = googleReviews.map((r) => ({ ...r }));
  fake.trustpilot = trustpilotReviews(3);
  fake.googleReplies.clear();
  fake.trustpilotReplies.clear();
  fake.trustpilotPosts.length = 0;
  fake.requests.length = 0;
  for (const key of Object.keys(fake.forced)) delete fake.forced[key as keyof typeof fake.forced];
});

describe('Google replies', () => {
  it('PUTs {"comment"} to the review\'s /reply and answers Google\'s updateTime', async () => {
    const id = fake.google[0]!.reviewId;
    const out = await googleReplies.publish(googleCtx(), id, 'Thank you, Ana!');
    expect(fake.googleReplies.get(id)?.text).toBe('Thank you, Ana!');
    expect(out.date).toBe(fake.googleReplies.get(id)!.at);
    const put = fake.requests.find((r) => r.platform === 'google-reply');
    expect(put).toMatchObject({ method: 'PUT', path: `/v4/${LOCATION}/reviews/${encodeURIComponent(id)}/reply` });
  });

  it('refuses a reply over 4,096 bytes of UTF-8 before any request (the fake counts none)', async () => {
    const id = fake.google[0]!.reviewId;
    // 2,049 two-byte characters: 2,049 characters, 4,098 bytes.
    const text = 'é'.repeat(2049);
    await expect(googleReplies.publish(googleCtx(), id, text)).rejects.toThrow(ReplyTextError);
    await expect(googleReplies.publish(googleCtx(), id, text)).rejects.toThrow(/4,098 bytes.*at most 4,096/);
    expect(fake.requests).toHaveLength(0);
    // Exactly at the limit: sent.
    await googleReplies.publish(googleCtx(), id, 'é'.repeat(2048));
    expect(fake.googleReplies.get(id)?.text).toHaveLength(2048);
  });

  it('publishing again replaces the reply (PUT is idempotent: one reply)', async () => {
    const id = fake.google[0]!.reviewId;
    const ctx = googleCtx();
    await googleReplies.publish(ctx, id, 'First');
    await googleReplies.publish(ctx, id, 'First');
    expect(fake.googleReplies.size).toBe(1);
    expect(fake.googleReplies.get(id)?.text).toBe('First');
  });

  it('DELETE removes the reply; a reply already gone is no error', async () => {
    const id = fake.google[0]!.reviewId;
    const ctx = googleCtx();
    await googleReplies.publish(ctx, id, 'Bye');
    await googleReplies.remove(ctx, id);
    expect(fake.googleReplies.has(id)).toBe(false);
    await googleReplies.remove(ctx, id);
    expect(fake.requests.filter((r) => r.platform === 'google-reply' && r.method === 'DELETE')).toHaveLength(2);
  });

  it('a refused refresh token is an AuthError; 401 twice too', async () => {
    const ctx = googleCtx();
    ctx.credentials = { refreshToken: 'revoked' };
    await expect(googleReplies.publish(ctx, fake.google[0]!.reviewId, 'x')).rejects.toThrow(AuthError);
    const unauthorized = { status: 401, body: { error: { code: 401, status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' } } };
    fake.force('google-reply', unauthorized, unauthorized);
    await expect(googleReplies.publish(googleCtx(), fake.google[0]!.reviewId, 'x')).rejects.toThrow(AuthError);
  });

  it('429 carries Retry-After; 5xx is a PlatformBusyError; 403 and 404 say what to do; a malformed answer is a ShapeError', async () => {
    const id = fake.google[0]!.reviewId;
    fake.force('google-reply', { status: 429, headers: { 'retry-after': '7' }, body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded.' } } });
    const limited = await googleReplies.publish(googleCtx(), id, 'x').catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfterMs).toBe(7000);
    fake.force('google-reply', { status: 503, body: { error: { code: 503, status: 'UNAVAILABLE', message: 'The service is currently unavailable.' } } });
    await expect(googleReplies.publish(googleCtx(), id, 'x')).rejects.toThrow(PlatformBusyError);
    fake.force('google-reply', { status: 403, body: { error: { code: 403, status: 'PERMISSION_DENIED', message: 'The caller does not have permission' } } });
    const denied = await googleReplies.publish(googleCtx(), id, 'x').catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(PlatformError);
    expect(denied).not.toBeInstanceOf(AuthError);
    expect((denied as Error).message).toMatch(/approved the project.*The caller does not have permission/);
    await expect(googleReplies.publish(googleCtx(), 'no-such-review', 'x')).rejects.toThrow(/does not know this review \(404\)/);
    fake.malformed('google-reply', { reply: 'ok' });
    await expect(googleReplies.publish(googleCtx(), id, 'x')).rejects.toThrow(ShapeError);
  });
});

describe('Trustpilot replies', () => {
  it('gets a business-user token (client credentials, Basic key:secret) and POSTs {authorBusinessUserId, message}', async () => {
    const id = fake.trustpilot[0]!.id;
    const out = await trustpilotReplies.publish(trustpilotCtx(), id, 'Thanks for the stars');
    expect(fake.trustpilotPosts).toEqual([{ reviewId: id, message: 'Thanks for the stars', authorBusinessUserId: fake.keys.trustpilotBusinessUser }]);
    // 201 without a body: no platform time (the service's clock decides).
    expect(out.date).toBeNull();
    expect(fake.requests.map((r) => `${r.method} ${r.platform}`)).toEqual(['POST trustpilot-token', 'GET trustpilot-review', 'POST trustpilot-reply']);
  });

  it('keeps the token until shortly before it expires: one token request for many replies', async () => {
    const session = new Map<string, unknown>();
    for (const review of fake.trustpilot) await trustpilotReplies.publish(trustpilotCtx(session), review.id, `Thanks ${review.id}`);
    expect(fake.count('trustpilot-token')).toBe(1);
    expect(fake.trustpilotPosts).toHaveLength(3);
    // A token that lives 60 s is kept for at most 54 s (a tenth of its life as margin): here, already past for a 0-second life.
    fake.trustpilotTokenLife = '1';
    const short = new Map<string, unknown>();
    await trustpilotReplies.publish(trustpilotCtx(short), fake.trustpilot[0]!.id, 'Again, new text');
    await new Promise((r) => setTimeout(r, 1100));
    await trustpilotReplies.remove(trustpilotCtx(short), fake.trustpilot[0]!.id);
    expect(fake.count('trustpilot-token')).toBe(3);
    fake.trustpilotTokenLife = '359999';
  });

  it('never posts a second reply: its own text already there is the outcome (a lost answer); another reply is removed first', async () => {
    const id = fake.trustpilot[0]!.id;
    const session = new Map<string, unknown>();
    fake.loseAnswers['trustpilot-reply'] = 1;
    await expect(trustpilotReplies.publish(trustpilotCtx(session), id, 'Sorry to hear it')).rejects.toThrow(NetworkError);
    // Trustpilot took it although we never heard back.
    expect(fake.trustpilotPosts).toHaveLength(1);
    await trustpilotReplies.publish(trustpilotCtx(session), id, 'Sorry to hear it');
    expect(fake.trustpilotPosts).toHaveLength(1);
    await trustpilotReplies.publish(trustpilotCtx(session), id, 'Edited answer');
    expect(fake.trustpilotReplies.get(id)?.text).toBe('Edited answer');
    expect(fake.requests.filter((r) => r.platform === 'trustpilot-reply').map((r) => r.method)).toEqual(['POST', 'DELETE', 'POST']);
  });

  it('a read-only source says what it lacks, and nothing is sent', async () => {
    const creds = parseTrustpilotCredentials({ apiKey: fake.keys.trustpilot });
    expect(trustpilotReplies.missing(creds)).toMatch(/apiSecret and businessUserId/);
    await expect(trustpilotReplies.publish(trustpilotCtx(new Map(), creds), fake.trustpilot[0]!.id, 'x')).rejects.toThrow(/reconnect the source with apiSecret and businessUserId/);
    expect(fake.requests).toHaveLength(0);
    expect(parseTrustpilotCredentials({ apiKey: 'k', apiSecret: ' s ', businessUserId: '' })).toEqual({ apiKey: 'k', apiSecret: 's' });
    expect(() => parseTrustpilotCredentials({ apiKey: 'k', apiSecret: 5 })).toThrow(/"apiSecret" must be a string/);
  });

  it('a wrong secret is an AuthError; 401 with a fresh token too; 403 names the API module', async () => {
    await expect(trustpilotReplies.publish(trustpilotCtx(new Map(), { apiKey: fake.keys.trustpilot, apiSecret: 'wrong', businessUserId: 'u' }), fake.trustpilot[0]!.id, 'x')).rejects.toThrow(AuthError);
    fake.force('trustpilot-review', { status: 401, body: { message: 'Unauthorized' } }, { status: 401, body: { message: 'Unauthorized' } });
    await expect(trustpilotReplies.publish(trustpilotCtx(), fake.trustpilot[0]!.id, 'x')).rejects.toThrow(AuthError);
    await expect(trustpilotReplies.publish(trustpilotCtx(new Map(), { apiKey: fake.keys.trustpilot, apiSecret: fake.keys.trustpilotSecret, businessUserId: 'someone-else' }), fake.trustpilot[0]!.id, 'x')).rejects.toThrow(/API module.*not allowed to reply/);
    fake.force('trustpilot-reply', { status: 500, body: { message: 'Internal error' } });
    await expect(trustpilotReplies.publish(trustpilotCtx(), fake.trustpilot[1]!.id, 'x')).rejects.toThrow(PlatformBusyError);
  });
});

describe('connecting Trustpilot with reply credentials', () => {
  it('proves the API secret with one token request; a wrong one is a 400 and nothing is saved', async () => {
    const { verifyCredentials } = await import('./verify.ts');
    const access = { http, urls: fake.urls(), googleOAuth: null };
    await verifyCredentials(access, 'org_1', 'TRUSTPILOT', 'bu-1', { apiKey: fake.keys.trustpilot, apiSecret: fake.keys.trustpilotSecret, businessUserId: 'u' });
    expect(fake.count('trustpilot-token')).toBe(1);
    const refused = await verifyCredentials(access, 'org_1', 'TRUSTPILOT', 'bu-1', { apiKey: fake.keys.trustpilot, apiSecret: 'wrong-secret-raw' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 400, code: 'credentials_refused' });
    expect((refused as Error).message).toBe('Trustpilot refused the API key and API secret (to reply) (HTTP 401): check it and try again. Nothing was saved.');
    // Read-only credentials: no token request.
    await verifyCredentials(access, 'org_1', 'TRUSTPILOT', 'bu-1', { apiKey: fake.keys.trustpilot });
    expect(fake.count('trustpilot-token')).toBe(2);
  });
});
