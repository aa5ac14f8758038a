/**
 * The delivery client against real HTTPS receivers on loopback. Every delivery
 * a receiver gets is verified with the `standardwebhooks` package, the library
 * receivers use. Loopback is a private network, so each test that expects a
 * delivery lets it in through the allow-list (WEBHOOK_ALLOW_NETWORKS).
 */
import type { LookupAddress } from 'node:dns';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createDeliveryClient, MAX_RESPONSE_BYTES, type DeliveryClient, type DeliveryClientOptions } from './deliver.ts';
import { attemptDelivery } from './attempt.ts';
import { eventBody, newMessageId, reviewEvent } from './events.ts';
import { parseAllowNetworks } from './networks.ts';
import { messageAfterAttempt } from './retry-schedule.ts';
import { endpointAfterAttempt, type EndpointHealth } from './endpoint-health.ts';
import { generateSecret, rotateSecrets, type EndpointSecret } from './secrets.ts';
import { signedHeaders } from './signature.ts';
import { checkEndpointUrl } from './url-check.ts';
import { createHostResolver } from '../net/host-resolver.ts';
import { flatHeaders, startReceiver, testCert, type Receiver, type TestCert } from './test-receiver.ts';
import { reviewFixture } from './fixtures.ts';

const LOOPBACK = parseAllowNetworks('127.0.0.0/8, ::1/128');

const review = reviewFixture();

let cert: TestCert;
const receivers: Receiver[] = [];
const clients: DeliveryClient[] = [];

