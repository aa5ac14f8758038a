/**
 * Compressed answers (issue 38): the widget's public data and SSR HTML in the
 * form the client accepts, the same on the lean path and through Koa; the
 * developer API's answers above 1 KB compressed, smaller ones as they are;
 * each compressed body decodes to exactly the bytes sent without compression.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { startService, type Service } from '../server.ts';
import { chooseEncoding, MIN_COMPRESS_BYTES } from './compression.ts';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

let service: Service;
let koaOnly: Server;
let dataDir: string;
let ca: string;
let widgetId: string;
let apiKey: string;

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, ca, servername: 'localhost' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) flat[name] = String(value);
        resolve({ status: res.statusCode ?? 0, headers: flat, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The body as the client reads it, by its Content-Encoding. */
function decoded(a: Answer): Buffer {
  const encoding = a.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(a.body);
  if (encoding === 'gzip') return gunzipSync(a.body);
  expect(encoding).toBeUndefined();
  return a.body;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'review-proof-compression-'));
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '18443', HTTP_PORT: '0', ADMIN_PORT: '18444', REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: `cz${process.pid}:` });
  service = await startService(config, { logger: createLogger('silent'), ephemeralPorts: true });
  ca = readFileSync(join(dataDir, 'tls-cert.pem'), 'utf8');
  koaOnly = createServer({ cert: ca, key: readFileSync(join(dataDir, 'tls-key.pem'), 'utf8') }, service.app.koa.callback());
  await new Promise<void>((resolve) => koaOnly.listen(0, '127.0.0.1', resolve));
  const admin = async (path: string, body: string, type = 'application/json') => {
    const res = await fetch(`${service.adminUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${service.adminToken}`, 'content-type': type }, body });
    expect(res.status, path).toBeLessThan(300);
    return (await res.json()) as Record<string, string>;
  };
  const org = await admin('/admin/orgs', JSON.stringify({ name: 'Compression', plan: 'growth' }));
  apiKey = (await admin('/admin/keys', JSON.stringify({ orgId: org.id!, name: 'bench' }))).key!;
  const records = Array.from({ length: 60 }, (_, n) =>
    JSON.stringify({ platform: 'GOOGLE', externalId: `cz-${n}`, authorName: `Reviewer ${n}`, rating: 1 + (n % 5), content: `Review number ${n}: the staff were helpful and the delivery came on time, packed with care.`, date: `2026-11-${String(1 + (n % 27)).padStart(2, '0')}T10:00:00Z` }),
  );
  expect(await admin(`/admin/orgs/${org.id}/reviews?format=ndjson`, records.join('\n'), 'application/x-ndjson')).toMatchObject({ imported: 60 });
  widgetId = (await admin('/admin/widgets', JSON.stringify({ orgId: org.id, name: 'Shop', subject: { type: 'Organization', name: 'Compression Ltd' }, options: { maxReviews: 20 } }))).id!;
});

