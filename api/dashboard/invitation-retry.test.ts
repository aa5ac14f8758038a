/**
 * An invitation is never spent for nothing: when the invited email gets an
 * account between the acceptance's check and its creation of one (someone
 * accepting another organization's invitation for it at the same moment), the
 * answer is 409 and the invitation is open again; the retry asks for that
 * account's password like any acceptance for an email that has one.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from './password.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { newId } from '../store/ids.ts';
import { normalizeEmail, type PeopleStore } from '../store/people-types.ts';
import type { Store } from '../store/types.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';
const THEIRS = 'the password the account was made with';

describe('an invitation accepted while its email gets an account', () => {
  let t: TestService;
  let agent: Agent;
  let real: EmbeddedStore;
  let dir: string;
  /** Called once, right after the next consume succeeds. */
  let afterConsume: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'invitation-retry-'));
    real = await EmbeddedStore.open(dir);
    const people: PeopleStore = {
      users: real.people.users,
      sessions: real.people.sessions,
      audit: real.people.audit,
      invitations: {
        ...real.people.invitations,
        consume: async (id, at) => {
          const consumed = await real.people.invitations.consume(id, at);
          const hook = afterConsume;
          afterConsume = null;
          if (consumed && hook) await hook();
          return consumed;
        },
      },
    };
    const store = Object.create(real, { people: { value: people } }) as Store;
    t = await startTestService({ store, redis: false });
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
    await real?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 409 and gives the invitation back; the retry with the account password joins', async () => {
    const org = await t.org('growth');
    expect((await t.admin('POST', '/admin/users', { orgId: org.orgId, email: 'boss@example.com', role: 'owner', password: PASSWORD })).status).toBe(201);
    const owner = new Client(t, agent);
    expect((await owner.signIn('boss@example.com', PASSWORD)).status).toBe(200);
    const invited = await owner.send('POST', '/dashboard/api/invitations', { email: 'late@example.com', role: 'member' });
    expect(invited.status).toBe(201);
    const token = /#([A-Za-z0-9_-]+)$/.exec(invited.body.link as string)![1]!;

    // Between the acceptance's look-up of the email and its creation of the account, the email gets one elsewhere.
    const elsewhere = newId('org');
    const existingId = newId('usr');
    afterConsume = async () => {
      await real.people.users.create({
        id: existingId,
        orgId: elsewhere,
        email: 'late@example.com',
        emailKey: normalizeEmail('late@example.com'),
        passwordHash: await hashPassword(THEIRS),
        role: 'member',
        createdAt: new Date().toISOString(),
        lastSignInAt: null,
      });
    };
    const guest = new Client(t, agent);
    await guest.start();
    const raced = await guest.send('POST', '/dashboard/api/invitations/accept', { token, password: PASSWORD });
    expect([raced.status, raced.body.error]).toEqual([409, 'conflict']);
    expect(afterConsume).toBeNull();
    // Not spent: still open, and the retry is an acceptance for an email that has an account.
    expect((await guest.send('POST', '/dashboard/api/invitations/lookup', { token })).status).toBe(200);
    expect((await guest.send('POST', '/dashboard/api/invitations/accept', { token, password: PASSWORD })).status).toBe(401);
    const joined = await guest.send('POST', '/dashboard/api/invitations/accept', { token, password: THEIRS });
    expect(joined.status).toBe(200);
    expect(joined.body).toMatchObject({ user: { id: existingId, role: 'member' }, org: { id: org.orgId } });
    expect((await real.people.users.get(existingId))?.memberships.map((m) => m.orgId).sort()).toEqual([elsewhere, org.orgId].sort());
    // And now spent, once.
    const again = new Client(t, agent);
    await again.start();
    expect((await again.send('POST', '/dashboard/api/invitations/accept', { token, password: THEIRS })).body.error).toBe('invitation_invalid');
  });
});
