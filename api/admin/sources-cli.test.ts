/**
 * `sources` commands of the admin CLI against a running service whose
 * platform URLs point at a local HTTPS fake (trusted through
 * NODE_EXTRA_CA_CERTS): the exact --json shapes of CONTRACT §11, credentials
 * on stdin only, audit records, and no raw credential anywhere: not in
 * DATA_DIR, not in the log, not in any CLI answer.
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
import { yelpReviews } from '../sources/fixtures.ts';

let t: TestService;
let fake: PlatformFake;
const logLines: string[] = [];
const answers: string[] = [];
let caDir: string;
const savedExtra = process.env.NODE_EXTRA_CA_CERTS;

beforeAll(async () => {
  fake = await PlatformFake.start();
  caDir = mkdtempSync(join(tmpdir(), 'sources-ca-'));
  writeFileSync(join(caDir, 'fake-ca.pem'), fake.ca);
  // The service's platform client trusts the system's CAs plus NODE_EXTRA_CA_CERTS, read when it starts.
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
    env: {
      LOG_LEVEL: 'debug',
      TRUSTPILOT_API_URL: urls.trustpilot,
      YELP_API_URL: urls.yelp,
      GOOGLE_BUSINESS_API_URL: urls.googleBusiness,
      GOOGLE_OAUTH_TOKEN_URL: urls.googleToken,
      FACEBOOK_GRAPH_URL: urls.facebook,
      G2_API_URL: urls.g2,
    },
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
  expect(res.code).toBe(0);
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

describe('admin CLI: sources', () => {
  it('adds, lists, syncs, reconnects and removes sources with the exact --json shapes; secrets never show', async () => {
    const org = await json(null, 'orgs', 'create', '--name', 'Sourced', '--plan', 'growth');
    const orgId = org.id as string;
    fake.trustpilot = trustpilotReviews(230, Date.parse('2026-11-20T12:00:00Z'), 'cli-tp');
    fake.yelp = yelpReviews;

    const added = await json(JSON.stringify({ apiKey: fake.keys.trustpilot }), 'sources', 'add', '--org', orgId, '--platform', 'trustpilot', '--account', 'bu-42', '--name', 'Main shop', '--every', '2h');
    expect(Object.keys(added).sort()).toEqual(['account', 'every', 'id', 'name', 'nextSyncAt', 'orgId', 'platform', 'state']);
    expect(added).toMatchObject({ orgId, platform: 'trustpilot', account: 'bu-42', name: 'Main shop', state: 'active', every: '2h' });
    const id = added.id as string;

    // Credentials only on stdin, checked for the platform's fields; the message never echoes them.
    const missing = await cli('{"apikey":"typo-field-secret"}', 'sources', 'add', '--org', orgId, '--platform', 'yelp', '--account', 'biz', '--json');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/"apiKey"/);
    expect(missing.stderr).not.toContain('typo-field-secret');
    const notJson = await cli('apiKey=plain-secret', 'sources', 'add', '--org', orgId, '--platform', 'yelp', '--account', 'biz', '--json');
    expect(notJson.stderr).toMatch(/not JSON/);
    expect(notJson.stderr).not.toContain('plain-secret');
    const capterra = await cli('{}', 'sources', 'add', '--org', orgId, '--platform', 'capterra', '--account', 'x', '--json');
    expect(capterra.stderr).toMatch(/Capterra has no public reviews API/);
    // Several sources of one platform may be connected (a chain, CONTRACT §15), never the same account twice.
    const twice = await cli(JSON.stringify({ apiKey: fake.keys.trustpilot }), 'sources', 'add', '--org', orgId, '--platform', 'trustpilot', '--account', 'bu-42', '--json');
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(`This Trustpilot account (bu-42) is already connected as “Main shop” (${id}): reconnect that source instead.`);

    const first = await json(null, 'sources', 'sync', id);
    expect(Object.keys(first).sort()).toEqual(['created', 'fetched', 'id', 'rejected', 'removed', 'requests', 'state', 'updated']);
    // The scheduler may have run the new source's first sync already (it is due at once): then this one is idle.
    expect(first).toMatchObject({ id, state: 'active', updated: 0, removed: 0, rejected: [] });
    expect([[230, 230, 3], [100, 0, 1]]).toContainEqual([first.fetched, first.created, first.requests]);
    expect(((await json(null, 'sources', 'list', '--org', orgId)).data as { reviewCount: number }[])[0]!.reviewCount).toBe(230);
    expect(await json(null, 'sources', 'sync', id)).toMatchObject({ created: 0, requests: 1 });
    fake.trustpilot = fake.trustpilot.slice(1);
    // Nothing else changed: nothing is written or counted again (issue 34 item 9).
    expect(await json(null, 'sources', 'sync', id, '--full')).toMatchObject({ removed: 1, created: 0, updated: 0, requests: 3 });

    // A wrong key is refused before anything is stored: one call to Yelp, a message naming it, no source.
    const wrong = await cli(JSON.stringify({ apiKey: 'wrong-yelp-key-secret' }), 'sources', 'add', '--org', orgId, '--platform', 'yelp', '--account', 'acme-tacos', '--json');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/Yelp refused the API key \(HTTP 401\): check it and try again\. Nothing was saved\./);
    expect(fake.count('yelp')).toBe(1);
    expect(((await json(null, 'sources', 'list', '--org', orgId)).data as unknown[]).length).toBe(1);
    const yelp = await json(JSON.stringify({ apiKey: fake.keys.yelp }), 'sources', 'add', '--org', orgId, '--platform', 'yelp', '--account', 'acme-tacos');
    // The platform stops accepting the key: the sync (the first one, started at once, may have run just before) needs a person.
    fake.force('yelp', { status: 401, body: { error: { code: 'UNAUTHORIZED_ACCESS_TOKEN', description: 'The access token provided is not currently able to query this endpoint.' } } });
    expect(await json(null, 'sources', 'sync', yelp.id as string)).toMatchObject({ state: 'needs_reauth' });
    const calls = fake.count('yelp');
    expect(await json(null, 'sources', 'sync', yelp.id as string)).toMatchObject({ state: 'needs_reauth', requests: 0 });
    expect(fake.count('yelp')).toBe(calls);
    // Reconnecting with a wrong key changes nothing; with the right one the source is active again.
    const stillWrong = await cli(JSON.stringify({ apiKey: 'wrong-yelp-key-secret' }), 'sources', 'reconnect', yelp.id as string, '--json');
    expect([stillWrong.code, /Yelp refused the API key/.test(stillWrong.stderr)]).toEqual([1, true]);
    expect(((await json(null, 'sources', 'list', '--org', orgId)).data as { id: string; state: string }[]).find((s) => s.id === yelp.id)?.state).toBe('needs_reauth');
    const reconnected = await json(JSON.stringify({ apiKey: fake.keys.yelp }), 'sources', 'reconnect', yelp.id as string);
    expect(reconnected).toMatchObject({ id: yelp.id, state: 'active' });
    expect(await json(null, 'sources', 'sync', yelp.id as string)).toMatchObject({ state: 'active', requests: 1 });

    const list = await json(null, 'sources', 'list', '--org', orgId);
    const items = list.data as Record<string, unknown>[];
    expect(items.map((s) => Object.keys(s).sort())).toEqual(Array(2).fill(['account', 'every', 'heldRemovals', 'id', 'lastError', 'lastSuccessAt', 'lastSyncAt', 'name', 'nextSyncAt', 'platform', 'reviewCount', 'state']));
    expect(items[0]).toMatchObject({ id, platform: 'trustpilot', state: 'active', every: '2h', reviewCount: 229, lastError: null, heldRemovals: 0 });
    expect(items[1]).toMatchObject({ id: yelp.id, platform: 'yelp', reviewCount: 3 });

    // The reviews are in the public API.
    const key = await json(null, 'keys', 'create', '--org', orgId, '--name', 'k');
    const stats = await t.get('/api/v1/reviews/stats', { key: key.key as string });
    expect((stats.body as { data: { totalReviews: number } }).data.totalReviews).toBe(232);

    expect(await json(null, 'sources', 'remove', id)).toEqual({ id, removed: true });
    expect(((await json(null, 'sources', 'list', '--org', orgId)).data as unknown[]).length).toBe(1);
    // Its reviews stay.
    expect(((await t.get('/api/v1/reviews/stats', { key: key.key as string })).body as { data: { totalReviews: number } }).data.totalReviews).toBe(232);

    const audit = await t.admin('GET', `/admin/orgs/${orgId}/audit`);
    const actions = (audit.body.data as { action: string }[]).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(['source.connected', 'source.reconnected', 'source.removed']));

    // No raw credential anywhere: DATA_DIR (store log, keys), the service's log, any CLI answer.
    const secrets = [fake.keys.trustpilot, fake.keys.yelp, 'wrong-yelp-key-secret', 'typo-field-secret', 'plain-secret'];
    const haystacks: [string, string][] = [
      ...filesUnder(t.dataDir).map((f): [string, string] => [f, readFileSync(f).toString('latin1')]),
      ['log', logLines.join('')],
      ['cli', answers.join('\n')],
      ['audit', JSON.stringify(audit.body)],
    ];
    expect(logLines.join('')).toContain('source synced');
    expect(filesUnder(t.dataDir).some((f) => f.endsWith('secrets-key'))).toBe(true);
    for (const secret of secrets) for (const [where, text] of haystacks) expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
  }, 120_000);

  it('holds a removal of more than 10 % for a person: release-removals and keep-removals with their --json shapes, audited', async () => {
    const org = await json(null, 'orgs', 'create', '--name', 'Held', '--plan', 'growth');
    const orgId = org.id as string;
    const all = trustpilotReviews(60, Date.parse('2026-11-20T12:00:00Z'), 'cli-held');
    fake.trustpilotUnits.set('bu-held', all);
    const added = await json(JSON.stringify({ apiKey: fake.keys.trustpilot }), 'sources', 'add', '--org', orgId, '--platform', 'trustpilot', '--account', 'bu-held');
    const id = added.id as string;
    await json(null, 'sources', 'sync', id);
    const heldCount = async () => ((await json(null, 'sources', 'list', '--org', orgId)).data as { heldRemovals: number }[])[0]!.heldRemovals;

    fake.trustpilotUnits.set('bu-held', all.slice(10));
    expect(await json(null, 'sources', 'sync', id, '--full')).toMatchObject({ removed: 0, held: 10 });
    expect(await heldCount()).toBe(10);
    const text = await cli(null, 'sources', 'sync', id, '--full');
    expect(text.stdout).toMatch(/10 removals held: more than 10 % of the source's reviews\. Decide with sources release-removals/);
    expect(await json(null, 'sources', 'release-removals', id)).toEqual({ id, removed: 10 });
    expect(await heldCount()).toBe(0);
    expect(((await json(null, 'sources', 'list', '--org', orgId)).data as { reviewCount: number }[])[0]!.reviewCount).toBe(50);

    fake.trustpilotUnits.set('bu-held', all.slice(30));
    expect(await json(null, 'sources', 'sync', id, '--full')).toMatchObject({ removed: 0, held: 20 });
    expect(await json(null, 'sources', 'keep-removals', id)).toEqual({ id, kept: 20 });
    expect(await heldCount()).toBe(0);
    const after = await json(null, 'sources', 'sync', id, '--full');
    expect(after).toMatchObject({ removed: 0 });
    expect(after).not.toHaveProperty('held');
    // The 20 kept stay live (the organization's 50), but this source no longer counts them as its own:
    // its count is of the reviews it collected (several sources may share a platform, CONTRACT §15).
    expect(((await json(null, 'sources', 'list', '--org', orgId)).data as { reviewCount: number }[])[0]!.reviewCount).toBe(30);
    expect(await t.service.store.reviews.count(orgId)).toBe(50);

    const audit = (await t.admin('GET', `/admin/orgs/${orgId}/audit`)).body.data as { action: string; details: Record<string, string> }[];
    expect(audit.map((a) => [a.action, a.details.count])).toEqual(expect.arrayContaining([['reviews.removal_held', '10'], ['reviews.removed', '10'], ['reviews.removal_held', '20'], ['reviews.removal_kept', '20']]));
    const unknown = await cli(null, 'sources', 'release-removals', 'src_nope', '--json');
    expect(unknown.code).toBe(1);
    fake.trustpilotUnits.delete('bu-held');
  }, 120_000);
});
