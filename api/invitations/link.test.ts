/**
 * An invitation's link (CONTRACT §14) on a running service: the review page
 * for the invitee (no email asked, a star link's rating preselected, the same
 * page whatever the rating), a review through it published at once with
 * `isVerified: true` and the invitation `reviewed`, the link single use
 * (then it says the review was received and how to change it, never the
 * private link: the organization holds every link), two
 * submissions at once making one review, a tampered or unknown token the 404
 * page, an expired link its own page, a cancelled one ended.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestResponse, type TestService } from '../test/harness.ts';

let t: TestService;
let orgId: string;
let key: string;

beforeAll(async () => {
  t = await startTestService({ redis: false });
  orgId = (await t.org('growth')).orgId;
  const created = await t.admin('POST', '/admin/keys', { orgId, name: 'shop', permissions: ['reviews:read', 'invitations:write'] });
  key = created.body.key as string;
  await t.admin('POST', '/admin/products', { orgId, id: 'mug-1', name: 'Blue Mug' });
}, 90_000);
afterAll(async () => t?.close());

let n = 0;
async function invite(over: Record<string, unknown> = {}): Promise<{ id: string; link: string; email: string }> {
  const email = `buyer${++n}-${Date.now()}@example.com`;
  const res = await t.get('/api/v1/invitations', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, productId: 'mug-1', ...over }) });
  expect(res.status).toBe(202);
  const [one] = (res.body as { data: { id: string; link: string }[] }).data;
  return { id: one!.id, link: one!.link, email };
}

const pathOf = (link: string): string => new URL(link).pathname;
const page = (path: string, options: { method?: string; body?: string } = {}): Promise<TestResponse> =>
  t.get(path, { skipValidation: true, method: options.method ?? 'GET', ...(options.body !== undefined && { body: options.body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }) });
const tokenOf = (html: string): string => /name="token" value="([^"]+)"/.exec(html)![1]!;

/** The form's fields, with a form token old enough (2 s) to be accepted. */
async function filled(path: string, fields: Record<string, string> = {}): Promise<string> {
  const form = await page(path);
  expect(form.status).toBe(200);
  await sleep(2100);
  return new URLSearchParams({ token: tokenOf(form.text), rating: '2', content: 'Chipped on arrival, but support replaced it.', authorName: 'Ana', consent: 'yes', ...fields }).toString();
}

async function invitation(id: string): Promise<Record<string, unknown>> {
  const list = await t.get('/api/v1/invitations?limit=100', { key });
  return (list.body as { data: Record<string, unknown>[] }).data.find((i) => i.id === id)!;
}

async function directReviews(): Promise<Record<string, unknown>[]> {
  const res = await t.get('/api/v1/reviews?platform=DIRECT&limit=100', { key });
  return (res.body as { data: Record<string, unknown>[] }).data;
}

