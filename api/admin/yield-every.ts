/**
 * Long loops on the event loop (an import's parse-validate-enrich loop, a
 * re-enrichment) give the loop a turn at least this often, so that requests
 * served by the same process never wait behind them for long.
 */
import { setImmediate } from 'node:timers/promises';

/** Milliseconds of work between two turns given to the event loop. */
export const SLICE_MS = 10;

/** A function to await inside the loop: it yields once `sliceMs` have passed since the last turn. */
export function yieldEvery(sliceMs = SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async function pause(): Promise<void> {
    if (performance.now() - since < sliceMs) return;
    await setImmediate();
    since = performance.now();
  };
}
