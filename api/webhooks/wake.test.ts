/**
 * The running service delivers an import's events at once, not on its next
 * poll: the store tells the dispatcher of its outbox writes
 * (`store.outboxWritten`), through every wrapper the service puts around the
 * store (the metrics one dropped it once, and every event then waited for
 * the poll: a second by default). The poll is set to ten minutes here, so a
 * delivery that arrives at all arrived because the write woke the dispatcher.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { startReceiver, testCert, type Receiver } from './test-receiver.ts';

let t: TestService;
let receiver: Receiver;
let caDir: string;
const savedExtra = process.env.NODE_EXTRA_CA_CERTS;

beforeAll(async () => {
  const cert = await testCert();
  receiver = await startReceiver(cert);
  caDir = mkdtempSync(join(tmpdir(), 'webhooks-wake-ca-'));
  writeFileSync(join(caDir, 'receiver.pem'), cert.cert);
  process.env.NODE_EXTRA_CA_CERTS = join(caDir, 'receiver.pem');
  t = await startTestService({ redis: false, env: { WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '600000' } });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await receiver?.close();
  if (savedExtra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = savedExtra;
  rmSync(caDir, { recursive: true, force: true });
});

describe('the dispatcher settings', () => {
  it('are read with the rest of the configuration (the one validated module): defaults, values, and a bad value refused by name', () => {
    expect(loadConfig({})).toMatchObject({ webhookPollMs: 1000, webhookLockMs: 30_000, webhookRetentionDays: 30 });
    expect(loadConfig({ WEBHOOK_POLL_MS: '600000', WEBHOOK_LOCK_MS: '2000', WEBHOOK_RETENTION_DAYS: '7' })).toMatchObject({ webhookPollMs: 600_000, webhookLockMs: 2000, webhookRetentionDays: 7 });
    for (const [name, value] of [['WEBHOOK_POLL_MS', '10'], ['WEBHOOK_POLL_MS', '1s'], ['WEBHOOK_LOCK_MS', '999'], ['WEBHOOK_RETENTION_DAYS', '0'], ['WEBHOOK_RETENTION_DAYS', '1.5'], ['WEBHOOK_POLL_MS', '2147483648'], ['WEBHOOK_LOCK_MS', '99999999999'], ['WEBHOOK_RETENTION_DAYS', '36501']] as const) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(name);
    }
  });
});

it('delivers an import’s event without waiting for the poll (WEBHOOK_POLL_MS ten minutes)', async () => {
  const org = await t.admin('POST', '/admin/orgs', { name: 'Woken', plan: 'growth' });
  expect(org.status).toBe(201);
  const orgId = org.body.id as string;
  expect((await t.admin('POST', '/admin/webhooks', { orgId, url: receiver.url() })).status).toBe(201);
  // The dispatcher's first sweep (at start) is long over: only the import's write can wake it now.
  await new Promise((r) => setTimeout(r, 500));
  const line = JSON.stringify({ platform: 'GOOGLE', externalId: 'w1', authorName: 'Wanda', rating: 5, content: 'Woken at once', date: '2026-10-01T10:00:00Z' });
  expect((await t.admin('POST', `/admin/orgs/${orgId}/reviews?format=ndjson`, `${line}\n`)).status).toBe(200);
  const end = Date.now() + 20_000;
  while (receiver.received.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  expect(receiver.received.map((r) => (JSON.parse(r.body) as { type: string; data: { content: string } }).type)).toEqual(['review.created']);
  expect((JSON.parse(receiver.received[0]!.body) as { data: { content: string } }).data.content).toBe('Woken at once');
}, 60_000);
