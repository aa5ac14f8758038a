/**
 * One organization's DNS never holds another's (CONTRACT §12, "Limits per
 * organization"; issue 34, item 1): the running service resolves endpoint and
 * delivery names with its own resolver (c-ares, 5 s, at most 4 lookups in
 * flight per organization), here pointed at a local DNS server that never
 * answers some names. Organization A floods it with endpoint creations and
 * deliveries whose names never answer; meanwhile organization B creates an
 * endpoint and gets a delivery, and A gets the clear "cannot be resolved".
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { startDnsServer, type TestDnsServer } from '../net/testing/dns-server.ts';
import { startReceiver, testCert, type Receiver } from './test-receiver.ts';

let t: TestService;
let dns: TestDnsServer;
let receiver: Receiver;
let caDir: string;
const savedExtra = process.env.NODE_EXTRA_CA_CERTS;

beforeAll(async () => {
  const cert = await testCert();
  receiver = await startReceiver(cert);
  caDir = mkdtempSync(join(tmpdir(), 'dns-isolation-'));
  writeFileSync(join(caDir, 'receiver.pem'), cert.cert);
  process.env.NODE_EXTRA_CA_CERTS = join(caDir, 'receiver.pem');
  dns = await startDnsServer({ 'never.test': 'silent', 'receiver.test': ['127.0.0.1'], 'flaky.test': ['127.0.0.1'] });
  t = await startTestService({ redis: false, env: { WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '100' }, dnsServers: [dns.server] });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await dns?.close();
  if (savedExtra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = savedExtra;
  rmSync(caDir, { recursive: true, force: true });
});

const asked = (name: string, from = 0): number => dns.questions.slice(from).filter((q) => q.name === name && q.type === 'A').length;

describe('DNS per organization', () => {
  it("an organization's names that never answer hold no other organization's endpoint check or delivery", { timeout: 60_000 }, async () => {
    const a = await t.org();
    const b = await t.org();
    // The delivery thread is started and warm (an IP-literal endpoint: no lookup), so that B's part below is a lookup and an exchange only.
    const warm = await t.admin('POST', '/admin/webhooks', { orgId: b.orgId, url: receiver.url() });
    expect(warm.status).toBe(201);
    expect((await t.admin('POST', `/admin/webhooks/${warm.body.id as string}/test`)).body).toMatchObject({ status: 'delivered', statusCode: 200 });
    // A's endpoint resolves at creation, then its name stops answering.
    const flaky = await t.admin('POST', '/admin/webhooks', { orgId: a.orgId, url: receiver.url('flaky.test') });
    expect(flaky.status).toBe(201);
    dns.set('flaky.test', 'silent');
    const mark = dns.questions.length;

    const order: string[] = [];
    const settled = <T>(what: string, p: Promise<T>): Promise<T> => p.finally(() => order.push(what));
    // A: six endpoint creations and four deliveries whose names never answer (4 lookups in flight each side, the rest waiting).
    const creations = Array.from({ length: 6 }, (_, i) => settled('a', t.admin('POST', '/admin/webhooks', { orgId: a.orgId, url: `https://never.test/hook/${i}` })));
    const tests = Array.from({ length: 4 }, () => settled('a', t.admin('POST', `/admin/webhooks/${flaky.body.id as string}/test`)));
    await vi.waitFor(
      () => {
        expect(asked('never.test', mark)).toBeGreaterThanOrEqual(4);
        expect(asked('flaky.test', mark)).toBeGreaterThanOrEqual(4);
      },
      { timeout: 10_000 },
    );

    // B meanwhile: an endpoint whose name must be resolved, checked at creation and delivered to over a new connection.
    const created = await t.admin('POST', '/admin/webhooks', { orgId: b.orgId, url: receiver.url('receiver.test') });
    expect(created.status).toBe(201);
    const before = receiver.received.length;
    const delivered = await t.admin('POST', `/admin/webhooks/${created.body.id as string}/test`);
    expect(delivered.body).toMatchObject({ status: 'delivered', statusCode: 200 });
    expect(receiver.received.length).toBe(before + 1);
    order.push('b');

    // A: the clear answer once its lookups' 5 s are up.
    for (const res of await Promise.all(creations)) {
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('the host never.test cannot be resolved (ETIMEOUT: no answer from DNS within 5 s)');
    }
    for (const res of await Promise.all(tests)) expect(res.body).toMatchObject({ status: 'pending', statusCode: null });
    const log = await t.admin('GET', `/admin/webhooks/${flaky.body.id as string}/deliveries`);
    const errors = (log.body.data as { lastError: string | null }[]).map((d) => d.lastError);
    expect(errors).toEqual(Array.from({ length: 4 }, () => 'host not found (ETIMEOUT: no answer from DNS within 5 s)'));
    // B was done while every one of A's was still waiting for DNS.
    expect(order[0]).toBe('b');
  });
});
