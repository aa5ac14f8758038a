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
 * UPLOAD_IDLE_MS without a byte arriving, or when the file takes longer than
 * at 32 KiB/s; one upload per organization and four per process at a time
 * (429 otherwise); shutdown ends uploads still running after its drain time.
 */
import type { Socket } from 'node:net';
import type { Context } from 'koa';
import { drainBody } from '../../admin/body.ts';
import { importReviews, IMPORT_FORMATS, type ImportFormat } from '../../admin/import.ts';
import { ApiError, badRequest, payloadTooLarge } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { importRun, startImportRun } from '../import-runs.ts';
import { auth } from '../session.ts';
import type { DashboardDeps } from './deps.ts';

/** The largest file the dashboard takes (512 MiB); larger imports go through the CLI. */
export const MAX_IMPORT_BYTES = 512 * 1024 * 1024;
/** An upload that sends nothing for this long is cut off. */
export const UPLOAD_IDLE_MS = 60_000;

const lengthRequired = (): ApiError =>
  new ApiError(411, 'length_required', 'Send the file with a Content-Length header (browsers do this for a file upload).');

/** Uploads at once: one per organization, a few per process (each holds up to a batch in memory). */
export const MAX_UPLOADS_PER_PROCESS = 4;
/** The slowest upload kept: below this average rate (after the first two minutes) it is cut off. */
export const MIN_UPLOAD_BYTES_PER_SECOND = 32 * 1024;

const uploadingOrgs = new Set<string>();
/** The sockets carrying an upload, per server: they left Node's connection list, so shutdown ends them itself. */
const uploadSockets = new WeakMap<object, Set<Socket>>();

/** Ends the uploads still running on a server that is shutting down (api/server.ts, after its drain time). */
export function endUploads(server: object): void {
  for (const socket of uploadSockets.get(server) ?? []) socket.destroy();
}

const busy = (): ApiError =>
  new ApiError(429, 'import_in_progress', 'An import is still running for this organization (or the service is busy with several). Wait for it to finish, then upload again.', [], { 'Retry-After': '30' });

/** `GET /reviews/import`: the organization's running or last upload and what it has kept (api/dashboard/import-runs.ts). */
export function importStatus() {
  return async function importStatus(ctx: Context): Promise<void> {
    ctx.body = { run: importRun(auth(ctx).org.id) };
    ctx.set('Cache-Control', 'no-store');
  };
}

/**
 * Takes this request out of Node's whole-request deadline (see the module
 * comment) and gives it its own: UPLOAD_IDLE_MS without a byte, or longer
 * than the file takes at MIN_UPLOAD_BYTES_PER_SECOND (two minutes at least).
 */
function allowLongBody(socket: Socket, bytes: number): () => void {
  (socket as Socket & { parser?: { remove?: () => void } }).parser?.remove?.();
  const end = (): void => {
    socket.destroy();
  };
  socket.setTimeout(UPLOAD_IDLE_MS);
  socket.on('timeout', end);
  const deadline = setTimeout(end, Math.max(120_000, (bytes / MIN_UPLOAD_BYTES_PER_SECOND) * 1000));
  deadline.unref();
  const server = (socket as Socket & { server?: object }).server;
  let sockets: Set<Socket> | undefined;
  if (server) {
    sockets = uploadSockets.get(server) ?? new Set();
    uploadSockets.set(server, sockets.add(socket));
  }
  return () => {
    socket.setTimeout(0);
    socket.off('timeout', end);
    clearTimeout(deadline);
    sockets?.delete(socket);
  };
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
    if (uploadingOrgs.has(org.id) || uploadingOrgs.size >= MAX_UPLOADS_PER_PROCESS) {
      ctx.set('Connection', 'close');
      throw busy();
    }
    uploadingOrgs.add(org.id);
    const restore = allowLongBody(ctx.req.socket, Number(declared));
    // What it keeps, for the person who reloads the page or opens another tab (GET /reviews/import).
    const run = startImportRun(org.id);
    try {
      // A parser that stops early (a JSON file that is not an array) must not destroy the request:
      // the summary saying why still has to reach the person.
      const summary = await importReviews(store, org, ctx.req.iterator({ destroyOnReturn: false }), format as ImportFormat, ctx.state.log as Logger, undefined, run.progress);
      run.progress(summary);
      run.end('finished');
      ctx.body = summary;
      await drainBody(ctx.req);
    } catch (err) {
      // The person cancelled or lost the connection: what was written stays (batches are atomic); not our 500.
      if (ctx.req.destroyed || ctx.req.readableAborted) {
        run.end('interrupted');
        throw new ApiError(400, 'upload_interrupted', 'The upload stopped before the whole file arrived. Reviews already imported are kept; upload the file again to finish (re-importing updates, never duplicates).');
      }
      run.end('failed');
      // Anything else is ours (the store, a worker): logged and answered as such.
      throw err;
    } finally {
      restore();
      uploadingOrgs.delete(org.id);
    }
    ctx.set('Cache-Control', 'no-store');
  };
}

const formatMiB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MiB`;
