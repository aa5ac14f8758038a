import { describe, expect, it } from 'vitest';
import { validateResponse, type ResponseToValidate } from './response-validator.ts';
import { FORBIDDEN_MESSAGE, UNAUTHORIZED_MESSAGE } from './error-schemas.ts';
import { publicWidgetExample, reviewExample } from './examples.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const base = { 'content-type': JSON_TYPE, 'x-request-id': '6f1c2b9e-3d4a-4e8f-9b1a-2c3d4e5f6a7b' };
const rateLimit = {
  'x-ratelimit-limit': '60',
  'x-ratelimit-remaining': '57',
  'x-ratelimit-reset': '1795262460',
  'ratelimit-policy': '60;w=60',
  ratelimit: 'limit=60, remaining=57, reset=42',
};
const keyed = { ...base, ...rateLimit };

const page = (data: unknown[] = [reviewExample]) => ({ data, pagination: { total: data.length, limit: 20, offset: 0, hasMore: false } });
const error = (code: string, message = 'Something.', details: unknown[] = []) => ({ error: code, message, details });

function check(partial: Partial<ResponseToValidate> & Pick<ResponseToValidate, 'status' | 'body'>): string[] {
  return validateResponse({ method: 'GET', path: '/api/v1/reviews', headers: keyed, ...partial });
}

const stats = {
  totalReviews: 3,
  averageRating: 4.5,
  averageSentiment: null,
  last30Days: 1,
  last7Days: 0,
  platforms: [{ platform: 'GOOGLE', count: 3, averageRating: 4.5 }],
  ratingDistribution: [
    { rating: 5, count: 1 },
    { rating: 4, count: 1 },
    { rating: 3, count: 0 },
    { rating: 2, count: 0 },
    { rating: 1, count: 0 },
    { rating: null, count: 1 },
  ],
};

describe('validateResponse: bodies', () => {
  it('accepts a valid page of reviews', () => {
    expect(check({ status: 200, body: page() })).toEqual([]);
    expect(check({ status: 200, body: page([]) })).toEqual([]);
    expect(check({ status: 200, body: page([{ ...reviewExample, rating: null, sentiment: null, sentimentLabel: null, aiSummary: null, url: null, authorAvatar: null }]) })).toEqual([]);
  });

  it('rejects a review missing a field', () => {
    const { content: _content, ...missing } = reviewExample;
    const problems = check({ status: 200, body: page([missing]) });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("body/data/0 must have required property 'content'");
  });

  it('rejects internal fields leaking into a review', () => {
    expect(check({ status: 200, body: page([{ ...reviewExample, orgId: 'org_1' }]) }).join()).toContain('"additionalProperty":"orgId"');
    expect(check({ status: 200, body: page([{ ...reviewExample, externalId: 'x' }]) })).toHaveLength(1);
  });

  it.each([
    ['rating 6', { rating: 6 }],
    ['rating as text', { rating: '5' }],
    ['lower-case platform', { platform: 'google' }],
    ['date not ISO 8601', { date: 'Nov 2, 2026' }],
    ['createdAt missing its time', { createdAt: '2026-11-03' }],
    ['sentiment above 1', { sentiment: 1.5 }],
    ['unknown sentiment label', { sentimentLabel: 'MIXED' }],
    ['language not a code', { language: 'English' }],
    ['themes not strings', { aiThemes: [1] }],
    ['isVerified as text', { isVerified: 'true' }],
    ['url not a URL', { url: 'not a url' }],
  ])('rejects a review with %s', (_name, patch) => {
    expect(check({ status: 200, body: page([{ ...reviewExample, ...patch }]) }).length).toBeGreaterThan(0);
  });

  it('rejects a broken pagination object', () => {
    expect(check({ status: 200, body: { data: [], pagination: { total: 0, limit: 20, offset: 0 } } }).join()).toContain('hasMore');
    expect(check({ status: 200, body: { data: [], pagination: { total: 0, limit: 101, offset: 0, hasMore: false } } }).length).toBeGreaterThan(0);
    expect(check({ status: 200, body: { data: [] } }).length).toBeGreaterThan(0);
    expect(check({ status: 200, body: { ...page(), extra: 1 } }).length).toBeGreaterThan(0);
  });

  it('checks the statistics', () => {
    const path = '/api/v1/reviews/stats';
    expect(check({ path, status: 200, body: { data: stats } })).toEqual([]);
    expect(check({ path, status: 200, body: { data: { ...stats, ratingDistribution: stats.ratingDistribution.slice(0, 4) } } }).length).toBeGreaterThan(0);
    expect(check({ path, status: 200, body: { data: { ...stats, averageRating: 0 } } }).length).toBeGreaterThan(0);
    expect(check({ path, status: 200, body: { data: { ...stats, platforms: [{ platform: 'GOOGLE', count: 3 }] } } }).length).toBeGreaterThan(0);
    expect(check({ path, status: 200, body: stats })).not.toEqual([]);
  });

  it('checks the embed and schema payloads', () => {
    const embed = { widgetId: 'w1', snippet: '<div></div><script async src="x"></script>', script: '(function(){})()' };
    expect(check({ path: '/api/v1/widgets/w1/embed', status: 200, body: { data: embed } })).toEqual([]);
    expect(check({ path: '/api/v1/widgets/w1/embed', status: 200, body: { data: { ...embed, apiKey: 'k' } } }).length).toBeGreaterThan(0);
    const jsonLd = { '@context': 'https://schema.org', '@type': 'Product', name: 'Acme Shoes' };
    expect(check({ path: '/api/v1/widgets/w1/schema', status: 200, body: { data: jsonLd } })).toEqual([]);
    expect(check({ path: '/api/v1/widgets/w1/schema', status: 200, body: { data: { ...jsonLd, '@context': 'http://schema.org' } } }).length).toBeGreaterThan(0);
    expect(check({ path: '/api/v1/widgets/w1/schema', status: 200, body: { data: { ...jsonLd, '@type': 'Thing' } } }).length).toBeGreaterThan(0);
  });

  it('requires a JSON body except on HEAD', () => {
    expect(check({ status: 200, body: undefined })).toEqual(['GET /api/v1/reviews → 200: body is missing or not JSON']);
    expect(check({ method: 'HEAD', status: 200, body: undefined })).toEqual([]);
    expect(check({ method: 'HEAD', status: 200, body: page() })).toEqual(['HEAD /api/v1/reviews → 200: a HEAD response has a body']);
  });
});

