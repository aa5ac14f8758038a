/**
 * Vitest global setup: one real Redis for the whole run, started from
 * `redis-server` on PATH on a free port (or REDIS_URL when given), and one
 * FerretDB (see ferretdb.ts) for every MongoDB test. Tests get their URLs
 * through `inject('redisUrl')` and `inject('ferretdb')`.
 *
 * Without a FerretDB binary the run fails when CI is set; elsewhere the MongoDB
 * suites are skipped under a name that says so (see mongo-suites.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { findFerretdb, INSTALL_HINT, startFerretdb } from './ferretdb.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    redisBin: string;
    /** url '' = no FerretDB: `missing` says why and how to get one. */
    ferretdb: { url: string; bin: string; missing: string };
  }
}

/** Several distinct free ports: the listeners stay open until all are picked. */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise<import('node:net').Server>((resolve, reject) => {
      const server = createServer();
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(server));
    })),
  );
  const ports = servers.map((s) => (s.address() as import('node:net').AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export function findRedisServer(): string {
  const bin = process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const probe = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `redis-server was not found on PATH: the tests need a real Redis. Install the Debian package: apt-get install -y redis-server (or set REDIS_URL).`,
    );
  }
  return bin;
}

/** Start a throwaway redis-server on a free loopback port; resolves once it accepts connections. */
export async function startRedis(bin: string, port?: number): Promise<{ url: string; port: number; process: ChildProcess; dir: string }> {
  const p = port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'redis-test-'));
  const child = spawn(bin, ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out}`));
    });
  });
  child.removeAllListeners('exit');
  return { url: `redis://127.0.0.1:${p}`, port: p, process: child, dir };
}

async function setupFerretdb(project: TestProject): Promise<() => Promise<void>> {
  const found = findFerretdb();
  if (found.bin === null) {
    const missing = `FerretDB not found (looked at ${found.looked.join(', ')}). Get it with: ${INSTALL_HINT}`;
    if (process.env.CI) throw new Error(`CI is set and the MongoDB store must be tested: ${missing}`);
    process.stderr.write(`\n*** MongoDB suites SKIPPED: ${missing}\n\n`);
    project.provide('ferretdb', { url: '', bin: '', missing });
    return async () => {};
  }
  const ferret = await startFerretdb(found.bin);
  project.provide('ferretdb', { url: ferret.url, bin: found.bin, missing: '' });
  return async () => {
    await ferret.stop();
    rmSync(ferret.dir, { recursive: true, force: true });
  };
}

async function setupRedis(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.REDIS_URL) {
    project.provide('redisUrl', process.env.REDIS_URL);
    project.provide('redisBin', process.env.REDIS_SERVER_BIN ?? 'redis-server');
    return async () => {};
  }
  const bin = findRedisServer();
  const redis = await startRedis(bin);
  project.provide('redisUrl', redis.url);
  project.provide('redisBin', bin);
  return async () => {
    redis.process.kill('SIGTERM');
    await new Promise((r) => redis.process.once('exit', r));
    rmSync(redis.dir, { recursive: true, force: true });
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stopRedis = await setupRedis(project);
  let stopFerretdb: () => Promise<void>;
  try {
    stopFerretdb = await setupFerretdb(project);
  } catch (err) {
    await stopRedis();
    throw err;
  }
  return async () => {
    await Promise.all([stopRedis(), stopFerretdb()]);
  };
}
