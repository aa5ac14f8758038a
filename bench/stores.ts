/**
 * `npm run bench -- --store mongo [--reviews 2000 --products 200]`: the same
 * import (reviews naming one of `--products` catalog products, reviews ÷ 10 by
 * default; 0 for none) and the same requests, one product's first page and
 * statistics included, on the embedded store and on the MongoDB store (on a
 * FerretDB started here, SQLite backend), printed side by side. FerretDB on
 * SQLite answers every query but a lone `_id` lookup by scanning the whole
 * collection, so the size defaults to what it answers within minutes; this is
 * not MongoDB's speed (a real MongoDB serves these queries from the indexes).
 */
import type { Readable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFerretdb, INSTALL_HINT, startFerretdb } from '../api/test/ferretdb.ts';
import { admin, findRedisServer, flag, httpsGet, startRedis, startServer } from './support.ts';

interface Deps {
  /** With `products`, review i names catalog product i mod products. */
  reviewStream(n: number, products?: number): Readable;
  /** The catalog's NDJSON: `n` products (`P-00000`, …). */
  productStream(n: number): Readable;
  upload(adminUrl: string, token: string, orgId: string, body: Readable, what?: 'reviews' | 'products'): Promise<Record<string, unknown>>;
  cannon(url: string, headers: Record<string, string>, ca: string): Promise<{ rps: number; p50: number; p99: number; non2xx: number; errors: number }>;
  connections: number;
  seconds: number;
}

interface StoreRun {
  importRate: number;
  importSeconds: number;
  results: Record<string, { rps: number; p50: number; p99: number }>;
}

async function measure(label: string, deps: Deps, env: Record<string, string>, reviews: number, products: number, paths: Record<string, string>): Promise<StoreRun> {
  const server = await startServer(env);
  try {
    const org = await admin(server, 'POST', '/admin/orgs', { name: 'Bench', plan: 'agency', rateLimit: 10_000_000 });
    const key = (await admin(server, 'POST', '/admin/keys', { orgId: org.id, name: 'bench' })).key as string;
    if (products > 0) {
      const catalog = await deps.upload(server.adminUrl, server.adminToken, org.id as string, deps.productStream(products), 'products');
      if (catalog.imported !== products) throw new Error(`the catalog import kept ${String(catalog.imported)} of ${products} products`);
    }
    const started = process.hrtime.bigint();
    const summary = await deps.upload(server.adminUrl, server.adminToken, org.id as string, deps.reviewStream(reviews, products));
    const importSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (summary.imported !== reviews) throw new Error(`imported ${String(summary.imported)} of ${reviews}`);
    const auth = { authorization: `Bearer ${key}` };
    const results: StoreRun['results'] = {};
    for (const [name, path] of Object.entries(paths)) {
      const res = await httpsGet(`${server.baseUrl}${path}`, server.ca, auth);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.toString()}`);
      const r = await deps.cannon(`${server.baseUrl}${path}`, auth, server.ca);
      if (r.non2xx > 0 || r.errors > 0) process.stdout.write(`  warning: ${label}, ${name}: ${r.non2xx} non-2xx, ${r.errors} errors (autocannon counts a request unanswered after 10 s as an error)\n`);
      results[name] = r;
    }
    return { importRate: Math.round(reviews / importSeconds), importSeconds, results };
  } finally {
    await server.stop();
  }
}

export async function compareStores(deps: Deps): Promise<void> {
  const reviews = flag('reviews', 2000);
  const products = process.argv.includes('--products') ? flag('products', 0) : Math.floor(reviews / 10);
  const ferretdb = findFerretdb();
  if (ferretdb.bin === null) throw new Error(`FerretDB not found (${ferretdb.looked.join(', ')}): ${INSTALL_HINT}`);
  findRedisServer();
  const redis = await startRedis(process.env.REDIS_SERVER_BIN ?? 'redis-server');
  const ferret = await startFerretdb(ferretdb.bin);
  const dirs = [mkdtempSync(join(tmpdir(), 'review-bench-embedded-')), mkdtempSync(join(tmpdir(), 'review-bench-mongo-'))] as const;
  const paths = {
    'first page': '/api/v1/reviews',
    'filtered deep page': `/api/v1/reviews?platform=google&minRating=4&offset=${Math.floor(reviews / 20)}`,
    stats: '/api/v1/reviews/stats',
    // A catalog of reviews ÷ 10 products (about 10 reviews each, as in the main benchmark): one product's rows beside the organization's.
    ...(products > 0 && {
      'product first page': `/api/v1/reviews?productId=P-${String(Math.floor(products / 2)).padStart(5, '0')}`,
      'product stats': `/api/v1/reviews/stats?productId=P-${String(Math.floor(products / 2)).padStart(5, '0')}`,
    }),
  };
  try {
    process.stdout.write(
      `Benchmark of the stores: ${reviews.toLocaleString('en')} reviews, ${deps.connections} connections, ${deps.seconds} s per run, Node ${process.version}, FerretDB 1.24 (SQLite)\n`,
    );
    const embedded = await measure('embedded', deps, { DATA_DIR: dirs[0], REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'be:' }, reviews, products, paths);
    const mongo = await measure('FerretDB', deps, { DATA_DIR: dirs[1], REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'bm:', MONGODB_URL: `${ferret.url}review_bench` }, reviews, products, paths);
    const rows = Object.keys(paths).map((name) => {
      const e = embedded.results[name]!;
      const m = mongo.results[name]!;
      return [name, e.rps.toFixed(0), `${e.p50} / ${e.p99}`, m.rps.toFixed(1), `${m.p50} / ${m.p99}`];
    });
    rows.push(['import (reviews/s)', embedded.importRate.toLocaleString('en'), `${embedded.importSeconds.toFixed(1)} s`, mongo.importRate.toLocaleString('en'), `${mongo.importSeconds.toFixed(1)} s`]);
    const header = ['request', 'embedded req/s', 'embedded p50/p99 ms', 'MongoDB store on FerretDB req/s', 'FerretDB p50/p99 ms'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
    process.stdout.write(
      ['', line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line), '', 'FerretDB on SQLite scans the collection for every query but a lone _id lookup: not MongoDB\'s speed.', ''].join('\n'),
    );
  } finally {
    await ferret.stop();
    redis.process.kill('SIGTERM');
    for (const d of [...dirs, ferret.dir, redis.dir]) rmSync(d, { recursive: true, force: true });
  }
}
