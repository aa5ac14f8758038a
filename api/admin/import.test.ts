/**
 * Imports through the admin API: a file that cannot be read is answered with
 * rejected lines, never a 5xx, whatever its bytes.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';

let t: TestService;
let orgId: string;
let key: string;
beforeAll(async () => {
  t = await startTestService({ redis: false });
  ({ orgId, key } = await t.org('growth'));
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

  it('rejects a DIRECT line that says isVerified true by its number and reason (CSV and NDJSON), and imports the rest unverified', async () => {
    const csv = [`${HEADER},isVerified`, 'DIRECT,v1,V1 Ana,5,fine,2026-01-01,false', 'DIRECT,v2,V2 Bob,4,good,2026-01-01,true', 'TRUSTPILOT,v3,V3 Cy,3,ok,2026-01-01,true', 'DIRECT,v4,V4 Di,2,meh,2026-01-01,'].join('\n');
    const res = await importFile('csv', csv);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ imported: 3, rejectedTotal: 1 });
    expect(res.body.rejected).toEqual([{ line: 3, reason: expect.stringMatching(/^isVerified cannot be true on platform DIRECT: only the service's invitation links verify/) }]);
    const ndjson = [
      JSON.stringify({ platform: 'direct', externalId: 'v5', authorName: 'V5 Eve', rating: 5, date: '2026-01-05', isVerified: true }),
      JSON.stringify({ platform: 'DIRECT', externalId: 'v6', authorName: 'V6 Fay', rating: 4, date: '2026-01-05' }),
    ].join('\n');
    const nd = await importFile('ndjson', ndjson);
    expect(nd.body).toMatchObject({ imported: 1, rejectedTotal: 1 });
    expect(nd.body.rejected).toEqual([{ line: 1, reason: expect.stringContaining('platform DIRECT') }]);
    const listed = await t.get('/api/v1/reviews?limit=100', { key });
    const reviews = (listed.body as { data: { authorName: string; platform: string; isVerified: boolean }[] }).data.filter((r) => /^V\d /.test(r.authorName));
    expect(reviews.map((r) => [r.authorName, r.isVerified]).sort()).toEqual([['V1 Ana', false], ['V3 Cy', true], ['V4 Di', false], ['V6 Fay', false]]);
    expect(reviews.filter((r) => r.platform === 'DIRECT' && r.isVerified)).toEqual([]);
  });

  it('imports replies from the optional replyText and replyDate columns (CSV and NDJSON), rejecting a line with a bad replyDate by its number', async () => {
    const csv = [
      `${HEADER},replyText,replyDate`,
      'GOOGLE,r1,Ava,2,slow,2026-01-01,"Sorry, Ava.\nWe have <b>fixed</b> it.",2026-01-02T09:30:00+01:00',
      'GOOGLE,r2,Bea,5,great,2026-01-01,,',
      'GOOGLE,r3,Cal,1,bad,2026-01-01,Thanks for telling us,not-a-date',
      'GOOGLE,r4,Dot,4,good,2026-01-01,Thank you!,2026-01-03',
    ].join('\n');
    const res = await importFile('csv', csv);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ imported: 3, rejectedTotal: 1 });
    // Line 5 of the file: Ava's quoted reply spans lines 2 and 3.
    expect(res.body.rejected).toEqual([{ line: 5, reason: 'replyDate must be an ISO 8601 date or date-time, e.g. 2026-03-02T09:00:00Z' }]);
    const ndjson = [
      JSON.stringify({ platform: 'TRUSTPILOT', externalId: 'n1', authorName: 'Eve', rating: 3, date: '2026-01-05', replyText: 'We are on it.', replyDate: '2026-01-06T10:00:00Z' }),
      JSON.stringify({ platform: 'TRUSTPILOT', externalId: 'n2', authorName: 'Fay', rating: 3, date: '2026-01-05', replyText: 'No date' }),
      JSON.stringify({ platform: 'TRUSTPILOT', externalId: 'n3', authorName: 'Gil', rating: 3, date: '2026-01-05', replyText: 'Bad day', replyDate: '2026-13-01' }),
    ].join('\n');
    const nd = await importFile('ndjson', ndjson);
    expect(nd.body).toMatchObject({ imported: 1, rejectedTotal: 2 });
    expect(nd.body.rejected).toEqual([
      { line: 2, reason: 'replyDate is required with replyText (ISO 8601)' },
      { line: 3, reason: 'replyDate must be an ISO 8601 date or date-time, e.g. 2026-03-02T09:00:00Z' },
    ]);
    // Names of their own: the first test of this file imports an Ana, a Bob, a Cy and a Di of the same date.
    const listed = await t.get('/api/v1/reviews?limit=100', { key });
    const replies = Object.fromEntries((listed.body as { data: { authorName: string; reply: unknown }[] }).data.map((r) => [r.authorName, r.reply]));
    expect(replies).toMatchObject({
      Ava: { text: 'Sorry, Ava.\nWe have <b>fixed</b> it.', date: '2026-01-02T08:30:00.000Z' },
      Bea: null,
      Dot: { text: 'Thank you!', date: '2026-01-03T00:00:00.000Z' },
      Eve: { text: 'We are on it.', date: '2026-01-06T10:00:00.000Z' },
    });
    expect(replies).not.toHaveProperty('Cal');
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
