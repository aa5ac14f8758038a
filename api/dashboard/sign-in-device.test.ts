/**
 * The sign-in limits over HTTP (issue 25 item 5), clients told apart by a
 * trusted proxy's X-Forwarded-For: failures from one /24 lock the email out
 * there only, and the device cookie a browser got at an earlier sign-in lets
 * it through the per-email limit; a forged one or another email's does not.
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';

describe('sign-in limits per network, and the device cookie', () => {
  let t: TestService;
  let agent: Agent;

  beforeAll(async () => {
    t = await startTestService({ env: { TRUST_PROXY: '127.0.0.1' }, redis: false });
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
    const { orgId } = await t.org('starter');
    for (const email of ['owner@device.example', 'other@device.example']) {
      expect((await t.admin('POST', '/admin/users', { orgId, email, role: 'owner', password: PASSWORD })).status).toBe(201);
    }
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
  });

  const signIn = (c: Client, address: string, email: string, password: string) =>
    c.send('POST', '/dashboard/api/sign-in', { email, password }, { 'x-forwarded-for': address });

  it('locks the email out of the attacking /24 only; a known browser and another network still sign in', async () => {
    // The owner's browser signed in before (from 198.51.100.7) and kept its device cookie.
    const known = new Client(t, agent);
    await known.start();
    expect((await signIn(known, '198.51.100.7', 'owner@device.example', PASSWORD)).status).toBe(200);
    const device = known.cookies.get('rp_device')!;
    expect(device).toMatch(/^[A-Za-z0-9_-]{65}$/);

    // Ten wrong guesses from ten addresses of one /24.
    const attacker = new Client(t, agent);
    await attacker.start();
    for (let i = 1; i <= 10; i++) expect((await signIn(attacker, `203.0.113.${i}`, 'owner@device.example', 'wrong guess')).status).toBe(401);
    const locked = await signIn(attacker, '203.0.113.50', 'owner@device.example', PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);

    // Another /24, right password, no cookie: signed in.
    const elsewhere = new Client(t, agent);
    await elsewhere.start();
    expect((await signIn(elsewhere, '192.0.2.20', 'owner@device.example', PASSWORD)).status).toBe(200);

    // From inside the locked /24 (the person is on the same network): the device cookie lets them through.
    const atWork = new Client(t, agent);
    atWork.cookies.set('rp_device', device);
    await atWork.start();
    expect((await signIn(atWork, '203.0.113.60', 'owner@device.example', PASSWORD)).status).toBe(200);

    // A forged cookie, or one issued for another email, does not.
    const other = new Client(t, agent);
    await other.start();
    expect((await signIn(other, '192.0.2.30', 'other@device.example', PASSWORD)).status).toBe(200);
    const forged = device.slice(0, 22) + 'A'.repeat(43);
    for (const cookie of [forged, other.cookies.get('rp_device')!]) {
      const c = new Client(t, agent);
      c.cookies.set('rp_device', cookie);
      await c.start();
      expect((await signIn(c, '203.0.113.61', 'owner@device.example', PASSWORD)).status).toBe(429);
    }
  });
});
