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
 * A header row that lacks a required column, or names one the import does not
 * know, is one file-level error naming what is missing and what was found:
 * every line would fail the same way, so none is read.
 */
import { CsvTokenizer, type CsvRow } from './csv-tokenizer.ts';
import { IMPORT_FIELDS, REQUIRED_FIELDS } from './validate-record.ts';
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

/**
 * What a CSV file's columns are: the fields a header may name, those it must
 * name, and how a cell becomes its field's JSON value. Reviews by default;
 * the product catalog's import (api/products) gives its own.
 */
export interface CsvSchema {
  fields: readonly string[];
  required: readonly string[];
  cell(field: string, raw: string): unknown;
}

export const REVIEW_CSV: CsvSchema = { fields: IMPORT_FIELDS, required: REQUIRED_FIELDS, cell: csvCell };

export async function* csvRecords(source: ChunkSource, schema: CsvSchema = REVIEW_CSV): AsyncGenerator<ParsedRecord> {
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
      const problem = headerProblem(names, schema);
      if (problem !== null) return { line: row.line, error: problem, fileLevel: true };
      header = names;
      return null;
    }
    if (cells.length !== header.length) return { line: row.line, error: `expected ${header.length} fields as in the header row, found ${cells.length}` };
    const record: Record<string, unknown> = {};
    header.forEach((name, i) => {
      // Unnamed columns (trailing commas from spreadsheets) carry nothing.
      if (name === '') return;
      const value = schema.cell(name, cells[i]!);
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
        if (out.fileLevel) return yield out;
        yield { line: out.line, error: `${out.error ?? 'unreadable header row'}; a CSV import needs a header row naming the fields, so the rest of the file was not read`, fileLevel: true };
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
  if (header === null && !headerBroken) yield { line: 1, error: 'a CSV import needs a header row naming the fields', fileLevel: true };
}

/** Column names quoted in a message, at most this many (a hostile header must not make it huge). */
const NAMES_SHOWN = 20;

function quoted(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).map((n) => JSON.stringify(n.length > 40 ? `${n.slice(0, 40)}…` : n));
  return shown.join(', ') + (names.length > NAMES_SHOWN ? ` and ${names.length - NAMES_SHOWN} more` : '');
}

/** Why a header row cannot be read as import fields (missing required columns, unknown ones), or null. */
function headerProblem(names: readonly string[], schema: CsvSchema): string | null {
  const present = new Set(names);
  const missing = schema.required.filter((f) => !present.has(f));
  const unknown = names.filter((n) => n !== '' && !schema.fields.includes(n));
  if (missing.length === 0 && unknown.length === 0) return null;
  const found = names.filter((n) => n !== '');
  if (missing.length > 0) {
    const foundText = found.length > 0 ? quoted(found) : 'no named column';
    return `the header row is missing the required column${missing.length > 1 ? 's' : ''} ${quoted(missing)} (found: ${foundText}), so no line was read`;
  }
  return `the header row names ${unknown.length > 1 ? 'columns' : 'a column'} the import does not know: ${quoted(unknown)} (known: ${schema.fields.join(', ')}), so no line was read`;
}
