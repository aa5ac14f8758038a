/**
 * `products` commands of the admin CLI against a running service: the exact
 * --json shapes of CONTRACT §13, the streaming CSV/NDJSON import with its
 * per-line rejections, reviews imported with a productId (one not in the
 * catalog rejects its line), and removal refused while reviews name a product.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';

let t: TestService;
let dir: string;

beforeAll(async () => {
  t = await startTestService({ redis: false });
  dir = mkdtempSync(join(tmpdir(), 'products-cli-'));
}, 60_000);
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'cli.ts'), ...args], {
      env: { ...process.env, DATA_DIR: t.dataDir, ADMIN_PORT: String(t.service.ports.admin), ADMIN_TOKEN: '', REDIS_URL: '', MONGODB_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function json(...args: string[]): Promise<Record<string, unknown>> {
  const res = await cli(...args, '--json');
  expect(res.stderr, `stderr of ${args.join(' ')}`).toBe('');
  expect(res.code).toBe(0);
  const lines = res.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('admin CLI: products', () => {
  it('upserts, lists, imports and removes products with the exact --json shapes', async () => {
    const orgId = (await json('orgs', 'create', '--name', 'Shop', '--plan', 'growth')).id as string;

    const shoe = await json('products', 'upsert', '--org', orgId, '--id', 'shoe-42', '--name', 'Trail Shoe', '--url', 'https://shop.example/shoe', '--image', 'https://cdn.example/shoe.png', '--gtin', '9780306406157', '--brand', 'Acme');
    expect(Object.keys(shoe)).toEqual(['id', 'name', 'url', 'imageUrl', 'gtin', 'brand', 'createdAt']);
    expect(shoe).toMatchObject({ id: 'shoe-42', name: 'Trail Shoe', url: 'https://shop.example/shoe', imageUrl: 'https://cdn.example/shoe.png', gtin: '9780306406157', brand: 'Acme' });
    expect(shoe.createdAt).toMatch(ISO);
    const renamed = await json('products', 'upsert', '--org', orgId, '--id', 'shoe-42', '--name', 'Trail Shoe II');
    expect(renamed).toEqual({ id: 'shoe-42', name: 'Trail Shoe II', url: null, imageUrl: null, gtin: null, brand: null, createdAt: shoe.createdAt });

    // Bad input: a clear message, non-zero exit, nothing on stdout.
    const badGtin = await cli('products', 'upsert', '--org', orgId, '--id', 'x', '--name', 'X', '--gtin', '9780306406158', '--json');
    expect(badGtin.code).not.toBe(0);
    expect(badGtin.stdout).toBe('');
    expect(badGtin.stderr).toMatch(/check digit/);
    const badUrl = await cli('products', 'upsert', '--org', orgId, '--id', 'bad id', '--name', 'X', '--url', 'http://shop.example/x', '--json');
    expect(badUrl.code).not.toBe(0);
    expect(badUrl.stderr).toMatch(/id must be 1-100 characters/);
    expect(badUrl.stderr).toMatch(/url must use https/);

    const csv = join(dir, 'catalog.csv');
    writeFileSync(
      csv,
      [
        'id,name,url,imageUrl,gtin,brand',
        'mug,Coffee Mug,https://shop.example/mug,,036000291452,Acme',
        'shoe-42,"Trail Shoe, third edition",,,,',
        'bad id,Nope,,,,',
        'cap,Cap,,,12345678,',
        '"broken,Quote',
      ].join('\n'),
    );
    const imported = await json('products', 'import', '--org', orgId, csv);
    expect(Object.keys(imported)).toEqual(['imported', 'updated', 'rejected']);
    expect(imported.imported).toBe(1);
    expect(imported.updated).toBe(1);
    const rejected = imported.rejected as { line: number; reason: string }[];
    expect(rejected.map((r) => r.line)).toEqual([4, 5, 6]);
    for (const r of rejected) expect(Object.keys(r)).toEqual(['line', 'reason']);
    expect(rejected[0]!.reason).toMatch(/id must be/);
    expect(rejected[1]!.reason).toMatch(/check digit/);

    const ndjson = join(dir, 'catalog.ndjson');
    writeFileSync(ndjson, ['{"id":"Mug","name":"Big Mug","gtin":"96385074"}', '{"id":"sock","name":"Sock","colour":"red"}', 'not json', ''].join('\n'));
    const nd = await json('products', 'import', '--org', orgId, ndjson);
    expect(nd).toEqual({ imported: 1, updated: 0, rejected: [expect.objectContaining({ line: 2 }), expect.objectContaining({ line: 3 })] });
    expect((nd.rejected as { reason: string }[])[0]!.reason).toMatch(/unknown field "colour"/);

    // Reviews naming products: one not in the catalog rejects its line, naming the id.
    const reviews = join(dir, 'reviews.ndjson');
    writeFileSync(
      reviews,
      [
        { platform: 'DIRECT', externalId: 'r1', authorName: 'Ana', rating: 5, content: 'Great mug', date: '2026-11-01T10:00:00Z', productId: 'mug' },
        { platform: 'DIRECT', externalId: 'r2', authorName: 'Bo', rating: 2, content: 'Chipped', date: '2026-11-02T10:00:00Z', productId: 'mug' },
        { platform: 'DIRECT', externalId: 'r3', authorName: 'Cy', rating: 4, content: 'Nice', date: '2026-11-03T10:00:00Z', productId: 'MUG' },
        { platform: 'DIRECT', externalId: 'r4', authorName: 'Di', rating: 4, content: 'Nice', date: '2026-11-03T10:00:00Z', productId: 'no-such' },
        { platform: 'DIRECT', externalId: 'r5', authorName: 'Ed', rating: 3, content: 'About the shop', date: '2026-11-03T10:00:00Z' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const reviewImport = await json('reviews', 'import', '--org', orgId, reviews);
    expect(reviewImport).toMatchObject({ imported: 3, updated: 0, rejectedTotal: 2 });
    expect(reviewImport.rejected).toEqual([
      { line: 3, reason: expect.stringMatching(/productId "MUG" is not in the organization's product catalog/) },
      { line: 4, reason: expect.stringMatching(/productId "no-such" is not in the organization's product catalog/) },
    ]);
    const stored = await t.service.store.reviews.list({ orgId, limit: 10, offset: 0 });
    expect(Object.fromEntries(stored.items.map((r) => [r.externalId, r.productId]))).toEqual({ r1: 'mug', r2: 'mug', r5: null });

    const list = await json('products', 'list', '--org', orgId);
    expect(Object.keys(list)).toEqual(['data']);
    const rows = list.data as Record<string, unknown>[];
    expect(rows.map((p) => p.id)).toEqual(['Mug', 'mug', 'shoe-42']);
    for (const p of rows) expect(Object.keys(p)).toEqual(['id', 'name', 'url', 'imageUrl', 'gtin', 'brand', 'createdAt', 'reviewCount', 'averageRating']);
    expect(rows.find((p) => p.id === 'mug')).toMatchObject({ name: 'Coffee Mug', gtin: '036000291452', brand: 'Acme', reviewCount: 2, averageRating: 3.5 });
    expect(rows.find((p) => p.id === 'shoe-42')).toMatchObject({ name: 'Trail Shoe, third edition', reviewCount: 0, averageRating: null });

    const refused = await cli('products', 'remove', '--org', orgId, 'mug', '--json');
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/Reviews name the product "mug"/);
    const res = await fetch(`http://127.0.0.1:${t.service.ports.admin}/admin/products/mug?orgId=${orgId}`, { method: 'DELETE', headers: { authorization: `Bearer ${t.service.adminToken}` } });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: 'product_has_reviews' });

    expect(await json('products', 'remove', '--org', orgId, 'shoe-42')).toEqual({ id: 'shoe-42', removed: true });
    const gone = await cli('products', 'remove', '--org', orgId, 'shoe-42', '--json');
    expect(gone.code).not.toBe(0);
    expect(((await json('products', 'list', '--org', orgId)).data as { id: string }[]).map((p) => p.id)).toEqual(['Mug', 'mug']);
  });
});
