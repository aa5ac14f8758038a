/**
 * The dashboard's Sources endpoints against a real service and the local HTTPS
 * platform fake (trusted through NODE_EXTRA_CA_CERTS): roles (Member 403 on
 * every change), Origin and CSRF like every dashboard route, credentials in no
 * answer, another organization's source unseen, the audit records, and the
 * Google OAuth callback refusing a wrong, foreign, replayed or missing state.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { trustpilotReviews } from '../sources/testing/generate.ts';
import { PlatformFake } from '../sources/testing/platform-fake.ts';
import { Client, type Answer } from './test-client.ts';

const PASSWORD = 'a long enough password';
const CLIENT_SECRET = 'google-client-secret-raw-9d';

let t: TestService;
let fake: PlatformFake;
let agent: Agent;
let fakeAgent: Agent;
let caDir: string;
let orgId: string;
const savedExtra = process.env.NODE_EXTRA_CA_CERTS;
/** Every answer any client received, to grep for credentials. */
const seen: string[] = [];

class RecordingClient extends Client {
  override async send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const answer = await super.send(method, path, body, headers);
    seen.push(JSON.stringify(answer.body), JSON.stringify(answer.headers));
    return answer;
  }
}

async function signedIn(email: string, role: string, org = orgId): Promise<Client> {
  expect((await t.admin('POST', '/admin/users', { orgId: org, email, role, password: PASSWORD })).status).toBe(201);
  const c = new RecordingClient(t, agent);
  expect((await c.signIn(email, PASSWORD)).status).toBe(200);
  return c;
}

/**
 * What the scheduler's own syncs of this organization's sources ask the fake: the Trustpilot source (due again at
 * once after its reconnect) and, once connected, the Google location's reviews and token refreshes. The scheduler
 * runs them when its tick comes (every 15 s), so they may land in any window a test counts requests in.
 */
const scheduled = (r: { platform: string; path: string }): boolean => r.platform === 'trustpilot' || r.platform === 'google-token' || r.path.startsWith('/v4/accounts/1/locations/2/');

/** A plain GET (a browser following a redirect): status and Location, with the client's cookies. */
function follow(url: string, cookie = ''): Promise<{ status: number; location: string }> {
  const target = new URL(url);
  const local = target.port === String(t.service.ports.https);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: target.port, path: `${target.pathname}${target.search}`, agent: local ? agent : fakeAgent, headers: cookie ? { cookie } : {} },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: String(res.headers.location ?? '') }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  fake = await PlatformFake.start();
  fake.trustpilot = trustpilotReviews(30);
  caDir = mkdtempSync(join(tmpdir(), 'sources-page-ca-'));
  writeFileSync(join(caDir, 'fake-ca.pem'), fake.ca);
  process.env.NODE_EXTRA_CA_CERTS = join(caDir, 'fake-ca.pem');
  const urls = fake.urls();
  t = await startTestService({
    redis: false,
    env: {
      TRUSTPILOT_API_URL: urls.trustpilot,
      YELP_API_URL: urls.yelp,
      GOOGLE_BUSINESS_API_URL: urls.googleBusiness,
      GOOGLE_OAUTH_TOKEN_URL: urls.googleToken,
      GOOGLE_OAUTH_AUTHORIZE_URL: urls.googleAuthorize,
      GOOGLE_ACCOUNT_MANAGEMENT_API_URL: urls.googleAccounts,
      GOOGLE_BUSINESS_INFORMATION_API_URL: urls.googleLocations,
      GOOGLE_OAUTH_CLIENT_ID: 'client-id-1.apps.example',
      GOOGLE_OAUTH_CLIENT_SECRET: CLIENT_SECRET,
    },
  });
  agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
  fakeAgent = new Agent({ ca: fake.ca, servername: 'localhost' });
  orgId = (await t.org('growth')).orgId;
}, 60_000);

