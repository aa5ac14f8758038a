/**
 * One enrichment worker of pool.ts: loads the lexicons and the detector's
 * tables once, then answers each chunk with enrich.ts's fields for each
 * review, in the chunk's order. An exception in one chunk is answered as that
 * chunk's error; the worker stays up for the next.
 */
import { parentPort } from 'node:worker_threads';
import { enrich, warmUp } from './enrich.ts';
import { packFields, unpackItems, type PackedItems } from './wire.ts';

interface Chunk {
  id: number;
  items: PackedItems;
  defaultLanguage: string;
  force: boolean;
}

const port = parentPort;
if (!port) throw new Error('enrich-worker.ts runs only as a worker thread (pool.ts)');
warmUp();
port.on('message', ({ id, items, defaultLanguage, force }: Chunk) => {
  try {
    const fields = packFields(unpackItems(items).map((item) => enrich(item, defaultLanguage, force)));
    port.postMessage({ id, ...fields }, [fields.sentiments.buffer, fields.labels.buffer, fields.themeCounts.buffer]);
  } catch (error) {
    port.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
