/**
 * `npm run bench:upload [-- --mb 100 --distinct 5000]`: the dashboard's
 * `Import reviews` upload of a generated file (NDJSON, ~1 KB a review) to the
 * real service in its own process (embedded store), signed in as an Owner
 * with the session cookie, CSRF token and Origin a browser sends, while the
 * server's resident memory is sampled every 100 ms.
 *
 * The file's reviews cycle over `--distinct` external ids, so the store ends
 * up holding only that many reviews (the rest are updates): what the server's
 * memory does then is the upload's own cost, not the data the embedded store
 * keeps in memory by design. A server that buffered the body would grow by the
 * file's size; a streaming one stays flat. Prints the file size, the time, the
 * import's answer and RSS before, at its peak during, and after the upload.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, flag, rssMiB, startServer } from './support.ts';

const MB = flag('mb', 100);
const DISTINCT = flag('distinct', 5000);
const PASSWORD = 'bench password, long enough';

async function writeFile(path: string, bytes: number): Promise<number> {
  const out = createWriteStream(path);
  const words = 'the coffee was fresh and the staff were friendly delivery arrived quickly price fair quality great service slow once but fixed it'.split(' ');
  let written = 0;
  let i = 0;
  while (written < bytes) {
    const content = Array.from({ length: 160 }, (_, k) => words[(i * 7 + k * 13) % words.length]).join(' ');
    const line = `${JSON.stringify({
      platform: ['GOOGLE', 'YELP', 'TRUSTPILOT'][(i % DISTINCT) % 3],
      externalId: `bench-${i % DISTINCT}`,
      authorName: `Customer ${i % DISTINCT}`,
      rating: 1 + (i % 5),
      content: `${content} (${i})`,
      date: new Date(Date.UTC(2025, 0, 1) + (i % 300) * 86_400_000).toISOString(),
      language: 'en',
    })}\n`;
    written += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, 'drain');
    i++;
  }
  out.end();
  await once(out, 'finish');
  return i;
}

interface Answer {
  status: number;
  cookies: string[];
  body: Record<string, unknown>;
}

function send(url: URL, agent: Agent, method: string, headers: Record<string, string | number>, body?: string | NodeJS.ReadableStream): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, servername: 'localhost', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, cookies: (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!), body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
      });
    });
    req.on('error', reject);
    if (body === undefined || typeof body === 'string') req.end(body);
    else body.pipe(req);
  });
}

const dir = mkdtempSync(join(tmpdir(), 'bench-upload-'));
const dataDir = join(dir, 'data');
const file = join(dir, 'reviews.ndjson');
const server = await startServer({ DATA_DIR: dataDir, HTTP_PORT: '0' });
try {
  const records = await writeFile(file, MB * 1024 * 1024);
  const size = statSync(file).size;
  console.log(`file: ${(size / 1024 / 1024).toFixed(1)} MiB, ${records.toLocaleString('en-US')} reviews over ${DISTINCT.toLocaleString('en-US')} distinct ids`);

  const org = await admin(server, 'POST', '/admin/orgs', { name: 'Upload bench', plan: 'growth' });
  await admin(server, 'POST', '/admin/users', { orgId: org.id, email: 'owner@bench.example', role: 'owner', password: PASSWORD });
  const base = new URL(server.baseUrl);
  const origin = `https://localhost:${base.port}`; // PUBLIC_URL's origin (the default)
  const agent = new Agent({ ca: server.ca, keepAlive: true });
  const pre = await send(new URL('/dashboard/api/session', base), agent, 'GET', {});
  const signedIn = await send(new URL('/dashboard/api/sign-in', base), agent, 'POST', { origin, cookie: pre.cookies.join('; '), 'x-csrf-token': String(pre.body.csrfToken), 'content-type': 'application/json' }, JSON.stringify({ email: 'owner@bench.example', password: PASSWORD }));
  if (signedIn.status !== 200) throw new Error(`sign-in: ${signedIn.status} ${JSON.stringify(signedIn.body)}`);
  const headers = { origin, cookie: signedIn.cookies.join('; '), 'x-csrf-token': String(signedIn.body.csrfToken), 'content-type': 'application/x-ndjson' };

  // Warm-up: a small upload of the same ids, so that the store already holds the distinct reviews.
  const warm = join(dir, 'warm.ndjson');
  await writeFileSmall(warm);
  const warmed = await send(new URL('/dashboard/api/reviews/import?format=ndjson', base), agent, 'POST', { ...headers, 'content-length': statSync(warm).size }, createReadStream(warm));
  if (warmed.status !== 200) throw new Error(`warm-up import: ${warmed.status} ${JSON.stringify(warmed.body)}`);
  await new Promise((r) => setTimeout(r, 2000));
  const pid = server.child.pid!;
  const before = rssMiB(pid);
  let peak = before;
  // RSS at each tenth of the file sent: flat means the later tenths cost no more than the first.
  let sent = 0;
  const byTenth: number[] = [];
  const sampler = setInterval(() => {
    const rss = rssMiB(pid);
    peak = Math.max(peak, rss);
    const tenth = Math.min(10, Math.floor((sent / size) * 10));
    byTenth[tenth] = Math.max(byTenth[tenth] ?? 0, rss);
  }, 100);
  const started = performance.now();
  const body = createReadStream(file);
  body.on('data', (chunk) => (sent += chunk.length));
  const answer = await send(new URL('/dashboard/api/reviews/import?format=ndjson', base), agent, 'POST', { ...headers, 'content-length': size }, body);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const after = rssMiB(pid);
  const { rejected: _r, ...summary } = answer.body;
  console.log(`answer: ${answer.status} ${JSON.stringify(summary)}`);
  console.log(`time: ${seconds.toFixed(1)} s (${(size / 1024 / 1024 / seconds).toFixed(2)} MiB/s, ${Math.round(records / seconds).toLocaleString('en-US')} reviews/s)`);
  console.log(`server RSS peak per tenth of the file sent (MiB): ${byTenth.slice(0, 10).map((v) => v ?? '-').join(', ')}`);
  console.log(`server RSS: ${before} MiB before, ${peak} MiB peak during the upload (+${peak - before} MiB for a ${(size / 1024 / 1024).toFixed(0)} MiB body), ${after} MiB after`);
  agent.destroy();
  if (answer.status !== 200) process.exitCode = 1;

  /** The distinct ids once each (~1 KB a review). */
  async function writeFileSmall(path: string): Promise<void> {
    const out = createWriteStream(path);
    for (let i = 0; i < DISTINCT; i++) {
      out.write(`${JSON.stringify({ platform: ['GOOGLE', 'YELP', 'TRUSTPILOT'][i % 3], externalId: `bench-${i}`, authorName: `Customer ${i}`, rating: 1 + (i % 5), content: `Warm-up review ${i}: the coffee was fresh and the staff were friendly.`, date: '2025-01-01T00:00:00Z', language: 'en' })}\n`);
    }
    out.end();
    await once(out, 'finish');
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
