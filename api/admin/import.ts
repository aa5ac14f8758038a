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
import { bulkImports, BULK_RECORDS } from '../jobs/bulk-imports.ts';
import type { Logger } from '../logger.ts';
import { parseRecords, readAsUtc, validateRecord, type ParsedRecord, type ReviewDraft } from '../reviews/import/index.ts';
import type { Organization, Review, ReviewInput, Store } from '../store/types.ts';
import { changeType } from '../webhooks/outbox.ts';
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
/** Records per chunk sent to the enrichment pool (or analysed here): large enough that messaging costs little. */
const CHUNK = 500;
/** Chunks at the pool and not yet answered, per worker: keeps every worker busy and memory bounded. */
const IN_FLIGHT_PER_WORKER = 2;

/** What enrichment reads of a validated record. */
function enrichable({ content, language, sentiment, sentimentLabel, aiSummary, aiThemes }: ReviewDraft): Enrichable {
  return { content, language, sentiment, sentimentLabel, aiSummary, aiThemes };
}

/** The record with its AI fields (those it gave, kept by enrich(), and those computed), and the source that collected it. */
function withFields(v: ReviewDraft, f: AiFields, collectedBy?: string): ReviewInput {
  const input: ReviewInput = {
    platform: v.platform,
    externalId: v.externalId,
    authorName: v.authorName,
    authorAvatar: v.authorAvatar,
    rating: v.rating,
    content: v.content,
    date: v.date,
    url: v.url,
    language: f.language,
    isVerified: v.isVerified,
    sentiment: f.sentiment,
    sentimentLabel: f.sentimentLabel,
    aiSummary: f.aiSummary,
    aiThemes: f.aiThemes,
    productId: v.productId ?? null,
    reply: v.reply ?? null,
  };
  if (collectedBy !== undefined) input.sourceId = collectedBy;
  return input;
}

const naturalKey = (r: { platform: string; externalId: string }): string => `${r.platform}\u0000${r.externalId}`;

/** The review the store would hold for `input` where `stored` is (its id and times; the date in canonical form). */
function asStored(input: ReviewInput, stored: Review): Review {
  return { ...stored, ...input, date: new Date(input.date).toISOString() };
}

/**
 * A source's records against the live reviews stored (ImportOptions.collectedBy). Where the text is
 * the stored one, the stored AI fields are kept (those the record does not give itself): they are
 * computed again only when the text changes. A record then identical, as the API shows it (the
 * comparison that keeps an identical re-import from sending events, webhooks/outbox.ts), to a review
 * this source collected already is left out: nothing to write, nothing to count. One identical but
 * not yet collected by it (a file import the source now sees) is written, to mark it, but is not a
 * change (`quiet`).
 */
async function againstStored<V extends ReviewDraft>(store: Store, orgId: string, records: V[], collectedBy: string): Promise<{ records: V[]; fields: (AiFields | null)[]; quiet: string[] }> {
  const byPlatform = new Map<string, string[]>();
  for (const r of records) {
    const ids = byPlatform.get(r.platform);
    if (ids) ids.push(r.externalId);
    else byPlatform.set(r.platform, [r.externalId]);
  }
  const stored = new Map<string, Review>();
  for (const [platform, ids] of byPlatform) for (const review of await store.reviews.findByExternalIds(orgId, platform, ids)) stored.set(naturalKey(review), review);
  const out: { records: V[]; fields: (AiFields | null)[]; quiet: string[] } = { records: [], fields: [], quiet: [] };
  for (const r of records) {
    const was = stored.get(naturalKey(r));
    if (!was || was.content !== r.content) {
      out.records.push(r);
      out.fields.push(null);
      continue;
    }
    const fields: AiFields = {
      language: r.language ?? was.language,
      sentiment: r.sentiment ?? was.sentiment,
      sentimentLabel: r.sentimentLabel ?? was.sentimentLabel,
      aiSummary: r.aiSummary ?? was.aiSummary,
      aiThemes: r.aiThemes.length > 0 ? r.aiThemes : was.aiThemes,
    };
    const same = changeType(was, asStored(withFields(r, fields, collectedBy), was)) === null;
    if (same && was.sourceId === collectedBy) continue;
    if (same) out.quiet.push(naturalKey(r));
    out.records.push(r);
    out.fields.push(fields);
  }
  return out;
}

