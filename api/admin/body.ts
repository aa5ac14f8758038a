/** A small JSON body reader for the admin API and the dashboard (no body-parser dependency): 64 KiB at most. */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { badRequest, payloadTooLarge } from '../errors.ts';

export const BODY_LIMIT = 64 * 1024;

const tooLarge = (limit: number) => payloadTooLarge(`The body must be at most ${limit} bytes.`);

/**
 * The whole body's bytes (at most `limit`, BODY_LIMIT unless a route needs
 * more, else 413; a larger declared length is refused before a byte is read,
 * and the connection is closed).
 */
export async function readBody(ctx: Context, limit = BODY_LIMIT): Promise<Buffer> {
  const declared = ctx.get('content-length');
  if (/^\d+$/.test(declared) && Number(declared) > limit) {
    ctx.set('Connection', 'close');
    throw tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The body as JSON. When a middleware has read the body already (the
 * dashboard's `wholeBodyFirst`, into `ctx.state.body`), that copy is parsed.
 */
export async function readJson(ctx: Context): Promise<unknown> {
  const type = ctx.get('content-type');
  if (!/^application\/json\b/i.test(type)) throw badRequest('Send a JSON body with Content-Type: application/json.');
  const early = (ctx.state as { body?: unknown }).body;
  const bytes = Buffer.isBuffer(early) ? early : await readBody(ctx);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw badRequest('The body is not valid JSON.');
  }
}

/**
 * The rest of a request body a parser did not read (an import that stopped at
 * a broken header, say): read and dropped, so the answer reaches the client
 * whole instead of a reset. Pair with `req.iterator({ destroyOnReturn: false })`.
 */
export async function drainBody(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- each chunk is dropped
  for await (const _ of req.iterator({ destroyOnReturn: false })) continue;
}

/**
 * What is left of a request body, read and dropped for a moment only: true
 * when the body ended within `bytes` and `ms`, false when it did not (the
 * caller then closes the connection after its answer). A client cannot hold
 * the reader at its own pace.
 */
export async function drainBriefly(req: IncomingMessage, limit: { bytes: number; ms: number }): Promise<boolean> {
  if (req.complete) return true;
  if (req.destroyed) return false;
  const chunks = req.iterator({ destroyOnReturn: false });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, limit.ms, 'late')));
  let bytes = 0;
  try {
    for (;;) {
      const next = await Promise.race([chunks.next(), late]);
      if (next === 'late') return false;
      if (next.done) return req.complete;
      bytes += next.value.length;
      if (bytes > limit.bytes) return false;
    }
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
