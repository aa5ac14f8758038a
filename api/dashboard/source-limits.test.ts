/**
 * Source actions per organization (CONTRACT §11, "Limits per organization";
 * issue 34, second review M2 and M3): connect, reconnect, Sync now, the Google
 * Connect start and the Google locations count together, at most 30 a minute
 * per organization across instances (one Redis), past which the answer is 429
 * with Retry-After; another organization has its own count. The Google
 * authorization requests under way are capped per organization (the oldest
 * dropped) and in all, and expire from the oldest without a walk of them all.
 * Against two instances on one store and one Redis, and the local HTTPS
 * platform fake (trusted through NODE_EXTRA_CA_CERTS).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_ACTIONS_PER_MINUTE } from '../sources/limits.ts';
import { trustpilotReviews } from '../sources/testing/generate.ts';
import { PlatformFake } from '../sources/testing/platform-fake.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { GoogleConnections, MAX_STATES_PER_ORG } from './routes/sources.ts';
import { Client, type Answer } from './test-client.ts';

const PASSWORD = 'a long enough password';
let a: TestService;
let b: TestService;
let fake: PlatformFake;
let caDir: string;
const savedExtra = process.env.NODE_EXTRA_CA_CERTS;

beforeAll(async () => {
  fake = await PlatformFake.start();
  fake.trustpilot = trustpilotReviews(3);
  caDir = mkdtempSync(join(tmpdir(), 'source-limits-ca-'));
  writeFileSync(join(caDir, 'fake-ca.pem'), fake.ca);
  process.env.NODE_EXTRA_CA_CERTS = join(caDir, 'fake-ca.pem');
  const urls = fake.urls();
  const env = {
    TRUSTPILOT_API_URL: urls.trustpilot,
    YELP_API_URL: urls.yelp,
    GOOGLE_BUSINESS_API_URL: urls.googleBusiness,
    GOOGLE_OAUTH_TOKEN_URL: urls.googleToken,
    GOOGLE_OAUTH_AUTHORIZE_URL: urls.googleAuthorize,
    GOOGLE_ACCOUNT_MANAGEMENT_API_URL: urls.googleAccounts,
    GOOGLE_BUSINESS_INFORMATION_API_URL: urls.googleLocations,
    GOOGLE_OAUTH_CLIENT_ID: 'client-id-1.apps.example',
    GOOGLE_OAUTH_CLIENT_SECRET: 'google-client-secret-raw-41',
  };
  a = await startTestService({ env });
  // A second instance on the same store and the same Redis, as a load balancer spreads requests over.
  b = await startTestService({ store: a.service.store, env: { ...env, REDIS_KEY_PREFIX: a.service.config.redisKeyPrefix } });
}, 60_000);

afterAll(async () => {
  await b?.close();
  await a?.close();
  await fake?.close();
  if (savedExtra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = savedExtra;
  rmSync(caDir, { recursive: true, force: true });
});

/** An Owner of `orgId` signed in to the dashboard of instance `t`. */
async function owner(t: TestService, orgId: string): Promise<Client> {
  const email = `owner-${Math.random().toString(36).slice(2, 8)}@example.com`;
  expect((await a.admin('POST', '/admin/users', { orgId, email, role: 'owner', password: PASSWORD })).status).toBe(201);
  const client = new Client(t, new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), servername: 'localhost' }));
  expect((await client.signIn(email, PASSWORD)).status).toBe(200);
  return client;
}

/** A plain GET (a browser following a redirect), to the fake or to instance `t`: status and Location. */
function follow(url: string, t: TestService, cookie = ''): Promise<{ status: number; location: string }> {
  const target = new URL(url);
  const local = target.pathname.startsWith('/dashboard/');
  const ca = local ? readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8') : fake.ca;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: local ? t.service.ports.https : target.port, path: `${target.pathname}${target.search}`, ca, servername: 'localhost', headers: cookie ? { cookie } : {} },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: String(res.headers.location ?? '') }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function expectLimited(answer: Answer, what: string): void {
  expect(answer.status, what).toBe(429);
  expect(answer.body, what).toMatchObject({ error: 'rate_limit_exceeded', message: expect.stringMatching(/at most 30 times a minute/) });
  const retryAfter = Number(answer.headers['retry-after']);
  expect(retryAfter, what).toBeGreaterThan(0);
  expect(retryAfter, what).toBeLessThanOrEqual(60);
}

