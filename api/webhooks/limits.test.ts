/**
 * Webhook limits per organization (CONTRACT §12, "Limits per organization";
 * issue 34 items 1 and 2) and a Test that must not undo a Disable (item 4),
 * through the admin API, the dashboard and the CLI (one WebhooksService
 * behind all three), against two instances sharing one store (embedded, and
 * MongoDB in the api-on-mongodb project) and one Redis,
 * and a real HTTPS receiver on loopback (let in through
 * WEBHOOK_ALLOW_NETWORKS, its certificate trusted through
 * NODE_EXTRA_CA_CERTS) that verifies every delivery with `standardwebhooks`.
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { Client } from '../dashboard/test-client.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { CHANGES_PER_MINUTE } from './limits.ts';
import { flatHeaders, startReceiver, testCert, type Receiver } from './test-receiver.ts';

let a: TestService;
let b: TestService;
let receiver: Receiver;
let caDir: string;
const savedExtra = process.env.NODE_EXTRA_CA_CERTS;

beforeAll(async () => {
  const cert = await testCert();
  receiver = await startReceiver(cert);
  caDir = mkdtempSync(join(tmpdir(), 'webhook-limits-ca-'));
  writeFileSync(join(caDir, 'receiver.pem'), cert.cert);
  process.env.NODE_EXTRA_CA_CERTS = join(caDir, 'receiver.pem');
  // One deployment: the same SECRETS_KEY on both instances (each opens the secrets the other sealed).
  const env = { WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '100', SECRETS_KEY: randomBytes(32).toString('base64') };
  a = await startTestService({ env });
  // A second instance on the same store and the same Redis, as a load balancer spreads requests over.
  b = await startTestService({ store: a.service.store, env: { ...env, REDIS_KEY_PREFIX: a.service.config.redisKeyPrefix } });
}, 60_000);

afterAll(async () => {
  await b?.close();
  await a?.close();
  await receiver?.close();
  if (savedExtra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = savedExtra;
  rmSync(caDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** The admin API of an instance, with the answer's headers. */
async function admin(t: TestService, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${t.service.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${t.service.adminToken}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

async function newOrg(): Promise<string> {
  const org = await admin(a, 'POST', '/admin/orgs', { name: `Limits ${Math.random().toString(36).slice(2, 8)}`, plan: 'growth' });
  expect(org.status).toBe(201);
  return org.body.id as string;
}

const create = (t: TestService, orgId: string): Promise<Answer> => admin(t, 'POST', '/admin/webhooks', { orgId, url: receiver.url(), events: ['review.created'] });

/** An Owner of `orgId` signed in to the dashboard of instance `t`. */
async function owner(t: TestService, orgId: string): Promise<Client> {
  const email = `owner-${Math.random().toString(36).slice(2, 8)}@example.com`;
  expect((await admin(t, 'POST', '/admin/users', { orgId, email, role: 'owner', password: 'a long enough password' })).status).toBe(201);
  const client = new Client(t, new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), servername: 'localhost' }));
  expect((await client.signIn(email, 'a long enough password')).status).toBe(200);
  return client;
}

