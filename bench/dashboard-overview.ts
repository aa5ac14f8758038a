/**
 * `npm run bench:overview [-- --reviews 1000000 --requests 300]`
 * `npm run bench:overview -- --replied 0.5`: that share of the Google and
 * Trustpilot reviews carry a reply (so the Overview's reply figures read
 * replied reviews; none by default).
 * `npm run bench:overview -- --store mongo [--reviews 2000]`: the MongoDB store
 * on a FerretDB 1.24 (SQLite) started here; FerretDB scans a collection for
 * every query but a lone `_id` lookup, so keep N small (not MongoDB's speed).
 *
 * The Overview's data endpoint at scale, on the embedded store: starts the
 * compiled service on a fresh DATA_DIR, imports N reviews into one
 * organization through the admin import API (the records carry their AI
 * fields, so the import measures storage, not enrichment), signs a person in,
 * then times GET /dashboard/api/overview (statistics + 12 months by platform +
 * widget and member counts) request after request on one keep-alive
 * connection; GET /dashboard/api/session (the session checks alone) and
 * GET /api/v1/reviews/stats the same way for comparison; then all three again.
 * Prints p50/p90/p99/max in ms and the machine's load average (the figures
 * mean little on a busy machine: say so with them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { request as httpRequest } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { findFerretdb, INSTALL_HINT, startFerretdb, type RunningFerretdb } from '../api/test/ferretdb.ts';
import { admin, flag, rssMiB, startServer } from './support.ts';

const ON_MONGO = process.argv.includes('mongo') && process.argv.includes('--store');
const REVIEWS = flag('reviews', ON_MONGO ? 2000 : 1_000_000);
const REQUESTS = flag('requests', 300);
/** The share of Google and Trustpilot reviews with a reply (`--replied 0.5`); 0 by default, so the default data set is as before. */
const REPLIED = process.argv.includes('--replied') ? flag('replied', 0.5) : 0;
const PLATFORMS = ['GOOGLE', 'YELP', 'TRUSTPILOT', 'G2', 'CAPTERRA', 'FACEBOOK'];
const DAY = 86_400_000;
const PASSWORD = 'bench password, long enough';

/** Deterministic reviews over the last 3 years, with every AI field present (the import keeps them). */
function reviewStream(n: number): Readable {
  let i = 0;
  let seed = 7;
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
        const rating = platform === 'FACEBOOK' && rnd() < 0.7 ? null : 1 + Math.floor(rnd() * 5);
        const sentiment = Math.round(rnd() * 1000) / 1000;
        const date = now - Math.floor(rnd() * rnd() * 3 * 365 * DAY);
        // Drawn only with --replied, so that the default data set stays the one measured before.
        const replied = REPLIED > 0 && (platform === 'GOOGLE' || platform === 'TRUSTPILOT') && rnd() < REPLIED;
        lines.push(
          JSON.stringify({
            platform,
            externalId: `ov-${i}`,
            authorName: `Reviewer ${i}`,
            authorAvatar: null,
            rating,
            content: 'Friendly staff and quick service.',
            date: new Date(date).toISOString(),
            url: null,
            language: 'en',
            isVerified: rnd() < 0.5,
            sentiment,
            sentimentLabel: sentiment >= 0.6 ? 'POSITIVE' : sentiment <= 0.4 ? 'NEGATIVE' : 'NEUTRAL',
            aiSummary: 'Friendly staff and quick service.',
            aiThemes: ['staff', 'service'],
            ...(replied && { replyText: 'Thank you for the kind words!', replyDate: new Date(Math.min(now, date + Math.floor(rnd() * 3 * DAY))).toISOString() }),
          }),
        );
      }
      this.push(lines.length ? `${lines.join('\n')}\n` : null);
    },
  });
}

