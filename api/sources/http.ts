/**
 * Outgoing calls to the review platforms: HTTPS only, trusting Node's bundled
 * roots, the system's CA bundle and NODE_EXTRA_CA_CERTS (CONTRACT §11), with a
 * timeout and a bounded answer. Each call is counted (a sync reports its
 * `requests`). The secrets a call carries (headers, query) are never logged
 * here, and an error names the host and status only.
 *
 * Host names are resolved with the service's own resolver
 * (api/net/host-resolver.ts: c-ares, not the process-wide getaddrinfo pool;
 * 5 s; at most 4 lookups in flight per organization): each sync and each
 * Google exchange calls through `fork(orgId)`, so one organization's platform
 * names that never answer hold nobody else's calls.
 *
 * Sockets are shared fairly (CONTRACT §11, "Limits per organization"): every
 * organization calls the same platform hosts, through one pool of
 * MAX_SOCKETS connections per host, so an organization has at most
 * PER_ORG_PER_HOST calls in flight per host; its further calls wait in its own
 * queue (api/net/per-key-limit.ts), never in the pool's, and one organization
 * can never hold the sockets every other one needs. A call has an overall
 * deadline, CALL_DEADLINE_MS, that counts its wait for a place too (besides
 * the TIMEOUT_MS of silence on a connection).
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import type { LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { defaultHostResolver, lookupWith, type HostResolver } from '../net/host-resolver.ts';
import { PerKeyLimit } from '../net/per-key-limit.ts';

/** Where Debian/Ubuntu, RHEL and Alpine keep the system's CA bundle. */
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

const MAX_BODY = 16 * 1024 * 1024;
/** A connection silent this long ends the call. */
const TIMEOUT_MS = 30_000;
/** A call ends after this long in all, its wait for a place included. */
export const CALL_DEADLINE_MS = 60_000;
/** Connections per platform host, for every organization together. */
export const MAX_SOCKETS = 8;
/** Calls in flight per organization per platform host; the organization's others wait in its own queue. */
export const PER_ORG_PER_HOST = 2;

function readPem(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Node's roots + the system bundle + NODE_EXTRA_CA_CERTS (+ `extra`, tests): given together, since `ca` replaces the default set. */
export function trustedCas(extra: string[] = []): string[] {
  const cas: string[] = [...rootCertificates];
  for (const path of SYSTEM_BUNDLES) {
    const pem = readPem(path);
    if (pem) {
      cas.push(pem);
      break;
    }
  }
  const extraFile = process.env.NODE_EXTRA_CA_CERTS;
  if (extraFile) {
    const pem = readPem(extraFile);
    if (pem) cas.push(pem);
  }
  return [...cas, ...extra];
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface HttpRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
}

export class NetworkError extends Error {
  constructor(host: string, cause: Error) {
    super(`could not reach ${host} (${(cause as NodeJS.ErrnoException).code ?? cause.message})`);
    this.name = 'NetworkError';
  }
}

/** Whose lookups the calls of a client made without `fork(orgId)` count among. */
const NO_ORG = '-';

export interface HttpClientOptions {
  agent?: Agent;
  extraCa?: string[];
  resolve?: HostResolver;
  orgId?: string;
  /** Calls in flight per organization and host (PER_ORG_PER_HOST); shared by the forks. */
  limit?: PerKeyLimit;
  /** A call's overall deadline, its wait for a place included (CALL_DEADLINE_MS). */
  deadlineMs?: number;
}

export class HttpClient {
  private readonly agent: Agent;
  private readonly resolve: HostResolver;
  private readonly lookup: LookupFunction;
  private readonly orgId: string;
  /** Who is in flight per organization and host, shared with every fork. */
  readonly limit: PerKeyLimit;
  private readonly deadlineMs: number;
  /** Calls made (every attempt counts). */
  requests = 0;

  constructor(options: HttpClientOptions = {}) {
    this.agent = options.agent ?? new Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, ca: trustedCas(options.extraCa) });
    this.resolve = options.resolve ?? defaultHostResolver();
    this.orgId = options.orgId ?? NO_ORG;
    const orgId = this.orgId;
    this.lookup = lookupWith((hostname) => this.resolve(hostname, orgId));
    this.limit = options.limit ?? new PerKeyLimit(PER_ORG_PER_HOST);
    this.deadlineMs = options.deadlineMs ?? CALL_DEADLINE_MS;
  }

  /**
   * A client sharing this one's agent (connections, trust), resolver and places per organization, with its own
   * request count (one per sync), its lookups counted among `orgId`'s and its calls in `orgId`'s places.
   */
  fork(orgId: string): HttpClient {
    return new HttpClient({ agent: this.agent, resolve: this.resolve, orgId, limit: this.limit, deadlineMs: this.deadlineMs });
  }

  /** The key of `orgId`'s places on `host` (host:port). */
  static placeKey(orgId: string, host: string): string {
    return `${orgId} ${host}`;
  }

  call(url: string, init: HttpRequest = {}): Promise<HttpResponse> {
    const target = new URL(url);
    if (target.protocol !== 'https:') return Promise.reject(new Error(`refusing a non-https platform URL (${target.protocol})`));
    this.requests++;
    const deadline = AbortSignal.timeout(this.deadlineMs);
    const waited = (err: unknown): never => {
      throw deadline.aborted ? new NetworkError(target.host, new Error(`no answer within ${this.deadlineMs / 1000} s`)) : (err as Error);
    };
    return this.limit.run(HttpClient.placeKey(this.orgId, target.host), () => this.exchange(target, init, deadline), deadline).catch(waited);
  }

  private exchange(target: URL, init: HttpRequest, deadline: AbortSignal): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      const req = request(
        target,
        {
          method: init.method ?? 'GET',
          agent: this.agent,
          // Called only when the agent opens a new connection.
          lookup: this.lookup,
          headers: { accept: 'application/json', 'user-agent': 'review-proof-sources/1', ...init.headers, ...(init.body !== undefined && { 'content-length': Buffer.byteLength(init.body).toString() }) },
          timeout: TIMEOUT_MS,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY) {
              req.destroy(new Error(`${target.host} answered more than ${MAX_BODY} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (err) => reject(new NetworkError(target.host, err)));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      const onDeadline = (): void => void req.destroy(new Error(`no answer within ${this.deadlineMs / 1000} s`));
      deadline.addEventListener('abort', onDeadline, { once: true });
      req.on('close', () => deadline.removeEventListener('abort', onDeadline));
      req.on('error', (err) => reject(err instanceof NetworkError ? err : new NetworkError(target.host, err)));
      req.end(init.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
