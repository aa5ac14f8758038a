/**
 * The dashboard's Reviews page API over real HTTPS: the list with the public
 * API's filters and paging, the streamed import upload (formats, bad lines
 * with their line numbers, 411/413, CSRF and Origin, never a 5xx), and
 * moderation with disclosure (roles, organization scoping, reasons, audit,
 * widgets and JSON-LD leave hidden reviews out while statistics keep them).
 * Every dashboard answer is checked against the dashboard's OpenAPI document,
 * every public one against the public document (the harness).
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { Client, type Answer } from './test-client.ts';

interface ReviewItem {
  id: string;
  platform: string;
  rating: number | null;
  date: string;
  language: string;
  hidden: { reason: string; hiddenAt: string; hiddenBy: string } | null;
}

const PASSWORD = 'a long enough password';

const HEADER = 'platform,externalId,authorName,rating,content,date,language';
const csvLine = (platform: string, id: string, rating: number, content: string, date: string, language = 'en') =>
  `${platform},${id},Author ${id},${rating},"${content}",${date},${language}`;

/** Reads until `check` passes: the public widget data is kept for 5 s per widget version. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 8000): Promise<T> {
  const until = Date.now() + ms;
  let value = await read();
  while (!check(value) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    value = await read();
  }
  return value;
}

describe('dashboard Reviews: list, import upload, moderation', () => {
  let t: TestService;
  let agent: Agent;
  let orgId: string;
  let key: string;
  let widgetId: string;
  let owner: Client;
  let admin: Client;
  let member: Client;

  beforeAll(async () => {
    t = await startTestService({ redis: false });
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
    ({ orgId, key } = await t.org('growth', 100_000));
    for (const [email, role] of [['owner@example.com', 'owner'], ['admin@example.com', 'admin'], ['member@example.com', 'member']] as const) {
      expect((await t.admin('POST', '/admin/users', { orgId, email, role, password: PASSWORD })).status).toBe(201);
    }
    owner = new Client(t, agent);
    admin = new Client(t, agent);
    member = new Client(t, agent);
    const signedIn = await Promise.all([owner.signIn('owner@example.com', PASSWORD), admin.signIn('admin@example.com', PASSWORD), member.signIn('member@example.com', PASSWORD)]);
    expect(signedIn.map((res) => res.status)).toEqual([200, 200, 200]);
    const w = await t.admin('POST', '/admin/widgets', {
      orgId,
      name: 'Home',
      layout: 'grid',
      subject: { type: 'Product', name: 'Acme Shoes', url: 'https://shop.example/shoes' },
      // Google and Yelp reviews marked up by choice (jsonLdSources "all"): what moderation hides from the review items.
      options: { maxReviews: 10, platforms: ['GOOGLE', 'YELP'], jsonLd: 'on', jsonLdSources: 'all' },
    });
    expect(w.status).toBe(201);
    widgetId = w.body.id as string;
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
  });

  it('imports an uploaded CSV streamed to the import: good lines kept, each bad line reported with its line number and reason', async () => {
    const lines = [
      HEADER,
      csvLine('GOOGLE', 'g1', 5, 'Lovely shoes, they fit perfectly.', '2026-10-01T10:00:00Z'),
      csvLine('GOOGLE', 'g2', 4, 'Good value for the price.', '2026-10-02T10:00:00Z'),
      csvLine('YELP', 'y1', 2, 'The laces broke within a week.', '2026-10-03T10:00:00Z'),
      'GOOGLE,g3,Bob,9,"Nine stars?",2026-10-04T10:00:00Z,en', // line 5: rating out of range
      csvLine('TRUSTPILOT', 't1', 3, 'Delivery took a while.', '2026-10-05T10:00:00Z'),
      'YELP,y2,Eve,4,"unclosed quote" and more,2026-10-06T10:00:00Z,en', // line 7: text after a closing quote
      csvLine('FACEBOOK', 'f1', 5, 'Recommended to all my friends.', 'not a date'), // line 8: bad date
      csvLine('YELP', 'y3', 5, 'Hervorragende Schuhe, sehr bequem.', '2026-10-07T10:00:00Z', 'de'),
    ];
    const res = await owner.upload('csv', `${lines.join('\n')}\n`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ imported: 5, updated: 0, rejectedTotal: 3 });
    expect((res.body.rejected as { line: number }[]).map((r) => r.line)).toEqual([5, 7, 8]);
    for (const r of res.body.rejected as { reason: string }[]) expect(r.reason.length).toBeGreaterThan(5);

    // NDJSON and JSON too, from an Admin; a re-import updates, never duplicates.
    const ndjson = [
      JSON.stringify({ platform: 'GOOGLE', externalId: 'g1', authorName: 'Author g1', rating: 5, content: 'Lovely shoes, they fit perfectly!', date: '2026-10-01T10:00:00Z' }),
      '{"platform": "GOOGLE", "externalId": ',
      JSON.stringify({ platform: 'GOOGLE', externalId: 'g4', authorName: 'Zoe', rating: 1, content: 'Fell apart.', date: '2026-10-08T10:00:00Z', replyText: 'Sorry, Zoe: write to us.', replyDate: '2026-10-09T08:00:00Z' }),
    ].join('\n');
    const nd = await admin.upload('ndjson', ndjson);
    expect(nd.status).toBe(200);
    expect(nd.body).toMatchObject({ imported: 1, updated: 1, rejectedTotal: 1, rejected: [{ line: 2 }] });
    const json = await admin.upload('json', JSON.stringify([{ platform: 'YELP', externalId: 'y4', authorName: 'Kim', rating: 3, content: 'Fine.', date: '2026-10-09T10:00:00Z' }, { rating: 'x' }]));
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ imported: 1, updated: 0, rejectedTotal: 1 });
    expect((await t.get('/api/v1/reviews/stats', { key })).body).toMatchObject({ data: { totalReviews: 7 } });
    // The Reviews page shows an existing reply (read-only): each item carries it, or null.
    const items = (await member.send('GET', '/dashboard/api/reviews?limit=100')).body.data as { authorName: string; reply: unknown }[];
    expect(items.find((r) => r.authorName === 'Zoe')!.reply).toEqual({ text: 'Sorry, Zoe: write to us.', date: '2026-10-09T08:00:00.000Z' });
    expect(items.find((r) => r.authorName === 'Kim')!.reply).toBeNull();
  });

  it('never answers a bad upload with a 5xx: garbage in every format, no format, no length, too large, cross-origin, no token', async () => {
    const garbage = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256));
    for (const format of ['csv', 'ndjson', 'json']) {
      const res = await owner.upload(format, garbage);
      expect(res.status, format).toBe(200);
      expect(res.body.imported, format).toBe(0);
      expect(res.body.rejectedTotal as number, format).toBeGreaterThan(0);
      expect((res.body.rejected as { line: number }[])[0]!.line, format).toBeGreaterThanOrEqual(1);
    }
    const noFormat = await owner.send('POST', '/dashboard/api/reviews/import', Buffer.from('x'));
    expect(noFormat.status).toBe(400);
    expect(noFormat.body.details).toEqual([{ parameter: 'format', message: 'must be one of ndjson, json, csv' }]);
    const unknown = await owner.send('POST', '/dashboard/api/reviews/import?format=xml&api=1', Buffer.from('x'));
    expect(unknown.status).toBe(400);
    expect(unknown.body.details!.map((d) => d.parameter).sort()).toEqual(['api', 'format']);

    // A body without a length (chunked), and one declared larger than the cap: refused before it is read.
    const chunked = await rawUpload(t, agent, owner, { 'transfer-encoding': 'chunked' }, 'GOOGLE,x\n');
    expect(chunked.status).toBe(411);
    expect(chunked.body.error).toBe('length_required');
    const huge = await rawUpload(t, agent, owner, { 'content-length': String(600 * 1024 * 1024) }, null);
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe('payload_too_large');
    expect(huge.body.message).toMatch(/600 MiB.*up to 512 MiB/);

    // The dashboard's CSRF rules: our Origin and the session's token.
    const foreign = await owner.send('POST', '/dashboard/api/reviews/import?format=csv', Buffer.from(HEADER), { origin: 'https://evil.example' });
    expect([foreign.status, foreign.body.error]).toEqual([403, 'csrf_failed']);
    const noToken = await owner.send('POST', '/dashboard/api/reviews/import?format=csv', Buffer.from(HEADER), { 'x-csrf-token': '' });
    expect([noToken.status, noToken.body.error]).toEqual([403, 'csrf_failed']);
    const signedOut = await new Client(t, agent).send('POST', '/dashboard/api/reviews/import?format=csv', Buffer.from(HEADER));
    expect(signedOut.status).toBe(403); // no session: the pre-session token is missing too
  });

  it('answers with the summary even when the parser stops early (a JSON object, not an array, with megabytes after it)', async () => {
    const file = `{"platform":"GOOGLE","externalId":"obj"}${' '.repeat(3 * 1024 * 1024)}\n`;
    const res = await owner.upload('json', file);
    expect(res.status).toBe(200);
    expect(res.body.imported).toBe(0);
    expect((res.body.rejected as { line: number; reason: string }[])[0]).toMatchObject({ line: 1 });
    // The connection is still good for the next request.
    expect((await owner.send('GET', '/dashboard/api/reviews?limit=1')).status).toBe(200);
  });

  it('takes one upload per organization at a time: a second one meanwhile is 429 with Retry-After', async () => {
    // A first upload that declares more than it sends: it stays open, waiting for the rest.
    const slow = request({
      host: '127.0.0.1',
      port: t.service.ports.https,
      path: '/dashboard/api/reviews/import?format=csv',
      method: 'POST',
      agent: false,
      ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'),
      servername: 'localhost',
      headers: { cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; '), origin: t.service.config.publicUrl, 'x-csrf-token': owner.csrf, 'content-length': String(1024 * 1024) },
    });
    slow.on('error', () => undefined);
    // Sent (its TLS handshake done and its first bytes on the wire) before the second upload starts:
    // otherwise the second one may take the slot first and the slow one is the 429.
    await new Promise<void>((resolve) => slow.write(`${HEADER}\n`, () => resolve()));
    // On the wire is not yet in the server's hands (its session is still being looked up): wait
    // until the server says the upload is running, which is when it holds the slot.
    while (((await owner.send('GET', '/dashboard/api/reviews/import')).body.run as { state: string } | null)?.state !== 'running') await new Promise((r) => setTimeout(r, 50));
    try {
      const second = await eventually(
        () => admin.upload('csv', `${HEADER}\n`),
        (r) => r.status === 429,
      );
      expect([second.status, second.body.error, second.headers['retry-after']]).toEqual([429, 'import_in_progress', '30']);
    } finally {
      slow.destroy();
    }
    // Once it is gone, uploads are taken again.
    const after = await eventually(
      () => admin.upload('csv', `${HEADER}\n`),
      (r) => r.status === 200,
    );
    expect(after.status).toBe(200);
  });

  it('lists with the public API’s filters, order and paging, and refuses bad parameters like it', async () => {
    const all = await member.send('GET', '/dashboard/api/reviews');
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ total: 7, limit: 20, offset: 0, hasMore: false });
    const publicIds = ((await t.get('/api/v1/reviews', { key })).body as { data: { id: string }[] }).data.map((r) => r.id);
    expect((all.body.data as ReviewItem[]).map((r) => r.id)).toEqual(publicIds);
    expect(all.body.maxImportBytes).toBe(512 * 1024 * 1024);

    const page = await member.send('GET', '/dashboard/api/reviews?limit=2&offset=2');
    expect((page.body.data as ReviewItem[]).map((r) => r.id)).toEqual(publicIds.slice(2, 4));
    expect(page.body.pagination).toEqual({ total: 7, limit: 2, offset: 2, hasMore: true });
    const yelp = await member.send('GET', '/dashboard/api/reviews?platform=yelp&minRating=3');
    expect((yelp.body.data as ReviewItem[]).map((r) => [r.platform, r.rating])).toEqual([
      ['YELP', 3],
      ['YELP', 5],
    ]);
    const recent = await member.send('GET', '/dashboard/api/reviews?since=2026-10-07&language=DE');
    expect((recent.body.data as ReviewItem[]).map((r) => r.language)).toEqual(['de']);

    const bad = await member.send('GET', '/dashboard/api/reviews?limit=500&minRating=0&sort=asc');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_parameter');
    expect(bad.body.details!.map((d) => d.parameter).sort()).toEqual(['limit', 'minRating', 'sort']);
  });

  it('hides from widgets and JSON-LD review items only: statistics, aggregateRating and /api/v1/reviews keep counting; audit-logged; a re-import never un-hides; shown again', async () => {
    const publicData = async () => (await t.get(`/public/v1/widgets/${widgetId}`)).body as { data: { summary: { hiddenReviews: number; totalReviews: number; averageRating: number }; reviews: { id: string }[]; jsonLd: { review: { reviewBody: string }[]; aggregateRating: unknown } } };
    const list = (await owner.send('GET', '/dashboard/api/reviews?platform=google')).body.data as (ReviewItem & { content: string })[];
    const target = list.find((r) => r.rating === 1)!; // the 1-star review: hiding it would lift the average
    const statsBefore = (await t.get('/api/v1/reviews/stats', { key })).body;
    const before = await publicData();
    expect(before.data.reviews.map((r) => r.id)).toContain(target.id);
    expect(before.data.summary.hiddenReviews).toBe(0);
    const schemaBefore = (await t.get(`/api/v1/widgets/${widgetId}/schema`, { key })).body as { data: { aggregateRating: unknown; review: unknown[] } };

    // Members may not; a bad reason is a 400 naming the field; another organization's review is 404.
    const refused = await member.send('POST', `/dashboard/api/reviews/${target.id}/hide`, { reason: 'spam' });
    expect([refused.status, refused.body.error]).toEqual([403, 'forbidden_role']);
    expect((await member.send('POST', `/dashboard/api/reviews/${target.id}/show`)).status).toBe(403);
    const badReason = await owner.send('POST', `/dashboard/api/reviews/${target.id}/hide`, { reason: 'rude' });
    expect(badReason.status).toBe(400);
    expect(badReason.body.details!.map((d) => d.parameter)).toEqual(['reason']);
    expect((await owner.send('POST', `/dashboard/api/reviews/${target.id}/hide`, {})).body.details).toEqual([{ parameter: 'reason', message: 'is required' }]);
    const other = await t.org('growth');
    await t.service.store.reviews.upsert(other.orgId, [{ platform: 'GOOGLE', externalId: 'x', authorName: 'X', authorAvatar: null, rating: 5, content: 'Theirs', date: '2026-10-01T00:00:00.000Z', url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] }], new Date());
    const theirs = (await t.service.store.reviews.list({ orgId: other.orgId, limit: 1, offset: 0 })).items[0]!;
    expect((await owner.send('POST', `/dashboard/api/reviews/${theirs.id}/hide`, { reason: 'spam' })).status).toBe(404);
    expect((await owner.send('POST', '/dashboard/api/reviews/not-an-id/hide', { reason: 'spam' })).status).toBe(404);
    expect(await t.service.store.moderation.listByOrg(other.orgId)).toEqual([]);

    const hidden = await admin.send('POST', `/dashboard/api/reviews/${target.id}/hide`, { reason: 'offensive' });
    expect(hidden.status).toBe(200);
    expect(hidden.body.hidden).toMatchObject({ reason: 'offensive', hiddenBy: 'admin@example.com' });
    const again = await owner.send('POST', `/dashboard/api/reviews/${target.id}/hide`, { reason: 'not_about_us' });
    expect((again.body.hidden as { reason: string }).reason).toBe('not_about_us');

    const after = await eventually(publicData, (d) => d.data.summary.hiddenReviews === 1);
    expect(after.data.summary.hiddenReviews).toBe(1);
    expect(after.data.reviews.map((r) => r.id)).not.toContain(target.id);
    expect(after.data.jsonLd.review.map((r) => r.reviewBody)).not.toContain(target.content);
    // Hiding never improves a rating: the figures are the same as before.
    expect(after.data.summary.totalReviews).toBe(before.data.summary.totalReviews);
    expect(after.data.summary.averageRating).toBe(before.data.summary.averageRating);
    expect(after.data.jsonLd.aggregateRating).toEqual(before.data.jsonLd.aggregateRating);
    expect((await t.get('/api/v1/reviews/stats', { key })).body).toEqual(statsBefore);
    expect(((await t.get('/api/v1/reviews?limit=100', { key })).body as { data: { id: string }[] }).data.map((r) => r.id)).toContain(target.id);
    const schemaAfter = (await t.get(`/api/v1/widgets/${widgetId}/schema`, { key })).body as { data: { aggregateRating: unknown; review: unknown[] } };
    expect(schemaAfter.data.aggregateRating).toEqual(schemaBefore.data.aggregateRating);
    expect(schemaAfter.data.review.length).toBe(schemaBefore.data.review.length - 1);
    const html = await t.get(`/public/v1/widgets/${widgetId}/html`, { skipValidation: true });
    expect(html.text).toContain('1 hidden by the owner');
    const htmlDe = await t.get(`/public/v1/widgets/${widgetId}/html?lang=de`, { skipValidation: true });
    expect(htmlDe.text).toContain('1 vom Inhaber ausgeblendet');

    // The dashboard shows it as hidden; a re-import of the same review updates it and leaves it hidden.
    const row = ((await member.send('GET', '/dashboard/api/reviews?platform=GOOGLE')).body.data as ReviewItem[]).find((r) => r.id === target.id)!;
    expect(row.hidden).toMatchObject({ reason: 'not_about_us', hiddenBy: 'owner@example.com' });
    expect((await member.send('GET', '/dashboard/api/reviews')).body.hiddenTotal).toBe(1);
    const reimport = await owner.upload('ndjson', JSON.stringify({ platform: 'GOOGLE', externalId: 'g4', authorName: 'Zoe', rating: 1, content: 'Fell apart. Edited.', date: '2026-10-08T10:00:00Z' }));
    expect(reimport.body).toMatchObject({ imported: 0, updated: 1 });
    expect((await t.service.store.moderation.listByOrg(orgId)).map((m) => m.reviewId)).toEqual([target.id]);

    const shown = await owner.send('POST', `/dashboard/api/reviews/${target.id}/show`);
    expect([shown.status, shown.body.hidden]).toEqual([200, null]);
    const back = await eventually(publicData, (d) => d.data.summary.hiddenReviews === 0);
    expect(back.data.reviews.map((r) => r.id)).toContain(target.id);
    expect((await owner.send('POST', `/dashboard/api/reviews/${target.id}/show`)).status).toBe(200); // already shown: nothing to do

    const audit = ((await owner.send('GET', '/dashboard/api/audit')).body.data as { action: string; actor: { email: string }; target: { id: string }; details: Record<string, string> }[]).filter((r) => r.target.id === target.id);
    expect(audit.map((r) => [r.action, r.actor.email, r.details.reason])).toEqual([
      ['review.shown', 'owner@example.com', 'not_about_us'],
      ['review.hidden', 'owner@example.com', 'not_about_us'],
      ['review.hidden', 'admin@example.com', 'offensive'],
    ]);
  });

  it('filters Not replied: reviews of Google, Trustpilot and DIRECT without a reply, with the other filters and paging; bad values are a 400 naming them', async () => {
    const other = await t.org('growth');
    expect((await t.admin('POST', '/admin/users', { orgId: other.orgId, email: 'replies@example.com', role: 'member', password: PASSWORD })).status).toBe(201);
    const person = new Client(t, agent);
    expect((await person.signIn('replies@example.com', PASSWORD)).status).toBe(200);
    const base = { authorName: 'Pat', authorAvatar: null, content: 'Text', url: null, isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] };
    const reply = { text: 'Thank you', date: '2026-10-20T10:00:00.000Z' };
    const reviews = [
      { platform: 'GOOGLE', externalId: 'g-open', rating: 2, date: '2026-10-10T10:00:00Z', language: 'en', reply: null },
      { platform: 'GOOGLE', externalId: 'g-done', rating: 5, date: '2026-10-11T10:00:00Z', language: 'en', reply },
      { platform: 'TRUSTPILOT', externalId: 't-open', rating: 4, date: '2026-10-12T10:00:00Z', language: 'de', reply: null },
      { platform: 'DIRECT', externalId: 'd-open', rating: 5, date: '2026-10-13T10:00:00Z', language: 'en', reply: null },
      { platform: 'YELP', externalId: 'y-open', rating: 1, date: '2026-10-14T10:00:00Z', language: 'en', reply: null },
      { platform: 'FACEBOOK', externalId: 'f-open', rating: null, date: '2026-10-15T10:00:00Z', language: 'en', reply: null },
    ].map((r) => ({ ...base, ...r }));
    await t.service.store.reviews.upsert(other.orgId, reviews, new Date());
    const ids = async (query: string) => {
      const res = await person.send('GET', `/dashboard/api/reviews?${query}`);
      expect(res.status, query).toBe(200);
      return { ids: (res.body.data as { platform: string; reply: unknown }[]).map((r) => r.platform), total: (res.body.pagination as { total: number }).total };
    };
    expect(await ids('notReplied=true')).toEqual({ ids: ['DIRECT', 'TRUSTPILOT', 'GOOGLE'], total: 3 });
    expect(await ids('notReplied=false')).toEqual({ ids: ['FACEBOOK', 'YELP', 'DIRECT', 'TRUSTPILOT', 'GOOGLE', 'GOOGLE'], total: 6 });
    expect(await ids('notReplied=true&limit=1&offset=1')).toEqual({ ids: ['TRUSTPILOT'], total: 3 });
    expect(await ids('notReplied=true&language=de')).toEqual({ ids: ['TRUSTPILOT'], total: 1 });
    expect(await ids('notReplied=true&platform=google&maxRating=3')).toEqual({ ids: ['GOOGLE'], total: 1 });
    // Yelp offers no reply API: none of its reviews waits for a reply here.
    expect(await ids('notReplied=true&platform=YELP')).toEqual({ ids: [], total: 0 });
    // A reply published since: the review leaves the filter.
    await t.service.store.reviews.upsert(other.orgId, [{ ...reviews[0]!, reply }], new Date());
    expect(await ids('notReplied=true')).toEqual({ ids: ['DIRECT', 'TRUSTPILOT'], total: 2 });

    const bad = await person.send('GET', '/dashboard/api/reviews?notReplied=yes');
    expect([bad.status, bad.body.error, bad.body.message, bad.body.details]).toEqual([400, 'invalid_parameter', 'Invalid query parameter: notReplied.', [{ parameter: 'notReplied', message: 'must be true or false' }]]);
    const twice = await person.send('GET', '/dashboard/api/reviews?notReplied=true&notReplied=true');
    expect([twice.status, twice.body.details]).toEqual([400, [{ parameter: 'notReplied', message: 'must be given once, not 2 times' }]]);
    const both = await person.send('GET', '/dashboard/api/reviews?notReplied=1&minRating=9');
    expect([both.status, both.body.details!.map((d) => d.parameter)]).toEqual([400, ['minRating', 'notReplied']]);
    // The public API has no such filter: it stays the public API's 400.
    const pub = await t.get('/api/v1/reviews?notReplied=true', { key: other.key });
    expect(pub.status).toBe(400);
  });
});

/** An upload with hand-made framing headers (chunked, or a declared length with no body sent). */
function rawUpload(t: TestService, agent: Agent, c: Client, headers: Record<string, string>, body: string | null): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: t.service.ports.https,
        path: '/dashboard/api/reviews/import?format=csv',
        method: 'POST',
        agent,
        headers: { cookie: c.cookieHeader(), origin: t.service.config.publicUrl, 'x-csrf-token': c.csrf, 'content-type': 'text/csv', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer['body'] });
          req.destroy();
        });
      },
    );
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    if (body === null) req.flushHeaders();
    else req.end(body);
  });
}
