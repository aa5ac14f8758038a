/**
 * The delivery thread of delivery-thread.ts: the delivery client of
 * deliver.ts (the same SSRF rule, timeout and body limit), run beside the
 * event loop. Each request is answered with its result; the client never
 * throws, so neither does this.
 */
import { access } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createDeliveryClient, type DeliveryRequest } from './deliver.ts';
import { parseAllowNetworks } from './networks.ts';
import type { DeliveryThreadSettings } from './delivery-thread.ts';

const port = parentPort;
if (!port) throw new Error('delivery-worker.ts runs only as a worker thread (delivery-thread.ts)');
const settings = workerData as DeliveryThreadSettings;
// Background work: on Linux a thread's nice value is its own (setpriority on the calling thread), so this thread
// yields the CPU to the event loop, imports and enrichment when they want it, and has it whenever they do not.
// Elsewhere setpriority would renice the whole process: not done there (delivery-thread.ts sends no value).
if (settings.nice !== undefined && process.platform === 'linux') {
  // Threads inherit their creator's nice value: libuv's thread pool (file and DNS work of the whole process) is
  // started now, at the process's priority, if it is not yet, so that it is never started from this thread reniced.
  await access('.').catch(() => undefined);
  try {
    setPriority(settings.nice);
  } catch {
    // Not allowed here: the thread runs at the process's priority.
  }
}

const client = createDeliveryClient({
  // The ranges as WEBHOOK_ALLOW_NETWORKS wrote them, parsed again here (parsed ranges do not cross threads).
  allow: parseAllowNetworks(settings.allow.join(',')),
  ...(settings.ca !== undefined && { ca: settings.ca }),
  ...(settings.dnsServers !== undefined && { dnsServers: settings.dnsServers }),
  ...(settings.timeoutMs !== undefined && { timeoutMs: settings.timeoutMs }),
  ...(settings.userAgent !== undefined && { userAgent: settings.userAgent }),
});

port.on('message', ({ id, request }: { id: number; request: DeliveryRequest }) => {
  void client.deliver(request).then((result) => port.postMessage({ id, result }));
});