beforeAll(async () => {
  cert = await testCert();
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(...args: Parameters<typeof startReceiver> extends [TestCert, ...infer Rest] ? Rest : never): Promise<Receiver> {
  const r = await startReceiver(cert, ...args);
  receivers.push(r);
  return r;
}

function client(options: Partial<DeliveryClientOptions> = {}): DeliveryClient {
  const c = createDeliveryClient({ allow: LOOPBACK, ca: cert.cert, ...options });
  clients.push(c);
  return c;
}

/** A DNS stand-in: each name answers from the table (a function may change its answer per call). */
function stubResolver(table: Record<string, string | (() => string)>): { resolve: (host: string) => Promise<LookupAddress[]>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (host) => {
      calls.push(host);
      const entry = table[host];
      if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      const address = typeof entry === 'function' ? entry() : entry;
      return [{ address, family: address.includes(':') ? 6 : 4 }];
    },
  };
}

function message(): { id: string; body: string } {
  return { id: newMessageId(), body: eventBody(reviewEvent('review.created', review, new Date())) };
}

function current(secret: string): EndpointSecret[] {
  return [{ secret, createdAt: new Date(), expiresAt: null }];
}

describe('signed delivery to a real HTTPS receiver', () => {
  it('POSTs JSON that the standardwebhooks package verifies, with the event body byte for byte', async () => {
    const r = await receiver();
    const secret = generateSecret();
    const msg = message();
    const result = await attemptDelivery(client(), { url: r.url(), orgId: 'org_a', secrets: current(secret) }, msg, new Date());
    expect(result).toMatchObject({ delivered: true, statusCode: 200, error: null, excerpt: 'ok' });
    expect(r.received).toHaveLength(1);
    const got = r.received[0]!;
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toBe(msg.id);
    expect(got.body).toBe(msg.body);
    const verified = new Webhook(secret).verify(got.body, flatHeaders(got.headers)) as { type: string; data: { content: string; authorName: string } };
    expect(verified.type).toBe('review.created');
    expect(verified.data.content).toBe(review.content);
    expect(verified.data.authorName).toBe(review.authorName);
    // A different secret does not verify it.
    expect(() => new Webhook(generateSecret()).verify(got.body, flatHeaders(got.headers))).toThrow(/No matching signature/);
  });

  it('keeps the webhook-id across retries, re-signs each attempt, and walks the retry schedule to delivered', async () => {
    let answers = [500, 503, 200];
    const r = await receiver((_req, res) => {
      const status = answers[0]!;
      answers = answers.slice(1);
      res.writeHead(status, status === 503 ? { 'retry-after': '120' } : {}).end(status === 200 ? 'thanks' : 'try later');
    });
    const secret = generateSecret();
    const c = client();
    const msg = message();
    const endpoint = { url: r.url(), orgId: 'org_a', secrets: current(secret) };
    let health: EndpointHealth = { state: 'enabled', disabledReason: null, lastDeliveryAt: null, failingSince: null };
    const outcomes = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const now = new Date();
      const result = await attemptDelivery(c, endpoint, msg, now);
      outcomes.push({ result, outcome: messageAfterAttempt(result, attempt, now, () => 0.5) });
      health = endpointAfterAttempt(health, result, now);
    }
    expect(outcomes.map((o) => o.result.statusCode)).toEqual([500, 503, 200]);
    expect(outcomes[0]!.result.error).toBe('HTTP 500');
    expect(outcomes[1]!.result.retryAfterMs).toBe(120_000);
    expect(outcomes.map((o) => o.outcome.status)).toEqual(['pending', 'pending', 'delivered']);
    expect(r.received.map((x) => x.headers['webhook-id'])).toEqual([msg.id, msg.id, msg.id]);
    for (const got of r.received) expect(new Webhook(secret).verify(got.body, flatHeaders(got.headers))).toMatchObject({ type: 'review.created' });
    expect(health.failingSince).toBeNull();
    expect(health.lastDeliveryAt).not.toBeNull();
  });

  it('signs with both secrets for 24 h after a rotation: each verifies on its own', async () => {
    const r = await receiver();
    const old = generateSecret();
    const fresh = generateSecret();
    const now = new Date();
    const secrets = rotateSecrets([{ secret: old, createdAt: new Date(now.getTime() - 86_400_000 * 30), expiresAt: null }], fresh, now);
    await attemptDelivery(client(), { url: r.url(), orgId: 'org_a', secrets }, message(), now);
    const got = r.received[0]!;
    const signatures = String(got.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => s.startsWith('v1,'))).toBe(true);
    for (const secret of [old, fresh]) expect(new Webhook(secret).verify(got.body, flatHeaders(got.headers))).toMatchObject({ type: 'review.created' });
    // Each signature on its own belongs to exactly one of the secrets.
    for (const [i, secret] of [fresh, old].entries()) {
      const only = { ...flatHeaders(got.headers), 'webhook-signature': signatures[i]! };
      expect(() => new Webhook(secret).verify(got.body, only)).not.toThrow();
      expect(() => new Webhook(secret === old ? fresh : old).verify(got.body, only)).toThrow();
    }
  });

  it('stops signing with the old secret 24 h after the rotation', async () => {
    const r = await receiver();
    const old = generateSecret();
    const fresh = generateSecret();
    const now = new Date();
    const rotatedAt = new Date(now.getTime() - 24 * 3600 * 1000 - 1000);
    const secrets = rotateSecrets([{ secret: old, createdAt: new Date(0), expiresAt: null }], fresh, rotatedAt);
    await attemptDelivery(client(), { url: r.url(), orgId: 'org_a', secrets }, message(), now);
    const got = r.received[0]!;
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => new Webhook(fresh).verify(got.body, flatHeaders(got.headers))).not.toThrow();
    expect(() => new Webhook(old).verify(got.body, flatHeaders(got.headers))).toThrow(/No matching signature/);
  });
});

