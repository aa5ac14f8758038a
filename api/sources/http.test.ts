/**
 * The platforms' HTTP client resolves names with the per-organization resolver
 * (api/net/host-resolver.ts; CONTRACT §12 "Limits per organization", issue 34
 * item 1): one organization's platform names that never answer hold no other
 * organization's sync or Google exchange. A local DNS server answers
 * `receiver.test` with a loopback HTTPS server and never answers `never.test`.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHostResolver } from '../net/host-resolver.ts';
import { startDnsServer, type TestDnsServer } from '../net/testing/dns-server.ts';
import { startReceiver, testCert, type Receiver, type TestCert } from '../webhooks/test-receiver.ts';
import { HttpClient } from './http.ts';

let dns: TestDnsServer;
let cert: TestCert;
let platform: Receiver;
let http: HttpClient;

beforeAll(async () => {
  dns = await startDnsServer({ 'never.test': 'silent', 'receiver.test': ['127.0.0.1'] });
  cert = await testCert();
  platform = await startReceiver(cert);
  http = new HttpClient({ extraCa: [cert.cert], resolve: createHostResolver({ servers: [dns.server] }) });
});

afterAll(async () => {
  http.close();
  await platform.close();
  await dns.close();
});

describe('HttpClient name resolution', () => {
  it("an organization's platform names that never answer hold no other organization's calls", { timeout: 30_000 }, async () => {
    const order: string[] = [];
    // Org A: six calls whose host never answers (four lookups in flight, two waiting).
    const stuck = Array.from({ length: 6 }, (_, i) =>
      http
        .fork('org_a')
        .call(`https://never.test:${platform.port}/v1/reviews?page=${i}`)
        .then(
          () => null,
          (err: Error) => err,
        )
        .finally(() => order.push('a')),
    );
    await vi.waitFor(() => expect(dns.questions.filter((q) => q.name === 'never.test' && q.type === 'A').length).toBeGreaterThanOrEqual(4), { timeout: 10_000 });

    const answer = await http.fork('org_b').call(platform.url('receiver.test'), { method: 'POST', body: '{}' });
    expect(answer.status).toBe(200);
    expect(platform.received).toHaveLength(1);
    order.push('b');

    const errors = await Promise.all(stuck);
    for (const err of errors) expect(err?.message).toBe(`could not reach never.test:${platform.port} (ETIMEOUT)`);
    // B was answered while every one of A's calls was still waiting for DNS.
    expect(order[0]).toBe('b');
  });
});
