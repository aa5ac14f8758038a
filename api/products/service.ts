/**
 * The product catalog (CONTRACT §13) as the admin API, the CLI and (later)
 * the dashboard use it: the one door to `store.products`. Validation here,
 * storage behind the store interface; imports stream through the review
 * import's parsers (api/reviews/import), line by line.
 */
import { ApiError, badRequest } from '../errors.ts';
import { csvRecords, ndjsonRecords, type ChunkSource, type ParsedRecord } from '../reviews/import/index.ts';
import type { Product, ProductSummary } from '../store/product-types.ts';
import type { Store } from '../store/types.ts';
import { PRODUCT_FIELDS, REQUIRED_PRODUCT_FIELDS, productCsvCell, productIdProblem, validateProduct } from './validate.ts';

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

  /** Inserts or replaces a product from a record of §13's fields; 400 naming every problem. */
  async upsert(orgId: string, record: unknown): Promise<{ product: ProductView; created: boolean }> {
    const checked = validateProduct(record);
    if (!checked.ok) throw badRequest(checked.reason, [{ parameter: 'product', message: checked.reason }]);
    const { product, created } = await this.store.products.upsert({ orgId, ...checked.value }, new Date());
    return { product: productView(product), created };
  }

  async list(orgId: string): Promise<ProductListItem[]> {
    return (await this.store.products.list(orgId)).map((p) => ({ ...productView(p), reviewCount: p.reviewCount, averageRating: p.averageRating }));
  }

  async get(orgId: string, id: string): Promise<ProductView> {
    const problem = productIdProblem(id);
    if (problem) throw badRequest(problem, [{ parameter: 'id', message: problem }]);
    const product = await this.store.products.get(orgId, id);
    if (!product) throw productNotFound(id);
    return productView(product);
  }

  /** 404 for an unknown product, 409 `product_has_reviews` while a review names it. */
  async remove(orgId: string, id: string): Promise<{ id: string; removed: true }> {
    const problem = productIdProblem(id);
    if (problem) throw badRequest(problem, [{ parameter: 'id', message: problem }]);
    const outcome = await this.store.products.remove(orgId, id);
    if (outcome === 'not_found') throw productNotFound(id);
    if (outcome === 'has_reviews') {
      throw new ApiError(409, 'product_has_reviews', `Reviews name the product ${JSON.stringify(id)}: move or remove them before removing it.`);
    }
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
  async import(orgId: string, source: ChunkSource, format: ProductImportFormat): Promise<ProductImportSummary> {
    if (!(PRODUCT_IMPORT_FORMATS as readonly string[]).includes(format)) throw badRequest(`format must be one of ${PRODUCT_IMPORT_FORMATS.join(', ')}`);
    const records: AsyncIterable<ParsedRecord> =
      format === 'csv' ? csvRecords(source, { fields: PRODUCT_FIELDS, required: REQUIRED_PRODUCT_FIELDS, cell: productCsvCell }) : ndjsonRecords(source);
    const summary: ProductImportSummary = { imported: 0, updated: 0, rejected: [] };
    const reject = (line: number, reason: string): void => {
      if (summary.rejected.length < MAX_LISTED_REJECTIONS) summary.rejected.push({ line, reason: reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}…` : reason });
    };
    for await (const item of records) {
      if (item.error !== undefined) {
        reject(item.line, item.error);
        continue;
      }
      const checked = validateProduct(item.record);
      if (!checked.ok) {
        reject(item.line, checked.reason);
        continue;
      }
      const { created } = await this.store.products.upsert({ orgId, ...checked.value }, new Date());
      if (created) summary.imported++;
      else summary.updated++;
    }
    return summary;
  }
}

