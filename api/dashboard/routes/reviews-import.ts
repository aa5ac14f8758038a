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
 * longer than that, so Node's request timeout is ignored for this one request
 * (`isLongUpload`, asked by the server's `clientError` handler when Node reports
 * ERR_HTTP_REQUEST_TIMEOUT; the next request on the connection is timed again)
 * and it gets a defence of its own instead, on the bytes actually received
 * (`paced`): only time spent waiting for the client counts (never the import's
 * own pauses for analysis and writes), and the client must have sent
 * `uploadPace.minBytesPerSecond` for each second of it after a grace period,
 * and never wait `uploadPace.idleMs` for a byte; otherwise the connection is
 * cut. The declared length sets no deadline (it is the client's word).
 *
 * Slots: one upload per organization at a time (429 otherwise), and per
 * process `uploadSlots.large` uploads declaring more than
 * `uploadSlots.smallBytes` (4 MiB) plus `uploadSlots.small` smaller ones, each
 * pool counted on its own. A slot held by a client below the minimum rate is
 * freed after the grace period. A client that keeps the minimum rate keeps its
 * slot until its file is in: up to 512 MiB ÷ 32 KiB/s ≈ 4.5 h, so four
 * organizations uploading large files that slowly keep a fifth organization's
 * LARGE file out (429) that long; a small file is never refused because of
 * other tenants' large uploads, and a small upload at the minimum rate ends
 * within about two minutes. When the import stops reading early (a JSON file
 * that is not an array, a CSV with a broken header) the slot is freed at once;
 * the rest of the body is read for a moment only (`drainBriefly`), then the
 * answer goes out and the connection is closed.
 *
 * The uploader: the session and role are checked again before each batch is
 * written (another process may have removed or demoted the person), and
 * removing or demoting someone in this process ends their uploads at once
 * (`endUploadsOf`). A batch whose write had already begun still lands.
 * Every upload is audited (`reviews.imported`, api/admin/audited-import.ts;
 * `product.imported`, api/products/service.ts), interrupted ones too.
 * Products and invitations are uploaded the same way (`streamedUpload`,
 * routes/products.ts, routes/invitations-import.ts), sharing the slots: one
 * upload per organization, whatever it imports. Shutdown ends uploads still running after its drain time.
 */
import type { Socket } from 'node:net';
import type { Context } from 'koa';
import { auditedImport } from '../../admin/audited-import.ts';
import { drainBriefly } from '../../admin/body.ts';
import { IMPORT_FORMATS, type ImportFormat } from '../../admin/import.ts';
import { ApiError, badRequest, payloadTooLarge } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { importRun, startImportRun, type ImportCounts, type ImportKind } from '../import-runs.ts';
import type { Role } from '../../store/people-types.ts';
import { auth, expired, signInRequired, type DashboardAuth } from '../session.ts';
import type { DashboardDeps } from './deps.ts';

/** The largest file the dashboard takes (512 MiB); larger imports go through the CLI. */
export const MAX_IMPORT_BYTES = 512 * 1024 * 1024;
/** Who may import (the route's role check, repeated before each batch). */
export const IMPORT_ROLES: readonly Role[] = ['owner', 'admin'];

const lengthRequired = (): ApiError =>
  new ApiError(411, 'length_required', 'Send the file with a Content-Length header (browsers do this for a file upload).');

/**
 * Uploads at once: one per organization, and per process a few large ones
 * (each holds up to a batch in memory) and more small ones, in pools of their
 * own (module comment). A variable (not a constant) so that tests can shrink it.
 */
export const uploadSlots = { large: 4, small: 16, smallBytes: 4 * 1024 * 1024 };
/** What is left of a body the import did not read, read and dropped before the answer (then the connection closes). */
const DRAIN = { bytes: 64 * 1024, ms: 2_000 };
/**
 * The slowest upload kept, measured on bytes received over the time spent
 * waiting for them: after `graceMs`, a client must have sent
 * `minBytesPerSecond` for each second waited, and never go `idleMs` without a
 * byte. A variable (not a constant) so that tests can shorten the grace.
 */
export const uploadPace = { graceMs: 20_000, minBytesPerSecond: 32 * 1024, idleMs: 60_000 };

const uploadingOrgs = new Set<string>();
const inUse = { large: 0, small: 0 };
interface InFlight {
  /** The organization it imports into. */
  orgId: string;
  cut(): void;
  /** Settles once the upload's last write has landed (or failed). */
  finished: Promise<void>;
}
/** The in-flight uploads of each person. */
const uploadsByUser = new Map<string, Set<InFlight>>();

/**
 * Ends a person's uploads into one organization in this process (they were
 * removed from it, or demoted there below IMPORT_ROLES) and waits until their last write has landed, so that
 * nothing they upload is written after the removal is answered and audited.
 */
export async function endUploadsOf(userId: string, orgId: string): Promise<void> {
  const uploads = [...(uploadsByUser.get(userId) ?? [])].filter((u) => u.orgId === orgId);
  for (const upload of uploads) upload.cut();
  await Promise.all(uploads.map((u) => u.finished));
}
/** The sockets carrying an upload, per server: they left Node's connection list, so shutdown ends them itself. */
const uploadSockets = new WeakMap<object, Set<Socket>>();

/** Ends the uploads still running on a server that is shutting down (api/server.ts, after its drain time). */
export function endUploads(server: object): void {
  for (const socket of uploadSockets.get(server) ?? []) socket.destroy();
}

const busy = (): ApiError =>
  new ApiError(429, 'import_in_progress', 'An import is still running for this organization (or the service is busy with several). Wait for it to finish, then upload again.', [], { 'Retry-After': '30' });

/**
 * Whether Node's whole-request deadline is to be ignored for this connection's
 * request: it is an upload in progress, which `paced` holds to its own rate.
 * (Node 24 no longer lets a request leave the deadline's list: its parser's
 * `remove()` stops the body from being read at all.)
 */
export function isLongUpload(socket: object): boolean {
  const server = (socket as Socket & { server?: object }).server;
  return server !== undefined && (uploadSockets.get(server)?.has(socket as Socket) ?? false);
}

/**
 * Takes this request out of Node's whole-request deadline (see the module
 * comment); `paced` gives it its own. Registers the socket so that the server
 * lets its request run past the deadline and shutdown can end it.
 */
function allowLongBody(socket: Socket): () => void {
  const server = (socket as Socket & { server?: object }).server;
  let sockets: Set<Socket> | undefined;
  if (server) {
    sockets = uploadSockets.get(server) ?? new Set();
    uploadSockets.set(server, sockets.add(socket));
  }
  return () => {
    sockets?.delete(socket);
  };
}

/**
 * The body as the import reads it, held to `uploadPace` (module comment):
 * the clock runs only while the import waits for the next chunk, and `cut`
 * ends the connection when the wait outlasts what the bytes so far allow.
 */
export async function* paced(source: AsyncIterable<Buffer>, cut: () => void): AsyncGenerator<Buffer> {
  const chunks = source[Symbol.asyncIterator]();
  let bytes = 0;
  let waited = 0;
  try {
    for (;;) {
      const allowed = uploadPace.graceMs + (bytes / uploadPace.minBytesPerSecond) * 1000 - waited;
      const started = Date.now();
      const timer = setTimeout(cut, Math.max(0, Math.min(uploadPace.idleMs, allowed)));
      let next: IteratorResult<Buffer>;
      try {
        next = await chunks.next();
      } finally {
        clearTimeout(timer);
      }
      waited += Date.now() - started;
      if (next.done) return;
      bytes += next.value.length;
      yield next.value;
    }
  } finally {
    await chunks.return?.();
  }
}

/** Throws when the uploader's session has ended or their role no longer allows importing. */
function uploaderCheck({ store, sessions }: DashboardDeps, { session }: DashboardAuth, noun: string): () => Promise<void> {
  return async function uploaderStillAllowed(): Promise<void> {
    const current = await sessions.get(session.id);
    // The membership in the organization the upload goes to (the session's, then and now).
    const user = current && !expired(current, Date.now()) && current.orgId === session.orgId ? await store.people.users.member(current.userId, session.orgId) : null;
    if (!user) throw signInRequired();
    if (!IMPORT_ROLES.includes(user.role)) throw new ApiError(403, 'forbidden_role', `Your role no longer allows importing: the upload was stopped. ${capitalized(noun)} already imported are kept.`);
  };
}

const capitalized = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** What an import run by `streamedUpload` is given: the checks and the progress record it calls as it goes. */
export interface UploadHooks {
  /** Throws when the uploader may no longer import (call it before each write or batch). */
  beforeWrite: () => Promise<void>;
  /** The counts so far, for GET …/import. */
  progress: (counts: ImportCounts) => void;
}

/**
 * One kind of dashboard import (reviews, products): what it is called, the
 * formats it reads, and the import itself, which reads the body as it goes.
 */
export interface UploadKind<S> {
  kind: ImportKind;
  /** "reviews", "products": in the messages. */
  noun: string;
  formats: readonly string[];
  /** The CLI command for files too large for the dashboard. */
  cli: string;
  run: (body: AsyncIterable<Buffer>, format: string, signedIn: DashboardAuth, hooks: UploadHooks, ctx: Context) => Promise<S>;
  /** The run record's counts from the import's answer (reviews and products answer them as they are). */
  counts: (summary: S) => ImportCounts;
  /** Why uploading the file again after an interruption is safe, in words (default: re-importing updates, never duplicates). */
  again?: string;
}

/** `GET /reviews/import`, `GET /products/import`: the organization's running or last upload of that kind (api/dashboard/import-runs.ts). */
export function importStatus(kind: ImportKind = 'reviews') {
  return async function importStatus(ctx: Context): Promise<void> {
    ctx.body = { run: importRun(auth(ctx).org.id, kind) };
    ctx.set('Cache-Control', 'no-store');
  };
}

/** `Import reviews`: the review import of the admin API and the CLI, audited (`reviews.imported`). */
export function importUpload(deps: DashboardDeps) {
  return streamedUpload(deps, {
    kind: 'reviews',
    noun: 'reviews',
    formats: IMPORT_FORMATS,
    cli: 'npm run admin -- reviews import',
    run: (body, format, { org, user }, hooks, ctx) => auditedImport(deps.store, org, user, body, format as ImportFormat, ctx.state.log as Logger, hooks),
    counts: (summary) => summary,
  });
}

/**
 * The streamed upload every dashboard import shares (module comment): the
 * format and length checks, the slots, the pace, the uploader's checks, the
 * run record, and an interrupted upload's answer; `spec.run` does the import.
 */
export function streamedUpload<S>(deps: DashboardDeps, spec: UploadKind<S>) {
  const formats = spec.formats;
  return async function importUpload(ctx: Context): Promise<void> {
    const signedIn = auth(ctx);
    const { org, user } = signedIn;
    const query = new URLSearchParams(ctx.querystring);
    const format = query.get('format');
    const unknown = [...query.keys()].filter((k) => k !== 'format');
    if (format === null || !formats.includes(format) || query.getAll('format').length > 1 || unknown.length > 0) {
      throw badRequest(`Say which format the file is in: format=${formats.join(', format=')}.`, [
        ...(unknown.length > 0 ? unknown.slice(0, 5).map((k) => ({ parameter: k.slice(0, 100), message: 'is not a known parameter' })) : []),
        ...(format === null || !formats.includes(format) ? [{ parameter: 'format', message: `must be one of ${formats.join(', ')}` }] : []),
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
      throw payloadTooLarge(`The file is ${formatMiB(Number(declared))}; the dashboard takes files up to ${formatMiB(MAX_IMPORT_BYTES)}. Split it, or use the CLI (${spec.cli}).`);
    }
    const pool = Number(declared) <= uploadSlots.smallBytes ? 'small' : 'large';
    if (uploadingOrgs.has(org.id) || inUse[pool] >= uploadSlots[pool]) {
      ctx.set('Connection', 'close');
      throw busy();
    }
    uploadingOrgs.add(org.id);
    inUse[pool]++;
    const socket = ctx.req.socket;
    const restore = allowLongBody(socket);
    const cut = (): void => {
      socket.destroy();
    };
    let finish!: () => void;
    const inFlight: InFlight = { orgId: org.id, cut, finished: new Promise<void>((resolve) => (finish = resolve)) };
    const mine = uploadsByUser.get(user.id) ?? new Set();
    uploadsByUser.set(user.id, mine.add(inFlight));
    let held = true;
    /** Frees the organization's slot (once): as soon as the import has stopped reading, whatever is left of the body. */
    const release = (): void => {
      if (!held) return;
      held = false;
      mine.delete(inFlight);
      if (mine.size === 0) uploadsByUser.delete(user.id);
      finish();
      uploadingOrgs.delete(org.id);
      inUse[pool]--;
    };
    // What it keeps, for the person who reloads the page or opens another tab (GET …/import).
    const run = startImportRun(org.id, new Date(), spec.kind);
    try {
      // A parser that stops early (a JSON file that is not an array) must not destroy the request:
      // the summary saying why still has to reach the person.
      const body = paced(ctx.req.iterator({ destroyOnReturn: false }), cut);
      const summary = await spec.run(body, format, signedIn, { beforeWrite: uploaderCheck(deps, signedIn, spec.noun), progress: run.progress }, ctx);
      run.progress(spec.counts(summary));
      run.end('finished');
      release();
      ctx.body = summary;
      // The import may have stopped early: the rest is read for a moment, never at the client's pace.
      if (!(await drainBriefly(ctx.req, DRAIN))) {
        ctx.set('Connection', 'close');
        ctx.res.once('finish', cut);
      }
    } catch (err) {
      // The rest of the body is not read: the connection cannot carry another request.
      ctx.set('Connection', 'close');
      // The uploader's session or role ended (uploaderCheck): its own answer.
      if (err instanceof ApiError) {
        run.end('interrupted');
        throw err;
      }
      // The person cancelled or lost the connection, or was cut off: what was written stays (batches are atomic); not our 500.
      if (ctx.req.destroyed || ctx.req.readableAborted) {
        run.end('interrupted');
        throw new ApiError(400, 'upload_interrupted', `The upload stopped before the whole file arrived. ${capitalized(spec.noun)} already imported are kept; upload the file again to finish (${spec.again ?? 're-importing updates, never duplicates'}).`);
      }
      run.end('failed');
      // Anything else is ours (the store, a worker): logged and answered as such.
      throw err;
    } finally {
      restore();
      release();
    }
    ctx.set('Cache-Control', 'no-store');
  };
}

/** Never rounds a size over the limit down to the limit: 512 MiB + 1 byte reads "512.01 MiB". */
const formatMiB = (bytes: number): string => {
  const mib = bytes / 1024 / 1024;
  const digits = bytes < 10 * 1024 * 1024 ? 1 : 0;
  const shown = mib.toFixed(digits);
  return `${Number(shown) * 1024 * 1024 < bytes ? (Math.ceil(mib * 100) / 100).toFixed(2) : shown} MiB`;
};
