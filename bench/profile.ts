/**
 * `npm run bench:profile [-- --reviews 100000 --requests 20000 --only stats --skip-floor --products 10000]`:
 * where the service's CPU goes under the benchmark's load. Fills a data folder
 * (bench/fill.ts), starts the compiled service with `--cpu-prof` on Redis, and
 * sends each request of `npm run bench` (the same URLs and headers) to it;
 * then prints, per request, the functions with the most self time over the
 * measured requests only (samples outside them, start-up and warm-up, are left
 * out), as a share of the process's busy (non-idle) samples. The .cpuprofile
 * files stay in the folder printed at the end (open them in Chrome DevTools).
 * Each API request is profiled on the floor server too (bench/floor-server.ts,
 * answering the service's recorded bytes), so the two breakdowns compare.
 * With `--products N` (0: none) every review names one of N catalog products
 * (review i the product i mod N, as in `npm run bench`), and one product's
 * first page and statistics are profiled too (`--only product`).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { benchProductId, fillDataFolder } from './fill.ts';
import type { Fixture } from './bare-server.ts';
import { admin, flag, findRedisServer, freePort, httpsGet, record, ROOT, spawnReady, startRedis, startServer } from './support.ts';

const REVIEWS = flag('reviews', 100_000);
const REQUESTS = flag('requests', 20_000);
const CONNECTIONS = flag('connections', 16);
const TOP = flag('top', 25);
const PRODUCTS = flag('products', 0);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Self time by function over the samples taken between `from` and `to` (µs, the monotonic clock). */
function topSelf(profile: CpuProfile, from: number, to: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i]!;
    if (t < from || t > to) return;
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') return;
    busy++;
    const where = url ? `${url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '')}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'} ${where}`.trim();
    self.set(name, (self.get(name) ?? 0) + 1);
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(([name, n]) => `  ${((100 * n) / busy).toFixed(1).padStart(5)}%  ${name}`)
    .concat(`  (${busy} busy samples)`);
}

