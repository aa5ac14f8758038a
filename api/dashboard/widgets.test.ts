/**
 * The dashboard's widget endpoints over real HTTPS (embedded store, sessions
 * in the store): the list, one widget with its snippet, the preview of
 * unsaved options (the public data and the SEO lint, nothing stored), create
 * and update through the admin API's validation (400 with one detail per
 * field), roles (a Member reads and previews, never saves) and organization
 * scoping (another organization's widget is 404). Every answer is checked
 * against the dashboard's OpenAPI document by the client.
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFixture } from '../reviews/fixtures.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { snippetFor } from '../../widget/src/snippet.ts';
import { layoutHeight } from '../../widget/src/layout-height.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';

let t: TestService;
let agent: Agent;
let orgId: string;
let demoKey: string;
let foreignWidgetId: string;
let owner: Client;
let admin: Client;
let member: Client;

async function signedIn(email: string, role: string): Promise<Client> {
  const created = await t.admin('POST', '/admin/users', { orgId, email, role, password: PASSWORD });
  expect(created.status).toBe(201);
  const c = new Client(t, agent);
  expect((await c.signIn(email, PASSWORD)).status).toBe(200);
  return c;
}

const draft = {
  name: 'Shoe page',
  layout: 'grid',
  subject: { type: 'Product', name: 'Acme Shoes', url: 'https://shop.example/shoes', image: null, brand: 'Acme' },
  options: { theme: 'dark', accentColor: '#0F766E', maxReviews: 6, minRating: 4, platforms: ['google', 'TRUSTPILOT'], hideEmpty: true, showDates: false, locale: 'de-DE', jsonLd: 'on', reviewLanguages: 'all', jsonLdSources: 'all' },
};

beforeAll(async () => {
  t = await startTestService({ redis: false });
  agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
  const org = await t.org('growth', 1_000_000);
  orgId = org.orgId;
  demoKey = org.key;
  const fixture = generateFixture({ sizes: [200] });
  await t.service.store.reviews.upsert(orgId, fixture.inputs(fixture.orgIds[0]!), new Date());
  const other = await t.org('growth');
  foreignWidgetId = (await t.admin('POST', '/admin/widgets', { orgId: other.orgId, name: 'Theirs' })).body.id as string;
  [owner, admin, member] = await Promise.all([signedIn('owner@example.com', 'owner'), signedIn('admin@example.com', 'admin'), signedIn('member@example.com', 'member')]);
});
afterAll(async () => {
  agent?.destroy();
  await t?.close();
});

describe('dashboard widgets API', () => {
  it('previews unsaved options as the public endpoint would show them, with the SEO findings, and stores nothing', async () => {
    const before = await t.service.store.widgets.listByOrg(orgId);
    const res = await member.send('POST', '/dashboard/api/widgets/preview', draft);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const data = res.body.data as { id: string; layout: string; subject: string; options: Record<string, unknown>; reviews: { platform: string; rating: number; content: string }[]; jsonLd: unknown };
    expect(data).toMatchObject({ id: 'wdg_preview', layout: 'grid', subject: 'Acme Shoes', options: { theme: 'dark', accentColor: '#0f766e', showDates: false, locale: 'de-DE' } });
    expect(data.reviews.length).toBeGreaterThan(0);
    expect(data.reviews.length).toBeLessThanOrEqual(6);
    for (const r of data.reviews) {
      expect(['GOOGLE', 'TRUSTPILOT']).toContain(r.platform);
      expect(r.rating).toBeGreaterThanOrEqual(4);
      expect(r.content.trim()).not.toBe('');
    }
    expect(data.jsonLd).toMatchObject({ '@type': 'Product', name: 'Acme Shoes' });
    const rules = (res.body.findings as { rule: string; link: string }[]).map((f) => f.rule);
    // Google and Trustpilot are other websites; a 4-star minimum hand-picks the displayed reviews.
    expect(rules).toEqual(expect.arrayContaining(['third-party-reviews', 'selective-reviews']));
    expect(rules).not.toContain('self-serving-reviews');

    // The same widget saved gives the same public data from the real public endpoint.
    const saved = await owner.send('POST', '/dashboard/api/widgets', draft);
    expect(saved.status).toBe(201);
    const pub = await t.get(`/public/v1/widgets/${saved.body.id as string}`);
    expect({ ...(pub.body as { data: object }).data, id: 'wdg_preview' }).toEqual(data);
    expect((await t.service.store.widgets.listByOrg(orgId)).length).toBe(before.length + 1);

    // An Organization named like the organization itself is self-serving: the lint says so for the unsaved subject.
    const orgName = (await t.service.store.orgs.get(orgId))!.name;
    const selfServing = await member.send('POST', '/dashboard/api/widgets/preview', { name: 'x', subject: { type: 'Organization', name: orgName } });
    expect((selfServing.body.findings as { rule: string; severity: string }[]).find((f) => f.rule === 'self-serving-reviews')?.severity).toBe('error');
  });

  it('previews and saves only this organization\'s sources (sourceIds): another organization\'s is a 400, and its reviews never show', async () => {
    const other = await t.org('growth');
    const stamp = new Date().toISOString();
    const theirs = { id: `src_Theirs${Date.now()}`, orgId: other.orgId, platform: 'GOOGLE' as const, account: 'accounts/7/locations/7', name: 'Their shop', state: 'paused' as const, everyMinutes: 60, credentials: 'sealed', cursor: null, lastSyncAt: null, lastSuccessAt: null, lastFullAt: null, nextSyncAt: stamp, lastError: null, failures: 0, createdAt: stamp, updatedAt: stamp };
    const ours = { ...theirs, id: `src_Ours${Date.now()}`, orgId, name: 'Our shop', account: 'accounts/7/locations/8' };
    await t.service.store.sources.create(theirs);
    await t.service.store.sources.create(ours);
    await t.service.store.reviews.upsert(other.orgId, [{ platform: 'GOOGLE', externalId: 'theirs-1', authorName: 'Them', authorAvatar: null, rating: 5, content: 'Their review', date: stamp, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], sourceId: theirs.id }], new Date());
    for (const path of ['/dashboard/api/widgets/preview', '/dashboard/api/widgets']) {
      const res = await owner.send('POST', path, { name: 'Locator', options: { sourceIds: [theirs.id] } });
      expect(res.status, path).toBe(400);
      expect(res.body.details).toEqual([{ parameter: 'options.sourceIds', message: `not a source of this organization: ${theirs.id}` }]);
    }
    // Its own source: the preview shows that source's reviews (none yet), and the builder's list names it.
    const own = await owner.send('POST', '/dashboard/api/widgets/preview', { name: 'Locator', options: { sourceIds: [ours.id] } });
    expect(own.status).toBe(200);
    expect((own.body.data as { summary: { totalReviews: number } }).summary.totalReviews).toBe(0);
    const list = await member.send('GET', '/dashboard/api/widgets');
    expect(list.body.sources).toEqual([{ id: ours.id, name: 'Our shop', platform: 'GOOGLE' }]);
    await t.service.store.sources.delete(ours.id);
  });

  it('refuses bad options with 400 and one detail per field, named as the form names them', async () => {
    const bad = await owner.send('POST', '/dashboard/api/widgets/preview', {
      name: '',
      layout: 'slideshow',
      subject: { type: 'Thing', name: '', url: 'http://insecure.example' },
      options: { accentColor: 'teal', maxReviews: 51, minRating: 0, platforms: [], locale: 'not a locale!', jsonLd: 'maybe', colour: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('bad_request');
    const details = bad.body.details as { parameter: string; message: string }[];
    expect(details.map((d) => d.parameter).sort()).toEqual(
      [
        'name',
        'layout',
        'subject.type',
        'subject.name',
        'subject.url',
        'options.accentColor',
        'options.maxReviews',
        'options.minRating',
        'options.platforms',
        'options.locale',
        'options.jsonLd',
        'options.colour',
      ].sort(),
    );
    expect(details.find((d) => d.parameter === 'options.maxReviews')!.message).toBe('must be an integer from 1 to 50');
    // The same validation when saving; orgId is the session's, never the body's.
    const create = await owner.send('POST', '/dashboard/api/widgets', { name: 'ok', options: { maxReviews: 0 } });
    expect(create.status).toBe(400);
    expect(create.body.details).toEqual([{ parameter: 'options.maxReviews', message: 'must be an integer from 1 to 50' }]);
    const smuggled = await owner.send('POST', '/dashboard/api/widgets', { name: 'ok', orgId: 'org_someone_else' });
    expect(smuggled.status).toBe(400);
    expect(smuggled.body.details).toEqual([{ parameter: 'orgId', message: 'is not a known field' }]);
    const notJson = await owner.send('POST', '/dashboard/api/widgets/preview', [1, 2]);
    expect(notJson.status).toBe(400);
  });

  it('creates and updates for Owner and Admin, with the exact embed snippet, audit-logged; a Member reads but gets 403 forbidden_role', async () => {
    const created = await admin.send('POST', '/dashboard/api/widgets', { name: 'Home page' });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ name: 'Home page', layout: 'carousel', subject: { type: 'Organization', name: 'Home page' }, options: { theme: 'light', maxReviews: 12 } });
    expect(created.body).not.toHaveProperty('orgId');

    const changed = await owner.send('PATCH', `/dashboard/api/widgets/${id}`, { layout: 'list', options: { theme: 'dark', accentColor: '#b91c1c' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ layout: 'list', options: { theme: 'dark', accentColor: '#b91c1c', maxReviews: 12 } });
    const stored = (await t.service.store.widgets.get(id))!;
    expect(stored.options.theme).toBe('dark');

    // The snippet is the API's embed snippet, to the byte.
    const embed = await t.get(`/api/v1/widgets/${id}/embed`, { key: demoKey });
    const snippet = (embed.body as { data: { snippet: string } }).data.snippet;
    expect(changed.body.snippet).toBe(snippet);
    expect(snippet).toBe(snippetFor({ origin: t.service.config.publicUrl, widgetId: id, height: layoutHeight('list', stored.options) }));

    const view = await member.send('GET', `/dashboard/api/widgets/${id}`);
    expect(view.status).toBe(200);
    expect(view.body.snippet).toBe(snippet);
    const list = await member.send('GET', '/dashboard/api/widgets');
    expect((list.body.data as { id: string }[]).map((w) => w.id)).toContain(id);
    expect((list.body.platforms as { platform: string; count: number }[]).reduce((n, p) => n + p.count, 0)).toBe(200);

    const refused = await Promise.all([member.send('POST', '/dashboard/api/widgets', { name: 'Mine' }), member.send('PATCH', `/dashboard/api/widgets/${id}`, { layout: 'grid' })]);
    expect(refused.map((r) => [r.status, r.body.error])).toEqual([
      [403, 'forbidden_role'],
      [403, 'forbidden_role'],
    ]);
    expect((await t.service.store.widgets.get(id))!.layout).toBe('list');

    const audit = await owner.send('GET', '/dashboard/api/audit');
    const records = (audit.body.data as { action: string; actor: { email: string }; target: { id: string }; details: Record<string, string> }[]).filter((r) => r.target.id === id);
    expect(records.map((r) => [r.action, r.actor.email, r.details])).toEqual([
      ['widget.changed', 'owner@example.com', { changes: 'Layout: carousel → list; Theme: light → dark; Accent colour: #4f46e5 → #b91c1c' }],
      ['widget.created', 'admin@example.com', { layout: 'carousel' }],
    ]);
  });

  it('audits only what a save changed, in the builder’s words: the whole widget sent back with a new name is one "Name" change; a save that changes nothing leaves no record', async () => {
    const created = await owner.send('POST', '/dashboard/api/widgets', { name: 'Before', options: { platforms: ['GOOGLE'] } });
    const id = created.body.id as string;
    // The builder sends every field on each save, as it read them.
    const { id: _id, snippet: _s, createdAt: _c, updatedAt: _u, ...whole } = created.body as Record<string, unknown>;
    expect((await owner.send('PATCH', `/dashboard/api/widgets/${id}`, { ...whole, name: 'After' })).status).toBe(200);
    expect((await owner.send('PATCH', `/dashboard/api/widgets/${id}`, { ...whole, name: 'After' })).status).toBe(200);
    const options = whole.options as Record<string, unknown>;
    const subject = whole.subject as Record<string, unknown>;
    const patch = { ...whole, name: 'After', options: { ...options, platforms: ['GOOGLE', 'YELP'], reviewLanguages: 'page' }, subject: { ...subject, url: 'https://shop.example/' } };
    expect((await owner.send('PATCH', `/dashboard/api/widgets/${id}`, patch)).status).toBe(200);
    const audit = await owner.send('GET', '/dashboard/api/audit');
    const records = (audit.body.data as { action: string; target: { id: string }; details: Record<string, string> }[]).filter((r) => r.target.id === id);
    expect(records.map((r) => [r.action, r.details])).toEqual([
      ['widget.changed', { changes: 'Platforms: Google → Google, Yelp; Reviews by language: all languages → the visitor’s language; Page address: none → “https://shop.example/”' }],
      ['widget.changed', { changes: 'Name: “Before” → “After”' }],
      ['widget.created', { layout: 'carousel' }],
    ]);
  });

  it("answers 404 for another organization's widget (and for ids that are not widget ids), never 403", async () => {
    for (const id of [foreignWidgetId, 'wdg_doesnotexist000000', 'not-an-id']) {
      expect((await owner.send('GET', `/dashboard/api/widgets/${id}`)).status).toBe(404);
      expect((await owner.send('PATCH', `/dashboard/api/widgets/${id}`, { name: 'Taken' })).status).toBe(404);
    }
    expect((await t.service.store.widgets.get(foreignWidgetId))!.name).toBe('Theirs');
    // Its org's widgets never show in our list.
    const list = await owner.send('GET', '/dashboard/api/widgets');
    expect((list.body.data as { id: string }[]).map((w) => w.id)).not.toContain(foreignWidgetId);
  });

  it('needs a session, our Origin and the CSRF token like every dashboard change', async () => {
    const anonymous = new Client(t, agent);
    await anonymous.start();
    expect((await anonymous.send('POST', '/dashboard/api/widgets/preview', draft)).status).toBe(401);
    expect((await anonymous.send('GET', '/dashboard/api/widgets')).status).toBe(401);
    const noToken = await owner.send('POST', '/dashboard/api/widgets', { name: 'x' }, { 'x-csrf-token': '' });
    expect([noToken.status, noToken.body.error]).toEqual([403, 'csrf_failed']);
  });
});
