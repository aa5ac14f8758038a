/**
 * One writer per DATA_DIR: an exclusive OS-level lock (fcntl open-file-description
 * lock on Linux, through fs-native-extensions) on `DATA_DIR/store.lock`. The
 * kernel holds it across PID namespaces (two containers on one volume, a
 * rolling update) and releases it when the holder dies, kill -9 included, so
 * there is no stale lock to take over and nothing to guess from a pid.
 *
 * The file is never deleted: deleting it while another server holds a lock on
 * it would let a third create a fresh file and lock that. The pid and host
 * written into it are only for the operator's message.
 */
import { constants } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tryLock, unlock } from 'fs-native-extensions';

export const LOCK_FILE = 'store.lock';

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

export class DataDirLock {
  private constructor(private readonly file: FileHandle) {}

  static async acquire(dataDir: string): Promise<DataDirLock> {
    const path = join(dataDir, LOCK_FILE);
    const file = await open(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    let locked = false;
    try {
      locked = tryLock(file.fd);
    } catch (err) {
      await file.close();
      throw new Error(`cannot lock ${path}: ${(err as Error).message}`);
    }
    if (!locked) {
      await file.close();
      const holder = (await readFile(path, 'utf8').catch(() => '')).trim();
      throw new DataDirInUseError(
        `DATA_DIR ${dataDir} is in use by another server${holder ? ` (${holder})` : ''}: the embedded store allows one server per data folder. Stop the other server, or give this one its own DATA_DIR.`,
      );
    }
    // Ours now: say who holds it, for the message another server will print.
    const note = `pid ${process.pid} on ${hostname()} since ${new Date().toISOString()}\n`;
    await file.truncate(0);
    await file.write(note, 0, 'utf8');
    return new DataDirLock(file);
  }

  /** Releases the lock (the file stays). */
  async release(): Promise<void> {
    try {
      unlock(this.file.fd);
    } finally {
      await this.file.close();
    }
  }
}
