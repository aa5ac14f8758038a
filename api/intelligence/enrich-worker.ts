/**
 * One enrichment worker of pool.ts: loads the lexicons and the detector's
 * tables once, then answers each chunk with enrich.ts's fields for each
 * review, in the chunk's order. An exception in one chunk is answered as that
 * chunk's error; the worker stays up for the next.
 */
import { parentPort } from 'node:worker_threads';
import { enrich, warmUp, type Enrichable } from './enrich.ts';

interface Chunk {
  id: number;
  items: Enrichable[];
  defaultLanguage: string;
  force: boolean;
}

const port = parentPort;
if (!port) throw new Error('enrich-worker.ts runs only as a worker thread (pool.ts)');
warmUp();
port.on('message', ({ id, items, defaultLanguage, force }: Chunk) => {
  try {
    port.postMessage({ id, results: items.map((item) => enrich(item, defaultLanguage, force)) });
  } catch (error) {
    port.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
