/**
 * No review gating (CONTRACT §13: "Nothing anywhere depends on the rating
 * given"), after the thank-you page too: on a running service with mail (a
 * real SMTP sink, smtp-server on loopback), moderation `publish` and a real
 * HTTPS webhook receiver, a 1-star and a 5-star review written the same way
 * get the same confirmation mail, the same confirmation page, the same
 * outcome (both published at once, neither held) and the same events; the
 * only differences are the rating each is shown and the links that are each
 * reviewer's own.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest, Agent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { flatHeaders, startReceiver, testCert, type Receiver } from '../webhooks/test-receiver.ts';

interface Page {
  status: number;
  text: string;
}

let t: TestService;
let agent: Agent;
let smtp: SMTPServer;
let receiver: Receiver;
let caDir: string;
const savedExtra = process.env.NODE_EXTRA_CA_CERTS;
const inbox: { to: string[]; raw: string }[] = [];
let nextAddress = 2;

function http(method: string, path: string, body?: string): Promise<Page> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' };
    const req = httpsRequest(
      { method, host: '127.0.0.1', port: t.service.ports.https, path, agent, headers, localAddress: `127.0.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 2}` },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One MIME message read as a person's mail client would: its subject, sender, and each part decoded. */
function readMail(raw: string): { subject: string; from: string; parts: Record<string, string> } {
  const header = (name: string): string => new RegExp(`^${name}: (.*)$`, 'mi').exec(raw)?.[1]?.trim() ?? '';
  const parts: Record<string, string> = {};
  for (const chunk of raw.split(/\r?\n--[^\r\n]+\r?\n/)) {
    const type = /^Content-Type: (text\/(?:plain|html))/im.exec(chunk)?.[1];
    if (!type) continue;
    const bodyStart = chunk.search(/\r?\n\r?\n/);
    let body = chunk.slice(bodyStart).replace(/^\r?\n\r?\n/, '');
    if (/^Content-Transfer-Encoding: quoted-printable/im.test(chunk)) {
      const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => `%${h}`);
      body = decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/g, '%25'));
    } else if (/^Content-Transfer-Encoding: base64/im.test(chunk)) {
      body = Buffer.from(body, 'base64').toString('utf8');
    }
    parts[type] = body.replace(/\r\n/g, '\n').replace(/\n--[^\n]+--\s*$/, '').trimEnd();
  }
  return { subject: header('Subject'), from: header('From'), parts };
}

