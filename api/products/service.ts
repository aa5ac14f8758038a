/**
 * The product catalog (CONTRACT §13) as the admin API, the CLI and the
 * dashboard use it: the one door to `store.products`. Validation here,
 * storage behind the store interface; imports stream through the review
 * import's parsers (api/reviews/import), line by line. Every change is
 * audited (`product.created`, `product.updated`, `product.removed`,
 * `product.imported`) in the name of whoever made it: a dashboard user, or
 * the operator (admin API, CLI).
 */
import { audit, OPERATOR } from '../dashboard/audit.ts';
import { ApiError, badRequest } from '../errors.ts';
import { csvRecords, ndjsonRecords, type ChunkSource, type ParsedRecord } from '../reviews/import/index.ts';
import type { User } from '../store/people-types.ts';
import type { Product, ProductSummary } from '../store/product-types.ts';
import type { Store } from '../store/types.ts';
import { PRODUCT_FIELDS, REQUIRED_PRODUCT_FIELDS, productCsvCell, productIdProblem, validateProduct, type ProductFields } from './validate.ts';

/** Who changes the catalog: a dashboard user, or the operator. */
export type ProductActor = Pick<User, 'id' | 'email'> | typeof OPERATOR;

/** How an import reports as it goes (the dashboard's progress), and checks its uploader before writing. */
export interface ProductImportOptions {
  actor?: ProductActor;
  /** Called after each line with the counts so far. */
  progress?: (counts: { imported: number; updated: number; rejectedTotal: number }) => void;
  /** Called before the first write and every BEFORE_WRITE_EVERY writes after it; throws to stop the import. */
  beforeWrite?: () => Promise<void>;
}

/** One page of the catalog (the dashboard's list). */
export interface ProductPage {
  data: ProductListItem[];
  total: number;
}

/** An uploader is checked again after this many writes (reviews check before each batch of 500). */
const BEFORE_WRITE_EVERY = 500;

/** The audit target of a product: its id, and its name with the id. */
const productTarget = (p: { id: string; name: string }) => ({ id: p.id, label: `${p.name} (${p.id})` });

/** Each editable field as the audit log says it. */
const FIELD_WORDS = { name: 'name', url: 'page URL', imageUrl: 'picture URL', gtin: 'GTIN', brand: 'brand' } as const;

/** The fields an update changed, in words ("name, GTIN"). */
function changedFields(before: Product, after: ProductFields): string {
  return (Object.keys(FIELD_WORDS) as (keyof typeof FIELD_WORDS)[]).filter((f) => before[f] !== after[f]).map((f) => FIELD_WORDS[f]).join(', ');
}

export const PRODUCT_IMPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ProductImportFormat = (typeof PRODUCT_IMPORT_FORMATS)[number];

/** A product as every answer shows it (§13): no organization id. */
export type ProductView = Omit<Product, 'orgId' | 'updatedAt'>;
export type ProductListItem = ProductView & Pick<ProductSummary, 'reviewCount' | 'averageRating'>;

export interface ProductImportSummary {
  imported: number;
  updated: number;
  rejected: { line: number; reason: string }[];
}

/** Rejections listed in an import's answer (the review import's bound). */
const MAX_LISTED_REJECTIONS = 1000;
const MAX_REASON = 300;

export function productView(p: Product): ProductView {
  return { id: p.id, name: p.name, url: p.url, imageUrl: p.imageUrl, gtin: p.gtin, brand: p.brand, createdAt: p.createdAt };
}

export const productNotFound = (id: string): ApiError => new ApiError(404, 'product_not_found', `No product ${JSON.stringify(id)} in this organization's catalog.`);

export class ProductsService {
  constructor(private readonly store: Store) {}

  /**
   * Inserts or replaces a product from a record of §13's fields; 400 naming
   * every problem (one detail per field, in the validator's words). `mode`:
   * `create` refuses an id already in the catalog (409 `product_exists`),
   * `replace` an id not in it (404); `upsert` takes either.
   */
  async upsert(orgId: string, record: unknown, actor: ProductActor = OPERATOR, mode: 'upsert' | 'create' | 'replace' = 'upsert'): Promise<{ product: ProductView; created: boolean }> {
    const checked = validateProduct(record);
    if (!checked.ok) throw badRequest(checked.reason, checked.problems.map((p) => ({ parameter: p.field, message: p.message })));
    const before = await this.store.products.get(orgId, checked.value.id);
    if (mode === 'create' && before) {
      throw new ApiError(409, 'product_exists', `The catalog already has a product ${JSON.stringify(checked.value.id)} (“${before.name}”): edit it instead, or choose another id.`, [
        { parameter: 'id', message: 'is already in the catalog' },
      ]);
    }
    if (mode === 'replace' && !before) throw productNotFound(checked.value.id);
    const { product, created } = await this.store.products.upsert({ orgId, ...checked.value }, new Date());
    if (created) await audit(this.store, orgId, actor, 'product.created', productTarget(product));
    else {
      const changes = before ? changedFields(before, checked.value) : '';
      await audit(this.store, orgId, actor, 'product.updated', productTarget(product), { changes: changes ? `changed ${changes}` : 'no change' });
    }
    return { product: productView(product), created };
  }

