/** Authentication, plans and the check order, over real HTTPS with a real Redis. */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { generateKey } from './key-format.ts';
import { AUTH_FAILURES_PER_MINUTE } from './authenticate.ts';
import { openGatedStore } from '../test/gated-store.ts';

const UNAUTHORIZED = { error: 'unauthorized', message: 'Invalid or missing API key.', details: [] };
const FORBIDDEN = { error: 'forbidden', message: 'API access requires a Growth plan or higher.', details: [] };

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => t.close());

describe('authentication', () => {
  it('answers a valid key with 200 and the rate-limit headers', async () => {
    const { key } = await t.org('growth');
    const res = await t.get('/api/v1/reviews', { key });
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    expect(res.headers['x-ratelimit-remaining']).toBe('59');
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it.each([
    ['no header', {}],
    ['no Bearer scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty token', { authorization: 'Bearer ' }],
    ['"Bearer" alone', { authorization: 'Bearer' }],
    ['a 10 KB header', { authorization: `Bearer ${'x'.repeat(10 * 1024)}` }],
    ['a token with spaces', { authorization: 'Bearer abc def' }],
    ['a random token', { authorization: 'Bearer rvp_live_0000000000000000000000000000000000000' }],
    ['a well-formed key that was never issued', { authorization: `Bearer ${generateKey().key}` }],
  ])('answers %s with the exact 401', async (_name, headers) => {
    const res = await t.get('/api/v1/reviews', { headers });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('answers non-ASCII in the Authorization header with 401 or a JSON 400, never a 500', async () => {
    // Node refuses raw non-Latin-1 header bytes on the client side, so send Latin-1 characters.
    const res = await t.get('/api/v1/reviews', { headers: { authorization: 'Bearer rvp_live_\u00e9\u00e8\u00ff' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('rejects a key whose checksum is broken', async () => {
    const { key } = await t.org('growth');
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    const res = await t.get('/api/v1/reviews', { key: key.slice(0, -1) + last });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('refuses a key in the query string with 400, whatever else the request holds', async () => {
    const { key } = await t.org('growth');
    for (const name of ['api_key', 'apiKey', 'key', 'token', 'access_token', 'API_KEY']) {
      const res = await t.get(`/api/v1/reviews?${name}=${key}&limit=500`, { key });
      expect(res.status).toBe(400);
      expect((res.body as { error: string }).error).toBe('api_key_in_query');
      expect(res.text).not.toContain(key);
    }
    // Before authentication too: no key in the header.
    const res = await t.get(`/api/v1/reviews/stats?token=${key}`);
    expect(res.status).toBe(400);
  });

  it('answers free and starter plans with the exact 403, and follows plan changes on the next request', async () => {
    const { orgId, key } = await t.org('free');
    expect((await t.get('/api/v1/reviews', { key })).body).toEqual(FORBIDDEN);
    await t.admin('PATCH', `/admin/orgs/${orgId}`, { plan: 'starter' });
    const starter = await t.get('/api/v1/reviews/stats', { key });
    expect(starter.status).toBe(403);
    expect(starter.body).toEqual(FORBIDDEN);
    await t.admin('PATCH', `/admin/orgs/${orgId}`, { plan: 'agency' });
    const agency = await t.get('/api/v1/reviews', { key });
    expect(agency.status).toBe(200);
    expect(agency.headers['x-ratelimit-limit']).toBe('200');
    await t.admin('PATCH', `/admin/orgs/${orgId}`, { plan: 'growth' });
    expect((await t.get('/api/v1/reviews', { key })).headers['x-ratelimit-limit']).toBe('60');
    await t.admin('PATCH', `/admin/orgs/${orgId}`, { plan: 'free' });
    expect((await t.get('/api/v1/reviews', { key })).status).toBe(403);
  });

  it('applies a revocation to the very next request', async () => {
    const { key, keyId } = await t.org('growth');
    expect((await t.get('/api/v1/reviews', { key })).status).toBe(200);
    const revoked = await t.admin('POST', `/admin/keys/${keyId}/revoke`);
    expect(revoked.body).toEqual({ id: keyId, state: 'revoked' });
    const res = await t.get('/api/v1/reviews', { key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('rejects a key once its expiry passes during the test', async () => {
    const { orgId } = await t.org('growth');
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = await t.admin('POST', '/admin/keys', { orgId, name: 'short-lived', expiresAt });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect((await t.get('/api/v1/reviews', { key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1700));
    expect((await t.get('/api/v1/reviews', { key })).status).toBe(401);
    const list = await t.admin('GET', `/admin/keys?orgId=${orgId}`);
    expect((list.body.data as { name: string; state: string }[]).find((k) => k.name === 'short-lived')!.state).toBe('expired');
  });

  it('records lastUsedAt after use, without blocking the response', async () => {
    const { key, orgId } = await t.org('growth');
    await t.get('/api/v1/reviews', { key });
    // Written after the answer went out (fire and forget): it shows once written.
    const item = await vi.waitFor(
      async () => {
        const list = await t.admin('GET', `/admin/keys?orgId=${orgId}`);
        const listed = (list.body.data as { lastUsedAt: string | null }[])[0]!;
        expect(listed.lastUsedAt).not.toBeNull();
        return listed;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(Date.now() - Date.parse(item.lastUsedAt!)).toBeLessThan(10_000);
  });

  it('limits repeated failed authentication from one address with 429', async () => {
    // A separate instance: the failures of the other tests must not count here.
    const s = await startTestService({ redis: false });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 32; i++) statuses.push((await s.get('/api/v1/reviews', { key: generateKey().key })).status);
      expect(statuses.slice(0, 30).every((x) => x === 401)).toBe(true);
      expect(statuses.slice(30)).toEqual([429, 429]);
      const limited = await s.get('/api/v1/reviews', { key: 'nonsense' });
      expect(limited.status).toBe(429);
      expect((limited.body as { error: string }).error).toBe('rate_limit_exceeded');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // A valid key still works: only failures are limited.
      const { key } = await s.org('growth');
      expect((await s.get('/api/v1/reviews', { key })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('errors and routing', () => {
  it('answers unknown paths with 404 not_found JSON', async () => {
    for (const path of ['/api/v1', '/api/v2/reviews', '/api/v1/reviews/nope', '/api/v1/widgets', '/%2e%2e/etc/passwd', '/api/v1/reviews%00']) {
      const res = await t.get(path);
      expect(res.status, path).toBe(404);
      expect((res.body as { error: string }).error).toBe('not_found');
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it('answers GET / with a small HTML page for people (links to the dashboard, the demo and the API reference), and a favicon; other methods there stay 404 JSON', async () => {
    // Pages for people are outside the API's document: not validated against it.
    const page = await t.get('/', { skipValidation: true });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = page.text;
    for (const href of ['/dashboard', '/api/v1/docs', '/favicon.svg']) expect(html).toContain(`href="${href}"`);
    for (const path of ['/favicon.ico', '/favicon.svg']) {
      const icon = await t.get(path, { skipValidation: true });
      expect([icon.status, icon.headers['content-type']], path).toEqual([200, 'image/svg+xml']);
    }
    const post = await t.get('/', { method: 'POST' });
    expect([post.status, (post.body as { error: string }).error]).toEqual([404, 'not_found']);
  });

  it('answers other methods with 405 and Allow', async () => {
    const { key } = await t.org('growth');
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await t.get('/api/v1/reviews', { method, key });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect((res.body as { error: string }).error).toBe('method_not_allowed');
    }
    const head = await t.get('/api/v1/reviews', { method: 'HEAD', key, skipValidation: true });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('answers oversized headers with a JSON 431', async () => {
    const res = await t.get('/api/v1/reviews', { headers: { 'x-filler': 'y'.repeat(20 * 1024) }, skipValidation: true });
    expect(res.status).toBe(431);
    expect((res.body as { error: string }).error).toBe('request_header_fields_too_large');
  });

  it('keeps a sane incoming X-Request-Id and replaces an insane one', async () => {
    const kept = await t.get('/healthz', { headers: { 'x-request-id': 'req-1234567890' } });
    expect(kept.headers['x-request-id']).toBe('req-1234567890');
    const replaced = await t.get('/healthz', { headers: { 'x-request-id': '<script>' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('HTTPS only', () => {
  it('refuses plain HTTP with 403 https_required, never a redirect', async () => {
    for (const path of ['/api/v1/reviews', '/healthz', '/nope']) {
      const res = await t.plain(path);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'https_required', message: expect.any(String), details: [] });
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it('answers plain HTTP sent to the HTTPS port with the JSON https_required error, not an empty reply', async () => {
    const { key } = await t.org('growth');
    const plainToTls = (method: string) =>
      new Promise<{ status: number; type: string | undefined; text: string }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: t.service.ports.https, path: '/api/v1/reviews', method, headers: { authorization: `Bearer ${key}` } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], text }));
        });
        req.on('error', reject);
        req.end();
      });
    const res = await plainToTls('GET');
    expect(res.status).toBe(403);
    expect(res.type).toBe('application/json; charset=utf-8');
    expect(JSON.parse(res.text)).toEqual({ error: 'https_required', message: expect.any(String), details: [] });
    const head = await plainToTls('HEAD');
    expect([head.status, head.text]).toEqual([403, '']);
    // Connections that close or reset before their first byte harm nothing.
    for (const end of ['close', 'reset'] as const) {
      const socket = connect(t.service.ports.https, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      if (end === 'close') socket.end();
      else socket.resetAndDestroy();
    }
    // TLS on the same port is unaffected.
    expect((await t.get('/api/v1/reviews', { key })).status).toBe(200);
  });

  it('believes forwarded headers only from the addresses of TRUST_PROXY', async () => {
    const { key } = await t.org('growth');
    // Without TRUST_PROXY the header is ignored: the TLS connection decides.
    expect((await t.get('/api/v1/reviews', { key, headers: { 'x-forwarded-proto': 'http' } })).status).toBe(200);
    // The "proxy" connects from 127.0.0.2; the tests' ordinary client (127.0.0.1) is not trusted.
    const proxied = await startTestService({ env: { TRUST_PROXY: '127.0.0.2' } });
    const proxy = '127.0.0.2';
    try {
      const k = (await proxied.org('growth')).key;
      const res = await proxied.get('/api/v1/reviews', { key: k, localAddress: proxy, headers: { 'x-forwarded-proto': 'http' } });
      expect(res.status).toBe(403);
      expect((res.body as { error: string }).error).toBe('https_required');
      expect((await proxied.get('/api/v1/reviews', { key: k, localAddress: proxy, headers: { 'x-forwarded-proto': 'https' } })).status).toBe(200);
      // HTTPS is checked before a key in the query string (CONTRACT §3's order).
      const both = await proxied.get(`/api/v1/reviews?api_key=${k}`, { localAddress: proxy, headers: { 'x-forwarded-proto': 'http' } });
      expect(both.status).toBe(403);
      expect((both.body as { error: string }).error).toBe('https_required');
      expect(both.headers['x-request-id']).toBeTruthy();
      // The proxy forwards to the plain port: its X-Forwarded-Proto decides there.
      expect((await proxied.plain('/api/v1/reviews', { key: k, localAddress: proxy, headers: { 'x-forwarded-proto': 'https' } })).status).toBe(200);
      // The nearest proxy's report is the last value, not the client's first.
      const relayed = await proxied.plain('/api/v1/reviews', { key: k, localAddress: proxy, headers: { 'x-forwarded-proto': 'https, http' } });
      expect(relayed.status).toBe(403);
      expect((await proxied.plain('/api/v1/reviews', { key: k, localAddress: proxy })).status).toBe(403);
      // Anyone else on the plain port is refused whatever its headers (the key would travel in clear text).
      for (const headers of [{}, { 'x-forwarded-proto': 'https' }, { 'x-forwarded-proto': 'https', 'x-forwarded-for': '127.0.0.2' }] as Record<string, string>[]) {
        const direct = await proxied.plain('/api/v1/reviews', { key: k, headers });
        expect(direct.status).toBe(403);
        expect((direct.body as { error: string }).error).toBe('https_required');
      }
      // On the TLS port an untrusted client's X-Forwarded-Proto is ignored.
      expect((await proxied.get('/api/v1/reviews', { key: k, headers: { 'x-forwarded-proto': 'http' } })).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it('counts failed authentication by the real address: invented X-Forwarded-For values do not reset it', async () => {
    const proxied = await startTestService({ env: { TRUST_PROXY: '127.0.0.2' }, redis: false });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < AUTH_FAILURES_PER_MINUTE + 2; i++) {
        const res = await proxied.get('/api/v1/reviews', { key: 'rvp_live_wrong', headers: { 'x-forwarded-for': `198.51.100.${i}` } });
        statuses.push(res.status);
      }
      expect(statuses.slice(0, AUTH_FAILURES_PER_MINUTE).every((s) => s === 401)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
      // Through the trusted proxy, each client address counts on its own.
      const viaProxy = await proxied.get('/api/v1/reviews', { key: 'rvp_live_wrong', localAddress: '127.0.0.2', headers: { 'x-forwarded-for': '198.51.100.77' } });
      expect(viaProxy.status).toBe(401);
    } finally {
      await proxied.close();
    }
  });
});

describe('revocation while a request is in flight', () => {
  it('answers 401 when the key is revoked before the response is written', async () => {
    const gated = await openGatedStore();
    const s = await startTestService({ store: gated.store, redis: false });
    try {
      const { key, keyId } = await s.org('growth');
      gated.arm();
      const pending = s.get('/api/v1/reviews', { key });
      await gated.inside;
      await s.admin('POST', `/admin/keys/${keyId}/revoke`);
      gated.release();
      const res = await pending;
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED);
    } finally {
      await s.close();
      await gated.dispose();
    }
  });
});
