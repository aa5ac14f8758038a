/**
 * Operability over real HTTPS with a real Redis: health and readiness (also
 * with the service's own Redis killed), the Prometheus endpoint on the admin
 * port, and X-Request-Id on every kind of answer.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateKey } from '../auth/key-format.ts';
import { startRedis } from '../test/global-setup.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import type { Store } from '../store/types.ts';
import { startTestService, type TestResponse, type TestService } from '../test/harness.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format, strictly: every line a comment or one sample, or the test fails. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|[Nn]a[Nn]|[+-]Inf)$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    const rest = (m[2] ?? '').replace(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g, (_all, name: string, value: string) => {
      labels[name] = value.replace(/\\(.)/g, '$1');
      return '';
    });
    if (rest !== '') throw new Error(`bad label set in ${JSON.stringify(line)}`);
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** Sum of the samples named `name` whose labels include `match`. */
function total(samples: Sample[], name: string, match: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

function has(samples: Sample[], name: string, match: Record<string, string> = {}): boolean {
  return samples.some((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));
}

async function metrics(t: TestService, authorization?: string): Promise<{ status: number; contentType: string; text: string; requestId: string | null }> {
  const res = await fetch(`${t.service.adminUrl}/metrics`, {
    headers: authorization === undefined ? {} : { authorization },
  });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text(), requestId: res.headers.get('x-request-id') };
}

async function scrape(t: TestService): Promise<Sample[]> {
  const res = await metrics(t, `Bearer ${t.service.adminToken}`);
  expect(res.status).toBe(200);
  return parseExposition(res.text);
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => t.close());

describe('health', () => {
  it('answers /healthz with 200 {"status":"ok"} and no key', async () => {
    const res = await t.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers /readyz with 200 when the store and Redis answer', async () => {
    const res = await t.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { store: 'ok', redis: 'ok' } });
  });

  it('does not check Redis when none is configured', async () => {
    const solo = await startTestService({ redis: false });
    try {
      const res = await solo.get('/readyz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ready', checks: { store: 'ok' } });
    } finally {
      await solo.close();
    }
  });

  it('refuses other methods with 405 and Allow', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const res = await t.get(path, { method: 'POST' });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
    }
  });

  it('answers 503 naming redis while its Redis is down, stays alive, and is ready again when Redis returns', async () => {
    const redis = await startRedis(inject('redisBin'));
    const s = await startTestService({ env: { REDIS_URL: redis.url } });
    let back: Awaited<ReturnType<typeof startRedis>> | null = null;
    try {
      expect((await s.get('/readyz')).status).toBe(200);
      redis.process.kill('SIGKILL');
      await new Promise((r) => redis.process.once('exit', r));

      let ready: TestResponse | null = null;
      await waitFor('readyz says 503', async () => (ready = await s.get('/readyz')).status === 503, 5000);
      const body = ready!.body as { error: string; message: string; details: { component: string; message: string }[] };
      expect(body.error).toBe('service_unavailable');
      expect(body.message).toMatch(/redis/i);
      expect(body.message).not.toMatch(/store/);
      // The OpenAPI document names each dependency that does not answer as `component`.
      expect(body.details).toEqual([{ component: 'redis', message: expect.any(String) }]);
      expect(ready!.headers['x-request-id']).toBeTruthy();
      // Alive is not ready: /healthz keeps answering.
      const alive = await s.get('/healthz');
      expect(alive.status).toBe(200);
      // Readiness answers within the probe budget even though Redis does not.
      const started = Date.now();
      expect((await s.get('/readyz')).status).toBe(503);
      expect(Date.now() - started).toBeLessThan(2500);

      back = await startRedis(inject('redisBin'), redis.port);
      await waitFor('readyz says 200 again', async () => (await s.get('/readyz')).status === 200);
    } finally {
      back?.process.kill('SIGKILL');
      await s.close();
    }
  }, 60_000);
});

/** A real embedded store whose ping can be made to fail or to hang. */
async function breakableStore(): Promise<{ store: Store; state: { ping: 'ok' | 'fail' | 'hang' }; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'review-proof-ops-store-'));
  const inner = await EmbeddedStore.open(dir);
  const state: { ping: 'ok' | 'fail' | 'hang' } = { ping: 'ok' };
  const store: Store = {
    kind: inner.kind,
    orgs: inner.orgs,
    keys: inner.keys,
    widgets: inner.widgets,
    reviews: inner.reviews,
    moderation: inner.moderation,
    sources: inner.sources,
    webhooks: inner.webhooks,
    products: inner.products,
    replies: inner.replies,
    collect: inner.collect,
    invitations: inner.invitations,
    people: inner.people,
    ping: () => {
      if (state.ping === 'fail') return Promise.reject(new Error('store is not answering'));
      if (state.ping === 'hang') return new Promise<void>(() => {});
      return inner.ping();
    },
    close: () => inner.close(),
  };
  return { store, state, dir };
}