describe('invitation links', () => {
  it('opens the review page without an email field, the star link’s rating preselected, the same page for every rating', async () => {
    const inv = await invite();
    const path = pathOf(inv.link);
    const four = await page(`${path}?rating=4`);
    expect(four.status).toBe(200);
    expect(four.headers['content-security-policy']).toContain("default-src 'none'");
    expect(four.headers['referrer-policy']).toBe('no-referrer');
    expect(four.text).toContain('Blue Mug');
    expect(four.text).not.toContain('name="email"');
    expect(four.text).toMatch(/id="rating-4" value="4" required checked/);
    expect((four.text.match(/ checked/g) ?? []).length).toBe(1);
    const plain = await page(path);
    expect(plain.text).not.toMatch(/name="rating"[^>]* checked/);
    // Nothing depends on the rating but the one radio it checks.
    const norm = (html: string): string => html.replace(/name="token" value="[^"]+"/, '').replace(/ checked/g, '');
    expect(norm((await page(`${path}?rating=1`)).text)).toBe(norm((await page(`${path}?rating=5`)).text));
    expect(norm((await page(`${path}?rating=9`)).text)).toBe(norm(plain.text));
  });

  it('publishes a review through the link at once, verified, and the invitation becomes reviewed; then the link says it was received', async () => {
    const inv = await invite();
    const path = pathOf(inv.link);
    const before = (await directReviews()).length;
    const thanks = await page(path, { method: 'POST', body: await filled(path) });
    expect(thanks.status).toBe(200);
    expect(thanks.text).toContain('Thank you: your review is published.');
    expect(thanks.text).not.toContain('2 out of 5');
    const manage = /href="(https:[^"]+\/r\/review\/[^"]+)"/.exec(thanks.text)?.[1];
    expect(manage).toBeDefined();

    const reviews = await directReviews();
    expect(reviews.length).toBe(before + 1);
    const review = reviews.find((r) => r.content === 'Chipped on arrival, but support replaced it.')!;
    expect(review).toMatchObject({ isVerified: true, rating: 2, authorName: 'Ana', productId: 'mug-1', platform: 'DIRECT' });
    expect(JSON.stringify(review)).not.toContain(inv.email);
    expect(await invitation(inv.id)).toMatchObject({ state: 'reviewed', reviewedAt: expect.any(String) });

    // Used: it says so and how to change the review, never the private link itself (the shop holds every
    // invitation link, so whoever opens it again could edit the verified review: review 9 H1).
    const manageToken = new URL(manage!).pathname.split('/').at(-1)!;
    const again = await page(path);
    expect(again.status).toBe(200);
    expect(again.text).toContain('Review received');
    expect(again.text).not.toContain('/r/review/');
    expect(again.text).not.toContain(manageToken);
    expect(again.text).toContain('To change or delete your review, use the private link shown right after you sent it.');
    // Nor does anything the organization reads about its invitations (the API's list; the CLI and the dashboard read the same view).
    const listed = await t.get('/api/v1/invitations?limit=100', { key });
    expect(listed.text).toContain(inv.id);
    expect(listed.text).not.toContain('/r/review/');
    expect(listed.text).not.toContain(manageToken);
    // The thank-you page, the one place it is shown, says so.
    expect(thanks.text).toContain('Keep this private link to change or delete your review later: it is shown only here.');
    // A second submission makes no second review.
    const second = await page(path, { method: 'POST', body: new URLSearchParams({ rating: '5', content: 'x', authorName: 'y', consent: 'yes', token: 'z' }).toString() });
    expect(second.text).toContain('Review received');
    expect((await directReviews()).length).toBe(before + 1);

    // An edit through the private link keeps the review verified.
    const edited = await page(new URL(manage!).pathname, { method: 'POST', body: new URLSearchParams({ op: 'edit', rating: '3', content: 'Replaced quickly.', authorName: 'Ana' }).toString() });
    expect(edited.status).toBe(200);
    expect((await directReviews()).find((r) => r.id === review.id)).toMatchObject({ content: 'Replaced quickly.', isVerified: true });
  });

  it('never replaces or takes over the address’s earlier review: the link says it was already reviewed and creates nothing (the shop holds every link)', async () => {
    // The customer's own review of the mug, from the review page (held without mail; a person publishes it).
    const email = `ana-${Date.now()}@example.com`;
    const { collectId } = (await t.admin('POST', '/admin/collect/link', { orgId })).body as { collectId: string };
    const reviewPage = `/r/${collectId}?product=mug-1&lang=en`;
    const form = await page(reviewPage);
    await sleep(2100);
    const sent = await page(reviewPage, { method: 'POST', body: new URLSearchParams({ token: tokenOf(form.text), rating: '1', content: 'Broken on arrival, no refund.', authorName: 'Ana P.', email, consent: 'yes' }).toString() });
    expect(sent.status).toBe(200);
    const pending = ((await t.admin('GET', `/admin/collect/pending?orgId=${orgId}`)).body as { data: { id: string; content: string }[] }).data.find((p) => p.content === 'Broken on arrival, no refund.')!;
    expect((await t.admin('POST', `/admin/collect/reviews/${pending.id}/publish`)).status).toBe(200);
    const own = (await directReviews()).find((r) => r.content === 'Broken on arrival, no refund.')!;
    expect(own).toMatchObject({ rating: 1, isVerified: false, productId: 'mug-1' });
    const before = (await directReviews()).length;

    // The shop invites that address (the case differs: the same address) and uses the link it holds.
    const inv = await invite({ email: email.toUpperCase() });
    const path = pathOf(inv.link);
    const opened = await page(path);
    expect(opened.status).toBe(409);
    expect(opened.text).toContain('You have already reviewed this');
    expect(opened.text).toContain('To change or delete it, use the private link you got when you wrote it.');
    expect(opened.text).not.toContain('name="rating"');
    // A submission anyway (a form token minted for it) creates nothing either.
    const stored = (await t.service.store.invitations.get(inv.id))!;
    const formToken = t.service.invitations.formToken(stored);
    await sleep(2100);
    const posted = await page(path, { method: 'POST', body: new URLSearchParams({ token: formToken, rating: '5', content: 'Perfect, fast delivery!', authorName: 'Ana P.', consent: 'yes' }).toString() });
    expect(posted.status).toBe(409);
    expect(posted.text).toContain('You have already reviewed this');

    // Her review is as she wrote it, not verified, not replaced; no other review; the invitation stays as it was.
    const after = await directReviews();
    expect(after.length).toBe(before);
    expect(after.find((r) => r.id === own.id)).toMatchObject({ rating: 1, content: 'Broken on arrival, no refund.', isVerified: false });
    expect(after.some((r) => r.content === 'Perfect, fast delivery!')).toBe(false);
    expect(await invitation(inv.id)).toMatchObject({ state: 'unsent', reviewedAt: null });
    expect((await t.service.store.collect.listByState(orgId, 'replaced')).map((x) => x.content)).not.toContain('Broken on arrival, no refund.');

    // An invitee's submission left pending (a crash before it was published) cannot take it over through moderation either.
    const now = new Date().toISOString();
    const left = { ...(await t.service.store.collect.findPublished(orgId, stored.emailKey, 'mug-1'))!, id: `sub_left${Date.now()}`, rating: 5, content: 'Left pending', state: 'pending' as const, hold: 'moderation' as const, reviewExternalId: null, invitationId: inv.id, submittedAt: now, decidedAt: null, updatedAt: now };
    await t.service.store.collect.create(left);
    const publish = await t.admin('POST', `/admin/collect/reviews/${left.id}/publish`);
    expect(publish.status).toBe(409);
    expect(publish.body).toMatchObject({ error: 'already_reviewed' });
    expect((await directReviews()).find((r) => r.id === own.id)).toMatchObject({ rating: 1, content: 'Broken on arrival, no refund.', isVerified: false });
  });

  it('makes one review of two submissions through one link at once', async () => {
    const inv = await invite({ productId: null });
    const path = pathOf(inv.link);
    const before = (await directReviews()).length;
    const [a, b] = [await filled(path, { content: 'First tab' }), await filled(path, { content: 'Second tab' })];
    const answers = await Promise.all([page(path, { method: 'POST', body: a }), page(path, { method: 'POST', body: b })]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(answers.filter((r) => r.text.includes('your review is published')).length).toBe(1);
    expect((await directReviews()).length).toBe(before + 1);
  });

  it('re-renders the form with the problems marked, keeping what was typed', async () => {
    const inv = await invite();
    const path = pathOf(inv.link);
    const body = await filled(path, { rating: '', consent: '', content: 'Kept text' });
    const res = await page(path, { method: 'POST', body });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Kept text');
    expect(res.text).toContain('id="rating-error"');
    expect(res.text).toContain('id="consent-error"');
    expect(await invitation(inv.id)).toMatchObject({ state: 'unsent' });
  });

  it('answers the 404 page for a tampered or unknown token, a clear page for an expired link, and ends a cancelled one', async () => {
    const inv = await invite();
    const path = pathOf(inv.link);
    const last = path.at(-1) === 'A' ? 'B' : 'A';
    for (const bad of [`${path.slice(0, -1)}${last}`, path.replace(/inv_[0-9A-Za-z]{20}/, 'inv_00000000000000000000'), '/r/i/garbage', `${path}.x`]) {
      const res = await page(bad);
      expect(res.status, bad).toBe(404);
      expect(res.text).toContain('Page not found');
    }
    // The same link made for another address (a changed record) opens nothing either: the MAC covers it.
    const stored = (await t.service.store.invitations.get(inv.id))!;
    expect(t.service.invitations.links.verify(path.slice('/r/i/'.length), { ...stored, emailKey: 'other' })).toBe(false);

    // Sent 31 days ago without a review: expired.
    const sent = { ...stored, state: 'sent' as const, sentAt: new Date(Date.now() - 31 * 86_400_000).toISOString(), updatedAt: new Date().toISOString() };
    expect(await t.service.store.invitations.update(sent, stored)).not.toBeNull();
    const expired = await page(path);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('This link has expired');
    expect((await page(path, { method: 'POST', body: 'rating=5' })).status).toBe(410);
    // Sent 29 days ago: still open.
    const recent = { ...sent, sentAt: new Date(Date.now() - 29 * 86_400_000).toISOString(), updatedAt: new Date(Date.now() + 1).toISOString() };
    await t.service.store.invitations.update(recent, sent);
    expect((await page(path)).status).toBe(200);

    const other = await invite();
    expect((await t.admin('POST', `/admin/invitations/${other.id}/cancel`)).body).toEqual({ id: other.id, state: 'cancelled' });
    const cancelled = await page(pathOf(other.link));
    expect(cancelled.status).toBe(410);
    expect(cancelled.text).toContain('This invitation is no longer in use.');
  });

  it('speaks the invitation’s language unless ?lang= says otherwise', async () => {
    const inv = await invite({ locale: 'de' });
    expect((await page(pathOf(inv.link))).text).toContain('<html lang="de"');
    expect((await page(`${pathOf(inv.link)}?lang=fr`)).text).toContain('<html lang="fr"');
  });
});
