/** Widget endpoints over real HTTPS: embed, schema, public data, static files, demo page. */
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onMongo, startTestService, type TestService } from '../test/harness.ts';
import { generateFixture } from '../reviews/fixtures.ts';
import { ensureDemo } from '../demo/seed.ts';

let t: TestService;
let key: string;
let orgId: string;
let widgetId: string;
let otherKey: string;
let otherWidgetId: string;

beforeAll(async () => {
  t = await startTestService();
  const a = await t.org('growth', 1_000_000);
  const b = await t.org('agency');
  ({ key, orgId } = a);
  otherKey = b.key;
  const fixture = generateFixture({ sizes: [200] });
  await t.service.store.reviews.upsert(orgId, fixture.inputs(fixture.orgIds[0]!), new Date());
  const w = await t.admin('POST', '/admin/widgets', {
    orgId,
    name: 'Shoes',
    layout: 'grid',
    subject: { type: 'Product', name: 'Acme Shoes', url: 'https://shop.example/shoes' },
    options: { maxReviews: 6, minRating: 4, platforms: ['GOOGLE', 'TRUSTPILOT'] },
  });
  expect(w.status).toBe(201);
  widgetId = w.body.id as string;
  otherWidgetId = (await t.admin('POST', '/admin/widgets', { orgId: b.orgId, name: 'Theirs' })).body.id as string;
});
afterAll(async () => t.close());

describe('GET /widgets/{id}/embed', () => {
  it('returns the snippet and the loader script, never the API key', async () => {
    const res = await t.get(`/api/v1/widgets/${widgetId}/embed`, { key });
    expect(res.status).toBe(200);
    const { data } = res.body as { data: { widgetId: string; snippet: string; script: string } };
    expect(data.widgetId).toBe(widgetId);
    expect(data.snippet).toMatch(new RegExp(`<div[^>]+data-rv-widget="${widgetId}"[^>]*min-height:\\d+px`));
    expect(data.snippet).toContain('<script async src="https://localhost:18443/widget/loader.js"></script>');
    expect(data.script).toContain(widgetId);
    expect(`${data.snippet}${data.script}`).not.toContain(key);
    expect(`${data.snippet}${data.script}`).not.toContain('rvp_');
  });

  it("answers another organization's widget and unknown ids with 404, never 403", async () => {
    for (const id of [otherWidgetId, 'wdg_00000000000000000000', 'nope', '..%2f..%2fetc']) {
      const res = await t.get(`/api/v1/widgets/${id}/embed`, { key });
      expect(res.status, id).toBe(404);
      expect((res.body as { error: string }).error).toBe('not_found');
    }
    expect((await t.get(`/api/v1/widgets/${widgetId}/schema`, { key: otherKey })).status).toBe(404);
  });

  it('requires a key and the plan like every endpoint', async () => {
    expect((await t.get(`/api/v1/widgets/${widgetId}/embed`)).status).toBe(401);
    const free = await t.org('free');
    expect((await t.get(`/api/v1/widgets/${widgetId}/embed`, { key: free.key })).status).toBe(403);
  });
});

describe('GET /widgets/{id}/schema', () => {
  it('returns the JSON-LD document with the aggregate over every rated review of the widget platforms', async () => {
    const res = await t.get(`/api/v1/widgets/${widgetId}/schema`, { key });
    expect(res.status).toBe(200);
    const doc = (res.body as { data: Record<string, unknown> }).data;
    expect(doc['@context']).toBe('https://schema.org');
    expect(doc['@type']).toBe('Product');
    expect(doc.name).toBe('Acme Shoes');
    const stats = await t.service.store.reviews.stats({ orgId, now: new Date(), platforms: ['GOOGLE', 'TRUSTPILOT'] });
    const rated = stats.ratingDistribution.filter((b) => b.rating !== null).reduce((s, b) => s + b.count, 0);
    const sum = stats.ratingDistribution.reduce((s, b) => s + (b.rating ?? 0) * b.count, 0);
    expect(doc.aggregateRating).toEqual({ '@type': 'AggregateRating', ratingValue: Math.round((sum * 10) / rated) / 10, reviewCount: rated, bestRating: 5, worstRating: 1 });
    const reviews = doc.review as { reviewRating: { ratingValue: number } }[];
    expect(reviews.length).toBeGreaterThan(0);
    expect(reviews.length).toBeLessThanOrEqual(6);
    for (const r of reviews) expect(r.reviewRating.ratingValue).toBeGreaterThanOrEqual(4);
  });
});

