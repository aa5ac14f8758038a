/**
 * The review page on two service processes (`api/main.ts`, as deployed) on
 * one FerretDB database and one Redis, with one SECRETS_KEY and a real SMTP
 * sink: the form served by one is accepted by the other, the confirmation
 * mail goes out (a job on BullMQ), the review confirmed on one is served
 * by the other, and the per-address limit counts across both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request, Agent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, inject, it, vi } from 'vitest';
import { uniqueDbName } from '../test/ferretdb.ts';
import { freePorts } from '../test/global-setup.ts';
import { describeOn, ferretdbTarget } from '../test/mongo-suites.ts';

const MAIN = join(import.meta.dirname, '..', 'main.ts');
const target = ferretdbTarget();

interface Instance {
  child: ChildProcess;
  port: number;
  admin: string;
  agent: Agent;
}

async function startInstance(shared: Record<string, string>): Promise<Instance> {
  const dir = mkdtempSync(join(tmpdir(), 'collect-instances-'));
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
  const ca = readFileSync(join(dir, 'tls-cert.pem'), 'utf8');
  return { child, port: port!, admin: `http://127.0.0.1:${adminPort}`, agent: new Agent({ ca, servername: 'localhost', keepAlive: false }) };
}

function http(i: Instance, method: string, path: string, options: { body?: string; from: string; key?: string }): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (options.body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    const req = request({ method, host: '127.0.0.1', port: i.port, path, agent: i.agent, headers, localAddress: options.from }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describeOn(target, 'the review page on two instances (one MongoDB database, one Redis)', () => {
  const token = `collect-instances-${Math.random().toString(36).slice(2)}`;
  let a: Instance;
  let b: Instance;
  let smtp: SMTPServer;
  const inbox: string[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          inbox.push(Buffer.concat(chunks).toString('utf8'));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const shared = {
      MONGODB_URL: `${target.url.replace(/\/$/, '')}/${uniqueDbName('collect2')}`,
      REDIS_URL: inject('redisUrl'),
      REDIS_KEY_PREFIX: `ci${process.pid}:`,
      ADMIN_TOKEN: token,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    };
    [a, b] = await Promise.all([startInstance(shared), startInstance(shared)]);
  }, 60_000);
  afterAll(async () => {
    for (const i of [a, b]) {
      if (!i || i.child.exitCode !== null) continue;
      const gone = new Promise((r) => i.child.once('exit', r));
      i.child.kill('SIGTERM');
      await gone;
      i.agent.destroy();
    }
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  });

  const admin = async (i: Instance, path: string, body: unknown) => {
    const res = await fetch(`${i.admin}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()) as Record<string, unknown>;
  };

  it('a review written through one, confirmed through the other, is served by both; the limit counts across both', async () => {
    const org = await admin(a, '/admin/orgs', { name: 'Shared shop', plan: 'growth' });
    const key = (await admin(a, '/admin/keys', { orgId: org.id, name: 'k' })).key as string;
    const { collectId } = (await admin(b, '/admin/collect/link', { orgId: org.id })) as { collectId: string };
    const path = `/r/${collectId}?lang=en`;
    const page = await http(a, 'GET', path, { from: '127.0.7.1' });
    expect(page.status).toBe(200);
    const formToken = /name="token" value="([^"]+)"/.exec(page.text)![1]!;
    await sleep(2100);
    const body = (n: number) => new URLSearchParams({ token: formToken, rating: '5', content: `Shared ${n}`, authorName: 'Ivy', email: `ivy${n}@mail.example`, consent: 'yes', website: '' }).toString();
    const sent = await http(b, 'POST', path, { from: '127.0.7.2', body: body(0) });
    expect(sent.status).toBe(200);
    expect(sent.text).toContain('We sent you an email');

    const mail = await vi.waitFor(
      () => {
        if (inbox.length === 0) throw new Error('no mail yet');
        return inbox[0]!;
      },
      { timeout: 20_000, interval: 100 },
    );
    const confirm = /https:\/\/[^/\s"]+(\/r\/confirm\/sub_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(mail.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![1]!;
    expect((await http(a, 'GET', confirm, { from: '127.0.7.3' })).status).toBe(200);
    expect((await http(a, 'POST', confirm, { from: '127.0.7.3', body: '' })).text).toContain('confirmed and published');
    expect((await http(b, 'POST', confirm, { from: '127.0.7.3', body: '' })).status).toBe(410);
    for (const i of [a, b]) {
      const list = await http(i, 'GET', '/api/v1/reviews?platform=DIRECT', { from: '127.0.7.4', key });
      expect((JSON.parse(list.text) as { data: { content: string; isVerified: boolean }[] }).data.map((r) => [r.content, r.isVerified])).toEqual([['Shared 0', false]]);
    }

    // Five an hour from one address, counted in Redis: alternate instances, the sixth is refused.
    const statuses: number[] = [];
    for (let n = 1; n <= 6; n++) statuses.push((await http(n % 2 === 0 ? a : b, 'POST', path, { from: '127.0.7.9', body: body(n) })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});
