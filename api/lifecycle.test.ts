/**
 * The service as a process (compiled, as `npm start` runs it): first-run output, validated
 * configuration, restart keeping data, kill -9 keeping acknowledged writes,
 * and SIGTERM finishing in-flight work and exiting 0 within 10 s.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from './build.ts';
import { freePorts } from './test/global-setup.ts';
import { httpsGet } from '../bench/support.ts';

/** The compiled service, as `npm start` runs it: the build is tested here so that it cannot rot. */
let MAIN = '';
beforeAll(async () => {
  MAIN = await buildApi();
}, 60_000);
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  // A failed assertion must not leave a server running.
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  env: Record<string, string>;
  exit: Promise<number | null>;
}

async function env(dataDir?: string): Promise<Record<string, string>> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'lifecycle-'));
  if (!dataDir) dirs.push(dir);
  const [port, httpPort, adminPort] = await freePorts(3);
  return {
    DATA_DIR: dir,
    PORT: String(port),
    HTTP_PORT: String(httpPort),
    ADMIN_PORT: String(adminPort),
    LOG_LEVEL: 'warn',
    REDIS_URL: '',
    MONGODB_URL: '',
    ADMIN_TOKEN: '',
  };
}

/** `wrapper` runs the server under another program (e.g. `unshare` for its own PID namespace). */
function start(e: Record<string, string>, waitFor: string | null = 'Demo page:', wrapper: string[] = []): Promise<Running> {
  const command = [...wrapper, process.execPath, MAIN];
  const child = spawn(command[0]!, command.slice(1), { env: { ...process.env, ...e }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    const running: Running = { child, stdout: () => out, stderr: () => err, env: e, exit };
    if (waitFor === null) return resolve(running);
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes(waitFor)) setTimeout(() => resolve(running), 50);
    });
    void exit.then((code) => reject(new Error(`exited with ${code}: ${err}`)));
  });
}

const ca = (e: Record<string, string>) => readFileSync(join(e.DATA_DIR!, 'tls-cert.pem'), 'utf8');

