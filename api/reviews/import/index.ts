/** Review import: streaming parsers per format and the per-record validator. */
export { parseRecords, detectFormat, IMPORT_FORMATS, type ImportFormat, type ParsedRecord } from './parse-records.ts';
export { validateRecord, parseIsoDate, readAsUtc, IMPORT_FIELDS, LIMITS, type ReviewDraft, type Validation } from './validate-record.ts';
export { MAX_RECORD_CHARS, type ChunkSource } from './text-chunks.ts';
export { csvRecords, REVIEW_CSV, type CsvSchema } from './csv-records.ts';
export { ndjsonRecords } from './ndjson-records.ts';
