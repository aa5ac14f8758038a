/**
 * The delivery client: one POST of one signed message to one endpoint, safe to
 * aim at any URL a customer typed (CONTRACT §12).
 *
 * - `https:` only, certificates verified.
 * - No way into private networks: an IP-literal host is checked here, a host
 *   name in the socket's `lookup` (guarded-lookup.ts), on the very addresses
 *   the socket then connects to. Names are resolved by the client's own
 *   resolver (api/net/host-resolver.ts), at most 4 lookups in flight per
 *   organization, 5 s each; a refused name is recorded as "x resolves to a
 *   private or reserved address", never naming the address.
 * - 15 s for the whole exchange; redirects are never followed (a 3xx is a
 *   failed attempt: following one would leave the checked URL).
 * - The response body is read to at most 64 KiB (reading it lets the
 *   keep-alive connection be reused; a bigger one is cut off and its socket
 *   destroyed) and only a short excerpt of it is kept.
 *
 * The result says what happened, for the delivery log and the retry schedule;
 * it never throws.
 */
import { Agent, request } from 'node:https';
import { createSecureContext } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import type { AllowedNetwork } from './networks.ts';
import { addressRefusal, parseAddress } from './networks.ts';
import { createHostResolver, HostNotFoundError } from '../net/host-resolver.ts';
import { guardedLookup, type Resolver } from './guarded-lookup.ts';
import { parseRetryAfter } from './retry-after.ts';
import type { WebhookHeaders } from './signature.ts';

export const DELIVERY_TIMEOUT_MS = 15_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** URLs whose check is remembered (deliver's `checked`), at most. */
const CHECKED_URLS = 1000;
/** Characters of the response body kept for the delivery log. */
export const EXCERPT_CHARS = 200;
/** Bytes kept to cut the excerpt from (a UTF-8 character is at most 4). */
const EXCERPT_BYTES = EXCERPT_CHARS * 4;

export interface DeliveryRequest {
  url: string;
  /** The endpoint's organization: its host name is resolved among that organization's lookups. Unset only in tests of the client. */
  orgId?: string;
  headers: WebhookHeaders;
  body: string;
}

export interface DeliveryResult {
  /** A 2xx answer arrived in time. */
  delivered: boolean;
  /** The answer's status, or null when none arrived. */
  statusCode: number | null;
  /** Why the attempt failed ("address 10.0.0.5 is in a private network", "HTTP 500", …); null when delivered. */
  error: string | null;
  /** The endpoint's `Retry-After`, as a delay in ms; null when it sent none. */
  retryAfterMs: number | null;
  /** The start of the response body, for the delivery log. */
  excerpt: string;
  /** Response body bytes read (at most MAX_RESPONSE_BYTES). */
  bodyBytes: number;
  /** The body was longer than MAX_RESPONSE_BYTES and was cut off. */
  truncated: boolean;
  /**
   * The request never got to the endpoint's side of this process (the delivery
   * thread stopped or did not answer, delivery-thread.ts): not an attempt, so
   * neither the message's attempts nor the endpoint's health count it.
   */
  notSent?: true;
}

export interface DeliveryClientOptions {
  /** WEBHOOK_ALLOW_NETWORKS. */
  allow: readonly AllowedNetwork[];
  /** DNS; unset: a resolver of the client's own with the system's servers (or `dnsServers`). Tests pass a local stub. */
  resolve?: Resolver;
  /** The DNS servers of the client's own resolver (tests: a local DNS server); unset: the system's. */
  dnsServers?: readonly string[];
  timeoutMs?: number;
  /** Extra trusted certificate authorities (tests trust their self-signed receiver this way). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** The clock `Retry-After` dates are read against. */
  now?: () => Date;
  userAgent?: string;
}

export interface DeliveryClient {
  deliver(request: DeliveryRequest): Promise<DeliveryResult>;
  /** Closes idle keep-alive connections. */
  close(): void;
}

function failure(error: string, statusCode: number | null = null): DeliveryResult {
  return { delivered: false, statusCode, error, retryAfterMs: null, excerpt: '', bodyBytes: 0, truncated: false };
}

/** A transport error as a person reads it. */
function describeError(err: NodeJS.ErrnoException): string {
  if (err.name === 'RefusedAddressError') return err.message;
  if (err instanceof HostNotFoundError) return `host not found (${err.reason})`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the endpoint';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found (${err.code})`;
    default:
      return err.code !== undefined && !err.message.includes(err.code) ? `${err.message} (${err.code})` : err.message;
  }
}

function excerptOf(bytes: Buffer): string {
  // The replacement character stands in for a character cut in half at the end.
  return bytes
    .toString('utf8')
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim()
    .slice(0, EXCERPT_CHARS);
}

