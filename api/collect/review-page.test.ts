/**
 * The review page end to end (CONTRACT §13) on a running service with a real
 * SMTP sink (smtp-server on loopback): the page in the visitor's language
 * under a strict CSP, a submission, its confirmation mail parsed from what
 * the sink received, a GET of the link that confirms nothing, the button
 * that publishes, the same thank-you page for 1 and 5 stars, the honeypot,
 * the per-address limit, one review per email and product, the private
 * edit/delete link, and the email in no review record, answer, event or log.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { request as httpsRequest, Agent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.ts';
import { startTestService, type TestService } from '../test/harness.ts';

interface Received {
  to: string[];
  raw: string;
}

interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

let t: TestService;
let agent: Agent;
let smtp: SMTPServer;
const inbox: Received[] = [];
const logLines: string[] = [];
/** Each request from its own loopback address unless told: the per-address limit is tested on purpose only. */
let nextAddress = 2;

function http(method: string, path: string, options: { body?: string; headers?: Record<string, string>; from?: string } = {}): Promise<Page> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const req = httpsRequest(
      { method, host: '127.0.0.1', port: t.service.ports.https, path, agent, headers, localAddress: options.from ?? `127.0.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 2}` },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const tokenOf = (html: string): string => /name="token" value="([^"]+)"/.exec(html)![1]!;

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** A page's form token, old enough (2 s) to be accepted. */
async function freshToken(path: string): Promise<string> {
  const page = await http('GET', path);
  expect(page.status).toBe(200);
  await sleep(2100);
  return tokenOf(page.text);
}

/** Quoted-printable unfolded and decoded enough to read links and words. */
const decoded = (raw: string): string => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

async function mailTo(address: string): Promise<{ confirm: string; manage: string; text: string }> {
  const mail = await vi.waitFor(
    () => {
      const found = inbox.find((m) => m.to.includes(address));
      if (!found) throw new Error(`no mail to ${address} yet`);
      return found;
    },
    { timeout: 15_000, interval: 50 },
  );
  const text = decoded(mail.raw);
  const confirm = /https:\/\/[^/\s"]+(\/r\/confirm\/sub_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(text);
  const manage = /https:\/\/[^/\s"]+(\/r\/review\/sub_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(text);
  expect(confirm, text).not.toBeNull();
  expect(manage, text).not.toBeNull();
  return { confirm: confirm![1]!, manage: manage![1]!, text };
}

async function directReviews(key: string, productId?: string): Promise<Record<string, unknown>[]> {
  const res = await t.get(`/api/v1/reviews?platform=DIRECT&limit=100${productId ? `&productId=${productId}` : ''}`, { key });
  expect(res.status).toBe(200);
  return (res.body as { data: Record<string, unknown>[] }).data;
}

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  t = await startTestService({
    redis: false,
    env: { SMTP_URL: `smtp://127.0.0.1:${port}`, LOG_LEVEL: 'debug' },
    logger: createLogger('debug', { write: (chunk: string) => void logLines.push(chunk) }),
  });
  agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: false, servername: 'localhost' });
}, 60_000);

afterAll(async () => {
  agent?.destroy();
  await t?.close();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
});

async function shop(): Promise<{ orgId: string; key: string; collectId: string }> {
  const { orgId, key } = await t.org('growth');
  const link = await t.admin('POST', '/admin/collect/link', { orgId });
  expect(link.status).toBe(200);
  return { orgId, key, collectId: link.body.collectId as string };
}

