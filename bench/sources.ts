/**
 * `npm run bench:sources` (issue 26): the platform fake runs here, the
 * service side (store, sync, enrichment) in a child process whose CPU is its
 * own.
 * 1. A first sync of 10,000 Trustpilot reviews (100 pages of 100), enrichment
 *    included: seconds, reviews/s, requests (target ≤ 20 s).
 * 2. 1,000 idle sources (IDLE_SOURCES) synced once each, as in one interval:
 *    requests (1 per source), and the service's CPU for that round spread over
 *    the default interval of 60 minutes (target ≤ 5% of one core on average).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlatformFake } from '../api/sources/testing/platform-fake.ts';
import { trustpilotReviews } from '../api/sources/testing/generate.ts';

const INTERVAL_MS = 60 * 60_000;
const fake = await PlatformFake.start();
fake.trustpilotUnits.set('big-unit', trustpilotReviews(10_000, Date.parse('2026-11-20T12:00:00Z'), 'bench'));
// Every idle source's business unit: a few reviews, nothing new after the first sync.
fake.trustpilot = trustpilotReviews(5, Date.parse('2026-11-01T12:00:00Z'), 'idle');
const dir = mkdtempSync(join(tmpdir(), 'bench-sources-ca-'));
writeFileSync(join(dir, 'ca.pem'), fake.ca);
const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'sources-service.ts')], {
  env: { ...process.env, PLATFORM_URL: fake.url, TP_KEY: fake.keys.trustpilot, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
const code = await new Promise<number | null>((r) => child.on('exit', r));
await fake.close();
rmSync(dir, { recursive: true, force: true });
if (code !== 0) throw new Error(`the service side exited with ${code}`);
const r = JSON.parse(out.trim().split('\n').at(-1)!) as {
  first: { fetched: number; created: number; requests: number; rejected: number; ms: number };
  idle: { sources: number; requests: number; roundMs: number; cpuMs: number };
};
const s = r.first.ms / 1000;
console.log(`First sync: ${r.first.created} reviews (${r.first.fetched} fetched, ${r.first.rejected} rejected) in ${s.toFixed(1)} s = ${Math.round(r.first.created / s)} reviews/s, ${r.first.requests} requests (target ≤ 20 s)`);
console.log(`Idle round: ${r.idle.sources} sources, ${r.idle.requests} requests (${(r.idle.requests / r.idle.sources).toFixed(2)} per source), ${r.idle.roundMs} ms wall, ${r.idle.cpuMs} ms CPU`);
console.log(`  = ${((r.idle.cpuMs / INTERVAL_MS) * 100).toFixed(3)}% of one core on average over the 60-minute interval (target ≤ 5%); ${(r.idle.cpuMs / r.idle.sources).toFixed(2)} ms CPU per idle sync`);
