/**
 * The real service for end-to-end tests: `api/main.ts` in its own process on
 * the embedded store in a fresh temporary DATA_DIR (no Redis, no MongoDB), its
 * first-start banner parsed for the demo API key, and a plain host origin
 * whose pages the tests write (so they paste exactly what the API returned).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent, request } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Widget } from '../../api/store/types.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What the first start prints once; later starts on the same DATA_DIR do not show the key. */
export interface Banner {
  text: string;
  apiKey: string;
  orgId: string;
  widgetId: string;
  demoPage: string;
}

export interface HttpsAnswer<T> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

export interface RealService {
  /** https://127.0.0.1:PORT, also the PUBLIC_URL (snippets and JSON-LD point here). */
  origin: string;
  banner: Banner;
  dataDir: string;
  /** GET on the service, the certificate checked against the one it created. */
  get<T = unknown>(path: string, headers?: Record<string, string>): Promise<HttpsAnswer<T>>;
  /** GET /api/v1… with the demo key; throws unless 200. */
  api<T = unknown>(path: string): Promise<T>;
  /** The demo organization's widgets, from the admin API. */
  widgets(): Promise<Widget[]>;
  /** Everything the process wrote to stdout and stderr, for failure messages. */
  output(): string;
  /** The admin API (loopback) and its token, for setting up what the dashboard cannot (another organization). */
  admin: { url: string; token: string };
  stop(): Promise<void>;
}

/** Distinct free ports: the probes stay open until all are picked. */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<import('node:net').Server>((resolve, reject) => {
          const server = createNetServer();
          server.on('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

export function parseBanner(text: string): Banner {
  const field = (label: string, pattern: string): string => {
    const match = new RegExp(`${label}:\\s+(${pattern})`).exec(text);
    if (!match) throw new Error(`the start-up banner has no "${label}" (a DATA_DIR that was not empty?):\n${text}`);
    return match[1]!;
  };
  return {
    text,
    apiKey: field('Demo API key', 'rvp_live_[0-9A-Za-z]+'),
    orgId: field('Demo org', 'org_[0-9A-Za-z_-]+'),
    widgetId: field('Demo widgets', 'wdg_[0-9A-Za-z_-]+'),
    demoPage: field('Demo page', 'https://\\S+'),
  };
}

const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 12_000;

/** `env`: more of the service's environment (a platform fake's URLs, NODE_EXTRA_CA_CERTS for its certificate). */
export async function startRealService(options: { env?: Record<string, string> } = {}): Promise<RealService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rv-e2e-'));
  const [port, adminPort] = (await freePorts(2)) as [number, number];
  const origin = `https://127.0.0.1:${port}`;
  const adminToken = randomBytes(24).toString('base64url');
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The embedded default and in-process limits, whatever the caller's shell has.
  for (const name of ['REDIS_URL', 'MONGODB_URL', 'TLS_CERT_FILE', 'TLS_KEY_FILE', 'TRUST_PROXY', 'HOST']) delete env[name];
  Object.assign(env, {
    DATA_DIR: dataDir,
    PORT: String(port),
    HTTP_PORT: '0',
    ADMIN_PORT: String(adminPort),
    ADMIN_TOKEN: adminToken,
    PUBLIC_URL: origin,
    LOG_LEVEL: 'warn',
    ...options.env,
  });
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'api', 'main.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (chunk: Buffer) => {
    // Bounded: a chatty failure must not grow the test runner's memory.
    out = (out + chunk.toString()).slice(-200_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const cleanUp = () => rmSync(dataDir, { recursive: true, force: true });
  let banner: Banner;
  try {
    banner = await new Promise<Banner>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the service did not start within ${START_TIMEOUT_MS} ms:\n${out}`)), START_TIMEOUT_MS);
      const check = () => {
        // The banner is one write ending in a blank line; wait for all of it.
        const at = out.indexOf('Demo page:');
        if (at === -1 || !out.slice(at).includes('\n\n')) return;
        clearTimeout(timer);
        child.stdout!.off('data', check);
        try {
          resolve(parseBanner(out));
        } catch (err) {
          reject(err as Error);
        }
      };
      child.stdout!.on('data', check);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`the service exited with ${code} before its banner:\n${out}`));
      });
    });
  } catch (err) {
    child.kill('SIGKILL');
    cleanUp();
    throw err;
  }

  const ca = readFileSync(join(dataDir, 'tls-cert.pem'), 'utf8');
  const agent = new Agent({ ca, keepAlive: false });

  const get = <T>(path: string, headers: Record<string, string> = {}): Promise<HttpsAnswer<T>> =>
    new Promise((resolve, reject) => {
      const req = request(`${origin}${path}`, { agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const json = /json/.test(res.headers['content-type'] ?? '');
          try {
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: (json && text ? JSON.parse(text) : text) as T });
          } catch (err) {
            reject(err as Error);
          }
        });
      });
      req.on('error', reject);
      req.end();
    });

  const api = async <T>(path: string): Promise<T> => {
    const res = await get<T>(`/api/v1${path}`, { authorization: `Bearer ${banner.apiKey}` });
    if (res.status !== 200) throw new Error(`GET /api/v1${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  const widgets = async (): Promise<Widget[]> => {
    const res = await fetch(`http://127.0.0.1:${adminPort}/admin/widgets?orgId=${encodeURIComponent(banner.orgId)}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    if (!res.ok) throw new Error(`admin GET /admin/widgets: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: Widget[] }).data;
  };

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const hard = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(hard);
      }
      agent.destroy();
      cleanUp();
    })());

  return { origin, banner, dataDir, get, api, widgets, output: () => out, stop, admin: { url: `http://127.0.0.1:${adminPort}`, token: adminToken } };
}

export interface HostPages {
  /** http://localhost:PORT: another origin than the service's https://127.0.0.1:PORT. */
  origin: string;
  /** Paths requested so far. */
  requests: string[];
  /** Serves `html` at `path` (with extra response headers) and returns its URL. */
  serve(path: string, html: string, headers?: Record<string, string>): string;
  close(): Promise<void>;
}

/** A host site the tests write page by page. */
export async function startHostPages(): Promise<HostPages> {
  const pages = new Map<string, { html: string; headers: Record<string, string> }>();
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const page = pages.get(path);
    if (!page) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...page.headers });
    res.end(page.html);
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  const origin = `http://localhost:${port}`;
  return {
    origin,
    requests,
    serve(path, html, headers = {}) {
      pages.set(path, { html, headers });
      return `${origin}${path}`;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
