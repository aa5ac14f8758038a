import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostileRequest, isSendable, sampleRequests, type FuzzRequest } from './fuzz.ts';
import { validateQuery } from './params.ts';

const KEY = 'rp_live_0123456789abcdefghijklmnopqrstuv';
const WIDGET = 'wgt_demo_1';
const sample = sampleRequests(3000, { apiKeys: [KEY], widgetIds: [WIDGET] }, 7);

function share(predicate: (r: FuzzRequest) => boolean): number {
  return sample.filter(predicate).length / sample.length;
}

describe('hostileRequest', () => {
  it('only makes requests that Node http.request accepts', () => {
    fc.assert(
      fc.property(hostileRequest({ apiKeys: [KEY], widgetIds: [WIDGET] }), (r) => {
        expect(isSendable(r)).toBe(true);
        expect(r.path.length).toBeLessThan(12_000);
      }),
      { numRuns: 3000 },
    );
  });

  it('is deterministic for a seed', () => {
    expect(sampleRequests(50, { apiKeys: [KEY] }, 3)).toEqual(sampleRequests(50, { apiKeys: [KEY] }, 3));
  });

  it('mixes requests that reach the handlers with hostile ones', () => {
    const query = (r: FuzzRequest) => new URLSearchParams(r.path.split('?')[1] ?? '');
    // Enough authenticated, well-formed reads to exercise the store...
    expect(share((r) => r.method === 'GET' && r.headers.authorization === `Bearer ${KEY}`)).toBeGreaterThan(0.2);
    expect(share((r) => r.path.startsWith('/api/v1/reviews?') && validateQuery('listReviews', query(r)).ok)).toBeGreaterThan(0.01);
    expect(share((r) => r.path.includes(`/widgets/${WIDGET}`))).toBeGreaterThan(0.05);
    // ...and every kind of hostility.
    expect(share((r) => r.headers.authorization === undefined)).toBeGreaterThan(0.1);
    expect(share((r) => r.headers.authorization !== undefined && r.headers.authorization !== `Bearer ${KEY}`)).toBeGreaterThan(0.1);
    expect(share((r) => !['GET', 'HEAD'].includes(r.method))).toBeGreaterThan(0.1);
    expect(share((r) => r.method === 'HEAD')).toBeGreaterThan(0.05);
    expect(share((r) => r.body !== undefined)).toBeGreaterThan(0.02);
    expect(share((r) => /[?&;](api_key|apiKey|key|token|access_token|API_KEY|Token)(=|&|$)/.test(r.path))).toBeGreaterThan(0.01);
    expect(share((r) => /__proto__|constructor/.test(r.path))).toBeGreaterThan(0.01);
    expect(share((r) => !/^\/(api\/v1\/(reviews|reviews\/stats|openapi\.json|widgets\/[^/?]+\/(embed|schema))|public\/v1\/widgets\/[^/?]+|healthz|readyz)(\?|$)/.test(r.path))).toBeGreaterThan(0.05);
    expect(share((r) => r.path.length > 1000)).toBeGreaterThan(0.005);
    expect(share((r) => r.headers['x-request-id'] !== undefined && !/^[A-Za-z0-9._:-]{1,128}$/.test(r.headers['x-request-id']))).toBeGreaterThan(0.05);
  });

  it('never uses a real key in the query string or mangles it into a valid one', () => {
    for (const r of sample) {
      expect(r.path).not.toContain(KEY);
      const auth = r.headers.authorization ?? '';
      if (auth.startsWith('Bearer ') && auth !== `Bearer ${KEY}`) expect(auth.slice(7)).not.toBe(KEY);
    }
  });
});

describe('isSendable', () => {
  it('spots what Node would refuse', () => {
    expect(isSendable({ method: 'GET', path: '/a b', headers: {} })).toBe(false);
    expect(isSendable({ method: 'GET', path: '/ü', headers: {} })).toBe(true); // latin-1 passes Node's check
    expect(isSendable({ method: 'GET', path: '/日本', headers: {} })).toBe(false);
    expect(isSendable({ method: 'GET', path: 'relative', headers: {} })).toBe(false);
    expect(isSendable({ method: 'GET', path: '/', headers: { 'x-a': 'line\nbreak' } })).toBe(false);
    expect(isSendable({ method: 'GET', path: '/', headers: { 'bad name': 'x' } })).toBe(false);
  });
});
