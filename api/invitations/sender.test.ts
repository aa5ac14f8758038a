/**
 * The invitation sender (CONTRACT §14) in a running service with SMTP_URL
 * pointing at a local SMTP relay (smtp-server), whose received bytes are
 * parsed: a mail at `sendAt` and not before, only once the relay accepted it
 * `sent`; one reminder REMINDER_DAYS later, never after a review, an
 * unsubscribe (through the mail's own List-Unsubscribe link), a cancellation
 * or with the setting off; expiry 30 days after the mail; an unsubscribed
 * address never mailed; a refusal `failed` with the relay's answer (never the
 * relay's URL); the mail's language and sender name from the invitation, the
 * settings and the organization; the delay setting; `invitations run-due
 * --at` through the CLI; and the schedule on the job door sending what came
 * due with nobody asking. Runs on the embedded store and (vitest project
 * api-on-mongodb) on FerretDB.
 *
 * Every time the tests ask about lies ahead of the real clock (`run-due --at`),
 * so the service's own minute-by-minute run never touches them; only the
 * schedule's test creates an invitation due now.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FORM_MIN_AGE_MS } from '../collect/tokens.ts';
import { createLogger } from '../logger.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeWords, header, partOf } from '../mail/test-mime.ts';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../mail/test-sink.ts';
import type { CollectSettings, InvitationSettings } from '../store/collect-types.ts';
import type { Invitation } from '../store/invitation-types.ts';
import { startTestService, type TestService } from '../test/harness.ts';

let t: TestService;
let sink: SmtpSink;
const logLines: string[] = [];
const DAY = 86_400_000;

beforeAll(async () => {
  sink = await startSmtpSink();
  // SOURCES_MINUTE_MS (read from this process's environment): the sender's run comes every half second here
  // (every minute in production).
  process.env.SOURCES_MINUTE_MS = '500';
  t = await startTestService({ redis: false, env: { SMTP_URL: sink.url, SMTP_RATE_PER_MINUTE: '1000000', SOURCES_MINUTE_MS: '500' }, logger: createLogger('debug', { write: (chunk: string) => void logLines.push(chunk) }) });
}, 90_000);
afterEach(() => {
  sink.refuse.clear();
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

/** An organization (its name, language and invitation settings) with a key that may send invitations. */
async function shop(name: string, options: { language?: string; settings?: Partial<InvitationSettings> } = {}): Promise<{ orgId: string; key: string }> {
  const org = await t.org('growth');
  await t.service.store.orgs.update(org.orgId, { name, ...(options.language && { language: options.language }) });
  if (options.settings) {
    const settings: CollectSettings = { orgId: org.orgId, collectId: `col_${org.orgId.slice(4)}`, shareUrl: null, moderation: 'publish', updatedAt: new Date().toISOString(), invitations: { delayDays: 7, reminder: true, language: null, senderName: null, ...options.settings } };
    await t.service.store.collect.putSettings(settings);
  }
  const key = await t.admin('POST', '/admin/keys', { orgId: org.orgId, name: 'shop', permissions: ['reviews:read', 'invitations:write'] });
  return { orgId: org.orgId, key: key.body.key as string };
}