describe('validateResponse: error envelopes', () => {
  const plain = { ...base };

  it('accepts the exact 401 with WWW-Authenticate, and nothing else', () => {
    const body = error('unauthorized', UNAUTHORIZED_MESSAGE);
    expect(check({ status: 401, headers: { ...plain, 'www-authenticate': 'Bearer' }, body })).toEqual([]);
    expect(check({ status: 401, headers: plain, body })).toEqual(['GET /api/v1/reviews → 401: header WWW-Authenticate is missing']);
    expect(check({ status: 401, headers: { ...plain, 'www-authenticate': 'Basic realm="x"' }, body }).length).toBe(1);
    expect(check({ status: 401, headers: { ...plain, 'www-authenticate': 'Bearer' }, body: error('unauthorized', 'Bad key.') }).length).toBeGreaterThan(0);
  });

  it('rejects an extra field or a non-empty details on an error envelope', () => {
    const headers = { ...plain, 'www-authenticate': 'Bearer' };
    expect(check({ status: 401, headers, body: { ...error('unauthorized', UNAUTHORIZED_MESSAGE), stack: 'x' } }).join()).toContain('"additionalProperty":"stack"');
    expect(check({ status: 401, headers, body: error('unauthorized', UNAUTHORIZED_MESSAGE, [{ parameter: 'x', message: 'y' }]) }).length).toBeGreaterThan(0);
    expect(check({ status: 401, headers, body: { error: 'unauthorized', message: UNAUTHORIZED_MESSAGE } }).length).toBeGreaterThan(0);
  });

  it('tells the two 403s apart', () => {
    expect(check({ status: 403, headers: plain, body: error('forbidden', FORBIDDEN_MESSAGE) })).toEqual([]);
    expect(check({ status: 403, headers: plain, body: error('forbidden', 'Upgrade!') }).length).toBeGreaterThan(0);
    expect(check({ status: 403, headers: plain, body: error('https_required', 'Use HTTPS.') })).toEqual([]);
    // Key-less endpoints and unknown paths know only https_required.
    expect(check({ path: '/healthz', status: 403, headers: plain, body: error('https_required', 'Use HTTPS.') })).toEqual([]);
    expect(check({ path: '/nowhere', status: 403, headers: plain, body: error('https_required', 'Use HTTPS.') })).toEqual([]);
    expect(check({ path: '/healthz', status: 403, headers: plain, body: error('forbidden', FORBIDDEN_MESSAGE) }).length).toBeGreaterThan(0);
  });

  it('wants one detail per parameter on invalid_parameter, and the rate-limit headers with it', () => {
    const body = error('invalid_parameter', 'Invalid query parameter: limit.', [{ parameter: 'limit', message: 'must be an integer from 1 to 100' }]);
    expect(check({ status: 400, headers: keyed, body })).toEqual([]);
    expect(check({ status: 400, headers: plain, body }).join()).toContain('rate-limit headers come together');
    expect(check({ status: 400, headers: keyed, body: error('invalid_parameter', 'Bad.') }).length).toBeGreaterThan(0);
    expect(check({ status: 400, headers: keyed, body: error('invalid_parameter', 'Bad.', [{ name: 'limit', message: 'x' }]) }).length).toBeGreaterThan(0);
    expect(check({ status: 400, headers: keyed, body: error('bad_request', 'Bad.') }).length).toBeGreaterThan(0);
  });

  it('accepts api_key_in_query before authentication, without rate-limit headers, anywhere', () => {
    const body = error('api_key_in_query', 'Send keys in the header.', [{ parameter: 'api_key', message: 'API keys are not accepted as query parameters.' }]);
    expect(check({ path: '/api/v1/reviews?api_key=x', status: 400, headers: plain, body })).toEqual([]);
    expect(check({ path: '/healthz?token=x', status: 400, headers: plain, body })).toEqual([]);
    expect(check({ path: '/api/v9/x?key=x', status: 400, headers: plain, body })).toEqual([]);
    expect(check({ path: '/healthz?limit=x', status: 400, headers: plain, body: error('invalid_parameter', 'x', [{ parameter: 'limit', message: 'x' }]) }).length).toBeGreaterThan(0);
  });

  it('needs Retry-After on 429, all rate-limit headers or none, and 0 remaining', () => {
    const body = error('rate_limit_exceeded', 'Slow down. Retry after 17 seconds.');
    const exhausted = { ...keyed, 'x-ratelimit-remaining': '0', ratelimit: 'limit=60, remaining=0, reset=17', 'retry-after': '17' };
    expect(check({ status: 429, headers: exhausted, body })).toEqual([]);
    // Failed-authentication limits carry no organization headers.
    expect(check({ status: 429, headers: { ...plain, 'retry-after': '17' }, body })).toEqual([]);
    expect(check({ status: 429, headers: { ...exhausted, 'retry-after': undefined as unknown as string } , body }).join()).toContain('Retry-After is missing');
    expect(check({ status: 429, headers: { ...plain, 'retry-after': 'soon' }, body }).length).toBe(1);
    expect(check({ status: 429, headers: { ...plain, 'retry-after': '17', 'x-ratelimit-limit': '60' }, body }).join()).toContain('rate-limit headers come together');
    expect(check({ status: 429, headers: { ...keyed, 'retry-after': '17' }, body }).join()).toContain('a 429 must leave X-RateLimit-Remaining at 0');
  });

  it('needs Allow on 405, and never answers 405 to GET', () => {
    const body = error('method_not_allowed', 'Use GET.');
    expect(check({ method: 'POST', status: 405, headers: { ...plain, allow: 'GET, HEAD' }, body })).toEqual([]);
    expect(check({ method: 'delete', path: '/healthz', status: 405, headers: { ...plain, allow: 'HEAD, GET' }, body })).toEqual([]);
    expect(check({ method: 'POST', status: 405, headers: plain, body })).toEqual(['POST /api/v1/reviews → 405: header Allow is missing']);
    expect(check({ method: 'POST', status: 405, headers: { ...plain, allow: 'GET, POST' }, body }).length).toBe(1);
    expect(check({ method: 'POST', status: 405, headers: { ...plain, allow: 'HEAD' }, body }).length).toBe(1);
    expect(check({ method: 'PUT', status: 405, headers: { ...plain, allow: 'GET, HEAD, OPTIONS' }, body })).toEqual([]);
    expect(check({ method: 'GET', status: 405, headers: { ...plain, allow: 'GET, HEAD' }, body })[0]).toContain('status 405 is not documented');
    expect(check({ method: 'POST', status: 200, body: page() })[0]).toContain('status 200 is not documented');
  });

  it('keeps internals out of a 500', () => {
    expect(check({ status: 500, headers: plain, body: error('internal_error', 'Something went wrong on our side.') })).toEqual([]);
    const leak = 'TypeError: x is undefined\n    at listReviews (/work/main/api/reviews/routes.ts:30:5)';
    expect(check({ status: 500, headers: plain, body: error('internal_error', leak) }).length).toBeGreaterThan(0);
    expect(check({ status: 500, headers: plain, body: { ...error('internal_error', 'x'), stack: 'at x' } }).length).toBeGreaterThan(0);
  });

  it('names the failing dependency on 503', () => {
    const body = error('service_unavailable', 'Not ready: redis.', [{ component: 'redis', message: 'not answering' }]);
    expect(check({ path: '/readyz', status: 503, headers: plain, body })).toEqual([]);
    expect(check({ path: '/readyz', status: 503, headers: plain, body: error('service_unavailable', 'x', [{ parameter: 'redis', message: 'x' }]) }).length).toBeGreaterThan(0);
  });
});

