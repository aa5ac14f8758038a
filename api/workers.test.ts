/**
 * WORKERS=2 on the MongoDB store (FerretDB) and Redis: the compiled service
 * (`npm start`'s dist/api/main.js) runs two worker processes on one port; both
 * answer, and together they admit exactly the organization's limit. The
 * embedded store refuses more than one worker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { httpsGet } from '../bench/support.ts';
import { buildApi } from './build.ts';
import { ConfigError, loadConfig } from './config.ts';
import { uniqueDbName } from './test/ferretdb.ts';
import { freePorts } from './test/global-setup.ts';
import { describeOn, ferretdbTarget } from './test/mongo-suites.ts';

const target = ferretdbTarget();

describe('WORKERS configuration', () => {
  const base = { DATA_DIR: tmpdir(), PORT: '8443', HTTP_PORT: '8080', ADMIN_PORT: '8081' };
  it('refuses more than one worker on the embedded store, and without Redis, naming WORKERS', () => {
    expect(() => loadConfig({ ...base, WORKERS: '2' })).toThrow(/embedded store has one writer/);
    expect(() => loadConfig({ ...base, WORKERS: '2', MONGODB_URL: 'mongodb://127.0.0.1:1/x' })).toThrow(/need REDIS_URL/);
    expect(() => loadConfig({ ...base, WORKERS: 'many' })).toThrow(ConfigError);
    expect(loadConfig(base).workers).toBe(1);
    expect(loadConfig({ ...base, WORKERS: 'auto', MONGODB_URL: 'mongodb://127.0.0.1:1/x', REDIS_URL: 'redis://127.0.0.1:1' }).workers).toBeGreaterThanOrEqual(1);
  });
});

describeOn(target, 'WORKERS=2: two processes on one port', () => {
  const token = `workers-admin-${Math.random().toString(36).slice(2)}`;
  const dir = mkdtempSync(join(tmpdir(), 'workers-'));
  let child: ChildProcess;
  let out = '';
  let base = '';
  let adminUrl = '';
  let ca = '';

  beforeAll(async () => {
    const main = await buildApi();
    const [port, adminPort] = await freePorts(2);
    const env = {
      ...process.env,
      DATA_DIR: dir,
      PORT: String(port),
      HTTP_PORT: '0',
      ADMIN_PORT: String(adminPort),
      LOG_LEVEL: 'info',
      WORKERS: '2',
      MONGODB_URL: `${target.url!.replace(/\/$/, '')}/${uniqueDbName('workers')}`,
      REDIS_URL: inject('redisUrl'),
      REDIS_KEY_PREFIX: `wk${process.pid}:`,
      ADMIN_TOKEN: token,
    };
    child = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        // The banner comes from the first worker; the second may still be starting (it is asked below).
        if (out.includes('Workers:')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`service exited with ${code}: ${err}`)));
    });
    base = `https://127.0.0.1:${port}`;
    adminUrl = `http://127.0.0.1:${adminPort}`;
    ca = readFileSync(join(dir, 'tls-cert.pem'), 'utf8');
  }, 90_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const gone = new Promise<number | null>((r) => child.once('exit', r));
      child.kill('SIGTERM');
      expect(await gone).toBe(0);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** The pids in the access-log lines whose URL or organization contains `needle`. */
  const answeredBy = (needle: string) =>
    new Set(
      out
        .split('\n')
        .filter((line) => line.includes('"msg":"request"') && line.includes(needle))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    );

  const admin = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${adminUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(201);
    return (await res.json()) as Record<string, unknown>;
  };

  it("both workers answer, and together they admit exactly the organization's limit", async () => {
    // The banner comes from the first worker: wait until the second one answers too (its access-log line reaches
    // this process's pipe a little after its answer).
    await vi.waitFor(
      async () => {
        await httpsGet(`${base}/healthz`, ca);
        expect(answeredBy('/healthz').size).toBe(2);
      },
      { timeout: 30_000, interval: 50 },
    );
    const org = await admin('POST', '/admin/orgs', { name: 'Workers', plan: 'growth', rateLimit: 15 });
    const key = (await admin('POST', '/admin/keys', { orgId: org.id, name: 'k' })).key as string;
    // One connection per request (httpsGet uses a new agent each time): the primary hands connections to the workers in turn.
    const statuses = await Promise.all(Array.from({ length: 24 }, () => httpsGet(`${base}/api/v1/reviews?limit=1`, ca, { authorization: `Bearer ${key}` }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(15);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    // Each access-log line carries the pid of the process that answered; the lines come through the pipe after the answers.
    const answered = await vi.waitFor(
      () => {
        const pids = answeredBy(org.id as string);
        expect(pids.size).toBe(2);
        return pids;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(answered.has(child.pid!)).toBe(false);
  });
});
