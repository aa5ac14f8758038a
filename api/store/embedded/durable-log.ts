/**
 * An append-only log with group commit: the embedded store's only durable
 * structure. Each line is `<crc32 as 8 hex> <json>\n`; an append resolves only
 * after its bytes are fsync'ed, so an acknowledged write survives `kill -9`.
 *
 * On open the log is replayed. A torn or corrupt LAST line (a crash in the
 * middle of a write) is detected by its missing newline or checksum, dropped and
 * truncated away: never fatal. A corrupt line followed by good ones is not a
 * torn write but damage, and opening fails with its byte offset rather than
 * silently dropping acknowledged data.
 */
import { open as openFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { StoreUnavailableError } from '../unavailable.ts';

/**
 * How files are opened: `fs/promises.open` unless a test injects a wrapper
 * (to count fdatasync calls, or to fail them). Every write, sync and close of
 * the log and of its folder goes through handles it returns.
 */
export type OpenFile = (path: string, flags: string | number, mode?: number) => Promise<FileHandle>;

/** fsync of a folder: makes a file created or renamed in it durable. */
export async function syncFolder(path: string, open: OpenFile = openFile): Promise<void> {
  const folder = await open(path, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

export class LogCorruptError extends Error {
  override name = 'LogCorruptError';
}

export interface ReplayResult {
  /** Lines replayed. */
  entries: number;
  /** Bytes of a torn tail that were dropped (0 when the log was clean). */
  droppedBytes: number;
}

const NEWLINE = 0x0a;
/** Bytes written per round at most (one entry may be larger on its own). */
const ROUND_BYTES = 64 * 1024 * 1024;

/**
 * A log line, `<crc32 as 8 hex> <json>\n`, as the UTF-8 bytes written: the
 * text is converted once, and checksummed over those bytes (the same value as
 * over the JSON text, which zlib would convert again).
 */
export function encodeLine(json: string): Buffer {
  const line = Buffer.from(`00000000 ${json}\n`, 'utf8');
  const crc = crc32(line.subarray(9, line.length - 1));
  line.write(crc.toString(16).padStart(8, '0'), 0, 'latin1');
  return line;
}

/** An entry's log line. */
export function encodeEntry(entry: unknown): Buffer {
  return encodeLine(JSON.stringify(entry));
}

const SPACE = 0x20;

/** The 8 lower-case hex digits at `at` as a number (as `encode` writes them), or -1. */
function checksumAt(bytes: Buffer, at: number): number {
  let value = 0;
  for (let i = at; i < at + 8; i++) {
    const c = bytes[i]!;
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x61 + 10 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * Parses the line at bytes[start, end) (without its newline); null when torn or
 * corrupt. The checksum is computed over the line's bytes as they lie in the
 * read buffer (what `encode` checksummed: the JSON's UTF-8), so the text is
 * decoded into a string once, for JSON.parse only (start-up replays every line).
 */
function decode(bytes: Buffer, start: number, end: number): unknown {
  if (end - start < 10 || bytes[start + 8] !== SPACE) return null;
  const expected = checksumAt(bytes, start);
  if (expected < 0 || crc32(bytes.subarray(start + 9, end)) !== expected) return null;
  try {
    return JSON.parse(bytes.toString('utf8', start + 9, end)) as unknown;
  } catch {
    return null;
  }
}

interface Pending {
  bytes: Buffer;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * The disk refusing writes (full, over quota, failing): a condition of the
 * machine that may pass, answered 503 with Retry-After (StoreUnavailableError)
 * rather than 500, the store reported not ready until a write succeeds again.
 */
const DISK_CODES = new Set(['ENOSPC', 'EDQUOT', 'EIO']);
export const isDiskError = (err: unknown): boolean => DISK_CODES.has((err as NodeJS.ErrnoException)?.code ?? '');

export class DurableLog {
  /** The disk error of the last write round, until a round succeeds. */
  diskFailure: Error | null = null;
  private queue: Pending[] = [];
  private writing: Promise<void> | null = null;
  private closed = false;
  /** Set when a failed write could not be cut back off: no append is safe until a restart. */
  private broken: Error | null = null;
  /** Why every append is refused until a restart (a failed write that could not be cut back off), or null. */
  get brokenBy(): Error | null {
    return this.broken;
  }

  private constructor(
    private readonly file: FileHandle,
    private size: number,
  ) {}

  /**
   * Opens (creating if needed) and replays the log, calling `onEntry` for every
   * intact entry in order.
   */
  static async open(path: string, onEntry: (entry: unknown) => void, open: OpenFile = openFile): Promise<{ log: DurableLog; replay: ReplayResult }> {
    const created = await stat(path).then(
      () => false,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return true;
        throw err;
      },
    );
    const file = await open(path, 'a+', 0o600);
    // A new file's name is durable only once its folder is synced: without this a crash could lose the whole log.
    if (created) await syncFolder(dirname(path), open);
    const { size } = await file.stat();
    const chunkSize = 8 << 20;
    const buffer = Buffer.allocUnsafe(chunkSize);
    let carry: Buffer = Buffer.alloc(0);
    let position = 0;
    let goodEnd = 0;
    let entries = 0;
    let badAt = -1;

    while (position < size) {
      const { bytesRead } = await file.read(buffer, 0, Math.min(chunkSize, size - position), position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const chunk: Buffer = carry.length ? Buffer.concat([carry, buffer.subarray(0, bytesRead)]) : Buffer.from(buffer.subarray(0, bytesRead));
      let start = 0;
      let nl = chunk.indexOf(NEWLINE, start);
      while (nl !== -1) {
        const lineStart = position - chunk.length + start;
        const entry = decode(chunk, start, nl);
        if (entry === null) {
          if (badAt === -1) badAt = lineStart;
        } else {
          if (badAt !== -1) {
            await file.close();
            throw new LogCorruptError(
              `${path}: corrupt entry at byte ${badAt} is followed by intact entries; refusing to drop acknowledged data. Restore from a backup or move the file aside.`,
            );
          }
          onEntry(entry);
          entries++;
          goodEnd = lineStart + (nl - start) + 1;
        }
        start = nl + 1;
        nl = chunk.indexOf(NEWLINE, start);
      }
      carry = chunk.subarray(start);
    }

    let droppedBytes = 0;
    if (goodEnd < size) {
      // A torn tail: a line without its newline, or a bad last line. Drop it.
      droppedBytes = size - goodEnd;
      await file.truncate(goodEnd);
      await file.datasync();
    }
    return { log: new DurableLog(file, goodEnd), replay: { entries, droppedBytes } };
  }

  /**
   * Replaces the log at `path` with `entries`, atomically: they are written to a
   * side file and fsync'ed, which is then renamed over the log (and the folder
   * fsync'ed). A crash at any point leaves either the old log or the new one.
   * The log must not be open for appending meanwhile.
   */
  static async rewrite(path: string, entries: Iterable<unknown>, open: OpenFile = openFile): Promise<{ bytes: number }> {
    const side = `${path}.compact`;
    const file = await open(side, 'w', 0o600);
    let bytes = 0;
    try {
      let chunk: Buffer[] = [];
      let chunkBytes = 0;
      const flush = async (): Promise<void> => {
        const data = Buffer.concat(chunk, chunkBytes);
        await file.write(data);
        bytes += data.length;
        chunk = [];
        chunkBytes = 0;
      };
      for (const entry of entries) {
        const line = encodeEntry(entry);
        chunk.push(line);
        chunkBytes += line.length;
        if (chunkBytes >= 8 * 1024 * 1024) await flush();
      }
      if (chunk.length > 0) await flush();
      await file.datasync();
    } catch (err) {
      await file.close();
      await rm(side, { force: true });
      throw err;
    }
    await file.close();
    await rename(side, path);
    await syncFolder(dirname(path), open);
    return { bytes };
  }

  /** Opens a log just written by `rewrite` for appending, without replaying it. */
  static async reopen(path: string, bytes: number, open: OpenFile = openFile): Promise<DurableLog> {
    const file = await open(path, 'a', 0o600);
    return new DurableLog(file, bytes);
  }

  get bytes(): number {
    return this.size;
  }

  /** Appends entries; resolves once they are on disk. */
  append(...entries: unknown[]): Promise<void> {
    let lines: Buffer[];
    try {
      lines = entries.map(encodeEntry);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return this.appendLines(lines);
  }

  /** Appends lines already made by `encodeLine` (a caller that encodes ahead, in slices); resolves once they are on disk. */
  appendLines(lines: Buffer[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    // The machine's condition, not a bug: 503 (the store reports itself not ready until a restart).
    if (this.broken) return Promise.reject(this.unrepaired());
    const bytes = lines.length === 1 ? lines[0]! : Buffer.concat(lines);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ bytes, resolve, reject });
      if (!this.writing) this.writing = this.drain();
    });
  }

  /** Writes whatever is queued with one fsync per round (group commit). */
  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        await this.writeRound();
      }
    } finally {
      this.writing = null;
    }
  }

  /** One round: as many queued appends as fit in ROUND_CHARS (at least one), one fsync. */
  private async writeRound(): Promise<void> {
    let take = 0;
    let bytes = 0;
    while (take < this.queue.length && (take === 0 || bytes + this.queue[take]!.bytes.length <= ROUND_BYTES)) {
      bytes += this.queue[take]!.bytes.length;
      take++;
    }
    const batch = this.queue.splice(0, take);
    try {
      const data = batch.length === 1 ? batch[0]!.bytes : Buffer.concat(batch.map((p) => p.bytes), bytes);
      let written = 0;
      while (written < data.length) {
        const { bytesWritten } = await this.file.write(data, written, data.length - written);
        written += bytesWritten;
      }
      await this.file.datasync();
      this.size += data.length;
      this.diskFailure = null;
      for (const p of batch) p.resolve();
    } catch (err) {
      // Cut a partial write back off, durably, so that later appends stay
      // readable and a crash cannot bring back records that were refused.
      // If even that fails, the file's state is unknown: refuse every later
      // append until a restart replays the log.
      try {
        await this.file.truncate(this.size);
        await this.file.datasync();
      } catch {
        this.broken = err as Error;
      }
      const disk = !this.broken && isDiskError(err);
      if (disk) this.diskFailure = err as Error;
      const refusal = this.broken ? this.unrepaired() : disk ? new StoreUnavailableError('embedded', { cause: err }) : (err as Error);
      for (const p of batch) p.reject(refusal);
    }
  }

  private unrepaired(): StoreUnavailableError {
    return new StoreUnavailableError('embedded', {
      cause: new Error(`the store log could not be repaired after a failed write (${this.broken?.message}); restart the server`, { cause: this.broken }),
    });
  }

  /** Waits for queued writes, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.writing) await this.writing;
    await this.file.close();
  }
}
