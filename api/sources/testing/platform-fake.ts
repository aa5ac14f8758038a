/**
 * Test code only: one local HTTPS server standing in for the five platforms'
 * APIs (and Google's token endpoint), serving their documented shapes from
 * lists the test controls, newest first. It checks each platform's
 * credentials the platform's way, pages as the platform pages, records every
 * request, and can be told to answer the next calls with something else (a
 * 429 with Retry-After, a 500, an expired token).
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import type { SourceUrls } from '../../config.ts';
import type { FacebookRating } from '../facebook.ts';
import type { G2SurveyResponse } from '../g2.ts';
import type { GoogleReview } from '../google.ts';
import type { TrustpilotReview } from '../trustpilot.ts';
import type { YelpReview } from '../yelp.ts';

export interface SeenRequest {
  method: string;
  path: string;
  platform: 'google' | 'google-token' | 'google-auth' | 'google-info' | 'google-review' | 'google-reply' | 'trustpilot' | 'trustpilot-token' | 'trustpilot-review' | 'trustpilot-reply' | 'yelp' | 'facebook' | 'g2' | 'unknown';
}

export interface Forced {
  status: number;
  headers?: Record<string, string>;
  /** `undefined`: an empty body (a 201 or 204 without one). */
  body: unknown;
}

/** A reply as the fake keeps it (one per review, as both platforms show one). */
export interface FakeReply {
  text: string;
  /** ISO time of the last write. */
  at: string;
}

let material: { cert: string; key: string } | null = null;