async function invite(key: string, body: Record<string, unknown>): Promise<Invitation> {
  const res = await t.get('/api/v1/invitations', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  const id = (res.body as { data: { id: string }[] }).data[0]!.id;
  return (await t.service.store.invitations.get(id))!;
}

const get = async (id: string): Promise<Invitation> => (await t.service.store.invitations.get(id))!;

async function runDue(at: number): Promise<Record<string, unknown>> {
  const res = await t.admin('POST', '/admin/invitations/run-due', { at: new Date(at).toISOString() });
  expect(res.status).toBe(200);
  // Everything was done within the request's minute.
  const { more, ...counts } = res.body;
  expect(more).toBe(false);
  return counts;
}

/** The mails the relay accepted for an address (lower case). */
const mailsTo = (address: string): ReceivedMail[] => sink.inbox.filter((m) => m.to.map((a) => a.toLowerCase()).includes(address.toLowerCase()));
const html = (m: ReceivedMail): string => partOf(m.mail, 'text/html')!.body;
const text = (m: ReceivedMail): string => partOf(m.mail, 'text/plain')!.body;
/** A time ahead of the real clock: the service's own runs never reach it during a test. */
const ahead = (days: number): number => Date.now() + days * DAY;
/** Whole seconds (sendAt is given so). */
const iso = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString();

describe('mailing an invitation', () => {
  it('mails at sendAt and not before; sent only once the relay accepted it, with sentAt the real time (not --at); never twice', async () => {
    const { key } = await shop('Mug House');
    const started = Date.now();
    const sendAt = iso(ahead(2));
    const inv = await invite(key, { email: 'ana@example.com', name: 'Ana', sendAt });
    expect(inv.state).toBe('scheduled');
    expect(await runDue(Date.parse(sendAt) - 1000)).toEqual({ sent: 0, reminded: 0, failed: 0, expired: 0 });
    expect(mailsTo('ana@example.com')).toHaveLength(0);
    expect((await get(inv.id)).state).toBe('scheduled');
    expect(await runDue(Date.parse(sendAt))).toEqual({ sent: 1, reminded: 0, failed: 0, expired: 0 });
    const [mail] = mailsTo('ana@example.com');
    expect(mail).toBeDefined();
    // The mail carries this invitation's own link, each star with its rating.
    const link = t.service.invitations.link(inv)!;
    expect(text(mail!)).toContain(`${link}?rating=5`);
    expect(header(mail!.mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const sent = await get(inv.id);
    expect(sent).toMatchObject({ state: 'sent', leaseUntil: null, lastError: null });
    // `--at` decided what was due; the stamps are the real time it was mailed, its reminder 7 days after that.
    expect(Date.parse(sent.sentAt!)).toBeGreaterThanOrEqual(started);
    expect(Date.parse(sent.sentAt!)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(sent.remindAt!) - Date.parse(sent.sentAt!)).toBe(7 * DAY);
    expect(await runDue(Date.parse(sendAt) + 60_000)).toMatchObject({ sent: 0 });
    expect(mailsTo('ana@example.com')).toHaveLength(1);
  });

  it('never mails an address that unsubscribed after the invitation was made: skipped, unsubscribed', async () => {
    const { orgId, key } = await shop('Tea Co');
    const sendAt = iso(ahead(2));
    // Through the unsubscribe door: its scheduled invitations stop at once.
    const ben = await invite(key, { email: 'ben@example.com', sendAt });
    await t.service.invitations.unsubscribe(orgId, 'BEN@example.com');
    expect(await get(ben.id)).toMatchObject({ state: 'skipped', reason: 'unsubscribed', sendAt: null });
    // Recorded while the invitation was already on its way (only the store's record): the sender checks before the mail.
    const cy = await invite(key, { email: 'cy@example.com', sendAt });
    await t.service.store.invitations.unsubscribe(orgId, cy.emailKey, new Date().toISOString());
    expect((await get(cy.id)).state).toBe('scheduled');
    expect(await runDue(Date.parse(sendAt))).toMatchObject({ sent: 0, failed: 0 });
    expect(mailsTo('ben@example.com')).toHaveLength(0);
    expect(mailsTo('cy@example.com')).toHaveLength(0);
    expect(await get(ben.id)).toMatchObject({ state: 'skipped', reason: 'unsubscribed', sendAt: null, sentAt: null });
    expect(await get(cy.id)).toMatchObject({ state: 'skipped', reason: 'unsubscribed', sendAt: null, sentAt: null });
  });

  it('records a refused mail as failed with fixed words and the codes, never the relay address or its text', async () => {
    const { key } = await shop('Lamp Shop');
    const sendAt = iso(ahead(2));
    const inv = await invite(key, { email: 'gone@example.com', sendAt });
    sink.refuse.set('gone@example.com', '550 5.1.1 <gone@example.com>: mailbox unavailable');
    expect(await runDue(Date.parse(sendAt))).toMatchObject({ sent: 0, failed: 1 });
    const failed = await get(inv.id);
    expect(failed.state).toBe('failed');
    expect(failed.lastError).toBe("the recipient's mail server refused the address (550 5.1.1)");
    // The log says so, with the relay's text, without the address the relay quoted (personal data never reaches a log).
    expect(logLines.some((l) => l.includes('the relay refused the mail') && l.includes(inv.id) && l.includes('5.1.1'))).toBe(true);
    expect(logLines.some((l) => l.includes('mailbox unavailable') && l.includes('5.1.1 <<address>>'))).toBe(true);
    expect(logLines.filter((l) => l.includes('gone@example.com'))).toEqual([]);
    expect(failed.lastError).not.toContain(new URL(sink.url).port);
    expect(failed.lastError).not.toContain('smtp://');
    // Shown as recorded.
    const listed = await t.admin('GET', `/admin/invitations?orgId=${failed.orgId}&state=failed`);
    expect((listed.body.data as { lastError: string }[])[0]!.lastError).toBe(failed.lastError);
  });

  it("writes in the invitation's locale, else the settings' language, else the organization's", async () => {
    const a = await shop('Laden A', { language: 'es', settings: { language: 'de' } });
    const b = await shop('Laden B', { language: 'es' });
    const sendAt = iso(ahead(2));
    await invite(a.key, { email: 'fr@example.com', locale: 'fr-CA', sendAt });
    await invite(a.key, { email: 'de@example.com', sendAt });
    await invite(b.key, { email: 'es@example.com', sendAt });
    expect(await runDue(Date.parse(sendAt))).toMatchObject({ sent: 3 });
    const lang = (address: string): string => /<html lang="([^"]+)"/.exec(html(mailsTo(address)[0]!))![1]!;
    expect([lang('fr@example.com'), lang('de@example.com'), lang('es@example.com')]).toEqual(['fr', 'de', 'es']);
  });

  it("signs with the sender name setting, else the organization's name; shows the product's name and picture", async () => {
    const named = await shop('Kettle GmbH', { settings: { senderName: 'Lena at Kettle' } });
    const plain = await shop('Spoon & Fork');
    await t.service.store.products.upsert({ orgId: plain.orgId, id: 'spoon-1', name: 'Silver Spoon', url: null, imageUrl: 'https://img.example/spoon.jpg', gtin: null, brand: null }, new Date());
    const sendAt = iso(ahead(2));
    await invite(named.key, { email: 'lena@example.com', sendAt });
    await invite(plain.key, { email: 'sam@example.com', productId: 'spoon-1', sendAt });
    await runDue(Date.parse(sendAt));
    const from = (address: string): string => decodeWords(header(mailsTo(address)[0]!.mail, 'from')!);
    expect(from('lena@example.com')).toMatch(/^"?Lena at Kettle"? <no-reply@/);
    expect(from('sam@example.com')).toMatch(/^"?Spoon & Fork"? <no-reply@/);
    const spoon = mailsTo('sam@example.com')[0]!;
    expect(decodeWords(header(spoon.mail, 'subject')!)).toContain('Silver Spoon');
    expect(html(spoon)).toContain('src="https://img.example/spoon.jpg"');
  });
});

describe('reminders and expiry', () => {
  it('reminds once REMINDER_DAYS after the mail when no review came, then expires 30 days after the mail', async () => {
    const { key } = await shop('Bread Bakery');
    const sendAt = iso(ahead(2));
    const inv = await invite(key, { email: 'cara@example.com', sendAt });
    await runDue(Date.parse(sendAt));
    // Mailed now (the real time, whatever --at said): the reminder and the expiry count from then.
    const T = Date.parse((await get(inv.id)).sentAt!);
    // (The earlier tests' invitations, mailed a little before, are reminded and expired by the same runs.)
    await runDue(T + 7 * DAY - 1000);
    expect(mailsTo('cara@example.com')).toHaveLength(1);
    expect((await runDue(T + 7 * DAY)).reminded).toBeGreaterThanOrEqual(1);
    const mails = mailsTo('cara@example.com');
    expect(mails).toHaveLength(2);
    expect(decodeWords(header(mails[1]!.mail, 'subject')!)).not.toBe(decodeWords(header(mails[0]!.mail, 'subject')!));
    const reminded = await get(inv.id);
    expect(reminded).toMatchObject({ state: 'reminded', sentAt: new Date(T).toISOString() });
    expect(Date.parse(reminded.remindedAt!)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(reminded.remindedAt!)).toBeGreaterThanOrEqual(T);
    await runDue(T + 20 * DAY);
    expect(mailsTo('cara@example.com')).toHaveLength(2);
    await runDue(T + 30 * DAY - 1000);
    expect((await get(inv.id)).state).toBe('reminded');
    expect((await runDue(T + 30 * DAY)).expired).toBeGreaterThanOrEqual(1);
    expect((await get(inv.id)).state).toBe('expired');
    // Its link says so.
    const page = await t.get(new URL(t.service.invitations.link(inv)!).pathname, { skipValidation: true });
    expect(page.status).toBe(410);
  });

  it('sends no reminder after a review (through the link or standing already), an unsubscribe through the mail, a cancellation, or with the setting off', async () => {
    const on = await shop('Candle Works');
    const off = await shop('Quiet Shop', { settings: { reminder: false } });
    const sendAt = iso(ahead(3));
    const T = Date.parse(sendAt);
    const reviewed = await invite(on.key, { email: 'rev@example.com', sendAt });
    const unsub = await invite(on.key, { email: 'unsub@example.com', sendAt });
    const cancelled = await invite(on.key, { email: 'cancel@example.com', sendAt });
    const control = await invite(on.key, { email: 'control@example.com', sendAt });
    const quiet = await invite(off.key, { email: 'quiet@example.com', sendAt });
    const elsewhere = await invite(on.key, { email: 'Elsewhere@example.com', sendAt });
    expect(await runDue(T)).toMatchObject({ sent: 6 });
    // This address's review of the organization stands already, written on the review page (not through this link).
    const stamp = new Date().toISOString();
    await t.service.store.collect.create({
      id: 'sub_elsewhere0000000000',
      orgId: on.orgId,
      collectId: 'col_elsewhere',
      productId: null,
      rating: 2,
      content: 'Written on the review page before the reminder.',
      authorName: 'Else',
      email: 'elsewhere@example.com',
      emailKey: (await get(elsewhere.id)).emailKey,
      language: 'en',
      state: 'published',
      hold: null,
      confirmed: true,
      rejectReason: null,
      confirmExpiresAt: null,
      reviewExternalId: 'sub_elsewhere0000000000',
      mailSentAt: null,
      submittedAt: stamp,
      invitationId: null,
      decidedAt: stamp,
      updatedAt: stamp,
    });

    // A review through the link.
    const token = new URL(t.service.invitations.link(reviewed)!).pathname.split('/').pop()!;
    const formToken = t.service.invitations.formToken(await get(reviewed.id));
    await sleep(FORM_MIN_AGE_MS + 100);
    const published = await t.service.invitations.submit(token, formToken, { rating: '4', content: 'Lovely candles, burn evenly.', authorName: 'Rev', consent: true }, 'en');
    expect(published.kind).toBe('published');
    // The one-click unsubscribe of the mail's List-Unsubscribe header (RFC 8058).
    const listUnsubscribe = header(mailsTo('unsub@example.com')[0]!.mail, 'list-unsubscribe')!;
    const url = new URL(/<(https:[^>]+)>/.exec(listUnsubscribe)![1]!);
    const oneClick = await t.get(`${url.pathname}${url.search}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click', skipValidation: true });
    expect(oneClick.status).toBe(200);
    expect((await t.admin('POST', `/admin/invitations/${cancelled.id}/cancel`)).status).toBe(200);

    expect((await runDue(T + 7 * DAY)).reminded).toBeGreaterThanOrEqual(1);
    for (const address of ['rev@example.com', 'unsub@example.com', 'cancel@example.com', 'quiet@example.com', 'Elsewhere@example.com']) expect(mailsTo(address), address).toHaveLength(1);
    expect((await get(elsewhere.id)).state).toBe('sent');
    expect(mailsTo('control@example.com')).toHaveLength(2);
    expect((await get(reviewed.id)).state).toBe('reviewed');
    expect((await get(unsub.id)).state).toBe('sent');
    expect((await get(cancelled.id)).state).toBe('cancelled');
    expect((await get(control.id)).state).toBe('reminded');
    expect((await get(quiet.id)).state).toBe('sent');
    await runDue(T + 14 * DAY);
    expect(mailsTo('control@example.com')).toHaveLength(2);
  });
});

describe('the delay setting', () => {
  it('schedules an invitation without sendAt after the organization delay (7 days unless set, 0 allowed)', async () => {
    const dflt = await shop('Default Delay');
    const three = await shop('Three Days', { settings: { delayDays: 3 } });
    const a = await invite(dflt.key, { email: 'd7@example.com' });
    const b = await invite(three.key, { email: 'd3@example.com' });
    expect(Date.parse(a.sendAt!) - Date.parse(a.createdAt)).toBe(7 * DAY);
    expect(Date.parse(b.sendAt!) - Date.parse(b.createdAt)).toBe(3 * DAY);
  });

  it('sends an invitation due now on the schedule, with nobody asking (the job door)', async () => {
    const now = await shop('At Once', { settings: { delayDays: 0 } });
    const inv = await invite(now.key, { email: 'now@example.com' });
    expect(inv.sendAt).toBe(inv.createdAt);
    await vi.waitFor(async () => expect((await get(inv.id)).state).toBe('sent'), { timeout: 30_000, interval: 100 });
    expect(mailsTo('now@example.com')).toHaveLength(1);
  });
});

describe('invitations run-due (CLI)', () => {
  function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
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

  it('sends what is due as if it were --at, answering {sent, reminded, failed, expired}; a bad --at is refused', async () => {
    const { key } = await shop('Cli Shop');
    const sendAt = iso(ahead(4));
    const inv = await invite(key, { email: 'cli@example.com', sendAt });
    const out = await cli(['invitations', 'run-due', '--at', sendAt, '--json']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const answer = JSON.parse(out.stdout) as Record<string, number>;
    expect(Object.keys(answer).sort()).toEqual(['expired', 'failed', 'reminded', 'sent']);
    expect(answer.sent).toBeGreaterThanOrEqual(1);
    expect((await get(inv.id)).state).toBe('sent');
    expect(mailsTo('cli@example.com')).toHaveLength(1);
    const bad = await cli(['invitations', 'run-due', '--at', 'next tuesday', '--json']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('at must be an ISO 8601 date-time');
  });
});

describe('personal data', () => {
  it('writes no invitee address into any log line of all the above', () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.filter((l) => /[a-z0-9-]+@example\.com/i.test(l))).toEqual([]);
  });
});

describe('with REDIS_URL (BullMQ and the shared mail slots)', () => {
  it('sends an invitation due now at once: its creation asks the sender (whose next minute is far)', async () => {
    // Its own runs every 10 minutes here: only the creation's request can send it within the wait below.
    process.env.SOURCES_MINUTE_MS = '600000';
    const withRedis = await startTestService({ env: { SMTP_URL: sink.url, SMTP_RATE_PER_MINUTE: '1000000' } }).finally(() => {
      process.env.SOURCES_MINUTE_MS = '500';
    });
    try {
      const org = await withRedis.org('growth');
      await withRedis.service.store.collect.putSettings({ orgId: org.orgId, collectId: `col_${org.orgId.slice(4)}`, shareUrl: null, moderation: 'publish', updatedAt: new Date().toISOString(), invitations: { delayDays: 0, reminder: true, language: null, senderName: null } });
      const key = (await withRedis.admin('POST', '/admin/keys', { orgId: org.orgId, name: 'shop', permissions: ['reviews:read', 'invitations:write'] })).body.key as string;
      const res = await withRedis.get('/api/v1/invitations', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'redis@example.com' }) });
      expect(res.status).toBe(202);
      const id = (res.body as { data: { id: string }[] }).data[0]!.id;
      await vi.waitFor(async () => expect((await withRedis.service.store.invitations.get(id))?.state).toBe('sent'), { timeout: 60_000, interval: 100 });
      expect(mailsTo('redis@example.com')).toHaveLength(1);
    } finally {
      await withRedis.close();
    }
  });
});
