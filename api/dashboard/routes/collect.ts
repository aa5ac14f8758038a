/**
 * The dashboard's review page routes (CONTRACT §13, the Collect page and the
 * Reviews page's Pending view): everyone signed in reads; Owner and Admin
 * replace the link, change the settings and decide. Each calls the one
 * CollectService; every decision is audited there.
 *
 *   GET  /collect                  link, per-product links, settings, rejected counts by rating
 *   POST /collect/link/rotate      a new link (the old one ends)
 *   PATCH /collect/settings        {shareUrl?, moderation?}
 *   GET  /collect/qr.svg|qr.png    the link as a QR code (downloads), `?product=` for a product's link
 *   GET  /collect/pending          reviews waiting for the email step or a person
 *   POST /collect/reviews/{id}/publish | /reject {reason}
 */
import type { Context } from 'koa';
import QRCode from 'qrcode';
import { ApiError, badRequest } from '../../errors.ts';
import { readJson } from '../../admin/body.ts';
import type { CollectService } from '../../collect/service.ts';
import { PRODUCT_ID } from '../../store/product-types.ts';
import { auth } from '../session.ts';
import type { DashboardDeps } from './deps.ts';

function service(deps: DashboardDeps): CollectService {
  if (!deps.collect) throw new ApiError(503, 'collect_unavailable', 'The review page is not available on this server.');
  return deps.collect;
}

const objectBody = (body: unknown): Record<string, unknown> => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The body must be a JSON object.');
  return body as Record<string, unknown>;
};

export function collectOverview(deps: DashboardDeps) {
  return async function collectOverview(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    const collect = service(deps);
    const settings = await collect.settings(org.id);
    const products = await deps.store.products.list(org.id);
    ctx.body = {
      collectId: settings.collectId,
      url: collect.url(settings.collectId),
      products: products.map((p) => ({ id: p.id, name: p.name, url: collect.url(settings.collectId, p.id) })),
      shareUrl: settings.shareUrl,
      moderation: settings.moderation,
      mail: collect.mails,
      rejectedByRating: await collect.rejectedByRating(org.id),
    };
  };
}

export function rotateCollectLink(deps: DashboardDeps) {
  return async function rotateCollectLink(ctx: Context): Promise<void> {
    const { org, user } = auth(ctx);
    ctx.body = await service(deps).link(org.id, user);
  };
}

export function updateCollectSettings(deps: DashboardDeps) {
  return async function updateCollectSettings(ctx: Context): Promise<void> {
    const { org, user } = auth(ctx);
    const body = objectBody(await readJson(ctx));
    ctx.body = await service(deps).updateSettings(org.id, user, { shareUrl: body.shareUrl, moderation: body.moderation });
  };
}

export function collectQrCode(deps: DashboardDeps, format: 'svg' | 'png') {
  return async function collectQrCode(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    const collect = service(deps);
    const product = typeof ctx.query.product === 'string' && ctx.query.product !== '' ? ctx.query.product : null;
    if (product !== null && (!PRODUCT_ID.test(product) || !(await deps.store.products.get(org.id, product)))) {
      throw new ApiError(404, 'product_not_found', `No product ${JSON.stringify(product)} in this organization's catalog.`);
    }
    const { collectId } = await collect.settings(org.id);
    const url = collect.url(collectId, product);
    const name = `review-link${product ? `-${product}` : ''}.${format}`;
    ctx.set('Content-Disposition', `attachment; filename="${name}"`);
    ctx.set('Cache-Control', 'no-store');
    if (format === 'svg') {
      ctx.type = 'image/svg+xml';
      ctx.body = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    } else {
      ctx.type = 'image/png';
      ctx.body = await QRCode.toBuffer(url, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 1024 });
    }
  };
}

export function pendingReviews(deps: DashboardDeps) {
  return async function pendingReviews(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    ctx.body = { data: await service(deps).pending(org.id) };
  };
}

export function publishPendingReview(deps: DashboardDeps) {
  return async function publishPendingReview(ctx: Context): Promise<void> {
    const { org, user } = auth(ctx);
    ctx.body = await service(deps).publishPending(org.id, ctx.params.id!, user);
  };
}

export function rejectPendingReview(deps: DashboardDeps) {
  return async function rejectPendingReview(ctx: Context): Promise<void> {
    const { org, user } = auth(ctx);
    const body = objectBody(await readJson(ctx));
    const { id, status, reason } = await service(deps).reject(org.id, ctx.params.id!, body.reason, user);
    ctx.body = { id, status, reason };
  };
}
