/**
 * `npm run bench [-- --reviews 1000000 --requests 6000 --runs 3 --connections 16 --warmup 2 --skip-workers]`
 * `npm run bench -- --store mongo [--reviews 2000]`: the embedded store beside
 * the MongoDB store on FerretDB (bench/stores.ts).
 *
 * Loads N reviews into one organization through the admin import API (the
 * same path as `npm run admin -- reviews import`), then measures, side by side
 * in one run, the service (HTTPS, a real key, the Redis limiter with a high
 * per-organization override), the framework floor (Koa + @koa/router +
 * koa-ratelimit on the same Redis answering the same bytes, nothing else) and
 * a bare Node HTTPS server answering the same bytes, for: the first page, a
 * filtered deep page and the statistics; then the service beside the bare
 * server for what site visitors ask: the widget's public data (fresh and 304)
 * and the widget's files.
 * The service measured is the one started on the data folder the import
 * filled, as a deployment runs it; the process that ran the import is measured
 * on the statistics first and printed beside (README, "After a large import").
 * Prints requests/s, p50/p99 latency and each server's own CPU time per
 * request (over a fixed number of requests) with the ratios; the import rate;
 * the server's memory; start-up time to listening, empty and with the data.
 * Last, WORKERS=1 against WORKERS=2 on the MongoDB store (bench/workers.ts;
 * FerretDB started here, `--worker-reviews 200 --worker-requests 2000`).
 * Start-up on a 1,000,000-review folder: `npm run bench:startup` (bench/startup.ts).
 * Products (CONTRACT §13): a catalog of `--products` (10,000) is imported
 * first and every review names one of them (about 10 each at 100,000
 * reviews); one product's first page and statistics are measured beside the
 * organization's (`product first page`, `product stats`). `--only-products`
 * measures those two rows beside the organization's first page and
 * statistics only (the same run, so the product rows compare with them even
 * on a loaded machine), and skips the deep page, the public rows and the
 * WORKERS comparison.
 * (`--seconds` is the run length of `--store mongo`.)
 * `--check`: after the tables, the goals of each ratio, met or missed, and an
 * exit code of 1 when one is missed (a person's check on a quiet machine).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import autocannon from 'autocannon';
import { type Fixture, fixtureKey } from './fixture.ts';
import { compareWorkers } from './workers.ts';
import { admin, cpuMicros, findRedisServer, flag, freePort, httpsGet, record, ROOT, rssMiB, spawnReady, startRedis, startServer, waitUntilIdle } from './support.ts';

const REVIEWS = flag('reviews', 100_000);
/** The catalog's size: every review names one of its products (0: no catalog, no product rows). */
const PRODUCTS = flag('products', 10_000);
/** Only the per-product rows and the organization's first page and statistics beside them (the deep page, public and WORKERS rows are skipped). */
const ONLY_PRODUCTS = process.argv.includes('--only-products');
if (ONLY_PRODUCTS && PRODUCTS < 1) throw new Error('--only-products needs a catalog (--products 1 or more)');
/** A catalog id of the bench: P-00000, P-00001, … */
const productId = (k: number): string => `P-${String(k).padStart(5, '0')}`;
const SECONDS = flag('seconds', 10);
/** A large page of the API (about 50 KB as it is): what compression is measured on. */
const BIG_PAGE = '/api/v1/reviews?limit=100';
const CONNECTIONS = flag('connections', 16);
const PLATFORMS = ['GOOGLE', 'YELP', 'TRUSTPILOT', 'G2', 'CAPTERRA', 'FACEBOOK'];
const WORDS = 'great friendly fast coffee service staff quality price support helpful recommend again slow cold warm cozy team product delivery easy'.split(' ');

