/**
 * Enrichment off the event loop: a small pool of `worker_threads` that run
 * enrich.ts on chunks of reviews, so an import parses, validates and writes
 * on the main thread while the analysis of the next chunk runs beside it.
 *
 * - Deterministic and in order: a chunk's results come back in the chunk's
 *   order, and the import awaits chunks in the order it sent them; the
 *   analysis itself is the same pure code as in the main thread.
 * - A worker that fails (an exception, or it stops) rejects every chunk it
 *   held; the import awaiting one of them fails before writing it, so no
 *   record of it is half-written (each store batch is atomic). The slot gets
 *   a fresh worker on its next chunk.
 * - `ENRICH_WORKERS` (0–8) sets the size; the default is one fewer than the
 *   machine's CPUs, at most 2 (1 on a 2-core machine: the main thread keeps
 *   a core for parsing, writing and serving). 0 runs enrichment on the main
 *   thread (enrich.ts directly, with the import's turns to the event loop).
 *
 * Compiled (`npm start`, api/build.ts) the workers run `dist/api/enrich-worker.js`;
 * from the sources (`npm run dev`, tests) they load enrich-worker.ts through tsx.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { AiFields, Enrichable } from './enrich.ts';
import { packItems, unpackFields, type PackedFields } from './wire.ts';

export const MAX_ENRICH_WORKERS = 8;

/** Pool size from `ENRICH_WORKERS`; throws naming the variable when it is not an integer 0–8. */
export function enrichWorkersFromEnv(env: Record<string, string | undefined> = process.env): number {
  const raw = env.ENRICH_WORKERS;
  if (raw === undefined || raw === '') return Math.min(2, Math.max(0, availableParallelism() - 1));
  if (!/^\d+$/.test(raw) || Number(raw) > MAX_ENRICH_WORKERS) throw new Error(`ENRICH_WORKERS must be an integer from 0 to ${MAX_ENRICH_WORKERS}, got "${raw}"`);
  return Number(raw);
}

interface Job {
  resolve(results: AiFields[]): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  jobs: Map<number, Job>;
}

type Reply = ({ id: number } & PackedFields) | { id: number; error: string };

/** The compiled worker's file URL, defined by api/build.ts in the compiled service only. */
declare const __RV_ENRICH_WORKER__: string | undefined;

/** A new worker thread running enrich-worker: the compiled file, else the source under tsx. */
function startWorker(): Worker {
  if (typeof __RV_ENRICH_WORKER__ === 'string') return new Worker(new URL(__RV_ENRICH_WORKER__));
  const source = new URL('./enrich-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  // Register tsx in the worker thread, then load the worker module.
  return new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(source)}); })`, { eval: true });
}

export class EnrichPool {
  private readonly slots: (Slot | null)[];
  private next = 0;
  private nextId = 0;
  private closed = false;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error('an enrichment pool needs at least one worker');
    this.slots = Array.from({ length: size }, () => null);
  }

  /** The AI fields of each item, in the items' order (enrich.ts `enrich` on each). */
  run(items: Enrichable[], defaultLanguage: string, force = false): Promise<AiFields[]> {
    if (this.closed) return Promise.reject(new Error('the enrichment pool is closed'));
    const index = this.next;
    this.next = (this.next + 1) % this.size;
    const slot = this.slots[index] ?? this.spawn(index);
    const id = this.nextId++;
    return new Promise<AiFields[]>((resolve, reject) => {
      slot.jobs.set(id, { resolve, reject });
      slot.worker.postMessage({ id, items: packItems(items), defaultLanguage, force });
    });
  }

  /**
   * Starts every worker and waits until each has loaded its lexicons and
   * tables (a second or more of CPU each, spent in the workers). The service
   * does not call it: its pool starts with the first import, which waits for
   * that (the event loop does not). Benchmarks call it to time imports alone.
   */
  async warmUp(): Promise<void> {
    await Promise.all(Array.from({ length: this.size }, () => this.run([], 'en')));
  }

  /** The workers now running (tests stop one to see a failure handled). */
  workers(): Worker[] {
    return this.slots.filter((s): s is Slot => s !== null).map((s) => s.worker);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s?.worker.terminate()));
  }

  private spawn(index: number): Slot {
    const worker = startWorker();
    // An idle pool never keeps the process alive.
    worker.unref();
    const slot: Slot = { worker, jobs: new Map() };
    this.slots[index] = slot;
    const fail = (error: Error): void => {
      if (this.slots[index] === slot) this.slots[index] = null;
      for (const job of slot.jobs.values()) job.reject(error);
      slot.jobs.clear();
    };
    worker.on('message', (reply: Reply) => {
      const job = slot.jobs.get(reply.id);
      if (!job) return;
      slot.jobs.delete(reply.id);
      if ('error' in reply) job.reject(new Error(`review enrichment failed: ${reply.error}`));
      else job.resolve(unpackFields(reply));
    });
    worker.on('error', (error) => fail(new Error(`review enrichment worker failed: ${error.message}`)));
    worker.on('exit', (code) => fail(new Error(`review enrichment worker stopped (exit code ${code})`)));
    return slot;
  }
}

let shared: EnrichPool | null | undefined;

/** The process's pool (created on first use, sized by `ENRICH_WORKERS`), or null when enrichment runs on the main thread. */
export function sharedEnrichPool(): EnrichPool | null {
  if (shared === undefined) {
    const size = enrichWorkersFromEnv();
    shared = size > 0 ? new EnrichPool(size) : null;
  }
  return shared;
}