/** The admin CLI against instance `t`: its exit code and stderr. */
function cli(t: TestService, ...args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../admin/cli.ts'), ...args], {
      env: { ...process.env, DATA_DIR: t.dataDir, ADMIN_PORT: String(t.service.ports.admin), ADMIN_TOKEN: '', REDIS_URL: '', MONGODB_URL: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

async function until<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('webhook limits per organization', () => {
  it('WEBHOOK_MAX_ENDPOINTS is 20 unless set, from 1 to 1000, and a bad value names the variable', () => {
    expect(loadConfig({}).webhookMaxEndpoints).toBe(20);
    expect(loadConfig({ WEBHOOK_MAX_ENDPOINTS: '5' }).webhookMaxEndpoints).toBe(5);
    for (const value of ['0', '1001', '2.5', 'many', '-1']) {
      expect(() => loadConfig({ WEBHOOK_MAX_ENDPOINTS: value }), value).toThrow(ConfigError);
      expect(() => loadConfig({ WEBHOOK_MAX_ENDPOINTS: value }), value).toThrow(/WEBHOOK_MAX_ENDPOINTS/);
    }
  });

  it('refuses the 21st endpoint of an organization with a 409 that says why, on either instance, through the admin API, the dashboard and the CLI; another organization is not counted with it', async () => {
    const orgId = await newOrg();
    for (let n = 1; n <= 20; n++) expect((await create(n % 2 ? a : b, orgId)).status, `endpoint ${n}`).toBe(201);
    for (const t of [a, b]) {
      const refused = await create(t, orgId);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: 'webhook_limit_reached', message: expect.stringMatching(/at most 20 webhook endpoints/) });
    }
    // The dashboard and the CLI meet the same refusal.
    const page = await (await owner(b, orgId)).send('POST', '/dashboard/api/webhooks', { url: receiver.url(), events: ['review.created'] });
    expect([page.status, page.body.error]).toEqual([409, 'webhook_limit_reached']);
    const command = await cli(a, 'webhooks', 'create', '--org', orgId, '--url', receiver.url(), '--json');
    expect(command.code).not.toBe(0);
    expect(command.stderr).toMatch(/at most 20 webhook endpoints/);
    expect(((await admin(a, 'GET', `/admin/webhooks?orgId=${orgId}`)).body.data as unknown[]).length).toBe(20);
    expect((await create(a, await newOrg())).status).toBe(201);
  }, 60_000);

  it(`takes at most ${CHANGES_PER_MINUTE} creations, tests, rotations, replays, enables and disables a minute per organization across instances (Redis): the next is 429 with Retry-After on the admin API and the dashboard; another organization is unaffected`, async () => {
    const orgId = await newOrg();
    const made = await create(a, orgId);
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    // 1 creation, then tests and rotations on both instances: 30 in all.
    for (let n = 2; n <= CHANGES_PER_MINUTE; n++) {
      const t = n % 2 ? a : b;
      const answer = n % 3 ? await admin(t, 'POST', `/admin/webhooks/${id}/rotate-secret`) : await admin(t, 'POST', `/admin/webhooks/${id}/test`);
      expect(answer.status, `change ${n}`).toBe(200);
    }
    for (const [t, path] of [[a, `/admin/webhooks/${id}/test`], [b, `/admin/webhooks/${id}/rotate-secret`]] as const) {
      const limited = await admin(t, 'POST', path);
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ error: 'rate_limit_exceeded', message: expect.stringMatching(/at most 30 times a minute/), details: [] });
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    expect((await create(b, orgId)).status).toBe(429);
    const page = await (await owner(a, orgId)).send('POST', `/dashboard/api/webhooks/${id}/rotate-secret`);
    expect([page.status, page.body.error, Number(page.headers['retry-after']) > 0]).toEqual([429, 'rate_limit_exceeded', true]);
    // Replay, enable and disable are changes too (issue 34, second review L3), on the admin API and the dashboard.
    expect((await admin(a, 'POST', `/admin/webhooks/${id}/disable`)).status).toBe(429);
    expect((await admin(b, 'POST', `/admin/webhooks/${id}/enable`)).status).toBe(429);
    expect((await admin(a, 'POST', `/admin/webhooks/${id}/replay/msg_anything`)).status).toBe(429);
    const dashboard = await owner(b, orgId);
    for (const path of [`/dashboard/api/webhooks/${id}/disable`, `/dashboard/api/webhooks/${id}/enable`, `/dashboard/api/webhooks/${id}/deliveries/msg_anything/replay`]) {
      const refused = await dashboard.send('POST', path);
      expect([refused.status, refused.body.error, Number(refused.headers['retry-after']) > 0], path).toEqual([429, 'rate_limit_exceeded', true]);
    }
    expect(((await admin(a, 'GET', `/admin/webhooks?orgId=${orgId}`)).body.data as { state: string }[])[0]!.state).toBe('enabled');
    // Reading is not counted.
    expect((await admin(a, 'GET', `/admin/webhooks/${id}/deliveries`)).status).toBe(200);
    // Another organization: its own count.
    const other = await create(b, await newOrg());
    expect(other.status).toBe(201);
    expect((await admin(a, 'POST', `/admin/webhooks/${other.body.id as string}/rotate-secret`)).status).toBe(200);
  }, 60_000);

  it('keeps 3 live secrets at most: after a fourth rotation a delivery carries 3 signatures, the newest three', async () => {
    const orgId = await newOrg();
    const made = await create(a, orgId);
    const id = made.body.id as string;
    const secrets = [made.body.secret as string];
    for (let n = 1; n <= 4; n++) {
      const rotated = await admin(n % 2 ? a : b, 'POST', `/admin/webhooks/${id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      secrets.push(rotated.body.secret as string);
    }
    const seen = receiver.received.length;
    const tested = await admin(a, 'POST', `/admin/webhooks/${id}/test`);
    expect(tested.body).toMatchObject({ status: 'delivered', statusCode: 200 });
    const got = (await until('the test delivery', () => receiver.received.slice(seen).find((r) => r.headers['webhook-id'] === tested.body.id)))!;
    expect((got.headers['webhook-signature'] as string).split(' ')).toHaveLength(3);
    for (const s of secrets.slice(2)) new Webhook(s).verify(got.body, flatHeaders(got.headers));
    for (const s of secrets.slice(0, 2)) expect(() => new Webhook(s).verify(got.body, flatHeaders(got.headers))).toThrow();
  }, 30_000);

  it('a Test in flight does not undo a Disable made meanwhile', async () => {
    const orgId = await newOrg();
    const made = await create(a, orgId);
    const id = made.body.id as string;
    const held: ServerResponse[] = [];
    const answer = receiver.handler;
    receiver.handler = (req, res, body) => {
      if ((JSON.parse(body) as { data?: { webhookId?: string } }).data?.webhookId === id) held.push(res);
      else answer(req, res, body);
    };
    try {
      const testing = admin(a, 'POST', `/admin/webhooks/${id}/test`);
      await until('the test request at the receiver', () => held.length === 1);
      expect((await admin(b, 'POST', `/admin/webhooks/${id}/disable`)).body).toEqual({ id, state: 'disabled' });
      held[0]!.writeHead(200).end('ok');
      expect((await testing).body).toMatchObject({ status: 'delivered', statusCode: 200 });
      const listed = (await admin(a, 'GET', `/admin/webhooks?orgId=${orgId}`)).body.data as { id: string; state: string; lastDeliveryAt: string | null }[];
      expect(listed.find((e) => e.id === id)).toMatchObject({ state: 'disabled', lastDeliveryAt: expect.any(String) });
    } finally {
      receiver.handler = answer;
      for (const res of held) if (!res.writableEnded) res.writeHead(200).end();
    }
  }, 30_000);
});
