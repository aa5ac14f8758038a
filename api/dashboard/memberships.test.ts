/**
 * One person, several organizations (CONTRACT §6): a session is in one
 * organization at a time and everything it sees is that one's; switching is a
 * CSRF-checked POST that needs a membership; removal from one organization
 * ends access to it at once while the others keep working; an account left
 * with no membership is deleted and cannot sign in.
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';

for (const redis of [false, true]) {
  describe(`memberships in several organizations (sessions in ${redis ? 'Redis' : 'the embedded store'})`, () => {
    let t: TestService;
    let agent: Agent;
    const client = () => new Client(t, agent);

    beforeAll(async () => {
      t = await startTestService({ redis });
      agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
    });
    afterAll(async () => {
      agent?.destroy();
      await t?.close();
    });

    async function user(orgId: string, email: string, role: string, password?: string) {
      const res = await t.admin('POST', '/admin/users', { orgId, email, role, ...(password ? { password } : { existingAccount: true }) });
      expect(res.status).toBe(201);
      return res.body as { id: string; memberships: { orgId: string; role: string }[] };
    }

    it('switches the session between the organizations of one account, each seeing its own data only', async () => {
      const a = await t.org('growth');
      const b = await t.org('growth');
      await user(a.orgId, `owner-a${redis}@example.com`, 'owner', PASSWORD);
      await user(b.orgId, `owner-b${redis}@example.com`, 'owner', PASSWORD);
      const person = await user(a.orgId, `both${redis}@example.com`, 'member', PASSWORD);
      expect((await user(b.orgId, `BOTH${redis}@example.com`, 'admin')).id).toBe(person.id);
      // A widget in A only.
      expect((await t.admin('POST', '/admin/widgets', { orgId: a.orgId, name: 'Only in A' })).status).toBe(201);

      const c = client();
      const signedIn = await c.signIn(`both${redis}@example.com`, PASSWORD);
      expect(signedIn.body).toMatchObject({ user: { id: person.id, role: 'member' }, org: { id: a.orgId } });
      expect(signedIn.body.organizations).toEqual([
        { id: a.orgId, name: expect.any(String), role: 'member' },
        { id: b.orgId, name: expect.any(String), role: 'admin' },
      ]);
      expect(((await c.send('GET', '/dashboard/api/widgets')).body.data as { name: string }[]).map((w) => w.name)).toContain('Only in A');
      // A Member in A: the keys are not theirs to see.
      expect((await c.send('GET', '/dashboard/api/keys')).status).toBe(403);

      const oldCookie = c.cookies.get('rp_session')!;
      const oldCsrf = c.csrf;
      // No CSRF token, no switch.
      c.csrf = 'x'.repeat(43);
      expect((await c.send('POST', '/dashboard/api/session/organization', { orgId: b.orgId })).status).toBe(403);
      c.csrf = oldCsrf;
      const switched = await c.send('POST', '/dashboard/api/session/organization', { orgId: b.orgId });
      expect(switched.status).toBe(200);
      expect(switched.body).toMatchObject({ user: { id: person.id, role: 'admin' }, org: { id: b.orgId } });
      c.csrf = switched.body.csrfToken as string;
      // A new session: the old cookie is over.
      expect(c.cookies.get('rp_session')).not.toBe(oldCookie);
      const stale = new Client(t, agent);
      stale.cookies.set('rp_session', oldCookie);
      expect((await stale.send('GET', '/dashboard/api/members')).status).toBe(401);
      // B's data, with B's role: no widget of A, the keys of B (Admin there).
      expect(((await c.send('GET', '/dashboard/api/widgets')).body.data as { name: string }[]).map((w) => w.name)).not.toContain('Only in A');
      const keys = await c.send('GET', '/dashboard/api/keys');
      expect(keys.status).toBe(200);
      expect((keys.body.data as { id: string }[]).map((k) => k.id)).toEqual([b.keyId]);
      expect(((await c.send('GET', '/dashboard/api/members')).body.data as { email: string }[]).map((m) => m.email).sort()).toEqual([`BOTH${redis}@example.com`.replace('BOTH', 'both'), `owner-b${redis}@example.com`].sort());

      // Not a member of C (or an id that is nobody's): 404, the session stays where it is.
      const c3 = await t.org('growth');
      for (const orgId of [c3.orgId, 'org_nope', 'x'.repeat(64)]) {
        const refused = await c.send('POST', '/dashboard/api/session/organization', { orgId });
        expect([refused.status, refused.body.error]).toEqual([404, 'not_found']);
      }
      expect((await c.send('POST', '/dashboard/api/session/organization', { orgId: 'x'.repeat(65) })).status).toBe(400);
      expect((await c.send('POST', '/dashboard/api/session/organization', { orgId: 5 })).status).toBe(400);
      expect((await c.send('GET', '/dashboard/api/session')).body).toMatchObject({ org: { id: b.orgId } });
    });

    it('removal from one organization ends the sessions there for good: added back before the next request, the old session stays ended', async () => {
      const a = await t.org('growth');
      const b = await t.org('growth');
      await user(a.orgId, `stays-a${redis}@example.com`, 'owner', PASSWORD);
      const email = `readded${redis}@example.com`;
      const person = await user(a.orgId, email, 'member', PASSWORD);
      await user(b.orgId, email, 'member');

      const inA = client();
      await inA.signIn(email, PASSWORD);
      const inB = client();
      await inB.signIn(email, PASSWORD);
      const moved = await inB.send('POST', '/dashboard/api/session/organization', { orgId: b.orgId });
      inB.csrf = moved.body.csrfToken as string;
      expect((await inB.send('GET', '/dashboard/api/members')).status).toBe(200);

      // Removed from B and added back at once, with no request of theirs in between.
      expect((await t.admin('DELETE', `/admin/users/${person.id}?orgId=${b.orgId}`)).status).toBe(200);
      expect((await user(b.orgId, email, 'member')).id).toBe(person.id);
      expect((await inB.send('GET', '/dashboard/api/members')).status).toBe(401);
      // Their session in A was never touched.
      expect((await inA.send('GET', '/dashboard/api/members')).status).toBe(200);
    });

    it('removal from one organization ends access to it at once; the other membership keeps working; with none left the account is gone', async () => {
      const a = await t.org('growth');
      const b = await t.org('growth');
      await user(a.orgId, `boss-a${redis}@example.com`, 'owner', PASSWORD);
      await user(b.orgId, `boss-b${redis}@example.com`, 'owner', PASSWORD);
      const email = `leaving${redis}@example.com`;
      const person = await user(a.orgId, email, 'admin', PASSWORD);
      await user(b.orgId, email, 'member');

      const inA = client();
      expect((await inA.signIn(email, PASSWORD)).body).toMatchObject({ org: { id: a.orgId } });
      const inB = client();
      await inB.signIn(email, PASSWORD);
      const moved = await inB.send('POST', '/dashboard/api/session/organization', { orgId: b.orgId });
      inB.csrf = moved.body.csrfToken as string;

      const bossB = client();
      await bossB.signIn(`boss-b${redis}@example.com`, PASSWORD);
      expect((await bossB.send('DELETE', `/dashboard/api/members/${person.id}`)).status).toBe(204);
      // B is over for that person at once; A goes on, and switching back to B is refused.
      expect((await inB.send('GET', '/dashboard/api/members')).status).toBe(401);
      expect((await inA.send('GET', '/dashboard/api/members')).status).toBe(200);
      expect((await inA.send('POST', '/dashboard/api/session/organization', { orgId: b.orgId })).status).toBe(404);
      expect((await inA.send('GET', '/dashboard/api/session')).body.organizations).toEqual([{ id: a.orgId, name: expect.any(String), role: 'admin' }]);
      // Another organization's Owner cannot remove them from A (they are not a member of B now): 404.
      expect((await bossB.send('DELETE', `/dashboard/api/members/${person.id}`)).status).toBe(404);
      const again = client();
      expect((await again.signIn(email, PASSWORD)).body).toMatchObject({ org: { id: a.orgId } });

      // Removed from A too: no membership left, the account is deleted; signing in answers as for an unknown email.
      const bossA = client();
      await bossA.signIn(`boss-a${redis}@example.com`, PASSWORD);
      expect((await bossA.send('DELETE', `/dashboard/api/members/${person.id}`)).status).toBe(204);
      expect((await inA.send('GET', '/dashboard/api/members')).status).toBe(401);
      expect(await t.service.store.people.users.get(person.id)).toBeNull();
      const gone = await client().signIn(email, PASSWORD);
      expect([gone.status, gone.body.error]).toEqual([401, 'invalid_credentials']);
    });
  });
}
