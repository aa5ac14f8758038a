/** Shared pieces of the benchmark and the soak test: processes, ports, HTTPS calls. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildApi } from '../api/build.ts';
import { freePort, freePorts, findRedisServer, startRedis } from '../api/test/global-setup.ts';

export { freePort, freePorts, findRedisServer, startRedis };

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} takes a positive number`);
  return value;
}

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  adminUrl: string;
  adminToken: string;
  ca: string;
  stop(): Promise<number | null>;
}

/** The Node flags `npm start` runs the service with (package.json): a 64 MB young generation, see the README. */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=32'];

/**
 * Compiles a benchmark's own server (bench/bare-server.ts, bench/floor-server.ts)
 * the way `npm start` compiles the service, so that all of them run as plain
 * JavaScript; returns the file to run.
 */
export async function compileBenchServer(name: string): Promise<string> {
  const outfile = join(ROOT, 'dist', 'bench', `${name}.js`);
  await build({ entryPoints: [join(ROOT, 'bench', `${name}.ts`)], outfile, bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' });
  return outfile;
}

/** User + system CPU time of a process and all its threads, in µs (Linux, /proc/<pid>/stat). */
export function cpuMicros(pid: number): number {
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}
/** Linux's USER_HZ: /proc counts CPU time in these ticks (100 on every mainstream kernel). */
const CLOCK_TICKS = 100;

/**
 * Starts the service as its own process (the benchmark client must not share
 * its event loop), compiled as `npm start` runs it; `startupMs` is the time from
 * spawning node to the "listening" banner.
 */
export async function startServer(env: Record<string, string>, nodeFlags: string[] = []): Promise<ServerProcess & { startupMs: number }> {
  const main = await buildApi();
  const [port, httpPort, adminPort] = (await freePorts(3)) as [number, number, number];
  const spawned = process.hrtime.bigint();
  let listening = 0n;
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeFlags, main], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HTTP_PORT: String(httpPort), ADMIN_PORT: String(adminPort), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 120_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Demo page:') || out.includes('Rate limits:')) {
        listening ||= process.hrtime.bigint();
        clearTimeout(timer);
        setTimeout(resolve, 50);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  const startupMs = Number(listening - spawned) / 1e6;
  child.stdout!.resume();
  const dataDir = env.DATA_DIR!;
  return {
    child,
    startupMs,
    baseUrl: `https://127.0.0.1:${port}`,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    adminToken: readFileSync(join(dataDir, 'admin-token'), 'utf8').trim(),
    ca: readFileSync(join(dataDir, 'tls-cert.pem'), 'utf8'),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

export async function admin(server: ServerProcess, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.adminToken}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
  return json;
}

export function httpsGet(url: string, ca: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, servername: 'localhost', headers, agent: new Agent({ ca }) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Resident memory of a process in MiB (Linux). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** CPU seconds a process has used so far, every thread counted (user + system, from /proc). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 14th and 15th fields.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Starts a comparison server (its own process, compiled, with these Node flags) and waits for its `ready`. */
export async function spawnReady(name: string, args: string[], nodeFlags: string[] = []): Promise<ChildProcess> {
  const script = await compileBenchServer(name);
  const child = spawn(process.execPath, [...nodeFlags, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return child;
}

/** Records one answer of the service: status, body and the headers a bare server would send too. */
export async function record(url: string, ca: string, headers: Record<string, string>, status = 200): Promise<{ status: number; body: string; headers: Record<string, string> }> {
  const res = await httpsGet(url, ca, headers);
  if (res.status !== status) throw new Error(`${url}: ${res.status} ${res.body.toString()}`);
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined && !['content-length', 'connection', 'keep-alive', 'date', 'transfer-encoding'].includes(name)) kept[name] = String(value);
  }
  return { status, body: res.body.toString('base64'), headers: kept };
}

/**
 * Waits until a process has settled: less than 2% of a core over a whole second
 * (a service just started still reads and sorts its data folder and collects the
 * garbage of that for several seconds), at most `maxMs`. Returns the ms waited
 * and whether it settled (false: it was still busy when `maxMs` ran out).
 */
export async function waitUntilIdle(pid: number, maxMs = 30_000): Promise<{ ms: number; settled: boolean }> {
  const started = performance.now();
  for (;;) {
    const before = cpuMicros(pid);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const ms = performance.now() - started;
    const settled = cpuMicros(pid) - before < 20_000;
    if (settled || ms >= maxMs) return { ms, settled };
  }
}
