/**
 * Widgets of some sources (CONTRACT §15, chains: a store-locator page shows its own location's
 * reviews), over real HTTPS: `sourceIds` validated against the organization's own sources
 * (admin API and CLI), and applied to the public data, its statistics and hidden count, the
 * server-rendered HTML and the JSON-LD.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { newId } from '../store/ids.ts';
import type { ReviewInput, Source } from '../store/types.ts';

let t: TestService;
let orgId: string;
let key: string;
const NORTH = newId('src');
const SOUTH = newId('src');
const UNIT = newId('src');
const OTHER_ORGS = newId('src');

let seq = 0;
function review(platform: string, rating: number, sourceId: string | null, content: string): ReviewInput {
  seq += 1;
  return {
    platform,
    externalId: `chain-${seq}`,
    authorName: `Person ${seq}`,
    authorAvatar: null,
    rating,
    content,
    date: new Date(Date.UTC(2026, 9, 1 + seq)).toISOString(),
    url: null,
    language: 'en',
    isVerified: false,
    sentiment: null,
    sentimentLabel: null,
    aiSummary: null,
    aiThemes: [],
    ...(sourceId && { sourceId }),
  };
}

/** A source record as a connection stores it, paused (nothing syncs it here). */
function source(id: string, org: string, platform: Source['platform'], account: string, name: string): Source {
  const stamp = new Date().toISOString();
  return {
    id, orgId: org, platform, account, name, state: 'paused', everyMinutes: 60, credentials: 'sealed', cursor: null, lastSyncAt: null, lastSuccessAt: null,
    lastFullAt: null, nextSyncAt: stamp, lastError: null, failures: 0, createdAt: stamp, updatedAt: stamp,
  };
}

beforeAll(async () => {
  t = await startTestService();
  ({ orgId, key } = await t.org('growth', 1_000_000));
  const other = await t.org('growth');
  const store = t.service.store;
  await store.sources.create(source(NORTH, orgId, 'GOOGLE', 'accounts/1/locations/north', 'North shop'));
  await store.sources.create(source(SOUTH, orgId, 'GOOGLE', 'accounts/1/locations/south', 'South shop'));
  await store.sources.create(source(UNIT, orgId, 'TRUSTPILOT', 'bu-1', 'Trustpilot'));
  await store.sources.create(source(OTHER_ORGS, other.orgId, 'GOOGLE', 'accounts/2/locations/x', 'Not yours'));
  await store.reviews.upsert(
    orgId,
    [
      review('GOOGLE', 5, NORTH, 'North one: lovely staff'),
      review('GOOGLE', 5, NORTH, 'North two: quick service'),
      review('GOOGLE', 1, SOUTH, 'South one: long queue'),
      review('GOOGLE', 2, SOUTH, 'South two: closed early'),
      review('TRUSTPILOT', 4, UNIT, 'Trustpilot one: good shop'),
      review('GOOGLE', 3, null, 'Imported one: from a file'),
    ],
    new Date(),
  );
});
afterAll(async () => t?.close());

