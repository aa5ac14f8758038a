/**
 * WORKERS=N: the primary process forks N workers that each run the whole
 * service on the same ports (node:cluster shares the listening sockets and
 * hands connections out in turn). Workers are stateless (MongoDB store, limits
 * in Redis; config.ts refuses WORKERS>1 otherwise), so any of them may answer
 * any request. A worker that dies is replaced; SIGTERM/SIGINT to the primary
 * reaches every worker, each drains as a single process does, and the primary
 * exits 0 once they all have.
 */
import cluster from 'node:cluster';
import { ensureAdminToken } from './admin/token.ts';
import type { Config } from './config.ts';
import { createStdoutLogger } from './logger.ts';
import { loadTls } from './tls.ts';

export async function runPrimary(config: Config): Promise<void> {
  // Files made on first start (certificate, admin token) are made once, here, before any worker reads them.
  await loadTls(config, createStdoutLogger(config.logLevel, config.logFormat));
  await ensureAdminToken(config.adminToken, config.dataDir);
  const { workers } = config;
  let stopping = false;
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    process.stderr.write(`Worker ${worker.process.pid} exited (${signal ?? code}): starting another\n`);
    cluster.fork();
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    // The workers' own budget is under 10 s (main.ts); this is the last resort.
    setTimeout(() => process.exit(1), 9800).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Only one process prints the start-up banner: the single process, or the first worker. */
export function printsBanner(): boolean {
  return cluster.isPrimary || cluster.worker?.id === 1;
}
