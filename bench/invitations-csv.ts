/**
 * The CSV half of `npm run bench:invitations` (issue 36, point 8): 100,000
 * invitations (distinct addresses, a third of them for a product of the
 * catalog, some with a locale or a sendAt) in one CSV file, uploaded through
 * the dashboard's real route (`POST /dashboard/api/invitations/import`) to
 * the service running as `npm start` runs it (its own process, compiled,
 * embedded store on a temporary DATA_DIR: the default), signed in as an
 * Owner with the session cookie, CSRF token and Origin a browser sends. The
 * time is acceptance end to end: from the first byte sent to the summary
 * received, every invitation stored. Goal: ≤ 10 s.
 *
 *   npx tsx bench/invitations-csv.ts [--count 100000] [--profile DIR]
 *
 * `--profile DIR` writes the service's CPU profile (`--cpu-prof`) into DIR.
 * `benchInvitationsCsv()` is what `npm run bench:invitations` calls; it
 * returns the figures and prints them. It asserts nothing but that every line
 * was accepted (otherwise the figure would be of something else).
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { admin, startServer } from './support.ts';

const PASSWORD = 'bench password, long enough';
/** The issue's goal for 100,000 invitations. */
export const GOAL_SECONDS = 10;

export interface InvitationsCsvFigures {
  invitations: number;
  bytes: number;
  seconds: number;
  perSecond: number;
  goalSeconds: number;
  met: boolean;
  summary: Record<string, unknown>;
}

interface Answer {
  status: number;
  cookies: string[];
  body: Record<string, unknown>;
}

function send(url: URL, agent: Agent, method: string, headers: Record<string, string | number>, body?: string | NodeJS.ReadableStream): Promise<Answer> {
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { method, agent, servername: 'localhost', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolvePromise({ status: res.statusCode ?? 0, cookies: (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!), body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
      });
    });
    req.on('error', reject);
    if (body === undefined || typeof body === 'string') req.end(body);
    else body.pipe(req);
  });
}

const PRODUCTS = 20;
const LOCALES = ['', 'en', 'de', 'fr', 'pt-BR'];

/** The file: `count` distinct addresses, each its own order; a third name a product, some a locale or a sendAt. */
async function writeCsv(path: string, count: number): Promise<void> {
  const out = createWriteStream(path);
  const sendAt = new Date(Date.now() + 2 * 86_400_000).toISOString();
  out.write('email,name,productId,orderRef,locale,sendAt\n');
  let buffered = '';
  for (let i = 0; i < count; i++) {
    const name = i % 10 === 0 ? `"Customer ${i}, Jr."` : `Customer ${i}`;
    buffered += `customer${i}@bench-shop.test,${name},${i % 3 === 0 ? `P-${i % PRODUCTS}` : ''},ORD-${100000 + i},${LOCALES[i % LOCALES.length]},${i % 4 === 0 ? sendAt : ''}\n`;
    if (buffered.length > 64 * 1024) {
      if (!out.write(buffered)) await once(out, 'drain');
      buffered = '';
    }
  }
  out.end(buffered);
  await once(out, 'finish');
}

export async function benchInvitationsCsv(options: { count?: number; profileDir?: string; log?: (line: string) => void } = {}): Promise<InvitationsCsvFigures> {
  const count = options.count ?? 100_000;
  const log = options.log ?? ((line: string) => console.log(line));
  const dir = mkdtempSync(join(tmpdir(), 'bench-invitations-csv-'));
  const file = join(dir, 'invitations.csv');
  const nodeFlags = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(options.profileDir)}`] : [];
  const server = await startServer({ DATA_DIR: join(dir, 'data'), HTTP_PORT: '0' }, nodeFlags);
  const agent = new Agent({ ca: server.ca, keepAlive: true });
  try {
    await writeCsv(file, count);
    const bytes = statSync(file).size;
    const org = await admin(server, 'POST', '/admin/orgs', { name: 'Invitations bench', plan: 'growth' });
    await admin(server, 'POST', '/admin/users', { orgId: org.id, email: 'owner@bench.example', role: 'owner', password: PASSWORD });
    const base = new URL(server.baseUrl);
    const origin = `https://localhost:${base.port}`; // PUBLIC_URL's origin (the default)
    const pre = await send(new URL('/dashboard/api/session', base), agent, 'GET', {});
    const signedIn = await send(new URL('/dashboard/api/sign-in', base), agent, 'POST', { origin, cookie: pre.cookies.join('; '), 'x-csrf-token': String(pre.body.csrfToken), 'content-type': 'application/json' }, JSON.stringify({ email: 'owner@bench.example', password: PASSWORD }));
    if (signedIn.status !== 200) throw new Error(`sign-in: ${signedIn.status} ${JSON.stringify(signedIn.body)}`);
    const headers = { origin, cookie: signedIn.cookies.join('; '), 'x-csrf-token': String(signedIn.body.csrfToken) };
    for (let p = 0; p < PRODUCTS; p++) {
      const made = await send(new URL('/dashboard/api/products', base), agent, 'POST', { ...headers, 'content-type': 'application/json' }, JSON.stringify({ id: `P-${p}`, name: `Product ${p}` }));
      if (made.status !== 201) throw new Error(`product: ${made.status} ${JSON.stringify(made.body)}`);
    }

    const started = performance.now();
    const answer = await send(new URL('/dashboard/api/invitations/import?format=csv', base), agent, 'POST', { ...headers, 'content-type': 'text/csv', 'content-length': bytes }, createReadStream(file));
    const seconds = (performance.now() - started) / 1000;
    const { rejected, skipped, ...summary } = answer.body;
    if (answer.status !== 200 || summary.created !== count) throw new Error(`the upload did not accept every line: ${answer.status} ${JSON.stringify({ ...summary, rejected: (rejected as unknown[] | undefined)?.slice(0, 3), skipped: (skipped as unknown[] | undefined)?.slice(0, 3) })}`);
    const stored = await admin(server, 'GET', `/admin/invitations?orgId=${String(org.id)}&limit=1`);
    if (stored.total !== count) throw new Error(`${String(stored.total)} invitations stored, ${count} expected`);
    const perSecond = count / seconds;
    const figures: InvitationsCsvFigures = { invitations: count, bytes, seconds, perSecond, goalSeconds: GOAL_SECONDS, met: seconds <= GOAL_SECONDS * (count / 100_000), summary };
    log(`invitations CSV upload: ${count.toLocaleString('en-US')} invitations (${(bytes / 1024 / 1024).toFixed(1)} MiB) through POST /dashboard/api/invitations/import, embedded store`);
    log(`  accepted in ${seconds.toFixed(2)} s = ${Math.round(perSecond).toLocaleString('en-US')} invitations/s (goal: 100,000 in ≤ ${GOAL_SECONDS} s: ${figures.met ? 'met' : 'MISSED'})`);
    log(`  answer: ${JSON.stringify(summary)}`);
    return figures;
  } finally {
    agent.destroy();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(`--${name}`);
    return i === -1 ? undefined : process.argv[i + 1];
  };
  const count = arg('count') === undefined ? undefined : Number(arg('count'));
  if (count !== undefined && !(Number.isInteger(count) && count > 0)) throw new Error('--count takes a positive whole number');
  const figures = await benchInvitationsCsv({ ...(count !== undefined && { count }), ...(arg('profile') !== undefined && { profileDir: arg('profile')! }) });
  if (!figures.met) process.exitCode = 1;
}
