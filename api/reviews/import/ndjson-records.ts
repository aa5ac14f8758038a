/** Newline-delimited JSON: one record per line; blank lines are skipped. */
import { decodeChunks, MAX_RECORD_CHARS, type ChunkSource } from './text-chunks.ts';
import type { ParsedRecord } from './parse-records.ts';

export async function* ndjsonRecords(source: ChunkSource): AsyncGenerator<ParsedRecord> {
  let parts: string[] = [];
  let partsLength = 0;
  let oversized = false;
  let line = 1;

  const finish = (text: string): ParsedRecord | null => {
    if (oversized) return { line, error: `record is larger than ${MAX_RECORD_CHARS} characters` };
    if (text.trim() === '') return null;
    try {
      return { line, record: JSON.parse(text) as unknown };
    } catch (err) {
      return { line, error: `invalid JSON: ${(err as Error).message}` };
    }
  };

  for await (const chunk of decodeChunks(source)) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      if (nl < 0) break;
      let text = chunk.slice(start, nl);
      if (parts.length > 0) {
        text = parts.join('') + text;
        parts = [];
        partsLength = 0;
      }
      if (!oversized && text.length > MAX_RECORD_CHARS) oversized = true;
      const out = finish(text);
      if (out) yield out;
      oversized = false;
      line++;
      start = nl + 1;
    }
    if (start < chunk.length && !oversized) {
      const tail = chunk.slice(start);
      partsLength += tail.length;
      // A runaway line is dropped as it arrives, never held whole.
      if (partsLength > MAX_RECORD_CHARS) {
        oversized = true;
        parts = [];
        partsLength = 0;
      } else parts.push(tail);
    }
  }
  const out = finish(parts.join(''));
  if (out) yield out;
}
