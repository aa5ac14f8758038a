/**
 * The dashboard's Webhooks endpoints against a real service and a real HTTPS
 * receiver on loopback (let in through WEBHOOK_ALLOW_NETWORKS, its certificate
 * trusted through NODE_EXTRA_CA_CERTS), which verifies deliveries with the
 * `standardwebhooks` package: Owner/Admin only (a Member gets 403 on every
 * route, reading included), Origin and CSRF like every dashboard route,
 * hostile input refused with a 4xx naming the field, the secret in the
 * creation and rotation answers only (never in a list, a log or another
 * answer), another organization's endpoint unseen, and an audit record naming
 * the person for every change.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import type { DeliveryResult } from '../webhooks/deliver.ts';
import { endpointAfterAttempt, FAILING_DISABLES_AFTER_MS } from '../webhooks/endpoint-health.ts';
import { flatHeaders, startReceiver, testCert, type Receiver, type TestCert } from '../webhooks/test-receiver.ts';
import { Client, type Answer } from './test-client.ts';

const PASSWORD = 'a long enough password';

let t: TestService;
let receiver: Receiver;
let cert: TestCert;
let agent: Agent;
let caDir: string;
let orgId: string;
const logLines: string[] = [];
/** Every answer any client received, to look for secrets where they must not be. */
const seen: { path: string; text: string }[] = [];
const savedExtra = process.env.NODE_EXTRA_CA_CERTS;

class RecordingClient extends Client {
  override async send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const answer = await super.send(method, path, body, headers);
    seen.push({ path: `${method} ${path}`, text: JSON.stringify(answer.body) });
    return answer;
  }
}

async function signedIn(email: string, role: string, org = orgId): Promise<Client> {
  expect((await t.admin('POST', '/admin/users', { orgId: org, email, role, password: PASSWORD })).status).toBe(201);
  const c = new RecordingClient(t, agent);
  expect((await c.signIn(email, PASSWORD)).status).toBe(200);
  return c;
}

async function until<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  cert = await testCert();
  receiver = await startReceiver(cert);
  caDir = mkdtempSync(join(tmpdir(), 'webhooks-page-ca-'));
  writeFileSync(join(caDir, 'receiver.pem'), cert.cert);
  process.env.NODE_EXTRA_CA_CERTS = join(caDir, 'receiver.pem');
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  t = await startTestService({ redis: false, logger: createLogger('debug', sink), env: { LOG_LEVEL: 'debug', WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '100' } });
  agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
  orgId = (await t.org('growth')).orgId;
}, 60_000);