afterAll(async () => {
  agent?.destroy();
  fakeAgent?.destroy();
  await t?.close();
  await fake?.close();
  if (savedExtra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = savedExtra;
  rmSync(caDir, { recursive: true, force: true });
});

describe('dashboard sources', () => {
  let owner: Client;
  let member: Client;
  let sourceId: string;

  it('lets an Owner connect, sync, reconnect and remove a Trustpilot source, audited, with the credentials in no answer', async () => {
    owner = await signedIn('owner@example.com', 'owner');
    member = await signedIn('member@example.com', 'member');
    const empty = await owner.send('GET', '/dashboard/api/sources');
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ data: [], google: { configured: true, authorized: false, redirectUri: `${t.service.config.publicUrl}/dashboard/sources/google/callback` } });

    const bad = await owner.send('POST', '/dashboard/api/sources', { platform: 'trustpilot', account: 'unit-1', credentials: {} });
    expect(bad.status).toBe(400);
    const capterra = await owner.send('POST', '/dashboard/api/sources', { platform: 'capterra', account: 'x', credentials: {} });
    expect(capterra.status).toBe(400);
    expect(capterra.body.message).toMatch(/file/);

    const created = await owner.send('POST', '/dashboard/api/sources', { platform: 'trustpilot', account: 'unit-1', name: 'Shop', credentials: { apiKey: fake.keys.trustpilot } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ platform: 'trustpilot', account: 'unit-1', name: 'Shop', state: 'active', reviewCount: 0 });
    sourceId = created.body.id as string;

    const summary = await owner.send('POST', `/dashboard/api/sources/${sourceId}/sync`);
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({ id: sourceId, fetched: 30, updated: 0, removed: 0, rejected: [] });
    // A new source is due at once: the scheduler's first sync may have run just before this one (never beside it,
    // one run per source at a time), which then finds all 30 stored already. Either way they are stored once.
    expect([0, 30]).toContain(summary.body.created);
    const listed = await owner.send('GET', '/dashboard/api/sources');
    expect(listed.body.data).toEqual([expect.objectContaining({ id: sourceId, reviewCount: 30, lastError: null })]);
    expect(listed.body.data as unknown[]).toHaveLength(1);
    expect((listed.body.data as Record<string, unknown>[])[0]!.lastSyncAt).not.toBeNull();

    const reconnected = await owner.send('POST', `/dashboard/api/sources/${sourceId}/reconnect`, { credentials: { apiKey: fake.keys.trustpilot } });
    expect(reconnected.status).toBe(200);
    expect(reconnected.body).toMatchObject({ id: sourceId, state: 'active' });

    const audit = await owner.send('GET', '/dashboard/api/audit');
    const actions = (audit.body.data as { action: string; actor: { email: string }; target: { id: string; label: string } }[]).filter((r) => r.target.id === sourceId);
    expect(actions.map((r) => r.action).sort()).toEqual(['source.connected', 'source.reconnected']);
    expect(actions.every((r) => r.actor.email === 'owner@example.com')).toBe(true);
    // The subject in words, never "trustpilot unit-1".
    expect(actions.map((r) => r.target.label)).toEqual(['Trustpilot source “Shop” (business unit unit-1)', 'Trustpilot source “Shop” (business unit unit-1)']);
  });

  it('proves a key before keeping it: a wrong one on connect or reconnect is a 400 naming the platform and changes nothing; the attention list and the last result follow', async () => {
    type Item = { id: string; state: string; nextSyncAt: string | null; lastResult: Record<string, unknown> | null };
    const listed = async () => (await owner.send('GET', '/dashboard/api/sources')).body.data as Item[];
    const audits = async () => ((await owner.send('GET', '/dashboard/api/audit')).body.data as { action: string }[]).map((r) => r.action);
    const auditsBefore = await audits();

    const yelpCalls = fake.count('yelp');
    const wrong = await owner.send('POST', '/dashboard/api/sources', { platform: 'yelp', account: 'acme-tacos', credentials: { apiKey: 'a-wrong-yelp-key' } });
    expect([wrong.status, wrong.body.error, wrong.body.message]).toEqual([400, 'credentials_refused', 'Yelp refused the API key (HTTP 401): check it and try again. Nothing was saved.']);
    expect(fake.count('yelp') - yelpCalls).toBe(1);
    expect((await listed()).map((s) => s.id)).toEqual([sourceId]);

    // The syncs ran (the reconnect above started one at once) and the last one's result is on the source.
    await vi.waitFor(async () => expect((await listed())[0]!.lastResult).toMatchObject({ outcome: 'succeeded', error: null }), { timeout: 30_000, interval: 100 });
    expect((await owner.send('GET', '/dashboard/api/sources/attention')).body).toEqual({ data: [] });

    // The platform stops accepting the key: the source needs a person, everywhere.
    fake.force('trustpilot', { status: 401, body: { message: 'Unauthorized' } });
    expect((await owner.send('POST', `/dashboard/api/sources/${sourceId}/sync`)).body).toMatchObject({ state: 'needs_reauth' });
    const waiting = (await listed())[0]!;
    expect(waiting).toMatchObject({ state: 'needs_reauth', nextSyncAt: null, lastResult: { outcome: 'refused', error: expect.stringMatching(/^Trustpilot refused the credentials \(401\)/) } });
    expect((await member.send('GET', '/dashboard/api/sources/attention')).body).toEqual({
      data: [{ id: sourceId, platform: 'trustpilot', name: 'Shop', state: 'needs_reauth', lastError: expect.stringMatching(/^Trustpilot refused the credentials/) }],
    });

    const refused = await owner.send('POST', `/dashboard/api/sources/${sourceId}/reconnect`, { credentials: { apiKey: 'still-a-wrong-key' } });
    expect([refused.status, refused.body.error, refused.body.message]).toEqual([400, 'credentials_refused', 'Trustpilot refused the API key (HTTP 401): check it and try again. Nothing was saved.']);
    expect((await listed())[0]).toEqual(waiting);
    expect(await audits()).toEqual(auditsBefore);

    const reconnected = await owner.send('POST', `/dashboard/api/sources/${sourceId}/reconnect`, { credentials: { apiKey: fake.keys.trustpilot } });
    expect(reconnected.body).toMatchObject({ id: sourceId, state: 'active' });
    expect((await owner.send('GET', '/dashboard/api/sources/attention')).body).toEqual({ data: [] });

    // Full sync: a review the platform no longer lists is removed, and the result says so.
    const gone = fake.trustpilot.shift()!;
    const full = await owner.send('POST', `/dashboard/api/sources/${sourceId}/sync?full=true`);
    expect(full.body).toMatchObject({ state: 'active', fetched: 29, removed: 1 });
    expect((await listed())[0]!.lastResult).toMatchObject({ outcome: 'succeeded', full: true, removed: 1, error: null });
    fake.trustpilot.unshift(gone);
    expect((await owner.send('POST', `/dashboard/api/sources/${sourceId}/sync?full=yes`)).status).toBe(400);
  }, 90_000);

  it('refuses every change from a Member (403) and shows them the list', async () => {
    expect((await member.send('GET', '/dashboard/api/sources')).status).toBe(200);
    const attempts = await Promise.all([
      member.send('POST', '/dashboard/api/sources', { platform: 'yelp', account: 'b', credentials: { apiKey: fake.keys.yelp } }),
      member.send('POST', `/dashboard/api/sources/${sourceId}/sync`),
      member.send('POST', `/dashboard/api/sources/${sourceId}/reconnect`, { credentials: { apiKey: 'x' } }),
      member.send('DELETE', `/dashboard/api/sources/${sourceId}`),
      member.send('POST', '/dashboard/api/sources/google/start'),
      member.send('POST', '/dashboard/api/sources/google', { account: 'accounts/1/locations/2' }),
      member.send('POST', `/dashboard/api/sources/${sourceId}/release-removals`),
      member.send('POST', `/dashboard/api/sources/${sourceId}/keep-removals`),
    ]);
    expect(attempts.map((a) => a.status)).toEqual([403, 403, 403, 403, 403, 403, 403, 403]);
    expect(attempts.every((a) => a.body.error === 'forbidden_role')).toBe(true);
  });

  it('needs our Origin and the CSRF token on every change, and hides another organization\'s source', async () => {
    const noToken = await owner.send('DELETE', `/dashboard/api/sources/${sourceId}`, undefined, { 'x-csrf-token': '' });
    expect([noToken.status, noToken.body.error]).toEqual([403, 'csrf_failed']);
    const elsewhere = await owner.send('POST', `/dashboard/api/sources/${sourceId}/sync`, undefined, { origin: 'https://evil.example' });
    expect([elsewhere.status, elsewhere.body.error]).toEqual([403, 'csrf_failed']);

    const other = (await t.org('growth')).orgId;
    const stranger = await signedIn('stranger@example.com', 'owner', other);
    expect((await stranger.send('GET', '/dashboard/api/sources')).body.data).toEqual([]);
    for (const [method, path] of [['POST', `/sources/${sourceId}/sync`], ['POST', `/sources/${sourceId}/reconnect`], ['POST', `/sources/${sourceId}/release-removals`], ['POST', `/sources/${sourceId}/keep-removals`], ['DELETE', `/sources/${sourceId}`]] as const) {
      expect((await stranger.send(method, `/dashboard/api${path}`, method === 'DELETE' ? undefined : { credentials: { apiKey: 'x' } })).status).toBe(404);
    }
    expect((await owner.send('GET', '/dashboard/api/sources')).body.data).toHaveLength(1);
    // Nothing held: both answers change nothing.
    expect((await owner.send('POST', `/dashboard/api/sources/${sourceId}/release-removals`)).body).toEqual({ id: sourceId, removed: 0 });
    expect((await owner.send('POST', `/dashboard/api/sources/${sourceId}/keep-removals`)).body).toEqual({ id: sourceId, kept: 0 });
  });

  it('runs the Google flow with PKCE and refuses a state that is wrong, another session\'s, or used already', async () => {
    const start = await owner.send('POST', '/dashboard/api/sources/google/start');
    expect(start.status).toBe(200);
    const authorize = new URL(start.body.authorizationUrl as string);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'client-id-1.apps.example',
      redirect_uri: `${t.service.config.publicUrl}/dashboard/sources/google/callback`,
      code_challenge_method: 'S256',
      access_type: 'offline',
    });
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const state = authorize.searchParams.get('state')!;

    const consent = await follow(authorize.toString());
    expect(consent.status).toBe(302);
    const callback = new URL(consent.location);
    const local = (u: URL) => `https://127.0.0.1:${t.service.ports.https}${u.pathname}${u.search}`;

    // A forged state, and the right state from another person's session: refused, nothing exchanged.
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state-value-forged-state-value-000');
    expect((await follow(local(forged), owner.cookieHeader())).location).toBe('/dashboard/sources?google=state');
    const tokenCalls = fake.count('google-token');
    const another = await signedIn('admin@example.com', 'admin');
    expect((await follow(local(callback), another.cookieHeader())).location).toBe('/dashboard/sources?google=state');
    // The state was single use: taken by the foreign attempt, it no longer works for its owner either.
    expect((await follow(local(callback), owner.cookieHeader())).location).toBe('/dashboard/sources?google=state');
    expect(fake.count('google-token')).toBe(tokenCalls);
    expect(state).not.toBe('');

    // A new run, followed by its owner: authorized once; the replay is refused.
    const again = new URL(((await owner.send('POST', '/dashboard/api/sources/google/start')).body.authorizationUrl as string));
    const back = new URL((await follow(again.toString())).location);
    expect((await follow(local(back), owner.cookieHeader())).location).toBe('/dashboard/sources?google=authorized');
    expect((await follow(local(back), owner.cookieHeader())).location).toBe('/dashboard/sources?google=state');
    expect((await follow(local(back))).location).toBe('/dashboard/sign-in');
    expect((await owner.send('GET', '/dashboard/api/sources')).body.google).toMatchObject({ authorized: true });
    // Another session has no grant to use.
    expect((await another.send('POST', '/dashboard/api/sources/google', { account: 'accounts/1/locations/2' })).status).toBe(409);

    // The person's locations, from the Account Management and Business Information APIs (the fake's v1 shapes).
    fake.googleLocations = [{ account: { name: 'accounts/1', accountName: 'Ana Ltd' }, locations: [{ name: 'locations/2', title: 'Main street' }] }];
    const locations = await owner.send('GET', '/dashboard/api/sources/google/locations');
    expect(locations.body).toEqual({ data: [{ account: 'accounts/1/locations/2', title: 'Main street', accountName: 'Ana Ltd' }], error: null });
    expect((await another.send('GET', '/dashboard/api/sources/google/locations')).status).toBe(409);
    // Names from Google go into the next URL's path: a dot segment or an escape is skipped, never called.
    fake.googleLocations = [
      { account: { name: 'accounts/..', accountName: 'Climbs out' }, locations: [{ name: 'locations/9', title: 'Nowhere' }] },
      { account: { name: 'accounts/%2e%2e', accountName: 'Escaped' }, locations: [] },
      { account: { name: 'accounts/1', accountName: 'Ana Ltd' }, locations: [{ name: 'locations/..', title: 'Up' }, { name: 'locations/2', title: 'Main street' }] },
    ];
    const before = fake.requests.length;
    expect((await owner.send('GET', '/dashboard/api/sources/google/locations')).body).toEqual({ data: [{ account: 'accounts/1/locations/2', title: 'Main street', accountName: 'Ana Ltd' }], error: null });
    expect(fake.requests.slice(before).filter((r) => !scheduled(r)).map((r) => r.path.split('?')[0])).toEqual(['/v1/accounts', '/v1/accounts/1/locations']);
    const wrongShape = await owner.send('POST', '/dashboard/api/sources/google', { account: 'locations/2' });
    expect(wrongShape.status).toBe(400);
    fake.google = [{ reviewId: 'g1', reviewer: { displayName: 'Ana' }, starRating: 'FIVE', comment: 'Great', createTime: '2026-11-01T10:00:00Z', updateTime: '2026-11-01T10:00:00Z' }];
    const connected = await owner.send('POST', '/dashboard/api/sources/google', { account: 'accounts/1/locations/2', name: 'Main street' });
    expect(connected.status).toBe(201);
    expect(connected.body).toMatchObject({ platform: 'google', account: 'accounts/1/locations/2', name: 'Main street', state: 'active' });
    const synced = await owner.send('POST', `/dashboard/api/sources/${connected.body.id as string}/sync`);
    // The first scheduled sync (due at once) may have taken the review already: then this one finds nothing new.
    expect(synced.body).toMatchObject({ state: 'active', fetched: 1, rejected: [] });
    expect(((await owner.send('GET', '/dashboard/api/sources')).body.data as { platform: string; reviewCount: number }[]).find((x) => x.platform === 'google')?.reviewCount).toBe(1);
    // The grant was used: a second connect needs a new authorization.
    expect((await owner.send('POST', '/dashboard/api/sources/google', { account: 'accounts/1/locations/2' })).status).toBe(409);
  });

  it('refuses an account id that would leave its place in the platform\'s URL (400 naming account), on the dashboard and the admin API', async () => {
    const requests = fake.requests.length;
    for (const account of ['..', '.', '../../v1/other', 'unit?x=1', 'unit#x', '%2e%2e', '.%2E', 'a b']) {
      const dashboard = await owner.send('POST', '/dashboard/api/sources', { platform: 'yelp', account, credentials: { apiKey: fake.keys.yelp } });
      expect([dashboard.status, dashboard.body.error, (dashboard.body.details as { parameter: string }[])[0]?.parameter], account).toEqual([400, 'bad_request', 'account']);
      expect(dashboard.body.message as string, account).toMatch(/^account /);
      const admin = await t.admin('POST', '/admin/sources', { orgId, platform: 'g2', account, credentials: { apiToken: fake.keys.g2 } });
      expect([admin.status, admin.body.error, (admin.body.details as { parameter: string }[])[0]?.parameter], account).toEqual([400, 'bad_request', 'account']);
    }
    for (const account of ['accounts/../locations/2', 'accounts/1/locations/..', 'accounts/1/locations/%2E%2E']) {
      const google = await owner.send('POST', '/dashboard/api/sources/google', { account });
      expect([google.status, (google.body.details as { parameter: string }[])[0]?.parameter], account).toEqual([400, 'account']);
    }
    expect(fake.requests.slice(requests).filter((r) => !scheduled(r))).toEqual([]);
    expect((await owner.send('GET', '/dashboard/api/sources')).body.data).toHaveLength(2);
  });

  it('reads the sources bodies alike on both APIs: not an object, or a field of the wrong type, is a 400 naming it (never a 500)', async () => {
    const json = { 'content-type': 'application/json' };
    const cases: [string | Record<string, unknown>, string][] = [
      ['null', 'body'], ['[]', 'body'], ['7', 'body'],
      [{ platform: 5, account: 'a', credentials: {} }, 'platform'],
      [{ platform: 'yelp', credentials: {} }, 'account'],
      [{ platform: 'yelp', account: 'a', name: 3, credentials: {} }, 'name'],
      [{ platform: 'yelp', account: 'a', credentials: 'the-key' }, 'credentials'],
      [{ platform: 'yelp', account: 'a', credentials: ['the-key'] }, 'credentials'],
    ];
    const parameter = (a: { body: Record<string, unknown> }) => (a.body.details as { parameter: string }[] | undefined)?.[0]?.parameter;
    for (const [body, named] of cases) {
      const dashboard = await owner.send('POST', '/dashboard/api/sources', body, typeof body === 'string' ? json : {});
      expect([dashboard.status, dashboard.body.error, parameter(dashboard)], JSON.stringify(body)).toEqual([400, 'bad_request', named]);
      const admin = await t.admin('POST', '/admin/sources', typeof body === 'string' ? body : { orgId, ...body });
      expect([admin.status, admin.body.error, parameter(admin)], JSON.stringify(body)).toEqual([400, 'bad_request', named]);
    }
    // Each API says where its credentials come from.
    expect((await owner.send('POST', '/dashboard/api/sources', { platform: 'yelp', account: 'a', credentials: 'k' })).body.message).toBe('credentials must be an object of the platform\'s fields');
    expect((await t.admin('POST', '/admin/sources', { orgId, platform: 'yelp', account: 'a', credentials: 'k' })).body.message).toBe('credentials must be a JSON object (the CLI reads it from stdin)');
    // Reconnect and sync read theirs the same way.
    const reconnect = await owner.send('POST', `/dashboard/api/sources/${sourceId}/reconnect`, 'null', json);
    expect([reconnect.status, parameter(reconnect)]).toEqual([400, 'body']);
    const adminReconnect = await t.admin('POST', `/admin/sources/${sourceId}/reconnect`, '[]');
    expect([adminReconnect.status, parameter(adminReconnect)]).toEqual([400, 'body']);
    const full = await t.admin('POST', `/admin/sources/${sourceId}/sync?full=yes`);
    expect([full.status, parameter(full)]).toEqual([400, 'full']);
    expect((await owner.send('GET', '/dashboard/api/sources')).body.data).toHaveLength(2);
  });

  it('says what a Trustpilot source lacks to reply (replyMissing: apiSecret, businessUserId) until a reconnect adds them; the secret is in no answer', async () => {
    const other = (await t.org('growth')).orgId;
    const person = await signedIn('replies-owner@example.com', 'owner', other);
    const readOnly = await person.send('POST', '/dashboard/api/sources', { platform: 'trustpilot', account: 'unit-1', name: 'Read only', credentials: { apiKey: fake.keys.trustpilot } });
    expect(readOnly.status).toBe(201);
    expect(readOnly.body.replyMissing).toEqual(['apiSecret', 'businessUserId']);
    const id = readOnly.body.id as string;
    const listed = async () => ((await person.send('GET', '/dashboard/api/sources')).body.data as { id: string; replyMissing: string[] }[]).find((s) => s.id === id)!;
    expect((await listed()).replyMissing).toEqual(['apiSecret', 'businessUserId']);

    // Half of it: the secret alone (proved with a token) still lacks the business user.
    const half = await person.send('POST', `/dashboard/api/sources/${id}/reconnect`, { credentials: { apiKey: fake.keys.trustpilot, apiSecret: fake.keys.trustpilotSecret } });
    expect([half.status, half.body.replyMissing]).toEqual([200, ['businessUserId']]);
    // A wrong secret is refused and changes nothing.
    const wrong = await person.send('POST', `/dashboard/api/sources/${id}/reconnect`, { credentials: { apiKey: fake.keys.trustpilot, apiSecret: 'not-the-secret', businessUserId: fake.keys.trustpilotBusinessUser } });
    expect(wrong.status).toBe(400);
    expect((await listed()).replyMissing).toEqual(['businessUserId']);
    const full = await person.send('POST', `/dashboard/api/sources/${id}/reconnect`, { credentials: { apiKey: fake.keys.trustpilot, apiSecret: fake.keys.trustpilotSecret, businessUserId: fake.keys.trustpilotBusinessUser } });
    expect([full.status, full.body.replyMissing]).toEqual([200, []]);
    expect((await listed()).replyMissing).toEqual([]);
    // A platform without a reply API never lacks anything for it.
    const yelp = await person.send('POST', '/dashboard/api/sources', { platform: 'yelp', account: 'acme-tacos', credentials: { apiKey: fake.keys.yelp } });
    expect([yelp.status, yelp.body.replyMissing]).toEqual([201, []]);
    expect(seen.join('\n')).not.toContain(fake.keys.trustpilotSecret);
  });

  it('removes with an audit record, and no answer ever held a credential', async () => {
    const removed = await owner.send('DELETE', `/dashboard/api/sources/${sourceId}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: sourceId, removed: true });
    const audit = await owner.send('GET', '/dashboard/api/audit');
    expect((audit.body.data as { action: string; target: { id: string } }[]).some((r) => r.action === 'source.removed' && r.target.id === sourceId)).toBe(true);
    const all = seen.join('\n');
    for (const secret of [fake.keys.trustpilot, fake.keys.googleRefresh, CLIENT_SECRET]) expect(all).not.toContain(secret);
    expect(all).toContain('source.removed');
  });
});
