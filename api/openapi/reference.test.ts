import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { REFERENCE_CSP } from './reference.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t.close();
});

const scriptsOf = (html: string): string[] => [...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map((m) => m[1]!);

describe('GET /api/v1/docs: the API reference in the browser', () => {
  it('answers the page without a key, under a CSP that allows only this origin', async () => {
    const res = await t.get('/api/v1/docs', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(REFERENCE_CSP);
    expect(REFERENCE_CSP).toContain("default-src 'none'");
    expect(REFERENCE_CSP).toContain("script-src 'self';");
    expect(REFERENCE_CSP).not.toMatch(/https?:|\*|'unsafe-eval'/);
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).not.toMatch(/<script>|<style|https?:\/\//);
    const scripts = scriptsOf(res.text);
    expect(scripts).toHaveLength(2);
    for (const src of scripts) expect(src).toMatch(/^\/api\/v1\/docs\/[a-z.]+-[0-9a-f]{12}\.js$/);
  });

  it('serves Redoc’s own bundle and the start script as hashed files cached for a year, gzip when asked', async () => {
    const [redoc, start] = scriptsOf((await t.get('/api/v1/docs', { key: null })).text) as [string, string];
    const bundle = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'));
    const plain = await t.get(redoc, { key: null, skipValidation: true });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // Redoc's bundle as shipped, but for the address of its logo on its CDN.
    expect(plain.text).toBe(bundle.toString('utf8').replaceAll('"https://cdn.redoc.ly/redoc/logo-mini.svg"', '""'));
    expect(plain.text).not.toContain('cdn.redoc.ly');
    const gzipped = await t.get(redoc, { key: null, skipValidation: true, headers: { 'accept-encoding': 'gzip, br' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.raw).equals(plain.raw)).toBe(true);
    const startScript = await t.get(start, { key: null, skipValidation: true });
    expect(startScript.text).toContain("Redoc.init('/api/v1/openapi.json'");
  });

  it('answers 404 for any other file and 405 for other methods', async () => {
    const missing = await t.get('/api/v1/docs/redoc.standalone-000000000000.js', { key: null, skipValidation: true });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'not_found' });
    const post = await t.get('/api/v1/docs', { key: null, method: 'POST' });
    expect(post.status).toBe(405);
  });
});
