/**
 * The service's own resolver for outbound names (CONTRACT §12, "Limits per
 * organization"), against a real DNS server on loopback UDP
 * (testing/dns-server.ts) that answers some names and never answers others.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHostResolver, HostNotFoundError } from './host-resolver.ts';
import { startDnsServer, type TestDnsServer } from './testing/dns-server.ts';

const SILENT = Array.from({ length: 10 }, (_, i) => `s${i}.never.test`);
const NEVER = 'never.test';

let dns: TestDnsServer;

beforeAll(async () => {
  dns = await startDnsServer({
    'both.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'v6only.test': ['2606:4700::1111'],
    'b.test': ['192.0.2.7'],
    'no-aaaa.test': { addresses: ['192.0.2.8', '2001:db8::8'], silentFor: 'AAAA' },
    [NEVER]: 'silent',
    ...Object.fromEntries(SILENT.map((name) => [name, 'silent' as const])),
  });
});

afterAll(async () => {
  await dns.close();
});

async function failure(promise: Promise<unknown>): Promise<HostNotFoundError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HostNotFoundError);
  return err as HostNotFoundError;
}

describe('createHostResolver', () => {
  it('answers A and AAAA from the servers it is given, IPv4 first', async () => {
    const resolve = createHostResolver({ servers: [dns.server] });
    expect(await resolve('both.test', 'org_a')).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
    expect(await resolve('V6ONLY.test.', 'org_a')).toEqual([{ address: '2606:4700::1111', family: 6 }]);
    expect(dns.questions.filter((q) => q.name === 'both.test').map((q) => q.type).sort()).toEqual(['A', 'AAAA']);
  });

  it('a server that never answers AAAA does not hold the A answer for the whole timeout', async () => {
    // Neither the deadline (60 s) nor c-ares (asking 30 times) gives up within the test's time: the answer can
    // only come from the grace the other family gets once one has answered.
    const resolve = createHostResolver({ servers: [dns.server], timeoutMs: 60_000, tries: 30 });
    expect(await resolve('no-aaaa.test', 'org_a')).toEqual([{ address: '192.0.2.8', family: 4 }]);
  });

  it('answers IP addresses and localhost names without asking DNS (localhost is loopback; /etc/hosts is not read)', async () => {
    const resolve = createHostResolver({ servers: [dns.server] });
    const before = dns.questions.length;
    expect(await resolve('203.0.113.9', 'org_a')).toEqual([{ address: '203.0.113.9', family: 4 }]);
    expect(await resolve('[2001:db8::1]', 'org_a')).toEqual([{ address: '2001:db8::1', family: 6 }]);
    const loopback = [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
    expect(await resolve('localhost', 'org_a')).toEqual(loopback);
    expect(await resolve('LocalHost.', 'org_a')).toEqual(loopback);
    expect(await resolve('platform-fake.localhost', 'org_a')).toEqual(loopback);
    expect(dns.questions.length).toBe(before);
  });

  it('a name DNS does not know is ENOTFOUND; a name DNS never answers is ETIMEOUT once the time is up', async () => {
    const resolve = createHostResolver({ servers: [dns.server], timeoutMs: 1000 });
    const unknown = await failure(resolve('nowhere.test', 'org_a'));
    expect([unknown.code, unknown.message]).toEqual(['ENOTFOUND', 'nowhere.test: ENOTFOUND: no such host']);
    const silent = await failure(resolve(NEVER, 'org_a'));
    expect([silent.code, silent.reason]).toEqual(['ETIMEOUT', 'ETIMEOUT: no answer from DNS within 1 s']);
  });

  it('has at most 4 lookups of one organization in flight; another organization is answered meanwhile', async () => {
    const resolve = createHostResolver({ servers: [dns.server] });
    const asked = (): string[] => dns.names().filter((name) => SILENT.includes(name)).sort();
    const stuck = SILENT.map((name) => failure(resolve(name, 'org_a')));
    // The first four are asked; the other six wait for org_a's turn.
    await vi.waitFor(() => expect(asked()).toEqual(SILENT.slice(0, 4)), { timeout: 5000 });
    // org_b's lookup is not held by org_a's.
    expect(await resolve('b.test', 'org_b')).toEqual([{ address: '192.0.2.7', family: 4 }]);
    // And org_a's four stuck lookups still hold org_a's other six.
    expect(asked()).toEqual(SILENT.slice(0, 4));
    // All ten fail once their 5 s (waiting included) are up.
    const errors = await Promise.all(stuck);
    expect(errors.map((e) => e.code)).toEqual(SILENT.map(() => 'ETIMEOUT'));
  });

  it('answers while libuv’s thread pool (where dns.lookup runs) is fully taken', async () => {
    const resolve = createHostResolver({ servers: [dns.server] });
    // Opening a FIFO for reading holds a thread-pool thread until a writer opens it: every thread is taken.
    const dir = mkdtempSync(join(tmpdir(), 'pool-'));
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const held: Promise<FileHandle>[] = Array.from({ length: threads }, () => open(fifo, 'r'));
    let probed = false;
    const probe = stat(dir).then(() => (probed = true));
    try {
      expect(await resolve('b.test', 'org_a')).toEqual([{ address: '192.0.2.7', family: 4 }]);
      // The pool was taken all along: a file system call queued before the answer has still not run.
      expect(probed).toBe(false);
    } finally {
      // A writer kept open until every reader is in: a reader whose open only started now (its thread was busy
      // with other work) would otherwise wait for a writer for ever. O_RDWR on a FIFO never blocks (Linux).
      const writer = openSync(fifo, constants.O_RDWR);
      try {
        for (const handle of await Promise.all(held)) await handle.close();
      } finally {
        closeSync(writer);
      }
      await probe;
      rmSync(dir, { recursive: true, force: true });
    }
    expect(probed).toBe(true);
  });
});
