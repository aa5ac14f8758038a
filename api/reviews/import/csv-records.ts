/**
 * CSV with a header row naming the import fields (csv-tokenizer.ts does the
 * quoting and the line numbers). Cells are text, so each is converted to the JSON type its column
 * takes before validation: an empty cell is "absent", numbers and booleans are
 * parsed, `aiThemes` is split on `|` or `;`. A cell that does not convert is
 * passed on as text, so the validator rejects it with the field's own reason.
 *
 * A record that cannot be read (a stray quote, text after a closing quote, too
 * large) is rejected with its line and the import goes on with the next line;
 * only a quote never closed, which takes the rest of the file with it, ends it.
 */
import { CsvTokenizer, type CsvRow } from './csv-tokenizer.ts';
import { decodeChunks, type ChunkSource } from './text-chunks.ts';
import type { ParsedRecord } from './parse-records.ts';

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

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
  const tokenizer = new CsvTokenizer();
  let header: string[] | null = null;
  let headerBroken = false;

  /** A row as the record its header row names, or why it cannot be one. */
  const toRecord = (row: CsvRow): ParsedRecord | null => {
    if (row.error !== undefined) return { line: row.line, error: `invalid CSV: ${row.error}` };
    const cells = row.cells!;
    if (cells.length === 1 && cells[0]!.trim() === '') return null;
    if (header === null) {
      const names = cells.map((name) => name.trim());
      const seen = new Set<string>();
      for (const name of names) {
        if (name !== '' && seen.has(name)) return { line: row.line, error: `the header row names the column "${name}" twice` };
        seen.add(name);
      }
      header = names;
      return null;
    }
    if (cells.length !== header.length) return { line: row.line, error: `expected ${header.length} fields as in the header row, found ${cells.length}` };
    const record: Record<string, unknown> = {};
    header.forEach((name, i) => {
      // Unnamed columns (trailing commas from spreadsheets) carry nothing.
      if (name === '') return;
      const value = csvCell(name, cells[i]!);
      if (value !== undefined) record[name] = value;
    });
    return { line: row.line, record };
  };

  const emit = function* (rows: CsvRow[]): Generator<ParsedRecord> {
    for (const row of rows) {
      if (headerBroken) return;
      const out = toRecord(row);
      if (out === null) continue;
      // Without a readable header row nothing after it can be read.
      if (header === null) {
        headerBroken = true;
        yield { line: out.line, error: `${out.error ?? 'unreadable header row'}; a CSV import needs a header row naming the fields, so the rest of the file was not read` };
        return;
      }
      yield out;
    }
  };

  for await (const chunk of decodeChunks(source)) {
    yield* emit(tokenizer.push(chunk));
    if (headerBroken) return;
  }
  yield* emit(tokenizer.end());
  if (header === null && !headerBroken) yield { line: 1, error: 'a CSV import needs a header row naming the fields' };
}