export interface ImportSummary {
  imported: number;
  updated: number;
  rejected: { line: number; reason: string }[];
  rejectedTotal: number;
  /**
   * The file's own problem (a CSV header without the required columns, a JSON
   * file that is not an array), also listed in `rejected`: nothing after it was read.
   */
  fileError: { line: number; reason: string } | null;
  /** Kept records whose date-time had no offset ("2026-11-20 10:00"): read as UTC. */
  datesWithoutOffset: number;
}

export interface ImportOptions {
  /** Runs before each batch is written; throwing ends the import there (the dashboard re-checks the uploader's session and role). */
  beforeWrite?: () => Promise<void>;
  /**
   * Told the counts each time a batch has landed (the same summary object, filled in as they
   * land): the counts so far are known when the import fails or is interrupted (the audit record),
   * and the dashboard shows them after a reload.
   */
  progress?: (summary: Readonly<ImportSummary>) => void;
  /**
   * The records come from this source's sync (api/sources/sync.ts): each is marked as collected by
   * it (`sourceId`), and a review that did not change is neither written nor counted (againstStored).
   */
  collectedBy?: string;
}

export async function importReviews(
  store: Store,
  org: Organization,
  source: AsyncIterable<Buffer>,
  format: ImportFormat,
  logger: Logger,
  pool: EnrichPool | null = sharedEnrichPool(),
  options: ImportOptions = {},
): Promise<ImportSummary> {
  logger.info({ orgId: org.id, format }, 'import started');
  const summary = await importRecords(store, org, parseRecords(source, format), pool, options);
  logger.info({ orgId: org.id, imported: summary.imported, updated: summary.updated, rejected: summary.rejectedTotal }, 'import finished');
  return summary;
}

/**
 * The one way reviews get in, whatever brought them (a file, or a platform's
 * API through a source's sync, api/sources/sync.ts): records validated
 * (validateRecord), enriched, and upserted by their natural key
 * platform+externalId. `line` numbers the records for the rejections.
 */