/** Deterministic review records, streamed as NDJSON (never all in memory); with `products`, review i names product i mod products. */
function reviewStream(n: number, products = 0): Readable {
  let i = 0;
  let seed = 42;
  const rnd = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const now = Date.now();
  return new Readable({
    read() {
      const lines: string[] = [];
      for (let k = 0; k < 2000 && i < n; k++, i++) {
        const platform = PLATFORMS[i % PLATFORMS.length]!;
        const rated = platform !== 'FACEBOOK' || rnd() < 0.3;
        const words = Array.from({ length: 8 + Math.floor(rnd() * 30) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
        lines.push(
          JSON.stringify({
            platform,
            externalId: `bench-${i}`,
            authorName: `Reviewer ${i}`,
            authorAvatar: null,
            rating: rated ? 1 + Math.floor(rnd() * 5) : null,
            content: words,
            date: new Date(now - Math.floor(rnd() * 730 * 86_400_000)).toISOString(),
            url: `https://example.com/r/${i}`,
            isVerified: rnd() < 0.5,
            ...(products > 0 && { productId: productId(i % products) }),
            // No language, sentiment, label, summary or themes: the import computes them all (review intelligence).
          }),
        );
      }
      this.push(lines.length ? `${lines.join('\n')}\n` : null);
    },
  });
}

/** The bench's catalog as NDJSON: `n` products with every field of §13. */
function productStream(n: number): Readable {
  let k = 0;
  return new Readable({
    read() {
      const lines: string[] = [];
      for (let j = 0; j < 2000 && k < n; j++, k++) {
        lines.push(JSON.stringify({ id: productId(k), name: `Bench product ${k}`, url: `https://shop.example/p/${k}`, imageUrl: `https://shop.example/p/${k}.jpg`, brand: 'Bench' }));
      }
      this.push(lines.length ? `${lines.join('\n')}\n` : null);
    },
  });
}

function upload(adminUrl: string, token: string, orgId: string, body: Readable, what: 'reviews' | 'products' = 'reviews'): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = request(`${adminUrl}/admin/orgs/${orgId}/${what}?format=ndjson`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text) as Record<string, unknown>) : reject(new Error(text))));
    });
    req.on('error', reject);
    body.pipe(req);
  });
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  /** The server process's own CPU time (user + system) per request, in µs. */
  cpuUs: number;
  /** CPU µs per request of each process group the target's `cpu` reads (the first is cpuUs). */
  cpuUsEach: number[];
  non2xx: number;
  errors: number;
}

const WARMUP_SECONDS = flag('warmup', 2);
/** Measured runs per server and request, after the warm-up: each figure printed is their median. */
const RUNS = flag('runs', 3);
if (!Number.isInteger(RUNS) || RUNS % 2 === 0) throw new Error('--runs takes an odd whole number (each figure is the median of the runs)');
/** The WORKERS comparison runs on FerretDB, which scans its SQLite tables: a small organization, fewer requests. */
const WORKER_REVIEWS = flag('worker-reviews', 200);
const WORKER_REQUESTS = flag('worker-requests', 2000);
/** Requests per measured run: a fixed count, so that CPU per request compares like with like. */
const REQUESTS = flag('requests', 6000);

interface Target {
  url: string;
  headers: Record<string, string>;
  /** The server's process, whose CPU time is read before and after the measured run (none: CPU not measured). */
  pid?: number;
  /** Instead of `pid`: reads the CPU time so far (µs) of each process group measured (the cluster's processes, FerretDB). */
  cpu?: () => number[];
  /** Requests in the measured run (default --requests). */
  requests?: number;
  /** A different client address per request (X-Forwarded-For from a trusted proxy): site visitors, not one developer. */
  visitors?: boolean;
  /** The status every answer must have (200 unless said). */
  status?: number;
}

let visitor = 0;
/** 10.0.0.1, 10.0.0.2, …: each request its own visitor, so no per-address limit is reached. */
function nextVisitor(): string {
  visitor++;
  return `10.${(visitor >> 16) & 255}.${(visitor >> 8) & 255}.${visitor & 255}`;
}

/** autocannon's options for a target. */
function cannonOptions(target: Target, ca: string): autocannon.Options {
  return {
    url: target.url,
    connections: CONNECTIONS,
    headers: target.headers,
    tlsOptions: { ca, servername: 'localhost' },
    ...(target.visitors && {
      requests: [
        {
          setupRequest: (req: { headers?: Record<string, string> }) => ({ ...req, headers: { ...target.headers, 'x-forwarded-for': nextVisitor(), 'x-forwarded-proto': 'https' } }),
        },
      ],
    }),
  } as autocannon.Options;
}

/** Reads the CPU time so far of what a target measures, or null when it measures none. */
function cpuReader(target: Target): (() => number[]) | null {
  return target.cpu ?? (target.pid ? () => [cpuMicros(target.pid!)] : null);
}

