/**
 * Two local origins for the end-to-end tests:
 * - the widget origin (127.0.0.1): the built loader and chunks, served as the
 *   API server serves them (precompressed, cache headers), and
 *   `/public/v1/widgets/:id` from canned data, with CORS;
 * - the host origin (localhost, another port): static pages from e2e/pages/
 *   that paste the snippet, pointed at any widget origin, so the same pages
 *   run against the real HTTPS server too (`startHostOrigin({ widgetOrigin })`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWidgetAssets } from '../../api/widgets/assets.ts';
import type { PublicWidgetData } from '../../widget/src/public-data.ts';
import { loaderScriptFor, snippetFor } from '../../widget/src/snippet.ts';

const PAGES = join(dirname(fileURLToPath(import.meta.url)), '..', 'pages');

export interface RunningOrigin {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  /** Paths requested so far, in order (query strings included). */
  requests: string[];
  close(): Promise<void>;
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      if (address && typeof address === 'object') resolve(address.port);
      else reject(new Error('no port'));
    });
  });
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer): void {
  res.writeHead(status, headers);
  res.end(body);
}

export interface WidgetOriginOptions {
  /** Public data by widget id. */
  fixtures: Record<string, PublicWidgetData>;
  /** Built widget directory; default widget/dist. */
  dist?: string;
  /** Delay before answering data requests, to observe parallel loading. */
  dataDelayMs?: number;
}

export async function startWidgetOrigin(options: WidgetOriginOptions): Promise<RunningOrigin> {
  const assets = await loadWidgetAssets(options.dist);
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.pathname + url.search);
    const file = /^\/widget\/([^/]+)$/.exec(url.pathname);
    if (file) {
      const asset = assets.files.get(file[1]!);
      if (!asset) return send(res, 404, { 'Content-Type': 'application/json' }, '{"error":"not_found"}');
      const accepted = req.headers['accept-encoding'] ?? '';
      const [encoding, body] = /\bbr\b/.test(accepted)
        ? ['br', asset.brotli]
        : /\bgzip\b/.test(accepted)
          ? ['gzip', asset.gzip]
          : [null, asset.raw];
      return send(
        res,
        200,
        {
          'Content-Type': asset.name.endsWith('.json') ? 'application/json; charset=utf-8' : 'application/javascript; charset=utf-8',
          'Cache-Control': asset.immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
          ETag: asset.etag,
          Vary: 'Accept-Encoding',
          'Cross-Origin-Resource-Policy': 'cross-origin',
          'Access-Control-Allow-Origin': '*',
          ...(encoding && { 'Content-Encoding': encoding }),
        },
        body,
      );
    }
    const data = /^\/public\/v1\/widgets\/([^/]+)$/.exec(url.pathname);
    if (data) {
      const cors = { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json; charset=utf-8' };
      const widget = options.fixtures[decodeURIComponent(data[1]!)];
      const reply = () =>
        widget
          ? send(res, 200, { ...cors, 'Cache-Control': 'public, max-age=60' }, JSON.stringify({ data: widget }))
          : send(res, 404, cors, '{"error":"not_found","message":"Widget not found.","details":[]}');
      if (options.dataDelayMs) setTimeout(reply, options.dataDelayMs);
      else reply();
      return;
    }
    send(res, 404, { 'Content-Type': 'application/json' }, '{"error":"not_found"}');
  });
  const port = await listen(server, '127.0.0.1');
  return { origin: `http://127.0.0.1:${port}`, requests, close: closer(server) };
}

export interface HostOriginOptions {
  /** Where the snippets point: the fixture widget origin or the real server. */
  widgetOrigin: string;
  /** Reserved height per widget id (what GET /embed would put in the snippet). */
  heightOf: (widgetId: string) => number;
  /** Extra response headers per page name, e.g. a Content-Security-Policy. */
  headers?: (page: string, widgetOrigin: string) => Record<string, string>;
  /** The server-rendered widget for `{{HTML id}}`, as GET /public/v1/widgets/{id}/html answers it. */
  htmlOf?: (widgetId: string, lang: string | null) => string;
}

/**
 * Serves e2e/pages/<name>.html with `{{ORIGIN}}` replaced by the widget
 * origin, `{{SNIPPET id}}` by the embed snippet and `{{SCRIPT id}}` by the
 * tag-manager script, and `{{HTML id [lang]}}` by the server-rendered widget
 * (a server-side include).
 */
export async function startHostOrigin(options: HostOriginOptions): Promise<RunningOrigin> {
  const requests: string[] = [];
  const { widgetOrigin, heightOf } = options;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.pathname);
    const name = /^\/([a-z0-9-]+)\.html$/.exec(url.pathname)?.[1];
    const html = name ? await readFile(join(PAGES, `${name}.html`), 'utf8').catch(() => null) : null;
    if (!name || html === null) return send(res, 404, { 'Content-Type': 'text/plain' }, 'not found');
    const input = (id: string) => ({ origin: widgetOrigin, widgetId: id, height: heightOf(id) });
    const page = html
      .replaceAll('{{ORIGIN}}', widgetOrigin)
      .replace(/\{\{SNIPPET ([\w-]+)\}\}/g, (_, id: string) => snippetFor(input(id)))
      .replace(/\{\{SCRIPT ([\w-]+)\}\}/g, (_, id: string) => loaderScriptFor(input(id)))
      .replace(/\{\{HTML ([\w-]+)(?: ([a-z-]+))?\}\}/g, (_, id: string, lang?: string) => options.htmlOf?.(id, lang ?? null) ?? '');
    send(res, 200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...options.headers?.(name, widgetOrigin) }, page);
  });
  const port = await listen(server, '127.0.0.1');
  // "localhost" and "127.0.0.1" are different origins: the widget is cross-origin, as in production.
  return { origin: `http://localhost:${port}`, requests, close: closer(server) };
}

/** Height a fixture widget reserves, as the embed endpoint computes it. */
export function fixtureHeight(fixtures: Record<string, PublicWidgetData>): (id: string) => number {
  return (id) => {
    const data = fixtures[id];
    return data ? data.height : 200;
  };
}