describe('service lifecycle', () => {
  it('first start prints the base URL, the demo key once, the widget id and the demo page; the key works; a restart keeps the data', async () => {
    const e = await env();
    const first = await start(e);
    const out = first.stdout();
    expect(out).toContain(`https://127.0.0.1:${e.PORT}`);
    const key = /Demo API key:\s+(rvp_live_\S+)/.exec(out)?.[1];
    const widgetId = /Demo widgets:\s+(wdg_[0-9A-Za-z_-]+)/.exec(out)?.[1];
    expect(key).toBeDefined();
    expect(widgetId).toBeDefined();
    expect(out).toMatch(/Demo page:\s+https:\/\/localhost:\d+\/demo/);
    // Every port, with the variable that sets it; the curl line checks the certificate, as the README's does.
    expect(out).toContain(`HTTPS port:     ${e.PORT} (PORT)`);
    expect(out).toContain(`HTTP port:      ${e.HTTP_PORT} (HTTP_PORT)`);
    expect(out).toContain(`Admin API:      http://127.0.0.1:${e.ADMIN_PORT} (ADMIN_PORT`);
    expect(out).toMatch(/Try: curl --cacert \S+tls-cert\.pem -H "Authorization: Bearer rvp_live_/);
    expect(out).not.toMatch(/curl -k/);

    const stats = await httpsGet(`https://127.0.0.1:${e.PORT}/api/v1/reviews/stats`, ca(e), { authorization: `Bearer ${key}` });
    expect(stats.status).toBe(200);
    const data = (JSON.parse(stats.body.toString()) as { data: { totalReviews: number; platforms: unknown[] } }).data;
    expect(data.totalReviews).toBeGreaterThanOrEqual(200);
    // The six platforms of the demo's imported reviews, and DIRECT: reviews the demo organization collected itself.
    expect(data.platforms.map((p) => (p as { platform: string }).platform).sort()).toEqual(['CAPTERRA', 'DIRECT', 'FACEBOOK', 'G2', 'GOOGLE', 'TRUSTPILOT', 'YELP']);

    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);

    const second = await start(e);
    expect(second.stdout()).not.toMatch(/rvp_live_/);
    expect(second.stdout()).toContain(widgetId!);
    const again = await httpsGet(`https://127.0.0.1:${e.PORT}/api/v1/reviews/stats`, ca(e), { authorization: `Bearer ${key}` });
    expect(JSON.parse(again.body.toString())).toEqual(JSON.parse(stats.body.toString()));
    second.child.kill('SIGTERM');
    expect(await second.exit).toBe(0);
  }, 90_000);

  it.each([
    ['PORT', 'https'],
    ['HTTP_PORT', '-1'],
    ['TRUST_PROXY', 'maybe'],
    ['PUBLIC_URL', 'http://insecure.example'],
    ['REDIS_URL', 'not a url'],
    ['ADMIN_TOKEN', 'short'],
    ['LOG_FORMAT', 'yaml'],
    ['SMTP_RATE_PER_MINUTE', 'fast'],
    ['SMTP_FROM', 'Shop <not an address>'],
  ])('refuses to start when %s=%s, naming the variable', async (name, value) => {
    const e = { ...(await env()), [name]: value };
    const run = await start(e, null);
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toContain(name);
  }, 90_000);

  it.each(['PORT', 'HTTP_PORT', 'ADMIN_PORT'])('names %s when its port is already taken, and exits 1', async (name) => {
    const e = await env();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(Number(e[name]), '127.0.0.1', resolve));
    try {
      const run = await start(e, null);
      expect(await run.exit).toBe(1);
      const message = run.stderr().trim().split('\n').find((line) => line.startsWith('Failed to start:'));
      expect(message).toMatch(new RegExp(`^Failed to start: ${name}: .*127\\.0\\.0\\.1:${e[name]} is already in use .*${name}=`));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 90_000);

  it('logs readable lines with LOG_FORMAT=pretty, and one JSON object a line when stdout is no terminal', async () => {
    const e: Record<string, string> = { ...(await env()), LOG_LEVEL: 'info' };
    const requestLine = (out: string) => out.split('\n').find((line) => line.includes('/api/v1/no-such-thing'));

    const pretty = await start({ ...e, LOG_FORMAT: 'pretty' });
    expect((await httpsGet(`https://127.0.0.1:${e.PORT}/api/v1/no-such-thing`, ca(e))).status).toBe(404);
    await expect.poll(() => requestLine(pretty.stdout()), { timeout: 10_000 }).toBeDefined();
    expect(requestLine(pretty.stdout())).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  request GET \/api\/v1\/no-such-thing 404 [\d.]+ ms requestId=[\w-]+/);
    // No JSON anywhere: the lines before the banner (the certificate made on first start) are readable too.
    const before = pretty.stdout().slice(0, pretty.stdout().indexOf('Review API listening'));
    expect(before).toMatch(/ INFO  /);
    expect(pretty.stdout().split('\n').filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
    pretty.child.kill('SIGTERM');
    expect(await pretty.exit).toBe(0);

    // Unset, and stdout is a pipe here: JSON, as a log collector wants it.
    const json = await start(e);
    expect((await httpsGet(`https://127.0.0.1:${e.PORT}/api/v1/no-such-thing`, ca(e))).status).toBe(404);
    await expect.poll(() => requestLine(json.stdout()), { timeout: 10_000 }).toBeDefined();
    expect(JSON.parse(requestLine(json.stdout())!)).toMatchObject({ level: 30, msg: 'request', method: 'GET', url: '/api/v1/no-such-thing', status: 404 });
    json.child.kill('SIGTERM');
    expect(await json.exit).toBe(0);
  }, 90_000);

  it('keeps every acknowledged write after kill -9', async () => {
    const e = await env();
    const first = await start(e);
    const token = readFileSync(join(e.DATA_DIR!, 'admin-token'), 'utf8').trim();
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${e.ADMIN_PORT}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    const created: string[] = [];
    for (let i = 0; i < 20; i++) created.push((await call('POST', '/admin/orgs', { name: `Org ${i}`, plan: 'growth' })).id as string);
    const key = await call('POST', '/admin/keys', { orgId: created[0], name: 'survivor' });
    first.child.kill('SIGKILL');
    await first.exit;

    const second = await start(e);
    const orgs = (await call('GET', '/admin/orgs')).data as { id: string }[];
    for (const id of created) expect(orgs.map((o) => o.id)).toContain(id);
    const res = await httpsGet(`https://127.0.0.1:${e.PORT}/api/v1/reviews`, ca(e), { authorization: `Bearer ${key.key as string}` });
    expect(res.status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exit).toBe(0);
  }, 90_000);

  // `unshare -fp --mount-proc` needs root (or user namespaces); the test says so when it cannot run.
  const unshare = spawnSync('unshare', ['-fp', '--mount-proc', 'true']);
  const canUnshare = unshare.status === 0;
  if (!canUnshare) console.warn(`SKIPPED the PID-namespace lock test: unshare -fp --mount-proc is unavailable (${unshare.error?.message ?? unshare.stderr.toString().trim()})`);

  it.skipIf(!canUnshare)('refuses a second server on the same DATA_DIR from another PID namespace; the first keeps serving and its lock survives', async () => {
    const e = await env();
    const first = await start(e);
    // In its own PID namespace the second server is pid 1 and cannot see the first at all.
    const second = await start({ ...(await env(e.DATA_DIR)) }, null, ['unshare', '-fp', '--mount-proc', '--kill-child']);
    expect(await second.exit).toBe(1);
    expect(second.stderr()).toContain(`DATA_DIR ${e.DATA_DIR} is in use by another server`);
    expect(second.stderr()).toContain(`pid ${first.child.pid}`);
    const health = await httpsGet(`https://127.0.0.1:${e.PORT}/healthz`, ca(e));
    expect(health.status).toBe(200);
    // The refused server deleted nothing: a third attempt is refused too.
    const third = await start({ ...(await env(e.DATA_DIR)) }, null, ['unshare', '-fp', '--mount-proc', '--kill-child']);
    expect(await third.exit).toBe(1);
    expect(third.stderr()).toContain('is in use by another server');
    // kill -9: the kernel releases the lock, and the next server starts without any clean-up.
    first.child.kill('SIGKILL');
    await first.exit;
    const next = await start({ ...(await env(e.DATA_DIR)) }, 'Demo page:', ['unshare', '-fp', '--mount-proc', '--kill-child']);
    // unshare does not pass SIGTERM on: signal the server itself (its pid as this namespace sees it).
    const inner = Number(readFileSync(`/proc/${next.child.pid}/task/${next.child.pid}/children`, 'utf8').trim().split(' ')[0]);
    process.kill(inner, 'SIGTERM');
    expect(await next.exit).toBe(0);
  }, 90_000);

  it('on SIGTERM finishes the in-flight request, refuses new connections and exits 0 within 10 s', async () => {
    const e: Record<string, string> = { ...(await env()), LOG_LEVEL: 'info' };
    const run = await start(e);
    const token = readFileSync(join(e.DATA_DIR!, 'admin-token'), 'utf8').trim();
    const orgId = ((await (
      await fetch(`http://127.0.0.1:${e.ADMIN_PORT}/admin/orgs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Slow', plan: 'growth' }),
      })
    ).json()) as { id: string }).id;

    // A slow import: the body trickles in while the process is told to stop.
    const body = new PassThrough();
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`http://127.0.0.1:${e.ADMIN_PORT}/admin/orgs/${orgId}/reviews?format=ndjson`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      body.pipe(req);
    });
    const record = (i: number) => `${JSON.stringify({ platform: 'GOOGLE', externalId: `slow-${i}`, authorName: 'A', rating: 4, content: 'ok', date: '2026-01-01', language: 'en' })}\n`;
    body.write(record(0));
    // In flight means the service is reading it (its log says so), not just that it was sent:
    // a connection whose request has not been read yet is idle, and shutdown closes idle ones.
    await expect.poll(() => run.stdout().includes('"msg":"import started"'), { timeout: 20_000 }).toBe(true);
    const stopAt = Date.now();
    run.child.kill('SIGTERM');
    const refused = async () => {
      try {
        await fetch(`http://127.0.0.1:${e.ADMIN_PORT}/admin/orgs`, { headers: { authorization: `Bearer ${token}` } });
        return false;
      } catch {
        return true;
      }
    };
    await expect.poll(refused, { timeout: 5_000 }).toBe(true);
    body.write(record(1));
    body.end(record(2));
    const res = await answer;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ imported: 3 });
    expect(await run.exit).toBe(0);
    expect(Date.now() - stopAt).toBeLessThan(10_000);
  }, 60_000);
});