describe('the review page', () => {
  it('is served in the visitor language under a strict CSP, names the product, and answers 404 for unknown or replaced links and products', async () => {
    const { orgId, collectId } = await shop();
    expect(collectId).toMatch(/^col_[A-Za-z0-9_-]{20}$/);
    expect((await t.admin('POST', '/admin/products', { orgId, id: 'mug', name: 'Blue Mug', imageUrl: 'https://cdn.shop.example/mug.png' })).status).toBe(201);

    const page = await http('GET', `/r/${collectId}`, { headers: { 'accept-language': 'de-CH;q=0.9, fr;q=0.8, xx' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html lang="de"');
    expect(page.text).toContain('5 von 5 Sternen');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).not.toMatch(/unsafe-inline|script-src/);
    expect(page.text).not.toMatch(/<script/i);
    expect(page.text).not.toMatch(/ style=/);
    // Every star is a labelled radio of one group; the consent box is required.
    expect(page.text.match(/<input type="radio" name="rating"/g)).toHaveLength(5);
    expect(page.text).toMatch(/type="checkbox" name="consent" value="yes" required/);
    expect(page.text).toContain('<legend>Bewertung</legend>');
    expect(page.text).toContain('Diese Bewertung beruht auf meiner eigenen Erfahrung');

    const english = await http('GET', `/r/${collectId}?lang=en`, { headers: { 'accept-language': 'de' } });
    expect(english.text).toContain('<html lang="en"');
    expect(english.text).toContain('This review is about my own experience');
    const arabic = await http('GET', `/r/${collectId}?lang=ar`);
    expect(arabic.text).toContain('<html lang="ar" dir="rtl"');
    const japanese = await http('GET', `/r/${collectId}`, { headers: { 'accept-language': 'ja-JP,ja;q=0.9,en;q=0.5' } });
    expect(japanese.text).toContain('<html lang="ja"');
    expect(japanese.text).toContain('レビューを送信');

    const product = await http('GET', `/r/${collectId}?product=mug&lang=en`);
    expect(product.status).toBe(200);
    expect(product.text).toContain('Blue Mug');
    expect(product.text).toContain('src="https://cdn.shop.example/mug.png"');
    expect(String(product.headers['content-security-policy'])).toContain("img-src 'self' https://cdn.shop.example;");

    expect((await http('GET', `/r/${collectId}?product=nope`)).status).toBe(404);
    expect((await http('GET', '/r/col_aaaaaaaaaaaaaaaaaaaa')).status).toBe(404);
    expect((await http('GET', '/r/anything')).status).toBe(404);
    const rotated = await t.admin('POST', '/admin/collect/link', { orgId, rotate: true });
    expect(rotated.body.collectId).not.toBe(collectId);
    const old = await http('GET', `/r/${collectId}?lang=en`);
    expect(old.status).toBe(404);
    expect(old.text).toContain('Page not found');
    expect((await http('GET', `/r/${rotated.body.collectId as string}`)).status).toBe(200);
  });

  it('re-renders a wrong form with the values kept and each message tied to its field, never a 500', async () => {
    const { collectId } = await shop();
    const token = await freshToken(`/r/${collectId}?lang=en`);
    const wrong = await http('POST', `/r/${collectId}?lang=en`, { body: form({ token, rating: '7', content: 'Kept <text>', authorName: '', email: 'not-an-email', website: '' }) });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('Kept &lt;text&gt;</textarea>');
    for (const field of ['rating', 'authorName', 'email', 'consent']) {
      expect(wrong.text).toContain(`id="${field}-error"`);
      expect(wrong.text).toMatch(new RegExp(`aria-describedby="[^"]*${field}-error`));
    }
    expect(wrong.text).not.toContain('id="content-error"');
    // A form sent at once (a bot) or with a forged token: the form again, values kept.
    const page = await http('GET', `/r/${collectId}?lang=en`);
    const tooFast = await http('POST', `/r/${collectId}?lang=en`, { body: form({ token: tokenOf(page.text), rating: '4', content: 'Fine', authorName: 'Bo', email: 'bo@example.com', consent: 'yes' }) });
    expect(tooFast.status).toBe(400);
    expect(tooFast.text).toContain('sent too quickly');
    const forged = await http('POST', `/r/${collectId}?lang=en`, { body: form({ token: `${token.split('.')[0]}.AAAA`, rating: '4', content: 'Fine', authorName: 'Bo', email: 'bo@example.com', consent: 'yes' }) });
    expect(forged.status).toBe(400);
    const garbage = await http('POST', `/r/${collectId}`, { body: '%%%&&&rating=%ZZ' });
    expect(garbage.status).toBe(400);
  });

  it('confirms by email: the link opens a page that confirms nothing, its button publishes once, never verified, the email nowhere', async () => {
    const { orgId, key, collectId } = await shop();
    const hooks = await t.admin('POST', '/admin/collect/settings', { orgId, shareUrl: 'https://g.page/r/shop-review' });
    expect(hooks.body).toEqual({ shareUrl: 'https://g.page/r/shop-review', moderation: 'publish' });
    const token = await freshToken(`/r/${collectId}?lang=en`);
    const email = 'Private.Person@mail.example';
    const sent = await http('POST', `/r/${collectId}?lang=en`, { body: form({ token, rating: '2', content: 'Slow delivery, kind support.', authorName: 'Ana', email, consent: 'yes', website: '' }) });
    expect(sent.status).toBe(200);
    expect(sent.text).toContain('We sent you an email');
    expect(await directReviews(key)).toEqual([]);

    const mail = await mailTo(email);
    expect(mail.text).toMatch(/^Subject: Confirm your review of Org /m);
    expect(mail.text).toContain('Slow delivery, kind support.');
    expect(mail.text).toMatch(/Content-Type: text\/plain/);
    expect(mail.text).toMatch(/Content-Type: text\/html/);
    // A mail scanner following the link confirms nothing.
    const opened = await http('GET', mail.confirm + '?lang=en');
    expect(opened.status).toBe(200);
    expect(opened.text).toContain('<form method="post"');
    await http('GET', mail.confirm);
    expect(await directReviews(key)).toEqual([]);

    const confirmed = await http('POST', mail.confirm + '?lang=en', { body: '' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('confirmed and published');
    const [review] = await directReviews(key);
    expect(review).toMatchObject({ platform: 'DIRECT', authorName: 'Ana', rating: 2, content: 'Slow delivery, kind support.', isVerified: false, productId: null });
    // Single use.
    expect((await http('POST', mail.confirm, { body: '' })).status).toBe(410);
    expect((await http('GET', mail.confirm)).status).toBe(410);
    // A tampered link is no link.
    expect((await http('GET', mail.confirm.slice(0, -2) + 'AA')).status).toBe(410);

    // The email is in no review record in the data folder, no API answer, no outbox event, no log line.
    const needle = email.toLowerCase();
    const answers = JSON.stringify(await directReviews(key)) + JSON.stringify((await t.get('/api/v1/reviews/stats', { key })).body);
    expect(answers.toLowerCase()).not.toContain(needle);
    const log = readFileSync(join(t.dataDir, 'store.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"t":"reviews"') || line.includes('"t":"message"'));
    expect(log.length).toBeGreaterThan(0);
    expect(log.join('\n').toLowerCase()).not.toContain(needle);
    expect(logLines.join('\n').toLowerCase()).not.toContain(needle);
    // Nor the links, which are credentials: the request log shows /r/confirm/%5Bredacted%5D.
    const logs = logLines.join('\n');
    expect(logs).toMatch(/r\/confirm\/(%5B|\[)redacted/);
    expect(logs).not.toContain(mail.confirm.split('/').pop()!);
    expect(logs).not.toContain(mail.manage.split('/').pop()!.split('.')[1]!);
    expect(readdirSync(t.dataDir).length).toBeGreaterThan(0);
  });

  it('thanks every reviewer with the same page whatever the rating, the share link on each', async () => {
    const { orgId, collectId } = await shop();
    await t.admin('POST', '/admin/collect/settings', { orgId, shareUrl: 'https://g.page/r/shop-review' });
    const token = await freshToken(`/r/${collectId}?lang=en`);
    const thank = async (rating: string, who: string) =>
      (await http('POST', `/r/${collectId}?lang=en`, { body: form({ token, rating, content: 'Same words', authorName: 'Same', email: `${who}@mail.example`, consent: 'yes', website: '' }) })).text;
    const one = await thank('1', 'one');
    const five = await thank('5', 'five');
    expect(one).toBe(five);
    expect(one).toContain('href="https://g.page/r/shop-review"');
    expect(one).not.toMatch(/out of 5|★/);
  });

  it('keeps nothing from the honeypot and answers 429 after 5 submissions an hour from one address', async () => {
    const { orgId, collectId } = await shop();
    const token = await freshToken(`/r/${collectId}?lang=en`);
    const from = '127.9.9.9';
    const post = (i: number, extra: Record<string, string> = {}) =>
      http('POST', `/r/${collectId}?lang=en`, { from, body: form({ token, rating: '4', content: `Review ${i}`, authorName: 'Bot', email: `b${i}@mail.example`, consent: 'yes', website: '', ...extra }) });
    const trapped = await post(0, { website: 'https://spam.example' });
    expect(trapped.status).toBe(200);
    for (let i = 1; i <= 4; i++) expect((await post(i)).status).toBe(200);
    const limited = await post(6);
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('Too many reviews');
    const pending = await t.admin('GET', `/admin/collect/pending?orgId=${orgId}`);
    expect((pending.body.data as { content: string }[]).map((p) => p.content).sort()).toEqual(['Review 1', 'Review 2', 'Review 3', 'Review 4']);
  });

  it('keeps one review per email and product: a later one, once confirmed, replaces it (same id); the private link edits and deletes it', async () => {
    const { orgId, key, collectId } = await shop();
    await t.admin('POST', '/admin/products', { orgId, id: 'mug', name: 'Blue Mug' });
    const token = await freshToken(`/r/${collectId}?product=mug&lang=en`);
    const write = async (content: string, email: string, links = '') => {
      const res = await http('POST', `/r/${collectId}?product=mug&lang=en`, { body: form({ token, rating: '3', content: content + links, authorName: 'Cy', email, consent: 'yes', website: '' }) });
      expect(res.status).toBe(200);
    };
    await write('First take', 'cy@mail.example');
    const first = await mailTo('cy@mail.example');
    await http('POST', first.confirm, { body: '' });
    const [original] = await directReviews(key, 'mug');
    expect(original).toMatchObject({ content: 'First take', productId: 'mug' });

    inbox.splice(0, inbox.length);
    await write('Second take', 'CY@mail.example');
    const second = await mailTo('CY@mail.example');
    expect((await directReviews(key, 'mug')).map((r) => r.content)).toEqual(['First take']);
    await http('POST', second.confirm, { body: '' });
    const after = await directReviews(key, 'mug');
    expect(after.map((r) => [r.id, r.content])).toEqual([[original!.id, 'Second take']]);

    // The private link: the form with the review, an edit keeps the id.
    const manage = await http('GET', second.manage + '?lang=en');
    expect(manage.status).toBe(200);
    expect(manage.text).toContain('Second take</textarea>');
    const edited = await http('POST', second.manage + '?lang=en', { body: form({ op: 'edit', rating: '4', content: 'Edited take', authorName: 'Cy' }) });
    expect(edited.status).toBe(200);
    expect((await directReviews(key, 'mug')).map((r) => [r.id, r.rating, r.content])).toEqual([[original!.id, 4, 'Edited take']]);
    // The first mail's private link no longer opens anything (that submission was replaced).
    expect((await http('GET', first.manage)).status).toBe(410);

    const deleted = await http('POST', second.manage + '?lang=en', { body: form({ op: 'delete' }) });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toContain('was deleted');
    expect(await directReviews(key, 'mug')).toEqual([]);
    const removed = await t.service.store.reviews.listRemoved(orgId);
    expect(removed.map((r) => r.id)).toEqual([original!.id]);
  });

  it('holds a confirmed review with more than 2 links, and every review when moderation is hold', async () => {
    const { orgId, key, collectId } = await shop();
    const token = await freshToken(`/r/${collectId}?lang=en`);
    await http('POST', `/r/${collectId}?lang=en`, { body: form({ token, rating: '5', content: 'See http://a.example www.b.example https://c.example', authorName: 'Di', email: 'di@mail.example', consent: 'yes', website: '' }) });
    const linked = await mailTo('di@mail.example');
    expect((await http('POST', linked.confirm + '?lang=en', { body: '' })).text).toContain('once it has been checked');
    await t.admin('POST', '/admin/collect/settings', { orgId, moderation: 'hold' });
    await http('POST', `/r/${collectId}?lang=en`, { body: form({ token, rating: '5', content: 'Plain', authorName: 'Ed', email: 'ed@mail.example', consent: 'yes', website: '' }) });
    const held = await mailTo('ed@mail.example');
    expect((await http('POST', held.confirm + '?lang=en', { body: '' })).text).toContain('once it has been checked');
    expect(await directReviews(key)).toEqual([]);
    const pending = (await t.admin('GET', `/admin/collect/pending?orgId=${orgId}`)).body.data as { authorName: string; reason: string }[];
    expect(pending.map((p) => [p.authorName, p.reason])).toEqual([
      ['Di', 'links'],
      ['Ed', 'moderation'],
    ]);
  });
});
