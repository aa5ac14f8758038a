/**
 * Streaming review import: records are parsed and validated one by one and
 * upserted in batches. Each batch is atomic in the store, so an import that
 * fails or is interrupted keeps the batches already written and never corrupts
 * what was stored; memory stays bounded whatever the input size. Each record
 * is enriched (api/intelligence) before it is batched: the AI fields it lacks
 * are computed, its own are kept. With an enrichment pool (ENRICH_WORKERS,
 * api/intelligence/pool.ts) records are sent to it in chunks and taken back
 * in the order they came: the main thread parses and writes while the
 * workers analyse. A failed chunk fails the import before any of its records
 * is batched.
 */
import type { Readable } from 'node:stream';
import { enrich, type AiFields, type Enrichable } from '../intelligence/enrich.ts';
import { sharedEnrichPool, type EnrichPool } from '../intelligence/pool.ts';
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
/** Records per chunk sent to the enrichment pool: large enough that messaging costs little. */
const CHUNK = 500;
/** Chunks sent and not yet taken back, per worker: keeps every worker busy and memory bounded. */
const IN_FLIGHT_PER_WORKER = 2;

export interface ImportSummary {
  imported: number;
  updated: number;
  rejected: { line: number; reason: string }[];
  rejectedTotal: number;
}

export async function importReviews(
  store: Store,
  org: Organization,
  source: AsyncIterable<Buffer>,
  format: ImportFormat,
  logger: Logger,
  pool: EnrichPool | null = sharedEnrichPool(),
): Promise<ImportSummary> {
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
  const add = async (v: ReviewInput): Promise<void> => {
    batch.push(v);
    batchChars += v.content.length + v.authorName.length + (v.aiSummary?.length ?? 0) + 200;
    if (batch.length >= BATCH || batchChars >= BATCH_CHARS) await flush();
  };
  // The pool's path: validated records wait in `chunk`, then in `inFlight` while a worker analyses them.
  type Validated = Extract<ReturnType<typeof validateRecord>, { ok: true }>['value'];
  let chunk: Validated[] = [];
  const inFlight: { records: Validated[]; fields: Promise<AiFields[]> }[] = [];
  const send = (): void => {
    const records = chunk;
    chunk = [];
    const items: Enrichable[] = records.map(({ content, language, sentiment, sentimentLabel, aiSummary, aiThemes }) => ({ content, language, sentiment, sentimentLabel, aiSummary, aiThemes }));
    const fields = pool!.run(items, org.language);
    // Awaited in order by takeBack(); until then a failure must not count as unhandled.
    fields.catch(() => undefined);
    inFlight.push({ records, fields });
  };
  const takeBack = async (): Promise<void> => {
    const { records, fields } = inFlight.shift()!;
    const results = await fields;
    for (let i = 0; i < records.length; i++) await add({ ...records[i]!, ...results[i]! });
  };
  const reject = (line: number, reason: string): void => {
    summary.rejectedTotal++;
    if (summary.rejected.length < MAX_LISTED_REJECTIONS) summary.rejected.push({ line, reason: reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}…` : reason });
  };

  for await (const item of parseRecords(source, format)) {
    if (item.error !== undefined) {
      reject(item.line, item.error);
      continue;
    }
    const checked = validateRecord(item.record);
    if (!checked.ok) {
      reject(item.line, checked.reason);
      continue;
    }
    if (pool === null) {
      await add({ ...checked.value, ...enrich(checked.value, org.language) });
    } else {
      chunk.push(checked.value);
      if (chunk.length >= CHUNK) {
        send();
        if (inFlight.length > pool.size * IN_FLIGHT_PER_WORKER) await takeBack();
      }
    }
    await pause();
  }
  if (chunk.length > 0) send();
  while (inFlight.length > 0) await takeBack();
  await flush();
  logger.info({ orgId, imported: summary.imported, updated: summary.updated, rejected: summary.rejectedTotal }, 'import finished');
  return summary;
}