afterAll(async () => {
  agent?.destroy();
  await t?.close();
  await receiver?.close();
  if (savedExtra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = savedExtra;
  rmSync(caDir, { recursive: true, force: true });
});

describe('dashboard webhooks', () => {
  let owner: Client;
  let member: Client;
  let hookId: string;
  const secrets: string[] = [];

  it('lets an Owner add an endpoint (secret once), test it, replay, rotate, disable, enable and remove it, each audited with the Owner as actor', async () => {
    owner = await signedIn('owner@example.com', 'owner');
    expect((await owner.send('GET', '/dashboard/api/webhooks')).body).toEqual({ data: [] });

    const created = await owner.send('POST', '/dashboard/api/webhooks', { url: receiver.url(), events: ['review.created', 'review.removed'], description: 'CRM' });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.body).toMatchObject({ url: receiver.url(), events: ['review.created', 'review.removed'], description: 'CRM', state: 'enabled' });
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    secrets.push(secret);
    hookId = created.body.id as string;

    const listed = await owner.send('GET', '/dashboard/api/webhooks');
    expect(listed.body.data).toEqual([
      { id: hookId, url: receiver.url(), events: ['review.created', 'review.removed'], description: 'CRM', state: 'enabled', disabledReason: null, createdAt: created.body.createdAt, lastDeliveryAt: null, failingSince: null },
    ]);
    expect((await owner.send('GET', `/dashboard/api/webhooks/${hookId}`)).body).toMatchObject({ id: hookId, state: 'enabled', disabledReason: null });

    // Test event: sent now, verified by the receiver with the secret shown at creation.
    receiver.received.length = 0;
    const tested = await owner.send('POST', `/dashboard/api/webhooks/${hookId}/test`);
    expect(tested.body).toMatchObject({ status: 'delivered', statusCode: 200 });
    expect(receiver.received).toHaveLength(1);
    const event = new Webhook(secret).verify(receiver.received[0]!.body, flatHeaders(receiver.received[0]!.headers)) as { type: string; data: { webhookId: string } };
    expect(event).toMatchObject({ type: 'webhook.test', data: { webhookId: hookId } });

    const log = await owner.send('GET', `/dashboard/api/webhooks/${hookId}/deliveries`);
    expect(log.body.data).toEqual([expect.objectContaining({ id: tested.body.id, type: 'webhook.test', status: 'delivered', attempts: 1, lastStatusCode: 200, nextAttemptAt: null })]);
    expect((await owner.send('GET', `/dashboard/api/webhooks/${hookId}/deliveries?status=failed`)).body.data).toEqual([]);
    expect((await owner.send('GET', `/dashboard/api/webhooks`)).body.data).toEqual([expect.objectContaining({ lastDeliveryAt: expect.any(String) })]);

    // Replay: the same webhook-id again.
    receiver.received.length = 0;
    const replayed = await owner.send('POST', `/dashboard/api/webhooks/${hookId}/deliveries/${tested.body.id as string}/replay`);
    expect(replayed.body).toEqual({ id: tested.body.id, status: 'pending' });
    await until('the replay', () => receiver.received.length >= 1);
    expect(receiver.received[0]!.headers['webhook-id']).toBe(tested.body.id);

    // Rotation: the new secret in this answer only; for 24 h both sign.
    const rotated = await owner.send('POST', `/dashboard/api/webhooks/${hookId}/rotate-secret`);
    expect(rotated.headers['cache-control']).toBe('no-store');
    expect(Object.keys(rotated.body).sort()).toEqual(['id', 'secret']);
    const next = rotated.body.secret as string;
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
    secrets.push(next);
    receiver.received.length = 0;
    await owner.send('POST', `/dashboard/api/webhooks/${hookId}/test`);
    const signed = receiver.received[0]!;
    new Webhook(secret).verify(signed.body, flatHeaders(signed.headers));
    new Webhook(next).verify(signed.body, flatHeaders(signed.headers));

    expect((await owner.send('POST', `/dashboard/api/webhooks/${hookId}/disable`)).body).toEqual({ id: hookId, state: 'disabled' });
    expect((await owner.send('GET', `/dashboard/api/webhooks/${hookId}`)).body).toMatchObject({ state: 'disabled', disabledReason: 'manual' });
    expect((await owner.send('POST', `/dashboard/api/webhooks/${hookId}/enable`)).body).toEqual({ id: hookId, state: 'enabled' });

    const audit = await owner.send('GET', '/dashboard/api/audit');
    const records = (audit.body.data as { action: string; actor: { email: string }; target: { id: string } }[]).filter((r) => r.target.id === hookId);
    expect(records.map((r) => r.action).sort()).toEqual(['webhook.created', 'webhook.disabled', 'webhook.enabled', 'webhook.replayed', 'webhook.secret_rotated', 'webhook.tested', 'webhook.tested']);
    expect(records.every((r) => r.actor.email === 'owner@example.com')).toBe(true);
  });

  it('refuses hostile and malformed input with a 400 that names the field', async () => {
    const refused = async (body: unknown, parameter: string, message: RegExp) => {
      const res = await owner.send('POST', '/dashboard/api/webhooks', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details?.map((d) => d.parameter), JSON.stringify(body)).toEqual([parameter]);
      expect(res.body.message, JSON.stringify(body)).toMatch(message);
    };
    await refused({ url: 'http://example.com/hook' }, 'url', /must start with https:\/\//);
    await refused({ url: 'https://10.0.0.7/hook' }, 'url', /private networks/);
    await refused({ url: 'https://169.254.169.254/latest/meta-data' }, 'url', /private networks/);
    await refused({ url: 'https://[::1]:8443/hook' }, 'url', /private networks/);
    await refused({ url: 'https://[::ffff:192.168.1.1]/hook' }, 'url', /private networks/);
    await refused({ url: 'https://100.64.0.1/hook' }, 'url', /private networks/);
    await refused({ url: 'javascript:alert(1)' }, 'url', /must start with https:\/\//);
    await refused({ url: 'not a url' }, 'url', /is not a URL/);
    await refused({ url: 'https://user:pw@example.com/' }, 'url', /user name or password/);
    await refused({ url: `https://example.com/${'a'.repeat(2100)}` }, 'url', /longer than 2000/);
    await refused({ url: 12 }, 'url', /must be a string/);
    await refused({}, 'url', /url is required/);
    await refused({ url: receiver.url(), events: ['review.created', 'review.exploded'] }, 'events', /events must name some of/);
    await refused({ url: receiver.url(), events: [] }, 'events', /events must name some of/);
    await refused({ url: receiver.url(), events: 'review.created' + ',x'.repeat(3) }, 'events', /events must name some of/);
    await refused({ url: receiver.url(), description: 'x'.repeat(501) }, 'description', /at most 500 characters/);
    await refused({ url: receiver.url(), description: { $gt: '' } }, 'description', /must be a string/);
    await refused({ url: receiver.url(), orgId: 'org_someone_else' }, 'orgId', /not known/);

    for (const raw of ['[1,2]', 'null', '"x"', '{"url":']) {
      const res = await owner.send('POST', '/dashboard/api/webhooks', raw, { 'content-type': 'application/json' });
      expect([res.status, res.body.error], raw).toEqual([400, 'bad_request']);
    }
    const form = await owner.send('POST', '/dashboard/api/webhooks', 'url=https://example.com', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(400);
    const huge = await owner.send('POST', '/dashboard/api/webhooks', { url: receiver.url(), description: 'x'.repeat(70_000) });
    expect(huge.status).toBe(413);
    // Unknown status filter, unknown endpoint, unknown message: clear 4xx.
    const status = await owner.send('GET', `/dashboard/api/webhooks/${hookId}/deliveries?status=lost`);
    expect([status.status, status.body.details?.[0]?.parameter]).toEqual([400, 'status']);
    expect((await owner.send('GET', '/dashboard/api/webhooks/wh_nope')).status).toBe(404);
    expect((await owner.send('POST', `/dashboard/api/webhooks/${hookId}/deliveries/${'m'.repeat(5000)}/replay`)).status).toBe(404);
    expect((await owner.send('POST', `/dashboard/api/webhooks/${encodeURIComponent('../../keys')}/test`)).status).toBe(404);
    const badEscape = await owner.send('GET', '/dashboard/api/webhooks/%E0%A4%A/deliveries');
    expect(badEscape.status).toBeGreaterThanOrEqual(400);
    expect(badEscape.status).toBeLessThan(500);
    const listStatus = await owner.send('GET', `/dashboard/api/webhooks/${hookId}/deliveries?status=failed&status=pending`);
    expect(listStatus.status).toBe(400);
    // Nothing was created by any of it.
    expect((await owner.send('GET', '/dashboard/api/webhooks')).body.data).toHaveLength(1);
  });

  it('refuses a Member on every route (403) and an Admin may do it all', async () => {
    member = await signedIn('member@example.com', 'member');
    const attempts = await Promise.all([
      member.send('GET', '/dashboard/api/webhooks'),
      member.send('GET', `/dashboard/api/webhooks/${hookId}`),
      member.send('GET', `/dashboard/api/webhooks/${hookId}/deliveries`),
      member.send('POST', '/dashboard/api/webhooks', { url: receiver.url() }),
      member.send('POST', `/dashboard/api/webhooks/${hookId}/test`),
      member.send('POST', `/dashboard/api/webhooks/${hookId}/rotate-secret`),
      member.send('POST', `/dashboard/api/webhooks/${hookId}/disable`),
      member.send('POST', `/dashboard/api/webhooks/${hookId}/enable`),
      member.send('POST', `/dashboard/api/webhooks/${hookId}/deliveries/msg_x/replay`),
      member.send('DELETE', `/dashboard/api/webhooks/${hookId}`),
    ]);
    expect(attempts.map((a) => a.status)).toEqual(Array(10).fill(403));
    expect(attempts.every((a) => a.body.error === 'forbidden_role' && /Owner or Admin/.test(a.body.message as string))).toBe(true);

    const admin = await signedIn('admin@example.com', 'admin');
    const made = await admin.send('POST', '/dashboard/api/webhooks', { url: receiver.url().replace('/hook', '/admin') });
    expect(made.status).toBe(201);
    expect(made.body.events).toEqual(['review.created', 'review.updated', 'review.removed', 'source.state_changed']);
    secrets.push(made.body.secret as string);
    expect((await admin.send('DELETE', `/dashboard/api/webhooks/${made.body.id as string}`)).body).toEqual({ id: made.body.id, removed: true });
    const audit = (await t.service.store.people.audit.listByOrg(orgId, 200)).filter((r) => r.target.id === made.body.id);
    expect(audit.map((r) => [r.action, r.actor.email]).sort()).toEqual([['webhook.created', 'admin@example.com'], ['webhook.removed', 'admin@example.com']]);
  });

  it('needs our Origin and the CSRF token on every change, and hides another organization\'s endpoints', async () => {
    const noToken = await owner.send('POST', `/dashboard/api/webhooks/${hookId}/disable`, undefined, { 'x-csrf-token': '' });
    expect([noToken.status, noToken.body.error]).toEqual([403, 'csrf_failed']);
    const wrongToken = await owner.send('POST', '/dashboard/api/webhooks', { url: receiver.url() }, { 'x-csrf-token': 'x'.repeat(43) });
    expect([wrongToken.status, wrongToken.body.error]).toEqual([403, 'csrf_failed']);
    const elsewhere = await owner.send('DELETE', `/dashboard/api/webhooks/${hookId}`, undefined, { origin: 'https://evil.example' });
    expect([elsewhere.status, elsewhere.body.error]).toEqual([403, 'csrf_failed']);
    expect((await owner.send('GET', `/dashboard/api/webhooks/${hookId}`)).body).toMatchObject({ state: 'enabled' });

    const other = (await t.org('growth')).orgId;
    const stranger = await signedIn('stranger@example.com', 'owner', other);
    expect((await stranger.send('GET', '/dashboard/api/webhooks')).body.data).toEqual([]);
    for (const [method, path] of [
      ['GET', `/webhooks/${hookId}`],
      ['GET', `/webhooks/${hookId}/deliveries`],
      ['POST', `/webhooks/${hookId}/test`],
      ['POST', `/webhooks/${hookId}/rotate-secret`],
      ['POST', `/webhooks/${hookId}/disable`],
      ['DELETE', `/webhooks/${hookId}`],
    ] as const) {
      const res = await stranger.send(method, `/dashboard/api${path}`);
      expect([res.status, res.body.error], `${method} ${path}`).toEqual([404, 'not_found']);
    }
    // Signed out: 401.
    const anonymous = new Client(t, agent);
    expect((await anonymous.send('GET', '/dashboard/api/webhooks')).status).toBe(401);
  });

  it('shows why the service disabled an endpoint (a 410 Gone), and the Owner can remove it', async () => {
    const gone = await startReceiver(cert, (_req, res) => res.writeHead(410).end('gone'));
    try {
      const made = await owner.send('POST', '/dashboard/api/webhooks', { url: gone.url(), events: ['review.updated'] });
      secrets.push(made.body.secret as string);
      const id = made.body.id as string;
      const tested = await owner.send('POST', `/dashboard/api/webhooks/${id}/test`);
      expect(tested.body).toMatchObject({ statusCode: 410 });
      const listed = (await owner.send('GET', '/dashboard/api/webhooks')).body.data as Record<string, unknown>[];
      expect(listed.find((e) => e.id === id)).toMatchObject({ state: 'disabled', disabledReason: 'the endpoint answered 410 Gone', failingSince: expect.any(String) });
      expect((await owner.send('DELETE', `/dashboard/api/webhooks/${id}`)).body).toEqual({ id, removed: true });
      expect(((await owner.send('GET', '/dashboard/api/webhooks')).body.data as unknown[]).length).toBe(1);
    } finally {
      await gone.close();
    }
  });

  it('shows why the service disabled an endpoint after 5 days of failures (the rule on an injected clock, written as the dispatcher writes it)', async () => {
    const made = await owner.send('POST', '/dashboard/api/webhooks', { url: receiver.url().replace('/hook', '/five-days'), description: 'Flaky' });
    secrets.push(made.body.secret as string);
    const id = made.body.id as string;
    const failed: DeliveryResult = { delivered: false, statusCode: 503, error: 'HTTP 503', retryAfterMs: null, excerpt: '', bodyBytes: 0, truncated: false };
    const start = new Date('2026-11-01T09:00:00.000Z');
    let health = endpointAfterAttempt({ state: 'enabled', disabledReason: null, lastDeliveryAt: null, failingSince: null }, failed, start);
    health = endpointAfterAttempt(health, failed, new Date(start.getTime() + FAILING_DISABLES_AFTER_MS));
    expect(health.state).toBe('disabled');
    await t.service.store.webhooks.update(id, { state: health.state, disabledReason: health.disabledReason, failingSince: health.failingSince!.toISOString() });
    const listed = ((await owner.send('GET', '/dashboard/api/webhooks')).body.data as Record<string, unknown>[]).find((e) => e.id === id);
    expect(listed).toMatchObject({ state: 'disabled', disabledReason: 'every delivery failed since 2026-11-01T09:00:00.000Z (5 days)', failingSince: '2026-11-01T09:00:00.000Z' });
    expect((await owner.send('GET', `/dashboard/api/webhooks/${id}`)).body).toMatchObject({ disabledReason: listed!.disabledReason });
    // Enabled again by a person: the reason goes, the 5 days count afresh.
    expect((await owner.send('POST', `/dashboard/api/webhooks/${id}/enable`)).body).toEqual({ id, state: 'enabled' });
    expect((await owner.send('GET', `/dashboard/api/webhooks/${id}`)).body).toMatchObject({ state: 'enabled', disabledReason: null, failingSince: null });
    expect((await owner.send('DELETE', `/dashboard/api/webhooks/${id}`)).status).toBe(200);
  });

  it('shows each secret in its creation or rotation answer only, and logs none', async () => {
    expect(secrets).toHaveLength(5);
    for (const secret of secrets) {
      const body = secret.slice('whsec_'.length);
      const where = seen.filter((s) => s.text.includes(body)).map((s) => s.path.replace(/wh_[A-Za-z0-9_-]+/, '{id}'));
      expect(where.length, secret).toBe(1);
      expect(['POST /dashboard/api/webhooks', 'POST /dashboard/api/webhooks/{id}/rotate-secret']).toContain(where[0]);
      expect(logLines.join('').includes(body), 'a secret in the log').toBe(false);
    }
    expect(logLines.length).toBeGreaterThan(10);
  });
});
