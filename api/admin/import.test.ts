/**
 * Imports through the admin API: a file that cannot be read is answered with
 * rejected lines, never a 5xx, whatever its bytes.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';

let t: TestService;
let orgId: string;
beforeAll(async () => {
  t = await startTestService({ redis: false });
  orgId = (await t.org('growth')).orgId;
});
afterAll(() => t.close());

async function importFile(format: string, body: Uint8Array | string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${t.service.adminUrl}/admin/orgs/${orgId}/reviews?format=${format}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.service.adminToken}` },
    body: typeof body === 'string' ? body : Buffer.from(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const HEADER = 'platform,externalId,authorName,rating,content,date';

describe('review import answers', () => {
  it('rejects a CSV record with a stray quote by its line and imports the next ones', async () => {
    const csv = `${HEADER}\nGOOGLE,q1,Ana,5,fine,2026-01-01\nGOOGLE,q2,Bob,4,a "stray" quote,2026-01-01\nGOOGLE,q3,Cy,3,"closed"after,2026-01-01\nGOOGLE,q4,Di,2,ok,2026-01-01\n`;
    const res = await importFile('csv', csv);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ imported: 2, updated: 0, rejectedTotal: 2 });
    expect(res.body.rejected).toEqual([
      { line: 3, reason: expect.stringMatching(/^invalid CSV: a quote inside an unquoted field/) },
      { line: 4, reason: expect.stringMatching(/^invalid CSV: text after the closing quote/) },
    ]);
  });

  const csvish = fc
    .array(fc.constantFrom('"', ',', '\n', '\r', '\r\n', 'GOOGLE', 'x', '5', '2026-01-01', ' ', '""', '\u0000', 'é', '{', '}', '[', ']', ':'), { maxLength: 80 })
    .map((parts) => parts.join(''));
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 3000 }),
    csvish.map((s) => `${HEADER}\n${s}`),
    csvish,
    fc.string({ unit: 'binary', maxLength: 500 }),
    fc.jsonValue().map((v) => JSON.stringify(v)),
  );

  for (const format of ['csv', 'ndjson', 'json']) {
    it(`never answers a ${format} import of arbitrary bytes with a 5xx`, async () => {
      await fc.assert(
        fc.asyncProperty(bytes, async (body) => {
          const res = await importFile(format, body);
          expect(res.status).toBe(200);
          expect(Array.isArray(res.body.rejected)).toBe(true);
          for (const r of res.body.rejected as { line: unknown; reason: unknown }[]) {
            expect(Number.isInteger(r.line)).toBe(true);
            expect(typeof r.reason).toBe('string');
          }
        }),
        { numRuns: 150, seed: 20261123 },
      );
    }, 120_000);
  }
});
