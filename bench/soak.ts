/**
 * `npm run soak [-- --minutes 3 --clients 8 --rate 200]`
 *
 * Several minutes of mixed load against the service running as its own
 * process with a real Redis, while Redis is killed (SIGKILL) and restarted on
 * the same port twice. Load: valid list/stats/embed/schema calls, invalid
 * parameters, missing and bad keys, a key in the query string, an organization
 * held at a small limit, a free-plan organization, the public widget data,
 * unknown paths, wrong methods and health (readiness is probed around each
 * Redis kill and restart, where its 503 is by design). Loopback only, a bounded
 * number of concurrent clients, paced to a total request rate.
 *
 * Every request sent is counted, and every answer by status; a request with no
 * answer (socket error or timeout) is lost. Prints totals by status and by
 * kind, the Redis timeline, and exits 1 on any 5xx, any lost request, any
 * status a kind never expects, any answer without X-Request-Id or JSON, any
 * error line in the server's log, or shared limits not back in Redis after a
 * restart.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { admin, findRedisServer, flag, rssMiB, startRedis, startServer, type ServerProcess } from './support.ts';

const MINUTES = flag('minutes', 3);
const CLIENTS = Math.floor(flag('clients', 8));
/** Total requests per second over all clients: load, without starving the other programs on the machine. */
const RATE = flag('rate', 200);
const REQUEST_TIMEOUT_MS = 10_000;
/** Reviews imported into the busy organization, so that list and stats do real work. */
const REVIEWS = 500;

type Kind =
  | 'valid_list'
  | 'valid_stats'
  | 'valid_embed'
  | 'valid_schema'
  | 'invalid_params'
  | 'missing_key'
  | 'bad_key'
  | 'key_in_query'
  | 'rate_limited_org'
  | 'free_plan'
  | 'public_widget'
  | 'not_found'
  | 'wrong_method'
  | 'healthz';

interface Call {
  path: string;
  method?: string;
  headers?: Record<string, string>;
}

interface KindSpec {
  weight: number;
  /** Statuses this kind may legitimately get; anything else is a finding. */
  expected: number[];
  make(rnd: () => number): Call;
}

interface Fixture {
  bigKey: string;
  smallKey: string;
  freeKey: string;
  widgetId: string;
  smallWidgetId: string;
}

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