async function certificate(): Promise<{ cert: string; key: string }> {
  if (material) return material;
  const pems = await generate([{ name: 'commonName', value: 'platform-fake.localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  } as Parameters<typeof generate>[1]);
  material = { cert: pems.cert, key: pems.private };
  return material;
}

export class PlatformFake {
  google: GoogleReview[] = [];
  /** Locations (`accounts/{a}/locations/{l}`) with a list of their own, a chain's shops (the others get `google`). */
  readonly googleByLocation = new Map<string, GoogleReview[]>();
  /** The Business Profile accounts and their locations (Account Management and Business Information APIs, v1 shapes). */
  googleLocations: { account: { name: string; accountName: string }; locations: { name: string; title: string }[] }[] = [];
  trustpilot: TrustpilotReview[] = [];
  /** Business units with a list of their own (the others get `trustpilot`). */
  readonly trustpilotUnits = new Map<string, TrustpilotReview[]>();
  yelp: YelpReview[] = [];
  facebook: FacebookRating[] = [];
  g2: G2SurveyResponse[] = [];
  readonly requests: SeenRequest[] = [];
  /** Answers given instead of the real one, to the next calls of a platform. */
  readonly forced: Partial<Record<SeenRequest['platform'], Forced[]>> = {};
  /** Replies on Google, by review id (`PUT`/`DELETE …/reviews/{id}/reply`). */
  readonly googleReplies = new Map<string, FakeReply>();
  /** Replies on Trustpilot, by review id. */
  readonly trustpilotReplies = new Map<string, FakeReply>();
  /** Every reply Trustpilot accepted (each POST that answered 201): two for one review would be two replies. */
  readonly trustpilotPosts: { reviewId: string; message: string; authorBusinessUserId: string }[] = [];
  /** Trustpilot business-user tokens handed out and still valid. */
  readonly trustpilotAccess = new Set<string>();
  /** The `expires_in` the token endpoint answers (a string of seconds, as Trustpilot documents it). */
  trustpilotTokenLife = '359999';
  /** The next calls of a platform are carried out, then their answer is lost (the connection dropped before it). */
  readonly loseAnswers: Partial<Record<SeenRequest['platform'], number>> = {};
  readonly keys = { trustpilotSecret: 'tp-secret-raw-9d2b', trustpilotBusinessUser: 'tp-business-user-1', trustpilot: 'tp-key-raw-4f1c', yelp: 'yelp-key-raw-88aa', facebook: 'fb-page-token-raw-31', g2: 'g2-token-raw-77', googleRefresh: 'google-refresh-raw-5e' };
  /** Google access tokens handed out and still valid. */
  readonly googleAccess = new Set<string>();
  private issued = 0;
  /** Authorization codes handed out by the consent endpoint: what the token exchange must match (PKCE). */
  readonly googleCodes = new Map<string, { challenge: string; redirectUri: string; clientId: string }>();
  /** Calls of a platform beyond this many are never answered (a sync to kill half-way). */
  readonly hangAfter: Partial<Record<SeenRequest['platform'], number>> = {};
  /** While true, every request is recorded and held (unanswered) until `release`. */
  holding = false;
  /** While holding, only the requests whose path (and query) this accepts are held (all when null); the others are answered. */
  holdOnly: ((path: string) => boolean) | null = null;
  /** The requests held, in the order they arrived (their path and query), each with its answer to send. */
  readonly held: Array<{ path: string; answer: () => void }> = [];
  trustpilotPerPage = 100;
  googlePageSize = 50;
  facebookLimit = 100;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly ca: string,
  ) {}

  static async start(): Promise<PlatformFake> {
    const { cert, key } = await certificate();
    let fake!: PlatformFake;
    const server = createServer({ cert, key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (fake.holding && (fake.holdOnly?.(req.url ?? '/') ?? true)) {
          fake.held.push({ path: req.url ?? '/', answer: () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}') });
          return;
        }
        const answer = fake.answer(req.method ?? 'GET', new URL(req.url ?? '/', 'https://x'), req.headers, Buffer.concat(chunks).toString('utf8'));
        if (answer === null) return;
        const platform = fake.requests[fake.requests.length - 1]!.platform;
        if ((fake.loseAnswers[platform] ?? 0) > 0) {
          fake.loseAnswers[platform]!--;
          req.socket.destroy();
          return;
        }
        if (answer.body === undefined) {
          res.writeHead(answer.status, answer.headers);
          res.end();
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake = new PlatformFake(server, `https://localhost:${(server.address() as AddressInfo).port}`, cert);
    return fake;
  }

  urls(): SourceUrls {
    return {
      googleBusiness: this.url,
      googleToken: `${this.url}/token`,
      googleAuthorize: `${this.url}/o/oauth2/v2/auth`,
      googleAccounts: this.url,
      googleLocations: this.url,
      trustpilot: this.url,
      yelp: this.url,
      facebook: `${this.url}/v21.0`,
      g2: this.url,
    };
  }

  /** Requests to one platform so far. */
  count(platform: SeenRequest['platform']): number {
    return this.requests.filter((r) => r.platform === platform).length;
  }

  force(platform: SeenRequest['platform'], ...answers: Forced[]): void {
    (this.forced[platform] ??= []).push(...answers);
  }

  /** The next calls of a platform answer 200 with these bodies (a malformed listing: `{}`, an error message, a list that is not one). */
  malformed(platform: SeenRequest['platform'], ...bodies: unknown[]): void {
    this.force(platform, ...bodies.map((body) => ({ status: 200, body })));
  }

  /** Answers (200, `{}`) the requests held so far, and holds no more. */
  release(): void {
    this.holding = false;
    this.holdOnly = null;
    for (const { answer } of this.held.splice(0)) answer();
  }

  /** Every Google access token handed out stops working (they expired). */
  expireGoogleTokens(): void {
    this.googleAccess.clear();
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private answer(method: string, url: URL, headers: Record<string, string | string[] | undefined>, body: string): Forced | null {
    const path = url.pathname;
    const platform: SeenRequest['platform'] = path === '/token'
      ? 'google-token'
      : path.startsWith('/v4/') && path.endsWith('/reply')
        ? 'google-reply'
        : path === '/v1/oauth/oauth-business-users-for-applications/accesstoken'
          ? 'trustpilot-token'
          : path.startsWith('/v1/private/reviews/')
            ? path.endsWith('/reply')
              ? 'trustpilot-reply'
              : 'trustpilot-review'
      : path === '/o/oauth2/v2/auth'
        ? 'google-auth'
        : path.startsWith('/v1/accounts')
          ? 'google-info'
          : /^\/v4\/.+\/reviews\/[^/]+$/.test(path)
            ? 'google-review'
          : path.startsWith('/v4/')
        ? 'google'
        : path.startsWith('/v1/business-units/')
          ? 'trustpilot'
          : path.startsWith('/v3/businesses/')
            ? 'yelp'
            : path.startsWith('/v21.0/')
              ? 'facebook'
              : path.startsWith('/api/v1/products/')
                ? 'g2'
                : 'unknown';
    this.requests.push({ method, path: `${path}${url.search}`, platform });
    const limit = this.hangAfter[platform];
    if (limit !== undefined && this.count(platform) > limit) return null;
    const forced = this.forced[platform]?.shift();
    if (forced) return forced;
    const q = url.searchParams;
    const auth = String(headers.authorization ?? '');
    switch (platform) {
      case 'google-auth': {
        // Consent given at once: back to the redirect URI with a code bound to the PKCE challenge.
        const redirect = q.get('redirect_uri') ?? '';
        if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') || !redirect) return { status: 400, body: { error: 'invalid_request' } };
        const code = `4/fake-code-${++this.issued}`;
        this.googleCodes.set(code, { challenge: q.get('code_challenge')!, redirectUri: redirect, clientId: q.get('client_id') ?? '' });
        const back = new URL(redirect);
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') ?? '');
        back.searchParams.set('scope', q.get('scope') ?? '');
        return { status: 302, headers: { location: back.toString() }, body: {} };
      }
      case 'google-token': {
        const form = new URLSearchParams(body);
        if (form.get('grant_type') === 'authorization_code') {
          const issued = this.googleCodes.get(form.get('code') ?? '');
          this.googleCodes.delete(form.get('code') ?? '');
          const verifier = form.get('code_verifier') ?? '';
          if (!issued || issued.redirectUri !== form.get('redirect_uri') || issued.clientId !== form.get('client_id') || createHash('sha256').update(verifier).digest('base64url') !== issued.challenge) {
            return { status: 400, body: { error: 'invalid_grant', error_description: 'Bad Request' } };
          }
          const token = `ya29.fake-${++this.issued}`;
          this.googleAccess.add(token);
          return { status: 200, body: { access_token: token, refresh_token: this.keys.googleRefresh, expires_in: 3599, token_type: 'Bearer', scope: 'https://www.googleapis.com/auth/business.manage' } };
        }
        if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== this.keys.googleRefresh) return { status: 400, body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } };
        const token = `ya29.fake-${++this.issued}`;
        this.googleAccess.add(token);
        return { status: 200, body: { access_token: token, expires_in: 3599, token_type: 'Bearer', scope: 'https://www.googleapis.com/auth/business.manage' } };
      }
      case 'google-info': {
        if (!this.googleAccess.has(auth.replace(/^Bearer /, ''))) return { status: 401, body: { error: { code: 401, status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' } } };
        if (path === '/v1/accounts') return { status: 200, body: { accounts: this.googleLocations.map((g) => ({ ...g.account, type: 'LOCATION_GROUP' })) } };
        const account = this.googleLocations.find((g) => path === `/v1/${g.account.name}/locations`);
        if (!account) return { status: 404, body: { error: { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.' } } };
        if (!q.get('readMask')) return { status: 400, body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Request contains an invalid argument.' } } };
        return { status: 200, body: { locations: account.locations } };
      }
      case 'google': {
        if (!this.googleAccess.has(auth.replace(/^Bearer /, ''))) return { status: 401, body: { error: { code: 401, status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' } } };
        // `/v4/{accounts/a/locations/l}/reviews`: the location's own list when it has one.
        const location = path.slice('/v4/'.length, path.lastIndexOf('/reviews')).split('/').map(decodeURIComponent).join('/');
        const sorted = [...(this.googleByLocation.get(location) ?? this.google)].sort((a, b) => (b.updateTime ?? b.createTime).localeCompare(a.updateTime ?? a.createTime));
        const from = Number(q.get('pageToken') ?? 0);
        const size = Math.min(Number(q.get('pageSize') ?? 50), this.googlePageSize);
        const reviews = sorted.slice(from, from + size);
        return { status: 200, body: { reviews, averageRating: 4.2, totalReviewCount: sorted.length, ...(from + size < sorted.length && { nextPageToken: String(from + size) }) } };
      }
      case 'google-review': {
        // `GET …/reviews/{reviewId}`: one Review, its `reviewReply` the one written through the reply endpoint, else its own.
        if (!this.googleAccess.has(auth.replace(/^Bearer /, ''))) return { status: 401, body: { error: { code: 401, status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' } } };
        const reviewId = decodeURIComponent(path.split('/')[7] ?? '');
        const review = [...this.google, ...[...this.googleByLocation.values()].flat()].find((r) => r.reviewId === reviewId);
        if (!review || method !== 'GET') return { status: 404, body: { error: { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.' } } };
        const written = this.googleReplies.get(reviewId);
        const { reviewReply, ...rest } = review;
        const reply = written ? { comment: written.text, updateTime: written.at } : reviewReply;
        return { status: 200, body: { ...rest, ...(reply && { reviewReply: reply }) } };
      }
      case 'google-reply': {
        // PUT creates or replaces the reply (ReviewReply {comment, updateTime}); DELETE removes it ({}).
        if (!this.googleAccess.has(auth.replace(/^Bearer /, ''))) return { status: 401, body: { error: { code: 401, status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' } } };
        const reviewId = decodeURIComponent(path.split('/')[7] ?? '');
        if (![...this.google, ...[...this.googleByLocation.values()].flat()].some((r) => r.reviewId === reviewId)) return { status: 404, body: { error: { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.' } } };
        if (method === 'DELETE') {
          if (!this.googleReplies.delete(reviewId)) return { status: 404, body: { error: { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.' } } };
          return { status: 200, body: {} };
        }
        if (method !== 'PUT') return { status: 405, body: { error: { code: 405, message: 'Method not allowed.' } } };
        let comment: unknown;
        try {
          comment = (JSON.parse(body) as { comment?: unknown }).comment;
        } catch {
          comment = undefined;
        }
        if (typeof comment !== 'string' || comment === '' || Buffer.byteLength(comment) > 4096) return { status: 400, body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Request contains an invalid argument.' } } };
        const at = new Date().toISOString();
        this.googleReplies.set(reviewId, { text: comment, at });
        return { status: 200, body: { comment, updateTime: at } };
      }
      case 'trustpilot-token': {
        const basic = Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString();
        if (method !== 'POST' || basic !== `${this.keys.trustpilot}:${this.keys.trustpilotSecret}`) return { status: 401, body: { fault: { faultstring: 'Invalid ApiKey', detail: { errorcode: 'oauth.v2.InvalidApiKey' } } } };
        if (new URLSearchParams(body).get('grant_type') !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type' } };
        const token = `tp-access-${++this.issued}`;
        this.trustpilotAccess.add(token);
        return { status: 200, body: { access_token: token, expires_in: this.trustpilotTokenLife, token_type: 'BearerToken' } };
      }
      case 'trustpilot-review':
      case 'trustpilot-reply': {
        if (!this.trustpilotAccess.has(auth.replace(/^Bearer /, ''))) return { status: 401, body: { message: 'Unauthorized' } };
        const reviewId = decodeURIComponent(path.split('/')[4] ?? '');
        const review = [...this.trustpilot, ...[...this.trustpilotUnits.values()].flat()].find((r) => r.id === reviewId);
        if (!review) return { status: 404, body: { message: 'Review not found' } };
        const reply = this.trustpilotReplies.get(reviewId);
        if (platform === 'trustpilot-review') return { status: 200, body: { ...review, companyReply: reply ? { text: reply.text, createdAt: reply.at, updatedAt: null } : null } };
        if (method === 'DELETE') {
          if (!this.trustpilotReplies.delete(reviewId)) return { status: 404, body: { message: 'Reply not found' } };
          return { status: 204, body: undefined };
        }
        let input: { authorBusinessUserId?: unknown; message?: unknown } = {};
        try {
          input = JSON.parse(body) as typeof input;
        } catch {
          // Refused below.
        }
        if (typeof input.message !== 'string' || input.message === '') return { status: 400, body: { message: 'message is required' } };
        if (input.authorBusinessUserId !== this.keys.trustpilotBusinessUser) return { status: 403, body: { message: 'The business user is not allowed to reply on behalf of this business unit' } };
        this.trustpilotReplies.set(reviewId, { text: input.message, at: new Date().toISOString() });
        this.trustpilotPosts.push({ reviewId, message: input.message, authorBusinessUserId: input.authorBusinessUserId });
        return { status: 201, body: undefined };
      }
      case 'trustpilot': {
        if (headers.apikey !== this.keys.trustpilot) return { status: 401, body: { message: 'Unauthorized' } };
        const unit = decodeURIComponent(path.split('/')[3] ?? '');
        const sorted = [...(this.trustpilotUnits.get(unit) ?? this.trustpilot)].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
        const page = Number(q.get('page') ?? 1);
        const per = Math.min(Number(q.get('perPage') ?? 20), this.trustpilotPerPage);
        const reviews = sorted.slice((page - 1) * per, page * per);
        const links = [{ href: url.href, method: 'GET', rel: 'self' }];
        if (page * per < sorted.length) links.push({ href: `${this.url}${path}?page=${page + 1}`, method: 'GET', rel: 'next-page' });
        return { status: 200, body: { reviews, links } };
      }
      case 'yelp': {
        if (auth !== `Bearer ${this.keys.yelp}`) return { status: 401, body: { error: { code: 'UNAUTHORIZED_ACCESS_TOKEN', description: 'The access token provided is not currently able to query this endpoint.' } } };
        const sorted = [...this.yelp].sort((a, b) => b.time_created.localeCompare(a.time_created));
        return { status: 200, body: { reviews: sorted.slice(0, 3), total: sorted.length, possible_languages: ['en'] } };
      }
      case 'facebook': {
        if (auth !== `Bearer ${this.keys.facebook}`) return { status: 400, body: { error: { message: 'Error validating access token: Session has expired', type: 'OAuthException', code: 190, error_subcode: 463 } } };
        const sorted = [...this.facebook].sort((a, b) => Date.parse(b.created_time.replace(/(\d{2})(\d{2})$/, '$1:$2')) - Date.parse(a.created_time.replace(/(\d{2})(\d{2})$/, '$1:$2')));
        const from = q.get('after') ? Number(Buffer.from(q.get('after')!, 'base64').toString()) : 0;
        const limit = Math.min(Number(q.get('limit') ?? 25), this.facebookLimit);
        const data = sorted.slice(from, from + limit);
        const after = Buffer.from(String(from + limit)).toString('base64');
        return { status: 200, body: { data, paging: { cursors: { before: Buffer.from(String(from)).toString('base64'), after }, ...(from + limit < sorted.length && { next: `https://graph.facebook.com/v21.0${path.slice(6)}?limit=${limit}&after=${after}` }) } } };
      }
      case 'g2': {
        if (auth !== `Token token=${this.keys.g2}`) return { status: 401, body: { errors: [{ status: '401', title: 'Unauthorized' }] } };
        const sorted = [...this.g2].sort((a, b) => String(b.attributes.submitted_at).localeCompare(String(a.attributes.submitted_at)));
        const page = Number(q.get('page[number]') ?? 1);
        const size = Number(q.get('page[size]') ?? 10);
        const data = sorted.slice((page - 1) * size, page * size);
        return { status: 200, body: { data, links: { self: url.href, ...(page * size < sorted.length && { next: `${this.url}${path}?page[number]=${page + 1}` }) }, meta: { record_count: sorted.length } } };
      }
      default:
        return { status: 404, body: { error: 'not found' } };
    }
  }
}
