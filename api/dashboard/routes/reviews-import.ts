/**
 * `Import reviews` (Owner, Admin): the request body IS the file (CSV, NDJSON
 * or a JSON array), streamed straight from the socket into the same import as
 * the admin API and the CLI (api/admin/import.ts). Nothing buffers it: the
 * parser pulls chunks as it goes, so the socket's backpressure paces the
 * upload and server memory stays flat whatever the file's size. The answer is
 * the import's summary: imported, updated, each rejected line and reason
 * (the first 1,000) and how many were rejected in all.
 *
 * Long uploads: the HTTPS server ends any request not fully received within
 * 30 s (`requestTimeout`, the slow-body defence). An import of 100 MB takes
 * longer than that, so this one request leaves Node's request-timeout list
 * (the parser's `remove()`: the next request on the connection is timed again)
 * and gets a defence of its own instead: the socket is destroyed after
 * UPLOAD_IDLE_MS without a byte arriving.
 */
import type { Socket } from 'node:net';
import type { Context } from 'koa';
import { importReviews, IMPORT_FORMATS, type ImportFormat } from '../../admin/import.ts';
import { ApiError, badRequest, payloadTooLarge } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { auth } from '../session.ts';
import type { DashboardDeps } from './deps.ts';

/** The largest file the dashboard takes (512 MiB); larger imports go through the CLI. */
export const MAX_IMPORT_BYTES = 512 * 1024 * 1024;
/** An upload that sends nothing for this long is cut off. */
export const UPLOAD_IDLE_MS = 60_000;

const lengthRequired = (): ApiError =>
  new ApiError(411, 'length_required', 'Send the file with a Content-Length header (browsers do this for a file upload).');

/** Takes this request out of Node's whole-request deadline; see the module comment. */
function allowLongBody(socket: Socket): () => void {
  (socket as Socket & { parser?: { remove?: () => void } }).parser?.remove?.();
  socket.setTimeout(UPLOAD_IDLE_MS, () => socket.destroy());
  return () => socket.setTimeout(0);
}

export function importUpload({ store }: DashboardDeps) {
  return async function importUpload(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    const query = new URLSearchParams(ctx.querystring);
    const format = query.get('format');
    const unknown = [...query.keys()].filter((k) => k !== 'format');
    if (format === null || !(IMPORT_FORMATS as readonly string[]).includes(format) || query.getAll('format').length > 1 || unknown.length > 0) {
      throw badRequest(`Say which format the file is in: format=${IMPORT_FORMATS.join(', format=')}.`, [
        ...(unknown.length > 0 ? unknown.slice(0, 5).map((k) => ({ parameter: k.slice(0, 100), message: 'is not a known parameter' })) : []),
        ...(format === null || !(IMPORT_FORMATS as readonly string[]).includes(format) ? [{ parameter: 'format', message: `must be one of ${IMPORT_FORMATS.join(', ')}` }] : []),
      ]);
    }
    const declared = ctx.get('content-length');
    // A body must end where it says: refused before a byte of it is read, the connection closed (no 512 MiB to drain).
    if (declared === '' || !/^\d{1,15}$/.test(declared)) {
      ctx.set('Connection', 'close');
      throw lengthRequired();
    }
    if (Number(declared) > MAX_IMPORT_BYTES) {
      ctx.set('Connection', 'close');
      throw payloadTooLarge(`The file is ${formatMiB(Number(declared))}; the dashboard takes files up to ${formatMiB(MAX_IMPORT_BYTES)}. Split it, or use the CLI (npm run admin -- reviews import).`);
    }
    const restore = allowLongBody(ctx.req.socket);
    try {
      ctx.body = await importReviews(store, org, ctx.req, format as ImportFormat, ctx.state.log as Logger);
    } catch (err) {
      // The person cancelled or lost the connection: what was written stays (batches are atomic); not our 500.
      if (ctx.req.destroyed || !ctx.req.complete) throw new ApiError(400, 'upload_interrupted', 'The upload stopped before the whole file arrived. Reviews already imported are kept; upload the file again to finish (re-importing updates, never duplicates).');
      throw err;
    } finally {
      restore();
    }
    ctx.set('Cache-Control', 'no-store');
  };
}

const formatMiB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MiB`;
