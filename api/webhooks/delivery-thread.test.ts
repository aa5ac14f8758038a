/**
 * The delivery client in its own thread (delivery-thread.ts), as the service
 * runs it: the same results and the same rule as deliver.ts's client in
 * process, a thread that stops answered as failed attempts (never a hang or a
 * rejection) and replaced, and the thread's own lower priority.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThreadedDeliveryClient, DELIVERY_THREAD_NICE, type ThreadedDeliveryClient } from './delivery-thread.ts';
import { parseAllowNetworks } from './networks.ts';
import { startReceiver, testCert, type Receiver, type TestCert } from './test-receiver.ts';

let cert: TestCert;
let receiver: Receiver;
const clients: ThreadedDeliveryClient[] = [];
const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,abc' };

beforeAll(async () => {
  cert = await testCert();
  receiver = await startReceiver(cert, (req, res) => {
    if (req.url === '/gone') res.writeHead(410, { 'content-type': 'text/plain' }).end('endpoint removed');
    else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end('late'), 5000);
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
  });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await receiver.close();
});

function client(allow = '127.0.0.1/32'): ThreadedDeliveryClient {
  const c = createThreadedDeliveryClient({ allow: parseAllowNetworks(allow), ca: [cert.cert] });
  clients.push(c);
  return c;
}

/** The nice value of each thread of this process (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the name (in parentheses, which may hold spaces): state is field 3, nice field 19.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('the threaded delivery client', () => {
  it('delivers as the client in process does: body and headers as given, status, excerpt; a 410 is a failure with its status', async () => {
    const c = client();
    receiver.received.length = 0;
    const body = JSON.stringify({ type: 'review.created', data: { content: 'Größe ✓' } });
    const ok = await c.deliver({ url: receiver.url(), headers, body });
    expect(ok).toMatchObject({ delivered: true, statusCode: 200, error: null, excerpt: 'thanks' });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.body).toBe(body);
    expect(receiver.received[0]!.headers).toMatchObject({ ...headers, 'content-type': 'application/json' });
    const gone = await c.deliver({ url: receiver.url().replace('/hook', '/gone'), headers, body });
    expect(gone).toMatchObject({ delivered: false, statusCode: 410, error: 'HTTP 410', excerpt: 'endpoint removed' });
  });

  it('keeps the private-network rule in the thread: loopback refused unless WEBHOOK_ALLOW_NETWORKS lets it through', async () => {
    receiver.received.length = 0;
    const strict = client('');
    const refused = await strict.deliver({ url: receiver.url(), headers, body: '{}' });
    expect(refused.delivered).toBe(false);
    expect(refused.error).toMatch(/127\.0\.0\.1.*loopback/);
    expect(receiver.received).toHaveLength(0);
    // Only another range allowed: still refused.
    expect((await client('10.0.0.0/8').deliver({ url: receiver.url(), headers, body: '{}' })).delivered).toBe(false);
    expect(receiver.received).toHaveLength(0);
  });

  it('answers the requests of a thread that stopped as failed attempts, and starts a fresh thread for the next', async () => {
    const c = client();
    await c.deliver({ url: receiver.url(), headers, body: '{}' });
    const first = c.thread();
    expect(first).not.toBeNull();
    const pending = c.deliver({ url: receiver.url().replace('/hook', '/slow'), headers, body: '{}' });
    await new Promise((r) => setTimeout(r, 200));
    await first!.terminate();
    const result = await pending;
    // Not an attempt: the dispatcher counts it neither against the message nor the endpoint.
    expect(result).toMatchObject({ delivered: false, statusCode: null, notSent: true });
    expect(result.error).toMatch(/^the delivery thread stopped/);
    const again = await c.deliver({ url: receiver.url(), headers, body: '{}' });
    expect(again.delivered).toBe(true);
    expect(c.thread()).not.toBe(first);
  });

  it('answers after close as not sent, without a thread', async () => {
    const c = client();
    c.close();
    const result = await c.deliver({ url: receiver.url(), headers, body: '{}' });
    expect(result).toMatchObject({ delivered: false, notSent: true });
    expect(result.error).toMatch(/closed/);
    expect(c.thread()).toBeNull();
  });

  // On Linux, and only when the tests run below nice 10 (a run niced further may not lower a thread's value again).
  it.runIf(process.platform === 'linux' && getPriority() < DELIVERY_THREAD_NICE)('runs its thread at a lower priority than the rest of the process (nice 10), the other threads unchanged', async () => {
    // The earlier tests' clients' threads may still be there: one more, at nice 10.
    const before = threadNices();
    const c = client();
    await c.deliver({ url: receiver.url(), headers, body: '{}' });
    const after = threadNices();
    expect(after.filter((n) => n === DELIVERY_THREAD_NICE).length).toBe(before.filter((n) => n === DELIVERY_THREAD_NICE).length + 1);
    expect(after.filter((n) => n !== DELIVERY_THREAD_NICE).every((n) => n === before[0])).toBe(true);
    // The main thread (the process's own task) keeps its nice value.
    expect(Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[16])).toBe(before[0]);
  });
});
