/**
 * Streaming parsers for review import files. Each yields one entry per record
 * with the 1-based line where the record starts, and holds at most one record
 * in memory, so a 1 GB file needs no more memory than a small one.
 */
import type { ChunkSource } from './text-chunks.ts';
import { ndjsonRecords } from './ndjson-records.ts';
import { jsonArrayRecords } from './json-array-records.ts';
import { csvRecords } from './csv-records.ts';

export type ImportFormat = 'ndjson' | 'json' | 'csv';
export const IMPORT_FORMATS: readonly ImportFormat[] = ['ndjson', 'json', 'csv'];

/** A record as read (still unvalidated), or why it could not be read. */
export interface ParsedRecord {
  line: number;
  record?: unknown;
  error?: string;
  /** The error is the file's (a CSV header without the required columns): nothing after it is read. */
  fileLevel?: true;
}

export function parseRecords(source: ChunkSource, format: ImportFormat): AsyncIterable<ParsedRecord> {
  switch (format) {
    case 'ndjson':
      return ndjsonRecords(source);
    case 'json':
      return jsonArrayRecords(source);
    case 'csv':
      return csvRecords(source);
  }
}

/** The format a file name implies, by extension; null when it implies none. */
export function detectFormat(filename: string): ImportFormat | null {
  const match = /\.([a-z]+)$/i.exec(filename.trim());
  switch (match?.[1]?.toLowerCase()) {
    case 'ndjson':
    case 'jsonl':
      return 'ndjson';
    case 'json':
      return 'json';
    case 'csv':
      return 'csv';
    default:
      return null;
  }
}
