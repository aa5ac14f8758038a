/** The admin CLI against a running service: exact --json shapes, errors, imports. */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => t.close());

function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'cli.ts'), ...args], {
      env: { ...process.env, DATA_DIR: t.dataDir, ADMIN_PORT: String(t.service.ports.admin), ADMIN_TOKEN: '', REDIS_URL: '', MONGODB_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function json(...args: string[]): Promise<Record<string, unknown>> {
  const res = await cli(...args, '--json');
  expect(res.stderr, `stderr of ${args.join(' ')}`).toBe('');
  expect(res.code).toBe(0);
  const lines = res.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

describe('admin CLI', () => {
  it('manages organizations, keys and widgets with the exact --json shapes', async () => {
    const org = await json('orgs', 'create', '--name', 'Acme', '--plan', 'growth');
    expect(Object.keys(org).sort()).toEqual(['id', 'language', 'name', 'plan']);
    expect(org).toMatchObject({ name: 'Acme', plan: 'growth', language: 'en' });
    const orgId = org.id as string;

    const plan = await json('orgs', 'set-plan', orgId, 'agency', '--rate-limit', '500');
    expect(plan).toMatchObject({ id: orgId, plan: 'agency', rateLimit: 500 });

    const key = await json('keys', 'create', '--org', orgId, '--name', 'CI', '--expires', '2099-01-01');
    expect(Object.keys(key).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'key', 'name', 'permissions', 'prefix']);
    expect(key.expiresAt).toBe('2099-01-01T23:59:59.999Z');
    expect(String(key.key).startsWith(String(key.prefix))).toBe(true);
    const res = await t.get('/api/v1/reviews', { key: key.key as string });
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('500');

    const list = await json('keys', 'list', '--org', orgId);
    const items = list.data as Record<string, unknown>[];
    expect(items).toHaveLength(1);
    expect(Object.keys(items[0]!).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'permissions', 'prefix', 'state']);
    expect(items[0]).toMatchObject({ id: key.id, state: 'active', prefix: key.prefix });
    expect(JSON.stringify(list)).not.toContain(key.key as string);

    expect(await json('keys', 'revoke', key.id as string)).toEqual({ id: key.id, state: 'revoked' });
    expect((await t.get('/api/v1/reviews', { key: key.key as string })).status).toBe(401);
    expect(((await json('keys', 'list', '--org', orgId)).data as { state: string }[])[0]!.state).toBe('revoked');

    const widget = await json('widgets', 'create', '--org', orgId, '--name', 'Home page', '--layout', 'grid', '--subject-type', 'Product', '--subject-name', 'Acme Shoes');
    expect(widget).toMatchObject({ name: 'Home page', layout: 'grid', orgId, subject: { type: 'Product', name: 'Acme Shoes' } });
    expect(typeof widget.id).toBe('string');
    const updated = await json('widgets', 'update', widget.id as string, '--theme', 'dark', '--max-reviews', '6', '--platforms', 'google,yelp');
    expect(updated.options).toMatchObject({ theme: 'dark', maxReviews: 6, platforms: ['GOOGLE', 'YELP'], reviewLanguages: 'all' });
    const languages = await json('widgets', 'update', widget.id as string, '--review-languages', 'page', '--locale', 'auto');
    expect(languages.options).toMatchObject({ reviewLanguages: 'page', locale: null });
    const wrong = await cli('widgets', 'update', widget.id as string, '--review-languages', 'some', '--json');
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('reviewLanguages');
    // Replies are shown by default; --show-replies true|false, anything else refused.
    expect(updated.options).toMatchObject({ showReplies: true });
    expect((await json('widgets', 'update', widget.id as string, '--show-replies', 'false')).options).toMatchObject({ showReplies: false });
    expect((await json('widgets', 'update', widget.id as string, '--show-replies', 'true')).options).toMatchObject({ showReplies: true });
    const maybe = await cli('widgets', 'update', widget.id as string, '--show-replies', 'maybe', '--json');
    expect(maybe.code).not.toBe(0);
    expect(maybe.stderr).toContain('--show-replies must be true or false');
  }, 60_000);

  it('refuses a past expiry, unknown plans and unknown commands with one line on stderr and a non-zero exit', async () => {
    const org = await json('orgs', 'create', '--name', 'Errors', '--plan', 'free');
    for (const args of [
      ['keys', 'create', '--org', org.id as string, '--name', 'old', '--expires', '2020-01-01', '--json'],
      ['keys', 'create', '--org', org.id as string, '--name', 'bad', '--expires', 'tomorrow', '--json'],
      ['orgs', 'create', '--name', 'X', '--plan', 'platinum', '--json'],
      ['orgs', 'set-plan', 'org_nope', 'growth', '--json'],
      ['keys', 'revoke', 'key_nope', '--json'],
      ['frobnicate', '--json'],
      ['orgs', 'create', '--bogus-flag', '--json'],
    ]) {
      const res = await cli(...args);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  }, 60_000);

  it('imports NDJSON, JSON and CSV, keeps the good records, rejects the bad ones by line, and updates on re-import', async () => {
    const org = await json('orgs', 'create', '--name', 'Importer', '--plan', 'growth');
    const orgId = org.id as string;
    const good = (id: string, extra: Record<string, unknown> = {}) => ({
      platform: 'google',
      externalId: id,
      authorName: 'Ann <b>Lee</b>',
      rating: 5,
      content: 'Great coffee </script><script>alert(1)</script>',
      date: '2026-10-01T10:00:00Z',
      isVerified: true,
      ...extra,
    });
    const ndjson = join(t.dataDir, 'reviews.ndjson');
    writeFileSync(ndjson, [good('a'), good('b'), { ...good('c'), rating: 9 }, '{not json', good('d', { url: 'javascript:alert(1)' })].map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n'));
    const first = await json('reviews', 'import', '--org', orgId, ndjson);
    expect(first).toMatchObject({ imported: 2, updated: 0 });
    expect((first.rejected as { line: number }[]).map((r) => r.line)).toEqual([3, 4, 5]);

    const jsonFile = join(t.dataDir, 'reviews.json');
    writeFileSync(jsonFile, JSON.stringify([good('a', { content: 'Updated text' }), good('e', { platform: 'YELP', rating: null })], null, 2));
    const second = await json('reviews', 'import', '--org', orgId, jsonFile);
    expect(second).toMatchObject({ imported: 1, updated: 1, rejected: [] });

    const csv = join(t.dataDir, 'reviews.csv');
    writeFileSync(csv, 'platform,externalId,authorName,rating,content,date,isVerified,aiThemes\nTRUSTPILOT,t1,"Zoë, ""Z""",4,"Line one\nline two",2026-09-01,true,service|price\nTRUSTPILOT,t2,Bob,0,bad rating,2026-09-01,false,\n');
    const third = await json('reviews', 'import', '--org', orgId, csv);
    expect(third).toMatchObject({ imported: 1, updated: 0 });
    expect((third.rejected as unknown[]).length).toBe(1);

    const key = (await json('keys', 'create', '--org', orgId, '--name', 'read')).key as string;
    const res = await t.get('/api/v1/reviews?limit=100', { key });
    const data = (res.body as { data: Record<string, unknown>[] }).data;
    expect(data).toHaveLength(4);
    const a = data.find((r) => r.content === 'Updated text');
    expect(a).toBeDefined();
    const csvReview = data.find((r) => r.platform === 'TRUSTPILOT')!;
    expect(csvReview).toMatchObject({ authorName: 'Zoë, "Z"', content: 'Line one\nline two', rating: 4, aiThemes: ['service', 'price'], isVerified: true });
    const b = data.find((r) => r.authorName === 'Ann <b>Lee</b>' && String(r.content).includes('</script>'));
    expect(b?.content).toBe('Great coffee </script><script>alert(1)</script>');
  }, 60_000);

  it('enriches imported reviews that lack AI fields, with the organization default language for short texts', async () => {
    const org = await json('orgs', 'create', '--name', 'Intelligence', '--plan', 'growth', '--language', 'DE');
    expect(org.language).toBe('de');
    const orgId = org.id as string;
    const rec = (id: string, content: string, extra: Record<string, unknown> = {}) => JSON.stringify({ platform: 'GOOGLE', externalId: id, authorName: 'A', rating: 4, content, date: '2026-10-01T10:00:00Z', ...extra });
    const file = join(t.dataDir, 'intelligence.ndjson');
    writeFileSync(
      file,
      [
        rec('long', 'Das Personal war sehr freundlich und das Essen war lecker. Die Lieferung kam aber zu spät.'),
        rec('short', 'Super!'),
        rec('empty', ''),
        rec('given', 'The staff were rude.', { language: 'en', sentiment: 0.9, aiSummary: 'Given summary', aiThemes: ['custom'] }),
      ].join('\n'),
    );
    expect(await json('reviews', 'import', '--org', orgId, file)).toMatchObject({ imported: 4, rejected: [] });
    const key = (await json('keys', 'create', '--org', orgId, '--name', 'read')).key as string;
    const list = async (query = '') => ((await t.get(`/api/v1/reviews?limit=100${query}`, { key })).body as { data: Record<string, unknown>[] }).data;
    const byText = (data: Record<string, unknown>[], content: string) => data.find((r) => r.content === content)!;
    let data = await list();
    const long = byText(data, 'Das Personal war sehr freundlich und das Essen war lecker. Die Lieferung kam aber zu spät.');
    expect(long).toMatchObject({ language: 'de', sentimentLabel: expect.any(String), aiSummary: expect.any(String) });
    expect(long.sentiment).toEqual(expect.any(Number));
    expect((long.aiThemes as string[]).length).toBeGreaterThan(0);
    // No lexicon knows "super": no label rather than a blind NEUTRAL (issue 28 item 7).
    expect(byText(data, 'Super!')).toMatchObject({ language: 'de', sentiment: null, sentimentLabel: null, aiSummary: 'Super!' });
    expect(byText(data, '')).toMatchObject({ language: 'de', sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] });
    expect(byText(data, 'The staff were rude.')).toMatchObject({ language: 'en', sentiment: 0.9, sentimentLabel: 'POSITIVE', aiSummary: 'Given summary', aiThemes: ['custom'] });
    // The language filter, case-insensitive.
    expect((await list('&language=DE')).map((r) => r.language)).toEqual(['de', 'de', 'de']);
    expect(await list('&language=xx')).toEqual([]);

    // Everything is complete: a plain enrich changes nothing; --force recomputes the given values too.
    expect(await json('reviews', 'enrich', '--org', orgId)).toEqual({ enriched: 0, skipped: 4 });
    expect(await json('orgs', 'set-language', orgId, 'fr')).toEqual({ id: orgId, language: 'fr' });
    const forced = await json('reviews', 'enrich', '--org', orgId, '--force');
    expect(Object.keys(forced).sort()).toEqual(['enriched', 'skipped']);
    expect((forced.enriched as number) + (forced.skipped as number)).toBe(4);
    data = await list();
    // Short texts now take the new default; the given values were recomputed.
    expect(byText(data, '')).toMatchObject({ language: 'fr' });
    expect(byText(data, 'Super!')).toMatchObject({ language: 'fr' });
    expect(byText(data, 'The staff were rude.')).toMatchObject({ language: 'en', aiSummary: 'The staff were rude.', aiThemes: ['staff'] });
    expect(byText(data, 'The staff were rude.').sentiment).toBeLessThan(0.5);

    const bad = await cli('orgs', 'set-language', orgId, 'french', '--json');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/two-letter/);
  }, 60_000);

  it('prints tables for people without --json', async () => {
    await json('orgs', 'create', '--name', 'Tables', '--plan', 'starter');
    const res = await cli('orgs', 'list');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^id\s+name\s+plan/m);
    expect(res.stdout).toContain('Tables');
  }, 30_000);
});
