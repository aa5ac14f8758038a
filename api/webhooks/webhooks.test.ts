/**
 * Webhooks end to end (CONTRACT §12): the running service, the admin CLI's
 * `webhooks` commands, and a real HTTPS receiver on loopback (let in through
 * WEBHOOK_ALLOW_NETWORKS, its certificate trusted through
 * NODE_EXTRA_CA_CERTS) that verifies every delivery with the
 * `standardwebhooks` package. Events come from admin imports (the store's one
 * upsert door, which source syncs take too).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createLogger } from '../logger.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { flatHeaders, startReceiver, testCert, type Receiver, type TestCert } from './test-receiver.ts';

let t: TestService;
let cert: TestCert;
let receiver: Receiver;
let caDir: string;
const logLines: string[] = [];
const answers: string[] = [];
const savedExtra = process.env.NODE_EXTRA_CA_CERTS;

beforeAll(async () => {
  cert = await testCert();
  receiver = await startReceiver(cert);
  caDir = mkdtempSync(join(tmpdir(), 'webhooks-ca-'));
  writeFileSync(join(caDir, 'receiver.pem'), cert.cert);
  process.env.NODE_EXTRA_CA_CERTS = join(caDir, 'receiver.pem');
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  t = await startTestService({ redis: false, logger: createLogger('debug', sink), env: { LOG_LEVEL: 'debug', WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '100' } });
}, 60_000);

afterAll(async () => {
  await t.close();
  await receiver.close();
  if (savedExtra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = savedExtra;
  rmSync(caDir, { recursive: true, force: true });
});

function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../admin/cli.ts'), ...args], {
      env: { ...process.env, DATA_DIR: t.dataDir, ADMIN_PORT: String(t.service.ports.admin), ADMIN_TOKEN: '', REDIS_URL: '', MONGODB_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => {
      answers.push(stdout, stderr);
      resolve({ code, stdout, stderr });
    });
  });
}

async function json(...args: string[]): Promise<Record<string, unknown>> {
  const res = await cli(...args, '--json');
  expect(res.stderr, `stderr of ${args.join(' ')}`).toBe('');
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout.trim()) as Record<string, unknown>;
}

async function until<T>(what: string, check: () => T | Promise<T>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const rec = (id: string, content: string, rating = 4) => JSON.stringify({ platform: 'GOOGLE', externalId: id, authorName: 'A', rating, content, date: '2026-10-01T10:00:00Z' });

async function importLines(orgId: string, lines: string[]): Promise<Record<string, unknown>> {
  const file = join(caDir, `import-${Math.random().toString(36).slice(2)}.ndjson`);
  writeFileSync(file, lines.join('\n') + '\n');
  return json('reviews', 'import', '--org', orgId, file);
}

interface Event {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('webhooks', () => {
  it('sends created and updated events from imports to subscribed endpoints only, signed (verified with standardwebhooks); identical re-import sends nothing; replay, test, rotation with both signatures, audit', async () => {
    const org = await json('orgs', 'create', '--name', 'Hooked', '--plan', 'growth');
    const orgId = org.id as string;
    const created = await json('webhooks', 'create', '--org', orgId, '--url', receiver.url(), '--description', 'CRM');
    expect(Object.keys(created).sort()).toEqual(['createdAt', 'description', 'events', 'id', 'secret', 'state', 'url']);
    expect(created).toMatchObject({ url: receiver.url(), events: ['review.created', 'review.updated', 'review.removed', 'source.state_changed'], description: 'CRM', state: 'enabled' });
    const secret = created.secret as string;
    expect(secret).toMatch(/^whsec_/);
    // Only removals: a filtered endpoint on another path of the same receiver.
    const onlyUpdates = await json('webhooks', 'create', '--org', orgId, '--url', receiver.url().replace('/hook', '/updates'), '--events', 'review.updated');
    expect(onlyUpdates.events).toEqual(['review.updated']);
    const list = await json('webhooks', 'list', '--org', orgId);
    expect((list.data as Record<string, unknown>[]).map((e) => Object.keys(e).sort())).toEqual([
      ['createdAt', 'description', 'events', 'failingSince', 'id', 'lastDeliveryAt', 'state', 'url'],
      ['createdAt', 'description', 'events', 'failingSince', 'id', 'lastDeliveryAt', 'state', 'url'],
    ]);

    receiver.received.length = 0;
    await importLines(orgId, [rec('a', 'Great'), rec('b', 'Fine')]);
    await until('two created events', () => receiver.received.length >= 2);
    const events = receiver.received.map((r) => new Webhook(secret).verify(r.body, flatHeaders(r.headers)) as Event);
    expect(events.map((e) => e.type)).toEqual(['review.created', 'review.created']);
    expect(events.map((e) => e.data.content).sort()).toEqual(['Fine', 'Great']);
    expect(Object.keys(events[0]!.data)).not.toContain('orgId');

    // Identical re-import: nothing. Then a change: one updated to each endpoint subscribed (2 receivers' paths).
    await importLines(orgId, [rec('a', 'Great'), rec('b', 'Fine')]);
    await importLines(orgId, [rec('a', 'Great'), rec('b', 'Fine now', 2)]);
    await until('the updated event at both endpoints', () => receiver.received.length >= 4);
    const after = receiver.received.slice(2);
    expect(after).toHaveLength(2);
    for (const r of after) expect(JSON.parse(r.body)).toMatchObject({ type: 'review.updated', data: { content: 'Fine now', rating: 2 } });
    // The filtered endpoint's delivery verifies with its own secret only.
    const updatesSecret = onlyUpdates.secret as string;
    const signedForUpdates = after.filter((r) => {
      try {
        new Webhook(updatesSecret).verify(r.body, flatHeaders(r.headers));
        return true;
      } catch {
        return false;
      }
    });
    expect(signedForUpdates).toHaveLength(1);

    // The receiver has had all three; each result is written after its answer came back: wait until none is pending.
    const rows = (await until('the three deliveries recorded', async (): Promise<Record<string, unknown>[] | null> => {
      const listed = (await json('webhooks', 'deliveries', created.id as string)).data as Record<string, unknown>[];
      return listed.length >= 3 && listed.every((r) => r.status !== 'pending') ? listed : null;
    }))!;
    expect(rows).toHaveLength(3);
    expect(Object.keys(rows[0]!).sort()).toEqual(['attempts', 'id', 'lastAttemptAt', 'lastError', 'lastStatusCode', 'nextAttemptAt', 'status', 'type']);
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1 && r.lastStatusCode === 200)).toBe(true);

    // Replay: the same webhook-id again.
    const first = rows.find((r) => r.type === 'review.updated')!;
    receiver.received.length = 0;
    expect(await json('webhooks', 'replay', created.id as string, first.id as string)).toEqual({ id: first.id, status: 'pending' });
    await until('the replay', () => receiver.received.length >= 1);
    expect(receiver.received[0]!.headers['webhook-id']).toBe(first.id);
    new Webhook(secret).verify(receiver.received[0]!.body, flatHeaders(receiver.received[0]!.headers));

    // Test event.
    receiver.received.length = 0;
    const tested = await json('webhooks', 'test', created.id as string);
    expect(tested).toMatchObject({ status: 'delivered', statusCode: 200 });
    expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: 'webhook.test', data: { webhookId: created.id } });

    // Rotation: two signatures, each verifies on its own.
    const rotated = await json('webhooks', 'rotate-secret', created.id as string);
    expect(Object.keys(rotated).sort()).toEqual(['id', 'secret']);
    receiver.received.length = 0;
    await json('webhooks', 'test', created.id as string);
    const r = receiver.received[0]!;
    expect((r.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    new Webhook(secret).verify(r.body, flatHeaders(r.headers));
    new Webhook(rotated.secret as string).verify(r.body, flatHeaders(r.headers));

    // Disable, enable, remove; every change audited.
    expect(await json('webhooks', 'disable', onlyUpdates.id as string)).toEqual({ id: onlyUpdates.id, state: 'disabled' });
    expect(await json('webhooks', 'enable', onlyUpdates.id as string)).toEqual({ id: onlyUpdates.id, state: 'enabled' });
    expect(await json('webhooks', 'remove', onlyUpdates.id as string)).toEqual({ id: onlyUpdates.id, removed: true });
    const actions = (await t.service.store.people.audit.listByOrg(orgId, 100)).map((a) => a.action);
    for (const a of ['webhook.created', 'webhook.replayed', 'webhook.tested', 'webhook.secret_rotated', 'webhook.disabled', 'webhook.enabled', 'webhook.removed']) expect(actions).toContain(a);
  }, 90_000); // about 15 CLI runs, each a process of its own: ~25 s on a quiet machine

  it('retries with the same webhook-id, honours a 410 by disabling the endpoint, and resumes when enabled', async () => {
    const org = await json('orgs', 'create', '--name', 'Flaky', '--plan', 'growth');
    const orgId = org.id as string;
    const flaky = await startReceiver(cert);
    try {
      let answer = 500;
      flaky.handler = (_req, res) => res.writeHead(answer).end();
      const hook = await json('webhooks', 'create', '--org', orgId, '--url', flaky.url(), '--events', 'review.created');
      await importLines(orgId, [rec('x', 'Retry me')]);
      await until('a first failed attempt', () => flaky.received.length >= 1);
      answer = 200;
      // The schedule's first wait is about 5 s.
      await until('the retry', () => flaky.received.length >= 2, 20_000);
      expect(flaky.received[1]!.headers['webhook-id']).toBe(flaky.received[0]!.headers['webhook-id']);
      const rows = (await json('webhooks', 'deliveries', hook.id as string)).data as Record<string, unknown>[];
      await until('delivered', async () => ((await json('webhooks', 'deliveries', hook.id as string)).data as Record<string, unknown>[])[0]!.status === 'delivered');
      expect(rows).toHaveLength(1);

      answer = 410;
      await importLines(orgId, [rec('y', 'Gone')]);
      await until('the endpoint disabled by 410', async () => ((await json('webhooks', 'list', '--org', orgId)).data as Record<string, unknown>[])[0]!.state === 'disabled');
      const pending = ((await json('webhooks', 'deliveries', hook.id as string, '--status', 'pending')).data as Record<string, unknown>[]);
      expect(pending).toHaveLength(1);
      // Still due (at the 410's time): nothing is sent while the endpoint is disabled.
      expect(pending[0]).toMatchObject({ lastStatusCode: 410 });
      expect(pending[0]!.nextAttemptAt).not.toBeNull();
      answer = 200;
      const seen = flaky.received.length;
      await json('webhooks', 'enable', hook.id as string);
      await until('the pending message after enabling', () => flaky.received.length > seen);
      expect(flaky.received.at(-1)!.headers['webhook-id']).toBe(pending[0]!.id);
    } finally {
      await flaky.close();
    }
  }, 60_000);

  it('never shows or stores a whsec_ secret outside the create and rotate answers', async () => {
    // Every answer that is not a create or rotate answer, the log, and every file of DATA_DIR.
    const secretAnswers = answers.filter((a) => /"secret":"whsec_/.test(a));
    const others = answers.filter((a) => !secretAnswers.includes(a));
    for (const a of others) expect(a).not.toContain('whsec_');
    expect(logLines.join('')).not.toContain('whsec_');
    for (const file of filesUnder(t.dataDir)) expect(readFileSync(file).toString('latin1'), file).not.toContain('whsec_');
    expect(secretAnswers.length).toBeGreaterThan(0);
  });
});
