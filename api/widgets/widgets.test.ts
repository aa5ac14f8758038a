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
    // Marked up from every platform by choice (jsonLdSources "all"): the honest default is tested in product-widgets.test.ts.
    options: { maxReviews: 6, minRating: 4, platforms: ['GOOGLE', 'TRUSTPILOT'], jsonLdSources: 'all' },
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
    // The data, as /reviews/stats gives it: two decimals (people see it rounded to one, in the widget).
    expect(doc.aggregateRating).toEqual({ '@type': 'AggregateRating', ratingValue: Math.round((sum * 100) / rated) / 100, reviewCount: rated, bestRating: 5, worstRating: 1 });
    expect((doc.aggregateRating as { ratingValue: number }).ratingValue).toBe(stats.averageRating);
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
    // Only what the widget shows: the server applied the filters, the internal name stays inside.
    // `organization` signs the replies, and comes only with one (CONTRACT §15).
    const signed = reviews.some((r) => 'reply' in r) ? ['organization'] : [];
    expect(Object.keys(data).sort()).toEqual(['height', 'id', 'jsonLd', 'layout', 'options', 'reviews', 'rows', 'subject', 'summary', ...signed].sort());
    expect(Object.keys(data.options as object).sort()).toEqual(['accentColor', 'locale', 'reviewLanguages', 'showDates', 'theme']);
    expect(data).not.toHaveProperty('name');
    expect(data.options).not.toHaveProperty('minRating');
    expect(data.options).not.toHaveProperty('platforms');
    expect(data.options).not.toHaveProperty('maxReviews');
    expect(data.subject).toBe('Acme Shoes');
    expect(data.rows).toBe(2);
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

