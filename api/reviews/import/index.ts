/** Review import: streaming parsers per format and the per-record validator. */
export { parseRecords, detectFormat, IMPORT_FORMATS, type ImportFormat, type ParsedRecord } from './parse-records.ts';
export { validateRecord, parseIsoDate, detectLanguage, IMPORT_FIELDS, LIMITS, FALLBACK_LANGUAGE, type Validation } from './validate-record.ts';
export { MAX_RECORD_CHARS, type ChunkSource } from './text-chunks.ts';
