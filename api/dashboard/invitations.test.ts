/**
 * The Collect page's invitations API over real HTTPS (CONTRACT §14, the
 * dashboard): the list with counts per state and the conversion over 30 and
 * 90 days (a fixture of invitations in several states and dates), cancel,
 * the settings (every field checked, the review page's settings kept, saves
 * of both at once), the mail's previews, and the roles and CSRF rules of
 * every dashboard write. Every answer is checked against the dashboard's
 * OpenAPI document (test-client).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIL_LANGUAGES } from '../../dashboard/pages/collect/mail-languages.ts';
import { PAGE_LANGUAGES } from '../collect/words.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { newId } from '../store/ids.ts';
import type { Store } from '../store/types.ts';
import type { Invitation, InvitationDraft } from '../store/invitation-types.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';
const DAY = 86_400_000;

/** Writes one invitation as it would be after its life so far (the fixture: states and dates the sender and the links would have made). */
async function fixture(t: TestService, orgId: string, email: string, life: { createdDaysAgo: number; unsent?: boolean; orderRef?: string; then?: Partial<Invitation> }): Promise<Invitation> {
  const now = Date.now();
  const created = new Date(now - life.createdDaysAgo * DAY).toISOString();
  const draft: InvitationDraft = {
    id: newId('inv'), orgId, email, emailKey: `key-${email}`, name: null, productId: null, orderRef: life.orderRef ?? `order-${email}`, locale: null,
    state: life.unsent ? 'unsent' : 'scheduled', reason: null, lastError: null, createdAt: created,
    sendAt: life.unsent ? null : new Date(Date.parse(created) + DAY).toISOString(), sentAt: null, remindedAt: null, reviewedAt: null,
    submissionId: null, updatedAt: created,
  };
  const store = t.service.store.invitations;
  const [made] = (await store.create(orgId, [draft], { max: 1000 }))!;
  let inv = made!.invitation;
  if (life.then) {
    const next = { ...inv, ...life.then, updatedAt: new Date(now - 1000).toISOString() };
    inv = (await store.update(next, inv))!;
    expect(inv).not.toBeNull();
  }
  return inv;
}

const ago = (days: number): string => new Date(Date.now() - days * DAY).toISOString();

