/**
 * `npm run bench [-- --reviews 1000000 --seconds 10 --connections 16 --warmup 2]`
 * `npm run bench -- --store mongo [--reviews 2000]`: the embedded store beside
 * the MongoDB store on FerretDB (bench/stores.ts).
 *
 * Loads N reviews into one organization through the admin import API (the
 * same path as `npm run admin -- reviews import`), then measures, side by side
 * in one run, the service (HTTPS, a real key, the Redis limiter with a high
 * per-organization override), the framework floor (Koa + @koa/router +
 * koa-ratelimit on the same Redis answering the same bytes, nothing else) and
 * a bare Node HTTPS server answering the same bytes, for: the first page, a
 * filtered deep page and the statistics.
 * Prints requests/s, p50/p99 latency and the ratio; the import rate; the
 * server's memory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import autocannon from 'autocannon';
import type { Fixture } from './bare-server.ts';
import { admin, findRedisServer, flag, freePort, httpsGet, ROOT, rssMiB, startRedis, startServer } from './support.ts';

const REVIEWS = flag('reviews', 100_000);
const SECONDS = flag('seconds', 10);
const CONNECTIONS = flag('connections', 16);
const PLATFORMS = ['GOOGLE', 'YELP', 'TRUSTPILOT', 'G2', 'CAPTERRA', 'FACEBOOK'];
const WORDS = 'great friendly fast coffee service staff quality price support helpful recommend again slow cold warm cozy team product delivery easy'.split(' ');

/** Deterministic review records, streamed as NDJSON (never all in memory). */
function reviewStream(n: number): Readable {
  let i = 0;
  let seed = 42;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
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
            language: 'en',
            isVerified: rnd() < 0.5,
            sentiment: Math.round(rnd() * 100) / 100,
            sentimentLabel: null,
            aiSummary: null,
            aiThemes: [],
          }),
        );
      }
      this.push(lines.length ? `${lines.join('\n')}\n` : null);
    },
  });
}

function upload(adminUrl: string, token: string, orgId: string, body: Readable): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = request(`${adminUrl}/admin/orgs/${orgId}/reviews?format=ndjson`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }, (res) => {
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
  non2xx: number;
  errors: number;
}

const WARMUP_SECONDS = flag('warmup', 2);

