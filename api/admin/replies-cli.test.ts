/**
 * `replies` commands of the admin CLI (CONTRACT §15) against a running
 * service whose platform URLs point at the local HTTPS fake (trusted through
 * NODE_EXTRA_CA_CERTS): the exact --json shapes, the text on stdin, --now
 * waiting until published or failed, remove, list --state, a platform without
 * a reply API, and Trustpilot's apiSecret never in DATA_DIR in the clear,
 * never in the log, never in an answer.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { PlatformFake } from '../sources/testing/platform-fake.ts';
import { trustpilotReviews } from '../sources/testing/generate.ts';

let t: TestService;
let fake: PlatformFake;
const logLines: string[] = [];
const answers: string[] = [];
let caDir: string;
const savedExtra = process.env.NODE_EXTRA_CA_CERTS;

beforeAll(async () => {
  fake = await PlatformFake.start();
  caDir = mkdtempSync(join(tmpdir(), 'replies-ca-'));
  writeFileSync(join(caDir, 'fake-ca.pem'), fake.ca);
  process.env.NODE_EXTRA_CA_CERTS = join(caDir, 'fake-ca.pem');
  const urls = fake.urls();
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  t = await startTestService({
    redis: false,
    logger: createLogger('debug', sink),
    env: { LOG_LEVEL: 'debug', TRUSTPILOT_API_URL: urls.trustpilot, YELP_API_URL: urls.yelp, GOOGLE_BUSINESS_API_URL: urls.googleBusiness, GOOGLE_OAUTH_TOKEN_URL: urls.googleToken, FACEBOOK_GRAPH_URL: urls.facebook, G2_API_URL: urls.g2 },
  });
}, 60_000);
afterAll(async () => {
  await t.close();
  await fake.close();
  if (savedExtra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = savedExtra;
  rmSync(caDir, { recursive: true, force: true });
});

function cli(input: string | null, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'cli.ts'), ...args], {
      env: { ...process.env, DATA_DIR: t.dataDir, ADMIN_PORT: String(t.service.ports.admin), ADMIN_TOKEN: '', REDIS_URL: '', MONGODB_URL: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => {
      answers.push(stdout, stderr);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

async function json(input: string | null, ...args: string[]): Promise<Record<string, unknown>> {
  const res = await cli(input, ...args, '--json');
  expect(res.stderr, `stderr of ${args.join(' ')}`).toBe('');
  const lines = res.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Polls the service's store (bounded) until the source's first sync stored its reviews. */
