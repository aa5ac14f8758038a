/**
 * Two service processes (`api/main.ts`, as deployed) on one FerretDB database
 * and one Redis: what one is told, the other does on its next request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { httpsGet } from '../bench/support.ts';
import { uniqueDbName } from './test/ferretdb.ts';
import { freePorts } from './test/global-setup.ts';
import { describeOn, ferretdbTarget } from './test/mongo-suites.ts';

const MAIN = join(import.meta.dirname, 'main.ts');
const target = ferretdbTarget();

interface Instance {
  child: ChildProcess;
  base: string;
  admin: string;
  ca: string;
}

async function startInstance(shared: Record<string, string>): Promise<Instance> {
  const dir = mkdtempSync(join(tmpdir(), 'multi-instance-'));
  const [port, adminPort] = await freePorts(2);
  const env = { ...process.env, ...shared, DATA_DIR: dir, PORT: String(port), HTTP_PORT: '0', ADMIN_PORT: String(adminPort), LOG_LEVEL: 'warn' };
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Rate limits:')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`instance exited with ${code}: ${err}`)));
  });
  return { child, base: `https://127.0.0.1:${port}`, admin: `http://127.0.0.1:${adminPort}`, ca: readFileSync(join(dir, 'tls-cert.pem'), 'utf8') };
}

describeOn(target, 'two service processes on one MongoDB database and one Redis', () => {
  const token = `multi-instance-admin-${Math.random().toString(36).slice(2)}`;
  let a: Instance;
  let b: Instance;
  const dbUrl = `${target.url.replace(/\/$/, '')}/${uniqueDbName('multi')}`;

  beforeAll(async () => {
    const shared = { MONGODB_URL: dbUrl, REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: `mi${process.pid}:`, ADMIN_TOKEN: token };
    [a, b] = await Promise.all([startInstance(shared), startInstance(shared)]);
  }, 60_000);
  afterAll(async () => {
    for (const i of [a, b]) {
      if (!i || i.child.exitCode !== null) continue;
      const gone = new Promise((r) => i.child.once('exit', r));
      i.child.kill('SIGTERM');
      await gone;
    }
  });

  const admin = async (i: Instance, method: string, path: string, body?: string, type = 'application/json') => {
    const res = await fetch(`${i.admin}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': type }, ...(body !== undefined && { body }) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const get = async (i: Instance, path: string, key: string) => {
    const res = await httpsGet(`${i.base}${path}`, i.ca, { authorization: `Bearer ${key}` });
    return { status: res.status, body: JSON.parse(res.body.toString('utf8')) as Record<string, unknown> };
  };
  const newOrg = async (rateLimit: number) => {
    const org = await admin(a, 'POST', '/admin/orgs', JSON.stringify({ name: 'Shared', plan: 'growth', rateLimit }));
    expect(org.status).toBe(201);
    const key = await admin(a, 'POST', '/admin/keys', JSON.stringify({ orgId: org.body.id, name: 'k' }));
    expect(key.status).toBe(201);
    return { orgId: org.body.id as string, key: key.body.key as string, keyId: key.body.id as string };
  };

  it('refuses a key revoked through one on the other, on its next request', async () => {
    const { key, keyId } = await newOrg(1000);
    expect((await get(b, '/api/v1/reviews', key)).status).toBe(200);
    expect((await admin(a, 'POST', `/admin/keys/${keyId}/revoke`)).status).toBe(200);
    expect((await get(b, '/api/v1/reviews', key)).status).toBe(401);
    expect((await get(a, '/api/v1/reviews', key)).status).toBe(401);
  });

  it('applies a plan change made through one on both', async () => {
    const { orgId, key } = await newOrg(1000);
    expect((await get(b, '/api/v1/reviews/stats', key)).status).toBe(200);
    expect((await admin(a, 'PATCH', `/admin/orgs/${orgId}`, JSON.stringify({ plan: 'starter' }))).status).toBe(200);
    for (const i of [a, b]) expect((await get(i, '/api/v1/reviews/stats', key)).body.error).toBe('forbidden');
    expect((await admin(b, 'PATCH', `/admin/orgs/${orgId}`, JSON.stringify({ plan: 'agency' }))).status).toBe(200);
    for (const i of [a, b]) expect((await get(i, '/api/v1/reviews/stats', key)).status).toBe(200);
  });

  it("holds the organization's limit exactly across both", async () => {
    const { key } = await newOrg(12);
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, n) => get(n % 2 === 0 ? a : b, '/api/v1/reviews?limit=1', key).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(12);
    expect(statuses.filter((s) => s === 429)).toHaveLength(8);
  });

  it('shows an import made through one through the other', async () => {
    const { orgId, key } = await newOrg(1000);
    const records = ['a', 'b', 'c'].map((id, n) =>
      JSON.stringify({ platform: 'GOOGLE', externalId: `mi-${id}`, authorName: 'Ann', rating: n + 3, content: `Review ${id}`, date: `2026-11-0${n + 1}T10:00:00Z` }),
    );
    const imported = await admin(a, 'POST', `/admin/orgs/${orgId}/reviews?format=ndjson`, records.join('\n'), 'application/x-ndjson');
    expect(imported.body).toMatchObject({ imported: 3, updated: 0, rejectedTotal: 0 });
    const seen = await get(b, '/api/v1/reviews', key);
    expect(seen.status).toBe(200);
    expect((seen.body.data as { content: string }[]).map((r) => r.content)).toEqual(['Review c', 'Review b', 'Review a']);
    expect((await get(b, '/api/v1/reviews/stats', key)).body).toMatchObject({ data: { totalReviews: 3, averageRating: 4 } });
  });
});
