/**
 * fast-check generators of hostile HTTP requests for the fuzz test: random
 * query strings (valid, misspelt, repeated, prototype-named, API-key-named
 * parameters; boundary, malformed, huge, unicode, NUL values), paths under
 * /api/v1 and elsewhere (real routes, case and slash variants, odd ids,
 * traversal), methods, and headers (Authorization variants around a real
 * key, hostile X-Request-Id, forwarded protocol, bodies on writes).
 *
 * Every generated request is one Node's http client will send: paths only
 * hold \x21-\xff, header values no control characters. Nothing here asks for
 * a compressed answer, so bodies arrive as plain JSON.
 */
import fc from 'fast-check';
import { API_KEY_QUERY_NAMES, LIST_REVIEWS_PARAMETERS } from './parameters.ts';

export interface FuzzRequest {
  method: string;
  /** Path and query string, ready for http.request({ path }). */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface FuzzOptions {
  /** Real keys (e.g. one of a Growth organization); some requests use them, some mangle them. */
  apiKeys?: readonly string[];
  /** Widget ids that exist, so that some requests get past the 404. */
  widgetIds?: readonly string[];
}

function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80'; // a lone surrogate, as UTF-8 bytes
  }
}

const PARAMETER_NAMES: readonly string[] = LIST_REVIEWS_PARAMETERS.map((p) => p.name);

const parameterName: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...PARAMETER_NAMES) },
  { weight: 2, arbitrary: fc.constantFrom('LIMIT', 'Offset', 'min_rating', 'max-rating', 'limit[]', 'limit[0]', 'limt', 'page', 'sort', 'q') },
  { weight: 1, arbitrary: fc.constantFrom(...API_KEY_QUERY_NAMES, 'API_KEY', 'Token') },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', '__proto__[limit]', 'constructor[prototype][x]') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map(encode) },
  { weight: 1, arbitrary: fc.constantFrom('', '%00', '%zz', '%', '%2', '&', '=') },
);

const dateLike: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '2024-01-01',
    '2024-02-29',
    '2023-02-29',
    '2024-13-45',
    '2024-01-01T10:00:00Z',
    '2024-01-01T10:00:00%2B05:30',
    '2024-01-01T10:00:00+05:30',
    '2024-01-01T10:00:00-23:59',
    '2024-01-01T10:00Z',
    '2024-06-30T23:59:60Z',
    'yesterday',
    '1700000000',
    '0000-01-01',
    '9999-12-31T23:59:59.999999999Z',
  ),
  fc.date({ min: new Date(-62_000_000_000_000), max: new Date(250_000_000_000_000), noInvalidDate: true }).map((d) => encode(d.toISOString())),
);

const numberLike: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0', '1', '5', '20', '100', '101', '-1', '-0', '1.5', '4.99', '5.01', '10.0', '1e1', '%2B10', '+10', '%2010', '0x10', 'NaN', 'Infinity', '9007199254740993', '1'.repeat(40)),
  fc.integer({ min: -1000, max: 10_000_100 }).map(String),
  fc.double({ noNaN: false }).map((n) => encode(String(n))),
);

const anyValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: numberLike },
  { weight: 3, arbitrary: dateLike },
  { weight: 2, arbitrary: fc.constantFrom('google', 'GOOGLE', 'g2', 'Trustpilot', 'unknown_platform', '2G', '<script>alert(1)</script>', "' OR 1=1 --", '{"$gt":""}').map(encode) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map(encode) },
  { weight: 1, arbitrary: fc.constantFrom('', '%00', '%zz', '%E0%A4%A', '%ED%A0%80', '%EF%BC%91%EF%BC%90') },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 2000 }).map((n) => 'A'.repeat(n)) },
);

const pair: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(parameterName, anyValue).map(([n, v]) => `${n}=${v}`) },
  { weight: 1, arbitrary: parameterName },
  { weight: 1, arbitrary: anyValue.map((v) => `=${v}`) },
);

