/**
 * The part of `npm run bench` that measures WORKERS=1 against WORKERS=2: the
 * service on the MongoDB store (a FerretDB 1.24 on SQLite started here, as the
 * tests start it) with Redis, the same requests at 1 and then 2 worker
 * processes on one port (node:cluster): a developer's request that reads the
 * key, organization and widget, a visitor's widget data (one read) and the
 * loader (no store). Printed: req/s, p50/p99 and the CPU of
 * all the service's processes (primary and workers) and of FerretDB per request.
 *
 * On a 2-core machine the load generator (autocannon, one process) and
 * FerretDB compete with the workers for the same two cores, so a second worker
 * cannot double the rate here; what it shows is whether a second process
 * adds throughput at all, and what it costs in CPU.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { findFerretdb, INSTALL_HINT, startFerretdb } from '../api/test/ferretdb.ts';
import { admin, cpuMicros, httpsGet, ROOT, startServer } from './support.ts';

export interface WorkerRunResult {
  rps: number;
  p50: number;
  p99: number;
  /** CPU µs per request of each process group `cpu` reads, in its order. */
  cpuUsEach: number[];
  non2xx: number;
  errors: number;
}

interface Deps {
  redisUrl: string;
  reviews: number;
  reviewStream(n: number): Readable;
  upload(adminUrl: string, token: string, orgId: string, body: Readable): Promise<Record<string, unknown>>;
  /** Measures one URL; `cpu` reads the CPU time so far (µs) of each process group measured. */
  cannon(target: { url: string; headers: Record<string, string>; cpu: () => number[]; visitors?: boolean }, ca: string): Promise<WorkerRunResult>;
}

/** A process and its child processes (the cluster's workers), from /proc. */
function withChildren(pid: number): number[] {
  const pids = [pid];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    if (children) pids.push(...children.split(/\s+/).map(Number));
  }
  return pids;
}

async function waitForWorkers(primary: number, n: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  // WORKERS=1 runs in the primary process itself; N > 1 forks N workers.
  while (n > 1 && withChildren(primary).length - 1 < n) {
    if (Date.now() > deadline) throw new Error(`${n} workers did not start within 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface WorkersReport {
  rows: string[][];
  reviews: number;
}

/**
 * Runs the comparison; returns null (and says why on stdout) when FerretDB is
 * not installed, so that the rest of the benchmark still reports.
 */
export async function compareWorkers(deps: Deps): Promise<WorkersReport | null> {
  const found = findFerretdb();
  if (found.bin === null) {
    process.stdout.write(`WORKERS comparison SKIPPED: FerretDB not found (${found.looked.join(', ')}): ${INSTALL_HINT}\n`);
    return null;
  }
  const ferret = await startFerretdb(found.bin);
  const dirs = [mkdtempSync(join(tmpdir(), 'review-bench-workers-')), mkdtempSync(join(tmpdir(), 'review-bench-workers-'))];
  const db = `${ferret.url}review_bench_workers`;
  const rows: string[][] = [];
  try {
    const requests: Array<{ name: string; path: string; key: boolean }> = [];
    let key = '';
    let widgetId = '';
    for (const [i, workers] of [1, 2].entries()) {
      const server = await startServer({ DATA_DIR: dirs[i]!, REDIS_URL: deps.redisUrl, REDIS_KEY_PREFIX: `bw${workers}:`, MONGODB_URL: db, WORKERS: String(workers), TRUST_PROXY: '127.0.0.1' });
      try {
        await waitForWorkers(server.child.pid!, workers);
        if (i === 0) {
          // The data goes in once (the same database serves both runs).
          const org = await admin(server, 'POST', '/admin/orgs', { name: 'Bench workers', plan: 'agency', rateLimit: 10_000_000 });
          key = (await admin(server, 'POST', '/admin/keys', { orgId: org.id, name: 'bench' })).key as string;
          const summary = await deps.upload(server.adminUrl, server.adminToken, org.id as string, deps.reviewStream(deps.reviews));
          if (summary.imported !== deps.reviews) throw new Error(`imported ${String(summary.imported)} of ${deps.reviews}`);
          widgetId = (await admin(server, 'POST', '/admin/widgets', { orgId: org.id, name: 'Bench widget' })).id as string;
          // Requests FerretDB answers by _id (a list or the statistics scan its SQLite table: a few per second).
          const manifest = JSON.parse(readFileSync(join(ROOT, 'widget', 'dist', 'manifest.json'), 'utf8')) as { loader: string };
          requests.push(
            { name: 'widget embed (API key)', path: `/api/v1/widgets/${widgetId}/embed`, key: true },
            { name: 'widget data (public)', path: `/public/v1/widgets/${widgetId}`, key: false },
            { name: 'loader.js (no store)', path: `/widget/${manifest.loader}`, key: false },
          );
        }
        const auth = { authorization: `Bearer ${key}` };
        for (const { name, path, key: withKey } of requests) {
          const headers = withKey ? auth : { 'accept-encoding': 'gzip, deflate, br', origin: 'https://shop.example' };
          const probe = await httpsGet(`${server.baseUrl}${path}`, server.ca, headers);
          if (probe.status !== 200) throw new Error(`${path} with ${workers} workers: ${probe.status} ${probe.body.toString()}`);
          const pids = withChildren(server.child.pid!);
          const ferretPid = ferret.process.pid!;
          const r = await deps.cannon(
            { url: `${server.baseUrl}${path}`, headers, visitors: !withKey, cpu: () => [pids.reduce((sum, pid) => sum + cpuMicros(pid), 0), cpuMicros(ferretPid)] },
            server.ca,
          );
          if (r.non2xx > 0 || r.errors > 0) process.stdout.write(`  warning: WORKERS=${workers}, ${name}: ${r.non2xx} unexpected statuses, ${r.errors} errors\n`);
          rows.push([name, String(workers), r.rps.toFixed(0), `${r.p50} / ${r.p99}`, r.cpuUsEach[0]!.toFixed(0), r.cpuUsEach[1]!.toFixed(0)]);
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await ferret.stop();
    for (const d of [...dirs, ferret.dir]) rmSync(d, { recursive: true, force: true });
  }
  return { rows, reviews: deps.reviews };
}