export async function importRecords(
  store: Store,
  org: Organization,
  records: AsyncIterable<ParsedRecord> | Iterable<ParsedRecord>,
  pool: EnrichPool | null = sharedEnrichPool(),
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const { beforeWrite, progress, collectedBy } = options;
  /** Natural keys of records written only to mark them collected (againstStored): not counted as updated. */
  const quiet = new Set<string>();
  const orgId = org.id;
  const pause = yieldEvery();
  const summary: ImportSummary = { imported: 0, updated: 0, rejected: [], rejectedTotal: 0, fileError: null, datesWithoutOffset: 0 };
  let batch: ReviewInput[] = [];
  let batchChars = 0;
  // One batch is written (prepared, logged, synced) while the next one is read and analysed; a
  // batch's write starts once the one before it is durable, and after a failed write none does.
  let writing: Promise<void> | null = null;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const records = batch;
    batch = [];
    batchChars = 0;
    if (writing) await writing;
    if (beforeWrite) await beforeWrite();
    let marks = 0;
    if (quiet.size > 0) for (const r of records) if (quiet.delete(naturalKey(r))) marks++;
    writing = store.reviews.upsert(orgId, records, new Date()).then((result) => {
      summary.imported += result.imported;
      summary.updated += Math.max(0, result.updated - marks);
      progress?.(summary);
    });
    // Handled where it is awaited: by the next flush, or at the end.
    writing.catch(() => undefined);
  };
  const add = async (v: ReviewInput): Promise<void> => {
    batch.push(v);
    batchChars += v.content.length + v.authorName.length + (v.aiSummary?.length ?? 0) + 200;
    if (batch.length >= BATCH || batchChars >= BATCH_CHARS) await flush();
  };
  // Validated records wait in `chunk`, then in `queue` (in input order) until their fields are known and they are batched.
  type Validated = Extract<ReturnType<typeof validateRecord>, { ok: true }>['value'];
  interface Queued {
    records: Validated[];
    /** The fields, once known; until then `answer` is the pool's promise of them. */
    fields: AiFields[] | null;
    answer: Promise<AiFields[]> | null;
  }
  let chunk: Validated[] = [];
  const queue: Queued[] = [];
  /** Records read so far, and the end of this import's bulk mark once it is bulk (jobs/bulk-imports.ts). */
  let read = 0;
  let endBulk: (() => void) | null = null;
  /** Chunks at the pool and not yet answered. */
  let atPool = 0;
  const maxAtPool = pool === null ? 0 : pool.size * IN_FLIGHT_PER_WORKER;
  const takeBack = async (): Promise<void> => {
    const { records, fields, answer } = queue.shift()!;
    // A failed chunk fails the import here, before any of its records is batched.
    const results = fields ?? (await answer!);
    for (let i = 0; i < records.length; i++) await add(withFields(records[i]!, results[i]!, collectedBy));
  };
  const send = async (): Promise<void> => {
    let records = chunk;
    chunk = [];
    /** Fields known without enrichment (a source's record whose text is unchanged); null: to compute. */
    let known: (AiFields | null)[] | null = null;
    if (collectedBy !== undefined) {
      const against = await againstStored(store, orgId, records, collectedBy);
      records = against.records;
      known = against.fields;
      for (const key of against.quiet) quiet.add(key);
    }
    const needing = known === null ? records : records.filter((_, i) => known![i] === null);
    const merge = (computed: AiFields[]): AiFields[] => {
      if (known === null) return computed;
      let j = 0;
      return known.map((f) => f ?? computed[j++]!);
    };
    if (needing.length > 0 && atPool < maxAtPool) {
      const queued: Queued = { records, fields: null, answer: pool!.run(needing.map(enrichable), org.language).then(merge) };
      atPool++;
      // Also marks the failure as handled until takeBack() awaits it, in order.
      queued.answer!.then(
        (fields) => {
          queued.fields = fields;
          atPool--;
        },
        () => atPool--,
      );
      queue.push(queued);
    } else {
      // Every worker has its share queued (or there is no pool): rather than wait, this thread
      // analyses the chunk itself (the same code, so the same fields), giving the event loop turns.
      const fields: AiFields[] = [];
      for (const record of needing) {
        fields.push(enrich(record, org.language));
        await pause();
      }
      queue.push({ records, fields: merge(fields), answer: null });
    }
    // Write what is answered, in order; wait for the pool only when too much is queued.
    while (queue.length > 0 && (queue[0]!.fields !== null || queue.length > maxAtPool + 2)) await takeBack();
  };
  // Catalog ids seen so far and whether the organization's catalog holds them (a file names few products, many times).
  const catalog = new Map<string, boolean>();
  const inCatalog = async (productId: string): Promise<boolean> => {
    let known = catalog.get(productId);
    if (known === undefined) {
      known = (await store.products.get(orgId, productId)) !== null;
      if (catalog.size < 100_000) catalog.set(productId, known);
    }
    return known;
  };
  const reject = (line: number, reason: string): void => {
    summary.rejectedTotal++;
    if (summary.rejected.length < MAX_LISTED_REJECTIONS) summary.rejected.push({ line, reason: reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}…` : reason });
  };

  try {
    for await (const item of records) {
      if (item.error !== undefined) {
        reject(item.line, item.error);
        if (item.fileLevel) summary.fileError = summary.rejected.at(-1) ?? null;
        continue;
      }
      const checked = validateRecord(item.record);
      if (!checked.ok) {
        reject(item.line, checked.reason);
        continue;
      }
      const productId = checked.value.productId;
      if (productId !== undefined && productId !== null && !(await inCatalog(productId))) {
        reject(item.line, `productId ${JSON.stringify(productId)} is not in the organization's product catalog (add it with products upsert or products import first)`);
        continue;
      }
      if (readAsUtc((item.record as { date: string }).date)) summary.datesWithoutOffset++;
      if (++read > BULK_RECORDS && endBulk === null) endBulk = bulkImports.begin(orgId);
      chunk.push(checked.value);
      if (chunk.length >= CHUNK) await send();
      await pause();
    }
    if (chunk.length > 0) await send();
    while (queue.length > 0) await takeBack();
    await flush();
    await writing;
  } catch (err) {
    // A write still in flight ends (lands or fails) before the import answers.
    await (writing as Promise<void> | null)?.catch(() => undefined);
    throw err;
  } finally {
    (endBulk as (() => void) | null)?.();
  }
  return summary;
}