function upload(adminUrl: string, token: string, orgId: string, body: Readable): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${adminUrl}/admin/orgs/${orgId}/reviews?format=ndjson`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text) as Record<string, unknown>) : reject(new Error(text))));
    });
    req.on('error', reject);
    body.pipe(req);
  });
}

interface Answer {
  status: number;
  body: string;
  setCookie: string[];
}

function send(agent: Agent, base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, agent, servername: 'localhost', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, setCookie: res.headers['set-cookie'] ?? [] }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function time(label: string, run: () => Promise<Answer>): Promise<void> {
  for (let i = 0; i < 20; i++) await run(); // warm-up, thrown away
  const ms: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = process.hrtime.bigint();
    const res = await run();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (res.status !== 200) throw new Error(`${label}: ${res.status} ${res.body}`);
  }
  ms.sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(2).padStart(8);
  console.log(`${label.padEnd(34)}${f(percentile(ms, 50))}${f(percentile(ms, 90))}${f(percentile(ms, 99))}${f(ms.at(-1)!)}`);
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-overview-'));
let ferret: RunningFerretdb | null = null;
if (ON_MONGO) {
  const found = findFerretdb();
  if (found.bin === null) throw new Error(`FerretDB not found (${found.looked.join(', ')}): ${INSTALL_HINT}`);
  ferret = await startFerretdb(found.bin);
}
console.log(`store: ${ferret ? 'MongoDB store on FerretDB 1.24 (SQLite)' : 'embedded'}`);
const server = await startServer({ DATA_DIR: dataDir, ...(ferret && { MONGODB_URL: `${ferret.url}bench_overview` }) });
try {
  const org = await admin(server, 'POST', '/admin/orgs', { name: 'Bench', plan: 'agency', rateLimit: 10_000_000 });
  const orgId = org.id as string;
  const key = (await admin(server, 'POST', '/admin/keys', { orgId, name: 'bench' })).key as string;
  await admin(server, 'POST', '/admin/users', { orgId, email: 'owner@bench.example', role: 'owner', password: PASSWORD });
  console.log(`importing ${REVIEWS.toLocaleString('en-US')} reviews…`);
  const started = process.hrtime.bigint();
  const summary = await upload(server.adminUrl, server.adminToken, orgId, reviewStream(REVIEWS));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (summary.imported !== REVIEWS) throw new Error(`imported ${String(summary.imported)} of ${REVIEWS}: ${JSON.stringify(summary).slice(0, 500)}`);
  console.log(`imported in ${seconds.toFixed(1)} s (${Math.round(REVIEWS / seconds).toLocaleString('en-US')} reviews/s); server RSS ${rssMiB(server.child.pid!)} MiB`);

  // Sign in as a browser would: the CSRF cookie and token, our own Origin (PUBLIC_URL's default).
  const agent = new Agent({ ca: server.ca, keepAlive: true, maxSockets: 1 });
  const origin = `https://localhost:${new URL(server.baseUrl).port}`;
  const session = await send(agent, server.baseUrl, 'GET', '/dashboard/api/session', {});
  const csrfCookie = session.setCookie.map((c) => c.split(';')[0]!).join('; ');
  const csrf = (JSON.parse(session.body) as { csrfToken: string }).csrfToken;
  const signIn = await send(agent, server.baseUrl, 'POST', '/dashboard/api/sign-in', { cookie: csrfCookie, origin, 'x-csrf-token': csrf, 'content-type': 'application/json' }, JSON.stringify({ email: 'owner@bench.example', password: PASSWORD }));
  if (signIn.status !== 200) throw new Error(`sign-in: ${signIn.status} ${signIn.body}`);
  const cookie = signIn.setCookie.map((c) => c.split(';')[0]!).join('; ');

  const overview = JSON.parse((await send(agent, server.baseUrl, 'GET', '/dashboard/api/overview', { cookie })).body) as { totalReviews: number; months: { count: number }[]; replies: { platforms: { platform: string; received: number; replied: number }[] } };
  if (overview.totalReviews !== REVIEWS) throw new Error(`the overview counts ${overview.totalReviews}`);
  console.log(`overview: ${overview.totalReviews.toLocaleString('en-US')} reviews, ${overview.months.reduce((n, m) => n + m.count, 0).toLocaleString('en-US')} in the last 12 months`);
  console.log(`replies (last 90 days): ${overview.replies.platforms.map((p) => `${p.platform} ${p.replied.toLocaleString('en-US')} of ${p.received.toLocaleString('en-US')}`).join(', ') || 'none'}`);
  console.log(`\n${REQUESTS} sequential requests on one keep-alive connection, after 20 thrown away; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${(await import('node:os')).cpus().length} cores`);
  console.log(`${'request'.padEnd(34)}${'p50'.padStart(8)}${'p90'.padStart(8)}${'p99'.padStart(8)}${'max'.padStart(8)}  (ms)`);
  // Two rounds: the first one after a large import also pays for the garbage the import left (major GCs of a large heap).
  for (const round of [1, 2]) {
    await time(`GET /dashboard/api/overview (${round})`, () => send(agent, server.baseUrl, 'GET', '/dashboard/api/overview', { cookie }));
    await time(`GET /dashboard/api/session (${round})`, () => send(agent, server.baseUrl, 'GET', '/dashboard/api/session', { cookie }));
    await time(`GET /api/v1/reviews/stats (${round})`, () => send(agent, server.baseUrl, 'GET', '/api/v1/reviews/stats', { authorization: `Bearer ${key}` }));
  }
  console.log(`load average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  agent.destroy();
} finally {
  await server.stop();
  await ferret?.stop();
  for (const dir of [dataDir, ferret?.dir]) if (dir) rmSync(dir, { recursive: true, force: true });
}
