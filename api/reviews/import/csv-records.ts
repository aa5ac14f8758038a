/**
 * CSV with a header row naming the import fields (csv-parse does the
 * quoting). Cells are text, so each is converted to the JSON type its column
 * takes before validation: an empty cell is "absent", numbers and booleans are
 * parsed, `aiThemes` is split on `|` or `;`. A cell that does not convert is
 * passed on as text, so the validator rejects it with the field's own reason.
 *
 * A structural error (an unclosed or stray quote) ends the import at that
 * record: everything after it cannot be read reliably. Records before it stand.
 */
import { parse, type CsvError } from 'csv-parse';
import { MAX_RECORD_CHARS, type ChunkSource } from './text-chunks.ts';
import type { ParsedRecord } from './parse-records.ts';

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function lineBreaks(value: string): number {
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && value.charCodeAt(i + 1) !== 0x0a)) n++;
  }
  return n;
}

/** One CSV cell as the JSON value its column takes; `undefined` = absent. */
export function csvCell(field: string, raw: string): unknown {
  const value = raw.trim();
  switch (field) {
    case 'rating':
    case 'sentiment':
      if (value === '') return null;
      return NUMBER.test(value) ? Number(value) : raw;
    case 'isVerified': {
      const v = value.toLowerCase();
      if (v === '') return undefined;
      if (v === 'true' || v === '1') return true;
      if (v === 'false' || v === '0') return false;
      return raw;
    }
    case 'aiThemes':
      return value === '' ? [] : value.split(/[|;]/).map((t) => t.trim()).filter((t) => t !== '');
    case 'authorAvatar':
    case 'url':
    case 'sentimentLabel':
    case 'aiSummary':
    case 'language':
      return value === '' ? null : raw;
    case 'content':
      return raw;
    default:
      return value === '' ? undefined : raw;
  }
}

export async function* csvRecords(source: ChunkSource): AsyncGenerator<ParsedRecord> {
  // Empty lines come through as records so that line numbers can be counted
  // here: csv-parse's own count takes a CRLF inside quotes as two lines.
  const parser = parse({
    bom: true,
    relax_column_count: true,
    // Mixed line endings are common in hand-edited files.
    record_delimiter: ['\r\n', '\n', '\r'],
    max_record_size: MAX_RECORD_CHARS,
  });
  // Driven by events, not the stream iterator: that one drops the records
  // already parsed when a later part of the file fails.
  const queue: string[][] = [];
  let failure: unknown = null;
  let ended = false;
  parser.on('data', (cells: string[]) => queue.push(cells));
  parser.on('error', (err) => (failure ??= err));
  parser.on('end', () => (ended = true));

  let header: string[] | null = null;
  let line = 1;
  const take = function* (): Generator<ParsedRecord> {
    while (queue.length > 0) {
      const cells = queue.shift()!;
      const start = line;
      line += 1 + cells.reduce((n, cell) => n + lineBreaks(cell), 0);
      if (cells.length === 1 && cells[0]!.trim() === '') continue;
      if (header === null) {
        header = cells.map((name) => name.trim());
        const seen = new Set<string>();
        for (const name of header) {
          if (name !== '' && seen.has(name)) {
            failure = new Error(`the header row names the column "${name}" twice`);
            return;
          }
          seen.add(name);
        }
        continue;
      }
      if (cells.length !== header.length) {
        yield { line: start, error: `expected ${header.length} fields as in the header row, found ${cells.length}` };
        continue;
      }
      const record: Record<string, unknown> = {};
      header.forEach((name, i) => {
        // Unnamed columns (trailing commas from spreadsheets) carry nothing.
        if (name === '') return;
        const value = csvCell(name, cells[i]!);
        if (value !== undefined) record[name] = value;
      });
      yield { line: start, record };
    }
  };

  // Resolves on the event, or when the parser fails or closes instead.
  const settle = (event: 'drain' | 'end'): Promise<void> =>
    new Promise<void>((resolve) => {
      const done = (): void => {
        parser.off(event, done).off('error', done).off('close', done);
        resolve();
      };
      parser.on(event, done).on('error', done).on('close', done);
    });

  for await (const chunk of source) {
    if (failure === null && !parser.destroyed && !parser.write(chunk)) await settle('drain');
    yield* take();
    if (failure !== null) break;
  }
  if (failure === null) {
    parser.end();
    if (!ended && failure === null) await settle('end');
    yield* take();
  }
  parser.destroy();
  if (failure !== null) {
    const err = failure as Partial<CsvError> & Error;
    if (typeof err.code === 'string' && err.code.startsWith('CSV_')) {
      yield { line, error: `invalid CSV: ${csvReason(err.code)}; the rest of the file was not read` };
    } else if (err.message.startsWith('the header row')) {
      yield { line: 1, error: err.message };
    } else throw err;
  } else if (header === null) yield { line: 1, error: 'a CSV import needs a header row naming the fields' };
}

function csvReason(code: string): string {
  switch (code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field is never closed';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'a quoted field is followed by text before the next comma';
    case 'CSV_MAX_RECORD_SIZE_EXCEEDED':
      return `a record is larger than ${MAX_RECORD_CHARS} characters`;
    default:
      return code;
  }
}