async function mailTo(address: string): Promise<string> {
  return vi.waitFor(
    () => {
      const found = inbox.find((m) => m.to.includes(address));
      if (!found) throw new Error(`no mail to ${address} yet`);
      return found.raw;
    },
    { timeout: 15_000, interval: 50 },
  );
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
  const cert = await testCert();
  receiver = await startReceiver(cert);
  caDir = mkdtempSync(join(tmpdir(), 'no-gating-ca-'));
  writeFileSync(join(caDir, 'receiver.pem'), cert.cert);
  process.env.NODE_EXTRA_CA_CERTS = join(caDir, 'receiver.pem');
  t = await startTestService({
    redis: false,
    env: { SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`, WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '100' },
  });
  agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: false, servername: 'localhost' });
}, 60_000);

afterAll(async () => {
  agent?.destroy();
  await t?.close();
  await receiver?.close();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  if (savedExtra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = savedExtra;
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

describe('a 1-star and a 5-star review, with mail and moderation publish', () => {
  it('get the same confirmation mail, confirmation page, outcome and events, apart from the rating shown and their own links', async () => {
    const { orgId, key } = await t.org('growth');
    const collectId = (await t.admin('POST', '/admin/collect/link', { orgId })).body.collectId as string;
    const settings = await t.admin('POST', '/admin/collect/settings', { orgId, shareUrl: 'https://g.page/r/shop-review', moderation: 'publish' });
    expect(settings.body).toEqual({ shareUrl: 'https://g.page/r/shop-review', moderation: 'publish' });
    const hook = await t.admin('POST', '/admin/webhooks', { orgId, url: receiver.url(), events: ['review.created', 'review.updated', 'review.removed'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);

    const page = await http('GET', `/r/${collectId}?lang=en`);
    expect(page.status).toBe(200);
    const token = /name="token" value="([^"]+)"/.exec(page.text)![1]!;
    await sleep(2100);
    const reviewers = { '1': 'low@mail.example', '5': 'high@mail.example' } as const;
    const ratings = ['1', '5'] as const;

    const thanks: Record<string, string> = {};
    for (const rating of ratings) {
      const sent = await http('POST', `/r/${collectId}?lang=en`, new URLSearchParams({ token, rating, content: 'The same words, line one.\nLine two.', authorName: 'Sam', email: reviewers[rating], consent: 'yes', website: '' }).toString());
      expect(sent.status).toBe(200);
      thanks[rating] = sent.text;
    }
    expect(thanks['1']).toBe(thanks['5']);

    // The mails: the same subject, sender and parts once each one's rating and links are set aside.
    const mails: Record<string, { confirm: string; normalized: ReturnType<typeof readMail> }> = {};
    for (const rating of ratings) {
      const mail = readMail(await mailTo(reviewers[rating]));
      const confirm = /https:\/\/[^/\s"]+(\/r\/confirm\/sub_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(mail.parts['text/plain']!)![1]!;
      const stars = `${rating} out of 5 stars`;
      const drawn = '★'.repeat(Number(rating)) + '☆'.repeat(5 - Number(rating));
      for (const part of Object.values(mail.parts)) {
        expect(part).toContain(stars);
        expect(part).toContain('The same words, line one.');
      }
      expect(mail.parts['text/html']).toContain(drawn);
      const mask = (s: string) =>
        s
          .replace(/\/r\/(confirm|review)\/sub_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, '/r/$1/<link>')
          .replaceAll(stars, '<rating>')
          .replaceAll(drawn, '<stars>');
      mails[rating] = { confirm, normalized: { ...mail, parts: Object.fromEntries(Object.entries(mail.parts).map(([k, v]) => [k, mask(v)])) } };
    }
    expect(Object.keys(mails['1']!.normalized.parts).sort()).toEqual(['text/html', 'text/plain']);
    expect(mails['1']!.normalized).toEqual(mails['5']!.normalized);

    // The confirmation page (the link opened), then the button's answer.
    const opened: Record<string, string> = {};
    const confirmed: Record<string, Page> = {};
    for (const rating of ratings) {
      const link = mails[rating]!.confirm;
      const got = await http('GET', `${link}?lang=en`);
      expect(got.status).toBe(200);
      opened[rating] = got.text
        .replaceAll(link, '<link>')
        .replace(`${rating} out of 5 stars`, '<rating>')
        .replace('★'.repeat(Number(rating)) + '☆'.repeat(5 - Number(rating)), '<stars>');
      confirmed[rating] = await http('POST', `${link}?lang=en`, '');
    }
    expect(opened['1']).toContain('<rating>');
    expect(opened['1']).toBe(opened['5']);
    expect(confirmed['1']!.status).toBe(200);
    expect(confirmed['1']!.text).toContain('confirmed and published');
    expect(confirmed['1']).toEqual(confirmed['5']);

    // The outcome: both published, nothing held.
    const listed = await t.get('/api/v1/reviews?platform=DIRECT&limit=100', { key });
    const reviews = (listed.body as { data: { id: string; rating: number; content: string; isVerified: boolean }[] }).data;
    expect(reviews.map((r) => r.rating).sort()).toEqual([1, 5]);
    for (const r of reviews) expect(r).toMatchObject({ content: 'The same words, line one.\nLine two.', isVerified: false });
    expect((await t.admin('GET', `/admin/collect/pending?orgId=${orgId}`)).body.data).toEqual([]);

    // The events: one review.created each, the same but for the review's own id, rating and times.
    await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThanOrEqual(2), { timeout: 30_000, interval: 50 });
    await sleep(500); // nothing more is on its way
    const wh = new Webhook(hook.body.secret as string);
    const events = receiver.received.map((r) => wh.verify(r.body, flatHeaders(r.headers)) as { type: string; data: Record<string, unknown> });
    expect(events.map((e) => e.type)).toEqual(['review.created', 'review.created']);
    const byRating = Object.fromEntries(events.map((e) => [String(e.data.rating), e.data]));
    expect(Object.keys(byRating).sort()).toEqual(['1', '5']);
    const own = new Set(['id', 'externalId', 'rating', 'date', 'createdAt', 'updatedAt']);
    const shape = (d: Record<string, unknown>) => Object.fromEntries(Object.entries(d).filter(([k]) => !own.has(k)));
    expect(Object.keys(shape(byRating['1']!)).length).toBeGreaterThan(5);
    expect(shape(byRating['1']!)).toEqual(shape(byRating['5']!));
    expect(byRating['1']).toMatchObject({ platform: 'DIRECT', isVerified: false });
    for (const r of receiver.received) for (const email of Object.values(reviewers)) expect(r.body.toString()).not.toContain(email);
  }, 90_000);
});