describe('readiness of the store', () => {
  it('answers 503 naming the store when it fails or hangs, and 200 once it answers again', async () => {
    const { store, state, dir } = await breakableStore();
    const s = await startTestService({ store });
    try {
      expect((await s.get('/readyz')).status).toBe(200);
      for (const mode of ['fail', 'hang'] as const) {
        state.ping = mode;
        const started = Date.now();
        const res = await s.get('/readyz');
        expect(Date.now() - started).toBeLessThan(2500);
        expect(res.status).toBe(503);
        const body = res.body as { error: string; message: string; details: { component: string }[] };
        expect(body.error).toBe('service_unavailable');
        expect(body.message).toMatch(/store/);
        expect(body.message).not.toMatch(/redis/);
        expect(body.details.map((d) => d.component)).toEqual(['store']);
        expect((await s.get('/healthz')).status).toBe(200);
      }
      state.ping = 'ok';
      expect((await s.get('/readyz')).status).toBe(200);
    } finally {
      await s.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('metrics on the admin port', () => {
  it('refuses /metrics without the admin token', async () => {
    for (const authorization of [undefined, '', 'Bearer', `Bearer ${t.service.adminToken}x`, `Basic ${t.service.adminToken}`, `Bearer ${t.service.adminToken.slice(0, -1)}`]) {
      const res = await metrics(t, authorization);
      expect(res.status).toBe(401);
      expect(res.text).not.toContain('http_requests_total');
      expect(res.text).not.toContain(t.service.adminToken);
      expect(JSON.parse(res.text)).toMatchObject({ error: 'unauthorized' });
    }
  });

  it('is not served on the public HTTPS port', async () => {
    const res = await t.get('/metrics', { skipValidation: true });
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('http_requests_total');
  });

  it('serves the Prometheus text format with the process metrics', async () => {
    const res = await metrics(t, `Bearer ${t.service.adminToken}`);
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseExposition(res.text);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(has(samples, name), name).toBe(true);
    }
    for (const name of ['http_requests_total', 'http_request_duration_seconds', 'rate_limit_rejections_total', 'store_operation_duration_seconds', 'redis_command_duration_seconds']) {
      expect(res.text).toContain(`# TYPE ${name} `);
    }
  });

  it('counts requests by route template and status, exactly, never by raw path', async () => {
    const { orgId, key } = await t.org('growth', 1000);
    const widget = await t.admin('POST', '/admin/widgets', { orgId, name: 'Metrics widget' });
    expect(widget.status).toBe(201);
    const widgetId = widget.body.id as string;
    const before = await scrape(t);

    for (let i = 0; i < 3; i++) expect((await t.get('/api/v1/reviews?limit=2', { key })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await t.get('/api/v1/reviews')).status).toBe(401);
    expect((await t.get(`/api/v1/widgets/${widgetId}/embed`, { key })).status).toBe(200);
    const missing = `/api/v1/no-such-thing-${Date.now()}`;
    expect((await t.get(missing)).status).toBe(404);
    expect((await t.get('/api/v1/reviews', { method: 'DELETE', key })).status).toBe(405);

    const after = await scrape(t);
    const delta = (match: Record<string, string>) => total(after, 'http_requests_total', match) - total(before, 'http_requests_total', match);
    expect(delta({ route: '/api/v1/reviews', method: 'GET', status: '200' })).toBe(3);
    expect(delta({ route: '/api/v1/reviews', method: 'GET', status: '401' })).toBe(2);
    expect(delta({ route: '/api/v1/reviews', method: 'DELETE', status: '405' })).toBe(1);
    expect(delta({ route: '/api/v1/widgets/:id/embed', method: 'GET', status: '200' })).toBe(1);
    expect(delta({ method: 'GET', status: '404' })).toBe(1);

    // Latency histograms under the same template, with cumulative buckets.
    const buckets = after.filter((s) => s.name === 'http_request_duration_seconds_bucket' && s.labels.route === '/api/v1/reviews' && s.labels.status === '200');
    expect(buckets.length).toBeGreaterThan(3);
    expect(buckets.at(-1)!.labels.le).toBe('+Inf');
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    expect(total(after, 'http_request_duration_seconds_count', { route: '/api/v1/reviews', status: '200' })).toBe(buckets.at(-1)!.value);

    // No raw ids, keys or paths in any label: the series stay bounded.
    const text = (await metrics(t, `Bearer ${t.service.adminToken}`)).text;
    expect(text).not.toContain(widgetId);
    expect(text).not.toContain(orgId);
    expect(text).not.toContain(key);
    expect(text).not.toContain('no-such-thing');
    expect(text).not.toContain(t.service.adminToken);
    for (const s of after.filter((x) => x.name === 'http_requests_total')) {
      expect(s.labels.route, JSON.stringify(s.labels)).toMatch(/^(\/[A-Za-z0-9._{}:-]*)+$|^unmatched$/);
    }
  });

  it('counts rate-limit rejections by limiter', async () => {
    const { key } = await t.org('growth', 2);
    const before = await scrape(t);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await t.get('/api/v1/reviews/stats', { key })).status);
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    const after = await scrape(t);
    expect(total(after, 'rate_limit_rejections_total', { limiter: 'org' }) - total(before, 'rate_limit_rejections_total', { limiter: 'org' })).toBe(3);
    expect(
      total(after, 'http_requests_total', { route: '/api/v1/reviews/stats', status: '429' }) -
        total(before, 'http_requests_total', { route: '/api/v1/reviews/stats', status: '429' }),
    ).toBe(3);
  });

  it('observes store operations and Redis round trips', async () => {
    const { key } = await t.org('growth', 1000);
    const before = await scrape(t);
    expect((await t.get('/api/v1/reviews/stats', { key })).status).toBe(200);
    expect((await t.get('/readyz')).status).toBe(200);
    const after = await scrape(t);
    const storeCount = (s: Sample[]) => total(s, 'store_operation_duration_seconds_count', { store: 'embedded' });
    expect(storeCount(after)).toBeGreaterThan(storeCount(before));
    expect(has(after, 'store_operation_duration_seconds_bucket', { operation: 'keys.findByHash', le: '+Inf' })).toBe(true);
    expect(total(after, 'redis_command_duration_seconds_count') - total(before, 'redis_command_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(has(after, 'redis_command_duration_seconds_bucket', { le: '+Inf' })).toBe(true);
  });
});

describe('request ids', () => {
  const expectId = (res: TestResponse): string => {
    const id = res.headers['x-request-id'];
    expect(id, `${res.status} without X-Request-Id`).toMatch(UUID);
    return id!;
  };

  it('puts X-Request-Id on 200, 400, 401, 403, 404, 405 and 429', async () => {
    const growth = await t.org('growth', 1);
    const free = await t.org('free');
    const seen = new Map<number, string>();
    const record = (res: TestResponse) => seen.set(res.status, expectId(res));
    record(await t.get('/api/v1/reviews', { key: growth.key }));
    record(await t.get('/api/v1/reviews', { key: growth.key }));
    record(await t.get('/api/v1/reviews?limit=0', { key: (await t.org('growth')).key }));
    record(await t.get('/api/v1/reviews'));
    record(await t.get('/api/v1/reviews', { key: free.key }));
    record(await t.get('/nope'));
    record(await t.get('/api/v1/reviews', { method: 'PUT' }));
    record(await t.get('/healthz'));
    expect([...seen.keys()].sort()).toEqual([200, 400, 401, 403, 404, 405, 429]);
    expect(new Set(seen.values()).size).toBe(seen.size);
  });

  it('puts X-Request-Id on the plain-HTTP 403', async () => {
    const res = await t.plain('/api/v1/reviews');
    expect(res.status).toBe(403);
    expect((res.body as { error: string }).error).toBe('https_required');
    expectId(res);
    const head = await t.plain('/healthz', { method: 'HEAD', skipValidation: true });
    expect(head.status).toBe(403);
    expectId(head);
  });

  it('puts X-Request-Id on admin answers, refusals included', async () => {
    expect((await metrics(t)).requestId).toMatch(UUID);
    expect((await metrics(t, `Bearer ${t.service.adminToken}`)).requestId).toMatch(UUID);
  });

  it('gives every request its own id', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, async () => expectId(await t.get('/healthz'))));
    expect(new Set(ids).size).toBe(20);
  });

  it('keeps a sane incoming id', async () => {
    for (const id of ['req-2026-11-21.abc:01', 'ABCDEFGH', 'a'.repeat(128), '0af7651916cd43dd8448eb211c80319c']) {
      const res = await t.get('/api/v1/reviews', { headers: { 'x-request-id': id } });
      expect(res.status).toBe(401);
      expect(res.headers['x-request-id']).toBe(id);
    }
  });

  it('replaces an insane incoming id with a fresh one', async () => {
    const hostile = [
      'short',
      'a'.repeat(129),
      'has space inside it',
      '<script>alert(1)</script>',
      'line\tbreak-ish-tab',
      '../../../../etc/passwd',
      'caf\u00e9-caf\u00e9-caf\u00e9',
      'id1234567, id7654321',
      '',
      // Secrets pasted into the id would be echoed and logged on every line.
      generateKey().key,
      t.service.adminToken.slice(0, 128),
    ];
    for (const id of hostile) {
      const res = await t.get('/healthz', { headers: { 'x-request-id': id } });
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).not.toBe(id);
      expectId(res);
    }
  });

  it('keeps only one id when the header is repeated', async () => {
    // Node joins repeated X-Request-Id headers with ", ", which is not sane: a fresh id.
    const ca = readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8');
    const id = await new Promise<string | string[] | undefined>((resolve, reject) => {
      const req = httpsRequest(`${t.service.baseUrl}/healthz`, { ca, servername: 'localhost' }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers['x-request-id']));
      });
      req.setHeader('x-request-id', ['first-id-123', 'second-id-456']);
      req.on('error', reject);
      req.end();
    });
    expect(typeof id).toBe('string');
    expect(id).toMatch(UUID);
  });
});