describe('GET /public/v1/widgets/{id}', () => {
  it('serves only what the widget displays, with CORS, ETag and stale-while-revalidate, and no key', async () => {
    const res = await t.get(`/public/v1/widgets/${widgetId}`);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cache-control']).toMatch(/max-age=\d+.*stale-while-revalidate=\d+/);
    const { data } = res.body as { data: Record<string, unknown> };
    expect(data.id).toBe(widgetId);
    expect(JSON.stringify(data)).not.toContain(orgId);
    const reviews = data.reviews as { platform: string; rating: number | null; url: string | null; authorAvatar: string | null }[];
    expect(reviews.length).toBe(6);
    for (const r of reviews) {
      expect(['GOOGLE', 'TRUSTPILOT']).toContain(r.platform);
      expect(r.rating).toBeGreaterThanOrEqual(4);
      if (r.url !== null) expect(r.url.startsWith('https:')).toBe(true);
      if (r.authorAvatar !== null) expect(r.authorAvatar.startsWith('https:')).toBe(true);
      expect(Object.keys(r)).not.toContain('externalId');
    }
    // Product subjects earn stars: the JSON-LD document comes along for injection.
    expect((data.jsonLd as Record<string, unknown>)['@type']).toBe('Product');

    const again = await t.get(`/public/v1/widgets/${widgetId}`, { headers: { 'if-none-match': res.headers.etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('answers unknown widgets with a JSON 404 and preflights with 204', async () => {
    const res = await t.get('/public/v1/widgets/wdg_00000000000000000000');
    expect(res.status).toBe(404);
    expect((res.body as { error: string }).error).toBe('not_found');
    const preflight = await t.get(`/public/v1/widgets/${widgetId}`, { method: 'OPTIONS', headers: { origin: 'https://site.example', 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
  });

  it('leaves the JSON-LD out for a self-serving Organization subject in auto mode, and follows jsonLd on/off', async () => {
    const created = await t.admin('POST', '/admin/widgets', { orgId, name: 'About us', subject: { type: 'Organization', name: 'Acme' } });
    const id = created.body.id as string;
    expect(((await t.get(`/public/v1/widgets/${id}`)).body as { data: { jsonLd: unknown } }).data.jsonLd).toBeNull();
    await t.admin('PATCH', `/admin/widgets/${id}`, { options: { jsonLd: 'on' } });
    expect(((await t.get(`/public/v1/widgets/${id}`)).body as { data: { jsonLd: unknown } }).data.jsonLd).not.toBeNull();
    await t.admin('PATCH', `/admin/widgets/${widgetId}`, { options: { jsonLd: 'off' } });
    expect(((await t.get(`/public/v1/widgets/${widgetId}`)).body as { data: { jsonLd: unknown } }).data.jsonLd).toBeNull();
    await t.admin('PATCH', `/admin/widgets/${widgetId}`, { options: { jsonLd: 'auto' } });
  });

  it('lints a widget through the admin API', async () => {
    const res = await t.admin('GET', `/admin/widgets/${widgetId}/lint`);
    expect(res.status).toBe(200);
    const rules = (res.body.data as { rule: string; link: string }[]).map((f) => f.rule);
    expect(rules).toContain('third-party-reviews');
    for (const f of res.body.data as { link: string }[]) expect(f.link).toMatch(/^https:\/\//);
  });
});

describe('static widget files and the demo page', () => {
  it('serves the loader with a short cache and the hashed bundle immutable, precompressed', async () => {
    const loader = await t.get('/widget/loader.js', { headers: { 'accept-encoding': 'br, gzip' }, skipValidation: true });
    expect(loader.status).toBe(200);
    expect(loader.headers['content-encoding']).toBe('br');
    expect(loader.headers['cache-control']).toMatch(/max-age=300/);
    const source = brotliDecompressSync(loader.raw).toString();
    expect(source.length).toBeGreaterThan(100);
    const bundleName = /widget-[A-Za-z0-9]+\.js/.exec(source)?.[0];
    expect(bundleName).toBeDefined();
    const bundle = await t.get(`/widget/${bundleName}`, { headers: { 'accept-encoding': 'gzip' }, skipValidation: true });
    expect(bundle.status).toBe(200);
    expect(bundle.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(bundle.headers['content-encoding']).toBe('gzip');
    expect(bundle.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(gunzipSync(bundle.raw).length).toBeGreaterThan(1000);
    expect((await t.get('/widget/nope.js')).status).toBe(404);
  });

  it.runIf(onMongo)('has no /demo on the MongoDB store (the demo is the embedded default\'s)', async () => {
    await ensureDemo(t.service.store);
    expect((await t.get('/demo', { skipValidation: true })).status).toBe(404);
  });

  it.skipIf(onMongo)('shows every demo layout with its snippet on /demo', async () => {
    const demo = await ensureDemo(t.service.store);
    const res = await t.get('/demo', { skipValidation: true });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const w of demo.widgets) expect(res.text).toContain(`data-rv-widget="${w.id}"`);
    expect(demo.widgets.map((w) => w.layout).sort()).toEqual(['badge', 'carousel', 'grid', 'list']);
  });
});
