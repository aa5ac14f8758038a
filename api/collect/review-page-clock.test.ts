/**
 * The review page's two time limits (CONTRACT §13, abuse), on a running service
 * whose clock the test moves (vitest's fake Date: no timer is faked, nothing
 * sleeps): a form token is refused once older than 2 h (the `expired` path,
 * the form again with what was typed), and the per-address limit of 5
 * submissions an hour lets the address in again once the hour has passed, in
 * this process and through Redis (the window every instance shares).
 */
import { readFileSync } from 'node:fs';
import { request as httpsRequest, Agent } from 'node:https';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';

interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
let nextAddress = 2;

function http(t: TestService, agent: Agent, method: string, path: string, options: { body?: string; from?: string } = {}): Promise<Page> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
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
const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();

async function started(redis: boolean): Promise<{ t: TestService; agent: Agent; close: () => Promise<void> }> {
  const t = await startTestService({ redis });
  const agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: false, servername: 'localhost' });
  return {
    t,
    agent,
    close: async () => {
      agent.destroy();
      await t.close();
    },
  };
}

async function shop(t: TestService): Promise<{ orgId: string; collectId: string }> {
  const { orgId } = await t.org('growth');
  const link = await t.admin('POST', '/admin/collect/link', { orgId });
  expect(link.status).toBe(200);
  return { orgId, collectId: link.body.collectId as string };
}

async function pendingContents(t: TestService, orgId: string): Promise<string[]> {
  const pending = await t.admin('GET', `/admin/collect/pending?orgId=${orgId}`);
  expect(pending.status).toBe(200);
  return (pending.body.data as { content: string }[]).map((p) => p.content).sort();
}

/** The service's clock (and the test's): Date only, so sockets, Redis and timers run as ever. */
function clockAt(start: number): (offsetMs: number) => void {
  vi.useFakeTimers({ toFake: ['Date'], now: start });
  return (offsetMs) => vi.setSystemTime(start + offsetMs);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the review page form token', () => {
  it('is refused once older than 2 h: the form again with what was typed and a fresh token, nothing kept', async () => {
    const { t, agent, close } = await started(false);
    try {
      const { orgId, collectId } = await shop(t);
      const at = clockAt(Date.now());
      const path = `/r/${collectId}?lang=en`;
      const first = tokenOf((await http(t, agent, 'GET', path)).text);
      const second = tokenOf((await http(t, agent, 'GET', path)).text);
      const fields = { rating: '4', authorName: 'Ada', email: 'ada@mail.example', consent: 'yes', website: '' };

      // A minute short of 2 h: still accepted.
      at(2 * HOUR - MINUTE);
      const inTime = await http(t, agent, 'POST', path, { body: form({ ...fields, token: first, content: 'Sent within two hours' }) });
      expect(inTime.status).toBe(200);

      // A minute past 2 h: the expired path.
      at(2 * HOUR + MINUTE);
      const late = await http(t, agent, 'POST', path, { body: form({ ...fields, token: second, content: 'Sent after <two> hours' }) });
      expect(late.status).toBe(400);
      expect(late.text).toContain('This form has expired or was sent too quickly.');
      expect(late.text).toContain('Sent after &lt;two&gt; hours</textarea>');
      expect(late.text).toContain('value="ada@mail.example"');
      // Its new token is the one to send again with: accepted once 2 s old.
      const again = tokenOf(late.text);
      expect(again).not.toBe(second);
      at(2 * HOUR + MINUTE + 3_000);
      const resent = await http(t, agent, 'POST', path, { body: form({ ...fields, token: again, content: 'Sent again' }) });
      expect(resent.status).toBe(200);

      expect(await pendingContents(t, orgId)).toEqual(['Sent again', 'Sent within two hours']);
    } finally {
      vi.useRealTimers();
      await close();
    }
  });
});

describe.each([
  ['in this process', false],
  ['through Redis', true],
])('the per-address limit %s', (_where, redis) => {
  it('admits 5 submissions an hour from one address, refuses the sixth until the hour has passed, then admits it', async () => {
    const { t, agent, close } = await started(redis);
    try {
      const { orgId, collectId } = await shop(t);
      const at = clockAt(Date.now());
      const path = `/r/${collectId}?lang=en`;
      const from = '127.8.8.8';
      const token = tokenOf((await http(t, agent, 'GET', path, { from })).text);
      const post = (i: number, tok = token) =>
        http(t, agent, 'POST', path, { from, body: form({ token: tok, rating: '3', content: `Review ${i}`, authorName: 'Al', email: `al${i}@mail.example`, consent: 'yes', website: '' }) });

      for (let i = 1; i <= 5; i++) {
        at(2_000 + i * 1_000);
        expect((await post(i)).status, `submission ${i}`).toBe(200);
      }
      at(10_000);
      const sixth = await post(6);
      expect(sixth.status).toBe(429);
      expect(sixth.text).toContain('Too many reviews');
      // Still within the hour of the first five.
      at(HOUR - MINUTE);
      expect((await post(6)).status).toBe(429);
      // Another address is not concerned.
      expect((await http(t, agent, 'POST', path, { body: form({ token, rating: '3', content: 'Elsewhere', authorName: 'Bo', email: 'bo@mail.example', consent: 'yes', website: '' }) })).status).toBe(200);

      // The hour has passed for all five: the address is let in again.
      at(HOUR + 10_000);
      const later = await post(7);
      expect(later.status).toBe(200);
      expect(later.text).not.toContain('Too many reviews');

      expect(await pendingContents(t, orgId)).toEqual(['Elsewhere', 'Review 1', 'Review 2', 'Review 3', 'Review 4', 'Review 5', 'Review 7']);
    } finally {
      vi.useRealTimers();
      await close();
    }
  });
});