describe('validateResponse: headers and routing', () => {
  it('requires the rate-limit headers on every keyed 200', () => {
    const problems = check({ status: 200, headers: base, body: page() });
    expect(problems).toEqual(
      ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'].map((h) => `GET /api/v1/reviews → 200: header ${h} is missing`),
    );
    expect(check({ status: 200, headers: { ...keyed, 'x-ratelimit-reset': '1795262460.5' }, body: page() }).length).toBe(1);
    expect(check({ status: 200, headers: { ...keyed, 'x-ratelimit-remaining': '61' }, body: page() }).join()).toContain('exceeds');
  });

  it('requires X-Request-Id on every response, well-formed', () => {
    expect(check({ status: 200, headers: { ...rateLimit, 'content-type': JSON_TYPE }, body: page() })).toEqual(['GET /api/v1/reviews → 200: header X-Request-Id is missing']);
    expect(check({ status: 200, headers: { ...keyed, 'x-request-id': '<script>' }, body: page() }).length).toBe(1);
    expect(check({ status: 200, headers: { ...keyed, 'x-request-id': 'a'.repeat(129) }, body: page() }).length).toBe(1);
    expect(check({ path: '/nowhere', status: 404, headers: { 'content-type': JSON_TYPE }, body: error('not_found', 'No.') })).toEqual([
      'GET (unknown path) → 404: header X-Request-Id is missing',
    ]);
  });

  it('requires JSON in UTF-8', () => {
    expect(check({ status: 200, headers: { ...keyed, 'content-type': 'application/json' }, body: page() }).join()).toContain('Content-Type');
    expect(check({ status: 200, headers: { ...keyed, 'content-type': 'text/html; charset=utf-8' }, body: page() }).length).toBe(1);
    expect(check({ status: 200, headers: { ...keyed, 'content-type': 'Application/JSON;Charset=UTF-8' }, body: page() })).toEqual([]);
  });

  it('reads header names in any case', () => {
    const upper = Object.fromEntries(Object.entries(keyed).map(([k, v]) => [k.toUpperCase(), v]));
    expect(check({ status: 200, headers: upper, body: page() })).toEqual([]);
  });

  describe('the public widget data', () => {
    const path = '/public/v1/widgets/wdg_3fK9xQ2mLp7RtV8nB4cZ';
    const cacheable = { ...base, 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=60', etag: '"abc123"' };
    const body = { data: publicWidgetExample };
    const [shown] = publicWidgetExample.reviews;

    it('needs CORS and caching headers', () => {
      expect(check({ path, status: 200, headers: cacheable, body })).toEqual([]);
      const { 'access-control-allow-origin': _acao, ...noCors } = cacheable;
      expect(check({ path, status: 200, headers: noCors, body })).toEqual(['GET /public/v1/widgets/{id} → 200: header Access-Control-Allow-Origin is missing']);
      expect(check({ path, status: 200, headers: { ...cacheable, etag: 'abc' }, body })).toEqual([`GET /public/v1/widgets/{id} → 200: header ETag: "abc" does not match its schema`]);
      expect(check({ path, status: 200, headers: { ...cacheable, 'access-control-allow-origin': 'https://shop.example' }, body }).length).toBe(1);
    });

    it('lets nothing but what the widget shows out', () => {
      expect(check({ path, status: 200, headers: cacheable, body: { data: { ...publicWidgetExample, orgId: 'org_1' } } }).join()).toContain('"additionalProperty":"orgId"');
      expect(check({ path, status: 200, headers: cacheable, body: { data: { ...publicWidgetExample, reviews: [{ ...shown, aiSummary: 'x' }] } } }).length).toBe(1);
      expect(check({ path, status: 200, headers: cacheable, body: { data: { ...publicWidgetExample, reviews: [{ ...shown, url: 'http://plain.example/r' }] } } }).length).toBe(1);
      expect(check({ path, status: 200, headers: cacheable, body: { data: { ...publicWidgetExample, reviews: [{ ...shown, authorAvatar: 'javascript:alert(1)' }] } } }).length).toBe(1);
      expect(check({ path, status: 200, headers: cacheable, body: { data: { ...publicWidgetExample, layout: 'table' } } }).length).toBe(1);
    });

    it('answers If-None-Match with a bodiless 304', () => {
      const { 'content-type': _ct, ...noType } = cacheable;
      expect(check({ path, status: 304, headers: noType, body: undefined })).toEqual([]);
      expect(check({ path, status: 304, headers: noType, body: { data: {} } })).toEqual(['GET /public/v1/widgets/{id} → 304: status 304 has no body, but one came']);
      expect(check({ path: '/api/v1/reviews', status: 304, headers: noType, body: undefined })[0]).toContain('not documented');
    });

    it('answers CORS preflights with 204, and only there', () => {
      const headers = { 'x-request-id': 'abcdefgh', 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD, OPTIONS', 'access-control-max-age': '86400' };
      expect(check({ method: 'OPTIONS', path, status: 204, headers, body: undefined })).toEqual([]);
      expect(check({ method: 'OPTIONS', path, status: 204, headers: { ...headers, 'access-control-max-age': 'forever' }, body: undefined }).length).toBe(1);
      expect(check({ method: 'OPTIONS', path: '/api/v1/reviews', status: 204, headers, body: undefined })[0]).toContain('not documented');
      expect(check({ method: 'OPTIONS', path: '/api/v1/reviews', status: 405, headers: { ...base, allow: 'GET, HEAD' }, body: error('method_not_allowed', 'x') })).toEqual([]);
      expect(check({ method: 'POST', path, status: 405, headers: { ...base, allow: 'GET, HEAD' }, body: error('method_not_allowed', 'x') })).toEqual([]);
    });
  });

  it('accepts only the errors that can come before routing on an unknown path', () => {
    const notFound = error('not_found', 'No such path.');
    for (const path of ['/', '/nowhere', '/api/v1', '/api/v2/reviews', '/api/v1/widgets/w1', '/api/v1/reviews/stats/extra', '/API/V1/REVIEWSX']) {
      expect(check({ path, status: 404, headers: base, body: notFound })).toEqual([]);
      expect(check({ path, method: 'POST', status: 404, headers: base, body: notFound })).toEqual([]);
      expect(check({ path, status: 200, body: page() })[0]).toContain('status 200 is not documented');
      expect(check({ path, status: 401, headers: { ...base, 'www-authenticate': 'Bearer' }, body: error('unauthorized', UNAUTHORIZED_MESSAGE) })[0]).toContain('not documented');
    }
    expect(check({ path: '/nowhere', status: 404, headers: base, body: error('not_found', 'x', [{ parameter: 'x', message: 'y' }]) }).length).toBeGreaterThan(0);
  });

  it('matches path templates, ignoring query strings and fragments', () => {
    expect(check({ path: '/api/v1/reviews?limit=2#top', status: 200, body: page() })).toEqual([]);
    const widgetNotFound = error('not_found', 'Widget not found.');
    expect(check({ path: '/api/v1/widgets/%2e%2e/embed', status: 404, headers: keyed, body: widgetNotFound })).toEqual([]);
    // A keyed widget 404 comes after the rate limit.
    expect(check({ path: '/api/v1/widgets/nope/schema', status: 404, headers: base, body: widgetNotFound }).length).toBe(5);
  });

  it('lets a lenient router serve case and trailing-slash variants, or answer 404', () => {
    expect(check({ path: '/api/v1/reviews/', status: 200, body: page() })).toEqual([]);
    expect(check({ path: '/API/v1/Reviews', status: 404, headers: base, body: error('not_found', 'x') })).toEqual([]);
  });

  it('refuses undocumented statuses', () => {
    expect(check({ status: 418, body: error('teapot', 'x') })[0]).toContain('status 418 is not documented');
    expect(check({ path: '/healthz', status: 429, headers: { ...base, 'retry-after': '1' }, body: error('rate_limit_exceeded', 'x') })[0]).toContain('not documented');
  });

  it('checks health and readiness bodies', () => {
    expect(check({ path: '/healthz', status: 200, headers: base, body: { status: 'ok' } })).toEqual([]);
    expect(check({ path: '/healthz', status: 200, headers: base, body: { status: 'up' } }).length).toBeGreaterThan(0);
    expect(check({ path: '/readyz', status: 200, headers: base, body: { status: 'ready', checks: { store: 'ok', redis: 'ok' } } })).toEqual([]);
    expect(check({ path: '/readyz', status: 200, headers: base, body: { status: 'ready', checks: { store: 'down' } } }).length).toBeGreaterThan(0);
    expect(check({ path: '/api/v1/openapi.json', status: 200, headers: base, body: { openapi: '3.1.0', info: {}, paths: {} } })).toEqual([]);
  });
});
