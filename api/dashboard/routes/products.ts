/**
 * The dashboard's Products page (CONTRACT §13): everyone signed in reads the
 * catalog, a page at a time, with each product's review count and average;
 * Owner and Admin add, edit, remove and import. Every route calls the one
 * ProductsService (api/products) in the signed-in person's name, so that the
 * audit records name them; the import is the reviews' streamed upload
 * (`streamedUpload`: slots, pace, the uploader checked again as it goes,
 * progress for GET /products/import).
 */
import type { Context } from 'koa';
import { readJson } from '../../admin/body.ts';
import { ApiError, badRequest } from '../../errors.ts';
import { PRODUCT_IMPORT_FORMATS, type ProductImportFormat, type ProductsService } from '../../products/service.ts';
import { auth } from '../session.ts';
import type { DashboardDeps } from './deps.ts';
import { MAX_IMPORT_BYTES, streamedUpload } from './reviews-import.ts';

/** Products a page of the list shows at most (the page asks for 50). */
export const MAX_PAGE = 100;

function service(deps: DashboardDeps): ProductsService {
  if (!deps.products) throw new ApiError(503, 'unavailable', 'The product catalog is not available in this service.');
  return deps.products;
}

/** A non-negative integer query parameter, or a 400 naming it. */
function count(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) > max) throw badRequest(`${name} must be a whole number from 0 to ${max}.`, [{ parameter: name, message: `must be a whole number from 0 to ${max}` }]);
  return Number(raw);
}

/** `GET /products?offset=&limit=&q=`: a page of the catalog by id; `q` keeps ids and names containing it. */
export function listProducts(deps: DashboardDeps) {
  return async function listProducts(ctx: Context): Promise<void> {
    const query = new URLSearchParams(ctx.querystring);
    const unknown = [...query.keys()].filter((k) => !['offset', 'limit', 'q'].includes(k));
    if (unknown.length > 0) throw badRequest(`Unknown parameter ${unknown[0]!.slice(0, 100)}.`, unknown.slice(0, 5).map((k) => ({ parameter: k.slice(0, 100), message: 'is not a known parameter' })));
    const offset = count(query, 'offset', 0, 1_000_000_000);
    const limit = count(query, 'limit', 50, MAX_PAGE);
    const q = (query.get('q') ?? '').slice(0, 200);
    const page = await service(deps).page(auth(ctx).org.id, { offset, limit, query: q });
    ctx.body = { ...page, offset, limit, maxImportBytes: MAX_IMPORT_BYTES };
    ctx.set('Cache-Control', 'no-store');
  };
}

/** The JSON body as a product record (the service checks its fields). */
async function record(ctx: Context): Promise<Record<string, unknown>> {
  const body = await readJson(ctx);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The body must be a JSON object.');
  return body as Record<string, unknown>;
}

/** `POST /products`: a new product (409 `product_exists` for an id already in the catalog). */
export function createProduct(deps: DashboardDeps) {
  return async function createProduct(ctx: Context): Promise<void> {
    const { org, user } = auth(ctx);
    const { product } = await service(deps).upsert(org.id, await record(ctx), user, 'create');
    ctx.status = 201;
    ctx.body = product;
  };
}

/** `PATCH /products/{id}`: every field of a product replaced (the id is the path's; 404 when unknown). */
export function updateProduct(deps: DashboardDeps) {
  return async function updateProduct(ctx: Context): Promise<void> {
    const { org, user } = auth(ctx);
    const body = await record(ctx);
    const id = String(ctx.params.id);
    if (body.id !== undefined && body.id !== id) throw badRequest('A product id cannot be changed: add the product under its new id, then remove this one.', [{ parameter: 'id', message: 'cannot be changed' }]);
    const { product } = await service(deps).upsert(org.id, { ...body, id }, user, 'replace');
    ctx.body = product;
  };
}

/** `DELETE /products/{id}`: 409 `product_has_reviews` while a review names it. */
export function removeProduct(deps: DashboardDeps) {
  return async function removeProduct(ctx: Context): Promise<void> {
    const { org, user } = auth(ctx);
    ctx.body = await service(deps).remove(org.id, String(ctx.params.id), user);
  };
}

/** `POST /products/import?format=csv|ndjson`: the file is the body, streamed into the service's import. */
export function importProducts(deps: DashboardDeps) {
  return streamedUpload(deps, {
    kind: 'products',
    noun: 'products',
    formats: PRODUCT_IMPORT_FORMATS,
    cli: 'npm run admin -- products import',
    run: async (body, format, { org, user }, hooks) => {
      let rejectedTotal = 0;
      const summary = await service(deps).import(org.id, body, format as ProductImportFormat, {
        actor: user,
        beforeWrite: hooks.beforeWrite,
        progress: (counts) => {
          rejectedTotal = counts.rejectedTotal;
          hooks.progress(counts);
        },
      });
      return { ...summary, rejectedTotal };
    },
    counts: (summary) => summary,
  });
}