export function createDeliveryClient(options: DeliveryClientOptions): DeliveryClient {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const now = options.now ?? (() => new Date());
  const resolveHost = options.resolve ?? createHostResolver({ ...(options.dnsServers !== undefined && { servers: options.dnsServers }) });

  // Keep-alive: a busy endpoint costs one TLS handshake, not one per message. A
  // pooled socket was checked when it connected, and the rule does not change
  // during the client's life.
  // The trusted authorities as one secure context, made once: given as `ca`, every new socket would
  // parse them all again (some 150 certificates) and every request would copy them into the pool's key.
  const agent = new Agent({ keepAlive: true, ...(options.ca !== undefined ? { secureContext: createSecureContext({ ca: options.ca }) } : {}) });
  const userAgent = options.userAgent ?? 'review-proof-webhooks/1';

  /**
   * What `checkUrl` said of each URL lately: an endpoint's URL is parsed and
   * its IP literal checked once, not per message (the rule does not change
   * during the client's life; a host name is still checked at every connection,
   * in `lookup`).
   */
  const checked = new Map<string, { url: URL } | { refusal: string }>();

  function checkUrl(text: string): { url: URL } | { refusal: string } {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return { refusal: 'the endpoint URL is not a valid URL' };
    }
    if (url.protocol !== 'https:') return { refusal: `only https: endpoints are allowed, not ${url.protocol}` };
    if (url.username !== '' || url.password !== '') return { refusal: 'the endpoint URL must not hold credentials' };
    // Sockets do not call `lookup` for an address, so an IP-literal host is checked here.
    if (parseAddress(url.hostname) !== null) {
      const refusal = addressRefusal(url.hostname, options.allow);
      if (refusal !== null) return { refusal };
    }
    return { url };
  }

  function deliver(req: DeliveryRequest): Promise<DeliveryResult> {
    let check = checked.get(req.url);
    if (check === undefined) {
      check = checkUrl(req.url);
      if (checked.size >= CHECKED_URLS) checked.clear();
      checked.set(req.url, check);
    }
    if ('refusal' in check) return Promise.resolve(failure(check.refusal));
    const url = check.url;

    return new Promise<DeliveryResult>((resolve) => {
      let settled = false;
      let statusCode: number | null = null;
      let retryAfterMs: number | null = null;
      let location: string | null = null;
      let bodyBytes = 0;
      let truncated = false;
      const kept: Buffer[] = [];
      let keptBytes = 0;

      const settle = (error: string | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const ok = error === null && statusCode !== null && statusCode >= 200 && statusCode < 300;
        resolve({
          delivered: ok,
          statusCode,
          error: ok ? null : (error ?? describeStatus(statusCode, location)),
          retryAfterMs,
          excerpt: excerptOf(Buffer.concat(kept)),
          bodyBytes,
          truncated,
        });
      };

      let outgoing: ReturnType<typeof request>;
      try {
        outgoing = request(url, {
          method: 'POST',
          agent,
          // Called only when the agent opens a new connection (a pooled one was checked when it connected).
          lookup: guardedLookup(options.allow, resolveHost, req.orgId ?? '-'),
          headers: {
            ...req.headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(req.body),
            'user-agent': userAgent,
          },
        });
      } catch (err) {
        // E.g. a header value Node refuses: the attempt fails, the promise does not reject.
        resolve(failure(describeError(err as NodeJS.ErrnoException)));
        return;
      }

      const timer = setTimeout(() => {
        // Once the status is in, the outcome is known; the body read is cut short.
        const error = statusCode === null ? `no answer within ${timeoutMs / 1000} s` : null;
        outgoing.destroy();
        settle(error);
      }, timeoutMs);

      outgoing.on('error', (err: NodeJS.ErrnoException) => settle(statusCode === null ? describeError(err) : null));
      outgoing.on('response', (res: IncomingMessage) => {
        statusCode = res.statusCode ?? null;
        location = typeof res.headers.location === 'string' ? res.headers.location.slice(0, 200) : null;
        const success = statusCode !== null && statusCode >= 200 && statusCode < 300;
        retryAfterMs = success ? null : parseRetryAfter(res.headers['retry-after'], now());
        res.on('data', (chunk: Buffer) => {
          const room = MAX_RESPONSE_BYTES - bodyBytes;
          const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
          bodyBytes += part.length;
          if (keptBytes < EXCERPT_BYTES) {
            const piece = part.subarray(0, EXCERPT_BYTES - keptBytes);
            kept.push(Buffer.from(piece));
            keptBytes += piece.length;
          }
          if (chunk.length > room) {
            truncated = true;
            // Cut off: the rest is never read, and the socket is not reused.
            res.destroy();
            outgoing.destroy();
            settle(null);
          }
        });
        res.on('end', () => settle(null));
        res.on('error', () => settle(null));
        res.on('close', () => settle(null));
      });
      outgoing.end(req.body);
    });
  }

  return {
    deliver,
    close: () => agent.destroy(),
  };
}

function describeStatus(statusCode: number | null, location: string | null): string {
  if (statusCode === null) return 'no answer';
  if (statusCode >= 300 && statusCode < 400) return `redirect (HTTP ${statusCode}${location === null ? '' : ` to ${location}`}) not followed`;
  return `HTTP ${statusCode}`;
}
