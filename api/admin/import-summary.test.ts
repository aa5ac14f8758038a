/**
 * What an import's summary tells (issue 28, items 4 and 5): a CSV header
 * without the required columns is one file-level error naming what is
 * missing and what was found; dates without an offset are counted as read
 * in UTC. Through the admin API, the same import the dashboard and CLI use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';

let t: TestService;
let orgId: string;
beforeAll(async () => {
  t = await startTestService({ redis: false });
  orgId = (await t.org('growth')).orgId;
});
afterAll(() => t.close());

async function importFile(format: string, body: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${t.service.adminUrl}/admin/orgs/${orgId}/reviews?format=${format}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.service.adminToken}` },
    body,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe('a CSV header without the required columns', () => {
  it('is one file-level error naming the missing columns and those found, not one error per line', async () => {
    const csv = 'stars,text,when,platform\n5,Great,2026-01-01,GOOGLE\n4,Fine,2026-01-02,GOOGLE\n3,Meh,2026-01-03,GOOGLE\n';
    const body = await importFile('csv', csv);
    expect(body).toMatchObject({ imported: 0, updated: 0, rejectedTotal: 1 });
    expect(body.rejected).toHaveLength(1);
    const [only] = body.rejected as { line: number; reason: string }[];
    expect(only!.line).toBe(1);
    expect(only!.reason).toMatch(/missing.*"externalId", "authorName", "date"/);
    expect(only!.reason).toMatch(/found.*"stars", "text", "when", "platform"/);
    expect(body.fileError).toEqual(only);
  });

  it('names columns the import does not know once, in the header, not on every line', async () => {
    const csv = 'platform,externalId,authorName,date,stars\nGOOGLE,h1,Ann,2026-01-01,5\nGOOGLE,h2,Bob,2026-01-02,4\n';
    const body = await importFile('csv', csv);
    expect(body).toMatchObject({ imported: 0, rejectedTotal: 1 });
    expect((body.rejected as { reason: string }[])[0]!.reason).toMatch(/"stars"/);
  });

  it('a good header gives no file error', async () => {
    const body = await importFile('csv', 'platform,externalId,authorName,rating,content,date\nGOOGLE,g1,Ann,5,Great,2026-01-01T10:00:00Z\n');
    expect(body).toMatchObject({ imported: 1, rejectedTotal: 0, fileError: null });
  });
});

describe('dates without an offset', () => {
  it('accepts the ISO 8601 forms people write and counts the date-times read as UTC', async () => {
    const lines = [
      { platform: 'GOOGLE', externalId: 'd1', authorName: 'Ann', date: '2026-11-20 10:00' },
      { platform: 'GOOGLE', externalId: 'd2', authorName: 'Bob', date: '2026-11-20T10:00' },
      { platform: 'GOOGLE', externalId: 'd3', authorName: 'Cy', date: '2026-11-20T10:00Z' },
      { platform: 'GOOGLE', externalId: 'd4', authorName: 'Di', date: '2026-11-20T10:00+01:00' },
      { platform: 'GOOGLE', externalId: 'd5', authorName: 'Ed', date: '2026-11-20T10:00:00+0100' },
      { platform: 'GOOGLE', externalId: 'd6', authorName: 'Flo', date: '2026-11-20' },
    ];
    const body = await importFile('ndjson', lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(body).toMatchObject({ imported: 6, rejectedTotal: 0, datesWithoutOffset: 2 });
  });
});
