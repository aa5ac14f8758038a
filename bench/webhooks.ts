/**
 * `npm run bench:webhooks [-- --rate 500 --seconds 60 --warmup 10 --endpoints 4 --reviews 100000 --drain 120 --poll-ms 1000 --part 1|2 --profile DIR]` (issue 27).
 * `--part` runs only that part (both when absent); `--profile` writes each
 * service process's CPU profile (`--cpu-prof`) into DIR, for Chrome DevTools.
 *
 * The service runs as `npm start` runs it (bench/support.ts `startServer`:
 * compiled, its own process, embedded store on a temporary DATA_DIR, no
 * Redis, so the dispatcher's work runs in process; WEBHOOK_POLL_MS at its
 * default unless `--poll-ms` is given), with
 * WEBHOOK_ALLOW_NETWORKS=127.0.0.1/32 and the receivers' certificate trusted
 * through NODE_EXTRA_CA_CERTS, as api/webhooks/webhooks.test.ts does. The
 * receivers are lean HTTPS servers on loopback in this process (answering 200
 * at once, keeping only the arrival time of each event), so that the bench
 * client and the receivers share one event loop and one clock.
 * 1. Sustained rate: `--endpoints` endpoints subscribed in one organization;
 *    new reviews sent through the admin import API at `--rate` changes per
 *    second for `--seconds` (one import call in flight at a time, carrying
 *    every change due by then), after `--warmup` seconds of the same load
 *    whose deliveries are all in before the measured window starts (their
 *    latency printed apart: a fresh process starts its enrichment workers with
 *    its first import). Each delivery's latency is the time from the
 *    answer of the import call that carried its review (the change's
 *    acknowledgement) to its arrival at the receiver, matched by the event's
 *    `data.authorName` (unique per review here: events carry the review's
 *    service id, which the import's answer does not give, and no externalId).
 *    Deliveries still undelivered at the end are not in the percentiles. Prints p50/p95/p99/max, the
 *    deliveries/s achieved, the backlog when sending stops and the service's
 *    RSS every 5 s; then waits up to `--drain` seconds for the backlog.
 * 2. Import overhead: `--reviews` generated reviews imported (one admin import
 *    call, enrichment included, as bench/run.ts) into an organization with no
 *    endpoint and into one with one subscribed endpoint, each on a fresh
 *    service, in the order none, one, one, none; reviews/s of each and the
 *    difference; for the imports with an endpoint, also how long after the
 *    import's answer all its events were delivered (up to `--drain` seconds:
 *    a bulk import's deliveries wait for it, api/jobs/bulk-imports.ts).
 * It prints figures; it asserts nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { testCert, type TestCert } from '../api/webhooks/test-receiver.ts';
import { admin, cpuSeconds, flag, rssMiB, startServer, type ServerProcess } from './support.ts';

const RATE = flag('rate', 500);
const SECONDS = flag('seconds', 60);
const ENDPOINTS = flag('endpoints', 4);
const REVIEWS = flag('reviews', 100_000);
const DRAIN_S = flag('drain', 120);
/** Seconds of the same load before the measured window (0: none). */
const WARMUP = (() => {
  const i = process.argv.indexOf('--warmup');
  const value = i === -1 ? 10 : Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value < 0) throw new Error('--warmup takes a number of seconds, 0 or more');
  return value;
})();
/** WEBHOOK_POLL_MS for the service; the service's default (1 s) unless given. */
const POLL: Record<string, string> = process.argv.includes('--poll-ms') ? { WEBHOOK_POLL_MS: String(flag('poll-ms', 1000)) } : {};
const RSS_EVERY_MS = 5000;
const PART = process.argv.includes('--part') ? flag('part', 1) : 0;
const PROFILE_AT = process.argv.indexOf('--profile');
const PROFILE_FLAGS = PROFILE_AT === -1 ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.argv[PROFILE_AT + 1] ?? '.'}`];
const WORDS = 'great friendly fast coffee service staff quality price support helpful recommend again slow cold warm cozy team product delivery easy'.split(' ');

/** One review record of the import format; `i` makes it (and its event: the author's name, as events carry no externalId) unique. */
function record(prefix: string, i: number): string {
  const words = Array.from({ length: 8 + (i % 30) }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]).join(' ');
  return JSON.stringify({ platform: 'GOOGLE', externalId: `${prefix}-${i}`, authorName: `${prefix}-${i}`, rating: 1 + (i % 5), content: words, date: '2026-10-01T10:00:00Z' });
}

/** Records streamed as NDJSON, never all in memory. */
function recordStream(prefix: string, n: number): Readable {
  let i = 0;
  return new Readable({
    read() {
      const lines: string[] = [];
      for (let k = 0; k < 2000 && i < n; k++, i++) lines.push(record(prefix, i));
      this.push(lines.length ? `${lines.join('\n')}\n` : null);
    },
  });
}

function importCall(server: ServerProcess, orgId: string, body: Readable | string): Promise<{ imported: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.adminUrl}/admin/orgs/${orgId}/reviews?format=ndjson`, { method: 'POST', headers: { authorization: `Bearer ${server.adminToken}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text) as { imported: number }) : reject(new Error(`import: ${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    if (typeof body === 'string') req.end(body);
    else body.pipe(req);
  });
}

