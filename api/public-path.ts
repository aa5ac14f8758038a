/**
 * The lean path for what site visitors' browsers ask, the internet-scale
 * traffic (issue 16): a widget's public data and the widget's files, answered
 * by a plain node:http(s) request handler in front of Koa's callback. Koa and
 * its router alone cost more CPU per request than a bare server's whole answer
 * (bench/floor-server.ts), and these answers are cached bytes.
 *
 * The answers are the Koa routes' own, field for field: X-Request-Id, HSTS and
 * nosniff, CORS, the per-address limit (the same Redis window, through
 * Limiter.decide) with its headers, ETag and If-None-Match → 304,
 * Cache-Control, Vary, the precompressed encodings (files and data alike); one access-log line and
 * the request metrics under the route templates Koa's router reports.
 *
 * Only the plain case is served here: GET over HTTPS (the connection's, or a
 * trusted proxy's report), no query string, a file of the manifest or a
 * widget that exists, admitted by the limiter. Anything else (HEAD, OPTIONS, a
 * query string, plain HTTP, an unknown file or id, a refusal, a store error)
 * goes to Koa as it came, and when the limiter has already counted the request
 * its decision goes along (handedOverDecision), so that Koa answers it without
 * counting it twice.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from './logger.ts';
import { addressKey } from './limits/address-key.ts';
import type { Decision, Limiter } from './limits/rate-limit.ts';
import { HSTS } from './middleware/https-only.ts';
import { redactedUrl } from './middleware/access-log.ts';
import { requestIdFor } from './middleware/request-id.ts';
import { clientView, type TrustedProxies } from './middleware/trusted-proxies.ts';
import { pickForm } from './middleware/compression.ts';
import type { Metrics } from './ops/metrics.ts';
import { isRecordId } from './store/ids.ts';
import type { Store } from './store/types.ts';
import type { Asset, WidgetAssets } from './widgets/assets.ts';
import { assetCacheControl, assetEncoding, assetType, type CachedPublic, matches, PUBLIC_CACHE, PUBLIC_CORS, type PublicWidgetCache } from './widgets/public-answers.ts';

export interface PublicPathDeps {
  store: Store;
  logger: Logger;
  metrics: Metrics;
  proxies: TrustedProxies;
  assets: WidgetAssets;
  publicCache: PublicWidgetCache;
  publicLimiter: Limiter;
  /** Requests per minute per client address on the public data. */
  publicLimit: number;
}

const DATA_PREFIX = '/public/v1/widgets/';
const FILE_PREFIX = '/widget/';
/** The route templates Koa's router reports for these paths (metrics labels). */
const DATA_ROUTE = '/public/v1/widgets/:id';
const FILE_ROUTE = '/widget/:file';

const handedOver = new WeakMap<IncomingMessage, Decision>();

/** The limiter's decision already taken for a request the fast path handed to Koa, if any. */
export function handedOverDecision(req: IncomingMessage): Decision | undefined {
  return handedOver.get(req);
}

/** What every HTTPS answer carries (middleware/https-only.ts). */
const SECURITY: readonly [string, string][] = [
  ['Strict-Transport-Security', HSTS],
  ['X-Content-Type-Options', 'nosniff'],
];

/** Headers as node:http's writeHead takes them: name, value, name, value… */
type Fields = string[];

function push(fields: Fields, pairs: readonly [string, string][]): void {
  for (const [name, value] of pairs) fields.push(name, value);
}

/** A file's fields after the request id and the security fields: what widgetFile and sendAsset set, in their order. */
function fileFields(asset: Asset, acceptEncoding: string | undefined, notModified: boolean): { fields: Fields; body: Buffer | null } {
  const fields: Fields = ['Cache-Control', assetCacheControl(asset), 'Cross-Origin-Resource-Policy', 'cross-origin', 'Access-Control-Allow-Origin', '*', 'ETag', asset.etag, 'Vary', 'Accept-Encoding'];
  if (notModified) return { fields, body: null };
  const { encoding, bytes } = assetEncoding(asset, acceptEncoding);
  fields.push('Content-Type', assetType(asset));
  if (encoding) fields.push('Content-Encoding', encoding);
  fields.push('Content-Length', String(bytes.length));
  return { fields, body: bytes };
}