describe('dashboard invitations: list, counts, conversion, cancel, settings, previews', () => {
  let t: TestService;
  let agent: Agent;
  let orgId: string;
  let otherOrg: string;
  let owner: Client;
  let admin: Client;
  let member: Client;
  const made: Record<string, Invitation> = {};

  beforeAll(async () => {
    t = await startTestService({ redis: false });
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
    ({ orgId } = await t.org('growth', 100_000));
    ({ orgId: otherOrg } = await t.org('growth', 100_000));
    for (const [email, role] of [['owner@example.com', 'owner'], ['admin@example.com', 'admin'], ['member@example.com', 'member']] as const) {
      expect((await t.admin('POST', '/admin/users', { orgId, email, role, password: PASSWORD })).status).toBe(201);
    }
    owner = new Client(t, agent);
    admin = new Client(t, agent);
    member = new Client(t, agent);
    expect((await Promise.all([owner.signIn('owner@example.com', PASSWORD), admin.signIn('admin@example.com', PASSWORD), member.signIn('member@example.com', PASSWORD)])).map((r) => r.status)).toEqual([200, 200, 200]);

    // Mailed ones (sentAt), links for the shop's own mailer (unsent: counted from creation), and never-sent ones.
    made.s1 = await fixture(t, orgId, 's1@example.com', { createdDaysAgo: 3, then: { state: 'reviewed', sentAt: ago(2), reviewedAt: ago(1) } });
    made.s2 = await fixture(t, orgId, 's2@example.com', { createdDaysAgo: 11, then: { state: 'sent', sentAt: ago(10) } });
    made.s3 = await fixture(t, orgId, 's3@example.com', { createdDaysAgo: 11, then: { state: 'reminded', sentAt: ago(10), remindedAt: ago(3) } });
    made.s4 = await fixture(t, orgId, 's4@example.com', { createdDaysAgo: 41, then: { state: 'reviewed', sentAt: ago(40), reviewedAt: ago(38) } });
    made.s5 = await fixture(t, orgId, 's5@example.com', { createdDaysAgo: 61, then: { state: 'expired', sentAt: ago(60) } });
    made.s6 = await fixture(t, orgId, 's6@example.com', { createdDaysAgo: 101, then: { state: 'reviewed', sentAt: ago(100), reviewedAt: ago(99) } });
    made.u1 = await fixture(t, orgId, 'u1@example.com', { createdDaysAgo: 5, unsent: true });
    made.u2 = await fixture(t, orgId, 'u2@example.com', { createdDaysAgo: 5, unsent: true, then: { state: 'reviewed', reviewedAt: ago(4) } });
    made.sc = await fixture(t, orgId, 'sc@example.com', { createdDaysAgo: 0.5 });
    made.fl = await fixture(t, orgId, 'fl@example.com', { createdDaysAgo: 2, then: { state: 'failed', lastError: '550 5.1.1 no such mailbox' } });
    made.cx = await fixture(t, orgId, 'cx@example.com', { createdDaysAgo: 2, then: { state: 'cancelled' } });
    // The same address again within 30 days: skipped (recently_invited), never sent.
    made.sk = await fixture(t, orgId, 's1@example.com', { createdDaysAgo: 0.25, orderRef: 'second-order' });
    expect(made.sk.state).toBe('skipped');
    // Another organization's invitations count for it only.
    made.other = await fixture(t, otherOrg, 'other@example.com', { createdDaysAgo: 2, then: { state: 'sent', sentAt: ago(1) } });
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
  });

  it('lists newest first with the addresses, the counts per state and the conversion over 30 and 90 days, to everyone in the organization', async () => {
    const list = await member.send('GET', '/dashboard/api/invitations');
    expect(list.status).toBe(200);
    expect(list.body.counts).toEqual({ scheduled: 1, sent: 1, reminded: 1, reviewed: 4, failed: 1, skipped: 1, expired: 1, cancelled: 1, unsent: 1 });
    expect(list.body.total).toBe(12);
    expect(list.body).toMatchObject({ limit: 20, offset: 0, mail: { configured: false } });
    const data = list.body.data as { id: string; email: string; state: string; link: string | null; createdAt: string }[];
    expect(data.map((i) => i.id)).toEqual(Object.values(made).filter((i) => i.orgId === orgId).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id)).map((i) => i.id));
    expect(data.map((i) => i.email)).toContain('u1@example.com');
    expect(data.find((i) => i.id === made.u1!.id)!.link).toMatch(/^https:\/\/.+\/r\/i\/[A-Za-z0-9_.-]+$/);
    expect(data.find((i) => i.id === made.sk!.id)!.link).toBeNull();
    // 30 days: s1 (reviewed), s2, s3, u1, u2 (reviewed) sent; 90 days: also s4 (reviewed), s5. s6 is older; sc, fl, cx, sk never went.
    const today = new Date().toISOString().slice(0, 10);
    const since = (days: number) => new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * DAY).toISOString().slice(0, 10);
    expect(list.body.conversion).toEqual({
      days30: { since: since(30), sent: 5, reviewed: 2, rate: 0.4 },
      days90: { since: since(90), sent: 7, reviewed: 3, rate: 3 / 7 },
    });

    const other = await t.admin('POST', '/admin/users', { orgId: otherOrg, email: 'other-owner@example.com', role: 'owner', password: PASSWORD });
    expect(other.status).toBe(201);
    const stranger = new Client(t, agent);
    await stranger.signIn('other-owner@example.com', PASSWORD);
    const theirs = await stranger.send('GET', '/dashboard/api/invitations');
    expect(theirs.body.total).toBe(1);
    expect(theirs.body.conversion).toMatchObject({ days30: { sent: 1, reviewed: 0, rate: 0 } });
  });

  it('filters by state and pages; nothing sent in a window is a null rate', async () => {
    const reviewed = await owner.send('GET', '/dashboard/api/invitations?state=reviewed&limit=3&offset=1');
    expect(reviewed.status).toBe(200);
    expect(reviewed.body).toMatchObject({ total: 4, limit: 3, offset: 1 });
    expect((reviewed.body.data as { id: string }[]).map((i) => i.id)).toEqual([made.u2!.id, made.s4!.id, made.s6!.id]);
    // The counts are the organization's whatever the filter.
    expect((reviewed.body.counts as Record<string, number>).scheduled).toBe(1);

    const { orgId: empty } = await t.org('growth', 100_000);
    await t.admin('POST', '/admin/users', { orgId: empty, email: 'empty@example.com', role: 'member', password: PASSWORD });
    const c = new Client(t, agent);
    await c.signIn('empty@example.com', PASSWORD);
    const none = await c.send('GET', '/dashboard/api/invitations');
    expect(none.body).toMatchObject({ total: 0, data: [], conversion: { days30: { sent: 0, reviewed: 0, rate: null }, days90: { sent: 0, reviewed: 0, rate: null } } });
  });

  it('refuses hostile list queries with 400 invalid_parameter naming each parameter', async () => {
    for (const [query, parameters] of [
      ['limit=-1', ['limit']],
      ['limit=0', ['limit']],
      ['limit=101', ['limit']],
      ['limit=1e3&offset=-5', ['limit', 'offset']],
      ['state=bogus', ['state']],
      ['state=%00sent', ['state']],
      ['state=bogus&limit=abc&color=red', ['color', 'limit', 'state']],
    ] as const) {
      const res = await owner.send('GET', `/dashboard/api/invitations?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error).toBe('invalid_parameter');
      expect(res.body.details!.map((d) => d.parameter).sort(), query).toEqual([...parameters]);
    }
  });

  it('cancels for Owner and Admin (audited once, a second click answers the same); 409 not_cancellable once reviewed; a Member gets 403; another organization\'s is 404', async () => {
    const path = (id: string) => `/dashboard/api/invitations/${id}/cancel`;
    const refused = await member.send('POST', path(made.sc!.id));
    expect(refused.status).toBe(403);
    expect((await t.service.store.invitations.get(made.sc!.id))!.state).toBe('scheduled');

    const done = await admin.send('POST', path(made.sc!.id));
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ id: made.sc!.id, state: 'cancelled' });
    expect((await t.service.store.invitations.get(made.sc!.id))!.state).toBe('cancelled');
    expect((await owner.send('POST', path(made.sc!.id))).body).toEqual({ id: made.sc!.id, state: 'cancelled' });
    const log = await owner.send('GET', '/dashboard/api/audit');
    const entries = (log.body.data as { action: string; target: { id: string; label: string }; actor: { email: string } }[]).filter((r) => r.action === 'invitation.cancelled');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ target: { id: made.sc!.id, label: 'Invitation for order order-sc@example.com' }, actor: { email: 'admin@example.com' } });

    const late = await owner.send('POST', path(made.s1!.id));
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('not_cancellable');
    expect(late.body.message).toBe(`The invitation ${made.s1!.id} is reviewed: there is nothing left to cancel.`);
    expect((await owner.send('POST', path(made.other!.id))).status).toBe(404);
    expect((await owner.send('POST', path('inv_nope'))).status).toBe(404);
    // Counts follow: one scheduled fewer, one cancelled more.
    const counts = (await owner.send('GET', '/dashboard/api/invitations')).body.counts as Record<string, number>;
    expect([counts.scheduled, counts.cancelled]).toEqual([0, 2]);
  });

  it('refuses a write without the CSRF token or from a stranger\'s session', async () => {
    const token = owner.csrf;
    owner.csrf = 'x'.repeat(40);
    try {
      const res = await owner.send('PUT', '/dashboard/api/invitations/settings', { delayDays: 1, reminder: true, language: null, senderName: null });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('csrf_failed');
      const cancel = await owner.send('POST', `/dashboard/api/invitations/${made.u1!.id}/cancel`);
      expect(cancel.status).toBe(403);
    } finally {
      owner.csrf = token;
    }
    const anonymous = new Client(t, agent);
    await anonymous.start();
    expect((await anonymous.send('GET', '/dashboard/api/invitations')).status).toBe(401);
    expect((await anonymous.send('GET', '/dashboard/api/invitations/preview?lang=en')).status).toBe(401);
    expect((await t.service.store.invitations.get(made.u1!.id))!.state).toBe('unsent');
  });

  it('settings: the defaults, a round trip that keeps the review page settings (also when both are saved at once), audited; a Member reads only', async () => {
    expect((await member.send('GET', '/dashboard/api/invitations/settings')).body).toEqual({ delayDays: 7, reminder: true, language: null, senderName: null });
    expect((await owner.send('PATCH', '/dashboard/api/collect/settings', { shareUrl: 'https://example.com/share', moderation: 'hold' })).status).toBe(200);
    const next = { delayDays: 0, reminder: false, language: 'de', senderName: '  Acme   Shop  ' };
    const saved = await owner.send('PUT', '/dashboard/api/invitations/settings', next);
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ delayDays: 0, reminder: false, language: 'de', senderName: 'Acme Shop' });
    expect((await member.send('GET', '/dashboard/api/invitations/settings')).body).toEqual(saved.body);
    expect((await member.send('GET', '/dashboard/api/collect')).body).toMatchObject({ shareUrl: 'https://example.com/share', moderation: 'hold' });
    expect((await t.service.store.collect.getSettings(orgId))!.invitations).toEqual(saved.body);
    expect((await member.send('PUT', '/dashboard/api/invitations/settings', next)).status).toBe(403);

    const log = await owner.send('GET', '/dashboard/api/audit');
    const entry = (log.body.data as { action: string; details: Record<string, string> }[]).find((r) => r.action === 'invitations.settings_changed');
    expect(entry?.details.words).toBe('delay: 0 days; reminder: off; language: de; sender name: Acme Shop');

    // Both pages saved at the same time, again and again: each keeps its own fields.
    for (let round = 1; round <= 5; round++) {
      const [a, b] = await Promise.all([
        owner.send('PATCH', '/dashboard/api/collect/settings', { shareUrl: `https://example.com/share/${round}`, moderation: round % 2 ? 'publish' : 'hold' }),
        admin.send('PUT', '/dashboard/api/invitations/settings', { delayDays: round, reminder: round % 2 === 0, language: null, senderName: `Shop ${round}` }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const stored = (await t.service.store.collect.getSettings(orgId))!;
      expect({ shareUrl: stored.shareUrl, moderation: stored.moderation, invitations: stored.invitations }).toEqual({
        shareUrl: `https://example.com/share/${round}`,
        moderation: round % 2 ? 'publish' : 'hold',
        invitations: { delayDays: round, reminder: round % 2 === 0, language: null, senderName: `Shop ${round}` },
      });
    }
  });

  it('settings: 400 invalid_parameter with one detail per field, nothing saved (hostile sender names included)', async () => {
    const before = (await owner.send('GET', '/dashboard/api/invitations/settings')).body;
    const cases: [unknown, string[]][] = [
      [{ delayDays: -1, reminder: 'yes', language: 'xx', senderName: 5 }, ['delayDays', 'language', 'reminder', 'senderName']],
      [{ delayDays: 61, reminder: true, language: null, senderName: null }, ['delayDays']],
      [{ delayDays: 1.5, reminder: true, language: null, senderName: null }, ['delayDays']],
      [{ delayDays: '3', reminder: true, language: null, senderName: null }, ['delayDays']],
      [{ delayDays: 3, reminder: true, language: 'EN', senderName: null }, ['language']],
      [{ delayDays: 3, reminder: true, language: null, senderName: 'x'.repeat(101) }, ['senderName']],
      [{ delayDays: 3, reminder: true, language: null, senderName: 'A'.repeat(50_000) }, ['senderName']],
      [{ delayDays: 3, reminder: true, language: null, senderName: 'Acme\r\nBcc: victim@example.com' }, ['senderName']],
      [{ delayDays: 3, reminder: true, language: null, senderName: 'Acme\u2028Shop' }, ['senderName']],
      [{ delayDays: 3, reminder: true, language: null }, ['senderName']],
      [{ delayDays: 3, reminder: true, language: null, senderName: null, extra: 1 }, ['extra']],
      [[1, 2], ['body']],
    ];
    for (const [body, parameters] of cases) {
      const res = await owner.send('PUT', '/dashboard/api/invitations/settings', body);
      const what = JSON.stringify(body).slice(0, 80);
      expect(res.status, what).toBe(400);
      expect(res.body.error, what).toBe('invalid_parameter');
      expect(res.body.details!.map((d) => d.parameter).sort(), what).toEqual(parameters);
    }
    // Past the dashboard's body limit: refused before it is read, as every dashboard write.
    const huge = await owner.send('PUT', '/dashboard/api/invitations/settings', { delayDays: 3, reminder: true, language: null, senderName: 'A'.repeat(2_000_000) });
    expect([huge.status, huge.body.error]).toEqual([413, 'payload_too_large']);
    const first = await owner.send('PUT', '/dashboard/api/invitations/settings', cases[0]![0]);
    expect(Object.fromEntries(first.body.details!.map((d) => [d.parameter, d.message]))).toEqual({
      delayDays: 'must be a whole number of days from 0 to 60',
      reminder: 'must be true or false',
      language: expect.stringMatching(/^must be null \(the organization's language\) or one of ar, cs, .*, zh$/),
      senderName: "must be text, or null (the organization's name)",
    });
    const newline = await owner.send('PUT', '/dashboard/api/invitations/settings', cases[7]![0]);
    expect(newline.body.details).toEqual([{ parameter: 'senderName', message: 'must be one line (no line breaks or control characters)' }]);
    // 100 characters exactly is fine.
    expect((await owner.send('GET', '/dashboard/api/invitations/settings')).body).toEqual(before);
    expect((await owner.send('PUT', '/dashboard/api/invitations/settings', { ...before, senderName: 'é'.repeat(100) })).status).toBe(200);
  });

  it('previews the mail per language (German, Arabic right to left), the reminder, with a sample product and the sender name; bad parameters are 400', async () => {
    await owner.send('POST', '/dashboard/api/products', { id: 'MUG-1', name: 'Blue mug', imageUrl: 'https://shop.example/mug.jpg' });
    await owner.send('PUT', '/dashboard/api/invitations/settings', { delayDays: 7, reminder: true, language: null, senderName: 'Acme Shop' });
    const de = await member.send('GET', '/dashboard/api/invitations/preview?lang=de');
    expect(de.status).toBe(200);
    expect(de.body).toMatchObject({ language: 'de', kind: 'invitation', product: { id: 'MUG-1', name: 'Blue mug' }, mail: { configured: false } });
    expect(de.body.subject).toBe('Wie war Ihre Erfahrung mit Blue mug?');
    expect(de.body.from).toMatch(/^Acme Shop <no-reply@[^>]+>$/);
    expect(de.body.html).toMatch(/^<!doctype html>\n<html lang="de" dir="ltr">/);
    expect(de.body.html).toContain('src="https://shop.example/mug.jpg"');
    expect(de.body.text).toContain('Hallo Alex');
    expect(de.body.text).toMatch(/\/r\/i\/preview\?rating=5/);

    // The page's language picker offers exactly the languages the mail is written in.
    expect([...MAIL_LANGUAGES]).toEqual([...PAGE_LANGUAGES]);
    const ar = await member.send('GET', '/dashboard/api/invitations/preview?lang=ar');
    expect(ar.body.language).toBe('ar');
    expect(ar.body.html).toMatch(/<html lang="ar" dir="rtl">/);
    expect(ar.body.subject).not.toBe(de.body.subject);
    expect(ar.body.subject).toMatch(/[\u0600-\u06ff]/);
    expect(ar.body.subject).toContain('Blue mug');

    const reminder = await member.send('GET', '/dashboard/api/invitations/preview?lang=de&reminder=1');
    expect(reminder.body.kind).toBe('reminder');
    expect(reminder.body.subject).not.toBe(de.body.subject);

    // The same mail as a document of its own for the page's sandboxed frame: styles and https pictures, nothing else.
    const doc = await t.get('/dashboard/api/invitations/preview.html?lang=ar', { headers: { cookie: member.cookieHeader() }, skipValidation: true });
    expect(doc.status).toBe(200);
    expect(doc.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(doc.text).toBe(ar.body.html);
    const policy = doc.headers['content-security-policy']!.split(';').map((d) => d.trim());
    expect(policy).toEqual(expect.arrayContaining(["default-src 'none'", "style-src 'unsafe-inline'", 'img-src https: data:', 'sandbox', "frame-ancestors 'self'"]));
    expect(policy.some((d) => d.startsWith('script-src'))).toBe(false);
    expect(doc.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect((await t.get('/dashboard/api/invitations/preview.html?lang=ar', { skipValidation: true })).status).toBe(401);
    expect((await t.get('/dashboard/api/invitations/preview.html?lang=xx', { headers: { cookie: member.cookieHeader() }, skipValidation: true })).status).toBe(400);

    for (const [query, parameters] of [
      ['lang=xx', ['lang']],
      ['lang=de&reminder=maybe', ['reminder']],
      ['lang=%3Cscript%3E&size=9', ['lang', 'size']],
    ] as const) {
      const res = await member.send('GET', `/dashboard/api/invitations/preview?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error).toBe('invalid_parameter');
      expect(res.body.details!.map((d) => d.parameter).sort()).toEqual([...parameters]);
    }
  });
});

describe('dashboard invitations with a mail relay configured', () => {
  let t: TestService;
  let agent: Agent;

  beforeAll(async () => {
    // Nothing is sent here: the relay's address only makes invitations mailed rather than unsent links.
    t = await startTestService({ redis: false, env: { SMTP_URL: 'smtp://127.0.0.1:9' } });
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
  });

  it('says mails are configured, in the list and the preview', async () => {
    const { orgId } = await t.org('growth', 100_000);
    await t.admin('POST', '/admin/users', { orgId, email: 'owner@example.com', role: 'owner', password: PASSWORD });
    const owner = new Client(t, agent);
    await owner.signIn('owner@example.com', PASSWORD);
    expect((await owner.send('GET', '/dashboard/api/invitations')).body.mail).toEqual({ configured: true });
    expect((await owner.send('GET', '/dashboard/api/invitations/preview?lang=en')).body.mail).toEqual({ configured: true });
  });
});

describe('dashboard invitations: the settings saved while the review page settings are being saved', () => {
  let t: TestService;
  let agent: Agent;
  let dir: string;
  let real: EmbeddedStore;
  let armed = false;
  const { promise: inside, resolve: entered } = Promise.withResolvers<void>();
  const { promise: gate, resolve: release } = Promise.withResolvers<void>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inv-settings-race-'));
    real = await EmbeddedStore.open(dir);
    // The review page's save is held between its read and its write (whichever write method it uses).
    const hold = async (fields: object): Promise<void> => {
      if (!armed || !('shareUrl' in fields)) return;
      entered();
      await gate;
    };
    const store: Store = {
      kind: real.kind, orgs: real.orgs, keys: real.keys, widgets: real.widgets, people: real.people, moderation: real.moderation, sources: real.sources,
      webhooks: real.webhooks, products: real.products, replies: real.replies, invitations: real.invitations, reviews: real.reviews,
      collect: {
        ...real.collect,
        putSettings: async (settings) => {
          await hold(settings);
          return real.collect.putSettings(settings);
        },
        patchSettings: async (orgId, patch) => {
          await hold(patch);
          return real.collect.patchSettings(orgId, patch);
        },
      },
      ping: () => real.ping(),
      close: () => real.close(),
    };
    t = await startTestService({ redis: false, store });
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
    await real?.close().catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps both: the invitation settings written meanwhile are not overwritten by the review page settings read before', async () => {
    const { orgId } = await t.org('growth', 100_000);
    await t.admin('POST', '/admin/users', { orgId, email: 'owner@example.com', role: 'owner', password: PASSWORD });
    const owner = new Client(t, agent);
    await owner.signIn('owner@example.com', PASSWORD);
    expect((await owner.send('GET', '/dashboard/api/collect')).status).toBe(200);
    armed = true;
    const reviewPage = owner.send('PATCH', '/dashboard/api/collect/settings', { shareUrl: 'https://example.com/share', moderation: 'hold' });
    await inside;
    const invitations = { delayDays: 2, reminder: false, language: 'fr', senderName: 'Chez Nous' };
    expect((await owner.send('PUT', '/dashboard/api/invitations/settings', invitations)).status).toBe(200);
    release();
    expect((await reviewPage).status).toBe(200);
    const stored = (await real.collect.getSettings(orgId))!;
    expect({ shareUrl: stored.shareUrl, moderation: stored.moderation, invitations: stored.invitations }).toEqual({ shareUrl: 'https://example.com/share', moderation: 'hold', invitations });
  });
});