afterAll(async () => {
  await new Promise((resolve) => koaOnly?.close(resolve));
  await service?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Accept-Encoding', () => {
  it('chooses the acceptable coding of highest weight, brotli on a tie, none when refused', () => {
    expect(chooseEncoding(undefined)).toBeNull();
    expect(chooseEncoding('')).toBeNull();
    expect(chooseEncoding('gzip, deflate, br')).toBe('br');
    expect(chooseEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(chooseEncoding('gzip')).toBe('gzip');
    expect(chooseEncoding('x-gzip')).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip')).toBe('gzip');
    expect(chooseEncoding('br;q=0.5, gzip;q=0.8')).toBe('gzip');
    expect(chooseEncoding('BR')).toBe('br');
    expect(chooseEncoding('*')).toBe('br');
    expect(chooseEncoding('*;q=0')).toBeNull();
    expect(chooseEncoding('gzip;q=0, br;q=0')).toBeNull();
    expect(chooseEncoding('identity')).toBeNull();
    expect(chooseEncoding('deflate')).toBeNull();
    expect(chooseEncoding('br;q=nonsense')).toBe('br');
    expect(chooseEncoding(`${'x,'.repeat(5000)}gzip`)).toBeNull(); // past the first 1,000 characters: not read
  });
});

describe('the public data and SSR HTML', () => {
  const lean = (path: string, headers?: Record<string, string>) => get(service.ports.https, path, headers);
  const koa = (path: string, headers?: Record<string, string>) => get((koaOnly.address() as AddressInfo).port, path, headers);

  it('answers brotli, gzip or the raw bytes as asked, the same on the lean path and through Koa, all decoding to one body', async () => {
    const path = `/public/v1/widgets/${widgetId}`;
    const raw = await lean(path);
    expect(raw.status).toBe(200);
    expect(raw.body.length).toBeGreaterThan(MIN_COMPRESS_BYTES);
    expect(raw.headers['content-encoding']).toBeUndefined();
    expect(raw.headers.vary).toBe('Accept-Encoding');
    for (const [accept, encoding] of [['gzip, deflate, br', 'br'], ['gzip', 'gzip'], ['br;q=0, gzip', 'gzip'], ['identity', undefined]] as const) {
      for (const via of [lean, koa]) {
        const a = await via(path, { 'accept-encoding': accept });
        expect(a.status, accept).toBe(200);
        expect(a.headers['content-encoding'], accept).toBe(encoding);
        expect(Number(a.headers['content-length']), accept).toBe(a.body.length);
        expect(a.headers.etag, accept).toBe(raw.headers.etag);
        expect(decoded(a).equals(raw.body), accept).toBe(true);
        if (encoding) expect(a.body.length, accept).toBeLessThan(raw.body.length / 3);
      }
    }
    // A query string goes through Koa: the same forms there.
    const viaQuery = await lean(`${path}?productId=`, { 'accept-encoding': 'br' });
    expect(viaQuery.status).toBe(400);
    // 304 carries no body in any encoding.
    const notModified = await lean(path, { 'accept-encoding': 'br', 'if-none-match': raw.headers.etag! });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
  });

  it('compresses the server-rendered HTML, decoding to the page sent raw', async () => {
    const path = `/public/v1/widgets/${widgetId}/html?lang=en`;
    const raw = await lean(path);
    expect(raw.status).toBe(200);
    const br = await lean(path, { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    // The widget's files honour the weights too: brotli refused, gzip sent.
    const loader = await lean('/widget/loader.js', { 'accept-encoding': 'br;q=0, gzip' });
    expect(loader.status).toBe(200);
    expect(loader.headers['content-encoding']).toBe('gzip');
    expect(br.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(decoded(br).equals(raw.body)).toBe(true);
  });
});

describe('the developer API', () => {
  const api = (path: string, accept?: string) => get(service.ports.https, path, { authorization: `Bearer ${apiKey}`, ...(accept !== undefined && { 'accept-encoding': accept }) });

  it('compresses a page of reviews above 1 KB, the same JSON whatever the encoding, a repeat the same bytes', async () => {
    const raw = await api('/api/v1/reviews?limit=50');
    expect(raw.status).toBe(200);
    expect(raw.headers['content-encoding']).toBeUndefined();
    expect(raw.headers.vary).toContain('Accept-Encoding');
    expect(raw.body.length).toBeGreaterThan(MIN_COMPRESS_BYTES);
    expect((JSON.parse(raw.body.toString()) as { data: unknown[] }).data).toHaveLength(50);
    for (const [accept, encoding] of [['gzip, deflate, br', 'br'], ['gzip', 'gzip']] as const) {
      const a = await api('/api/v1/reviews?limit=50', accept);
      expect(a.status).toBe(200);
      expect(a.headers['content-encoding']).toBe(encoding);
      expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(a.headers['content-length'])).toBe(a.body.length);
      expect(a.body.length).toBeLessThan(raw.body.length / 2);
      expect(decoded(a).equals(raw.body)).toBe(true);
      // The page again (from the page cache): the same compressed bytes.
      expect((await api('/api/v1/reviews?limit=50', accept)).body.equals(a.body)).toBe(true);
    }
  });

  it('sends an answer below 1 KB as it is, and errors as they are', async () => {
    const stats = await api('/api/v1/reviews/stats', 'br');
    expect(stats.status).toBe(200);
    expect(stats.body.length).toBeLessThan(MIN_COMPRESS_BYTES);
    expect(stats.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(stats.body.toString())).toMatchObject({ data: { totalReviews: 60 } });
    const bad = await api('/api/v1/reviews?limit=nonsense', 'br');
    expect(bad.status).toBe(400);
    expect(bad.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(bad.body.toString())).toMatchObject({ error: 'invalid_parameter' });
  });

  it('answers HEAD without a body or a Content-Encoding it did not apply', async () => {
    const head = await new Promise<Answer>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: service.ports.https, path: '/api/v1/reviews?limit=50', method: 'HEAD', headers: { authorization: `Bearer ${apiKey}`, 'accept-encoding': 'br' }, ca, servername: 'localhost' }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])), body: Buffer.alloc(0) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBeUndefined();
  });
});