describe('what the client does not do', () => {
  it('never follows a redirect: a 302 to another receiver is a failed attempt and that receiver gets nothing', async () => {
    const target = await receiver();
    const redirecting = await receiver((_req, res) => {
      res.writeHead(302, { location: target.url() }).end();
    });
    const result = await client().deliver({ url: redirecting.url(), headers: signedHeaders('msg_r', '{}', [generateSecret()], new Date()), body: '{}' });
    expect(result.delivered).toBe(false);
    expect(result.statusCode).toBe(302);
    expect(result.error).toBe(`redirect (HTTP 302 to ${target.url()}) not followed`);
    expect(redirecting.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });

  it('reads at most 64 KiB of a 10 MiB response and cuts the connection', async () => {
    let closedBeforeFinish: (v: boolean) => void = () => {};
    const receiverDone = new Promise<boolean>((resolve) => (closedBeforeFinish = resolve));
    const r = await receiver((_req, res) => {
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(10 * 1024 * 1024) });
      res.on('close', () => closedBeforeFinish(!res.writableFinished));
      const pump = (): void => {
        while (sent < 10 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
    const result = await client().deliver({ url: r.url(), headers: signedHeaders('msg_big', '{}', [generateSecret()], new Date()), body: '{}' });
    expect(result).toMatchObject({ delivered: true, statusCode: 200, truncated: true, bodyBytes: MAX_RESPONSE_BYTES });
    expect(result.excerpt).toBe('x'.repeat(200));
    expect(await receiverDone).toBe(true);
  });

  it('gives up on an endpoint that never answers (timeout injected: 300 ms instead of 15 s)', async () => {
    const r = await receiver(() => {
      /* never answers */
    });
    const result = await client({ timeoutMs: 300 }).deliver({ url: r.url(), headers: signedHeaders('msg_h', '{}', [generateSecret()], new Date()), body: '{}' });
    expect(result).toMatchObject({ delivered: false, statusCode: null, error: 'no answer within 0.3 s' });
    expect(r.received).toHaveLength(1);
  });

  it('turns a request Node refuses to send into a failed attempt, not a rejection', async () => {
    const r = await receiver();
    const headers = { ...signedHeaders('msg_n', '{}', [generateSecret()], new Date()), 'webhook-id': 'msg\nInjected: yes' };
    const result = await client().deliver({ url: r.url(), headers, body: '{}' });
    expect(result).toMatchObject({ delivered: false, statusCode: null });
    expect(result.error).toMatch(/Invalid character in header content/);
    expect(r.received).toHaveLength(0);
  });

  it('decides by the status once it arrived: a 2xx whose body then hangs is delivered, a 500 is not', async () => {
    const r = await receiver((req, res) => {
      res.writeHead(req.headers['webhook-id'] === 'msg_ok' ? 202 : 500, { 'content-type': 'text/plain' });
      res.write('accepted, now \u0000 thinking…'); // never ends
    });
    const c = client({ timeoutMs: 300 });
    const ok = await c.deliver({ url: r.url(), headers: signedHeaders('msg_ok', '{}', [generateSecret()], new Date()), body: '{}' });
    expect(ok).toMatchObject({ delivered: true, statusCode: 202, error: null, excerpt: 'accepted, now   thinking…' });
    const failed = await c.deliver({ url: r.url(), headers: signedHeaders('msg_no', '{}', [generateSecret()], new Date()), body: '{}' });
    expect(failed).toMatchObject({ delivered: false, statusCode: 500, error: 'HTTP 500' });
  });

  it('refuses http: URLs without connecting', async () => {
    const result = await client().deliver({ url: 'http://127.0.0.1:9/hook', headers: signedHeaders('msg_p', '{}', [generateSecret()], new Date()), body: '{}' });
    expect(result).toMatchObject({ delivered: false, error: 'only https: endpoints are allowed, not http:' });
  });

  it('verifies the certificate: a receiver the client does not trust is a failed attempt', async () => {
    const r = await receiver();
    const untrusting = createDeliveryClient({ allow: LOOPBACK });
    clients.push(untrusting);
    const result = await untrusting.deliver({ url: r.url(), headers: signedHeaders('msg_c', '{}', [generateSecret()], new Date()), body: '{}' });
    expect(result.delivered).toBe(false);
    expect(result.error).toMatch(/certificate/i);
    expect(r.received).toHaveLength(0);
  });
});

/** One address per refused range, as DNS or a URL could give it. */
const REFUSED: Array<[string, RegExp]> = [
  ['127.0.0.1', /is a loopback address/],
  ['10.0.0.5', /address 10\.0\.0\.5 is in a private network/],
  ['172.16.3.4', /is in a private network/],
  ['192.168.1.1', /is in a private network/],
  ['169.254.169.254', /is link-local/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['0.0.0.0', /unspecified/],
  ['255.255.255.255', /broadcast/],
  ['224.0.0.251', /multicast/],
  ['240.0.0.1', /reserved/],
  ['::1', /is a loopback address/],
  ['fd12:3456::1', /unique local/],
  ['fe80::1', /is link-local/],
  ['ff02::1', /multicast/],
  ['::', /unspecified/],
  ['::ffff:10.0.0.5', /\(10\.0\.0\.5\) is in a private network/],
  ['::ffff:169.254.169.254', /is link-local/],
  ['64:ff9b::a9fe:a9fe', /NAT64 address for 169\.254\.169\.254/],
  // IPv6 forms that carry an IPv4 address (issue 34, item 5): ::/96 was classed public.
  ['::127.0.0.1', /IPv4-compatible IPv6 address \(::\/96, deprecated\) carrying 127\.0\.0\.1/],
  ['::169.254.169.254', /IPv4-compatible IPv6 address \(::\/96, deprecated\) carrying 169\.254\.169\.254/],
  ['::8.8.8.8', /IPv4-compatible/],
  ['2002:a9fe:a9fe::1', /reserved range \(6to4\)/],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /reserved range \(teredo\)/],
  ['64:ff9b:1::a00:1', /reserved range/],
];

/** What creation answers for a host name whose address is refused: the rule, never the address (issue 34, item 6). */
async function refusalAtCreation(url: string, allow: Parameters<typeof checkEndpointUrl>[1], resolve: Parameters<typeof checkEndpointUrl>[2]): Promise<string> {
  const err = await checkEndpointUrl(url, allow, resolve).then(
    () => null,
    (e: Error) => e,
  );
  expect(err, `${url} is refused`).toBeInstanceOf(Error);
  return err!.message;
}

describe('no way into private networks', () => {
  it.each(REFUSED)('refuses %s at creation and at delivery, by IP literal and by DNS name', async (address, reason) => {
    const literalHost = address.includes(':') ? `[${address}]` : address;
    const literalUrl = `https://${literalHost}:8443/hook`;
    const dns = stubResolver({ 'evil.test': address });
    const c = client({ allow: [], resolve: dns.resolve, timeoutMs: 2000 });

    // An IP address typed in the URL is named with the reason: it tells the person nothing new.
    await expect(checkEndpointUrl(literalUrl, [], dns.resolve)).rejects.toThrow(reason);
    // A host name is not an oracle for what names resolve to: the rule, never the address.
    const byNameAtCreation = await refusalAtCreation('https://evil.test/hook', [], dns.resolve);
    expect(byNameAtCreation).toBe('the host evil.test resolves to a private or reserved address; webhooks are not sent into private networks (see WEBHOOK_ALLOW_NETWORKS)');

    const headers = signedHeaders('msg_s', '{}', [generateSecret()], new Date());
    const byLiteral = await c.deliver({ url: literalUrl, headers, body: '{}' });
    expect(byLiteral).toMatchObject({ delivered: false, statusCode: null });
    expect(byLiteral.error).toMatch(reason);
    const callsBefore = dns.calls.length;
    const byName = await c.deliver({ url: 'https://evil.test/hook', headers, body: '{}' });
    expect(byName).toMatchObject({ delivered: false, statusCode: null });
    expect(byName.error).toBe('evil.test resolves to a private or reserved address');
    // The refusal came from the socket's own lookup.
    expect(dns.calls.length).toBe(callsBefore + 1);
  });

  it('a DNS name resolving to the loopback receiver is refused, and allowed once loopback is in the allow-list', async () => {
    const r = await receiver();
    const dns = stubResolver({ 'receiver.test': '127.0.0.1' });
    const refused = await client({ allow: [], resolve: dns.resolve }).deliver({ url: r.url('receiver.test'), headers: signedHeaders('msg_d', '{}', [generateSecret()], new Date()), body: '{}' });
    expect(refused.error).toBe('receiver.test resolves to a private or reserved address');
    expect(r.received).toHaveLength(0);
    const allowed = await client({ allow: parseAllowNetworks('127.0.0.1/32'), resolve: dns.resolve }).deliver({ url: r.url('receiver.test'), headers: signedHeaders('msg_d', '{}', [generateSecret()], new Date()), body: '{}' });
    expect(allowed).toMatchObject({ delivered: true, statusCode: 200 });
    expect(r.received).toHaveLength(1);
  });

  it('an IP-literal loopback URL (IPv4, IPv6 and IPv4-mapped IPv6) is refused and allowed by the allow-list alone', async () => {
    const v4 = await receiver();
    const v6 = await receiver(undefined, '::1');
    const urls = [v4.url(), v6.url(), `https://[::ffff:127.0.0.1]:${v4.port}/hook`];
    for (const url of urls) {
      const refused = await client({ allow: [] }).deliver({ url, headers: signedHeaders('msg_l', '{}', [generateSecret()], new Date()), body: '{}' });
      expect(refused.error).toMatch(/is a loopback address/);
    }
    expect(v4.received.length + v6.received.length).toBe(0);
    // Only the connection check is relaxed: the certificate is still checked, for 127.0.0.1 and ::1 (names in it).
    const results = await Promise.all(urls.slice(0, 2).map((url) => client({ allow: LOOPBACK }).deliver({ url, headers: signedHeaders('msg_l', '{}', [generateSecret()], new Date()), body: '{}' })));
    expect(results.map((x) => x.delivered)).toEqual([true, true]);
    expect(v4.received).toHaveLength(1);
    expect(v6.received).toHaveLength(1);
  });

  it('an IPv4-mapped IPv6 answer is judged as the IPv4 address it carries', async () => {
    const r = await receiver();
    const dns = stubResolver({ 'receiver.test': '::ffff:127.0.0.1' });
    const headers = signedHeaders('msg_m6', '{}', [generateSecret()], new Date());
    const refused = await client({ allow: parseAllowNetworks('::1'), resolve: dns.resolve }).deliver({ url: r.url('receiver.test'), headers, body: '{}' });
    expect(refused.error).toBe('receiver.test resolves to a private or reserved address');
    expect(r.received).toHaveLength(0);
    const allowed = await client({ allow: parseAllowNetworks('127.0.0.0/8'), resolve: dns.resolve }).deliver({ url: r.url('receiver.test'), headers, body: '{}' });
    expect(allowed).toMatchObject({ delivered: true, statusCode: 200 });
    expect(r.received).toHaveLength(1);
  });

  it('a DNS answer that changes between the creation check and the connection is checked again on connect (DNS rebinding)', async () => {
    const r = await receiver();
    let answer = '93.184.215.14';
    const dns = stubResolver({ 'rebind.test': () => answer });
    const url = r.url('rebind.test');
    // At creation the name points at a public address: accepted.
    await expect(checkEndpointUrl(url, [], dns.resolve)).resolves.toBe(url);
    // Then it answers with the loopback receiver's address.
    answer = '127.0.0.1';
    const result = await client({ allow: [], resolve: dns.resolve }).deliver({ url, headers: signedHeaders('msg_b', '{}', [generateSecret()], new Date()), body: '{}' });
    expect(result).toMatchObject({ delivered: false, statusCode: null, error: 'rebind.test resolves to a private or reserved address' });
    expect(r.received).toHaveLength(0);
  });

  it('a name with one private address among public ones is refused', async () => {
    const resolve = async (): Promise<LookupAddress[]> => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ];
    await expect(checkEndpointUrl('https://mixed.test/', [], resolve)).rejects.toThrow('the host mixed.test resolves to a private or reserved address');
    const result = await client({ allow: [], resolve, timeoutMs: 2000 }).deliver({ url: 'https://mixed.test/', headers: signedHeaders('msg_m', '{}', [generateSecret()], new Date()), body: '{}' });
    expect(result.error).toBe('mixed.test resolves to a private or reserved address');
  });

  it('localhost is loopback without asking DNS: refused like any loopback name, let in by the allow-list', async () => {
    // Port 9 (discard) on loopback answers no DNS: a lookup sent there would fail, not answer loopback.
    const resolve = createHostResolver({ servers: ['127.0.0.1:9'], timeoutMs: 2000 });
    expect(await refusalAtCreation('https://localhost/hook', [], resolve)).toBe('the host localhost resolves to a private or reserved address; webhooks are not sent into private networks (see WEBHOOK_ALLOW_NETWORKS)');
    const r = await receiver();
    await expect(checkEndpointUrl(r.url('localhost'), LOOPBACK, resolve)).resolves.toBe(r.url('localhost'));
    const result = await client({ allow: LOOPBACK, resolve }).deliver({ url: r.url('localhost'), orgId: 'org_a', headers: signedHeaders('msg_lh', '{}', [generateSecret()], new Date()), body: '{}' });
    expect(result).toMatchObject({ delivered: true, statusCode: 200 });
  });

  it('WEBHOOK_ALLOW_NETWORKS lets exactly its ranges through', async () => {
    const allow = parseAllowNetworks('10.20.0.0/16, fd00:1::/64, 127.0.0.1');
    const dns = stubResolver({ 'in.test': '10.20.255.1', 'edge.test': '10.21.0.1', 'v6in.test': 'fd00:1::5', 'v6out.test': 'fd00:2::5', 'lo2.test': '127.0.0.2' });
    await expect(checkEndpointUrl('https://in.test/', allow, dns.resolve)).resolves.toBe('https://in.test/');
    await expect(checkEndpointUrl('https://v6in.test/', allow, dns.resolve)).resolves.toBe('https://v6in.test/');
    await expect(checkEndpointUrl('https://10.20.0.9/', allow, dns.resolve)).resolves.toBe('https://10.20.0.9/');
    await expect(checkEndpointUrl('https://edge.test/', allow, dns.resolve)).rejects.toThrow('the host edge.test resolves to a private or reserved address');
    await expect(checkEndpointUrl('https://v6out.test/', allow, dns.resolve)).rejects.toThrow('the host v6out.test resolves to a private or reserved address');
    await expect(checkEndpointUrl('https://lo2.test/', allow, dns.resolve)).rejects.toThrow('the host lo2.test resolves to a private or reserved address');
    await expect(checkEndpointUrl('https://10.21.0.1/', allow, dns.resolve)).rejects.toThrow('address 10.21.0.1 is in a private network');
    await expect(checkEndpointUrl('https://169.254.169.254/', allow, dns.resolve)).rejects.toThrow(/link-local/);

    // At delivery, against a real receiver: 127.0.0.1 is in the list, 127.0.0.2 is not.
    const r = await receiver();
    const c = client({ allow, resolve: stubResolver({ 'receiver.test': '127.0.0.1', 'other.test': '127.0.0.2' }).resolve });
    const headers = signedHeaders('msg_a', '{}', [generateSecret()], new Date());
    expect((await c.deliver({ url: r.url('receiver.test'), headers, body: '{}' })).delivered).toBe(true);
    const outside = await c.deliver({ url: r.url('other.test'), headers, body: '{}' });
    expect(outside.error).toBe('other.test resolves to a private or reserved address');
    expect(r.received).toHaveLength(1);
  });
});

describe('endpoint URL check at creation', () => {
  const resolve = stubResolver({ 'public.test': '93.184.215.14' }).resolve;
  it.each([
    ['http://public.test/hook', /must start with https:\/\//],
    ['https://user:pw@public.test/hook', /must not hold a user name or password/],
    ['https://public.test/hook#x', /fragment/],
    ['not a url', /is not a URL/],
    ['https://nowhere.test/hook', /the host nowhere\.test cannot be resolved \(ENOTFOUND\)/],
  ])('%s is refused with a clear message', async (url, message) => {
    await expect(checkEndpointUrl(url, [], resolve)).rejects.toThrow(message);
  });

  it('accepts a public https URL and returns it normalised', async () => {
    await expect(checkEndpointUrl('HTTPS://Public.TEST:443/hook?x=1', [], resolve)).resolves.toBe('https://public.test/hook?x=1');
  });
});

afterAll(() => {
  for (const c of clients) c.close();
});
