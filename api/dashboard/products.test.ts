/**
 * The dashboard's Products page API over real HTTPS (CONTRACT §13): a Member
 * reads the catalog a page at a time with each product's review count and
 * average; Owner and Admin add, edit, remove and import, through the one
 * ProductsService: the same validation words as the admin API, 409 when an
 * id is taken or reviews still name the product, the streamed import with
 * its line numbers, and every change audited in the person's name. Every
 * answer is checked against the dashboard's OpenAPI document (test-client).
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateProduct } from '../products/validate.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';

describe('dashboard Products: list, add, edit, remove, import, audit', () => {
  let t: TestService;
  let agent: Agent;
  let orgId: string;
  let owner: Client;
  let member: Client;

  beforeAll(async () => {
    t = await startTestService({ redis: false });
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
    ({ orgId } = await t.org('growth', 100_000));
    for (const [email, role] of [['owner@example.com', 'owner'], ['member@example.com', 'member']] as const) {
      expect((await t.admin('POST', '/admin/users', { orgId, email, role, password: PASSWORD })).status).toBe(201);
    }
    owner = new Client(t, agent);
    member = new Client(t, agent);
    expect((await Promise.all([owner.signIn('owner@example.com', PASSWORD), member.signIn('member@example.com', PASSWORD)])).map((r) => r.status)).toEqual([200, 200]);
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
  });

  it('adds and edits with the API validator’s words per field; a taken id is 409; the id never changes', async () => {
    const bad = { id: 'mug 1', name: ' ', url: 'http://shop.example/mug', gtin: '4006381333932' };
    const refused = await owner.send('POST', '/dashboard/api/products', bad);
    expect(refused.status).toBe(400);
    const expected = validateProduct(bad);
    expect(expected.ok).toBe(false);
    if (expected.ok) return;
    // The same words the form shows before sending, each under its own field.
    expect(refused.body.details).toEqual(expected.problems.map((p) => ({ parameter: p.field, message: p.message })));
    expect(refused.body.details!.map((d) => d.parameter)).toEqual(['id', 'name', 'url', 'gtin']);
    expect(refused.body.details!.find((d) => d.parameter === 'gtin')!.message).toMatch(/check digit/);

    const added = await owner.send('POST', '/dashboard/api/products', { id: 'MUG-1', name: 'Blue mug', url: 'https://shop.example/mug', gtin: '4006381333931', brand: 'Acme' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: 'MUG-1', name: 'Blue mug', gtin: '4006381333931', brand: 'Acme' });
    const again = await owner.send('POST', '/dashboard/api/products', { id: 'MUG-1', name: 'Another' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('product_exists');
    expect(again.body.message).toMatch(/Blue mug/);

    const edited = await owner.send('PATCH', '/dashboard/api/products/MUG-1', { name: 'Blue mug, large', url: 'https://shop.example/mug', imageUrl: 'https://shop.example/mug.jpg', gtin: null, brand: 'Acme' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: 'MUG-1', name: 'Blue mug, large', imageUrl: 'https://shop.example/mug.jpg', gtin: null });
    expect((await owner.send('PATCH', '/dashboard/api/products/MUG-1', { id: 'MUG-2', name: 'x' })).status).toBe(400);
    const unknown = await owner.send('PATCH', '/dashboard/api/products/NOPE', { name: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('product_not_found');
  });

  it('a Member reads the list with review counts and averages, and may change nothing', async () => {
    await owner.send('POST', '/dashboard/api/products', { id: 'TEA', name: 'Green tea' });
    const reviews = [5, 4, null].map((rating, i) => ({ platform: 'DIRECT', externalId: `m${i}`, authorName: `A${i}`, rating, content: 'About the mug.', date: '2026-10-01T10:00:00Z', productId: 'MUG-1' }));
    const imported = await t.admin('POST', `/admin/orgs/${orgId}/reviews?format=json`, reviews);
    expect(imported.body).toMatchObject({ imported: 3, rejectedTotal: 0 });
    const list = await member.send('GET', '/dashboard/api/products');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 2, offset: 0, limit: 50 });
    expect(list.body.data).toEqual([
      expect.objectContaining({ id: 'MUG-1', reviewCount: 3, averageRating: 4.5 }),
      expect.objectContaining({ id: 'TEA', reviewCount: 0, averageRating: null }),
    ]);
    for (const [method, path, body] of [
      ['POST', '/dashboard/api/products', { id: 'X', name: 'X' }],
      ['PATCH', '/dashboard/api/products/TEA', { name: 'X' }],
      ['DELETE', '/dashboard/api/products/TEA', undefined],
      ['GET', '/dashboard/api/products/import', undefined],
    ] as const) {
      const res = await member.send(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await member.send('POST', '/dashboard/api/products/import?format=csv', Buffer.from('id,name\nX,X\n'))).status).toBe(403);
    // Without the CSRF token, even an Owner changes nothing.
    const csrf = owner.csrf;
    owner.csrf = 'wrong';
    expect((await owner.send('DELETE', '/dashboard/api/products/TEA')).status).toBe(403);
    owner.csrf = csrf;
  });

  it('refuses to remove a product reviews name (409), removes it once none does', async () => {
    const refused = await owner.send('DELETE', '/dashboard/api/products/MUG-1');
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('product_has_reviews');
    expect((await owner.send('DELETE', '/dashboard/api/products/TEA')).body).toEqual({ id: 'TEA', removed: true });
    expect((await owner.send('DELETE', '/dashboard/api/products/TEA')).status).toBe(404);
  });

  it('imports a CSV upload streamed like review imports: each bad line named; the run is known afterwards', async () => {
    const csv = ['id,name,gtin,brand', 'P-1,Teapot,,Acme', 'P 2,Bad id,,', 'P-3,Cup,4006381333932,', 'MUG-1,Blue mug (import),,Acme', ''].join('\n');
    const res = await owner.send('POST', '/dashboard/api/products/import?format=csv', Buffer.from(csv));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ imported: 1, updated: 1, rejectedTotal: 2 });
    const rejected = res.body.rejected as { line: number; reason: string }[];
    expect(rejected.map((r) => r.line)).toEqual([3, 4]);
    expect(rejected[0]!.reason).toMatch(/id must be/);
    expect(rejected[1]!.reason).toMatch(/check digit/);
    const status = await owner.send('GET', '/dashboard/api/products/import');
    expect(status.body.run).toMatchObject({ state: 'finished', imported: 1, updated: 1, rejectedTotal: 2 });
    // The review import's own record is another kind's.
    expect((await owner.send('GET', '/dashboard/api/reviews/import')).body.run).toBeNull();
    expect((await owner.send('POST', '/dashboard/api/products/import?format=json', Buffer.from('[]'))).status).toBe(400);
  });

  it('pages the catalog and finds products by id or name', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => JSON.stringify({ id: `bulk-${String(i).padStart(3, '0')}`, name: i === 7 ? 'Special kettle' : `Bulk ${i}` }));
    const res = await owner.send('POST', '/dashboard/api/products/import?format=ndjson', Buffer.from(lines.join('\n')));
    expect(res.body).toMatchObject({ imported: 120, rejectedTotal: 0 });
    const second = await member.send('GET', '/dashboard/api/products?offset=50&limit=50');
    // MUG-1 and P-1 first (byte order: capitals before small letters), then bulk-000…
    expect(second.body.total).toBe(122);
    expect((second.body.data as { id: string }[]).map((p) => p.id)).toEqual(Array.from({ length: 50 }, (_, i) => `bulk-${String(i + 48).padStart(3, '0')}`));
    const found = await member.send('GET', '/dashboard/api/products?q=KETTLE');
    expect(found.body).toMatchObject({ total: 1, data: [{ id: 'bulk-007', name: 'Special kettle' }] });
    expect((await member.send('GET', '/dashboard/api/products?limit=1000')).status).toBe(400);
    expect((await member.send('GET', '/dashboard/api/products?sort=name')).status).toBe(400);
  });

  it('audits every change in the person’s name, in words the audit page reads', async () => {
    const log = await owner.send('GET', '/dashboard/api/audit');
    const records = (log.body.data as { action: string; actor: { email: string }; target: { id: string; label: string }; details: Record<string, string> }[]).filter((r) => r.action.startsWith('product.'));
    const seen = records.map((r) => `${r.action} ${r.target.id}`).reverse();
    expect(seen).toEqual([
      'product.created MUG-1',
      'product.updated MUG-1',
      'product.created TEA',
      'product.removed TEA',
      `product.imported ${orgId}`,
      `product.imported ${orgId}`,
    ]);
    for (const r of records) expect(r.actor.email).toBe('owner@example.com');
    const updated = records.find((r) => r.action === 'product.updated')!;
    expect(updated.target.label).toBe('Blue mug, large (MUG-1)');
    expect(updated.details.changes).toBe('changed name, picture URL, GTIN');
    expect(records.find((r) => r.action === 'product.imported' && r.details.format === 'csv')!.details).toMatchObject({ imported: '1', updated: '1', rejected: '2', interrupted: 'no' });
  });
});
