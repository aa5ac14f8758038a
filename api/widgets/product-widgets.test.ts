/**
 * Product widgets and honest rich results (CONTRACT §13), over real HTTPS on both stores:
 * the options and their validation (admin API, CLI), public data, server-rendered HTML and
 * the schema endpoint per product, and JSON-LD built from DIRECT reviews by default.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import type { ReviewInput } from '../store/types.ts';
import { ensureDemo } from '../demo/seed.ts';
import { DEMO_PRODUCTS } from '../demo/demo-direct.ts';
import { validateJsonLd } from '../../schema/testing/validate.ts';

let t: TestService;
let key: string;
let orgId: string;

const SHOE = { id: 'trail-shoe-42', name: 'Trail Shoe 42', url: 'https://shop.example/trail-shoe', imageUrl: 'https://shop.example/trail-shoe.jpg', gtin: '4006381333931', brand: 'Acme' };
const SOCK = { id: 'wool.sock_1', name: 'Wool Sock', url: 'https://shop.example/sock', imageUrl: null, gtin: null, brand: null };

let seq = 0;
function review(platform: string, rating: number | null, productId: string | null, author = `Person ${++seq}`): ReviewInput {
  seq += 1;
  return {
    platform,
    externalId: `ext-${seq}`,
    authorName: author,
    authorAvatar: null,
    rating,
    content: `Review ${seq} about ${productId ?? 'the shop'}`,
    date: new Date(Date.UTC(2026, 9, 1 + (seq % 27))).toISOString(),
    url: null,
    language: 'en',
    isVerified: false,
    sentiment: null,
    sentimentLabel: null,
    aiSummary: null,
    aiThemes: [],
    productId,
  };
}

beforeAll(async () => {
  t = await startTestService();
  ({ key, orgId } = await t.org('growth', 1_000_000));
  const now = new Date();
  for (const p of [SHOE, SOCK]) await t.service.store.products.upsert({ orgId, ...p }, now);
  await t.service.store.reviews.upsert(
    orgId,
    [
      // The shoe: three DIRECT reviews (5, 4, 3) and Google ones that must not count in its markup.
      review('DIRECT', 5, SHOE.id),
      review('DIRECT', 4, SHOE.id),
      review('DIRECT', 3, SHOE.id),
      review('GOOGLE', 1, SHOE.id),
      review('GOOGLE', 1, SHOE.id),
      // The sock: one DIRECT review.
      review('DIRECT', 2, SOCK.id),
      // The shop itself: platform reviews and one DIRECT review.
      review('GOOGLE', 5, null),
      review('TRUSTPILOT', 4, null),
      review('DIRECT', 5, null),
    ],
    now,
  );
});
afterAll(async () => t?.close());

async function widget(body: Record<string, unknown>): Promise<string> {
  const res = await t.admin('POST', '/admin/widgets', { orgId, name: 'W', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

type Doc = Record<string, unknown> & { aggregateRating?: { ratingValue: number; reviewCount: number }; review?: { reviewRating: { ratingValue: number } }[] };

describe('product widget options', () => {
  it('validates productId, productFrom and jsonLdSources, and knows the catalog', async () => {
    const bad = await t.admin('POST', '/admin/widgets', { orgId, name: 'x', options: { productId: 'https://evil.example/x', productFrom: 'url', jsonLdSources: 'some' } });
    expect(bad.status).toBe(400);
    expect((bad.body.details as { parameter: string }[]).map((d) => d.parameter).sort()).toEqual(['options.jsonLdSources', 'options.productFrom', 'options.productId']);
    const both = await t.admin('POST', '/admin/widgets', { orgId, name: 'x', options: { productId: SHOE.id, productFrom: 'page' } });
    expect(both.status).toBe(400);
    expect(both.body.details).toEqual([{ parameter: 'options.productFrom', message: expect.stringContaining('not both') }]);
    const unknown = await t.admin('POST', '/admin/widgets', { orgId, name: 'x', options: { productId: 'no-such-product' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('product_not_found');

    // New widgets are honest; choosing a product leaves "the page's product", and the other way round.
    const id = await widget({ options: { productFrom: 'page' } });
    const created = (await t.admin('GET', `/admin/widgets/${id}`)).body as { options: Record<string, unknown> };
    expect(created.options).toMatchObject({ productFrom: 'page', productId: null, jsonLdSources: 'direct' });
    const toShoe = await t.admin('PATCH', `/admin/widgets/${id}`, { options: { productId: SHOE.id } });
    expect(toShoe.body.options).toMatchObject({ productId: SHOE.id, productFrom: null });
    const toPage = await t.admin('PATCH', `/admin/widgets/${id}`, { options: { productFrom: 'page' } });
    expect(toPage.body.options).toMatchObject({ productId: null, productFrom: 'page' });
    expect((await t.admin('PATCH', `/admin/widgets/${id}`, { options: { productId: 'gone' } })).body.error).toBe('product_not_found');
  });

  it('sets them from the CLI: --product-id, --product-from page, --json-ld-sources', async () => {
    const cli = (...args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../admin/cli.ts'), ...args, '--json'], {
          env: { ...process.env, DATA_DIR: t.dataDir, ADMIN_PORT: String(t.service.ports.admin), ADMIN_TOKEN: '', REDIS_URL: '', MONGODB_URL: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('exit', (code) => resolve({ code, stdout, stderr }));
      });
    const created = await cli('widgets', 'create', '--org', orgId, '--name', 'Shoe', '--product-id', SHOE.id, '--json-ld-sources', 'all');
    expect(created.code, created.stderr).toBe(0);
    const w = JSON.parse(created.stdout) as { id: string; options: Record<string, unknown> };
    expect(w.options).toMatchObject({ productId: SHOE.id, productFrom: null, jsonLdSources: 'all' });
    const updated = await cli('widgets', 'update', w.id, '--product-from', 'page', '--json-ld-sources', 'direct');
    expect(updated.code, updated.stderr).toBe(0);
    expect((JSON.parse(updated.stdout) as { options: Record<string, unknown> }).options).toMatchObject({ productId: null, productFrom: 'page', jsonLdSources: 'direct' });
    const both = await cli('widgets', 'update', w.id, '--product-from', 'page', '--product-id', SHOE.id);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('exclusive');
  });
});

describe('a product widget', () => {
  it('shows only its product, and its JSON-LD is that Product with its DIRECT reviews only', async () => {
    const id = await widget({ layout: 'grid', options: { productId: SHOE.id } });
    const pub = await t.get(`/public/v1/widgets/${id}`);
    expect(pub.status).toBe(200);
    const data = (pub.body as { data: { subject: string; reviews: { platform: string; content: string }[]; summary: { totalReviews: number }; jsonLd: Doc | null } }).data;
    expect(data.subject).toBe(SHOE.name);
    expect(data.reviews).toHaveLength(5);
    for (const r of data.reviews) expect(r.content).toContain(SHOE.id);
    expect(data.summary.totalReviews).toBe(5);

    const schema = await t.get(`/api/v1/widgets/${id}/schema`, { key });
    expect(schema.status).toBe(200);
    const doc = (schema.body as { data: Doc }).data;
    expect(doc).toMatchObject({
      '@type': 'Product',
      name: SHOE.name,
      sku: SHOE.id,
      url: SHOE.url,
      image: SHOE.imageUrl,
      gtin: SHOE.gtin,
      brand: { '@type': 'Brand', name: 'Acme' },
      // (5 + 4 + 3) / 3: the two Google reviews of the shoe are shown, never marked up.
      aggregateRating: { '@type': 'AggregateRating', ratingValue: 4, reviewCount: 3, bestRating: 5, worstRating: 1 },
    });
    expect(doc.review!.map((r) => r.reviewRating.ratingValue).sort()).toEqual([3, 4, 5]);
    // The public data injects the same document.
    expect(data.jsonLd).toEqual(doc);

    // The structured-data lint: Product rules pass, nothing self-serving, no error at all.
    const lint = await t.admin('GET', `/admin/widgets/${id}/lint`);
    const findings = lint.body.data as { rule: string; severity: string }[];
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(findings.map((f) => f.rule)).not.toContain('self-serving-reviews');
    expect(findings.map((f) => f.rule)).not.toContain('third-party-reviews');

    // productId on a widget of one product: its own id or none.
    expect((await t.get(`/public/v1/widgets/${id}?productId=${SHOE.id}`)).status).toBe(200);
    expect((await t.get(`/public/v1/widgets/${id}?productId=${SOCK.id}`)).status).toBe(400);
  });

  it('passes the structured-data validator as a catalog Product: sku, gtin, brand, url, image, aggregateRating and review', async () => {
    // The widget of one product and the widget of the page's product, as the schema endpoint and the public data give them.
    const one = await widget({ layout: 'grid', options: { productId: SHOE.id } });
    const ofPage = await widget({ layout: 'list', subject: { type: 'Organization', name: 'Shop' }, options: { productFrom: 'page' } });
    const docs: [string, Doc][] = [
      ['schema of one product', ((await t.get(`/api/v1/widgets/${one}/schema`, { key })).body as { data: Doc }).data],
      ['public data of the page product', ((await t.get(`/public/v1/widgets/${ofPage}?productId=${SHOE.id}`)).body as { data: { jsonLd: Doc } }).data.jsonLd],
      ['a product without gtin, brand or image', ((await t.get(`/api/v1/widgets/${ofPage}/schema?productId=${encodeURIComponent(SOCK.id)}`, { key })).body as { data: Doc }).data],
    ];
    expect(Object.keys(docs[0]![1]).sort()).toEqual(['@context', '@type', 'aggregateRating', 'brand', 'gtin', 'image', 'name', 'review', 'sku', 'url'].sort());
    for (const [what, doc] of docs) {
      expect(doc, what).toMatchObject({ '@type': 'Product', aggregateRating: expect.any(Object), review: expect.any(Array) });
      const report = await validateJsonLd(JSON.parse(JSON.stringify(doc)) as object);
      expect(report.errors, `${what}: ${JSON.stringify(doc)}`).toEqual([]);
    }
  });

  it('of the page takes productId: per product data, HTML, schema and ETags; 404 product_not_found for an unknown one', async () => {
    const id = await widget({ layout: 'list', subject: { type: 'Organization', name: 'Shop' }, options: { productFrom: 'page' } });
    const shoe = await t.get(`/public/v1/widgets/${id}?productId=${SHOE.id}`);
    const sock = await t.get(`/public/v1/widgets/${id}?productId=${encodeURIComponent(SOCK.id)}`);
    expect(shoe.status).toBe(200);
    expect(sock.status).toBe(200);
    const shoeData = (shoe.body as { data: { subject: string; reviews: unknown[]; jsonLd: Doc } }).data;
    const sockData = (sock.body as { data: { subject: string; reviews: unknown[]; jsonLd: Doc } }).data;
    expect([shoeData.subject, shoeData.reviews.length]).toEqual([SHOE.name, 5]);
    expect([sockData.subject, sockData.reviews.length]).toEqual([SOCK.name, 1]);
    expect(sockData.jsonLd).toMatchObject({ '@type': 'Product', name: SOCK.name, sku: SOCK.id, aggregateRating: { ratingValue: 2, reviewCount: 1 } });
    expect(sockData.jsonLd).not.toHaveProperty('gtin');
    // Cached and validated per product.
    expect(shoe.headers.etag).not.toBe(sock.headers.etag);
    expect((await t.get(`/public/v1/widgets/${id}?productId=${SHOE.id}`, { headers: { 'if-none-match': shoe.headers.etag! } })).status).toBe(304);
    expect((await t.get(`/public/v1/widgets/${id}?productId=${encodeURIComponent(SOCK.id)}`, { headers: { 'if-none-match': shoe.headers.etag! } })).status).toBe(200);

    const missing = await t.get(`/public/v1/widgets/${id}?productId=nope`);
    expect(missing.status).toBe(404);
    expect((missing.body as { error: string }).error).toBe('product_not_found');
    // Without the page's product, or with a value that is not a catalog id: a clear 400.
    expect((await t.get(`/public/v1/widgets/${id}`)).status).toBe(400);
    expect((await t.get(`/public/v1/widgets/${id}?productId=${encodeURIComponent('https://evil.example/')}`)).status).toBe(400);

    const html = await t.get(`/public/v1/widgets/${id}/html?productId=${SHOE.id}`);
    expect(html.status).toBe(200);
    expect(html.text).toContain(`data-product-id="${SHOE.id}"`);
    expect(html.text).toContain(`"sku":"${SHOE.id}"`);
    expect(html.text).not.toContain(SOCK.name);
    expect((await t.get(`/public/v1/widgets/${id}/html?productId=nope`)).status).toBe(404);

    const schema = await t.get(`/api/v1/widgets/${id}/schema?productId=${encodeURIComponent(SOCK.id)}`, { key });
    expect(schema.status).toBe(200);
    expect((schema.body as { data: Doc }).data).toEqual(sockData.jsonLd);
    const unknown = await t.get(`/api/v1/widgets/${id}/schema?productId=nope`, { key });
    expect([unknown.status, (unknown.body as { error: string }).error]).toEqual([404, 'product_not_found']);
  });
});

describe('rich results are honest by default', () => {
  it('counts only DIRECT reviews in the markup unless the owner chooses all, and the lint says so', async () => {
    // The shop's own reviews (Google 5, Trustpilot 4, DIRECT 5) and the products' (every review of the organization).
    const honest = await widget({ subject: { type: 'Product', name: 'Everything' } });
    const doc = ((await t.get(`/api/v1/widgets/${honest}/schema`, { key })).body as { data: Doc }).data;
    // DIRECT: 5, 4, 3 (shoe), 2 (sock), 5 (shop) = 19 / 5.
    expect(doc.aggregateRating).toMatchObject({ ratingValue: 3.8, reviewCount: 5 });
    expect(doc.review).toHaveLength(5);

    const all = await widget({ subject: { type: 'Product', name: 'Everything' }, options: { jsonLdSources: 'all' } });
    const allDoc = ((await t.get(`/api/v1/widgets/${all}/schema`, { key })).body as { data: Doc }).data;
    expect(allDoc.aggregateRating).toMatchObject({ reviewCount: 9 });
    const allLint = (await t.admin('GET', `/admin/widgets/${all}/lint`)).body.data as { rule: string; severity: string }[];
    expect(allLint).toContainEqual(expect.objectContaining({ rule: 'third-party-reviews', severity: 'error' }));

    // Only other platforms' reviews: no rating at all, nothing injected, and the lint says why.
    const platformsOnly = await widget({ subject: { type: 'Product', name: 'Everything' }, options: { platforms: ['GOOGLE', 'TRUSTPILOT'] } });
    const bare = ((await t.get(`/api/v1/widgets/${platformsOnly}/schema`, { key })).body as { data: Doc }).data;
    expect(bare).not.toHaveProperty('aggregateRating');
    expect(bare).not.toHaveProperty('review');
    const pub = (await t.get(`/public/v1/widgets/${platformsOnly}`)).body as { data: { reviews: unknown[]; jsonLd: unknown } };
    expect(pub.data.reviews.length).toBe(4);
    expect(pub.data.jsonLd).toBeNull();
    const lint = (await t.admin('GET', `/admin/widgets/${platformsOnly}/lint`)).body.data as { rule: string; message: string }[];
    expect(lint.map((f) => f.rule)).toContain('no-direct-reviews');
    expect(lint.map((f) => f.rule)).not.toContain('third-party-reviews');
    expect(lint.find((f) => f.rule === 'no-direct-reviews')!.message).toContain('GOOGLE');
  });
});

describe('the demo organization', () => {
  it('starts honest: its widgets mark up only its DIRECT reviews, about itself and two catalog products', async () => {
    const demo = await ensureDemo(t.service.store);
    const products = await t.service.store.products.list(demo.orgId);
    expect(products.map((p) => p.id).sort()).toEqual(DEMO_PRODUCTS.map((p) => p.id).sort());
    for (const p of products) expect(p.reviewCount).toBeGreaterThan(0);
    const stats = await t.service.store.reviews.stats({ orgId: demo.orgId, now: new Date() });
    const direct = stats.platforms.find((p) => p.platform === 'DIRECT')!;
    expect(direct.count).toBeGreaterThan(0);
    // Reviews about the organization itself too (no product).
    const all = await t.service.store.reviews.list({ orgId: demo.orgId, platforms: ['DIRECT'], limit: 100, offset: 0 });
    expect(all.items.some((r) => r.productId === null)).toBe(true);
    for (const w of demo.widgets) {
      expect(w.options.jsonLdSources).toBe('direct');
      const data = (await t.get(`/public/v1/widgets/${w.id}`)).body as { data: { summary: { totalReviews: number }; jsonLd: Doc | null } };
      expect(data.data.summary.totalReviews).toBeGreaterThan(direct.count);
      expect(data.data.jsonLd?.aggregateRating).toMatchObject({ reviewCount: direct.count });
    }
    // A product widget of a demo product: that product's DIRECT reviews.
    const res = await t.admin('POST', '/admin/widgets', { orgId: demo.orgId, name: 'Blend', options: { productId: DEMO_PRODUCTS[0]!.id } });
    const doc = ((await t.get(`/public/v1/widgets/${res.body.id as string}`)).body as { data: { jsonLd: Doc } }).data.jsonLd;
    expect(doc).toMatchObject({ '@type': 'Product', sku: DEMO_PRODUCTS[0]!.id, aggregateRating: { reviewCount: products.find((p) => p.id === DEMO_PRODUCTS[0]!.id)!.reviewCount } });
  });
});