describe('source actions per organization', () => {
  it(`takes at most ${SOURCE_ACTIONS_PER_MINUTE} connects, reconnects, syncs, Google starts and locations a minute per organization across instances: the next is 429 with Retry-After; another organization is unaffected`, async () => {
    const orgId = (await a.org('growth')).orgId;
    const [onA, onB] = [await owner(a, orgId), await owner(b, orgId)];
    const connected = await onA.send('POST', '/dashboard/api/sources', { platform: 'trustpilot', account: 'unit-1', credentials: { apiKey: fake.keys.trustpilot } });
    expect(connected.status).toBe(201);
    const id = connected.body.id as string;
    expect((await onB.send('POST', `/dashboard/api/sources/${id}/sync`)).status).toBe(200);
    // A refused key is still an action: the platform was asked.
    expect((await onA.send('POST', `/dashboard/api/sources/${id}/reconnect`, { credentials: { apiKey: 'wrong' } })).status).toBe(400);
    // A Google start, the consent, the callback (not counted: the state is the start's), then the locations.
    const start = await onA.send('POST', '/dashboard/api/sources/google/start');
    expect(start.status).toBe(200);
    const consent = await follow(start.body.authorizationUrl as string, a);
    expect((await follow(consent.location, a, onA.cookieHeader())).location).toBe('/dashboard/sources?google=authorized');
    expect((await onA.send('GET', '/dashboard/api/sources/google/locations')).status).toBe(200);
    for (let n = 6; n <= SOURCE_ACTIONS_PER_MINUTE; n++) {
      expect((await (n % 2 ? onA : onB).send('POST', '/dashboard/api/sources/google/start')).status, `action ${n}`).toBe(200);
    }
    const platformCalls = fake.requests.length;
    expectLimited(await onB.send('POST', '/dashboard/api/sources/google/start'), 'start');
    expectLimited(await onA.send('POST', `/dashboard/api/sources/${id}/sync`), 'sync now');
    expectLimited(await onB.send('POST', `/dashboard/api/sources/${id}/sync?full=true`), 'full sync');
    expectLimited(await onA.send('POST', `/dashboard/api/sources/${id}/reconnect`, { credentials: { apiKey: fake.keys.trustpilot } }), 'reconnect');
    expectLimited(await onA.send('GET', '/dashboard/api/sources/google/locations'), 'locations');
    expectLimited(await onB.send('POST', '/dashboard/api/sources', { platform: 'yelp', account: 'biz-1', credentials: { apiKey: 'k' } }), 'connect');
    // The operator's admin API goes through the same count.
    expect((await b.admin('POST', `/admin/sources/${id}/sync`)).status).toBe(429);
    // The refused connect was refused before the platform was asked.
    expect(fake.requests.slice(platformCalls).filter((r) => r.platform === 'yelp')).toEqual([]);
    // Reading is not counted.
    expect((await onA.send('GET', '/dashboard/api/sources')).status).toBe(200);
    // Another organization: its own count.
    const other = await owner(b, (await a.org('growth')).orgId);
    expect((await other.send('POST', '/dashboard/api/sources/google/start')).status).toBe(200);
  }, 60_000);
});

describe('Google authorization requests under way', () => {
  it(`1,000 starts of one organization leave at most ${MAX_STATES_PER_ORG} of its states; another organization's older state still works`, () => {
    const google = new GoogleConnections();
    const now = Date.now();
    const theirs = google.begin('session-b', 'org_b', now);
    const mine = Array.from({ length: 1000 }, (_, i) => google.begin('session-a', 'org_a', now + i));
    expect(google.pending('org_a')).toBe(MAX_STATES_PER_ORG);
    expect(google.states.size).toBe(MAX_STATES_PER_ORG + 1);
    // The oldest were dropped, the newest stay; the other organization's is untouched.
    expect(google.take(mine[0]!.state, 'session-a', now + 1000)).toBeNull();
    expect(google.take(mine[999]!.state, 'session-a', now + 1000)).toMatchObject({ orgId: 'org_a' });
    expect(google.take(theirs.state, 'session-b', now + 1000)).toMatchObject({ orgId: 'org_b', sessionId: 'session-b' });
    expect(google.pending('org_b')).toBe(0);
  });

  it('caps the states of every organization together (the oldest dropped), and drops the expired ones at the next start', () => {
    const google = new GoogleConnections({ perOrg: MAX_STATES_PER_ORG, overall: 50 });
    const now = Date.now();
    for (let i = 0; i < 100; i++) google.begin(`session-${i}`, `org_${i}`, now);
    expect(google.states.size).toBe(50);
    expect(google.pending('org_0')).toBe(0);
    expect(google.pending('org_99')).toBe(1);
    // Ten minutes later, every one of them has expired: the next start leaves only itself.
    google.begin('session-x', 'org_x', now + 10 * 60_000 + 1);
    expect(google.states.size).toBe(1);
    expect(google.pending('org_99')).toBe(0);
  });
});
