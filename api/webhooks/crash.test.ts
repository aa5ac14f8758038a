/**
 * Nothing lost, nothing invented (CONTRACT §12): a process writing review
 * batches through the store's upsert is killed with SIGKILL at random points
 * while the receiver is down (nothing is sent: the events wait in the
 * outbox), several times over; then the store is opened again, the receiver
 * comes up and the dispatcher runs. Every event of every stored change arrives
 * (verified with standardwebhooks), and none of a change that was not stored.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { newId } from '../store/ids.ts';
import { createDeliveryClient } from './deliver.ts';
import { Dispatcher, sealSecrets } from './dispatcher.ts';
import { parseAllowNetworks } from './networks.ts';
import { generateSecret } from './secrets.ts';
import { flatHeaders, startReceiver, testCert, type TestCert } from './test-receiver.ts';

let dir: string;
let cert: TestCert;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webhooks-crash-'));
  cert = await testCert();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the writer from batch `from` and kills it with SIGKILL after a random number of durable batches; answers the last batch it reported. */
async function runAndKill(dataDir: string, orgId: string, from: number): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'testing', 'import-child.ts')], {
    env: { ...process.env, DATA_DIR: dataDir, ORG_ID: orgId, FROM: String(from) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killAfter = 1 + Math.floor(Math.random() * 8);
  let last = from - 1;
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_c, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (c: Buffer) => {
      buffered += c.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) last = Number(line);
      // Killed while the next batch is being written (the writer never waits between batches).
      if (last - from + 1 >= killAfter) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    child.on('exit', (code) => (code !== null ? reject(new Error(`the writer ended by itself: ${stderr}`)) : resolve()));
  });
  expect(await exited).toBe('SIGKILL');
  return last;
}

describe('webhooks across SIGKILL', () => {
  it('delivers every event of every stored change, and none of a change not stored', async () => {
    const dataDir = join(dir, 'data');
    const box = new SecretBox(Buffer.alloc(32, 7));
    const secret = generateSecret();
    const receiver = await startReceiver(cert, (_req, res) => res.writeHead(204).end());
    const url = receiver.url();
    await receiver.close(); // down until the end
    const setup = await EmbeddedStore.open(dataDir);
    const orgId = newId('org');
    const stamp = new Date().toISOString();
    await setup.orgs.create({ id: orgId, name: 'Crash', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
    const endpointId = newId('wh');
    await setup.webhooks.create({
      id: endpointId, orgId, url, events: ['review.created', 'review.updated'], description: '', state: 'enabled', disabledReason: null,
      createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, endpointId, [{ secret, createdAt: new Date(), expiresAt: null }]),
    });
    await setup.close();

    // Several runs, each killed at a random point; each run goes on from the last batch it is sure of.
    let next = 0;
    for (let run = 0; run < 4; run++) next = (await runAndKill(dataDir, orgId, next)) + 1;

    const store = await EmbeddedStore.open(dataDir);
    const up = await startReceiver(cert, (_req, res) => res.writeHead(204).end(), '127.0.0.1');
    // The same URL: the receiver comes back on its old port when it is free; otherwise the endpoint follows it.
    await store.webhooks.update(endpointId, { url: up.url() });
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50 });
    try {
      const stored = (await store.reviews.list({ orgId, limit: 100_000, offset: 0 } as never)) as unknown as { items: { content: string; externalId: string }[] };
      const contents = stored.items.map((r) => r.content);
      const base = stored.items.find((r) => r.externalId === 'base')!.content;
      const lastBatch = Number(base.split(' ')[1]);
      // Batches 0..lastBatch are stored whole (a batch is one log record), none after.
      expect(contents.filter((c) => !c.startsWith('base')).length).toBe((lastBatch + 1) * 10);
      // Expected: created for each stored review (base once, at batch 0), updated for base at each later batch.
      const expected = new Set<string>(['review.created base 0']);
      for (let k = 0; k <= lastBatch; k++) for (let j = 0; j < 10; j++) expected.add(`review.created ${k}-${j}`);
      for (let k = 1; k <= lastBatch; k++) expected.add(`review.updated base ${k}`);

      dispatcher.start();
      const wh = new Webhook(secret);
      const seen = () => new Set(up.received.map((r) => {
        const e = wh.verify(r.body, flatHeaders(r.headers)) as { type: string; data: { content: string } };
        return `${e.type} ${e.data.content}`;
      }));
      const end = Date.now() + 60_000;
      while (seen().size < expected.size && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect([...seen()].sort()).toEqual([...expected].sort());
      expect(lastBatch).toBeGreaterThanOrEqual(next - 1);
    } finally {
      await dispatcher.close();
      client.close();
      await up.close();
      await store.close();
    }
  }, 120_000);
});
