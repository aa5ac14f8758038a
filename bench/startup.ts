/**
 * `npm run bench:startup [-- --reviews 1000000 --runs 3 --keep DIR]`: start-up time of the
 * compiled service (`npm start`'s dist/api/main.js) to its "listening" banner on
 * an existing data folder holding N reviews.
 *
 * The folder is written here through the embedded store itself, in this process
 * (the same log format, fsync'ed batches of 2,000 reviews, one organization),
 * with every review-intelligence field already filled, so that filling a
 * million reviews takes minutes rather than the import's enrichment time; the
 * start-up then replays that log and builds the review index exactly as after
 * an import. Each run spawns node, waits for the banner, stops the service
 * (SIGTERM) and reports the time and the resident memory once listening.
 * `--keep DIR` fills DIR once and keeps it (a later run with the same DIR only
 * measures), for profiling: `node --cpu-prof dist/api/main.js` with DATA_DIR=DIR.
 *
 * The MongoDB store reads no reviews at start-up (it connects and checks its
 * indexes), so its start-up does not depend on the number of reviews.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fillDataFolder } from './fill.ts';
import { cpuMicros, flag, rssMiB, startServer } from './support.ts';

const REVIEWS = flag('reviews', 1_000_000);
const RUNS = flag('runs', 3);
function keptFolder(): string | null {
  const i = process.argv.indexOf('--keep');
  if (i === -1) return null;
  const dir = process.argv[i + 1];
  if (!dir) throw new Error('--keep takes a folder');
  return dir;
}

async function main(): Promise<void> {
  const kept = keptFolder();
  const dataDir = kept ?? mkdtempSync(join(tmpdir(), 'review-startup-'));
  try {
    process.stdout.write(`Start-up benchmark: ${REVIEWS.toLocaleString('en')} reviews, ${RUNS} runs, Node ${process.version}\n`);
    if (kept && existsSync(join(dataDir, 'store.log'))) {
      process.stdout.write(`Using the folder filled before: ${dataDir}\n`);
    } else {
      const { seconds } = await fillDataFolder(dataDir, REVIEWS);
      process.stdout.write(`Filled the data folder in ${seconds.toFixed(1)} s\n`);
    }
    const logMiB = statSync(join(dataDir, 'store.log')).size / 2 ** 20;
    process.stdout.write(`store.log: ${logMiB.toFixed(0)} MiB\n`);
    const times: number[] = [];
    const cpus: number[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const server = await startServer({ DATA_DIR: dataDir });
      const rss = rssMiB(server.child.pid!);
      // CPU time to listening (user + system, all threads): unlike the wall time it barely grows when other processes share the cores.
      const cpuSeconds = cpuMicros(server.child.pid!) / 1e6;
      const code = await server.stop();
      if (code !== 0) throw new Error(`the service exited with ${code}`);
      times.push(server.startupMs);
      cpus.push(cpuSeconds);
      process.stdout.write(`  run ${run}: ${(server.startupMs / 1000).toFixed(2)} s to listening (${cpuSeconds.toFixed(2)} s of CPU), RSS ${rss} MiB\n`);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const cpuSorted = [...cpus].sort((a, b) => a - b);
    process.stdout.write(
      `Start-up to listening on ${REVIEWS.toLocaleString('en')} reviews (embedded store, compiled): median ${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(2)} s, best ${(sorted[0]! / 1000).toFixed(2)} s; CPU median ${cpuSorted[Math.floor(cpuSorted.length / 2)]!.toFixed(2)} s (load average now: ${loadavg()[0]!.toFixed(1)})\n`,
    );
  } finally {
    if (!kept) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:startup: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
