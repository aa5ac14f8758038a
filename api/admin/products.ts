/**
 * The admin API's product catalog (CONTRACT §13), behind the CLI's `products`
 * commands: every route calls the one ProductsService (api/products).
 */
import type Router from '@koa/router';
import { OPERATOR } from '../dashboard/audit.ts';
import { badRequest } from '../errors.ts';
import { PRODUCT_IMPORT_FORMATS, type ProductImportFormat, type ProductsService } from '../products/service.ts';
import type { Store } from '../store/types.ts';
import { drainBody, readJson } from './body.ts';
import { requireOrg } from './orgs.ts';

function orgIdOf(value: unknown): string {
  if (typeof value !== 'string' || value === '') throw badRequest('Give the organization: orgId', [{ parameter: 'orgId', message: 'is required' }]);
  return value;
}

export function productRoutes(router: Router, store: Store, products: ProductsService): void {
  router.post('/products', async (ctx) => {
    const body = await readJson(ctx);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The body must be a JSON object.');
    const { orgId, ...record } = body as Record<string, unknown>;
    const org = await requireOrg(store, orgIdOf(orgId));
    const { product, created } = await products.upsert(org.id, record, OPERATOR);
    ctx.status = created ? 201 : 200;
    ctx.body = product;
  });

  router.get('/products', async (ctx) => {
    const org = await requireOrg(store, orgIdOf(ctx.query.orgId));
    ctx.body = { data: await products.list(org.id) };
  });

  router.post('/orgs/:id/products', async (ctx) => {
    const org = await requireOrg(store, ctx.params.id!);
    const format = String(ctx.query.format ?? '');
    if (!(PRODUCT_IMPORT_FORMATS as readonly string[]).includes(format)) {
      throw badRequest(`format must be one of ${PRODUCT_IMPORT_FORMATS.join(', ')}`, [{ parameter: 'format', message: 'unknown format' }]);
    }
    // A parser that stops early must not destroy the request: the summary saying why has to arrive.
    const summary = await products.import(org.id, ctx.req.iterator({ destroyOnReturn: false }), format as ProductImportFormat, { actor: OPERATOR });
    ctx.body = summary;
    await drainBody(ctx.req);
  });

  router.delete('/products/:id', async (ctx) => {
    const org = await requireOrg(store, orgIdOf(ctx.query.orgId));
    const out = await products.remove(org.id, ctx.params.id!, OPERATOR);
    ctx.body = out;
  });
}