/** Each figure the median of the runs'. */
function median(runs: Result[]): Result {
  const mid = (pick: (r: Result) => number) => runs.map(pick).sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
  return {
    rps: mid((r) => r.rps),
    p50: mid((r) => r.p50),
    p99: mid((r) => r.p99),
    cpuUs: mid((r) => r.cpuUs),
    cpuUsEach: runs[0]!.cpuUsEach.map((_, i) => mid((r) => r.cpuUsEach[i]!)),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
  };
}

/**
 * Measures servers side by side: a discarded warm-up run of each first (the JIT
 * needs thousands of requests), then RUNS rounds in which each server in turn
 * answers a fixed number of requests; each figure is the median of its
 * server's rounds. On this machine the first run after a warm-up still costs
 * every server 10–30% more CPU than the next ones (JIT, GC), and the machine's
 * speed drifts (it shares its host): taking turns gives every server the same
 * drift, and the median drops the run something else disturbed.
 */
async function compare(targets: Target[], ca: string): Promise<Result[]> {
  for (const target of targets) await autocannon({ ...cannonOptions(target, ca), duration: WARMUP_SECONDS } as autocannon.Options);
  const runs = targets.map((): Result[] => []);
  for (let round = 0; round < RUNS; round++) {
    for (const [i, target] of targets.entries()) runs[i]!.push(await measure(target, cannonOptions(target, ca), cpuReader(target)));
  }
  return runs.map(median);
}

/** One target measured on its own (compare with one server); without a CPU reader, one --seconds run. */
async function cannon(target: Target, ca: string): Promise<Result> {
  if (!cpuReader(target)) {
    await autocannon({ ...cannonOptions(target, ca), duration: WARMUP_SECONDS } as autocannon.Options);
    return measure(target, cannonOptions(target, ca), null);
  }
  return (await compare([target], ca))[0]!;
}

/** One measured run: a fixed number of requests when CPU is read (`readCpu`), else --seconds long. */
async function measure(target: Target, options: autocannon.Options, readCpu: (() => number[]) | null): Promise<Result> {
  const cpuBefore = readCpu ? readCpu() : [];
  // autocannon notices `amount` is reached only on its once-a-second tick, so its
  // start/finish include idle time: req/s is timed from the start to the last response.
  const started = performance.now();
  let lastResponse = started;
  // The returned promise is also autocannon's instance (an event emitter); its types say only Promise.
  const run = autocannon({ ...options, ...(readCpu ? { amount: target.requests ?? REQUESTS } : { duration: SECONDS }) } as autocannon.Options);
  (run as unknown as autocannon.Instance).on('response', () => {
    lastResponse = performance.now();
  });
  const r = await run;
  const cpuEach = readCpu ? readCpu().map((after, i) => (after - cpuBefore[i]!) / r.requests.total) : [NaN];
  const expected = target.status ?? 200;
  const wrong = expected === 200 ? r.non2xx : r.requests.total - (r.statusCodeStats?.[String(expected) as '304']?.count ?? 0);
  // req/s over the whole run (autocannon's per-second average is coarse on a run of a few seconds).
  const seconds = (lastResponse - started) / 1000;
  return { rps: readCpu ? r.requests.total / seconds : r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuUs: cpuEach[0]!, cpuUsEach: cpuEach, non2xx: wrong, errors: r.errors };
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
}

/**
 * The goals `--check` holds the run to (issue 38, and issue 35's product rows):
 * per row, a ratio and its bound. `npm run bench -- --check` prints each goal
 * met or missed and exits 1 when one is missed: for a person checking a change
 * on a quiet machine, never for CI (its timings are noisy).
 */
interface Goal {
  row: string;
  ratio: 'req/s service/bare' | 'CPU service/floor' | 'CPU service/bare';
  /** ≥ for req/s, ≤ for CPU. */
  bound: number;
}
const API_GOALS: Goal[] = ['first page', 'filtered deep page', 'stats', 'product first page', 'product stats'].flatMap((row) => [
  { row, ratio: 'req/s service/bare', bound: 0.6 } as const,
  ...(row.startsWith('product') ? [] : [{ row, ratio: 'CPU service/floor', bound: 1.3 } as const]),
]);
const PUBLIC_GOALS: Goal[] = [
  { row: 'widget data', ratio: 'CPU service/bare', bound: 1.5 },
  { row: 'widget data, 304', ratio: 'CPU service/bare', bound: 1.2 },
  { row: 'loader.js', ratio: 'CPU service/bare', bound: 1.5 },
  { row: 'hashed bundle', ratio: 'CPU service/bare', bound: 1.5 },
];
const CHECK = process.argv.includes('--check');