/** A query string without the leading `?`; decode it with URLSearchParams. */
export function hostileQueryString(): fc.Arbitrary<string> {
  return fc.tuple(fc.array(pair, { maxLength: 7 }), fc.constantFrom('&', '&', '&', ';', '&&')).map(([pairs, sep]) => pairs.join(sep));
}

/** A well-formed /reviews query, so that filters and paging reach the store. */
export function validQueryString(): fc.Arbitrary<string> {
  return fc
    .record(
      {
        limit: fc.integer({ min: 1, max: 100 }).map(String),
        offset: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 10_000_000 })).map(String),
        platform: fc.constantFrom('GOOGLE', 'yelp', 'Trustpilot', 'G2', 'capterra', 'FACEBOOK', 'UNKNOWN_ONE'),
        ratings: fc.tuple(fc.integer({ min: 10, max: 50 }), fc.integer({ min: 10, max: 50 })).map(([a, b]) => [Math.min(a, b) / 10, Math.max(a, b) / 10]),
        since: fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => encode(d.toISOString())),
      },
      { requiredKeys: [] },
    )
    .map(({ ratings, ...rest }) => {
      const pairs = Object.entries(rest).map(([k, v]) => `${k}=${v}`);
      if (ratings) pairs.push(`minRating=${ratings[0]}`, `maxRating=${ratings[1]}`);
      return pairs.join('&');
    });
}

const randomId: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 16 }).map(encode),
  fc.constantFrom('..', '.', '%2F', '%2e%2e', '%00', '%zz', 'null', 'undefined', '__proto__', 'constructor', 'x'.repeat(1024)),
);

function widgetId(opts: FuzzOptions): fc.Arbitrary<string> {
  const known = opts.widgetIds ?? [];
  return known.length > 0 ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: randomId }) : randomId;
}

function routePath(opts: FuzzOptions): fc.Arbitrary<string> {
  const id = widgetId(opts);
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('/api/v1/reviews', '/api/v1/reviews/stats', '/api/v1/openapi.json', '/healthz', '/readyz') },
    { weight: 4, arbitrary: fc.tuple(id, fc.constantFrom('embed', 'schema')).map(([i, what]) => `/api/v1/widgets/${i}/${what}`) },
    { weight: 2, arbitrary: id.map((i) => `/public/v1/widgets/${i}`) },
  );
}

function mangledPath(opts: FuzzOptions): fc.Arbitrary<string> {
  return fc.oneof(
    routePath(opts).map((p) => `${p}/`),
    routePath(opts).map((p) => p.toUpperCase()),
    routePath(opts).map((p) => p.replace('/api/', '//api/')),
    routePath(opts).map((p) => `${p}/extra`),
    fc.constantFrom(
      '/',
      '/api',
      '/api/v1',
      '/api/v1/',
      '/api/v2/reviews',
      '/api/v1/reviews/../reviews',
      '/api/v1/reviews/%2e%2e/stats',
      '/api/v1/widgets',
      '/api/v1/widgets//embed',
      '/api/v1/admin',
      '/public/v1/widgets',
      '/metrics',
      '/.env',
      '/favicon.ico',
      '/%00',
      '/%zz',
    ),
    fc.array(fc.oneof(fc.stringMatching(/^[a-z0-9._-]{1,12}$/), fc.string({ unit: 'binary', maxLength: 8 }).map(encode)), { minLength: 1, maxLength: 5 }).map(
      (segments) => `/${segments.join('/')}`,
    ),
  );
}

