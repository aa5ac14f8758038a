/**
 * The delivery client in a thread of its own: every exchange with receivers
 * (TLS, the HTTP client, reading answers) runs in one worker thread running
 * deliver.ts's client (delivery-worker.ts), so that thousands of deliveries a
 * second do not take the event loop from imports and API requests; the
 * dispatcher keeps the store's side (what is due, the results) and signs.
 * A request crosses as its URL, headers and body; the result comes back as
 * deliver.ts gives it.
 *
 * - The same rule everywhere: the thread's client is deliver.ts's, built from
 *   the same WEBHOOK_ALLOW_NETWORKS text and trusted authorities. It resolves
 *   names with a resolver of its own (api/net/host-resolver.ts: c-ares, at
 *   most 4 lookups in flight per organization, the request's `orgId`).
 * - Never throws: a thread that fails or stops answers its open requests as
 *   not sent ("the delivery thread stopped"; `notSent`: the dispatcher tries
 *   them again shortly, counting no attempt and not against the endpoint),
 *   and the next request starts a fresh thread. A request the thread has not
 *   answered 5 s after the client's own timeout is answered so too.
 * - An idle thread does not keep the process alive.
 *
 * Compiled (`npm start`, api/build.ts) the thread runs `dist/api/delivery-worker.js`;
 * from the sources (`npm run dev`, tests) it loads delivery-worker.ts through tsx.
 */
import { Worker } from 'node:worker_threads';
import { DELIVERY_TIMEOUT_MS, type DeliveryClient, type DeliveryRequest, type DeliveryResult } from './deliver.ts';
import type { AllowedNetwork } from './networks.ts';

/**
 * The thread's nice value unless told: deliveries are background work, and
 * a bulk import, enrichment and API requests come first when the CPU is short
 * (at 10 the thread still gets about a tenth of a busy core, so a saturated
 * service keeps delivering); an idle CPU is the thread's in full.
 */
export const DELIVERY_THREAD_NICE = 10;

/** What the thread is built from (plain data: it crosses to the thread). */
export interface DeliveryThreadSettings {
  /** WEBHOOK_ALLOW_NETWORKS ranges, as text. */
  allow: string[];
  ca?: string[];
  /** The DNS servers of the thread's resolver (tests: a local DNS server); unset: the system's. */
  dnsServers?: string[];
  timeoutMs?: number;
  userAgent?: string;
  /** The thread's nice value, from 0 (the process's) to 19 (lowest); Linux only (there a thread's own). */
  nice?: number;
}

/** The compiled worker's file URL, defined by api/build.ts in the compiled service only. */
declare const __RV_DELIVERY_WORKER__: string | undefined;

function startThread(settings: DeliveryThreadSettings): Worker {
  // Compiled, the thread gets no environment (it needs none: its settings come from here); under tsx it keeps it.
  if (typeof __RV_DELIVERY_WORKER__ === 'string') return new Worker(new URL(__RV_DELIVERY_WORKER__), { workerData: settings, env: {} });
  const source = new URL('./delivery-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(source)}); })`, { eval: true, workerData: settings });
}

/** Seconds a request waits for the thread beyond the client's own timeout before it is answered as not sent. */
const THREAD_GRACE_MS = 5000;

function notSent(error: string): DeliveryResult {
  return { delivered: false, statusCode: null, error, retryAfterMs: null, excerpt: '', bodyBytes: 0, truncated: false, notSent: true };
}

function stopped(reason: string): DeliveryResult {
  return notSent(`the delivery thread stopped (${reason})`);
}

export interface ThreadedDeliveryClient extends DeliveryClient {
  /** The thread now running, if any (tests stop it to see a failure handled). */
  thread(): Worker | null;
}

export function createThreadedDeliveryClient(options: { allow: readonly AllowedNetwork[]; ca?: string[]; dnsServers?: readonly string[]; timeoutMs?: number; userAgent?: string; nice?: number }): ThreadedDeliveryClient {
  const settings: DeliveryThreadSettings = {
    // Linux only: elsewhere a thread cannot be reniced alone (delivery-worker.ts).
    ...(process.platform === 'linux' && { nice: options.nice ?? DELIVERY_THREAD_NICE }),
    allow: options.allow.map((n) => n.text),
    ...(options.ca !== undefined && { ca: options.ca }),
    ...(options.dnsServers !== undefined && { dnsServers: [...options.dnsServers] }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.userAgent !== undefined && { userAgent: options.userAgent }),
  };
  let worker: Worker | null = null;
  let nextId = 0;
  const open = new Map<number, (result: DeliveryResult) => void>();
  /** The thread's client answers within its timeout; a request not answered by then and THREAD_GRACE_MS more is given up. */
  const giveUpMs = (options.timeoutMs ?? DELIVERY_TIMEOUT_MS) + THREAD_GRACE_MS;
  let closed = false;

  const settleAll = (thread: Worker, reason: string): void => {
    if (worker !== thread) return;
    worker = null;
    for (const resolve of open.values()) resolve(stopped(reason));
    open.clear();
  };

  const start = (): Worker => {
    const thread = startThread(settings);
    thread.unref();
    thread.on('message', ({ id, result }: { id: number; result: DeliveryResult }) => {
      const resolve = open.get(id);
      if (!resolve) return;
      open.delete(id);
      if (open.size === 0) thread.unref();
      resolve(result);
    });
    thread.on('error', (err) => settleAll(thread, err.message));
    thread.on('exit', (code) => settleAll(thread, `exit code ${code}`));
    return thread;
  };

  return {
    deliver(request: DeliveryRequest): Promise<DeliveryResult> {
      if (closed) return Promise.resolve(stopped('the client is closed'));
      const thread = (worker ??= start());
      const id = nextId++;
      return new Promise<DeliveryResult>((resolve) => {
        // While an answer is awaited the thread keeps the process alive, as a socket would.
        if (open.size === 0) thread.ref();
        const timer = setTimeout(() => {
          if (!open.delete(id)) return;
          if (open.size === 0) thread.unref();
          resolve(notSent(`the delivery thread did not answer within ${giveUpMs / 1000} s`));
        }, giveUpMs);
        timer.unref();
        open.set(id, (result) => {
          clearTimeout(timer);
          resolve(result);
        });
        thread.postMessage({ id, request });
      });
    },
    close(): void {
      closed = true;
      const thread = worker;
      if (thread) {
        settleAll(thread, 'the client is closed');
        void thread.terminate();
      }
    },
    thread: () => worker,
  };
}
