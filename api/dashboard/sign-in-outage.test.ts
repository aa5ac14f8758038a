/**
 * Sign-in while the session store (Redis) is away (issue 25 item 8): every
 * attempt is the same 503, a right password told from a wrong one by
 * nothing, and no attempt is counted in the process's fallback (an outage
 * gives no fresh guesses).
 */
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';

/** A loopback port with nothing listening on it (bound, then released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('sign-in while sessions cannot be stored', () => {
  let t: TestService;
  let agent: Agent;

  beforeAll(async () => {
    t = await startTestService({ env: { REDIS_URL: `redis://127.0.0.1:${await deadPort()}` } });
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
    const { orgId } = await t.org('starter');
    expect((await t.admin('POST', '/admin/users', { orgId, email: 'owner@outage.example', role: 'owner', password: PASSWORD })).status).toBe(201);
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
  });

  it('answers a right and a wrong password the same 503, however many attempts', async () => {
    const c = new Client(t, agent);
    await c.start();
    const right = await c.send('POST', '/dashboard/api/sign-in', { email: 'owner@outage.example', password: PASSWORD });
    expect([right.status, right.body.error]).toEqual([503, 'service_unavailable']);
    // Twelve wrong guesses: never a 401 (which would say "wrong" apart from "right"), never a 429 (nothing counted).
    for (let i = 0; i < 12; i++) {
      const wrong = await c.send('POST', '/dashboard/api/sign-in', { email: 'owner@outage.example', password: `wrong guess ${i}` });
      expect([wrong.status, wrong.body]).toEqual([503, right.body]);
    }
  });
});

describe('sign-in security events', () => {
  let t: TestService;
  let agent: Agent;
  let orgId: string;
  beforeAll(async () => {
    t = await startTestService({ redis: false });
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
    orgId = (await t.org('starter')).orgId;
    expect((await t.admin('POST', '/admin/users', { orgId, email: 'owner@events.example', role: 'owner', password: PASSWORD })).status).toBe(201);
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
  });

  it('records a sign-in and the failure that locks an email out in the audit log the Owner reads', async () => {
    const owner = new Client(t, agent);
    expect((await owner.signIn('owner@events.example', PASSWORD)).status).toBe(200);
    const guesser = new Client(t, agent);
    for (let i = 0; i < 10; i++) expect((await guesser.signIn('owner@events.example', `guess ${i}`)).status).toBe(401);
    expect((await guesser.signIn('owner@events.example', 'guess 11')).status).toBe(429);
    type Row = { action: string; actor: { email: string }; target: { label: string } };
    // The lock-out's record is written after its answer went out: it shows once written.
    let events: Row[] = [];
    while (events.length < 2) {
      const log = (await owner.send('GET', '/dashboard/api/audit')).body.data as Row[];
      events = log.filter((r) => r.action.startsWith('security.'));
    }
    expect(events.map((r) => [r.action, r.target.label])).toEqual([
      ['security.locked_out', 'owner@events.example'],
      ['security.signed_in', 'owner@events.example'],
    ]);
    expect(events[0]!.actor.email).toMatch(/^sign-in from /);
  });

});

describe('the lock-out record, off the response path', () => {
  // A service of its own: the failures above count against this client's address.
  let t: TestService;
  let agent: Agent;
  let orgId: string;
  beforeAll(async () => {
    t = await startTestService({ redis: false });
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
    orgId = (await t.org('starter')).orgId;
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
  });

  it('answers the failure that locks a known email out before its audit record is written (no fsync to time), and still writes it', { timeout: 30_000 }, async () => {
    expect((await t.admin('POST', '/admin/users', { orgId, email: 'held@events.example', role: 'member', password: PASSWORD })).status).toBe(201);
    const audit = t.service.store.people.audit;
    const append = audit.append.bind(audit);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // The lock-out's record waits until the test has its answer (were it awaited before answering, the 10th sign-in would never answer).
    audit.append = async (record) => {
      if (record.action === 'security.locked_out') await gate;
      return append(record);
    };
    try {
      const guesser = new Client(t, agent);
      for (let i = 0; i < 10; i++) expect((await guesser.signIn('held@events.example', `guess ${i}`)).status).toBe(401);
      expect((await t.service.store.people.audit.listByOrg(orgId, 100)).some((r) => r.action === 'security.locked_out' && r.target.label === 'held@events.example')).toBe(false);
      open();
      while (!(await t.service.store.people.audit.listByOrg(orgId, 100)).some((r) => r.action === 'security.locked_out' && r.target.label === 'held@events.example')) await new Promise((r) => setTimeout(r, 20));
    } finally {
      open();
      audit.append = append;
    }
  });
});