async function reviewsOf(orgId: string, count: number): Promise<{ id: string; externalId: string; platform: string }[]> {
  const until = Date.now() + 30_000;
  for (;;) {
    const items = (await t.service.store.reviews.list({ orgId, limit: 100, offset: 0 })).items;
    if (items.length >= count) return items;
    if (Date.now() > until) throw new Error(`only ${items.length} reviews arrived`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('admin CLI: replies', () => {
  it('publish --now waits until published, publish alone schedules, list --state, remove: the exact --json shapes; the secret never shows', async () => {
    const org = await json(null, 'orgs', 'create', '--name', 'Replying', '--plan', 'growth');
    const orgId = org.id as string;
    fake.trustpilotUnits.set('bu-replies', trustpilotReviews(3, Date.parse('2026-11-20T12:00:00Z'), 'cli-reply'));
    const credentials = { apiKey: fake.keys.trustpilot, apiSecret: fake.keys.trustpilotSecret, businessUserId: fake.keys.trustpilotBusinessUser };
    await json(JSON.stringify(credentials), 'sources', 'add', '--org', orgId, '--platform', 'trustpilot', '--account', 'bu-replies');
    const reviews = await reviewsOf(orgId, 3);
    const [first, second, third] = reviews.map((r) => r.id) as [string, string, string];
    const ext = (id: string) => reviews.find((r) => r.id === id)!.externalId;

    // --now: posted at once, and the answer waits for the outcome.
    const published = await json('Thank you for the kind words!\n', 'replies', 'publish', first, '--now');
    expect(Object.keys(published).sort()).toEqual(['error', 'reply', 'reviewId', 'scheduledAt', 'state']);
    expect(published).toMatchObject({ reviewId: first, state: 'published', error: null, reply: { text: 'Thank you for the kind words!' } });
    expect(Number.isNaN(Date.parse((published.reply as { date: string }).date))).toBe(false);
    expect(fake.trustpilotReplies.get(ext(first))?.text).toBe('Thank you for the kind words!');
    // The review itself now carries it (API, widget, webhooks): the port is wired to the store.
    expect((await t.service.store.reviews.get(orgId, first))?.reply).toEqual(published.reply);

    // Without --now: the organization's delay (5 minutes by default); the answer comes at once.
    const before = Date.now();
    const scheduled = await json('We will call you.', 'replies', 'publish', second);
    expect(scheduled).toMatchObject({ reviewId: second, state: 'scheduled', reply: null, error: null });
    expect(Date.parse(scheduled.scheduledAt as string) - before).toBeGreaterThanOrEqual(4 * 60_000);
    const waiting = await json(null, 'replies', 'list', '--org', orgId, '--state', 'scheduled');
    expect(waiting).toEqual({ data: [{ reviewId: second, platform: 'TRUSTPILOT', state: 'scheduled', text: 'We will call you.', scheduledAt: scheduled.scheduledAt, publishedAt: null, error: null }] });
    // Removed before its time: never posted.
    expect(await json(null, 'replies', 'remove', second)).toEqual({ reviewId: second, state: 'deleted' });
    expect(fake.trustpilotPosts.some((p) => p.reviewId === ext(second))).toBe(false);

    // A refusal: --now answers failed with Trustpilot's reason (exit code 1, the JSON still on stdout).
    fake.force('trustpilot-reply', { status: 403, body: { message: 'Your plan does not include the API module' } });
    const refused = await cli('Sorry!', 'replies', 'publish', third, '--now', '--json');
    expect(refused.code).toBe(1);
    const failed = JSON.parse(refused.stdout) as Record<string, unknown>;
    expect(failed).toMatchObject({ reviewId: third, state: 'failed', reply: null });
    expect(failed.error).toMatch(/Trustpilot refused to let this account reply \(403\).*API module/);
    const failedList = await json(null, 'replies', 'list', '--org', orgId, '--state', 'failed');
    expect((failedList.data as { reviewId: string }[]).map((r) => r.reviewId)).toEqual([third]);
    expect(Object.keys((failedList.data as object[])[0]!).sort()).toEqual(['error', 'platform', 'publishedAt', 'reviewId', 'scheduledAt', 'state', 'text']);

    // remove: off Trustpilot, audited.
    expect(await json(null, 'replies', 'remove', first)).toEqual({ reviewId: first, state: 'deleted' });
    expect(fake.trustpilotReplies.has(ext(first))).toBe(false);
    expect((await t.service.store.reviews.get(orgId, first))?.reply).toBeNull();
    const audit = await t.admin('GET', `/admin/orgs/${orgId}/audit`);
    expect((audit.body.data as { action: string }[]).map((a) => a.action)).toEqual(expect.arrayContaining(['reply.published', 'reply.failed', 'reply.deleted']));

    // Errors: one line on stderr.
    const unknown = await cli('x', 'replies', 'publish', 'rev_nope', '--json');
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'admin: Review "rev_nope" was not found.']);
    const badState = await cli(null, 'replies', 'list', '--org', orgId, '--state', 'gone', '--json');
    expect(badState.stderr).toMatch(/state must be one of draft, scheduled/);

    // The API secret: sealed in DATA_DIR, never in the log or any answer.
    const haystacks: [string, string][] = [
      ...filesUnder(t.dataDir).map((f): [string, string] => [f, readFileSync(f).toString('latin1')]),
      ['log', logLines.join('')],
      ['cli', answers.join('\n')],
      ['audit', JSON.stringify(audit.body)],
    ];
    expect(logLines.join('')).toContain('reply published');
    for (const secret of [fake.keys.trustpilotSecret, fake.keys.trustpilot]) for (const [where, text] of haystacks) expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
    // Nor the business-user token the service obtained with it.
    for (const token of fake.trustpilotAccess) for (const [where, text] of haystacks) expect(text.includes(token), `token in ${where}`).toBe(false);
  }, 120_000);

  it('publishes past 60 a minute per organization: the admin API answers 429 with Retry-After, the CLI says so; another organization is not counted', async () => {
    const org = await json(null, 'orgs', 'create', '--name', 'Busy replier', '--plan', 'growth');
    const other = await json(null, 'orgs', 'create', '--name', 'Quiet replier', '--plan', 'growth');
    const stamp = new Date().toISOString();
    const direct = (externalId: string) => ({ platform: 'DIRECT', externalId, authorName: 'Cleo', authorAvatar: null, rating: 5, content: 'Lovely', date: stamp, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] });
    await t.service.store.reviews.upsert(org.id as string, [direct('direct-busy')], new Date());
    await t.service.store.reviews.upsert(other.id as string, [direct('direct-quiet')], new Date());
    const [busy] = await reviewsOf(org.id as string, 1);
    const [quiet] = await reviewsOf(other.id as string, 1);
    // Scheduled after the default delay: DIRECT, nothing posted meanwhile; each publish counts.
    for (let i = 0; i < 60; i++) expect((await t.admin('POST', `/admin/replies/${busy!.id}/publish`, { text: `Thanks ${i}` })).status).toBe(200);
    const res = await fetch(`${t.service.adminUrl}/admin/replies/${busy!.id}/publish`, {
      method: 'POST', headers: { authorization: `Bearer ${t.service.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'One too many' }),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({ error: 'rate_limit_exceeded', message: expect.stringMatching(/at most 60 times a minute/) });
    const cliRefused = await cli('Still too many', 'replies', 'publish', busy!.id, '--json');
    expect(cliRefused.code).toBe(1);
    expect(cliRefused.stderr).toMatch(/at most 60 times a minute/);
    expect(await json('Thanks from us', 'replies', 'publish', quiet!.id)).toMatchObject({ reviewId: quiet!.id, state: 'scheduled' });
  }, 90_000);

  it('a platform without a reply API is a 400 saying so; nothing is stored', async () => {
    const org = await json(null, 'orgs', 'create', '--name', 'Yelping', '--plan', 'growth');
    const orgId = org.id as string;
    const stamp = new Date().toISOString();
    await t.service.store.reviews.upsert(orgId, [{ platform: 'YELP', externalId: 'yelp-cli-1', authorName: 'Dan', authorAvatar: null, rating: 2, content: 'Slow', date: stamp, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] }], new Date());
    const [yelp] = await reviewsOf(orgId, 1);
    const res = await cli('Sorry to hear that.', 'replies', 'publish', yelp!.id, '--now', '--json');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/Yelp offers no reply API: answer this review on Yelp itself\./);
    expect(await json(null, 'replies', 'list', '--org', orgId)).toEqual({ data: [] });
  }, 60_000);
});