async function widget(options: Record<string, unknown>): Promise<string> {
  const res = await t.admin('POST', '/admin/widgets', { orgId, name: 'Locator', layout: 'list', subject: { type: 'Product', name: 'Chain' }, options: { jsonLd: 'on', jsonLdSources: 'all', ...options } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

interface Data {
  reviews: { content: string; platform: string }[];
  summary: { totalReviews: number; averageRating: number | null; platforms: { platform: string; count: number }[]; hiddenReviews: number };
  jsonLd: { aggregateRating?: { ratingValue: number; reviewCount: number }; review?: unknown[] } | null;
}
const data = async (id: string): Promise<Data> => {
  const res = await t.get(`/public/v1/widgets/${id}`);
  expect(res.status).toBe(200);
  return (res.body as { data: Data }).data;
};
const contents = (d: Data) => d.reviews.map((r) => r.content.split(':')[0]).sort();

describe('a widget of some sources', () => {
  it('shows only their reviews: public data, statistics, server-rendered HTML and JSON-LD', async () => {
    const north = await widget({ sourceIds: [NORTH] });
    const d = await data(north);
    expect(contents(d)).toEqual(['North one', 'North two']);
    expect(d.summary).toMatchObject({ totalReviews: 2, averageRating: 5, platforms: [{ platform: 'GOOGLE', count: 2 }] });
    expect(d.jsonLd).toMatchObject({ aggregateRating: { ratingValue: 5, reviewCount: 2 } });
    expect(d.jsonLd!.review).toHaveLength(2);
    const schema = await t.get(`/api/v1/widgets/${north}/schema`, { key });
    expect((schema.body as { data: unknown }).data).toEqual(d.jsonLd);
    const html = await t.get(`/public/v1/widgets/${north}/html`);
    expect(html.status).toBe(200);
    expect(html.text).toContain('North one: lovely staff');
    expect(html.text).not.toContain('South one');
    expect(html.text).not.toContain('Imported one');

    // Two locations of one platform, and a Trustpilot unit: added up.
    const two = await data(await widget({ sourceIds: [NORTH, SOUTH, UNIT] }));
    expect(contents(two)).toEqual(['North one', 'North two', 'South one', 'South two', 'Trustpilot one']);
    expect(two.summary).toMatchObject({ totalReviews: 5, averageRating: 3.4 });
    expect(two.summary.platforms).toEqual(expect.arrayContaining([{ platform: 'GOOGLE', count: 4, averageRating: 3.25 }, { platform: 'TRUSTPILOT', count: 1, averageRating: 4 }]));

    // Absent (or null): every review, file imports included.
    const all = await data(await widget({}));
    expect(all.summary.totalReviews).toBe(6);
    const patched = await t.admin('PATCH', `/admin/widgets/${north}`, { options: { sourceIds: null } });
    expect(patched.status).toBe(200);
    expect((await data(north)).summary.totalReviews).toBe(6);
  });

  it('counts as hidden only the hidden reviews of its own sources', async () => {
    const south = (await t.service.store.reviews.list({ orgId, sourceIds: [SOUTH], limit: 1, offset: 0 })).items[0]!;
    await t.service.store.moderation.hide({ reviewId: south.id, orgId, platform: 'GOOGLE', reason: 'spam', hiddenAt: new Date().toISOString(), hiddenBy: { userId: null, email: 'owner@example.com' } });
    expect((await data(await widget({ sourceIds: [NORTH] }))).summary.hiddenReviews).toBe(0);
    const southData = await data(await widget({ sourceIds: [SOUTH] }));
    expect(southData.summary.hiddenReviews).toBe(1);
    expect(southData.reviews).toHaveLength(1);
    await t.service.store.moderation.show(orgId, south.id);
  });

  it('refuses sourceIds that are not a list of this organization\'s sources with a 400 that says why', async () => {
    const cases: [unknown, RegExp][] = [
      [[], /must be a list of 1 to 50 source ids/],
      ['src_x', /must be a list of 1 to 50 source ids/],
      [['not-an-id'], /must be a list of 1 to 50 source ids/],
      [Array.from({ length: 51 }, () => newId('src')), /must be a list of 1 to 50 source ids/],
      [[NORTH, OTHER_ORGS], new RegExp(`not a source of this organization: ${OTHER_ORGS}`)],
      [[newId('src')], /not a source of this organization/],
    ];
    for (const [sourceIds, message] of cases) {
      const res = await t.admin('POST', '/admin/widgets', { orgId, name: 'Bad', options: { sourceIds } });
      expect(res.status, JSON.stringify(sourceIds)).toBe(400);
      expect(JSON.stringify(res.body.details)).toMatch(message);
      expect((res.body.details as { parameter: string }[])[0]!.parameter).toBe('options.sourceIds');
    }
    const id = await widget({});
    const res = await t.admin('PATCH', `/admin/widgets/${id}`, { options: { sourceIds: [OTHER_ORGS] } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(`options.sourceIds names a source this organization does not have: ${OTHER_ORGS}`);
  });

  it('sets them from the CLI: --sources id,id and --sources all', async () => {
    const cli = (...args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../admin/cli.ts'), ...args, '--json'], {
          env: { ...process.env, DATA_DIR: t.dataDir, ADMIN_PORT: String(t.service.ports.admin), ADMIN_TOKEN: '', REDIS_URL: '', MONGODB_URL: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('exit', (code) => resolve({ code, stdout, stderr }));
      });
    const created = await cli('widgets', 'create', '--org', orgId, '--name', 'North page', '--sources', `${NORTH},${SOUTH}`);
    expect(created.code, created.stderr).toBe(0);
    const w = JSON.parse(created.stdout) as { id: string; options: Record<string, unknown> };
    expect(w.options.sourceIds).toEqual([NORTH, SOUTH]);
    const updated = await cli('widgets', 'update', w.id, '--sources', 'all');
    expect(updated.code, updated.stderr).toBe(0);
    expect((JSON.parse(updated.stdout) as { options: Record<string, unknown> }).options.sourceIds).toBeNull();
    const foreign = await cli('widgets', 'update', w.id, '--sources', OTHER_ORGS);
    expect(foreign.code).not.toBe(0);
    expect(foreign.stderr).toContain('not a source of this organization');
  });
});