describe('replies in widgets (showReplies)', () => {
  it('public data and server-rendered HTML carry each reply as text under "Response from {organization}", and none with showReplies false', async () => {
    const orgName = (await t.service.store.orgs.get(orgId))!.name;
    const stored = (await t.service.store.reviews.list({ orgId, limit: 1000, offset: 0 })).items;
    const replyOf = new Map(stored.map((r) => [r.id, r.reply]));
    const created = await t.admin('POST', '/admin/widgets', { orgId, name: 'Answered', layout: 'list', options: { maxReviews: 30 } });
    expect(created.status).toBe(201);
    expect((created.body as { options: { showReplies: boolean } }).options.showReplies).toBe(true);
    const id = created.body.id as string;
    const { data } = (await t.get(`/public/v1/widgets/${id}`)).body as { data: { organization?: string; reviews: { id: string; reply?: unknown }[] } };
    expect(data.organization).toBe(orgName);
    expect(data.reviews.filter((r) => r.reply !== undefined).length).toBeGreaterThan(0);
    expect(data.reviews.filter((r) => r.reply === undefined).length).toBeGreaterThan(0);
    for (const r of data.reviews) expect(r.reply ?? null).toEqual(replyOf.get(r.id));

    // Hebrew, right to left: the button and the folded reply are in the markup, the reply's text as text.
    const html = (await t.get(`/public/v1/widgets/${id}/html?lang=he`)).text;
    const first = data.reviews.find((r) => r.reply !== undefined)!;
    expect(html).toContain(`<button type="button" class="rb" aria-expanded="false">תגובה מאת ${orgName}</button>`);
    expect(html.match(/<p class="text reply" dir="auto" hidden>/g)).toHaveLength(data.reviews.slice(0, 4).filter((r) => r.reply !== undefined).length);
    void first;
    expect(html.match(/<script/g)?.length ?? 0).toBeLessThanOrEqual(2);

    const off = await t.admin('PATCH', `/admin/widgets/${id}`, { options: { showReplies: false } });
    expect(off.status).toBe(200);
    const hidden = (await t.get(`/public/v1/widgets/${id}`)).body as { data: Record<string, unknown> & { reviews: object[] } };
    expect(hidden.data).not.toHaveProperty('organization');
    expect(hidden.data.reviews.every((r) => !('reply' in r))).toBe(true);
    expect((await t.get(`/public/v1/widgets/${id}/html?lang=he`)).text).not.toContain('class="rb"');

    const bad = await t.admin('PATCH', `/admin/widgets/${id}`, { options: { showReplies: 'yes' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('options.showReplies');
  });
});

describe('GET /public/v1/widgets/{id}/html', () => {
  it('renders the widget into a declarative shadow root with its CSS, its data and its JSON-LD; review text stays text', async () => {
    const hostile = await t.admin('POST', '/admin/widgets', { orgId, name: 'Hostile', layout: 'list', subject: { type: 'Product', name: '</template><script>alert(1)</script>' }, options: { jsonLdSources: 'all' } });
    const id = hostile.body.id as string;
    const res = await t.get(`/public/v1/widgets/${id}/html?lang=fr`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers.etag).toMatch(/^"/);
    expect(res.headers['cache-control']).toMatch(/max-age=\d+.*stale-while-revalidate/);
    const html = res.text;
    expect(html).toMatch(new RegExp(`^<div class="rv-widget" data-rv-widget="${id}" data-rv-height="\\d+" style="min-height:\\d+px"><template shadowrootmode="open"><style>`));
    expect(html).toContain('<section class="rv list light" aria-label="Avis sur &lt;/template>&lt;script>alert(1)&lt;/script>" lang="fr" dir="ltr"');
    expect(html).toContain('<h2 class="title" id="title">Avis clients</h2>');
    // One template, one JSON data script, one JSON-LD script: nothing from the data became markup.
    expect(html.match(/<template/g)).toHaveLength(1);
    expect(html.match(/<\/template>/g)).toHaveLength(1);
    expect(html.match(/<script/g)).toHaveLength(2);
    const data = JSON.parse(/<script type="application\/json" data-rv-data>([^<]*)<\/script>/.exec(html)![1]!) as { id: string; reviews: unknown[] };
    expect(data.id).toBe(id);
    const publicData = ((await t.get(`/public/v1/widgets/${id}`)).body as { data: { reviews: { content: string }[] } }).data;
    expect(data.reviews).toEqual(publicData.reviews);
    expect(html).toContain('<script type="application/ld+json" data-rv-jsonld="Product &#60;/template&#62;&#60;script&#62;alert(1)&#60;/script&#62;">');
    // The reviews of the first page are in the markup (a list page shows up to four).
    expect(html.match(/<article/g)).toHaveLength(Math.min(4, publicData.reviews.length));

    const again = await t.get(`/public/v1/widgets/${id}/html?lang=fr`, { headers: { 'if-none-match': res.headers.etag! } });
    expect(again.status).toBe(304);
    // Without lang (and the widget's locale on auto): English.
    expect((await t.get(`/public/v1/widgets/${id}/html`, { skipValidation: true })).text).toContain('>Customer reviews</h2>');
  });

  it('refuses unknown or malformed parameters and unknown widgets with the JSON error envelope', async () => {
    const bad = await t.get(`/public/v1/widgets/${widgetId}/html?lang=%3Cscript%3E&x=1`);
    expect(bad.status).toBe(400);
    expect((bad.body as { error: string; details: { parameter: string }[] }).details.map((d) => d.parameter).sort()).toEqual(['lang', 'x']);
    const missing = await t.get('/public/v1/widgets/wdg_00000000000000000000/html');
    expect(missing.status).toBe(404);
    expect((missing.body as { error: string }).error).toBe('not_found');
  });
});

describe('static widget files and the demo page', () => {
  it('serves the loader with a short cache and the hashed chunks immutable, precompressed, and nothing else', async () => {
    const loader = await t.get('/widget/loader.js', { headers: { 'accept-encoding': 'br, gzip' }, skipValidation: true });
    expect(loader.status).toBe(200);
    expect(loader.headers['content-encoding']).toBe('br');
    expect(loader.headers['cache-control']).toMatch(/max-age=300/);
    const source = brotliDecompressSync(loader.raw).toString();
    expect(source.length).toBeGreaterThan(100);
    const chunkName = /widget-framed-[A-Za-z0-9]+\.js/.exec(source)?.[0];
    expect(chunkName).toBeDefined();
    const chunk = await t.get(`/widget/${chunkName}`, { headers: { 'accept-encoding': 'gzip' }, skipValidation: true });
    expect(chunk.status).toBe(200);
    expect(chunk.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(chunk.headers['content-encoding']).toBe('gzip');
    expect(chunk.headers['content-type']).toBe('application/javascript; charset=utf-8');
    // A module imported cross-origin needs CORS.
    expect(chunk.headers['access-control-allow-origin']).toBe('*');
    const code = gunzipSync(chunk.raw).toString();
    expect(code.length).toBeGreaterThan(500);
    // The chunks it imports are served the same way.
    const shared = [...code.matchAll(/"\.\/(widget-shared-[A-Za-z0-9]+\.js)"/g)].map((m) => m[1]!);
    expect(shared.length).toBeGreaterThan(0);
    for (const name of shared) {
      const res = await t.get(`/widget/${name}`, { headers: { 'accept-encoding': 'br' }, skipValidation: true });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-encoding']).toBe('br');
    }
    // Only the manifest's files: a well-formed but unknown chunk name, the manifest, or a path are 404s.
    for (const path of ['/widget/nope.js', '/widget/widget-shared-AAAAAAAA.js', `/widget/${chunkName}.gz`, '/widget/manifest.json', '/widget/..%2Fpackage.json']) {
      expect((await t.get(path, { skipValidation: true })).status, path).toBe(404);
    }
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
