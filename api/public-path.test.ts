/**
 * The lean public path (public-path.ts) answers exactly as the Koa routes do.
 * The same running service is asked twice for every case: through its HTTPS
 * port (the lean path in front of Koa) and through a second HTTPS server that
 * runs only its Koa app. Status, bytes and headers must agree; the limiter
 * counts each request once, also when the lean path hands one to Koa; every
 * answer has one access-log line and one count in the metrics.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { startService, type Service } from './server.ts';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Log lines as the service writes them. */
const lines: Record<string, unknown>[] = [];
let service: Service;
let koaOnly: Server;
let dataDir: string;
let ca: string;
let widgetId: string;

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

/** Fields that differ between any two answers (time, request id, the limiter's count). */
const VARYING = ['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit'];
const stable = (a: Answer) => Object.fromEntries(Object.entries(a.headers).filter(([name]) => !VARYING.includes(name)));

async function counted(route: string, status: string): Promise<number> {
  const text = await (await fetch(`${service.adminUrl}/metrics`, { headers: { authorization: `Bearer ${service.adminToken}` } })).text();
  const pattern = new RegExp(`^http_requests_total\\{(?=[^}]*route="${route.replace(/[/:.]/g, '\\$&')}")(?=[^}]*status="${status}")[^}]*\\} (\\d+)$`, 'gm');
  return [...text.matchAll(pattern)].reduce((sum, m) => sum + Number(m[1]), 0);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'review-proof-public-path-'));
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '18443', HTTP_PORT: '0', ADMIN_PORT: '18444', REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: `pp${process.pid}:` });
  service = await startService(config, { logger: createLogger('info', { write: (chunk: string) => lines.push(JSON.parse(chunk) as Record<string, unknown>) }), ephemeralPorts: true });
  ca = readFileSync(join(dataDir, 'tls-cert.pem'), 'utf8');
  koaOnly = createServer({ cert: ca, key: readFileSync(join(dataDir, 'tls-key.pem'), 'utf8') }, service.app.koa.callback());
  await new Promise<void>((resolve) => koaOnly.listen(0, '127.0.0.1', resolve));
  const admin = async (path: string, body: unknown) =>
    (await (await fetch(`${service.adminUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${service.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as Record<string, string>;
  const org = await admin('/admin/orgs', { name: 'Public path', plan: 'growth' });
  widgetId = (await admin('/admin/widgets', { orgId: org.id, name: 'Shop', subject: { type: 'Product', name: 'Shoes' } })).id!;
});

afterAll(async () => {
  await new Promise((resolve) => koaOnly.close(resolve));
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the lean public path', () => {
  const lean = (path: string, headers?: Record<string, string>) => get(service.ports.https, path, headers);
  const koa = (path: string, headers?: Record<string, string>) => get((koaOnly.address() as AddressInfo).port, path, headers);

  it('answers the widget data, fresh and 304, as the Koa route does, and the limiter counts each once', async () => {
    const browser = { 'accept-encoding': 'gzip, deflate, br', origin: 'https://shop.example' };
    const path = `/public/v1/widgets/${widgetId}`;
    const a = await lean(path, browser);
    const b = await koa(path, browser);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.equals(b.body)).toBe(true);
    expect(stable(a)).toEqual(stable(b));
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers['x-ratelimit-limit']).toBe('600');
    // One client address, one window: each request counted once, whichever way it went.
    expect(Number(b.headers['x-ratelimit-remaining'])).toBe(Number(a.headers['x-ratelimit-remaining']) - 1);

    const etag = a.headers.etag!;
    const c = await lean(path, { ...browser, 'if-none-match': etag, 'x-request-id': 'public-path-304-id' });
    const d = await koa(path, { ...browser, 'if-none-match': etag });
    expect(c.status).toBe(304);
    expect(d.status).toBe(304);
    expect(c.body.length).toBe(0);
    expect(stable(c)).toEqual(stable(d));
    expect(c.headers['x-request-id']).toBe('public-path-304-id');
    expect(Number(c.headers['x-ratelimit-remaining'])).toBe(Number(b.headers['x-ratelimit-remaining']) - 1);

    // An unknown widget goes to Koa with the decision already taken: 404, counted once, not twice.
    const missing = await lean('/public/v1/widgets/wdg_00000000000000000000', browser);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body.toString())).toMatchObject({ error: 'not_found' });
    expect(missing.headers['access-control-allow-origin']).toBe('*');
    expect(Number(missing.headers['x-ratelimit-remaining'])).toBe(Number(d.headers['x-ratelimit-remaining']) - 1);
    const after = await lean(path, browser);
    expect(Number(after.headers['x-ratelimit-remaining'])).toBe(Number(missing.headers['x-ratelimit-remaining']) - 1);
  });

  it('answers the loader and the hashed files, each encoding and 304, as the Koa route does', async () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'widget', 'dist', 'manifest.json'), 'utf8')) as { loader: string; chunks: string[] };
    for (const name of [manifest.loader, manifest.chunks[0]!]) {
      for (const encoding of ['br, gzip', 'gzip', '']) {
        const headers: Record<string, string> = encoding ? { 'accept-encoding': encoding } : {};
        const a = await lean(`/widget/${name}`, headers);
        const b = await koa(`/widget/${name}`, headers);
        expect(a.status, name).toBe(200);
        expect(a.body.equals(b.body), `${name} ${encoding}`).toBe(true);
        expect(stable(a), `${name} ${encoding}`).toEqual(stable(b));
        const c = await lean(`/widget/${name}`, { ...headers, 'if-none-match': a.headers.etag! });
        const d = await koa(`/widget/${name}`, { ...headers, 'if-none-match': a.headers.etag! });
        expect(c.status).toBe(304);
        expect(stable(c)).toEqual(stable(d));
      }
    }
    // Not a file of the manifest: Koa's 404 envelope.
    expect((await lean('/widget/manifest.json')).status).toBe(404);
  });

  it('writes one access-log line and one count per answer, under the route template', async () => {
    const before = await counted('/widget/:file', '200');
    const res = await lean('/widget/loader.js', { 'x-request-id': 'public-path-log-id' });
    expect(res.status).toBe(200);
    expect(await counted('/widget/:file', '200')).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const mine = lines.filter((l) => l.requestId === 'public-path-log-id');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ msg: 'request', method: 'GET', url: '/widget/loader.js', status: 200, ms: expect.any(Number) });

    const data = `/public/v1/widgets/${widgetId}`;
    const before304 = await counted('/public/v1/widgets/:id', '304');
    const fresh = await lean(data);
    expect((await lean(data, { 'if-none-match': fresh.headers.etag!, 'x-request-id': 'public-path-log-304' })).status).toBe(304);
    expect(await counted('/public/v1/widgets/:id', '304')).toBe(before304 + 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.filter((l) => l.requestId === 'public-path-log-304')).toMatchObject([{ msg: 'request', status: 304, url: data }]);
  });

  it('leaves HEAD and query strings to Koa', async () => {
    const path = `/public/v1/widgets/${widgetId}`;
    const withQuery = await lean(`${path}?x=1`);
    expect(withQuery.status).toBe(400);
    expect(JSON.parse(withQuery.body.toString())).toMatchObject({ error: 'invalid_parameter' });
    const head = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: service.ports.https, path, method: 'HEAD', ca, servername: 'localhost' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(head).toBe(200);
  });
});