function authorization(opts: FuzzOptions): fc.Arbitrary<string | undefined> {
  const keys = opts.apiKeys ?? [];
  const random = fc.stringMatching(/^[\x21-\x7e]{1,64}$/);
  const key = keys.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: random }) : random;
  const mangled = key.map((k) => (k.length > 1 ? k.slice(0, -1) + (k.endsWith('A') ? 'B' : 'A') : `${k}x`));
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 6, arbitrary: key.map((k) => `Bearer ${k}`) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        key.map((k) => `bearer ${k}`),
        key.map((k) => `BEARER ${k}`),
        key.map((k) => `Bearer  ${k}`),
        key.map((k) => `Bearer ${k} extra`),
        key.map((k) => `Bearer ${k},Bearer ${k}`),
        key.map((k) => `Token ${k}`),
        key.map((k) => k),
        mangled.map((k) => `Bearer ${k}`),
        key.map((k) => `Basic ${Buffer.from(`${k}:`).toString('base64')}`),
        fc.constantFrom('Bearer', 'Bearer ', '', ' ', 'Basic dXNlcjpwYXNz', 'Bearer null', 'Bearer undefined', `Bearer ${'x'.repeat(4096)}`),
      ),
    },
  );
}

const headerText: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._:-]{8,64}$/),
  fc.stringMatching(/^[\x20-\x7e]{0,64}$/),
  fc.constantFrom('<script>alert(1)</script>', 'x'.repeat(2000), '../../etc/passwd', '\u00e9\u00ff'),
);

function headers(opts: FuzzOptions): fc.Arbitrary<Record<string, string>> {
  return fc
    .record(
      {
        authorization: authorization(opts),
        'x-request-id': fc.option(headerText, { nil: undefined }),
        'x-forwarded-proto': fc.option(fc.constantFrom('http', 'https', 'HTTP', 'ftp'), { nil: undefined }),
        'x-forwarded-for': fc.option(fc.constantFrom('10.0.0.1', '1.2.3.4, 5.6.7.8', 'not-an-ip'), { nil: undefined }),
        accept: fc.option(fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', 'application/json;q=0'), { nil: undefined }),
        origin: fc.option(fc.constantFrom('https://shop.example', 'null', 'http://evil.example'), { nil: undefined }),
      },
      { requiredKeys: [] },
    )
    .map((h) => {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(h)) if (typeof value === 'string') out[name] = value;
      return out;
    });
}

const method: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: fc.constant('GET') },
  { weight: 2, arbitrary: fc.constant('HEAD') },
  { weight: 3, arbitrary: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE') },
);

const body: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('{"limit":5}', '{"__proto__":{"admin":true}}', 'not json', '[]', 'x'.repeat(5000)) },
);

/** One hostile request; send it as is, then check the answer with validateResponse. */
export function hostileRequest(opts: FuzzOptions = {}): fc.Arbitrary<FuzzRequest> {
  const path = fc.oneof({ weight: 4, arbitrary: routePath(opts) }, { weight: 1, arbitrary: mangledPath(opts) });
  const query = fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: validQueryString() },
    { weight: 2, arbitrary: hostileQueryString() },
  );
  return fc.record({ method, path, query, headers: headers(opts), body }).map((r) => {
    const request: FuzzRequest = { method: r.method, path: r.query === undefined ? r.path : `${r.path}?${r.query}`, headers: { ...r.headers } };
    // Bodies only where HTTP gives them meaning; GET and HEAD bodies confuse proxies, not this service.
    if (r.body !== undefined && !['GET', 'HEAD', 'TRACE'].includes(r.method)) {
      request.body = r.body;
      request.headers['content-type'] = 'application/json';
      // Node sends DELETE and OPTIONS bodies unframed unless told their length.
      request.headers['content-length'] = String(Buffer.byteLength(r.body));
    }
    return request;
  });
}

/** Whether Node's http client accepts the request as is (the generator only makes such requests). */
export function isSendable(request: FuzzRequest): boolean {
  if (!request.path.startsWith('/') || /[^\x21-\xff]/.test(request.path)) return false;
  return Object.entries(request.headers).every(([name, value]) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) && !/[^\t\x20-\x7e\x80-\xff]/.test(value));
}

/** A fixed-seed sample, for a test that wants a plain list. */
export function sampleRequests(count: number, opts: FuzzOptions = {}, seed = 42): FuzzRequest[] {
  return fc.sample(hostileRequest(opts), { numRuns: count, seed });
}
