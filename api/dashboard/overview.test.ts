/**
 * GET /dashboard/api/overview over real HTTPS with a real session: the figures
 * equal the public /reviews/stats, the 12 UTC months equal a brute-force count
 * of the imported reviews (also after a re-import moves reviews between
 * months, ratings and platforms), an empty organization gets zeros, and every
 * answer matches the dashboard's OpenAPI document. Runs on both stores.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, monthOf } from '../reviews/months.ts';
import { roundRatio2 } from '../reviews/stats-math.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import type { Review, ReviewInput } from '../store/types.ts';
import { checkDashboardResponse } from './validate.ts';

const PASSWORD = 'a long enough password';
const DAY = 24 * 60 * 60 * 1000;

interface OverviewBody {
  totalReviews: number;
  averageRating: number | null;
  last30Days: number;
  last7Days: number;
  ratingDistribution: { rating: number | null; count: number }[];
  platforms: { platform: string; count: number; averageRating: number | null }[];
  months: { month: string; count: number; averageRating: number | null; platforms: { platform: string; count: number }[] }[];
  replies: { days: number; platforms: { platform: string; received: number; replied: number; medianReplyMs: number | null }[]; medianReplyMs: number | null };
}

/** A signed-in browser: the session cookie and the CSRF token, our own Origin. */
async function signedIn(t: TestService, agent: Agent, email: string): Promise<(path: string) => Promise<{ status: number; body: Record<string, unknown> }>> {
  const cookies = new Map<string, string>();
  let csrf = '';
  const send = (method: string, path: string, body?: unknown) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          host: '127.0.0.1',
          port: t.service.ports.https,
          path,
          method,
          agent,
          headers: {
            cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
            ...(method !== 'GET' && { origin: t.service.config.publicUrl, 'x-csrf-token': csrf, 'content-type': 'application/json' }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            for (const line of res.headers['set-cookie'] ?? []) {
              const [name, value] = line.split(';')[0]!.split('=') as [string, string];
              cookies.set(name, value);
            }
            const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
            const problems = checkDashboardResponse(method, path, res.statusCode ?? 0, parsed);
            if (problems.length > 0) reject(new Error(`${method} ${path} breaks the dashboard document:\n  ${problems.join('\n  ')}`));
            else resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  csrf = (await send('GET', '/dashboard/api/session')).body.csrfToken as string;
  const res = await send('POST', '/dashboard/api/sign-in', { email, password: PASSWORD });
  expect(res.status).toBe(200);
  return (path) => send('GET', path);
}

function input(externalId: string, date: Date, rating: number | null, platform: string): ReviewInput {
  return {
    platform,
    externalId,
    authorName: 'Ann',
    authorAvatar: null,
    rating,
    content: 'Good service',
    date: date.toISOString(),
    url: null,
    language: 'en',
    isVerified: false,
    sentiment: null,
    sentimentLabel: null,
    aiSummary: null,
    aiThemes: [],
  };
}

/** Brute force over the stored reviews: what `months` must say. */
function expectedMonths(reviews: Review[], now: Date): Map<string, { count: number; byPlatform: Map<string, number>; rated: number; sum: number }> {
  const to = monthOf(now);
  const from = addMonths(to, -11);
  const out = new Map<string, { count: number; byPlatform: Map<string, number>; rated: number; sum: number }>();
  for (let m = from; m <= to; m = addMonths(m, 1)) out.set(m, { count: 0, byPlatform: new Map(), rated: 0, sum: 0 });
  for (const r of reviews) {
    const bucket = out.get(monthOf(new Date(r.date)));
    if (!bucket) continue;
    bucket.count++;
    bucket.byPlatform.set(r.platform, (bucket.byPlatform.get(r.platform) ?? 0) + 1);
    if (r.rating !== null) {
      bucket.rated++;
      bucket.sum += r.rating;
    }
  }
  return out;
}

describe('dashboard API: overview', () => {
  let t: TestService;
  let agent: Agent;

  beforeAll(async () => {
    t = await startTestService();
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
  });

  async function orgWithMember(email: string) {
    const org = await t.org('growth');
    expect((await t.admin('POST', '/admin/users', { orgId: org.orgId, email, role: 'member', password: PASSWORD })).status).toBe(201);
    return { ...org, get: await signedIn(t, agent, email) };
  }

  function check(body: OverviewBody, reviews: Review[], now: Date): void {
    const months = expectedMonths(reviews, now);
    expect(body.months.map((m) => m.month)).toEqual([...months.keys()]);
    for (const point of body.months) {
      const want = months.get(point.month)!;
      expect(point.count).toBe(want.count);
      expect(point.averageRating).toBe(want.rated === 0 ? null : roundRatio2(want.sum, want.rated));
      for (const p of point.platforms) expect(p.count).toBe(want.byPlatform.get(p.platform) ?? 0);
      expect(point.platforms.reduce((n, p) => n + p.count, 0)).toBe(want.count);
    }
  }

  it('answers the statistics of /reviews/stats and 12 UTC months counted like the reviews, moving re-imported reviews', async () => {
    const { orgId, key, get } = await orgWithMember('member@overview.example');
    const now = new Date();
    const reviews: ReviewInput[] = [];
    const platforms = ['GOOGLE', 'YELP', 'FACEBOOK'];
    for (let i = 0; i < 90; i++) {
      const platform = platforms[i % 3]!;
      const rating = platform === 'FACEBOOK' && i % 2 ? null : 1 + (i % 5);
      reviews.push(input(`r${i}`, new Date(now.getTime() - i * 5 * DAY - 1000), rating, platform));
    }
    reviews.push(input('old', new Date(now.getTime() - 800 * DAY), 2, 'GOOGLE')); // outside the window, inside the totals
    await t.service.store.reviews.upsert(orgId, reviews, now);

    const first = await get('/dashboard/api/overview');
    expect(first.status).toBe(200);
    const body = first.body as unknown as OverviewBody;
    const stats = (await t.get('/api/v1/reviews/stats', { key })).body as { data: Record<string, unknown> };
    expect(body).toMatchObject({
      totalReviews: 91,
      averageRating: stats.data.averageRating,
      last30Days: stats.data.last30Days,
      last7Days: stats.data.last7Days,
      ratingDistribution: stats.data.ratingDistribution,
      platforms: stats.data.platforms,
      members: 1,
    });
    const stored = (await t.service.store.reviews.list({ orgId, limit: 100, offset: 0 })).items;
    check(body, stored, new Date());
    expect(body.months.reduce((n, m) => n + m.count, 0)).toBeGreaterThan(60);
    // Platforms in order of their reviews in the window; every month lists all of them.
    expect(body.months.every((m) => m.platforms.map((p) => p.platform).join() === body.months[0]!.platforms.map((p) => p.platform).join())).toBe(true);

    // Re-import: ten reviews move to the current month with 5 stars; the months follow.
    const moved = reviews.slice(20, 30).map((r) => ({ ...r, date: new Date(now.getTime() - 1000).toISOString(), rating: 5 }));
    await t.service.store.reviews.upsert(orgId, moved, new Date());
    const after = (await get('/dashboard/api/overview')).body as unknown as OverviewBody;
    const storedAfter = (await t.service.store.reviews.list({ orgId, limit: 100, offset: 0 })).items;
    check(after, storedAfter, new Date());
    expect(after.months.at(-1)!.count).toBeGreaterThan(body.months.at(-1)!.count);
    expect(after.totalReviews).toBe(91);
    expect(((await t.get('/api/v1/reviews/stats', { key })).body as { data: { averageRating: number } }).data.averageRating).toBe(after.averageRating);
  });

  it('answers an organization without reviews with zeros, empty lists and 12 empty months', async () => {
    const { get } = await orgWithMember('empty@overview.example');
    const body = (await get('/dashboard/api/overview')).body as unknown as OverviewBody;
    expect(body).toMatchObject({ totalReviews: 0, averageRating: null, last30Days: 0, last7Days: 0, platforms: [] });
    expect(body.ratingDistribution.map((r) => r.count)).toEqual([0, 0, 0, 0, 0]);
    expect(body.months).toHaveLength(12);
    expect(body.months.every((m) => m.count === 0 && m.averageRating === null && m.platforms.length === 0)).toBe(true);
    expect(body.months.at(-1)!.month).toBe(monthOf(new Date()));
  });

  it('answers the reply rate of the last 90 days per platform that shows replies and the median time to reply; none without reviews there', async () => {
    const { orgId, get } = await orgWithMember('replies@overview.example');
    const before = (await get('/dashboard/api/overview')).body as unknown as OverviewBody;
    expect(before.replies).toEqual({ days: 90, platforms: [], medianReplyMs: null });
    const now = Date.now();
    const at = (days: number) => new Date(now - days * DAY);
    const replied = (r: ReviewInput, hours: number): ReviewInput => ({ ...r, reply: { text: 'Thanks', date: new Date(Date.parse(r.date) + hours * 3_600_000).toISOString() } });
    await t.service.store.reviews.upsert(orgId, [
      replied(input('g1', at(10), 5, 'GOOGLE'), 2),
      replied(input('g2', at(20), 4, 'GOOGLE'), 10),
      input('g3', at(30), 1, 'GOOGLE'),
      input('g4', at(40), 2, 'GOOGLE'),
      replied(input('t1', at(5), 3, 'TRUSTPILOT'), 48),
      replied(input('g-old', at(120), 5, 'GOOGLE'), 1), // before the window
      input('y1', at(3), 2, 'YELP'), // no reply API: not counted
    ], new Date());
    const body = (await get('/dashboard/api/overview')).body as unknown as OverviewBody;
    expect(body.replies).toEqual({
      days: 90,
      platforms: [
        { platform: 'GOOGLE', received: 4, replied: 2, medianReplyMs: 6 * 3_600_000 },
        { platform: 'TRUSTPILOT', received: 1, replied: 1, medianReplyMs: 48 * 3_600_000 },
      ],
      medianReplyMs: 10 * 3_600_000,
    });
  });

  it('needs a session: a Bearer key is not one', async () => {
    const { key } = await t.org('growth');
    const res = await t.get('/dashboard/api/overview', { key, skipValidation: true });
    expect(res.status).toBe(401);
  });
});