interface LeanReceiver {
  url: string;
  count: number;
  /** TLS connections it accepted (keep-alive: a handful, not one per delivery). */
  connections: number;
  close(): Promise<void>;
}

/** An HTTPS receiver answering 200 at once; `onEvent` gets the event's key (`data.authorName`) and the arrival time. */
async function leanReceiver(cert: TestCert, onEvent: (key: string, at: number) => void): Promise<LeanReceiver> {
  const server: Server = createServer({ cert: cert.cert, key: cert.key, keepAliveTimeout: 60_000 });
  const r: LeanReceiver = {
    url: '',
    count: 0,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('secureConnection', () => r.connections++);
  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      r.count++;
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { authorName?: string } };
      if (typeof event.data?.authorName === 'string') onEvent(event.data.authorName, at);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  r.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return r;
}

async function startService(caFile: string, extra: Record<string, string> = {}): Promise<{ server: ServerProcess; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-data-'));
  const server = await startServer({ DATA_DIR: dataDir, HTTP_PORT: '0', WEBHOOK_ALLOW_NETWORKS: '127.0.0.1/32', NODE_EXTRA_CA_CERTS: caFile, ...POLL, ...extra }, PROFILE_FLAGS);
  return { server, dataDir };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

const cert = await testCert();
const caDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-ca-'));
const caFile = join(caDir, 'receiver.pem');
writeFileSync(caFile, cert.cert);
console.log(`Load average at start: ${loadavg().map((n) => n.toFixed(2)).join(', ')}; WEBHOOK_POLL_MS ${POLL.WEBHOOK_POLL_MS ?? 'default (1000)'}`);

// 1. Sustained rate.
if (PART === 0 || PART === 1) {
  /** One sending phase: its changes' acknowledgement times and the latencies of their deliveries. */
  interface Phase {
    ackAt: Map<string, number>;
    /** Arrival times of events whose import has not answered yet (the dispatcher may be faster than the answer). */
    early: Map<string, number[]>;
    latencies: number[];
    beforeAck: number;
  }
  const newPhase = (): Phase => ({ ackAt: new Map(), early: new Map(), latencies: [], beforeAck: 0 });
  const phases: Record<string, Phase> = { warm: newPhase(), live: newPhase() };
  const onEvent = (key: string, at: number) => {
    const phase = phases[key.slice(0, key.indexOf('-'))];
    if (!phase) return;
    const acked = phase.ackAt.get(key);
    if (acked === undefined) {
      const list = phase.early.get(key);
      if (list) list.push(at);
      else phase.early.set(key, [at]);
      return;
    }
    phase.latencies.push(at - acked);
  };
  const receivers = await Promise.all(Array.from({ length: ENDPOINTS }, () => leanReceiver(cert, onEvent)));
  const { server, dataDir } = await startService(caFile);
  const pid = server.child.pid!;
  const received = () => receivers.reduce((n, r) => n + r.count, 0);
  /** Sends `prefix` changes at RATE for `seconds`, one import call in flight at a time; answers what was acknowledged. */
  const send = async (orgId: string, prefix: 'warm' | 'live', seconds: number): Promise<{ acked: number; calls: number; sendSeconds: number }> => {
    const phase = phases[prefix]!;
    let sent = 0;
    let acked = 0;
    let calls = 0;
    const started = performance.now();
    const endAt = started + seconds * 1000;
    while (performance.now() < endAt) {
      const due = Math.min(RATE * seconds, Math.floor(((performance.now() - started) / 1000) * RATE));
      if (due <= sent) {
        await sleep(Math.max(1, Math.ceil(((sent + 1) / RATE) * 1000 - (performance.now() - started))));
        continue;
      }
      const ids: string[] = [];
      const lines: string[] = [];
      for (let i = sent; i < due; i++) {
        ids.push(`${prefix}-${i}`);
        lines.push(record(prefix, i));
      }
      sent = due;
      const summary = await importCall(server, orgId, `${lines.join('\n')}\n`);
      const at = performance.now();
      calls++;
      if (summary.imported !== ids.length) throw new Error(`imported ${summary.imported} of ${ids.length}`);
      for (const id of ids) {
        phase.ackAt.set(id, at);
        const arrived = phase.early.get(id);
        if (arrived) {
          phase.early.delete(id);
          for (const t of arrived) {
            phase.beforeAck++;
            phase.latencies.push(t - at);
          }
        }
      }
      acked += ids.length;
    }
    return { acked, calls, sendSeconds: (performance.now() - started) / 1000 };
  };
  /** Waits up to `seconds` for `expected` deliveries in all; answers the seconds waited. */
  const drain = async (expected: number, seconds: number): Promise<number> => {
    const start = performance.now();
    while (received() < expected && performance.now() - start < seconds * 1000) await sleep(100);
    return (performance.now() - start) / 1000;
  };
  const figures = (latencies: number[]) => {
    const sorted = Float64Array.from(latencies).sort();
    return `p50 ${ms(percentile(sorted, 50))}, p95 ${ms(percentile(sorted, 95))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted.at(-1) ?? NaN)}`;
  };
  try {
    const org = await admin(server, 'POST', '/admin/orgs', { name: 'Webhooks bench', plan: 'growth', rateLimit: 10_000_000 });
    const orgId = org.id as string;
    for (const r of receivers) await admin(server, 'POST', '/admin/webhooks', { orgId, url: r.url, events: ['review.created', 'review.updated', 'review.removed'] });
    console.log(`\n1. Sustained rate: target ${RATE} changes/s × ${ENDPOINTS} endpoints = ${RATE * ENDPOINTS} deliveries/s for ${SECONDS} s`);
    // Warm-up: the same load for WARMUP seconds before the measured window (a fresh process starts its enrichment
    // workers with its first import and compiles its hot paths), then every warm-up delivery in.
    if (WARMUP > 0) {
      const warm = await send(orgId, 'warm', WARMUP);
      const drained = await drain(warm.acked * ENDPOINTS, DRAIN_S);
      console.log(`  warm-up (not in the figures below): ${warm.acked} changes over ${warm.sendSeconds.toFixed(1)} s, ${received()} of ${warm.acked * ENDPOINTS} deliveries in after ${drained.toFixed(1)} s more; latency ${figures(phases.warm!.latencies)}`);
    }
    const base = received();
    const rss: { s: number; mib: number; backlog: number }[] = [];
    const started = performance.now();
    const rssTimer = setInterval(
      () => rss.push({ s: Math.round((performance.now() - started) / 1000), mib: rssMiB(pid), backlog: phases.live!.ackAt.size * ENDPOINTS - (received() - base) }),
      RSS_EVERY_MS,
    );
    rss.push({ s: 0, mib: rssMiB(pid), backlog: 0 });
    const { acked, calls, sendSeconds } = await send(orgId, 'live', SECONDS);
    const receivedAtStop = received() - base;
    const expected = acked * ENDPOINTS;
    const backlogAtStop = expected - receivedAtStop;
    const drainSeconds = await drain(base + expected, DRAIN_S);
    clearInterval(rssTimer);
    rss.push({ s: Math.round((performance.now() - started) / 1000), mib: rssMiB(pid), backlog: expected - (received() - base) });
    const live = phases.live!;
    console.log(`  sent ${acked} changes in ${calls} import calls over ${sendSeconds.toFixed(1)} s = ${Math.round(acked / sendSeconds)} changes/s acknowledged`);
    console.log(`  deliveries received while sending: ${receivedAtStop} of ${expected} = ${Math.round(receivedAtStop / sendSeconds)} deliveries/s achieved`);
    console.log(`  backlog when sending stopped: ${backlogAtStop} deliveries; ${expected - (received() - base)} left after ${drainSeconds.toFixed(1)} s of draining (at most ${DRAIN_S} s)`);
    console.log(`  TLS connections the receivers accepted (warm-up included): ${receivers.reduce((n, r) => n + r.connections, 0)}`);
    console.log(`  overall: ${received() - base} deliveries in ${(sendSeconds + drainSeconds).toFixed(1)} s = ${Math.round((received() - base) / (sendSeconds + drainSeconds))} deliveries/s`);
    console.log(`  latency, acknowledgement → receiver's 200, over ${live.latencies.length} deliveries (${live.beforeAck} arrived before their import call answered, counted negative):`);
    console.log(`    ${figures(live.latencies)} (target p50 ≤ 50 ms, p99 ≤ 500 ms)`);
    console.log(`  service RSS (MiB) and backlog every ${RSS_EVERY_MS / 1000} s: ${rss.map((x) => `${x.s}s ${x.mib} MiB/${x.backlog}`).join(', ')}`);
  } finally {
    await server.stop();
    await Promise.all(receivers.map((r) => r.close()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// 2. Import overhead: the same import into an organization without and with one subscribed endpoint,
// each on a fresh service, in the order none, one, one, none, so that a drift of the shared machine's
// load during the run weighs on both alike.
if (PART === 0 || PART === 2) {
  const runs: { hooked: boolean; rate: number; seconds: number; cpu: number; delivered: number; rssMiB: number; load: number; after: { seconds: number; delivered: number } | null }[] = [];
  for (const hooked of [false, true, true, false]) {
    const receiver = await leanReceiver(cert, () => undefined);
    const { server, dataDir } = await startService(caFile);
    try {
      const org = await admin(server, 'POST', '/admin/orgs', { name: 'Import bench', plan: 'growth', rateLimit: 10_000_000 });
      if (hooked) await admin(server, 'POST', '/admin/webhooks', { orgId: org.id, url: receiver.url });
      const t0 = performance.now();
      const cpu0 = cpuSeconds(server.child.pid!);
      const summary = await importCall(server, org.id as string, recordStream('import', REVIEWS));
      const seconds = (performance.now() - t0) / 1000;
      const cpu = cpuSeconds(server.child.pid!) - cpu0;
      if (summary.imported !== REVIEWS) throw new Error(`imported ${summary.imported} of ${REVIEWS}`);
      const delivered = receiver.count;
      const rss = rssMiB(server.child.pid!);
      const load = loadavg()[0]!;
      // Then every event of the import delivered (up to --drain seconds): how long after the import's answer.
      let after: { seconds: number; delivered: number } | null = null;
      if (hooked) {
        const t1 = performance.now();
        while (receiver.count < REVIEWS && performance.now() - t1 < DRAIN_S * 1000) await sleep(100);
        after = { seconds: (performance.now() - t1) / 1000, delivered: receiver.count };
      }
      runs.push({ hooked, rate: REVIEWS / seconds, seconds, cpu, delivered, rssMiB: rss, load, after });
    } finally {
      await server.stop();
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  console.log(`\n2. Import overhead: ${REVIEWS} reviews through the admin import API, enrichment included, each on a fresh service, in the order none, one, one, none`);
  for (const r of runs) {
    const label = r.hooked ? 'one endpoint' : 'no endpoint';
    const after = r.after === null ? '' : `; ${r.after.delivered} of ${REVIEWS} events delivered ${r.after.seconds.toFixed(1)} s after it answered (${Math.round((r.after.delivered - r.delivered) / r.after.seconds)} deliveries/s)`;
    console.log(`  ${label.padEnd(13)} ${Math.round(r.rate)} reviews/s (${r.seconds.toFixed(1)} s; the service used ${r.cpu.toFixed(1)} s of CPU), RSS after ${r.rssMiB} MiB, load ${r.load.toFixed(2)}${r.hooked ? `, ${r.delivered} deliveries received by the import's end${after}` : ''}`);
  }
  // Reviews/s over both imports of a kind: total reviews over total seconds.
  const rateOf = (hooked: boolean) => {
    const mine = runs.filter((r) => r.hooked === hooked);
    return (mine.length * REVIEWS) / mine.reduce((t, r) => t + r.seconds, 0);
  };
  const none = rateOf(false);
  const one = rateOf(true);
  console.log(`  no endpoint ${Math.round(none)} reviews/s, one endpoint ${Math.round(one)} reviews/s (both imports of each): difference ${(((one - none) / none) * 100).toFixed(1)}% (target: within 15%)`);
}
console.log(`\nLoad average at end: ${loadavg().map((n) => n.toFixed(2)).join(', ')}`);
rmSync(caDir, { recursive: true, force: true });
