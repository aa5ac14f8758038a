/**
 * Property-based fuzzing of the running app (fast-check): a few thousand
 * generated hostile requests — random query strings, parameter types, headers,
 * paths and methods — over real HTTPS. No answer may be a 5xx, and every
 * answer must be valid against the OpenAPI document.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFixture } from '../reviews/fixtures.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { hostileRequest, type FuzzRequest } from './fuzz.ts';
import { validateResponse } from './response-validator.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);

let t: TestService;
let agent: Agent;
let keys: string[];
let widgetIds: string[];

beforeAll(async () => {
  t = await startTestService();
  agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost', maxSockets: 4 });
  const growth = await t.org('growth', 1_000_000);
  const free = await t.org('free');
  const fixture = generateFixture({ sizes: [300] });
  await t.service.store.reviews.upsert(growth.orgId, fixture.inputs(fixture.orgIds[0]!), new Date());
  const widget = await t.admin('POST', '/admin/widgets', { orgId: growth.orgId, name: 'Fuzz', subject: { type: 'Product', name: 'Fuzz' } });
  const other = await t.admin('POST', '/admin/widgets', { orgId: free.orgId, name: 'Other' });
  keys = [growth.key, free.key];
  widgetIds = [widget.body.id as string, other.body.id as string];
});
afterAll(async () => {
  agent.destroy();
  await t.close();
});

function send(r: FuzzRequest): Promise<{ status: number; headers: Record<string, string>; body: unknown; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: t.service.ports.https, method: r.method, path: r.path, headers: r.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 0, headers, body, text });
      });
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

describe('fuzzing the running app', () => {
  it(`answers ${RUNS} generated hostile requests without a 5xx, each valid against the OpenAPI document`, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(hostileRequest({ apiKeys: keys, widgetIds }), async (r) => {
        const res = await send(r);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, `${r.method} ${r.path}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
        const isStatic = /^\/(widget\/|demo(\?|$)|favicon\.(ico|svg)(\?|$)|(\?|$))/.test(r.path) && res.status === 200;
        if (!isStatic) {
          const problems = validateResponse({ method: r.method, path: r.path, status: res.status, headers: res.headers, body: res.body });
          expect(problems, `${r.method} ${r.path} → ${res.status}: ${res.text.slice(0, 300)}`).toEqual([]);
        }
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261121) },
    );
    // The generator must reach the interesting answers, or the run proved little.
    for (const status of [200, 400, 401, 404, 405]) expect(statuses.get(status) ?? 0, `answers with ${status}`).toBeGreaterThan(0);
  }, 300_000);
});
