/**
 * Test harness: the real service (HTTPS with its self-signed certificate,
 * verified against that certificate, not ignored), a fresh DATA_DIR, the Redis
 * that global-setup started, and a client that checks EVERY response it
 * receives against the OpenAPI document.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { validateResponse } from '../openapi/response-validator.ts';
import { startService, type Service } from '../server.ts';
import type { Plan, Store } from '../store/types.ts';
import { ferretdbTarget, openMongoStore } from './mongo-suites.ts';

export interface TestResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  raw: Buffer;
  /** Parsed JSON body (undefined when the body is not JSON). */
  body: unknown;
}

export interface RequestOptions {
  method?: string;
  key?: string | null;
  headers?: Record<string, string>;
  /** Skip the OpenAPI check (only for answers outside the public API, e.g. static files). */
  skipValidation?: boolean;
  /** A request body (sent as given; set its Content-Type in `headers`). */
  body?: string;
  /** Source address of the connection (any 127.x.y.z works on Linux loopback): a "proxy" in TRUST_PROXY tests. */
  localAddress?: string;
}

/** Every OpenAPI violation seen by any client in this test file. */
export const contractViolations: string[] = [];

export interface TestService {
  service: Service;
  dataDir: string;
  get(path: string, options?: RequestOptions): Promise<TestResponse>;
  /** Plain HTTP to the HTTP_PORT listener. */
  plain(path: string, options?: RequestOptions): Promise<TestResponse>;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  /** A new organization with one key. */
  org(plan?: Plan, rateLimit?: number | null): Promise<{ orgId: string; key: string; keyId: string }>;
  close(): Promise<void>;
}

export interface StartTestOptions {
  redis?: boolean;
  env?: Record<string, string>;
  store?: Store;
  dataDir?: string;
  /** A logger of the test's own (to read what the service logs). */
  logger?: import('../logger.ts').Logger;
  /** The DNS servers the service resolves outbound names with (a local DNS server, api/net/testing/dns-server.ts). */
  dnsServers?: readonly string[];
}

function collect(res: import('node:http').IncomingMessage): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', reject);
    res.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = raw.toString('utf8');
      let body: unknown;
      try {
        body = text ? (JSON.parse(text) as unknown) : undefined;
      } catch {
        body = undefined;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      resolve({ status: res.statusCode ?? 0, headers, text, raw, body });
    });
  });
}

/**
 * The store a test service gets when the test passes none: the embedded store,
 * or, in the `api-on-mongodb` vitest project (TEST_STORE=mongodb), a MongoStore
 * on a database of its own on the run's FerretDB, dropped on close.
 */
async function defaultStore(): Promise<{ store: Store; drop(): Promise<void> } | null> {
  if (process.env.TEST_STORE !== 'mongodb') return null;
  const target = ferretdbTarget();
  if (!target.url) throw new Error(`TEST_STORE=mongodb needs FerretDB: ${target.missing}`);
  const store = await openMongoStore(target, 'http');
  return { store, drop: () => store.dropDatabase() };
}

/** True in the run of the HTTP suites on the MongoDB store (a smaller data set there). */
export const onMongo = process.env.TEST_STORE === 'mongodb';

export async function startTestService(options: StartTestOptions = {}): Promise<TestService> {
  const owned = options.store ? null : await defaultStore();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'review-proof-test-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PORT: '18443',
    HTTP_PORT: '18080',
    ADMIN_PORT: '18444',
    ...(options.redis !== false && { REDIS_URL: inject('redisUrl') }),
    // Test files share one Redis: each service counts in its own namespace unless told to share.
    REDIS_KEY_PREFIX: `t${Math.random().toString(36).slice(2, 10)}:`,
    ...options.env,
  };
  const config = loadConfig(env);
  const service = await startService(config, {
    ephemeralPorts: true,
    logger: options.logger ?? createLogger(env.LOG_LEVEL ?? 'silent'),
    ...(options.store && { store: options.store }),
    ...(owned && { store: owned.store }),
    ...(options.dnsServers && { dnsServers: options.dnsServers }),
  });
  const ca = readFileSync(join(dataDir, 'tls-cert.pem'), 'utf8');
  const agent = new Agent({ ca, keepAlive: true, servername: 'localhost' });

  const send = (plain: boolean, path: string, opts: RequestOptions = {}): Promise<TestResponse> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      const common = { method: opts.method ?? 'GET', path, headers, host: '127.0.0.1', ...(opts.localAddress && { localAddress: opts.localAddress }) };
      const req = plain
        ? httpRequest({ ...common, port: service.ports.http ?? 0 }, (res) => collect(res).then(resolve, reject))
        : httpsRequest({ ...common, port: service.ports.https, agent }, (res) => collect(res).then(resolve, reject));
      req.on('error', reject);
      req.end(opts.body);
    }).then((res) => {
      const r = res as TestResponse;
      if (!opts.skipValidation) {
        const problems = validateResponse({ method: opts.method ?? 'GET', path, status: r.status, headers: r.headers, body: r.body });
        if (problems.length > 0) {
          const message = `${opts.method ?? 'GET'} ${path} → ${r.status} breaks the OpenAPI document:\n  ${problems.join('\n  ')}\n  body: ${r.text.slice(0, 500)}`;
          contractViolations.push(message);
          throw new Error(message);
        }
      }
      return r;
    });

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${service.adminToken}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  return {
    service,
    dataDir,
    get: (path, opts) => send(false, path, opts),
    plain: (path, opts) => send(true, path, opts),
    admin,
    async org(plan = 'growth', rateLimit = null) {
      const org = await admin('POST', '/admin/orgs', { name: `Org ${Math.random().toString(36).slice(2, 8)}`, plan, ...(rateLimit !== null && { rateLimit }) });
      if (org.status !== 201) throw new Error(`org create failed: ${JSON.stringify(org.body)}`);
      const key = await admin('POST', '/admin/keys', { orgId: org.body.id, name: 'test' });
      if (key.status !== 201) throw new Error(`key create failed: ${JSON.stringify(key.body)}`);
      return { orgId: org.body.id as string, key: key.body.key as string, keyId: key.body.id as string };
    },
    async close() {
      agent.destroy();
      await service.close();
      if (owned) {
        await owned.drop();
        await owned.store.close();
      }
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