  async list(orgId: string): Promise<ProductListItem[]> {
    return (await this.store.products.list(orgId)).map((p) => ({ ...productView(p), reviewCount: p.reviewCount, averageRating: p.averageRating }));
  }

  /**
   * One page of the catalog, by id, optionally only the products whose id or
   * name contains `query` (case-insensitive): the dashboard never draws 10,000
   * rows at once.
   */
  async page(orgId: string, { offset, limit, query }: { offset: number; limit: number; query?: string }): Promise<ProductPage> {
    const needle = query?.trim().toLowerCase() ?? '';
    const all = await this.list(orgId);
    const matching = needle === '' ? all : all.filter((p) => p.id.toLowerCase().includes(needle) || p.name.toLowerCase().includes(needle));
    return { data: matching.slice(offset, offset + limit), total: matching.length };
  }

  async get(orgId: string, id: string): Promise<ProductView> {
    const problem = productIdProblem(id);
    if (problem) throw badRequest(problem, [{ parameter: 'id', message: problem }]);
    const product = await this.store.products.get(orgId, id);
    if (!product) throw productNotFound(id);
    return productView(product);
  }

  /** 404 for an unknown product, 409 `product_has_reviews` while a review names it. */
  async remove(orgId: string, id: string, actor: ProductActor = OPERATOR): Promise<{ id: string; removed: true }> {
    const problem = productIdProblem(id);
    if (problem) throw badRequest(problem, [{ parameter: 'id', message: problem }]);
    const before = await this.store.products.get(orgId, id);
    const outcome = await this.store.products.remove(orgId, id);
    if (outcome === 'not_found') throw productNotFound(id);
    if (outcome === 'has_reviews') {
      throw new ApiError(409, 'product_has_reviews', `Reviews name the product ${JSON.stringify(id)}: move or remove them before removing it.`);
    }
    await audit(this.store, orgId, actor, 'product.removed', productTarget(before ?? { id, name: id }));
    return { id, removed: true };
  }

  /** Whether the organization's catalog holds this id (review imports check `productId` with it). */
  async exists(orgId: string, id: string): Promise<boolean> {
    return (await this.store.products.get(orgId, id)) !== null;
  }

  /**
   * A CSV (header naming §13's fields) or NDJSON file, streamed: each line is
   * read, checked and upserted on its own, so memory stays bounded and a bad
   * line is a rejection with its line number, never the end of the import.
   */
  async import(orgId: string, source: ChunkSource, format: ProductImportFormat, options: ProductImportOptions = {}): Promise<ProductImportSummary> {
    if (!(PRODUCT_IMPORT_FORMATS as readonly string[]).includes(format)) throw badRequest(`format must be one of ${PRODUCT_IMPORT_FORMATS.join(', ')}`);
    let bytes = 0;
    async function* counted(): AsyncGenerator<string | Uint8Array> {
      for await (const chunk of source) {
        bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
        yield chunk;
      }
    }
    const records: AsyncIterable<ParsedRecord> =
      format === 'csv' ? csvRecords(counted(), { fields: PRODUCT_FIELDS, required: REQUIRED_PRODUCT_FIELDS, cell: productCsvCell }) : ndjsonRecords(counted());
    const summary: ProductImportSummary = { imported: 0, updated: 0, rejected: [] };
    let rejectedTotal = 0;
    const reject = (line: number, reason: string): void => {
      rejectedTotal++;
      if (summary.rejected.length < MAX_LISTED_REJECTIONS) summary.rejected.push({ line, reason: reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}…` : reason });
    };
    let writes = 0;
    let interrupted = true;
    try {
      for await (const item of records) {
        if (item.error !== undefined) reject(item.line, item.error);
        else {
          const checked = validateProduct(item.record);
          if (!checked.ok) reject(item.line, checked.reason);
          else {
            if (options.beforeWrite && writes % BEFORE_WRITE_EVERY === 0) await options.beforeWrite();
            writes++;
            const { created } = await this.store.products.upsert({ orgId, ...checked.value }, new Date());
            if (created) summary.imported++;
            else summary.updated++;
          }
        }
        options.progress?.({ imported: summary.imported, updated: summary.updated, rejectedTotal });
      }
      interrupted = false;
      return summary;
    } finally {
      // However it ends: what landed is in the catalog, so it is audited with what it held.
      await audit(this.store, orgId, options.actor ?? OPERATOR, 'product.imported', { id: orgId, label: `${format.toUpperCase()} file` }, {
        format,
        bytes: String(bytes),
        imported: String(summary.imported),
        updated: String(summary.updated),
        rejected: String(rejectedTotal),
        interrupted: interrupted ? 'yes' : 'no',
      });
    }
  }
}

