/**
 * Streaming review import: records are parsed and validated one by one and
 * upserted in batches. Each batch is atomic in the store, so an import that
 * fails or is interrupted keeps the batches already written and never corrupts
 * what was stored; memory stays bounded whatever the input size. Each record
 * is enriched (api/intelligence) before it is batched: the AI fields it lacks
 * are computed, its own are kept.
 */
import type { Readable } from 'node:stream';
import { enrich } from '../intelligence/enrich.ts';
import type { Logger } from '../logger.ts';
import { parseRecords, validateRecord } from '../reviews/import/index.ts';
import type { Organization, ReviewInput, Store } from '../store/types.ts';
import { yieldEvery } from './yield-every.ts';

export const IMPORT_FORMATS = ['ndjson', 'json', 'csv'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Records per store write: large enough for throughput, small enough to bound memory. */
const BATCH = 2000;
/** Rejections listed in the answer; the count covers all. */
const MAX_LISTED_REJECTIONS = 1000;
/** A reason is cut to this many characters, so the answer stays small whatever the input. */
const MAX_REASON = 300;
/** A batch is also written once its text reaches this size, so one log entry stays bounded. */
const BATCH_CHARS = 8_000_000;

export interface ImportSummary {
  imported: number;
  updated: number;
  rejected: { line: number; reason: string }[];
  rejectedTotal: number;
}

export async function importReviews(store: Store, org: Organization, source: Readable, format: ImportFormat, logger: Logger): Promise<ImportSummary> {
  const orgId = org.id;
  const pause = yieldEvery();
  const summary: ImportSummary = { imported: 0, updated: 0, rejected: [], rejectedTotal: 0 };
  let batch: ReviewInput[] = [];
  let batchChars = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const result = await store.reviews.upsert(orgId, batch, new Date());
    summary.imported += result.imported;
    summary.updated += result.updated;
    batch = [];
    batchChars = 0;
  };
  const reject = (line: number, reason: string): void => {
    summary.rejectedTotal++;
    if (summary.rejected.length < MAX_LISTED_REJECTIONS) summary.rejected.push({ line, reason: reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}…` : reason });
  };

  for await (const item of parseRecords(source as AsyncIterable<Buffer>, format)) {
    if (item.error !== undefined) {
      reject(item.line, item.error);
      continue;
    }
    const checked = validateRecord(item.record);
    if (!checked.ok) {
      reject(item.line, checked.reason);
      continue;
    }
    const v: ReviewInput = { ...checked.value, ...enrich(checked.value, org.language) };
    batch.push(v);
    batchChars += v.content.length + v.authorName.length + (v.aiSummary?.length ?? 0) + 200;
    if (batch.length >= BATCH || batchChars >= BATCH_CHARS) await flush();
    await pause();
  }
  await flush();
  logger.info({ orgId, imported: summary.imported, updated: summary.updated, rejected: summary.rejectedTotal }, 'import finished');
  return summary;
}