function kinds(f: Fixture): Record<Kind, KindSpec> {
  const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });
  const none: Record<string, string> = {};
  return {
    valid_list: {
      weight: 16,
      expected: [200],
      make: (rnd) => ({
        path: pick(rnd, [
          '/api/v1/reviews',
          '/api/v1/reviews?limit=5',
          '/api/v1/reviews?platform=google&minRating=4',
          '/api/v1/reviews?since=2026-01-01&limit=50&offset=20',
          '/api/v1/reviews?maxRating=2&platform=YELP',
          '/api/v1/reviews?offset=450&limit=100',
        ]),
        headers: bearer(f.bigKey),
      }),
    },
    valid_stats: { weight: 10, expected: [200], make: () => ({ path: '/api/v1/reviews/stats', headers: bearer(f.bigKey) }) },
    valid_embed: { weight: 6, expected: [200], make: () => ({ path: `/api/v1/widgets/${f.widgetId}/embed`, headers: bearer(f.bigKey) }) },
    valid_schema: { weight: 6, expected: [200], make: () => ({ path: `/api/v1/widgets/${f.widgetId}/schema`, headers: bearer(f.bigKey) }) },
    invalid_params: {
      weight: 8,
      // 404: another organization's widget is not found, never forbidden.
      expected: [400, 404],
      make: (rnd) => {
        const path = pick(rnd, [
          '/api/v1/reviews?limit=500',
          '/api/v1/reviews?limit=abc',
          '/api/v1/reviews?offset=-1',
          '/api/v1/reviews?minRating=9',
          '/api/v1/reviews?minRating=4&maxRating=2',
          '/api/v1/reviews?since=yesterday',
          '/api/v1/reviews?limit=1&limit=2',
          '/api/v1/reviews?colour=blue',
          '/api/v1/reviews/stats?limit=5',
          `/api/v1/widgets/${f.widgetId}/embed?theme=dark`,
          `/api/v1/widgets/${f.smallWidgetId}/embed`,
          '/api/v1/widgets/wdg_doesnotexist/schema',
        ]);
        return { path, headers: bearer(f.bigKey) };
      },
    },
    // Failed authentication from one address is itself rate limited: 429 is expected too.
    missing_key: {
      weight: 5,
      expected: [401, 429],
      make: (rnd) => ({
        path: pick(rnd, ['/api/v1/reviews', '/api/v1/reviews/stats', `/api/v1/widgets/${f.widgetId}/embed`]),
        headers: pick(rnd, [none, { authorization: 'Bearer' }, { authorization: 'Basic dXNlcjpwYXNz' }]),
      }),
    },
    bad_key: {
      weight: 5,
      expected: [401, 429],
      make: (rnd) => ({
        path: '/api/v1/reviews',
        headers: bearer(
          pick(rnd, [
            f.bigKey.slice(0, -1) + (f.bigKey.endsWith('A') ? 'B' : 'A'),
            'rvp_live_0000000000000000000000000000000000000',
            'x'.repeat(200),
          ]),
        ),
      }),
    },
    key_in_query: {
      weight: 4,
      expected: [400],
      make: (rnd) => ({ path: `/api/v1/reviews?${pick(rnd, ['api_key', 'apiKey', 'key', 'token', 'access_token'])}=${f.bigKey}`, headers: pick(rnd, [none, bearer(f.bigKey)]) }),
    },
    rate_limited_org: { weight: 10, expected: [200, 429], make: (rnd) => ({ path: pick(rnd, ['/api/v1/reviews', '/api/v1/reviews/stats']), headers: bearer(f.smallKey) }) },
    free_plan: { weight: 4, expected: [403], make: () => ({ path: '/api/v1/reviews', headers: bearer(f.freeKey) }) },
    public_widget: {
      weight: 12,
      expected: [200, 304, 429],
      make: (rnd) => ({ path: `/public/v1/widgets/${f.widgetId}`, headers: rnd() < 0.2 ? { 'if-none-match': '"stale-etag"' } : none }),
    },
    not_found: { weight: 3, expected: [404], make: (rnd) => ({ path: pick(rnd, ['/api/v1/nope', '/api/v2/reviews', '/%2e%2e/etc/passwd', '/api/v1/reviews/stats/extra']) }) },
    wrong_method: { weight: 3, expected: [405], make: (rnd) => ({ path: '/api/v1/reviews', method: pick(rnd, ['POST', 'PUT', 'DELETE', 'PATCH']), headers: bearer(f.bigKey) }) },
    healthz: { weight: 4, expected: [200], make: () => ({ path: '/healthz' }) },
  };
}

interface Answer {
  status: number;
  requestId: boolean;
  json: boolean;
}

function send(server: ServerProcess, agent: Agent, call: Call): Promise<Answer | Error> {
  return new Promise((resolve) => {
    const url = new URL(call.path, server.baseUrl);
    const req = request(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: call.method ?? 'GET', headers: call.headers ?? {}, agent, servername: 'localhost' },
      (res) => {
        res.resume();
        res.on('error', (err) => resolve(err));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            requestId: typeof res.headers['x-request-id'] === 'string' && res.headers['x-request-id'] !== '',
            json: res.statusCode === 304 || /^application\/json; charset=utf-8$/i.test(String(res.headers['content-type'])),
          }),
        );
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', (err) => resolve(err));
    req.end();
  });
}

class Tally {
  readonly byKind = new Map<Kind, { sent: number; statuses: Map<number, number>; lost: number; unexpected: number }>();
  readonly byStatus = new Map<number, number>();
  readonly lostReasons = new Map<string, number>();
  sent = 0;
  lost = 0;
  unexpected = 0;
  noRequestId = 0;
  notJson = 0;

