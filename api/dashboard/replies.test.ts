/**
 * The dashboard's reply routes (CONTRACT §15) against a real service: a
 * Member drafts, an Owner or Admin publishes, approves, cancels and deletes
 * (403 for a Member, from the route table and again from the service), Origin
 * and CSRF like every dashboard route, a platform without a reply API is a
 * 400 saying so, another organization's review is a 404, and every answer
 * matches the dashboard's OpenAPI document (the test client checks it).
 * DIRECT and Yelp reviews: no platform is called.
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSecretsKey, SecretBox } from '../secrets/secrets.ts';
import { newId } from '../store/ids.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';

let t: TestService;
let agent: Agent;
let orgId: string;
let owner: Client;
let member: Client;
const ids = new Map<string, string>();

async function signedIn(email: string, role: string, org = orgId): Promise<Client> {
  expect((await t.admin('POST', '/admin/users', { orgId: org, email, role, password: PASSWORD })).status).toBe(201);
  const c = new Client(t, agent);
  expect((await c.signIn(email, PASSWORD)).status).toBe(200);
  return c;
}

async function until<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  t = await startTestService({ redis: false });
  agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
  orgId = (await t.org('growth')).orgId;
  const base = { authorAvatar: null, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], rating: 5, content: 'Lovely', date: '2026-11-20T10:00:00.000Z' };
  await t.service.store.reviews.upsert(orgId, [
    { ...base, platform: 'DIRECT', externalId: 'd-1', authorName: 'Ana' },
    { ...base, platform: 'DIRECT', externalId: 'd-2', authorName: 'Ben' },
    { ...base, platform: 'YELP', externalId: 'y-1', authorName: 'Cleo' },
  ], new Date());
  for (const r of (await t.service.store.reviews.list({ orgId, limit: 10, offset: 0 })).items) ids.set(r.externalId, r.id);
  owner = await signedIn('owner@replies.test', 'owner');
  member = await signedIn('member@replies.test', 'member');
}, 60_000);
afterAll(async () => {
  agent.destroy();
  await t.close();
});

const reply = (externalId: string, tail = '') => `/dashboard/api/reviews/${ids.get(externalId)}/reply${tail}`;

describe('dashboard replies', () => {
  it('a Member drafts; only an Owner or Admin publishes, approves, cancels, deletes or sets the delay; publish without text on someone else\'s draft is a 400 asking for the words read', async () => {
    const draft = await member.send('POST', reply('d-1', '/draft'), { text: 'Thanks, Ana!' });
    expect(draft.status).toBe(200);
    expect(draft.body).toMatchObject({ reviewId: ids.get('d-1'), platform: 'DIRECT', state: 'draft', text: 'Thanks, Ana!', author: 'member@replies.test', approvedBy: null });
    for (const [method, path, body] of [
      ['POST', reply('d-1', '/publish'), { now: true }],
      ['POST', reply('d-1', '/approve'), undefined],
      ['POST', reply('d-1', '/cancel'), undefined],
      ['DELETE', reply('d-1'), undefined],
      ['PATCH', '/dashboard/api/replies/settings', { delayMinutes: 0 }],
      ['PATCH', '/dashboard/api/replies/auto-reply', { enabled: false, minRating: 5, templateId: 'tpl_x' }],
    ] as const) {
      const refused = await member.send(method, path, body);
      expect([refused.status, refused.body.error], `${method} ${path}`).toEqual([403, 'forbidden_role']);
    }
    // A Member may still change their draft.
    expect((await member.send('PATCH', reply('d-1'), { text: 'Thank you, Ana!' })).body).toMatchObject({ state: 'draft', text: 'Thank you, Ana!' });

    // Approve carries what the Owner read: words changed since are a 409 in words, nothing scheduled.
    const stale = await owner.send('POST', reply('d-1', '/approve'), { text: 'Thanks, Ana!' });
    expect([stale.status, stale.body.message]).toEqual([409, 'The draft changed since you opened it; read it again.']);
    expect((await owner.send('POST', reply('d-1', '/approve'))).status).toBe(400);
    expect((await member.send('GET', '/dashboard/api/replies?state=scheduled')).body.data).toEqual([]);
    const approved = await owner.send('POST', reply('d-1', '/approve'), { text: 'Thank you, Ana!' });
    expect(approved.body).toMatchObject({ state: 'scheduled', author: 'member@replies.test', approvedBy: 'owner@replies.test' });
    // Approved: a Member can no longer change it (the service's rule).
    const late = await member.send('PATCH', reply('d-1'), { text: 'changed' });
    expect([late.status, late.body.error]).toEqual([403, 'forbidden']);
    const list = await member.send('GET', '/dashboard/api/replies?state=scheduled');
    expect(list.body).toMatchObject({ delayMinutes: 5, data: [{ reviewId: ids.get('d-1'), state: 'scheduled' }] });
    expect((await owner.send('POST', reply('d-1', '/cancel'))).body).toMatchObject({ state: 'draft', scheduledAt: null });

    expect((await owner.send('PATCH', '/dashboard/api/replies/settings', { delayMinutes: 61 })).status).toBe(400);
    expect((await owner.send('PATCH', '/dashboard/api/replies/settings', { delayMinutes: 0 })).body).toEqual({ delayMinutes: 0 });
    // The automatic-reply rule: off until set; a 400 in words for a bad field; set by an Owner.
    expect((await member.send('GET', '/dashboard/api/replies/auto-reply')).body).toEqual({ enabled: false, minRating: null, templateId: null });
    const badRule = await owner.send('PATCH', '/dashboard/api/replies/auto-reply', { enabled: true, minRating: 0, templateId: 'tpl_x' });
    expect([badRule.status, badRule.body.message]).toEqual([400, 'minRating must be a whole number of stars from 1 to 5.']);
    const tpl = await owner.send('POST', '/dashboard/api/replies/templates', { name: 'Stars', language: 'en', ratings: [5], text: 'Thanks, {author}!' });
    expect((await owner.send('PATCH', '/dashboard/api/replies/auto-reply', { enabled: true, minRating: 4, templateId: tpl.body.id })).status).toBe(400);
    expect((await owner.send('PATCH', '/dashboard/api/replies/auto-reply', { enabled: true, minRating: 5, templateId: tpl.body.id })).body).toEqual({ enabled: true, minRating: 5, templateId: tpl.body.id });
    expect((await member.send('GET', '/dashboard/api/replies/auto-reply')).body).toEqual({ enabled: true, minRating: 5, templateId: tpl.body.id });
    await owner.send('PATCH', '/dashboard/api/replies/auto-reply', { enabled: false, minRating: 5, templateId: tpl.body.id });
    expect((await owner.send('DELETE', `/dashboard/api/replies/templates/${tpl.body.id}`)).status).toBe(200);
    // Publish without text on the Member's draft is no blind approval: a 400 asking for the words read (approve's rule), nothing scheduled.
    const blind = await owner.send('POST', reply('d-1', '/publish'), {});
    expect([blind.status, blind.body.message]).toEqual([400, 'Send the draft\'s text as you read it (text): this draft was written by someone else, and only the words read are approved.']);
    expect((await owner.send('GET', reply('d-1'))).body.reply).toMatchObject({ state: 'draft', author: 'member@replies.test' });
    expect((await owner.send('POST', reply('d-1', '/publish'), { text: 'Thank you, Ana!' })).body).toMatchObject({ state: 'scheduled', text: 'Thank you, Ana!' });
    const published = await until('published', async () => ((await owner.send('GET', '/dashboard/api/replies?state=published')).body.data as { reviewId: string; date: string }[]).find((r) => r.reviewId === ids.get('d-1')));
    expect(Number.isNaN(Date.parse(published!.date))).toBe(false);
    expect((await owner.send('DELETE', reply('d-1'))).body).toMatchObject({ state: 'deleted' });
    const audit = await owner.send('GET', '/dashboard/api/audit');
    expect(JSON.stringify(audit.body)).toContain('reply.deleted');
  });

  it('the automatic-reply rule: a new blank 5-star review its connected Google source collected gets one scheduled reply (its template filled in, cancellable, audited); a file import through the admin API (DIRECT included), a review written long before (a source\'s history), with text, below N, Yelp, or imported before the rule was on: none', async () => {
    const org = (await t.org('growth')).orgId;
    const boss = await signedIn('owner@auto-reply.test', 'owner', org);
    const today = new Date().toISOString();
    const importLines = async (...records: object[]) => {
      const ndjson = records.map((r) => JSON.stringify({ date: today, content: '', rating: 5, ...r })).join('\n');
      expect((await t.admin('POST', `/admin/orgs/${org}/reviews?format=ndjson`, `${ndjson}\n`)).status).toBe(200);
    };
    const idOf = async (externalId: string, platform = 'DIRECT') => (await t.service.store.reviews.findByExternalIds(org, platform, [externalId]))[0]!.id;
    // A connected Google location, as the sources service stores it (its credentials sealed with the service's key).
    const box = new SecretBox(await ensureSecretsKey(null, t.dataDir));
    const sourceId = newId('src');
    await t.service.store.sources.create({
      id: sourceId, orgId: org, platform: 'GOOGLE', account: 'accounts/1/locations/2', name: 'Google shop', state: 'active', everyMinutes: 60, credentials: box.sealJson({ refreshToken: 'google-refresh' }, sourceId),
      cursor: null, lastSyncAt: null, lastSuccessAt: null, lastFullAt: null, nextSyncAt: today, lastError: null, failures: 0, createdAt: today, updatedAt: today,
    });
    const synced = (externalId: string, authorName: string, date = today) => ({ authorAvatar: null, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], rating: 5, content: '', date, platform: 'GOOGLE', externalId, authorName, sourceId });
    expect((await boss.send('PATCH', '/dashboard/api/replies/settings', { delayMinutes: 60 })).status).toBe(200);
    const tpl = await boss.send('POST', '/dashboard/api/replies/templates', { name: 'Warm', language: 'en', ratings: [4, 5], text: 'Thank you, {author}, from {business}!' });
    expect(tpl.status).toBe(201);
    // Before the rule is on: a blank 5-star review that will never be answered by it.
    await importLines({ platform: 'DIRECT', externalId: 'before', authorName: 'Bea' });
    expect((await boss.send('PATCH', '/dashboard/api/replies/auto-reply', { enabled: true, minRating: 4, templateId: tpl.body.id })).status).toBe(200);
    await importLines(
      { platform: 'DIRECT', externalId: 'blank-5', authorName: 'Fay' },
      { platform: 'DIRECT', externalId: 'worded', authorName: 'Wes', content: 'Lovely shop' },
      { platform: 'DIRECT', externalId: 'low', authorName: 'Lou', rating: 3 },
      { platform: 'YELP', externalId: 'yelp', authorName: 'Yan' },
      { platform: 'DIRECT', externalId: 'before', authorName: 'Bea' },
    );
    // What the location's sync stores: one written today, one written in 2019 (first stored now).
    await t.service.store.reviews.upsert(org, [synced('g-today', 'Nia'), synced('g-2019', 'Otis', '2019-07-04T10:00:00.000Z')], new Date());
    const id = await idOf('g-today', 'GOOGLE');
    const path = `/dashboard/api/reviews/${id}/reply`;
    const composer = (await until('the automatic reply', async () => {
      const got = await boss.send('GET', path);
      return (got.body.reply as { state?: string } | null)?.state === 'scheduled' ? got.body : null;
    }))!;
    const businessName = composer.organization as string;
    expect(composer.reply).toMatchObject({ state: 'scheduled', text: `Thank you, Nia, from ${businessName}!`, approvedBy: 'automatic reply rule' });
    expect(((await boss.send('GET', '/dashboard/api/replies?state=scheduled')).body.data as { reviewId: string }[]).map((r) => r.reviewId)).toEqual([id]);
    for (const [externalId, platform] of [['blank-5', 'DIRECT'], ['worded', 'DIRECT'], ['low', 'DIRECT'], ['yelp', 'YELP'], ['before', 'DIRECT'], ['g-2019', 'GOOGLE']] as const) {
      expect((await t.service.store.replies.get(org, await idOf(externalId, platform))), externalId).toBeNull();
    }
    const audit = (await until('the audit entry', async () => {
      const entries = ((await boss.send('GET', '/dashboard/api/audit')).body.data ?? []) as { action: string; details: Record<string, string> }[];
      return entries.find((e) => e.action === 'reply.auto_scheduled');
    }))!;
    expect(audit.details.by).toBe('automatic reply rule (4+ stars, template “Warm”)');
    // Cancellable in the composer like any scheduled reply.
    expect((await boss.send('POST', `${path}/cancel`)).body).toMatchObject({ state: 'draft', scheduledAt: null });
  });

  it('publishes and deletes past 60 a minute per organization are a 429 with Retry-After', async () => {
    const busyOrg = (await t.org('growth')).orgId;
    await t.service.store.reviews.upsert(busyOrg, [{ authorAvatar: null, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], rating: 5, content: 'Lovely', date: '2026-11-20T10:00:00.000Z', platform: 'DIRECT', externalId: 'busy-1', authorName: 'Dan' }], new Date());
    const [review] = (await t.service.store.reviews.list({ orgId: busyOrg, limit: 10, offset: 0 })).items;
    const busyOwner = await signedIn('owner@busy-replies.test', 'owner', busyOrg);
    const path = `/dashboard/api/reviews/${review!.id}/reply`;
    // After the default 5 minute delay: nothing is posted meanwhile; each publish counts.
    for (let i = 0; i < 60; i++) expect((await busyOwner.send('POST', `${path}/publish`, { text: `Thanks ${i}` })).status).toBe(200);
    const refused = await busyOwner.send('POST', `${path}/publish`, { text: 'One too many' });
    expect([refused.status, refused.body.error]).toEqual([429, 'rate_limit_exceeded']);
    expect(refused.body.message).toMatch(/at most 60 times a minute/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await busyOwner.send('DELETE', path)).status).toBe(429);
  }, 90_000);

  it('needs our Origin and the CSRF token; refuses a platform without a reply API; another organization\'s review is unseen', async () => {
    const noToken = await owner.send('POST', reply('d-2', '/publish'), { text: 'Hi', now: true }, { 'x-csrf-token': '' });
    expect([noToken.status, noToken.body.error]).toEqual([403, 'csrf_failed']);
    const elsewhere = await owner.send('POST', reply('d-2', '/draft'), { text: 'Hi' }, { origin: 'https://evil.example' });
    expect([elsewhere.status, elsewhere.body.error]).toEqual([403, 'csrf_failed']);
    expect((await owner.send('GET', '/dashboard/api/replies')).body.data).not.toContainEqual(expect.objectContaining({ reviewId: ids.get('d-2') }));

    const yelp = await owner.send('POST', reply('y-1', '/publish'), { text: 'Sorry', now: true });
    expect(yelp.status).toBe(400);
    expect(yelp.body.message).toMatch(/Yelp offers no reply API/);
    const empty = await member.send('POST', reply('d-2', '/draft'), { text: '' });
    expect([empty.status, empty.body.details?.[0]?.parameter]).toEqual([400, 'text']);

    const other = (await t.org('growth')).orgId;
    const stranger = await signedIn('owner@other.test', 'owner', other);
    const hidden = await stranger.send('POST', reply('d-2', '/draft'), { text: 'Mine now' });
    expect(hidden.status).toBe(404);
  });
  it('GET /reviews/{id}/reply tells the composer the reply, the reply the review shows now (shown: written elsewhere, quoted before a publish replaces it), the platform\'s limit and why a platform takes none', async () => {
    const none = await member.send('GET', reply('d-2'));
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ reviewId: ids.get('d-2'), platform: 'DIRECT', reply: null, noReplyApi: null, blocked: null, maxBytes: null });
    expect(typeof none.body.organization).toBe('string');
    expect(none.body.organization).not.toBe('');
    expect((await member.send('POST', reply('d-2', '/draft'), { text: 'Thanks, Ben!' })).status).toBe(200);
    expect((await owner.send('GET', reply('d-2'))).body.reply).toMatchObject({ state: 'draft', text: 'Thanks, Ben!', author: 'member@replies.test' });
    const yelp = await member.send('GET', reply('y-1'));
    expect(yelp.status).toBe(200);
    expect(yelp.body).toMatchObject({ platform: 'YELP', reply: null, maxBytes: null });
    expect(yelp.body.noReplyApi).toMatch(/Yelp offers no reply API/);
    // The reply the review shows now, written elsewhere (here as a sync or an import brings it): the composer quotes it before a publish replaces it.
    expect(none.body.shown).toBeNull();
    const elsewhere = { text: 'Thank you, Dana! (the owner, on the platform itself)', date: '2026-11-21T09:00:00.000Z' };
    await t.service.store.reviews.upsert(orgId, [{ authorAvatar: null, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], rating: 5, content: '', date: '2026-11-20T10:00:00.000Z', platform: 'DIRECT', externalId: 'd-shown', authorName: 'Dana', reply: elsewhere }], new Date());
    const shownId = (await t.service.store.reviews.findByExternalIds(orgId, 'DIRECT', ['d-shown']))[0]!.id;
    const shown = await owner.send('GET', `/dashboard/api/reviews/${shownId}/reply`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ reply: null, shown: elsewhere });
    expect((await owner.send('GET', '/dashboard/api/reviews/rev_unknown/reply')).status).toBe(404);
    const other = (await t.org('growth')).orgId;
    const stranger = await signedIn('owner@other-about.test', 'owner', other);
    expect((await stranger.send('GET', reply('d-2'))).status).toBe(404);
  });
  it('templates: everyone reads, Owner and Admin write (audited), bad input is a 400 naming the field, at most 100; the composer proposes the one that suits, filled in', async () => {
    const path = '/dashboard/api/replies/templates';
    const five = { name: 'Five stars', language: 'en', ratings: [5], text: 'Thank you, {author}, from all of us at {business}!' };
    const created = await owner.send('POST', path, five);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Five stars', language: 'en', ratings: [5], text: five.text });
    const id = created.body.id as string;
    expect((await owner.send('POST', path, { name: 'Sorry', language: 'en', ratings: [1, 2], text: 'Sorry, {author}.' })).status).toBe(201);
    expect((await owner.send('POST', path, { name: 'Danke', language: 'de', ratings: [5], text: 'Danke, {author}!' })).status).toBe(201);
    // A Member reads them and is refused every write.
    const read = await member.send('GET', path);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ max: 100 });
    expect((read.body.data as { name: string }[]).map((t) => t.name)).toEqual(['Danke', 'Five stars', 'Sorry']);
    for (const [method, p, body] of [['POST', path, five], ['PATCH', `${path}/${id}`, five], ['DELETE', `${path}/${id}`, undefined]] as const) {
      const refused = await member.send(method, p, body);
      expect([refused.status, refused.body.error], `${method} ${p}`).toEqual([403, 'forbidden_role']);
    }
    // Bad input: a 400 with the field and the reason, never a 500.
    for (const [body, parameter, message] of [
      [{ ...five, ratings: [6] }, 'ratings', /from 1 to 5/],
      [{ ...five, language: 'English' }, 'language', /two-letter code/],
      [{ ...five, text: 'Hi {customer}' }, 'text', /\{customer\} is not a placeholder/],
      [{ ...five, name: '' }, 'name', /needs a name/],
      [{ ...five, ratings: 'five' }, 'ratings', /at least one rating/],
    ] as const) {
      const bad = await owner.send('POST', path, body);
      expect([bad.status, bad.body.details?.[0]?.parameter], JSON.stringify(body)).toEqual([400, parameter]);
      expect(bad.body.message).toMatch(message);
    }
    const notJson = await owner.send('POST', path, [five]);
    expect(notJson.status).toBe(400);
    expect((await owner.send('PATCH', `${path}/tpl_none`, five)).status).toBe(404);
    expect((await owner.send('PATCH', `${path}/${id}`, { ...five, text: 'Thank you, {author}! Come back soon to {business}.' })).body).toMatchObject({ id, text: 'Thank you, {author}! Come back soon to {business}.' });

    // The composer: Ana's 5-star English review gets "Five stars", filled in; the others are offered filled in too.
    const about = await member.send('GET', reply('d-1'));
    const org = about.body.organization as string;
    expect(about.body.proposal).toMatchObject({ id, name: 'Five stars', text: `Thank you, Ana! Come back soon to ${org}.` });
    expect((about.body.templates as { name: string; text: string }[]).find((t) => t.name === 'Sorry')?.text).toBe('Sorry, Ana.');

    const audit = JSON.stringify((await owner.send('GET', '/dashboard/api/audit')).body);
    expect(audit).toContain('reply.template_created');
    expect(audit).toContain('reply.template_changed');
    expect((await owner.send('DELETE', `${path}/${id}`)).body).toEqual({ id, removed: true });
    expect((await owner.send('DELETE', `${path}/${id}`)).status).toBe(404);
    expect(JSON.stringify((await owner.send('GET', '/dashboard/api/audit')).body)).toContain('reply.template_removed');
    // Without a template that suits (German 5 stars: Danke is German, Ana wrote in English): no proposal.
    expect((await member.send('GET', reply('d-1'))).body.proposal).toBeNull();

    // The cap: 100 per organization, then a 409 saying so; another organization keeps its own.
    const have = ((await owner.send('GET', path)).body.data as unknown[]).length;
    for (let i = have; i < 100; i++) expect((await owner.send('POST', path, { ...five, name: `T${i}` })).status).toBe(201);
    const over = await owner.send('POST', path, { ...five, name: 'One too many' });
    expect([over.status, over.body.error]).toEqual([409, 'limit_reached']);
    expect(over.body.message).toMatch(/at most 100 reply templates/);
    const otherOwner = await signedIn('owner@templates-other.test', 'owner', (await t.org('growth')).orgId);
    expect((await otherOwner.send('GET', path)).body.data).toEqual([]);
    expect((await otherOwner.send('PATCH', `${path}/${id}`, five)).status).toBe(404);
  }, 90_000);
});
