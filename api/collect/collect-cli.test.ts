/**
 * The review page's CLI (CONTRACT §13) against a service without SMTP_URL:
 * a review from the page waits for a person; `reviews pending`, `publish`
 * and `reject` with their exact --json shapes, each decision audited;
 * `collect link [--rotate]` and `collect settings` likewise; the Overview's
 * rejected counts by rating (the dashboard's Collect answer).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpsRequest, Agent } from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { Client } from '../dashboard/test-client.ts';
import QRCode from 'qrcode';

const PASSWORD = 'a long enough password';

let t: TestService;
let agent: Agent;

beforeAll(async () => {
  t = await startTestService({ redis: false });
  agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: false, servername: 'localhost' });
}, 60_000);
afterAll(async () => {
  agent?.destroy();
  await t?.close();
});

function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'admin', 'cli.ts'), ...args], {
      env: { ...process.env, DATA_DIR: t.dataDir, ADMIN_PORT: String(t.service.ports.admin), ADMIN_TOKEN: '', REDIS_URL: '', MONGODB_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function json(...args: string[]): Promise<Record<string, unknown>> {
  const res = await cli(...args, '--json');
  expect(res.stderr, `stderr of ${args.join(' ')}`).toBe('');
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout.trim()) as Record<string, unknown>;
}

let address = 10;
function post(path: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { method: 'POST', host: '127.0.0.1', port: t.service.ports.https, path, agent, localAddress: `127.0.4.${address++}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
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

describe('admin CLI: collect and reviews pending|publish|reject', () => {
  it('holds reviews without SMTP and lets the operator publish or reject them, audited, with the exact --json shapes', async () => {
    const orgId = (await json('orgs', 'create', '--name', 'Shop', '--plan', 'growth')).id as string;
    const link = await json('collect', 'link', '--org', orgId);
    expect(Object.keys(link)).toEqual(['collectId', 'url']);
    expect(link.url).toBe(`${t.service.config.publicUrl}/r/${link.collectId as string}`);
    expect(await json('collect', 'link', '--org', orgId)).toEqual(link);
    const rotated = await json('collect', 'link', '--org', orgId, '--rotate');
    expect(rotated.collectId).not.toBe(link.collectId);
    expect(await json('collect', 'settings', '--org', orgId, '--share-url', 'https://g.page/r/x', '--moderation', 'hold')).toEqual({ shareUrl: 'https://g.page/r/x', moderation: 'hold' });
    expect(await json('collect', 'settings', '--org', orgId, '--no-share-url')).toEqual({ shareUrl: null, moderation: 'hold' });
    const refused = await cli('collect', 'settings', '--org', orgId, '--share-url', 'http://plain.example', '--json');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('https://');

    const collectId = rotated.collectId as string;
    const page = await t.get(`/r/${collectId}?lang=en`, { skipValidation: true });
    const token = /name="token" value="([^"]+)"/.exec(page.text)![1]!;
    await sleep(2100);
    for (const [rating, name] of [['1', 'Ann'], ['5', 'Bob'], ['2', 'Cat']] as const) {
      const sent = await post(`/r/${collectId}?lang=en`, new URLSearchParams({ token, rating, content: `From ${name}`, authorName: name, email: `${name}@mail.example`, consent: 'yes', website: '' }).toString());
      expect(sent.status).toBe(200);
      expect(sent.text).toContain('once it has been checked');
    }
    const pending = await json('reviews', 'pending', '--org', orgId);
    const items = pending.data as Record<string, unknown>[];
    expect(items.map((i) => Object.keys(i))).toEqual(Array(3).fill(['id', 'rating', 'content', 'authorName', 'productId', 'submittedAt', 'reason']));
    expect(items.map((i) => [i.authorName, i.rating, i.reason])).toEqual([
      ['Ann', 1, 'no_mail'],
      ['Bob', 5, 'no_mail'],
      ['Cat', 2, 'no_mail'],
    ]);
    expect(JSON.stringify(pending)).not.toContain('mail.example');

    const [ann, bob, cat] = items.map((i) => i.id as string);
    expect(await json('reviews', 'publish', bob!)).toEqual({ id: bob, status: 'published' });
    expect(await json('reviews', 'reject', ann!, '--reason', 'not_genuine')).toEqual({ id: ann, status: 'rejected' });
    expect(await json('reviews', 'reject', cat!, '--reason', 'spam')).toEqual({ id: cat, status: 'rejected' });
    const badReason = await cli('reviews', 'reject', bob!, '--reason', 'negative', '--json');
    expect(badReason.code).not.toBe(0);
    expect(badReason.stderr).toContain('spam, offensive, personal_data, not_genuine');
    const twice = await cli('reviews', 'publish', bob!, '--json');
    expect(twice.code).not.toBe(0);

    const { key } = (await t.admin('POST', '/admin/keys', { orgId, name: 'k' })).body as { key: string };
    const reviews = await t.get('/api/v1/reviews?limit=10', { key });
    expect((reviews.body as { data: { authorName: string; isVerified: boolean; platform: string }[] }).data.map((r) => [r.authorName, r.platform, r.isVerified])).toEqual([['Bob', 'DIRECT', false]]);
    expect((await json('reviews', 'pending', '--org', orgId)).data).toEqual([]);

    const audit = await t.service.store.people.audit.listByOrg(orgId, 50);
    expect(audit.map((a) => a.action).filter((a) => a !== 'key.created').sort()).toEqual(['collect.link_rotated', 'collect.settings_changed', 'collect.settings_changed', 'review.published', 'review.rejected', 'review.rejected']);
    expect(audit.find((a) => a.action === 'review.rejected' && a.target.id === ann)?.details.words).toBe('reason: not genuine; 1 stars');

    // The dashboard: a Member reads the Collect answer (rejected counts by rating) and the QR code, and may not decide.
    expect((await t.admin('POST', '/admin/users', { orgId, email: 'member@mail.example', role: 'member', password: PASSWORD })).status).toBe(201);
    const member = new Client(t, agent);
    expect((await member.signIn('member@mail.example', PASSWORD)).status).toBe(200);
    const overview = await member.send('GET', '/dashboard/api/collect');
    expect(overview.status).toBe(200);
    expect(overview.body).toMatchObject({ collectId, moderation: 'hold', shareUrl: null, mail: false });
    expect((overview.body as { rejectedByRating: unknown }).rejectedByRating).toEqual([
      { rating: 1, count: 1 },
      { rating: 2, count: 1 },
      { rating: 3, count: 0 },
      { rating: 4, count: 0 },
      { rating: 5, count: 0 },
    ]);
    // The link's QR code, as SVG and PNG downloads, encoding the link (the same code the library makes from the URL).
    const download = (path: string) =>
      new Promise<{ status: number; type: string; disposition: string; body: Buffer }>((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port: t.service.ports.https, path, agent, headers: { cookie: member.cookieHeader() } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), disposition: String(res.headers['content-disposition']), body: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
        req.end();
      });
    const pageUrl = `${t.service.config.publicUrl}/r/${collectId}`;
    const svg = await download('/dashboard/api/collect/qr.svg');
    expect([svg.status, svg.type, svg.disposition]).toEqual([200, 'image/svg+xml', 'attachment; filename="review-link.svg"']);
    expect(svg.body.toString('utf8')).toBe(await QRCode.toString(pageUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }));
    expect(svg.body.toString('utf8')).not.toBe(await QRCode.toString(`${pageUrl}x`, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }));
    const png = await download('/dashboard/api/collect/qr.png');
    expect([png.status, png.type]).toEqual([200, 'image/png']);
    expect(png.body.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect((await download('/dashboard/api/collect/qr.svg?product=nope')).status).toBe(404);

    expect((await member.send('POST', '/dashboard/api/collect/link/rotate', {})).status).toBe(403);
    expect((await member.send('POST', `/dashboard/api/collect/reviews/${bob!}/reject`, { reason: 'spam' })).status).toBe(403);
  });
});