  record(kind: Kind, expected: number[], answer: Answer | Error): void {
    const row = this.byKind.get(kind) ?? { sent: 0, statuses: new Map<number, number>(), lost: 0, unexpected: 0 };
    this.byKind.set(kind, row);
    row.sent++;
    if (answer instanceof Error) {
      this.lost++;
      row.lost++;
      const reason = (answer as NodeJS.ErrnoException).code ?? answer.message;
      this.lostReasons.set(reason, (this.lostReasons.get(reason) ?? 0) + 1);
      return;
    }
    row.statuses.set(answer.status, (row.statuses.get(answer.status) ?? 0) + 1);
    this.byStatus.set(answer.status, (this.byStatus.get(answer.status) ?? 0) + 1);
    if (!expected.includes(answer.status)) {
      this.unexpected++;
      row.unexpected++;
    }
    if (!answer.requestId) this.noRequestId++;
    if (!answer.json) this.notJson++;
  }

  get answered(): number {
    return [...this.byStatus.values()].reduce((a, b) => a + b, 0);
  }

  get fiveXx(): number {
    return [...this.byStatus].filter(([s]) => s >= 500).reduce((sum, [, n]) => sum + n, 0);
  }
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** A deterministic PRNG per client, so a failing mix can be replayed. */
function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
}

function reviewsNdjson(n: number): string {
  const platforms = ['GOOGLE', 'YELP', 'TRUSTPILOT', 'G2', 'CAPTERRA', 'FACEBOOK'];
  const rnd = prng(7);
  const now = Date.now();
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      platform: platforms[i % platforms.length],
      externalId: `soak-${i}`,
      authorName: `Soak Reviewer ${i}`,
      authorAvatar: null,
      rating: i % 11 === 0 ? null : 1 + Math.floor(rnd() * 5),
      content: `Soak review number ${i}: friendly staff, fast service, would come back.`,
      date: new Date(now - Math.floor(rnd() * 400 * 86_400_000)).toISOString(),
      url: `https://example.com/reviews/${i}`,
      language: 'en',
      isVerified: i % 2 === 0,
      sentiment: null,
      sentimentLabel: null,
      aiSummary: null,
      aiThemes: [],
    }),
  ).join('\n');
}

async function setUp(server: ServerProcess): Promise<Fixture> {
  const big = await admin(server, 'POST', '/admin/orgs', { name: 'Soak busy', plan: 'growth', rateLimit: 10_000_000 });
  const small = await admin(server, 'POST', '/admin/orgs', { name: 'Soak limited', plan: 'growth', rateLimit: 20 });
  const free = await admin(server, 'POST', '/admin/orgs', { name: 'Soak free', plan: 'free' });
  const keyOf = async (orgId: unknown) => (await admin(server, 'POST', '/admin/keys', { orgId, name: 'soak' })).key as string;
  const widget = await admin(server, 'POST', '/admin/widgets', { orgId: big.id, name: 'Soak widget', layout: 'grid', subject: { type: 'Product', name: 'Soak Shoes' } });
  const smallWidget = await admin(server, 'POST', '/admin/widgets', { orgId: small.id, name: 'Other org widget' });
  const res = await fetch(`${server.adminUrl}/admin/orgs/${String(big.id)}/reviews?format=ndjson`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/x-ndjson' },
    body: reviewsNdjson(REVIEWS),
  });
  const imported = (await res.json()) as { imported?: number };
  if (res.status !== 200 || imported.imported !== REVIEWS) throw new Error(`review import failed: ${res.status} ${JSON.stringify(imported)}`);
  return {
    bigKey: await keyOf(big.id),
    smallKey: await keyOf(small.id),
    freeKey: await keyOf(free.id),
    widgetId: widget.id as string,
    smallWidgetId: smallWidget.id as string,
  };
}

/**
 * The server's own log (stdout, info level): one JSON object a line, errors
 * are findings, Redis transitions and access lines are counted, and no line
 * may hold an API key, a key hash or the admin token.
 */
