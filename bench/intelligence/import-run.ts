/**
 * The measured part of `npm run bench:intelligence:import` (import-loop.ts
 * compiles this file as the service is compiled and runs it with the
 * service's Node flags): the import path with enrichment on, in process, on
 * the embedded store in a temporary DATA_DIR, reading the NDJSON file named by
 * `--input`. Prints reviews/s; how long the event loop was ever kept waiting
 * (perf_hooks.monitorEventLoopDelay, 1 ms resolution, plus a 5 ms timer that
 * records the longest gap between its ticks); and CPU time per review
 * (less sensitive than reviews/s to other processes on the machine), for the
 * whole process and for its main thread alone.
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { importReviews } from '../../api/admin/import.ts';
import { createOrganization } from '../../api/admin/orgs.ts';
import { warmUp } from '../../api/intelligence/enrich.ts';
import { sharedEnrichPool } from '../../api/intelligence/pool.ts';
import { createLogger } from '../../api/logger.ts';
import { EmbeddedStore } from '../../api/store/embedded/store.ts';

function argument(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

const input = argument('input');
if (input === undefined) throw new Error('--input <file.ndjson> is required');
const GIVEN = process.argv.includes('--given');

/** User + system CPU of this process's main thread in µs (Linux: the main thread's task id is the pid). */
function mainThreadMicros(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

/** Milliseconds the main thread has spent on a CPU (Linux schedstat: ns on CPU, ns waiting, slices). */
function onCpuMs(): number {
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

const dir = mkdtempSync(join(tmpdir(), 'rp-import-bench-'));
try {
  const store = await EmbeddedStore.open(dir);
  const org = await createOrganization(store, { name: 'Bench', plan: 'growth', rateLimit: null });
  // As the service does at start-up.
  warmUp();
  const pool = sharedEnrichPool();
  await pool?.warmUp();
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  // Between two ticks of a 5 ms timer: the wall-clock gap, and how much of it the main thread spent
  // on a CPU (schedstat, ns) rather than waiting for one. On a busy machine a gap can be long while
  // the thread waits its turn: the CPU part is the time the event loop was held by this process's work (GC included).
  let longestGap = 0;
  let longestRun = 0;
  const runs: number[] = [];
  let last = performance.now();
  let lastRun = onCpuMs();
  const ticker = setInterval(() => {
    const now = performance.now();
    const run = onCpuMs();
    longestGap = Math.max(longestGap, now - last);
    longestRun = Math.max(longestRun, run - lastRun);
    runs.push(run - lastRun);
    last = now;
    lastRun = run;
  }, 5);
  histogram.enable();
  const cpu = process.cpuUsage();
  const mainCpu = mainThreadMicros();
  const started = performance.now();
  const summary = await importReviews(store, org, createReadStream(input, { highWaterMark: 1 << 20 }), 'ndjson', createLogger('silent'));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const usedMain = mainThreadMicros() - mainCpu;
  histogram.disable();
  clearInterval(ticker);
  if (summary.rejectedTotal > 0) throw new Error(`${summary.rejectedTotal} records rejected: ${JSON.stringify(summary.rejected.slice(0, 3))}`);
  const sample = (await store.reviews.list({ orgId: org.id, limit: 1, offset: 0 })).items[0];
  await store.close();
  await pool?.close();
  const n = summary.imported;
  const all = used.user + used.system;
  process.stdout.write(
    [
      `Enrichment workers: ${pool?.size ?? 0} (ENRICH_WORKERS; 0 = on the main thread)`,
      `Imported ${n.toLocaleString('en')} reviews ${GIVEN ? 'with their AI fields given (nothing computed)' : 'with enrichment'} in ${seconds.toFixed(1)} s = ${Math.round(n / seconds).toLocaleString('en')} reviews/s`,
      `CPU time per review: ${(all / n).toFixed(1)} µs for the whole process (user + system, all threads), of which the main thread ${(usedMain / n).toFixed(1)} µs and the other threads (enrichment workers, GC helpers, file I/O) ${((all - usedMain) / n).toFixed(1)} µs`,
      `Event loop delay during the import: max ${(histogram.max / 1e6).toFixed(1)} ms, p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms; longest gap between 5 ms timer ticks ${longestGap.toFixed(1)} ms`,
      `Main thread on a CPU between two ticks (the loop held by work, not by waiting for a CPU): max ${longestRun.toFixed(1)} ms, p99 ${percentile(runs, 99).toFixed(1)} ms; gaps with more than 50 ms of it: ${runs.filter((r) => r > 50).length}`,
      `A stored review: ${JSON.stringify({ content: sample?.content, language: sample?.language, sentiment: sample?.sentiment, sentimentLabel: sample?.sentimentLabel, aiThemes: sample?.aiThemes, aiSummary: sample?.aiSummary })}`,
      '',
    ].join('\n'),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
