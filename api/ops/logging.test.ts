/**
 * Log hygiene, read from the real service's own log stream: one JSON object a
 * line, the request id on every line of a request, no API key, key hash or
 * admin token anywhere (also at trace level), and a Redis outage logged once
 * per transition.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { generateKey, hashKey } from '../auth/key-format.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { startService, type Service } from '../server.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import type { Store } from '../store/types.ts';
import { startRedis } from '../test/global-setup.ts';
import { validateResponse } from '../openapi/response-validator.ts';

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  [field: string]: unknown;
}

/** Everything the service writes, as raw chunks (to check the framing) and as parsed lines. */
class Capture {
  readonly raw: string[] = [];
  write(chunk: string): void {
    this.raw.push(chunk);
  }
  get text(): string {
    return this.raw.join('');
  }
  lines(): LogLine[] {
    return this.raw.map((chunk) => JSON.parse(chunk) as LogLine);
  }
}

interface Running {
  service: Service;
  capture: Capture;
  dataDir: string;
  get(path: string, headers?: Record<string, string>, method?: string): Promise<{ status: number; requestId: string; text: string }>;
  admin(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

async function start(redisUrl: string, store?: Store): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'review-proof-logs-'));
  const capture = new Capture();
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '18443', HTTP_PORT: '18080', ADMIN_PORT: '18444', REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `log${process.pid}:` });
  // Trace level: whatever any module logs at any level must be clean.
  const service = await startService(config, { logger: createLogger('trace', capture), ephemeralPorts: true, ...(store && { store }) });
  const agent = new Agent({ ca: readFileSync(join(dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
  const get: Running['get'] = (path, headers = {}, method = 'GET') =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: service.ports.https, path, method, headers, agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          // Every answer must still match the OpenAPI document, whatever the request carried.
          let body: unknown;
          try {
            body = text ? (JSON.parse(text) as unknown) : undefined;
          } catch {
            body = undefined;
          }
          const flat: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
          const problems = validateResponse({ method, path, status: res.statusCode ?? 0, headers: flat, body });
          if (problems.length > 0) return reject(new Error(`${method} ${path} breaks the OpenAPI document: ${problems.join('; ')}`));
          resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['x-request-id']), text });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  const admin: Running['admin'] = async (method, path, body, token = service.adminToken) => {
    const res = await fetch(`${service.adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return {
    service,
    capture,
    dataDir,
    get,
    admin,
    async close() {
      agent.destroy();
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function newOrg(r: Running, plan: string, rateLimit?: number): Promise<{ orgId: string; key: string; keyId: string }> {
  const org = await r.admin('POST', '/admin/orgs', { name: 'Log test org', plan, ...(rateLimit !== undefined && { rateLimit }) });
  expect(org.status).toBe(201);
  const key = await r.admin('POST', '/admin/keys', { orgId: org.body.id, name: 'log test' });
  expect(key.status).toBe(201);
  return { orgId: org.body.id as string, key: key.body.key as string, keyId: key.body.id as string };
}

/** A request whose answer the public API's document does not describe (a dashboard redirect): status and request id only. */
function raw(r: Running, path: string, headers: Record<string, string>): Promise<{ status: number; requestId: string }> {
  const agent = new Agent({ ca: readFileSync(join(r.dataDir, 'tls-cert.pem'), 'utf8'), servername: 'localhost' });
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: r.service.ports.https, path, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => {
        agent.destroy();
        resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['x-request-id']) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Lets pino's writes and the access log's `finally` land before the capture is read. */
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('log lines', () => {
  let r: Running;
  beforeAll(async () => {
    r = await start(inject('redisUrl'));
  });
  afterAll(async () => r.close());

  it('writes exactly one JSON object per line', async () => {
    await r.get('/healthz');
    await r.get('/api/v1/reviews?limit=%ZZ&x=\u00e9'.replace('\u00e9', '%C3%A9'));
    await r.get('/api/v1/reviews', { 'user-agent': 'evil\tagent "quoted" {json}' });
    await settle();
    expect(r.capture.raw.length).toBeGreaterThan(3);
    for (const chunk of r.capture.raw) {
      expect(chunk.endsWith('\n'), chunk).toBe(true);
      expect(chunk.indexOf('\n'), chunk).toBe(chunk.length - 1);
      const line = JSON.parse(chunk) as unknown;
      expect(line).toBeTypeOf('object');
      expect(line).not.toBeNull();
      expect(Array.isArray(line)).toBe(false);
      expect(line).toMatchObject({ level: expect.any(Number), time: expect.any(String), msg: expect.any(String) });
    }
  });

  it('carries the request id, kept or generated, on every line of the request, with the final status', async () => {
    // The limited organization admits one request a minute: the second is 429.
    const limited = `Bearer ${(await newOrg(r, 'growth', 1)).key}`;
    const roomy = `Bearer ${(await newOrg(r, 'growth')).key}`;
    const stamp = Date.now();
    const cases: { headers: Record<string, string>; path: string; method?: string; status: number }[] = [
      { headers: { 'x-request-id': `log-ok-${stamp}`, authorization: limited }, path: '/api/v1/reviews', status: 200 },
      { headers: { 'x-request-id': `log-429-${stamp}`, authorization: limited }, path: '/api/v1/reviews', status: 429 },
      { headers: { 'x-request-id': `log-401-${stamp}` }, path: '/api/v1/reviews/stats', status: 401 },
      { headers: { 'x-request-id': `log-404-${stamp}` }, path: '/api/v1/nothing-here', status: 404 },
      { headers: { 'x-request-id': `log-405-${stamp}` }, path: '/api/v1/reviews', method: 'DELETE', status: 405 },
      // No incoming id: the generated one is in the log.
      { headers: { authorization: roomy }, path: '/api/v1/reviews?limit=1000', status: 400 },
    ];
    for (const c of cases) {
      const res = await r.get(c.path, c.headers, c.method);
      expect(res.status).toBe(c.status);
      if (c.headers['x-request-id']) expect(res.requestId).toBe(c.headers['x-request-id']);
      await settle();
      const mine = r.capture.lines().filter((l) => l.requestId === res.requestId);
      expect(mine.length, `no log line for ${c.path} → ${c.status}`).toBeGreaterThanOrEqual(1);
      const access = mine.filter((l) => l.msg === 'request');
      expect(access).toHaveLength(1);
      expect(access[0]).toMatchObject({ method: c.method ?? 'GET', status: c.status });
    }
    // Every access line names its request.
    for (const line of r.capture.lines().filter((l) => l.msg === 'request')) expect(line.requestId).toBeTruthy();
  });

  it('never logs an API key, its hash or the admin token', async () => {
    const { orgId, key, keyId } = await newOrg(r, 'growth', 1000);
    const free = await newOrg(r, 'free');
    const neverIssued = generateKey().key;
    const typo = key.slice(0, -1) + (key.at(-1) === 'A' ? 'B' : 'A');
    const adminToken = r.service.adminToken;
    const widget = await r.admin('POST', '/admin/widgets', { orgId, name: 'Log widget' });
    expect(widget.status).toBe(201);
    const widgetId = widget.body.id as string;

    const auth = (k: string) => ({ authorization: `Bearer ${k}` });
    const calls: [string, Record<string, string>, string?][] = [
      ['/api/v1/reviews', auth(key)],
      ['/api/v1/reviews/stats', auth(key)],
      [`/api/v1/widgets/${widgetId}/embed`, auth(key)],
      [`/api/v1/widgets/${widgetId}/schema`, auth(key)],
      ['/api/v1/reviews', auth(free.key)],
      [`/api/v1/reviews?api_key=${key}`, {}],
      [`/api/v1/reviews?apiKey=${key}`, auth(key)],
      [`/api/v1/reviews?token=${key}&limit=5`, {}],
      [`/api/v1/reviews?access_token=${encodeURIComponent(key)}`, {}],
      [`/api/v1/reviews?KEY=${key}`, {}],
      [`/api/v1/reviews?search=${key}`, auth(key)],
      [`/api/v1/reviews?platform=${key}`, auth(key)],
      [`/public/v1/widgets/${widgetId}?k=${key}`, {}],
      ['/api/v1/reviews', auth(neverIssued)],
      ['/api/v1/reviews', auth(typo)],
      ['/api/v1/reviews', { authorization: `bearer ${key}` }],
      ['/api/v1/reviews', { authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` }],
      ['/api/v1/reviews', { authorization: `Bearer ${adminToken}` }],
      ['/api/v1/reviews', { 'x-api-key': key }],
      ['/api/v1/reviews', { 'x-request-id': key }],
      ['/api/v1/reviews', { 'x-request-id': adminToken.slice(0, 128) }],
      ['/api/v1/reviews', { ...auth(key), 'x-forwarded-for': key, referer: `https://example.com/?api_key=${key}` }],
      ['/api/v1/reviews', auth(key), 'POST'],
    ];
    for (const [path, headers, method] of calls) {
      const res = await r.get(path, headers, method);
      expect(res.status, `${method ?? 'GET'} ${path}`).toBeLessThan(500);
      expect(res.text).not.toContain(key);
    }

    expect((await r.admin('GET', `/admin/keys?orgId=${orgId}`)).status).toBe(200);
    expect((await r.admin('POST', `/admin/keys/${keyId}/revoke`)).status).toBe(200);
    expect((await r.admin('GET', '/admin/orgs', undefined, `${adminToken}x`)).status).toBe(401);
    expect((await r.admin('GET', '/admin/orgs', undefined, key)).status).toBe(401);
    const metrics = await fetch(`${r.service.adminUrl}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(metrics.status).toBe(200);
    await metrics.text();
    // The revoked key, once more: the revocation path logs nothing secret either.
    expect((await r.get('/api/v1/reviews', auth(key))).status).toBe(401);
    await settle();

    const log = r.capture.text;
    expect(log.length).toBeGreaterThan(1000);
    const secrets: Record<string, string> = {
      key,
      'key hash': hashKey(key),
      'key hash (base64)': Buffer.from(hashKey(key), 'hex').toString('base64'),
      'key body without its prefix': key.slice('rvp_live_'.length),
      'free-plan key': free.key,
      'free-plan key hash': hashKey(free.key),
      'never-issued key': neverIssued,
      'never-issued key hash': hashKey(neverIssued),
      'mistyped key': typo,
      'mistyped key hash': hashKey(typo),
      'admin token': adminToken,
      'admin token hash': hashKey(adminToken),
    };
    for (const [name, secret] of Object.entries(secrets)) {
      const leaking = r.capture.raw.filter((line) => line.includes(secret)).map((line) => line.replaceAll(secret, `<${name}>`));
      expect(leaking, `the log holds the ${name}`).toEqual([]);
    }
    expect(log).not.toMatch(/rvp_live_[0-9A-Za-z]{10}/);
    // The requests themselves were logged (the check above is not vacuous).
    expect(r.capture.lines().filter((l) => l.msg === 'request').length).toBeGreaterThanOrEqual(calls.length);
  });

  it('never logs an OAuth code or state: none of the callback\'s query values, nor code, state or token anywhere', async () => {
    const code = `4/0Ab${randomBytes(24).toString('base64url')}`;
    const state = randomBytes(32).toString('base64url');
    const token = randomBytes(24).toString('base64url');
    const scope = `scope-${randomBytes(12).toString('hex')}`;
    const callback = `/dashboard/sources/google/callback?state=${state}&code=${encodeURIComponent(code)}&scope=${scope}`;
    // Google's redirect, as the browser brings it back (no session here: it is sent to sign-in, and logged).
    const answered = await raw(r, callback, { 'x-request-id': `log-oauth-${state.slice(0, 8)}` });
    expect(answered.status).toBe(302);
    // The same names on any path, in any case.
    const elsewhere = await r.get(`/api/v1/reviews?CODE=${encodeURIComponent(code)}&State=${state}`, {});
    const refused = await r.get(`/api/v1/nothing-here?token=${token}`, {});
    expect(refused.status).toBeLessThan(500);
    const ids = [answered.requestId, elsewhere.requestId, refused.requestId];
    await vi.waitFor(() => expect(r.capture.lines().filter((l) => l.msg === 'request' && ids.includes(l.requestId ?? '')).length).toBe(3), { timeout: 5000 });

    const lines = r.capture.lines().filter((l) => ids.includes(l.requestId ?? ''));
    expect(lines.find((l) => l.requestId === answered.requestId && l.msg === 'request')).toMatchObject({ url: '/dashboard/sources/google/callback?state=[redacted]&code=[redacted]&scope=[redacted]', status: 302 });
    for (const [name, secret] of Object.entries({ code, 'code (escaped)': encodeURIComponent(code), state, token, scope })) {
      const leaking = r.capture.raw.filter((line) => line.includes(secret)).map((line) => line.replaceAll(secret, `<${name}>`));
      expect(leaking, `the log holds the ${name}`).toEqual([]);
    }
  });
});

describe('Redis outage in the log', () => {
  it('logs each transition once, however many requests meet the outage', async () => {
    const redis = await startRedis(inject('redisBin'));
    const r = await start(redis.url);
    let back: Awaited<ReturnType<typeof startRedis>> | null = null;
    const unavailable = () => r.capture.lines().filter((l) => /redis (unavailable|command failed)/.test(l.msg));
    const resumed = () => r.capture.lines().filter((l) => /redis is back/.test(l.msg));
    const waitReady = async (status: number) => {
      const deadline = Date.now() + 15_000;
      while ((await r.get('/readyz')).status !== status) {
        if (Date.now() > deadline) throw new Error(`/readyz did not answer ${status} within 15 s`);
        await new Promise((res) => setTimeout(res, 100));
      }
    };
    try {
      const { key } = await newOrg(r, 'growth', 10_000);
      expect((await r.get('/api/v1/reviews', { authorization: `Bearer ${key}` })).status).toBe(200);
      expect(unavailable()).toHaveLength(0);

      for (let round = 1; round <= 2; round++) {
        (back ?? redis).process.kill('SIGKILL');
        await new Promise((res) => (back ?? redis).process.once('exit', res));
        const statuses: number[] = [];
        for (let i = 0; i < 20; i++) statuses.push((await r.get('/api/v1/reviews', { authorization: `Bearer ${key}` })).status);
        for (let i = 0; i < 5; i++) statuses.push((await r.get('/api/v1/reviews')).status);
        expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
        expect(statuses.slice(20).every((s) => s === 401 || s === 429)).toBe(true);
        await waitReady(503);
        await settle();
        expect(unavailable(), `round ${round}`).toHaveLength(round);
        expect(unavailable()[round - 1]!.level).toBe(40);

        back = await startRedis(inject('redisBin'), redis.port);
        await waitReady(200);
        expect((await r.get('/api/v1/reviews', { authorization: `Bearer ${key}` })).status).toBe(200);
        await settle();
        expect(resumed(), `round ${round}`).toHaveLength(round);
      }
      // No request turned into an error line.
      expect(r.capture.lines().filter((l) => l.level >= 50)).toEqual([]);
    } finally {
      back?.process.kill('SIGKILL');
      await r.close();
    }
  }, 90_000);
});

describe('a failure deep inside', () => {
  it('becomes a plain 500 whose error line carries the request id and no secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'review-proof-logs-store-'));
    const inner = await EmbeddedStore.open(dir);
    let broken = false;
    // The reviews store fails the way a driver does: an Error with a stack, thrown from deep inside.
    const reviews = new Proxy(inner.reviews, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (broken) return Promise.reject(new Error('reviews collection is on fire'));
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    });
    const store: Store = { kind: inner.kind, orgs: inner.orgs, keys: inner.keys, widgets: inner.widgets, people: inner.people, reviews, moderation: inner.moderation, sources: inner.sources, webhooks: inner.webhooks, products: inner.products, replies: inner.replies, collect: inner.collect, invitations: inner.invitations, ping: () => inner.ping(), close: () => inner.close() };
    const r = await start(inject('redisUrl'), store);
    try {
      const { key } = await newOrg(r, 'growth', 1000);
      broken = true;
      const id = `deep-failure-${Date.now()}`;
      const res = await r.get('/api/v1/reviews/stats', { authorization: `Bearer ${key}`, 'x-request-id': id });
      expect(res.status).toBe(500);
      expect(res.requestId).toBe(id);
      expect(JSON.parse(res.text)).toEqual({ error: 'internal_error', message: expect.any(String), details: [] });
      expect(res.text).not.toMatch(/on fire|at .*\.ts|node_modules/);
      await settle();

      const mine = r.capture.lines().filter((l) => l.requestId === id);
      const errorLines = mine.filter((l) => l.level >= 50);
      expect(errorLines).toHaveLength(1);
      expect(JSON.stringify(errorLines[0])).toContain('on fire');
      expect(mine.find((l) => l.msg === 'request')).toMatchObject({ status: 500, error: 'internal_error' });
      for (const line of r.capture.raw) {
        expect(line).not.toContain(key);
        expect(line).not.toContain(hashKey(key));
        expect(line).not.toContain(r.service.adminToken);
      }
    } finally {
      await r.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
