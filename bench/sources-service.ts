/**
 * The service side of `npm run bench:sources` (bench/sources.ts runs the
 * platform fake in its own process): the embedded store, the sync, the
 * enrichment pool. Prints one JSON line of figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedEnrichPool } from '../api/intelligence/pool.ts';
import { createLogger } from '../api/logger.ts';
import { SecretBox } from '../api/secrets/secrets.ts';
import { EmbeddedStore } from '../api/store/embedded/store.ts';
import { newId } from '../api/store/ids.ts';
import type { SourcePlatform, Store } from '../api/store/types.ts';
import { HttpClient } from '../api/sources/http.ts';
import { syncSource, type SyncDeps } from '../api/sources/sync.ts';

const env = process.env;
const url = env.PLATFORM_URL!;
const idle = Number(env.IDLE_SOURCES ?? 1000);
const dir = mkdtempSync(join(tmpdir(), 'bench-sources-'));
const store: Store = await EmbeddedStore.open(dir);
const box = new SecretBox(Buffer.alloc(32, 1));
const http = new HttpClient();
const deps: SyncDeps = {
  store,
  box,
  http,
  urls: { googleBusiness: url, googleToken: `${url}/token`, googleAuthorize: `${url}/auth`, googleAccounts: url, googleLocations: url, trustpilot: url, yelp: url, facebook: `${url}/v21.0`, g2: url },
  googleOAuth: null,
  logger: createLogger('silent'),
  pool: sharedEnrichPool(),
};

async function source(account: string, platform: SourcePlatform = 'TRUSTPILOT'): Promise<string> {
  const stamp = new Date().toISOString();
  const orgId = newId('org');
  await store.orgs.create({ id: orgId, name: account, plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
  const id = newId('src');
  await store.sources.create({
    id, orgId, platform, account, name: account, state: 'active', everyMinutes: 60, credentials: box.sealJson({ apiKey: env.TP_KEY! }, id),
    cursor: null, lastSyncAt: null, lastSuccessAt: null, lastFullAt: null, nextSyncAt: stamp, lastError: null, failures: 0, createdAt: stamp, updatedAt: stamp,
  });
  return id;
}

// 1. The first sync of 10,000 Trustpilot reviews (100 pages), enrichment included.
const big = await source('big-unit');
const t0 = performance.now();
const first = await syncSource(deps, big);
const firstMs = performance.now() - t0;

// 2. 1,000 idle sources: each connected and synced once (not measured), then one round measured.
const ids: string[] = [];
for (let i = 0; i < idle; i++) ids.push(await source(`idle-${i}`));
const runAll = async () => {
  const queue = [...ids];
  await Promise.all(Array.from({ length: 4 }, async () => {
    for (let id = queue.shift(); id; id = queue.shift()) await syncSource(deps, id);
  }));
};
await runAll();
const cpu0 = process.cpuUsage();
const w0 = performance.now();
let requests = 0;
{
  const queue = [...ids];
  await Promise.all(Array.from({ length: 4 }, async () => {
    for (let id = queue.shift(); id; id = queue.shift()) {
      const made = (await syncSource(deps, id)).summary.requests;
      requests += made;
    }
  }));
}
const cpu = process.cpuUsage(cpu0);
const roundMs = performance.now() - w0;
const cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(
  `${JSON.stringify({ first: { ...first.summary, rejected: first.summary.rejected.length, ms: Math.round(firstMs) }, idle: { sources: idle, requests, roundMs: Math.round(roundMs), cpuMs: Math.round(cpuMs) } })}\n`,
);
http.close();
await store.close();
await sharedEnrichPool()?.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
