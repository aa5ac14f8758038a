/**
 * The dashboard's JSON API over real HTTPS, with sessions in Redis and in the
 * embedded store: every answer is checked against the dashboard's OpenAPI
 * document (validate.ts). Session rules (cookie, replacement at sign-in, idle
 * and absolute expiry, removal), roles, the last Owner, input validation.
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { sha256 } from './session.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';

for (const redis of [true, false]) {
  describe(`dashboard API (sessions in ${redis ? 'Redis' : 'the embedded store'})`, () => {
    let t: TestService;
    let agent: Agent;
    let orgId: string;
    let ownerId: string;
    const client = () => new Client(t, agent);

    async function user(email: string, role: string): Promise<string> {
      const res = await t.admin('POST', '/admin/users', { orgId, email, role, password: PASSWORD });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['email', 'id', 'memberships', 'orgId', 'role']);
      return res.body.id as string;
    }

    beforeAll(async () => {
      t = await startTestService({ redis });
      agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
      orgId = (await t.org('starter')).orgId;
      ownerId = await user('owner@example.com', 'owner');
    });
    afterAll(async () => {
      agent?.destroy();
      await t?.close();
    });

    it('signs in with the cookie of §6, answers the same for an unknown email and a wrong password, and replaces the session at sign-in', async () => {
      const c = client();
      await c.start();
      expect(c.cookies.has('rp_csrf')).toBe(true);
      const unknown = await c.signIn('nobody@example.com', PASSWORD);
      const wrong = await c.signIn('owner@example.com', 'not the password');
      expect([unknown.status, wrong.status]).toEqual([401, 401]);
      expect(unknown.body).toEqual(wrong.body);

      const ok = await c.signIn('OWNER@example.com', PASSWORD);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ user: { id: ownerId, role: 'owner' }, org: { id: orgId, plan: 'starter', apiAccess: false, requestsPerMinute: null } });
      const setCookie = (ok.headers['set-cookie'] as string[]).find((l) => l.startsWith('rp_session='))!;
      expect(setCookie).toMatch(/^rp_session=[A-Za-z0-9_-]{43}; Path=\/dashboard; Max-Age=604800; HttpOnly; Secure; SameSite=Lax$/);
      // The device cookie (exempts this browser from the per-email sign-in limits): set on success only, never on a failure.
      const device = (ok.headers['set-cookie'] as string[]).find((l) => l.startsWith('rp_device='))!;
      expect(device).toMatch(/^rp_device=[A-Za-z0-9_-]{65}; Path=\/dashboard; Max-Age=31536000; HttpOnly; Secure; SameSite=Lax$/);
      expect([unknown, wrong].flatMap((r) => (r.headers['set-cookie'] as string[] | undefined) ?? []).some((l) => l.startsWith('rp_device='))).toBe(false);
      const first = c.cookies.get('rp_session')!;

      // Signing in again (e.g. on a shared computer) replaces the id; the old one is dead.
      expect((await c.signIn('owner@example.com', PASSWORD)).status).toBe(200);
      const second = c.cookies.get('rp_session')!;
      expect(second).not.toBe(first);
      const old = client();
      old.cookies.set('rp_session', first);
      expect((await old.send('GET', '/dashboard/api/keys')).status).toBe(401);
      expect((await c.send('GET', '/dashboard/api/keys')).status).toBe(200);
    });

    it('lets Owners and Admins manage keys (Free/Starter included) and refuses Members with 403; validates input', async () => {
      await user('admin@example.com', 'admin');
      await user('member@example.com', 'member');
      const admin = client();
      expect((await admin.signIn('admin@example.com', PASSWORD)).status).toBe(200);
      const created = await admin.send('POST', '/dashboard/api/keys', { name: 'Server', expiresAt: '2099-06-30T21:59:59.999Z' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'Server', expiresAt: '2099-06-30T21:59:59.999Z' });
      // Starter plan: the key exists, the API refuses it with the plan's 403.
      expect((await t.get('/api/v1/reviews', { key: created.body.key as string })).status).toBe(403);

      const bad = await admin.send('POST', '/dashboard/api/keys', { name: '', expiresAt: '2001-01-01', extra: 1 });
      expect(bad.status).toBe(400);
      expect((bad.body.details as { parameter: string }[]).map((d) => d.parameter).sort()).toEqual(['extra', 'name']);
      const past = await admin.send('POST', '/dashboard/api/keys', { name: 'Old', expiresAt: '2001-01-01' });
      expect(past.status).toBe(400);
      expect(past.body.details).toEqual([{ parameter: 'expiresAt', message: 'must be in the future' }]);

      const member = client();
      expect((await member.signIn('member@example.com', PASSWORD)).status).toBe(200);
      const refused = await Promise.all([
        member.send('GET', '/dashboard/api/keys'),
        member.send('POST', '/dashboard/api/keys', { name: 'x' }),
        member.send('POST', `/dashboard/api/keys/${created.body.id as string}/revoke`),
        member.send('GET', '/dashboard/api/audit'),
        member.send('POST', '/dashboard/api/invitations', { email: 'x@example.com', role: 'member' }),
      ]);
      expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
      expect(refused[0]!.body.message).toBe('This needs the Owner or Admin role; you are a Member.');
      expect((await member.send('GET', '/dashboard/api/members')).status).toBe(200);

      // Another organization's key is not found, never revoked.
      const other = await t.org('growth');
      const foreign = await admin.send('POST', `/dashboard/api/keys/${other.keyId}/revoke`);
      expect(foreign.status).toBe(404);
      expect((await t.get('/api/v1/reviews', { key: other.key })).status).toBe(200);

      const revoked = await admin.send('POST', `/dashboard/api/keys/${created.body.id as string}/revoke`);
      expect(revoked.body).toEqual({ id: created.body.id, state: 'revoked' });
      const audit = await admin.send('GET', '/dashboard/api/audit');
      // Sign-ins in between are security events of the same log.
      const changes = (audit.body.data as { action: string; actor: { email: string } }[]).filter((r) => !r.action.startsWith('security.'));
      expect(changes.slice(0, 2).map((r) => [r.action, r.actor.email])).toEqual([
        ['key.revoked', 'admin@example.com'],
        ['key.created', 'admin@example.com'],
      ]);
      const operatorView = await t.admin('GET', `/admin/orgs/${orgId}/audit`);
      expect((operatorView.body.data as unknown[]).length).toBe((audit.body.data as unknown[]).length);
    });

    it('gives a key invitations:write only when "May send review invitations" is ticked; every other key is read-only', async () => {
      const growth = await t.org('growth');
      await t.admin('POST', '/admin/users', { orgId: growth.orgId, email: `owner-${growth.orgId}@example.com`, role: 'owner', password: PASSWORD });
      const owner = client();
      expect((await owner.signIn(`owner-${growth.orgId}@example.com`, PASSWORD)).status).toBe(200);
      const inviting = await owner.send('POST', '/dashboard/api/keys', { name: 'Shop', mayInvite: true });
      const reading = await owner.send('POST', '/dashboard/api/keys', { name: 'Site', mayInvite: false });
      expect(inviting.body.permissions).toEqual(['reviews:read', 'invitations:write']);
      expect(reading.body.permissions).toEqual(['reviews:read']);
      const body = JSON.stringify({ email: 'ana@example.com' });
      const headers = { 'content-type': 'application/json' };
      expect((await t.get('/api/v1/invitations', { method: 'POST', key: inviting.body.key as string, headers, body })).status).toBe(202);
      expect((await t.get('/api/v1/invitations', { method: 'POST', key: reading.body.key as string, headers, body })).status).toBe(403);
      const list = await owner.send('GET', '/dashboard/api/keys');
      expect((list.body.data as { name: string; permissions: string[] }[]).map((k) => [k.name, k.permissions])).toEqual([
        ['Site', ['reviews:read']],
        ['Shop', ['reviews:read', 'invitations:write']],
        ['test', ['reviews:read']],
      ]);
      expect((await owner.send('POST', '/dashboard/api/keys', { name: 'x', mayInvite: 'yes' })).status).toBe(400);
    });

    it('keeps the last Owner, lets only Owners touch the Owner role, and ends a removed member’s sessions at once', async () => {
      const owner = client();
      expect((await owner.signIn('owner@example.com', PASSWORD)).status).toBe(200);
      expect((await owner.send('PATCH', `/dashboard/api/members/${ownerId}`, { role: 'admin' })).body.error).toBe('last_owner');
      expect((await owner.send('DELETE', `/dashboard/api/members/${ownerId}`)).body.error).toBe('last_owner');
      expect((await t.admin('DELETE', `/admin/users/${ownerId}`)).body.error).toBe('last_owner');

      const admin = client();
      expect((await admin.signIn('admin@example.com', PASSWORD)).status).toBe(200);
      const list = await admin.send('GET', '/dashboard/api/members');
      const memberId = (list.body.data as { id: string; email: string }[]).find((m) => m.email === 'member@example.com')!.id;
      expect((await admin.send('PATCH', `/dashboard/api/members/${memberId}`, { role: 'owner' })).status).toBe(403);
      expect((await admin.send('POST', '/dashboard/api/invitations', { email: 'boss@example.com', role: 'owner' })).status).toBe(403);
      const promoted = await owner.send('PATCH', `/dashboard/api/members/${memberId}`, { role: 'admin' });
      expect(promoted.body).toMatchObject({ id: memberId, role: 'admin' });

      const member = client();
      expect((await member.signIn('member@example.com', PASSWORD)).status).toBe(200);
      expect((await member.send('GET', '/dashboard/api/keys')).status).toBe(200); // the new role applies to the next request
      expect((await admin.send('DELETE', `/dashboard/api/members/${memberId}`)).status).toBe(204);
      const after = await member.send('GET', '/dashboard/api/members');
      expect(after.status).toBe(401);
      expect(after.body.error).toBe('unauthenticated');

      // Operators remove people too (CLI): the session ends at once as well.
      const temp = await user('temp@example.com', 'member');
      const tempClient = client();
      expect((await tempClient.signIn('temp@example.com', PASSWORD)).status).toBe(200);
      expect((await t.admin('DELETE', `/admin/users/${temp}`)).body).toEqual({ id: temp, removed: true });
      expect((await tempClient.send('GET', '/dashboard/api/members')).status).toBe(401);
    });

    it('invites with a one-time link bound to its email and role', async () => {
      const owner = client();
      expect((await owner.signIn('owner@example.com', PASSWORD)).status).toBe(200);
      const invited = await owner.send('POST', '/dashboard/api/invitations', { email: 'New.Person@example.com', role: 'admin' });
      expect(invited.status).toBe(201);
      const token = /#([A-Za-z0-9_-]+)$/.exec(invited.body.link as string)![1]!;
      expect(Date.parse(invited.body.expiresAt as string) - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);

      const guest = client();
      await guest.start();
      expect((await guest.send('POST', '/dashboard/api/invitations/lookup', { token })).body).toMatchObject({ email: 'New.Person@example.com', role: 'admin' });
      const short = await guest.send('POST', '/dashboard/api/invitations/accept', { token, password: 'short' });
      expect(short.status).toBe(400);
      const accepted = await guest.send('POST', '/dashboard/api/invitations/accept', { token, password: PASSWORD });
      expect(accepted.body).toMatchObject({ user: { email: 'New.Person@example.com', role: 'admin' } });
      const again = client();
      await again.start();
      expect((await again.send('POST', '/dashboard/api/invitations/accept', { token, password: PASSWORD })).body.error).toBe('invitation_invalid');
      expect((await again.signIn('new.person@example.com', PASSWORD)).status).toBe(200);
    });

    it('does not tell whether an email has an account elsewhere before its password is proven; with it, the account joins', async () => {
      const otherOrg = (await t.org('starter')).orgId;
      const existing = await t.admin('POST', '/admin/users', { orgId: otherOrg, email: 'elsewhere@example.com', role: 'member', password: PASSWORD });
      expect(existing.status).toBe(201);
      const owner = client();
      expect((await owner.signIn('owner@example.com', PASSWORD)).status).toBe(200);
      const elsewhere = await owner.send('POST', '/dashboard/api/invitations', { email: 'Elsewhere@example.com', role: 'member' });
      const nobody = await owner.send('POST', '/dashboard/api/invitations', { email: 'nobody.yet@example.com', role: 'member' });
      expect([elsewhere.status, nobody.status]).toEqual([201, 201]);
      expect(Object.keys(elsewhere.body).sort()).toEqual(Object.keys(nobody.body).sort());
      // Our own members are named: inviting them again is a conflict.
      const ours = await owner.send('POST', '/dashboard/api/invitations', { email: 'OWNER@example.com', role: 'member' });
      expect([ours.status, ours.body.error]).toEqual([409, 'conflict']);
      // Opening either link answers the same fields: nothing says which address has an account.
      const token = /#([A-Za-z0-9_-]+)$/.exec(elsewhere.body.link as string)![1]!;
      const nobodyToken = /#([A-Za-z0-9_-]+)$/.exec(nobody.body.link as string)![1]!;
      const guest = client();
      await guest.start();
      const [a, b] = [await guest.send('POST', '/dashboard/api/invitations/lookup', { token }), await guest.send('POST', '/dashboard/api/invitations/lookup', { token: nobodyToken })];
      expect(Object.keys(a.body).sort()).toEqual(Object.keys(b.body).sort());
      expect({ ...a.body, email: '', expiresAt: '' }).toEqual({ ...b.body, email: '', expiresAt: '' });
      // A password that is not the account's: 401, no membership, no second account, the invitation still open.
      const wrong = await guest.send('POST', '/dashboard/api/invitations/accept', { token, password: 'not the right password' });
      expect([wrong.status, wrong.body.error]).toEqual([401, 'invalid_credentials']);
      expect(guest.cookies.has('rp_session')).toBe(false);
      const before = await owner.send('GET', '/dashboard/api/members');
      expect((before.body.data as { email: string }[]).some((m) => m.email.toLowerCase() === 'elsewhere@example.com')).toBe(false);
      // The account's own password: signed in as that account, now a member here too, with the invitation's role.
      const accept = await guest.send('POST', '/dashboard/api/invitations/accept', { token, password: PASSWORD });
      expect(accept.status).toBe(200);
      expect(accept.body).toMatchObject({ user: { id: existing.body.id, email: 'elsewhere@example.com', role: 'member' }, org: { id: orgId } });
      expect((accept.body.organizations as { id: string }[]).map((o) => o.id).sort()).toEqual([orgId, otherOrg].sort());
      const after = await owner.send('GET', '/dashboard/api/members');
      expect((after.body.data as { id: string }[]).filter((m) => m.id === existing.body.id)).toHaveLength(1);
      expect((await t.service.store.people.users.get(existing.body.id as string))?.memberships.map((m) => m.orgId)).toEqual([otherOrg, orgId]);
    });

    it('voids an invitation whose sender was removed since (no way back in through a link left open)', async () => {
      const sender = await user('leaving.admin@example.com', 'admin');
      const admin = client();
      expect((await admin.signIn('leaving.admin@example.com', PASSWORD)).status).toBe(200);
      const invited = await admin.send('POST', '/dashboard/api/invitations', { email: 'second.self@example.com', role: 'admin' });
      expect(invited.status).toBe(201);
      const token = /#([A-Za-z0-9_-]+)$/.exec(invited.body.link as string)![1]!;
      expect((await t.admin('DELETE', `/admin/users/${sender}`)).body).toEqual({ id: sender, removed: true });
      const guest = client();
      await guest.start();
      expect((await guest.send('POST', '/dashboard/api/invitations/lookup', { token })).body.error).toBe('invitation_invalid');
      expect((await guest.send('POST', '/dashboard/api/invitations/accept', { token, password: PASSWORD })).body.error).toBe('invitation_invalid');
    });

    it('keeps an invitation void once its sender was demoted, even after a promotion', async () => {
      const sender = await user('demoted.admin@example.com', 'admin');
      const admin = client();
      expect((await admin.signIn('demoted.admin@example.com', PASSWORD)).status).toBe(200);
      const invited = await admin.send('POST', '/dashboard/api/invitations', { email: 'comeback@example.com', role: 'admin' });
      const token = /#([A-Za-z0-9_-]+)$/.exec(invited.body.link as string)![1]!;
      const owner = client();
      expect((await owner.signIn('owner@example.com', PASSWORD)).status).toBe(200);
      expect((await owner.send('PATCH', `/dashboard/api/members/${sender}`, { role: 'member' })).status).toBe(200);
      expect((await owner.send('PATCH', `/dashboard/api/members/${sender}`, { role: 'admin' })).status).toBe(200);
      const guest = client();
      await guest.start();
      expect((await guest.send('POST', '/dashboard/api/invitations/lookup', { token })).body.error).toBe('invitation_invalid');
      expect((await guest.send('POST', '/dashboard/api/invitations/accept', { token, password: PASSWORD })).body.error).toBe('invitation_invalid');
      const listed = (await owner.send('GET', '/dashboard/api/members')).body.invitations as { email: string }[];
      expect(listed.some((i) => i.email === 'comeback@example.com')).toBe(false);
    });

    it('revokes an open invitation for good (Owner, Admin; an Owner invitation only by an Owner), audited', async () => {
      await user('revoking.admin@example.com', 'admin');
      await user('revoking.member@example.com', 'member');
      const owner = client();
      expect((await owner.signIn('owner@example.com', PASSWORD)).status).toBe(200);
      const invited = await owner.send('POST', '/dashboard/api/invitations', { email: 'revoked.person@example.com', role: 'member' });
      const boss = await owner.send('POST', '/dashboard/api/invitations', { email: 'revoked.boss@example.com', role: 'owner' });
      const token = /#([A-Za-z0-9_-]+)$/.exec(invited.body.link as string)![1]!;
      const listed = (await owner.send('GET', '/dashboard/api/members')).body.invitations as { id: string; email: string }[];
      const id = listed.find((i) => i.email === 'revoked.person@example.com')!.id;
      const bossId = listed.find((i) => i.email === 'revoked.boss@example.com')!.id;
      expect(boss.status).toBe(201);

      const member = client();
      expect((await member.signIn('revoking.member@example.com', PASSWORD)).status).toBe(200);
      expect((await member.send('DELETE', `/dashboard/api/invitations/${id}`)).status).toBe(403);
      const admin = client();
      expect((await admin.signIn('revoking.admin@example.com', PASSWORD)).status).toBe(200);
      expect((await admin.send('DELETE', `/dashboard/api/invitations/${bossId}`)).body.error).toBe('forbidden_role');
      expect((await admin.send('DELETE', `/dashboard/api/invitations/${id}`, undefined, { origin: 'https://evil.example' })).body.error).toBe('csrf_failed');
      expect((await admin.send('DELETE', `/dashboard/api/invitations/${id}`)).status).toBe(204);
      expect((await admin.send('DELETE', `/dashboard/api/invitations/${id}`)).status).toBe(404);
      expect((await owner.send('DELETE', `/dashboard/api/invitations/${bossId}`)).status).toBe(204);

      const guest = client();
      await guest.start();
      expect((await guest.send('POST', '/dashboard/api/invitations/accept', { token, password: PASSWORD })).body.error).toBe('invitation_invalid');
      const after = (await owner.send('GET', '/dashboard/api/members')).body.invitations as { email: string }[];
      expect(after.some((i) => i.email.startsWith('revoked.'))).toBe(false);
      const audit = (await owner.send('GET', '/dashboard/api/audit')).body.data as { action: string; actor: { email: string }; target: { label: string } }[];
      expect(audit.filter((r) => r.action === 'member.invitation_revoked').map((r) => [r.actor.email, r.target.label])).toEqual([
        ['owner@example.com', 'revoked.boss@example.com'],
        ['revoking.admin@example.com', 'revoked.person@example.com'],
      ]);
    });

    it('refuses state changes without our Origin or without the CSRF token, and ignores Bearer keys', async () => {
      const c = client();
      expect((await c.signIn('owner@example.com', PASSWORD)).status).toBe(200);
      const foreign = await c.send('POST', '/dashboard/api/keys', { name: 'x' }, { origin: 'https://evil.example' });
      const noToken = await c.send('POST', '/dashboard/api/keys', { name: 'x' }, { 'x-csrf-token': '' });
      const staleToken = await c.send('POST', '/dashboard/api/keys', { name: 'x' }, { 'x-csrf-token': 'A'.repeat(43) });
      expect([foreign, noToken, staleToken].map((r) => [r.status, r.body.error])).toEqual([
        [403, 'csrf_failed'],
        [403, 'csrf_failed'],
        [403, 'csrf_failed'],
      ]);
      const { key } = await t.org('growth');
      expect((await client().send('GET', '/dashboard/api/keys', undefined, { authorization: `Bearer ${key}` })).status).toBe(401);
      const page = await c.send('GET', '/dashboard/api/openapi.json');
      expect(page.status).toBe(200);
    });
  });
}

describe('session expiry (embedded store)', () => {
  let t: TestService;
  let agent: Agent;
  beforeAll(async () => {
    t = await startTestService({ redis: false });
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: false, servername: 'localhost' });
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
  });

  it('ends a session after 12 hours idle or 7 days after sign-in, whatever the activity', async () => {
    const { orgId } = await t.org('growth');
    const created = await t.admin('POST', '/admin/users', { orgId, email: 'idle@example.com', role: 'owner' });
    expect(typeof created.body.password).toBe('string');
    const userId = created.body.id as string;
    const now = Date.now();
    const sessions = t.service.store.people.sessions;
    const make = async (token: string, createdAt: number, lastSeenAt: number) =>
      sessions.create({
        id: sha256(token),
        userId,
        orgId,
        csrfToken: 'x'.repeat(43),
        createdAt: new Date(createdAt).toISOString(),
        lastSeenAt: new Date(lastSeenAt).toISOString(),
        expiresAt: new Date(createdAt + 7 * 86_400_000).toISOString(),
      });
    const fresh = 'f'.repeat(43);
    const idle = 'i'.repeat(43);
    const old = 'o'.repeat(43);
    await make(fresh, now - 11 * 3600_000, now - 11 * 3600_000);
    await make(idle, now - 13 * 3600_000, now - 12 * 3600_000 - 1000);
    await make(old, now - 7 * 86_400_000 - 1000, now - 60_000);
    const status = async (token: string) => {
      const c = new Client(t, agent);
      c.cookies.set('rp_session', token);
      return (await c.send('GET', '/dashboard/api/members')).status;
    };
    expect(await status(fresh)).toBe(200);
    expect(await status(idle)).toBe(401);
    expect(await status(old)).toBe(401);
    // The refused ones are gone for good; the used one was touched.
    expect(await sessions.get(sha256(idle))).toBeNull();
    expect(Date.parse((await sessions.get(sha256(fresh)))!.lastSeenAt)).toBeGreaterThan(now - 5000);
  });
});
