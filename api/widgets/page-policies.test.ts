/**
 * Headers of the public widget pages (issue 25 item 10 and a cosmetic):
 * the server-rendered widget is sandboxed; the public data's 405 names the
 * same methods as its OPTIONS answer. (The pages still working in Chromium
 * under their policies: e2e/real-server.spec.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';

describe('public widget pages: policies and Allow', () => {
  let t: TestService;
  let widgetId: string;
  beforeAll(async () => {
    t = await startTestService({ redis: false });
    const { orgId } = await t.org('growth');
    const w = await t.admin('POST', '/admin/widgets', { orgId, name: 'Home', layout: 'list', subject: { type: 'Product', name: 'Shoes', url: 'https://shop.example/shoes' } });
    expect(w.status).toBe(201);
    widgetId = w.body.id as string;
  });
  afterAll(async () => t?.close());

  it('sends a sandboxing CSP with the server-rendered widget', async () => {
    const res = await t.get(`/public/v1/widgets/${widgetId}/html`, { key: null });
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBe("sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; form-action 'none'");
  });

  it('answers POST on the public data 405 with the Allow its OPTIONS answer advertises', async () => {
    const options = await t.get(`/public/v1/widgets/${widgetId}`, { key: null, method: 'OPTIONS' });
    const post = await t.get(`/public/v1/widgets/${widgetId}`, { key: null, method: 'POST' });
    expect(options.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect([post.status, post.headers.allow]).toEqual([405, options.headers.allow]);
  });
});
