import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from './document.ts';
import { VALID_QUERY_MEMO, validQuery, validateQuery, type ListReviewsParams, type ParameterProblem, type QueryOperationKey } from './params.ts';
import { MAX_ERROR_DETAILS } from './error-schemas.ts';
import { hostileQueryString } from './fuzz.ts';

function list(query: string): ListReviewsParams {
  const result = validateQuery('listReviews', new URLSearchParams(query));
  if (!result.ok) throw new Error(`expected ${query} to be valid, got ${JSON.stringify(result.details)}`);
  return result.value;
}

function problems(query: string, operation: QueryOperationKey = 'listReviews'): ParameterProblem[] {
  const result = validateQuery(operation, new URLSearchParams(query));
  if (result.ok) throw new Error(`expected ${query} to be refused, got ${JSON.stringify(result.value)}`);
  return result.details;
}

/** The single detail a query produces. */
function onlyProblem(query: string): ParameterProblem {
  const details = problems(query);
  expect(details).toHaveLength(1);
  return details[0]!;
}

describe('validateQuery(listReviews): valid queries', () => {
  it('applies the documented defaults', () => {
    expect(list('')).toEqual({ limit: 20, offset: 0 });
  });

  it('types every parameter', () => {
    expect(list('limit=5&offset=10&platform=google&minRating=2&maxRating=4.5&since=2024-01-01')).toEqual({
      limit: 5,
      offset: 10,
      platform: 'GOOGLE',
      minRating: 2,
      maxRating: 4.5,
      since: new Date('2024-01-01T00:00:00.000Z'),
    });
  });

  it('accepts the bounds themselves', () => {
    expect(list('limit=1').limit).toBe(1);
    expect(list('limit=100').limit).toBe(100);
    expect(list('offset=0').offset).toBe(0);
    expect(list('offset=10000000').offset).toBe(10_000_000);
    expect(list('minRating=1&maxRating=5')).toMatchObject({ minRating: 1, maxRating: 5 });
    expect(list('minRating=3&maxRating=3')).toMatchObject({ minRating: 3, maxRating: 3 });
  });

  it('upper-cases platform identifiers', () => {
    expect(list('platform=TrustPilot').platform).toBe('TRUSTPILOT');
    expect(list('platform=g2').platform).toBe('G2');
    expect(list('platform=my_platform_2').platform).toBe('MY_PLATFORM_2');
    // Unknown platforms are valid: they match nothing.
    expect(list('platform=tripadvisor').platform).toBe('TRIPADVISOR');
  });

  it('reads a date as 00:00 UTC and a date-time at its offset', () => {
    expect(list('since=2024-02-29').since?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(list('since=2024-01-01T10:00:00Z').since?.toISOString()).toBe('2024-01-01T10:00:00.000Z');
    expect(list('since=2024-01-01T10:00:00%2B05:30').since?.toISOString()).toBe('2024-01-01T04:30:00.000Z');
    expect(list('since=2024-01-01T01:00:00-02:00').since?.toISOString()).toBe('2024-01-01T03:00:00.000Z');
    expect(list('since=2024-01-01t10:00:00.25z').since?.toISOString()).toBe('2024-01-01T10:00:00.250Z');
    expect(list('since=2024-01-01T10:00:00.123456789Z').since?.toISOString()).toBe('2024-01-01T10:00:00.123Z');
  });

  it('reads an unencoded + before the offset (decoded as a space) as +', () => {
    expect(list('since=2024-01-01T10:00:00+05:30').since?.toISOString()).toBe('2024-01-01T04:30:00.000Z');
    expect(list('since=2024-01-01T10:00+05:30').since?.toISOString()).toBe('2024-01-01T04:30:00.000Z');
    expect(list('since=2024-01-01T10:00+0530').since?.toISOString()).toBe('2024-01-01T04:30:00.000Z');
  });

  it('accepts the ISO 8601 forms people write: no seconds, a space for T, ±HHMM and ±HH offsets (issue 28, item 5)', () => {
    expect(list('since=2026-11-01T10:00Z').since?.toISOString()).toBe('2026-11-01T10:00:00.000Z');
    expect(list('since=2026-11-01T10:00%2B01:00').since?.toISOString()).toBe('2026-11-01T09:00:00.000Z');
    expect(list('since=2026-11-01%2010:00Z').since?.toISOString()).toBe('2026-11-01T10:00:00.000Z');
    expect(list('since=2024-01-01T10:00:00%2B0530').since?.toISOString()).toBe('2024-01-01T04:30:00.000Z');
    expect(list('since=2024-01-01T10:00:00-05').since?.toISOString()).toBe('2024-01-01T15:00:00.000Z');
  });

  it('agrees with its OpenAPI document: a value the pattern matches (naming a real day and time) is accepted, any other refused', () => {
    const since = openApiDocument().paths['/reviews']!.get.parameters!.find((p) => p.name === 'since')!;
    const pattern = new RegExp(since.schema.pattern as string);
    const values = [
      '2026-11-01', '2026-11-01T10:00Z', '2026-11-01T10:00:00Z', '2026-11-01T10:00:00.5Z', '2026-11-01 10:00Z', '2026-11-01T10:00+01:00',
      '2026-11-01T10:00+0100', '2026-11-01T10:00+01', '2026-11-01t10:00z', '2026-11-01T10:00', '2026-11-01T10', '2026-11-01T10:00:00',
      '20261101', '2026-11-01T1000Z', '2026-11-01T10:00:00+1', 'now',
    ];
    for (const value of values) {
      const accepted = validateQuery('listReviews', new URLSearchParams({ since: value })).ok;
      expect(accepted, value).toBe(pattern.test(value));
    }
    // The description's examples are accepted as written in a URL.
    for (const example of (since.description as string).match(/`20[^`]+`/g)!) expect(validateQuery('listReviews', new URLSearchParams(`since=${example.slice(1, -1)}`)).ok, example).toBe(true);
  });

  it('returns empty values for the endpoints without parameters', () => {
    for (const op of ['getStats', 'getEmbed', 'getSchema', 'getOpenApi', 'getPublicWidget'] as const) {
      expect(validateQuery(op, new URLSearchParams(''))).toEqual({ ok: true, value: {} });
    }
  });
});

describe('validateQuery(listReviews): one detail per bad parameter', () => {
  it.each([
    ['limit=0'],
    ['limit=101'],
    ['limit=-1'],
    ['limit=10.5'],
    ['limit=10.0'],
    ['limit=1e1'],
    ['limit=%2B10'],
    ['limit=+10'],
    ['limit=%2010'],
    ['limit=10%20'],
    ['limit=0x10'],
    ['limit=Infinity'],
    ['limit=NaN'],
    ['limit=ten'],
    ['limit=%EF%BC%91%EF%BC%90'], // full-width digits
    ['limit=%00'],
    ['limit=10%00'],
    [`limit=${'9'.repeat(400)}`],
    ['limit=99999999999999999999'],
  ])('limit: %s', (query) => {
    expect(onlyProblem(query)).toEqual({ parameter: 'limit', message: 'must be an integer from 1 to 100' });
  });

  it.each([['offset=-1'], ['offset=10000001'], ['offset=1.5'], ['offset=1e3'], ['offset=abc']])('offset: %s', (query) => {
    expect(onlyProblem(query)).toEqual({ parameter: 'offset', message: 'must be an integer from 0 to 10000000' });
  });

  it.each([['minRating=0.99'], ['minRating=5.01'], ['minRating=0'], ['minRating=-3'], ['minRating=.5'], ['minRating=4.'], ['minRating=four'], ['minRating=4,5'], ['minRating=1e0']])(
    'minRating: %s',
    (query) => {
      expect(onlyProblem(query)).toEqual({ parameter: 'minRating', message: 'must be a number from 1 to 5' });
    },
  );

  it.each([['maxRating=6'], ['maxRating=0'], ['maxRating=NaN']])('maxRating: %s', (query) => {
    expect(onlyProblem(query)).toEqual({ parameter: 'maxRating', message: 'must be a number from 1 to 5' });
  });

  it('refuses minRating above maxRating with one detail', () => {
    expect(onlyProblem('minRating=5&maxRating=1')).toEqual({ parameter: 'minRating', message: 'must not be greater than maxRating (5 > 1)' });
    expect(onlyProblem('minRating=4.5&maxRating=4')).toMatchObject({ parameter: 'minRating' });
  });

  it('does not compare ratings when one of them is already wrong', () => {
    expect(problems('minRating=9&maxRating=2')).toEqual([{ parameter: 'minRating', message: 'must be a number from 1 to 5' }]);
  });

  it.each([
    ['2024-13-45'],
    ['2023-02-29'],
    ['2024-04-31'],
    ['yesterday'],
    ['1700000000'],
    ['1700000000000'],
    ['2024-01-01T25:00:00Z'],
    ['2024-01-01T10:60:00Z'],
    ['2024-01-01T10:00'],
    ['2024-01-01T10Z'],
    ['2024-01-01T10:00:00'],
    ['2024-01-01T10:00:00%2B24:00'],
    ['20240101'],
    ['2024-1-1'],
    ['%2B002024-01-01'],
    ['%202024-01-01'],
    ['2024-01-01%20'],
    ['2024-06-30T23:59:60Z'],
    ['2024-01-01T10:00:00.Z'],
    ['Mon, 01 Jan 2024 00:00:00 GMT'],
    ['%EF%BC%92%EF%BC%90%EF%BC%92%EF%BC%94-01-01'],
    [`2024-01-01${'0'.repeat(10_000)}`],
  ])('since: %s', (value) => {
    const detail = onlyProblem(`since=${value}`);
    expect(detail.parameter).toBe('since');
    expect(detail.message).toMatch(/^must be an ISO 8601 date \(YYYY-MM-DD\) or date-time/);
  });

  it.each([['2G'], ['goo gle'], ['go-ogle'], ['%C3%84PP'], ['%3Cscript%3E'], ['A'.repeat(33)], ['google%00'], ['_google']])('platform: %s', (value) => {
    expect(onlyProblem(`platform=${value}`)).toEqual({
      parameter: 'platform',
      message: 'must be a platform identifier: a letter, then at most 31 letters, digits or underscores',
    });
  });

  it('refuses an empty value, saying what was expected', () => {
    expect(onlyProblem('limit=')).toEqual({ parameter: 'limit', message: 'must not be empty; expected an integer from 1 to 100' });
    expect(onlyProblem('since')).toMatchObject({ parameter: 'since', message: expect.stringMatching(/^must not be empty/) });
    expect(onlyProblem('platform=')).toMatchObject({ parameter: 'platform' });
  });

  it('refuses a repeated parameter once, even with equal values', () => {
    expect(onlyProblem('limit=1&limit=2')).toEqual({ parameter: 'limit', message: 'must be given once, not 2 times' });
    expect(onlyProblem('platform=google&platform=google&platform=yelp')).toEqual({ parameter: 'platform', message: 'must be given once, not 3 times' });
  });

  it('names the parameter an unknown one probably meant', () => {
    expect(onlyProblem('min_rating=3')).toEqual({ parameter: 'min_rating', message: 'unknown parameter; did you mean minRating?' });
    expect(onlyProblem('max-rating=3').message).toBe('unknown parameter; did you mean maxRating?');
    expect(onlyProblem('LIMIT=3').message).toBe('unknown parameter; did you mean limit?');
    expect(onlyProblem('limt=3').message).toBe('unknown parameter; did you mean limit?');
    expect(onlyProblem('limit[]=1')).toEqual({ parameter: 'limit[]', message: 'unknown parameter; did you mean limit?' });
    expect(onlyProblem('platforms=google').message).toBe('unknown parameter; did you mean platform?');
    expect(onlyProblem('sort=date')).toEqual({
      parameter: 'sort',
      message: 'unknown parameter; expected one of limit, offset, platform, minRating, maxRating, since, language, productId',
    });
  });

  it('refuses an unknown parameter once however often it is repeated', () => {
    expect(onlyProblem('foo=1&foo=2&foo=3').parameter).toBe('foo');
  });

  it('treats an API key in the query like any unknown name (the key guard runs before)', () => {
    for (const name of ['api_key', 'apiKey', 'key', 'token', 'access_token']) expect(onlyProblem(`${name}=secret`).parameter).toBe(name);
  });

  it('lists every problem, in the order of the query', () => {
    expect(problems('foo=1&limit=0&offset=-1&limit=5&since=never&minRating=9').map((d) => d.parameter)).toEqual(['foo', 'limit', 'offset', 'since', 'minRating']);
  });
});

describe('validateQuery: hostile input', () => {
  it('is not fooled by prototype names', () => {
    for (const name of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__proto__[limit]', 'constructor.prototype.limit']) {
      expect(onlyProblem(`${encodeURIComponent(name)}=1`).parameter).toBe(name);
    }
    const result = validateQuery('listReviews', new URLSearchParams('__proto__=1&__proto__[polluted]=yes&constructor[prototype][polluted]=yes'));
    expect(result.ok).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('handles NUL bytes, broken percent-encoding and odd names', () => {
    expect(onlyProblem('%00=1').parameter).toBe('\u0000');
    expect(onlyProblem('=1').message).toMatch(/^unknown parameter/);
    expect(onlyProblem('%zz=1').parameter).toBe('%zz');
    expect(onlyProblem('limit=%zz')).toMatchObject({ parameter: 'limit' });
    expect(onlyProblem('limit=%ED%A0%80')).toMatchObject({ parameter: 'limit' }); // a lone surrogate, decoded as U+FFFD
    expect(onlyProblem('%F0%9F%98%80=1').parameter).toBe('😀');
    expect(list('&&&')).toEqual({ limit: 20, offset: 0 });
  });

  it('never echoes a value and cuts long names', () => {
    const secret = 'S'.repeat(10_240);
    const details = problems(`platform=${secret}&${'n'.repeat(10_240)}=1`);
    expect(details).toHaveLength(2);
    expect(JSON.stringify(details)).not.toContain('SSSS');
    expect(details[1]!.parameter).toBe(`${'n'.repeat(100)}…`);
    expect(JSON.stringify(details).length).toBeLessThan(600);
  });

  it('caps the details of a query with thousands of problems, and says so', () => {
    const query = Array.from({ length: 3000 }, (_, i) => `p${i}=1`).join('&');
    const result = validateQuery('listReviews', new URLSearchParams(query));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.details).toHaveLength(MAX_ERROR_DETAILS);
    expect(result.message).toBe(`3000 query parameter problems; the first ${MAX_ERROR_DETAILS} are listed.`);
  });

  it('summarizes the problems by name', () => {
    const result = validateQuery('listReviews', new URLSearchParams('limit=0&since=x'));
    expect(result).toMatchObject({ ok: false, message: 'Invalid query parameters: limit, since.' });
    expect(validateQuery('listReviews', new URLSearchParams('limit=0'))).toMatchObject({ message: 'Invalid query parameter: limit.' });
  });

  it('refuses any parameter on the endpoints that take none', () => {
    for (const op of ['getEmbed', 'getOpenApi'] as const) {
      expect(problems('limit=5', op)).toEqual([{ parameter: 'limit', message: 'unknown parameter: this endpoint takes no query parameters' }]);
      expect(problems('a=1&b=2&a=3', op).map((d) => d.parameter)).toEqual(['a', 'b']);
    }
  });

  it('takes only productId (a catalog id, a product widget\'s product) on the schema and the public data', () => {
    for (const op of ['getSchema', 'getPublicWidget'] as const) {
      expect(validateQuery(op, new URLSearchParams('productId=Shoe.red_42'))).toEqual({ ok: true, value: { productId: 'Shoe.red_42' } });
      expect(problems('limit=5', op).map((d) => d.parameter)).toEqual(['limit']);
      expect(problems(`productId=${encodeURIComponent('https://evil.example/')}`, op).map((d) => d.parameter)).toEqual(['productId']);
      expect(problems('a=1&b=2&a=3', op).map((d) => d.parameter)).toEqual(['a', 'b']);
    }
  });

  it('takes productId alone on getStats, validated as a catalog id', () => {
    expect(validateQuery('getStats', new URLSearchParams('productId=Shoe.red_42'))).toEqual({ ok: true, value: { productId: 'Shoe.red_42' } });
    expect(validateQuery('getStats', new URLSearchParams(''))).toEqual({ ok: true, value: {} });
    expect(problems('limit=5', 'getStats').map((d) => d.parameter)).toEqual(['limit']);
    expect(problems('productId=a/b', 'getStats').map((d) => d.parameter)).toEqual(['productId']);
    expect(problems(`productId=${'x'.repeat(101)}`, 'getStats').map((d) => d.parameter)).toEqual(['productId']);
    expect(validateQuery('listReviews', new URLSearchParams('productId=SKU-1'))).toEqual({ ok: true, value: { limit: 20, offset: 0, productId: 'SKU-1' } });
  });

  it('never throws, and every accepted query is within the documented bounds', () => {
    fc.assert(
      fc.property(hostileQueryString(), (query) => {
        const result = validateQuery('listReviews', new URLSearchParams(query));
        if (!result.ok) {
          expect(result.details.length).toBeGreaterThan(0);
          expect(result.details.length).toBeLessThanOrEqual(MAX_ERROR_DETAILS);
          return;
        }
        const v = result.value;
        expect(Number.isInteger(v.limit) && v.limit >= 1 && v.limit <= 100).toBe(true);
        expect(Number.isInteger(v.offset) && v.offset >= 0 && v.offset <= 10_000_000).toBe(true);
        if (v.minRating !== undefined) expect(v.minRating >= 1 && v.minRating <= 5).toBe(true);
        if (v.maxRating !== undefined) expect(v.maxRating >= 1 && v.maxRating <= 5).toBe(true);
        if (v.minRating !== undefined && v.maxRating !== undefined) expect(v.minRating).toBeLessThanOrEqual(v.maxRating);
        if (v.since !== undefined) expect(Number.isFinite(v.since.getTime())).toBe(true);
        if (v.platform !== undefined) expect(v.platform).toMatch(/^[A-Z][A-Z0-9_]{0,31}$/);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('validateQuery reads its rules from the OpenAPI document', () => {
  const params = openApiDocument().paths['/reviews']?.get.parameters ?? [];
  const schemaOf = (name: string) => params.find((p) => p.name === name)?.schema;

  it('uses the documented bounds and defaults', () => {
    const limit = schemaOf('limit');
    const offset = schemaOf('offset');
    expect(limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(list('').limit).toBe(limit?.default);
    expect(list(`limit=${String(limit?.maximum)}`).limit).toBe(limit?.maximum);
    expect(onlyProblem(`limit=${Number(limit?.maximum) + 1}`).parameter).toBe('limit');
    expect(list(`offset=${String(offset?.maximum)}`).offset).toBe(offset?.maximum);
    expect(onlyProblem(`offset=${Number(offset?.maximum) + 1}`).parameter).toBe('offset');
  });

  it('accepts exactly the documented parameter names', () => {
    expect(params.map((p) => p.name)).toEqual(['limit', 'offset', 'platform', 'minRating', 'maxRating', 'since', 'language', 'productId']);
    expect(params.every((p) => p.in === 'query' && p.required === false)).toBe(true);
  });
});

describe('validQuery remembers valid query strings', () => {
  it('answers as validateQuery, throws the 400 for invalid strings every time, and forgets when full', () => {
    const fresh = validQuery('listReviews', 'limit=5&platform=google');
    expect(fresh).toEqual({ limit: 5, offset: 0, platform: 'GOOGLE' });
    expect(validQuery('listReviews', 'limit=5&platform=google')).toEqual(fresh);
    expect(Object.isFrozen(validQuery('listReviews', 'limit=5&platform=google'))).toBe(true);
    for (let round = 0; round < 2; round++) {
      expect(() => validQuery('listReviews', 'limit=0')).toThrow(expect.objectContaining({ status: 400, code: 'invalid_parameter' }));
    }
    // The same string for another operation is that operation's answer.
    expect(() => validQuery('getStats', 'limit=5&platform=google')).toThrow(expect.objectContaining({ status: 400 }));
    // More strings than are remembered: each still answers right.
    for (let i = 0; i < VALID_QUERY_MEMO + 10; i++) expect(validQuery('listReviews', `offset=${i}`).offset).toBe(i);
    expect(validQuery('listReviews', 'offset=3').offset).toBe(3);
  });

  it('gives each caller a Date of its own: mutating one never changes the next answer', () => {
    const first = validQuery('listReviews', 'since=2026-01-02');
    const time = first.since!.getTime();
    first.since!.setTime(0);
    expect(validQuery('listReviews', 'since=2026-01-02').since!.getTime()).toBe(time);
  });
});