/** Which part of the stack a sampled function belongs to. */
function component(frame: ProfileNode['callFrame']): string | null {
  const { functionName, url } = frame;
  if (functionName === '(idle)') return null;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8 (program)';
  if (/node_modules\/(koa-ratelimit|async-ratelimiter|ioredis|redis-parser|denque|cluster-key-slot|standard-as-callback)\//.test(url)) return 'Redis client + koa-ratelimit';
  if (/node_modules\/(koa|@koa\/router|koa-compose|delegates|on-finished|ee-first|statuses|http-errors|cookies|content-type|type-is|mime-types|mime-db|accepts|vary|encodeurl|escape-html|fresh|only|negotiator|destroy|content-disposition|depd|path-to-regexp)\//.test(url)) return 'Koa + @koa/router';
  if (/node_modules\/prom-client\//.test(url)) return 'prom-client';
  if (/node_modules\/pino/.test(url)) return 'pino';
  if (/\/dist\/api\//.test(url)) return 'the service (dist/api)';
  if (/\/dist\/bench\//.test(url)) return "the floor's handler (dist/bench)";
  if (url.startsWith('node:') || url === '') return 'Node (HTTP, TLS, streams) and natives';
  return 'other packages';
}

/** CPU µs per request of the main thread by component, over the samples between `from` and `to`. */
function byComponent(profile: CpuProfile, from: number, to: number, requests: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const micros = new Map<string, number>();
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i]!;
    t += delta;
    if (t < from || t > to) return;
    const name = component(byId.get(id)!.callFrame);
    if (name !== null) micros.set(name, (micros.get(name) ?? 0) + delta);
  });
  const total = [...micros.values()].reduce((a, b) => a + b, 0);
  return [...micros.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => `  ${(us / requests).toFixed(1).padStart(6)} µs  ${name}`)
    .concat(`  ${(total / requests).toFixed(1).padStart(6)} µs  main thread in all (sampled; the benchmark's CPU figure adds the other threads)`);
}

async function main(): Promise<void> {
  findRedisServer();
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
  const redis = await startRedis(process.env.REDIS_SERVER_BIN ?? 'redis-server');
  const dataDir = mkdtempSync(join(tmpdir(), 'review-profile-'));
  const profileDir = mkdtempSync(join(tmpdir(), 'review-cpuprofile-'));
  try {
    const { orgId } = await fillDataFolder(dataDir, REVIEWS, PRODUCTS);
    const env = { DATA_DIR: dataDir, REDIS_URL: redis.url, TRUST_PROXY: '127.0.0.1' };
    const probe = await startServer(env);
    const key = (await admin(probe, 'POST', '/admin/keys', { orgId, name: 'profile' })).key as string;
    const widget = await admin(probe, 'POST', '/admin/widgets', { orgId, name: 'Profile widget' });
    const browser = { 'accept-encoding': 'gzip, deflate, br', origin: 'https://shop.example' };
    // The data folder is the same for every server below, so is the widget data's ETag.
    const etag = (await httpsGet(`${probe.baseUrl}/public/v1/widgets/${widget.id as string}`, probe.ca, browser)).headers.etag as string;
    await probe.stop();
    const manifest = JSON.parse(readFileSync(join(ROOT, 'widget', 'dist', 'manifest.json'), 'utf8')) as { loader: string; layouts: Record<string, string> };
    const auth = { authorization: `Bearer ${key}` };
    const targets: Record<string, { path: string; headers: Record<string, string>; visitors?: boolean }> = {
      'first page': { path: '/api/v1/reviews', headers: auth },
      'filtered deep page': { path: '/api/v1/reviews?platform=google&minRating=4&offset=2000', headers: auth },
      stats: { path: '/api/v1/reviews/stats', headers: auth },
      ...(PRODUCTS > 0 && {
        'product first page': { path: `/api/v1/reviews?productId=${benchProductId(Math.floor(PRODUCTS / 2))}`, headers: auth },
        'product stats': { path: `/api/v1/reviews/stats?productId=${benchProductId(Math.floor(PRODUCTS / 2))}`, headers: auth },
      }),
      'widget data': { path: `/public/v1/widgets/${widget.id as string}`, headers: browser, visitors: true },
      'widget data, 304': { path: `/public/v1/widgets/${widget.id as string}`, headers: { ...browser, 'if-none-match': etag }, visitors: true },
      'loader.js': { path: `/widget/${manifest.loader}`, headers: browser, visitors: true },
      'hashed bundle': { path: `/widget/${manifest.layouts.carousel!}`, headers: browser, visitors: true },
    };
    // The floor (bench/floor-server.ts) answers the API requests with the service's recorded bytes: profiled alike, side by side.
    const floorPort = await freePort();
    const floorFixture = join(dataDir, 'floor.json');
    const apiTargets = Object.entries(targets).filter(([, t]) => !t.visitors);
    const responses: Fixture['responses'] = {};
    const recorder = await startServer(env);
    for (const [, { path, headers }] of apiTargets) responses[path] = await record(`${recorder.baseUrl}${path}`, recorder.ca, headers);
    const tls = { cert: recorder.ca, key: readFileSync(join(dataDir, 'tls-key.pem'), 'utf8') };
    await recorder.stop();
    writeFileSync(floorFixture, JSON.stringify({ ...tls, port: floorPort, responses } satisfies Fixture));

    let visitor = 0;
    for (const [name, { path, headers, visitors }] of Object.entries(targets)) {
      if (only && !name.includes(only)) continue;
      const runs: { label: string; file: string; start: (flags: string[]) => Promise<{ baseUrl: string; ca: string; stop: () => Promise<unknown> }> }[] = [
        { label: 'service', file: name, start: (flags) => startServer(env, flags) },
      ];
      if (!visitors && !process.argv.includes('--skip-floor')) {
        runs.push({
          label: 'floor',
          file: `floor ${name}`,
          start: async (flags) => {
            const child = await spawnReady('floor-server', [floorFixture, redis.url], flags);
            return {
              baseUrl: `https://127.0.0.1:${floorPort}`,
              ca: tls.cert,
              stop: () => new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : (child.once('exit', resolve), child.kill('SIGTERM')))),
            };
          },
        });
      }
      for (const { label, file, start } of runs) {
        const fileName = file.replace(/\W+/g, '-');
        const server = await start(['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${fileName}.cpuprofile`]);
        const options = {
          url: `${server.baseUrl}${path}`,
          connections: CONNECTIONS,
          headers,
          tlsOptions: { ca: server.ca, servername: 'localhost' },
          ...(visitors && {
            requests: [
              {
                setupRequest: (req: { headers?: Record<string, string> }) => {
                  visitor++;
                  return { ...req, headers: { ...headers, 'x-forwarded-for': `10.${(visitor >> 16) & 255}.${(visitor >> 8) & 255}.${visitor & 255}` } };
                },
              },
            ],
          }),
        };
        await autocannon({ ...options, duration: 2 } as autocannon.Options);
        const from = Number(process.hrtime.bigint() / 1000n);
        const r = await autocannon({ ...options, amount: REQUESTS } as autocannon.Options);
        const to = Number(process.hrtime.bigint() / 1000n);
        await server.stop();
        const found = readdirSync(profileDir).find((f) => f.startsWith(`${fileName}.`));
        if (!found) throw new Error(`no profile written for ${label}, ${name}`);
        const profile = JSON.parse(readFileSync(join(profileDir, found), 'utf8')) as CpuProfile;
        process.stdout.write(`\n${label}, ${name} (${path}): ${r.requests.total} requests (${Object.entries(r.statusCodeStats ?? {}).map(([code, { count }]) => `${count} × ${code}`).join(', ')}); self time, share of busy samples:\n${topSelf(profile, from, to).join('\n')}\n`);
        process.stdout.write(`by component, main-thread CPU per request:\n${byComponent(profile, from, to, r.requests.total).join('\n')}\n`);
      }
    }
    process.stdout.write(`\nProfiles: ${profileDir}\n`);
  } finally {
    redis.process.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(redis.dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:profile: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
