/** A small JSON body reader for the admin API (no body-parser dependency): 64 KiB at most. */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { badRequest, payloadTooLarge } from '../errors.ts';

const LIMIT = 64 * 1024;

export async function readJson(ctx: Context): Promise<unknown> {
  const type = ctx.get('content-type');
  if (!/^application\/json\b/i.test(type)) throw badRequest('Send a JSON body with Content-Type: application/json.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMIT) throw payloadTooLarge(`The body must be at most ${LIMIT} bytes.`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
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