export function publicPath(deps: PublicPathDeps, koa: RequestListener): RequestListener {
  const { store, logger, metrics, proxies, assets, publicCache, publicLimiter, publicLimit } = deps;

  const answer = (req: IncomingMessage, res: ServerResponse, route: string, started: bigint, requestId: string, status: number, fields: Fields, body: Buffer | null): void => {
    res.writeHead(status, fields);
    res.end(body ?? undefined);
    metrics.record(route, 'GET', status, started);
    if (logger.isLevelEnabled('info')) {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info({ requestId, method: 'GET', url: redactedUrl((req.url ?? '').slice(0, 2048), ''), status, ms: Math.round(ms * 100) / 100 }, 'request');
    }
  };

  const widgetData = async (req: IncomingMessage, res: ServerResponse, id: string, address: string, started: bigint): Promise<void> => {
    let decision: Decision | undefined;
    let cached: CachedPublic | null = null;
    try {
      decision = await publicLimiter.decide(addressKey(address), publicLimit);
      const widget = decision.admitted ? await store.widgets.get(id) : null;
      cached = widget && (publicCache.fresh(widget) ?? (await publicCache.get(widget)));
    } catch {
      // A store or limiter failure: Koa answers (and logs) it as it answers any other.
      cached = null;
    }
    if (!decision?.admitted || !cached) {
      // A refusal, an unknown widget or a failure: Koa renders the error envelope, with the decision taken.
      if (decision) handedOver.set(req, decision);
      return koa(req, res);
    }
    const requestId = requestIdFor(header(req, 'x-request-id'));
    const fields: Fields = ['X-Request-Id', requestId];
    push(fields, SECURITY);
    push(fields, PUBLIC_CORS);
    push(fields, publicLimiter.headerFields(decision));
    fields.push('ETag', cached.etag, 'Cache-Control', PUBLIC_CACHE, 'Vary', 'Accept-Encoding');
    if (matches(header(req, 'if-none-match'), cached.etag)) return answer(req, res, DATA_ROUTE, started, requestId, 304, fields, null);
    const { encoding, bytes } = pickForm(cached.bytes, cached.forms, header(req, 'accept-encoding'));
    fields.push('Content-Type', 'application/json; charset=utf-8');
    if (encoding) fields.push('Content-Encoding', encoding);
    fields.push('Content-Length', String(bytes.length));
    answer(req, res, DATA_ROUTE, started, requestId, 200, fields, bytes);
  };

  return function publicPath(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '';
    if (req.method !== 'GET') return koa(req, res);
    if (url.startsWith(FILE_PREFIX)) {
      // A name with a query string, an escape or a slash is no file of the manifest: Koa answers it.
      const asset = assets.files.get(url.slice(FILE_PREFIX.length));
      if (!asset) return koa(req, res);
      const started = process.hrtime.bigint();
      if (!clientView(req, proxies).https) return koa(req, res);
      const requestId = requestIdFor(header(req, 'x-request-id'));
      const { fields, body } = fileFields(asset, header(req, 'accept-encoding'), header(req, 'if-none-match') === asset.etag);
      fields.unshift('X-Request-Id', requestId, SECURITY[0]![0], SECURITY[0]![1], SECURITY[1]![0], SECURITY[1]![1]);
      return answer(req, res, FILE_ROUTE, started, requestId, body ? 200 : 304, fields, body);
    }
    if (url.startsWith(DATA_PREFIX)) {
      const id = url.slice(DATA_PREFIX.length);
      if (!isRecordId(id, 'wdg')) return koa(req, res);
      const started = process.hrtime.bigint();
      const view = clientView(req, proxies);
      if (!view.https) return koa(req, res);
      widgetData(req, res, id, view.address, started).catch((err: unknown) => {
        // Writing the answer failed (nothing above is expected to throw): never an unhandled rejection.
        logger.error({ err }, 'public path: could not answer');
        if (!res.headersSent) koa(req, res);
        else res.destroy();
      });
      return;
    }
    koa(req, res);
  };
}

/** A request header as one string (node:http joins repeated x- fields with ", "). */
function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
