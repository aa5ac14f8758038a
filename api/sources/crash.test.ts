/**
 * A sync killed (SIGKILL) half-way loses nothing it committed, and the next
 * sync finishes the job: pages are committed as they come, the cursor moves
 * only at the end. The child trusts the fake's CA through NODE_EXTRA_CA_CERTS.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { MongoStore } from '../store/mongo/store.ts';
import { newId } from '../store/ids.ts';
import type { Store } from '../store/types.ts';
import { uniqueDbName } from '../test/ferretdb.ts';
import { ferretdbTarget } from '../test/mongo-suites.ts';
import { HttpClient } from './http.ts';
import { syncSource } from './sync.ts';
import { trustpilotReviews } from './testing/generate.ts';
import { PlatformFake } from './testing/platform-fake.ts';

let fake: PlatformFake;
let dir: string;
beforeAll(async () => {
  fake = await PlatformFake.start();
  dir = mkdtempSync(join(tmpdir(), 'sources-crash-'));
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const target = ferretdbTarget();
const kinds = [
  { name: 'embedded', env: {} as Record<string, string> },
  ...(target.url ? [{ name: `mongodb on ${target.name}`, env: { CHILD_MONGODB_URL: target.url, CHILD_MONGODB_DB: uniqueDbName('sources-crash') } }] : []),
];

describe.each(kinds)('a sync killed half-way ($name)', ({ name, env: storeEnv }) => {
  const openStore = (dataDir: string): Promise<Store> => (storeEnv.CHILD_MONGODB_URL ? MongoStore.connect(storeEnv.CHILD_MONGODB_URL, storeEnv.CHILD_MONGODB_DB) : EmbeddedStore.open(dataDir));
  it('keeps the pages it committed; the next sync finishes', async () => {
    const dataDir = join(dir, `data-${name.slice(0, 5)}`);
    const key = Buffer.alloc(32, 5);
    const box = new SecretBox(key);
    const store = await openStore(dataDir);
    const stamp = new Date().toISOString();
    const orgId = newId('org');
    await store.orgs.create({ id: orgId, name: 'Crash', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
    const id = newId('src');
    await store.sources.create({
      id, orgId, platform: 'TRUSTPILOT', account: 'bu-crash', name: 'tp', state: 'active', everyMinutes: 60, credentials: box.sealJson({ apiKey: fake.keys.trustpilot }, id),
      cursor: null, lastSyncAt: null, lastSuccessAt: null, lastFullAt: null, nextSyncAt: stamp, lastError: null, failures: 0, createdAt: stamp, updatedAt: stamp,
    });
    await store.close();
    fake.trustpilot = trustpilotReviews(250, Date.parse('2026-11-20T12:00:00Z'), 'crash');
    // The second page is never answered: the child is killed while it waits for it.
    const already = fake.count('trustpilot');
    fake.hangAfter.trustpilot = already + 1;
    writeFileSync(join(dir, 'ca.pem'), fake.ca);
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'testing', 'sync-child.ts')], {
      env: { ...process.env, ...storeEnv, DATA_DIR: dataDir, PLATFORM_URL: fake.url, SOURCE_ID: id, SECRETS_KEY: key.toString('base64'), NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    // Page 2 asked for: page 1 was committed (the sync writes a page before asking for the next).
    for (let i = 0; fake.count('trustpilot') < already + 2; i++) {
      if (child.exitCode !== null) throw new Error(`the child ended early: ${stderr}`);
      await sleep(50);
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    fake.hangAfter.trustpilot = undefined;
    const again = await openStore(dataDir);
    try {
      expect(await again.reviews.count(orgId)).toBe(100);
      expect((await again.sources.get(id))!.cursor).toBeNull();
      const http = new HttpClient({ extraCa: [fake.ca] });
      const next = await syncSource({ store: again, box, http, urls: fake.urls(), googleOAuth: null, logger: createLogger('silent'), pool: null }, id);
      http.close();
      // The 100 committed before the kill are read again but unchanged: not written or counted again.
      expect(next.summary).toMatchObject({ state: 'active', fetched: 250, created: 150, updated: 0, requests: 3 });
      expect(await again.reviews.count(orgId)).toBe(250);
      expect((await again.sources.get(id))!.cursor).toBe('2026-11-20T12:00:00.000Z');
    } finally {
      if (again instanceof MongoStore) await again.dropDatabase();
      await again.close();
    }
  }, 60_000);
});