class ServerLog {
  private pending = '';
  private secrets: [string, string][] = [];
  /** Lines seen before the secrets are known (set-up), checked once they are. */
  private early: string[] | null = [];
  readonly errors: string[] = [];
  readonly leaks = new Map<string, number>();
  lines = 0;
  notJson = 0;
  accessLines = 0;
  accessWithoutId = 0;
  redisDown = 0;
  redisBack = 0;

  constructor(adminToken: string) {
    this.secrets.push(['admin token', adminToken]);
  }

  addSecrets(named: [string, string][]): void {
    this.secrets.push(...named);
    for (const line of this.early ?? []) this.check(line);
    this.early = null;
  }

  feed(chunk: Buffer): void {
    this.pending += chunk.toString('utf8');
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) !== -1) {
      const line = this.pending.slice(0, nl);
      this.pending = this.pending.slice(nl + 1);
      this.line(line);
    }
  }

  private check(line: string): void {
    for (const [name, secret] of this.secrets) if (line.includes(secret)) this.leaks.set(name, (this.leaks.get(name) ?? 0) + 1);
  }

  private line(line: string): void {
    this.lines++;
    if (this.early) this.early.push(line);
    else this.check(line);
    let parsed: { level?: unknown; msg?: unknown; requestId?: unknown };
    try {
      parsed = JSON.parse(line) as typeof parsed;
    } catch {
      this.notJson++;
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) {
      this.notJson++;
      return;
    }
    const msg = typeof parsed.msg === 'string' ? parsed.msg : '';
    if (typeof parsed.level === 'number' && parsed.level >= 50) this.errors.push(line.slice(0, 500));
    if (/redis (unavailable|command failed)/.test(msg)) this.redisDown++;
    if (/redis is back/.test(msg)) this.redisBack++;
    if (msg === 'request') {
      this.accessLines++;
      if (typeof parsed.requestId !== 'string' || parsed.requestId === '') this.accessWithoutId++;
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const durationMs = MINUTES * 60_000;
  // The run stops by itself whatever happens: a hard stop well after the planned end.
  /** What the hard stop must kill: the current Redis and the server. */
  const live: { redis?: ChildProcess; server?: ChildProcess } = {};
  const hardStop = setTimeout(() => {
    process.stderr.write('soak: did not finish within its time budget; giving up\n');
    live.server?.kill('SIGKILL');
    live.redis?.kill('SIGKILL');
    process.exit(2);
  }, durationMs + 180_000);
  hardStop.unref();

  const bin = findRedisServer();
  let redis = await startRedis(bin);
  live.redis = redis.process;
  const redisDirs = [redis.dir];
  const dataDir = mkdtempSync(join(tmpdir(), 'review-soak-'));
  let server: ServerProcess;
  try {
    server = await startServer({ DATA_DIR: dataDir, REDIS_URL: redis.url, LOG_LEVEL: 'info' });
    live.server = server.child;
  } catch (err) {
    redis.process.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(redis.dir, { recursive: true, force: true });
    throw err;
  }

  const serverLog = new ServerLog(server.adminToken);
  server.child.stdout!.on('data', (chunk: Buffer) => serverLog.feed(chunk));
  const stdoutClosed = new Promise((r) => server.child.stdout!.once('close', r));

  const tally = new Tally();
  const timeline: string[] = [];
  const findings: string[] = [];
  const agent = new Agent({ ca: server.ca, keepAlive: true, maxSockets: CLIENTS });
  const started = Date.now();
  const at = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  let exitCode: number | null = null;
  const rssStart = rssMiB(server.child.pid!);
  /** Readiness probes answered outside the load mix (they are access-logged too). */
  let probes = 0;

  try {
    const fixture = await setUp(server);
    serverLog.addSecrets(
      (['bigKey', 'smallKey', 'freeKey'] as const).flatMap((name): [string, string][] => [
        [name, fixture[name]],
        [`${name} hash`, createHash('sha256').update(fixture[name]).digest('hex')],
      ]),
    );
    const spec = kinds(fixture);
    const entries = Object.entries(spec) as [Kind, KindSpec][];
    const totalWeight = entries.reduce((s, [, k]) => s + k.weight, 0);
    const choose = (rnd: () => number): [Kind, KindSpec] => {
      let x = rnd() * totalWeight;
      for (const entry of entries) if ((x -= entry[1].weight) < 0) return entry;
      return entries.at(-1)!;
    };

    process.stdout.write(
      `Soak: ${MINUTES} min, ${CLIENTS} clients, ~${RATE} req/s over loopback, Redis killed and restarted twice; server pid ${server.child.pid}\n`,
    );
    const deadline = started + durationMs;
    const intervalMs = (CLIENTS * 1000) / RATE;
    const maxPerClient = Math.ceil((durationMs / 1000) * (RATE / CLIENTS) * 1.2) + 10;

    const client = async (n: number): Promise<void> => {
      const rnd = prng(1000 + n);
      for (let i = 0; i < maxPerClient && Date.now() < deadline; i++) {
        const t0 = Date.now();
        const [kind, k] = choose(rnd);
        tally.sent++;
        tally.record(kind, k.expected, await send(server, agent, k.make(rnd)));
        const wait = intervalMs - (Date.now() - t0);
        if (wait > 0) await sleep(wait);
      }
    };

    /** Waits until /readyz answers `status`; returns the milliseconds it took. */
    const readyWithin = async (status: number, ms: number): Promise<number> => {
      const t0 = Date.now();
      while (Date.now() - t0 < ms) {
        const answer = await send(server, agent, { path: '/readyz' });
        if (!(answer instanceof Error)) probes++;
        if (!(answer instanceof Error) && answer.status === status) return Date.now() - t0;
        await sleep(100);
      }
      throw new Error(`/readyz did not answer ${status} within ${ms} ms`);
    };

    const chaos = async (): Promise<void> => {
      for (const [killAt, restartAt] of [
        [0.2, 0.35],
        [0.55, 0.7],
      ] as const) {
        await sleep(Math.max(0, started + durationMs * killAt - Date.now()));
        redis.process.kill('SIGKILL');
        await new Promise((r) => redis.process.once('exit', r));
        timeline.push(`${at()}: Redis killed (SIGKILL)`);
        timeline.push(`${at()}: /readyz says 503 after ${await readyWithin(503, 10_000)} ms`);
        await sleep(Math.max(0, started + durationMs * restartAt - Date.now()));
        redis = await startRedis(bin, redis.port);
        live.redis = redis.process;
        redisDirs.push(redis.dir);
        timeline.push(`${at()}: Redis restarted on port ${redis.port}`);
        timeline.push(`${at()}: /readyz says 200 after ${await readyWithin(200, 15_000)} ms`);
        // Shared limits resumed without a restart of the service: the windows are in Redis again.
        await sleep(2000);
        const probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
        await probe.connect();
        const windows = (await probe.keys('*rl:*')).length;
        await probe.quit();
        timeline.push(`${at()}: ${windows} rate-limit windows in the restarted Redis`);
        if (windows === 0) findings.push('shared rate limits did not resume in Redis after a restart');
      }
    };

    const progress = setInterval(() => {
      process.stdout.write(`  ${at()}: ${tally.sent} sent, ${tally.answered} answered, ${tally.lost} lost, ${tally.fiveXx} 5xx, ${tally.unexpected} unexpected\n`);
    }, 15_000);
    try {
      await Promise.all([chaos(), ...Array.from({ length: CLIENTS }, (_, n) => client(n))]);
    } finally {
      clearInterval(progress);
    }
    const elapsed = (Date.now() - started) / 1000;
    const rssEnd = rssMiB(server.child.pid!);

    const statusRows = [...tally.byStatus].sort(([a], [b]) => a - b).map(([s, n]) => [String(s), String(n)]);
    if (tally.lost > 0) statusRows.push(['lost', String(tally.lost)]);
    const seenStatuses = [...tally.byStatus.keys()].sort((a, b) => a - b);
    const kindRows = entries.map(([kind, k]) => {
      const row = tally.byKind.get(kind);
      return [
        kind,
        String(row?.sent ?? 0),
        ...seenStatuses.map((s) => String(row?.statuses.get(s) ?? 0)),
        String(row?.lost ?? 0),
        `${k.expected.join('/')}${row?.unexpected ? ` (${row.unexpected} other)` : ''}`,
      ];
    });
    process.stdout.write(
      [
        '',
        `Sent ${tally.sent} requests in ${elapsed.toFixed(0)} s (${(tally.sent / elapsed).toFixed(0)} req/s); answered ${tally.answered}, lost ${tally.lost}.`,
        '',
        table(['status', 'answers'], statusRows),
        '',
        table(['kind', 'sent', ...seenStatuses.map(String), 'lost', 'expected'], kindRows),
        '',
        'Redis:',
        ...timeline.map((l) => `  ${l}`),
        `Server RSS: ${rssStart} MiB at start, ${rssEnd} MiB at the end.`,
        '',
      ].join('\n'),
    );

    if (tally.fiveXx > 0) findings.push(`${tally.fiveXx} answers with a 5xx status`);
    if (tally.lost > 0) findings.push(`${tally.lost} lost requests (${[...tally.lostReasons].map(([r, n]) => `${r}: ${n}`).join(', ')})`);
    if (tally.sent !== tally.answered + tally.lost) findings.push(`counting error: ${tally.sent} sent ≠ ${tally.answered} answered + ${tally.lost} lost`);
    if (tally.unexpected > 0) findings.push(`${tally.unexpected} answers with a status their kind never expects`);
    if (tally.noRequestId > 0) findings.push(`${tally.noRequestId} answers without X-Request-Id`);
    if (tally.notJson > 0) findings.push(`${tally.notJson} answers that are not application/json; charset=utf-8`);
    for (const kind of ['valid_list', 'rate_limited_org'] as const) {
      if (!tally.byKind.get(kind)?.statuses.get(kind === 'valid_list' ? 200 : 429)) findings.push(`${kind} never got its ${kind === 'valid_list' ? 200 : 429}`);
    }
  } catch (err) {
    findings.push(`soak aborted: ${(err as Error).message}`);
  } finally {
    agent.destroy();
    const code = await server.stop();
    if (code !== 0) findings.push(`the server exited with ${code} on SIGTERM (expected 0)`);
    await Promise.race([stdoutClosed, sleep(5000)]);
    const l = serverLog;
    process.stdout.write(
      `Server log: ${l.lines} lines, ${l.accessLines} access lines for ${tally.answered + probes} answers, ${l.redisDown} "redis unavailable" and ${l.redisBack} "redis is back" lines, ${l.errors.length} error lines.\n`,
    );
    if (l.errors.length > 0) findings.push(`${l.errors.length} error lines in the server log, first: ${l.errors[0]}`);
    if (l.notJson > 0) findings.push(`${l.notJson} server log lines that are not one JSON object`);
    if (l.accessWithoutId > 0) findings.push(`${l.accessWithoutId} access log lines without a requestId`);
    if (l.accessLines !== tally.answered + probes) findings.push(`${l.accessLines} access log lines for ${tally.answered + probes} answers`);
    if (l.leaks.size > 0) findings.push(`the server log holds secrets: ${[...l.leaks].map(([name, n]) => `${name} in ${n} line(s)`).join(', ')}`);
    if (l.redisDown !== 2 || l.redisBack !== 2) findings.push(`expected each of the 2 Redis outages logged once each way, saw ${l.redisDown} down and ${l.redisBack} back`);
    redis.process.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    for (const dir of redisDirs) rmSync(dir, { recursive: true, force: true });
    exitCode = findings.length > 0 ? 1 : 0;
  }
  process.stdout.write(findings.length > 0 ? `FAIL:\n${findings.map((f) => `  - ${f}`).join('\n')}\n` : 'PASS: no 5xx, no lost request.\n');
  process.exit(exitCode);
}

main().catch((err: unknown) => {
  process.stderr.write(`soak: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
