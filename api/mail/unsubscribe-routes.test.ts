/**
 * The unsubscribe link over real HTTPS (a Koa app with only these routes and
 * the service's own self-signed certificate): GET asks and changes nothing,
 * a one-click POST (RFC 8058) unsubscribes at once, the page's button does
 * the same, and a token not made here is the 404 page.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { loadTls } from '../tls.ts';
import { unsubscribePath, registerUnsubscribeRoutes } from './unsubscribe-routes.ts';
import { UnsubscribeTokens } from './unsubscribe-token.ts';

const tokens = new UnsubscribeTokens(randomBytes(32));
const marked: [string, string][] = [];
let server: Server;
let base: string;
let ca: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'unsubscribe-'));
  const tls = await loadTls(loadConfig({ DATA_DIR: dir }), createLogger('silent'));
  ca = tls.cert;
  const app = new Koa();
  const router = new Router();
  registerUnsubscribeRoutes({
    router,
    tokens,
    organizations: { get: async (id) => (id === 'org_shop' ? { name: 'Shop <b>& Co</b>' } : null) },
    unsubscribes: { markUnsubscribed: async (organizationId, email) => void marked.push([organizationId, email]) },
  });
  app.use(router.routes());
  server = createServer({ cert: tls.cert, key: tls.key }, app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://localhost:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  marked.length = 0;
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(method: 'GET' | 'POST', path: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, ca, lookup: (_h, _o, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]), headers: { ...(body !== undefined && { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) }), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const link = (email = 'Ana@Mail.Example'): string => unsubscribePath(tokens.make('org_shop', email));

describe('unsubscribe link', () => {
  it('GET shows the question and a button, in the link’s language, and unsubscribes nobody', async () => {
    const page = await call('GET', `${link()}?lang=de`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<html lang="de"');
    expect(page.body).toContain('Bewertungsanfragen von Shop &lt;b&gt;&amp; Co&lt;/b&gt; an diese E-Mail-Adresse beenden?');
    expect(page.body).toMatch(/<form method="post" action="\/r\/u\/[^"]+\?lang=de"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Abmelden<\/button><\/form>/);
    // The address is nowhere on the page.
    expect(page.body.toLowerCase()).not.toContain('ana@mail.example');
    expect(marked).toEqual([]);
  });

  it('a one-click POST (RFC 8058) unsubscribes at once: no confirmation, no redirect, no cookie needed', async () => {
    const done = await call('POST', link(), 'List-Unsubscribe=One-Click');
    expect(done.status).toBe(200);
    expect(done.headers.location).toBeUndefined();
    expect(done.headers['set-cookie']).toBeUndefined();
    expect(done.body).toContain('Done: Shop &lt;b&gt;&amp; Co&lt;/b&gt; will not send review requests to this address again.');
    expect(marked).toEqual([['org_shop', 'ana@mail.example']]);
    // Again: harmless, the same answer.
    expect((await call('POST', link(), 'List-Unsubscribe=One-Click')).status).toBe(200);
  });

  it('the one-click body as multipart/form-data works too', async () => {
    const boundary = 'XyZ123';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
    const done = await call('POST', link('bo@mail.example'), body, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect(done.status).toBe(200);
    expect(marked).toEqual([['org_shop', 'bo@mail.example']]);
  });

  it('a POST without the one-click body is a 400 page with the button, and unsubscribes nobody', async () => {
    const page = await call('POST', link(), 'something=else');
    expect(page.status).toBe(400);
    expect(page.body).toContain('name="List-Unsubscribe" value="One-Click"');
    expect(marked).toEqual([]);
  });

  it('a token not made here, or of an organization that is gone, is the 404 page (GET and POST)', async () => {
    const token = tokens.make('org_shop', 'ana@mail.example');
    const [org, mac, sealed] = token.split('.') as [string, string, string];
    for (const path of [`/r/u/${org}.${mac.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}.${sealed}`, `/r/u/org_other.${mac}.${sealed}`, '/r/u/nonsense', unsubscribePath(tokens.make('org_gone', 'ana@mail.example'))]) {
      const get = await call('GET', path);
      expect(get.status, path).toBe(404);
      expect(get.body).toContain('Page not found');
      expect((await call('POST', path, 'List-Unsubscribe=One-Click')).status, path).toBe(404);
    }
    expect(marked).toEqual([]);
  });
});
