/**
 * Two service processes (one of them WORKERS=2) on MongoDB (FerretDB) and
 * Redis share the sources' schedules (BullMQ job schedulers): each due source
 * is synced exactly once per interval, by one of the three worker processes.
 * A "minute" is shortened to 1 s for the test (SOURCES_MINUTE_MS), so an
 * interval of 2m is 2 s. Every run is logged with its scheduler slot (the
 * job id names the interval): no slot twice, slots whole intervals apart, and the platform
 * saw one request per run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { uniqueDbName } from '../test/ferretdb.ts';
import { freePorts } from '../test/global-setup.ts';
import { describeOn, ferretdbTarget } from '../test/mongo-suites.ts';
import { yelpReviews } from './fixtures.ts';
import { PlatformFake } from './testing/platform-fake.ts';

const target = ferretdbTarget();

describeOn(target, 'sources on two service processes (FerretDB + Redis)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sources-instances-'));
  const token = `sources-admin-${Math.random().toString(36).slice(2)}`;
  const children: ChildProcess[] = [];
  const logs: string[] = [];
  let fake: PlatformFake;
  let adminA = '';

  beforeAll(async () => {
    fake = await PlatformFake.start();
    fake.yelp = yelpReviews;
    writeFileSync(join(dir, 'ca.pem'), fake.ca);
    const db = `${target.url!.replace(/\/$/, '')}/${uniqueDbName('sources-instances')}`;
    const prefix = `si${process.pid}:`;
    const ports = await freePorts(4);
    for (const [i, workers] of [[0, '2'], [1, '1']] as const) {
      const env = {
        ...process.env,
        DATA_DIR: join(dir, `p${i}`),
        PORT: String(ports[i * 2]),
        HTTP_PORT: '0',
        ADMIN_PORT: String(ports[i * 2 + 1]),
        LOG_LEVEL: 'info',
        WORKERS: workers,
        MONGODB_URL: db,
        REDIS_URL: inject('redisUrl'),
        REDIS_KEY_PREFIX: prefix,
        ADMIN_TOKEN: token,
        SECRETS_KEY: Buffer.alloc(32, 4).toString('base64'),
        SOURCES_MINUTE_MS: '1000',
        YELP_API_URL: fake.url,
        NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
      };
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'main.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let out = '';
      let err = '';
      child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
          logs.push(c.toString());
          if (out.includes('Review API listening')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`service ${i} exited with ${code}: ${err}`)));
      });
    }
    adminA = `http://127.0.0.1:${ports[1]}`;
  }, 180_000);

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
    }
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('syncs each due source once per interval across every process', async () => {
    const admin = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${adminA}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
      return (await res.json()) as Record<string, unknown>;
    };
    const org = await admin('POST', '/admin/orgs', { name: 'Instances', plan: 'growth' });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const orgN = n === 1 ? org : await admin('POST', '/admin/orgs', { name: `Instances ${n}`, plan: 'growth' });
      const source = await admin('POST', '/admin/sources', { orgId: orgN.id, platform: 'yelp', account: `biz-${n}`, every: '2m', credentials: { apiKey: fake.keys.yelp } });
      ids.push(source.id as string);
    }
    const runsOf = (id: string) =>
      logs
        .join('')
        .split('\n')
        .filter((l) => l.includes('"source job done"') && l.includes(id))
        .map((l) => JSON.parse(l) as { slot: string | null; pid: number });
    // Wait until every source has had 4 scheduled runs.
    for (let i = 0; ids.some((id) => runsOf(id).filter((r) => r.slot).length < 4); i++) {
      if (i > 600) throw new Error('the schedules did not run');
      await sleep(100);
    }
    // "Sync now" goes through the same queue and waits for its run.
    const manual = await admin('POST', `/admin/sources/${ids[0]}/sync`);
    expect(manual).toMatchObject({ id: ids[0], state: 'active', created: 0, requests: 1 });
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r(null)))));
    const pids = new Set<number>();
    const gaps: number[] = [];
    for (const [n, id] of ids.entries()) {
      const runs = runsOf(id);
      const slots = runs.map((r) => r.slot!).filter(Boolean);
      // No interval twice…
      expect(new Set(slots).size).toBe(slots.length);
      // …and every slot is one of the interval's: whole intervals apart (on a loaded machine a run that
      // starts late lets BullMQ skip to the next slot instead of catching up; it never runs one twice).
      const millis = slots.map((s) => Number(s.split(':').at(-1))).sort((a, b) => a - b);
      for (let i = 1; i < millis.length; i++) expect((millis[i]! - millis[i - 1]!) % 2000).toBe(0);
      gaps.push(...millis.slice(1).map((m, i) => m - millis[i]!));
      // One platform request per run (Yelp: one page), and the key's check when the source was added; none from anywhere else.
      expect(fake.requests.filter((r) => r.path.includes(`/biz-${n + 1}/`)).length).toBe(runs.length + 1);
      for (const r of runs) pids.add(r.pid);
    }
    // The work was shared: more than one process ran syncs.
    expect(pids.size).toBeGreaterThan(1);
    // Most intervals ran on time.
    expect(gaps.filter((g) => g === 2000).length).toBeGreaterThan(gaps.length / 2);
  }, 240_000);
});