async function cannon(url: string, headers: Record<string, string>, ca: string): Promise<Result> {
  const options = { url, connections: CONNECTIONS, headers, tlsOptions: { ca, servername: 'localhost' } };
  // A discarded warm-up run first, for both servers alike: the JIT needs thousands of requests.
  await autocannon({ ...options, duration: WARMUP_SECONDS } as autocannon.Options);
  const r = await autocannon({ ...options, duration: SECONDS } as autocannon.Options);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

/** Starts a comparison server (its own process) and waits for its `ready`. */
async function spawnReady(script: string, ...args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return child;
}

async function main(): Promise<void> {
  const store = process.argv.indexOf('--store');
  if (store !== -1) {
    if (process.argv[store + 1] !== 'mongo') throw new Error('--store takes mongo (the embedded store is always measured)');
    const { compareStores } = await import('./stores.ts');
    return compareStores({ reviewStream, upload, cannon, connections: CONNECTIONS, seconds: SECONDS });
  }
  findRedisServer();
  const redis = await startRedis(process.env.REDIS_SERVER_BIN ?? 'redis-server');
  const dataDir = mkdtempSync(join(tmpdir(), 'review-bench-'));
  const server = await startServer({ DATA_DIR: dataDir, REDIS_URL: redis.url });
  let bare: ChildProcess | null = null;
  let floor: ChildProcess | null = null;
  try {
    process.stdout.write(`Benchmark: ${REVIEWS.toLocaleString('en')} reviews, ${CONNECTIONS} connections, ${SECONDS} s per run, Node ${process.version}\n`);
    const org = await admin(server, 'POST', '/admin/orgs', { name: 'Bench', plan: 'agency', rateLimit: 10_000_000 });
    const key = (await admin(server, 'POST', '/admin/keys', { orgId: org.id, name: 'bench' })).key as string;

    const started = process.hrtime.bigint();
    const summary = await upload(server.adminUrl, server.adminToken, org.id as string, reviewStream(REVIEWS));
    const importSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const importRate = Math.round(REVIEWS / importSeconds);
    process.stdout.write(`Import: ${summary.imported} reviews in ${importSeconds.toFixed(1)} s = ${importRate.toLocaleString('en')} reviews/s (rejected ${summary.rejectedTotal})\n`);
    const memAfterImport = rssMiB(server.child.pid!);

    const auth = { authorization: `Bearer ${key}` };
    const paths = {
      'first page': '/api/v1/reviews',
      'filtered deep page': '/api/v1/reviews?platform=google&minRating=4&offset=2000',
      stats: '/api/v1/reviews/stats',
    };
    // Warm up (the first read after an import sorts the pending reviews in).
    const responses: Record<string, { body: string; headers: Record<string, string> }> = {};
    for (const path of Object.values(paths)) {
      const res = await httpsGet(`${server.baseUrl}${path}`, server.ca, auth);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.toString()}`);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined && !['content-length', 'connection', 'keep-alive', 'date', 'transfer-encoding'].includes(name)) headers[name] = String(value);
      }
      responses[path] = { body: res.body.toString('base64'), headers };
    }

    const barePort = await freePort();
    const floorPort = await freePort();
    const fixture: Fixture = { cert: server.ca, key: readFileSync(join(dataDir, 'tls-key.pem'), 'utf8'), port: barePort, responses };
    const bareFixture = join(dataDir, 'bare.json');
    const floorFixture = join(dataDir, 'floor.json');
    writeFileSync(bareFixture, JSON.stringify(fixture));
    writeFileSync(floorFixture, JSON.stringify({ ...fixture, port: floorPort }));
    bare = await spawnReady(join(ROOT, 'bench', 'bare-server.ts'), bareFixture);
    floor = await spawnReady(join(ROOT, 'bench', 'floor-server.ts'), floorFixture, redis.url);

    const rows: string[][] = [];
    for (const [name, path] of Object.entries(paths)) {
      const service = await cannon(`${server.baseUrl}${path}`, auth, server.ca);
      const stack = await cannon(`https://127.0.0.1:${floorPort}${path}`, auth, server.ca);
      const ceiling = await cannon(`https://127.0.0.1:${barePort}${path}`, auth, server.ca);
      for (const [label, r] of [['service', service], ['floor', stack], ['bare', ceiling]] as const) {
        if (r.non2xx > 0 || r.errors > 0) process.stdout.write(`  warning: ${name}, ${label}: ${r.non2xx} non-2xx, ${r.errors} errors\n`);
      }
      rows.push([
        name,
        service.rps.toFixed(0),
        `${service.p50} / ${service.p99}`,
        stack.rps.toFixed(0),
        ceiling.rps.toFixed(0),
        `${ceiling.p50} / ${ceiling.p99}`,
        (service.rps / ceiling.rps).toFixed(2),
        (stack.rps / ceiling.rps).toFixed(2),
      ]);
    }
    const memAfterLoad = rssMiB(server.child.pid!);

    const header = ['request', 'service req/s', 'service p50/p99 ms', 'floor req/s', 'bare req/s', 'bare p50/p99 ms', 'ratio', 'floor ratio'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
    process.stdout.write(
      [
        '',
        line(header),
        `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
        ...rows.map(line),
        '',
        'ratio = service / bare. floor = Koa + @koa/router + koa-ratelimit on the same Redis answering the same bytes (bench/floor-server.ts): the most the mandated stack allows.',
        `Reviews: ${REVIEWS.toLocaleString('en')}; import ${importRate.toLocaleString('en')} reviews/s; server RSS ${memAfterImport} MiB after import, ${memAfterLoad} MiB after load.`,
        '',
      ].join('\n'),
    );
  } finally {
    bare?.kill('SIGTERM');
    floor?.kill('SIGTERM');
    await server.stop();
    redis.process.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(redis.dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${(err as Error).message}\n`);
  process.exit(1);
});