/** Each goal of a measured row, met or missed, as table rows. */
function goalRows(goals: Goal[], measured: Map<string, Record<Goal['ratio'], number>>): { rows: string[][]; missed: number } {
  let missed = 0;
  const rows: string[][] = [];
  for (const goal of goals) {
    const ratios = measured.get(goal.row);
    if (!ratios) continue;
    const value = ratios[goal.ratio];
    const met = goal.ratio.startsWith('req/s') ? value >= goal.bound : value <= goal.bound;
    if (!met) missed++;
    rows.push([goal.row, goal.ratio, value.toFixed(2), `${goal.ratio.startsWith('req/s') ? '≥' : '≤'} ${goal.bound}`, met ? 'met' : 'MISSED']);
  }
  return { rows, missed };
}

const us = (r: Result) => r.cpuUs.toFixed(0);
const latency = (r: Result) => `${r.p50} / ${r.p99}`;

async function main(): Promise<void> {
  const store = process.argv.indexOf('--store');
  if (store !== -1) {
    if (process.argv[store + 1] !== 'mongo') throw new Error('--store takes mongo (the embedded store is always measured)');
    const { compareStores } = await import('./stores.ts');
    return compareStores({ reviewStream, productStream, upload, cannon: (url, headers, ca) => cannon({ url, headers }, ca), connections: CONNECTIONS, seconds: SECONDS });
  }
  findRedisServer();
  const redis = await startRedis(process.env.REDIS_SERVER_BIN ?? 'redis-server');
  const dataDir = mkdtempSync(join(tmpdir(), 'review-bench-'));
  // TRUST_PROXY: the public requests come from many visitors' addresses, told by X-Forwarded-For as a proxy would.
  const importer = await startServer({ DATA_DIR: dataDir, REDIS_URL: redis.url, TRUST_PROXY: '127.0.0.1' });
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  let bare: ChildProcess | null = null;
  let floor: ChildProcess | null = null;
  try {
    process.stdout.write(`Benchmark: ${REVIEWS.toLocaleString('en')} reviews${PRODUCTS > 0 ? ` about ${PRODUCTS.toLocaleString('en')} products` : ''}, ${CONNECTIONS} connections, ${REQUESTS.toLocaleString('en')} requests per run, Node ${process.version}\n`);
    const org = await admin(importer, 'POST', '/admin/orgs', { name: 'Bench', plan: 'agency', rateLimit: 10_000_000 });
    const key = (await admin(importer, 'POST', '/admin/keys', { orgId: org.id, name: 'bench' })).key as string;

    if (PRODUCTS > 0) {
      const catalogStarted = process.hrtime.bigint();
      const catalog = await upload(importer.adminUrl, importer.adminToken, org.id as string, productStream(PRODUCTS), 'products');
      const catalogSeconds = Number(process.hrtime.bigint() - catalogStarted) / 1e9;
      if (catalog.imported !== PRODUCTS) throw new Error(`the catalog import kept ${String(catalog.imported)} of ${PRODUCTS} products: ${JSON.stringify(catalog).slice(0, 300)}`);
      process.stdout.write(`Catalog: ${PRODUCTS.toLocaleString('en')} products in ${catalogSeconds.toFixed(1)} s\n`);
    }
    const started = process.hrtime.bigint();
    const importCpu = cpuMicros(importer.child.pid!);
    const summary = await upload(importer.adminUrl, importer.adminToken, org.id as string, reviewStream(REVIEWS, PRODUCTS));
    const importSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const importRate = Math.round(REVIEWS / importSeconds);
    const importCpuPerReview = (cpuMicros(importer.child.pid!) - importCpu) / REVIEWS;
    process.stdout.write(`Import: ${summary.imported} reviews in ${importSeconds.toFixed(1)} s = ${importRate.toLocaleString('en')} reviews/s, server CPU ${importCpuPerReview.toFixed(1)} µs per review (rejected ${summary.rejectedTotal})\n`);
    const memAfterImport = rssMiB(importer.child.pid!);

    const auth = { authorization: `Bearer ${key}` };
    // One product in the middle of the catalog: its reviews are spread over the whole import.
    const product = productId(Math.floor(PRODUCTS / 2));
    const paths: Record<string, string> = {
      'first page': '/api/v1/reviews',
      ...(!ONLY_PRODUCTS && { 'filtered deep page': '/api/v1/reviews?platform=google&minRating=4&offset=2000' }),
      stats: '/api/v1/reviews/stats',
      ...(PRODUCTS > 0 && {
        'product first page': `/api/v1/reviews?productId=${product}`,
        'product stats': `/api/v1/reviews/stats?productId=${product}`,
      }),
      // Compression's cost and gain (issue 38): one large page as it is, then as brotli and gzip.
      ...(!ONLY_PRODUCTS && { '100-review page': BIG_PAGE, '100-review page, br': BIG_PAGE, '100-review page, gzip': BIG_PAGE }),
    };
    /** The Accept-Encoding of a row that asks for compression (the others send none, as API clients mostly do). */
    const encodingOf = (name: string): string | undefined => (name.endsWith(', br') ? 'br' : name.endsWith(', gzip') ? 'gzip' : undefined);
    const headersOf = (name: string): Record<string, string> => {
      const encoding = encodingOf(name);
      return encoding ? { ...auth, 'accept-encoding': encoding } : auth;
    };
    // Warm up (the first read after an import sorts the pending reviews in) and record the answers.
    const apiResponses: Fixture['responses'] = {};
    /** Bytes of each row's answer body on the wire (compressed when it asked). */
    const wireBytes: Record<string, number> = {};
    for (const [name, path] of Object.entries(paths)) {
      const encoding = encodingOf(name);
      const answer = await record(`${importer.baseUrl}${path}`, importer.ca, headersOf(name));
      if (encoding && answer.headers['content-encoding'] !== encoding) throw new Error(`${name}: answered ${answer.headers['content-encoding'] ?? 'uncompressed'}, not ${encoding}`);
      apiResponses[fixtureKey(path, encoding)] = answer;
      wireBytes[name] = Buffer.from(answer.body, 'base64').length;
    }

    // The internet-scale path: what a site visitor's browser asks for, with the headers a browser sends.
    const widget = await admin(importer, 'POST', '/admin/widgets', { orgId: org.id, name: 'Bench widget' });
    const manifest = JSON.parse(readFileSync(join(ROOT, 'widget', 'dist', 'manifest.json'), 'utf8')) as { loader: string; layouts: Record<string, string> };
    const browser = { 'accept-encoding': 'gzip, deflate, br', origin: 'https://shop.example' };
    const publicData = `/public/v1/widgets/${widget.id as string}`;
    const fresh = await record(`${importer.baseUrl}${publicData}`, importer.ca, browser);
    const etag = fresh.headers.etag!;
    const publicPaths: Record<string, { path: string; headers: Record<string, string>; status?: number }> = ONLY_PRODUCTS
      ? {}
      : {
          'widget data': { path: publicData, headers: browser },
          'widget data, 304': { path: publicData, headers: { ...browser, 'if-none-match': etag }, status: 304 },
          'loader.js': { path: `/widget/${manifest.loader}`, headers: browser },
          'hashed bundle': { path: `/widget/${manifest.layouts.carousel!}`, headers: browser },
        };
    const publicResponses: Fixture['responses'] = {};
    for (const { path, headers, status } of Object.values(publicPaths)) {
      const key = headers['if-none-match'] ? `${path} ${headers['if-none-match']}` : path;
      publicResponses[key] = await record(`${importer.baseUrl}${path}`, importer.ca, headers, status);
    }

    const barePort = await freePort();
    const floorPort = await freePort();
    const tls = { cert: importer.ca, key: readFileSync(join(dataDir, 'tls-key.pem'), 'utf8') };
    const bareFixture = join(dataDir, 'bare.json');
    const floorFixture = join(dataDir, 'floor.json');
    writeFileSync(bareFixture, JSON.stringify({ ...tls, port: barePort, responses: { ...apiResponses, ...publicResponses } } satisfies Fixture));
    writeFileSync(floorFixture, JSON.stringify({ ...tls, port: floorPort, responses: apiResponses } satisfies Fixture));
    bare = await spawnReady('bare-server', [bareFixture]);
    floor = await spawnReady('floor-server', [floorFixture, redis.url]);
    // The process that ran the import, as it is then: it used to spend 15–20% more CPU per request
    // than one started on the same folder (README, "After a large import"), so it is shown beside.
    const importerSettled = await waitUntilIdle(importer.child.pid!);
    if (!importerSettled.settled) process.stdout.write(`  warning: the importing process was still busy after ${(importerSettled.ms / 1000).toFixed(0)} s; measured anyway\n`);
    const statsAfterImport = ONLY_PRODUCTS ? null : await cannon({ url: `${importer.baseUrl}${paths.stats!}`, headers: auth, pid: importer.child.pid! }, importer.ca);
    await importer.stop();
    // Everything below is measured on the service started on the folder the import filled, as a
    // deployment runs it (and its start-up to "listening" is the start-up time with the data).
    server = await startServer({ DATA_DIR: dataDir, REDIS_URL: redis.url, TRUST_PROXY: '127.0.0.1' });
    const settled = await waitUntilIdle(server.child.pid!);
    const pids = { service: server.child.pid!, floor: floor.pid!, bare: bare.pid! };
    const warn = (name: string, label: string, r: Result) => {
      if (r.non2xx > 0 || r.errors > 0) process.stdout.write(`  warning: ${name}, ${label}: ${r.non2xx} unexpected statuses, ${r.errors} errors\n`);
    };

    const apiRows: string[][] = [];
    /** Each row's ratios, for the goals. */
    const ratios = new Map<string, Record<Goal['ratio'], number>>();
    for (const [name, path] of Object.entries(paths)) {
      const headers = headersOf(name);
      const [service, stack, ceiling] = (await compare(
        [
          { url: `${server.baseUrl}${path}`, headers, pid: pids.service },
          { url: `https://127.0.0.1:${floorPort}${path}`, headers, pid: pids.floor },
          { url: `https://127.0.0.1:${barePort}${path}`, headers, pid: pids.bare },
        ],
        server.ca,
      )) as [Result, Result, Result];
      warn(name, 'service', service);
      warn(name, 'floor', stack);
      warn(name, 'bare', ceiling);
      ratios.set(name, { 'req/s service/bare': service.rps / ceiling.rps, 'CPU service/floor': service.cpuUs / stack.cpuUs, 'CPU service/bare': service.cpuUs / ceiling.cpuUs });
      apiRows.push([
        name,
        wireBytes[name]!.toLocaleString('en'),
        service.rps.toFixed(0),
        latency(service),
        us(service),
        stack.rps.toFixed(0),
        us(stack),
        ceiling.rps.toFixed(0),
        us(ceiling),
        (service.cpuUs / stack.cpuUs).toFixed(2),
        (service.rps / ceiling.rps).toFixed(2),
      ]);
    }
    const publicRows: string[][] = [];
    for (const [name, { path, headers, status }] of Object.entries(publicPaths)) {
      const [service, ceiling] = (await compare(
        [
          { url: `${server.baseUrl}${path}`, headers, pid: pids.service, visitors: true, ...(status && { status }) },
          { url: `https://127.0.0.1:${barePort}${path}`, headers, pid: pids.bare, visitors: true, ...(status && { status }) },
        ],
        server.ca,
      )) as [Result, Result];
      warn(name, 'service', service);
      warn(name, 'bare', ceiling);
      ratios.set(name, { 'req/s service/bare': service.rps / ceiling.rps, 'CPU service/floor': NaN, 'CPU service/bare': service.cpuUs / ceiling.cpuUs });
      publicRows.push([
        name,
        service.rps.toFixed(0),
        latency(service),
        us(service),
        ceiling.rps.toFixed(0),
        latency(ceiling),
        us(ceiling),
        (service.rps / ceiling.rps).toFixed(2),
        (service.cpuUs / ceiling.cpuUs).toFixed(2),
      ]);
    }
    const memAfterLoad = rssMiB(server.child.pid!);

    await server.stop();

    // WORKERS=1 against WORKERS=2, on the MongoDB store (FerretDB) with the same Redis.
    const workers = process.argv.includes('--skip-workers') || ONLY_PRODUCTS
      ? null
      : await compareWorkers({
          redisUrl: redis.url,
          reviews: WORKER_REVIEWS,
          reviewStream,
          upload,
          cannon: (target, ca) => cannon({ ...target, requests: WORKER_REQUESTS }, ca),
        });

    process.stdout.write(
      [
        '',
        "API (a developer's key):",
        ...table(['request', 'bytes', 'service req/s', 'service p50/p99 ms', 'service CPU µs/req', 'floor req/s', 'floor CPU µs/req', 'bare req/s', 'bare CPU µs/req', 'CPU service/floor', 'req/s service/bare'], apiRows),
        ...(paths['100-review page, br'] ? ['bytes = the answer body on the wire. The 100-review page rows: the same page as it is, and compressed per request at the fast level (brotli 4, gzip 1), the floor and bare servers answering the recorded compressed bytes: the compression\'s CPU shows in CPU service/floor.'] : []),
        ...(PRODUCTS > 0 ? [`product rows: ${product}, one of ${PRODUCTS.toLocaleString('en')} products, named by ${Math.ceil((REVIEWS - (Math.floor(PRODUCTS / 2) % PRODUCTS)) / PRODUCTS).toLocaleString('en')} of the reviews (goal: req/s service/bare ≥ 0.6).`] : []),
        ...(statsAfterImport
          ? [`The service above was started on the data folder the import filled. In the process that ran the import, before that restart: stats ${us(statsAfterImport)} µs/req, ${statsAfterImport.rps.toFixed(0)} req/s (README, "After a large import").`]
          : ['The service above was started on the data folder the import filled.']),
        '',
        ...(publicRows.length > 0
          ? ['Public (site visitors: each request from its own address, browser headers):', ...table(['request', 'service req/s', 'service p50/p99 ms', 'service CPU µs/req', 'bare req/s', 'bare p50/p99 ms', 'bare CPU µs/req', 'req/s service/bare', 'CPU service/bare'], publicRows)]
          : []),
        '',
        `CPU µs/req = the server process's own user + system CPU time (/proc/<pid>/stat, all threads) over ${REQUESTS.toLocaleString('en')} requests, after a ${WARMUP_SECONDS} s warm-up; it barely depends on the load generator, req/s does. Every figure (req/s, p50, p99, CPU) is the median of its own over ${RUNS} such runs of each server, the servers taking turns; the importing process's figure comes from rounds of its own, before the restart.`,
        'floor = Koa + @koa/router + koa-ratelimit on the same Redis answering the same bytes (bench/floor-server.ts): the most the mandated stack allows. bare = node:https answering the same bytes. All three run compiled (esbuild), as `npm start` runs the service.',
        ...(workers
          ? [
              `WORKERS (MongoDB store on FerretDB 1.24/SQLite, ${workers.reviews} reviews, Redis limits; ${WORKER_REQUESTS.toLocaleString('en')} requests per run):`,
              ...table(['request', 'workers', 'req/s', 'p50/p99 ms', 'service CPU µs/req (all processes)', 'FerretDB CPU µs/req'], workers.rows),
              `This machine has ${availableParallelism()} cores: the load generator and FerretDB run on the same cores as the workers, so a second worker cannot double req/s here; on a machine with cores to spare (and MongoDB instead of FerretDB on SQLite) the workers scale with the cores.`,
              '',
            ]
          : []),
        `Reviews: ${REVIEWS.toLocaleString('en')}; import ${importRate.toLocaleString('en')} reviews/s; RSS ${memAfterImport} MiB in the importing process after the import, ${memAfterLoad} MiB in the restarted one after the load; start-up to listening ${Math.round(importer.startupMs)} ms empty, ${Math.round(server.startupMs)} ms with the ${REVIEWS.toLocaleString('en')} reviews (then ${settled.settled ? `${(settled.ms / 1000).toFixed(0)} s of background work, the garbage of the read, before it idled and was measured` : `still busy after ${(settled.ms / 1000).toFixed(0)} s: measured anyway`}).`,
        '',
      ].join('\n'),
    );
    const goals = goalRows([...API_GOALS, ...PUBLIC_GOALS], ratios);
    process.stdout.write([`Goals (issue 38; product rows: issue 35)${CHECK ? '' : ', for information (--check exits 1 when one is missed)'}:`, ...table(['request', 'ratio', 'measured', 'goal', ''], goals.rows), ''].join('\n') + '\n');
    if (CHECK && goals.missed > 0) {
      process.stdout.write(`--check: ${goals.missed} goal${goals.missed === 1 ? '' : 's'} missed.\n`);
      process.exitCode = 1;
    }
  } finally {
    bare?.kill('SIGTERM');
    floor?.kill('SIGTERM');
    await importer.stop();
    await server?.stop();
    redis.process.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(redis.dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${(err as Error).message}\n`);
  process.exit(1);
});
