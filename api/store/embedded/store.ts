/**
 * The embedded store: everything lives in memory and in one durable log in
 * DATA_DIR (durable-log.ts). This process is the log's only writer, which an
 * exclusive lock file enforces. Reviews are indexed by review-index.ts so that
 * lists, deep pages and statistics never scan an organization's reviews.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  ApiKeyRecord,
  KeyStore,
  Organization,
  OrgStore,
  Review,
  ReviewInput,
  ReviewPage,
  ReviewQuery,
  ReviewStats,
  ReviewStore,
  StatsQuery,
  Store,
  UpsertResult,
  Widget,
  WidgetStore,
} from '../types.ts';
import { newId } from '../ids.ts';
import { withOrgDefaults } from '../types.ts';
import { DurableLog, type ReplayResult } from './durable-log.ts';
import { checked, ReviewIndex } from './review-index.ts';
import { EmbeddedPeople } from './people.ts';

type Entry =
  | { t: 'org'; v: Organization }
  | { t: 'key'; v: ApiKeyRecord }
  | { t: 'widget'; v: Widget }
  | { t: 'reviews'; v: Review[] };

const clone = <T>(value: T): T => structuredClone(value);

/**
 * Records are kept frozen and handed out as they are: no copy per read on the
 * hot path (every request reads a key and an organization), and a caller that
 * tried to change one would throw instead of corrupting the store.
 */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

export interface EmbeddedStoreInfo {
  replay: ReplayResult;
  path: string;
  /** The log was rewritten at start-up, superseded records dropped. */
  compacted: boolean;
}

/**
 * Updates append whole records (a re-import, a lastUsedAt touch), so the log
 * holds superseded versions. It is rewritten at start-up once they outnumber
 * the live records (and are more than a few thousand): replay time and disk
 * use stay proportional to the data.
 */
export function shouldCompact(replayedRecords: number, liveRecords: number): boolean {
  const superseded = replayedRecords - liveRecords;
  return superseded > liveRecords && superseded >= 5000;
}

export class EmbeddedStore implements Store {
  readonly kind = 'embedded' as const;
  private readonly orgMap = new Map<string, Organization>();
  private readonly keyMap = new Map<string, ApiKeyRecord>();
  private readonly keyByHash = new Map<string, string>();
  private readonly widgetMap = new Map<string, Widget>();
  private readonly index = new ReviewIndex();
  private log!: DurableLog;
  people!: EmbeddedPeople;
  private lockPath = '';
  private closed = false;
  info!: EmbeddedStoreInfo;

  static async open(dataDir: string): Promise<EmbeddedStore> {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const store = new EmbeddedStore();
    store.lockPath = join(dataDir, 'store.lock');
    await acquireLock(store.lockPath);
    const path = join(dataDir, 'store.log');
    try {
      // A side file left by a compaction that crashed before its rename: the log itself is intact.
      await rm(`${path}.compact`, { force: true });
      let replayed = 0;
      const opened = await DurableLog.open(path, (entry) => {
        replayed += (entry as Entry).t === 'reviews' ? (entry as { v: unknown[] }).v.length : 1;
        store.apply(entry as Entry);
      });
      store.log = opened.log;
      store.people = await EmbeddedPeople.open(dataDir);
      store.info = { replay: opened.replay, path, compacted: false };
      if (shouldCompact(replayed, store.liveRecords())) {
        await store.log.close();
        await DurableLog.rewrite(path, store.snapshot());
        store.log = (await DurableLog.open(path, () => undefined)).log;
        store.info.compacted = true;
      }
    } catch (err) {
      await rm(store.lockPath, { force: true });
      heldLocks.delete(store.lockPath);
      throw err;
    }
    return store;
  }

  /** Records alive now: what a compacted log holds. */
  private liveRecords(): number {
    return this.orgMap.size + this.keyMap.size + this.widgetMap.size + this.index.size;
  }

  /** The current state as log entries (reviews in batches), for compaction. */
  private *snapshot(): IterableIterator<Entry> {
    for (const v of this.orgMap.values()) yield { t: 'org', v };
    for (const v of this.keyMap.values()) yield { t: 'key', v };
    for (const v of this.widgetMap.values()) yield { t: 'widget', v };
    let batch: Review[] = [];
    for (const review of this.index.all()) {
      batch.push(review);
      if (batch.length === 2000) {
        yield { t: 'reviews', v: batch };
        batch = [];
      }
    }
    if (batch.length > 0) yield { t: 'reviews', v: batch };
  }

  private apply(entry: Entry): void {
    if (entry.t !== 'reviews') deepFreeze(entry.v);
    switch (entry.t) {
      case 'org':
        this.orgMap.set(entry.v.id, withOrgDefaults(entry.v));
        break;
      case 'key':
        this.keyMap.set(entry.v.id, entry.v);
        this.keyByHash.set(entry.v.hash, entry.v.id);
        break;
      case 'widget':
        this.widgetMap.set(entry.v.id, entry.v);
        break;
      case 'reviews':
        for (const review of entry.v) this.index.apply(review);
        break;
    }
  }

  private queue: Promise<unknown> = Promise.resolve();

  /**
   * Every read-modify-write runs alone: it reads the current record, waits for
   * its entry to be durable, then makes it visible. Without this, a write that
   * started from a record another write was still syncing would undo it (a
   * revocation overwritten by a lastUsedAt touch, say).
   */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Durable first, visible second: a failed write changes nothing in memory. */
  private async write(entry: Entry): Promise<void> {
    if (this.closed) throw new Error('the store is closed');
    await this.log.append(entry);
    this.apply(entry);
  }

  readonly orgs: OrgStore = {
    create: (org) => this.exclusive(async () => this.write({ t: 'org', v: clone(org) })),
    get: async (id) => this.orgMap.get(id) ?? null,
    list: async () => [...this.orgMap.values()],
    update: (id, patch) =>
      this.exclusive(async () => {
        const org = this.orgMap.get(id);
        if (!org) return null;
        const next: Organization = { ...org, ...patch, updatedAt: new Date().toISOString() };
        await this.write({ t: 'org', v: next });
        return next;
      }),
  };

  readonly keys: KeyStore = {
    create: (key) => this.exclusive(async () => this.write({ t: 'key', v: clone(key) })),
    get: async (id) => this.keyMap.get(id) ?? null,
    findByHash: async (hash) => {
      const id = this.keyByHash.get(hash);
      return (id === undefined ? undefined : this.keyMap.get(id)) ?? null;
    },
    listByOrg: async (orgId) =>
      [...this.keyMap.values()].filter((k) => k.orgId === orgId).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
    revoke: (id, at) =>
      this.exclusive(async () => {
        const key = this.keyMap.get(id);
        if (!key) return null;
        if (key.revokedAt !== null) return key;
        const next = { ...key, revokedAt: at.toISOString() };
        await this.write({ t: 'key', v: next });
        return next;
      }),
    touch: (id, at) =>
      this.exclusive(async () => {
        const key = this.keyMap.get(id);
        if (!key) return;
        await this.write({ t: 'key', v: { ...key, lastUsedAt: at.toISOString() } });
      }),
  };

  readonly widgets: WidgetStore = {
    create: (widget) => this.exclusive(async () => this.write({ t: 'widget', v: clone(widget) })),
    get: async (id) => this.widgetMap.get(id) ?? null,
    listByOrg: async (orgId) =>
      [...this.widgetMap.values()].filter((w) => w.orgId === orgId).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
    update: (id, patch) =>
      this.exclusive(async () => {
        const widget = this.widgetMap.get(id);
        if (!widget) return null;
        const next: Widget = { ...widget, ...clone(patch), updatedAt: new Date().toISOString() };
        await this.write({ t: 'widget', v: next });
        return next;
      }),
  };

  readonly reviews: ReviewStore = {
    list: async (query: ReviewQuery): Promise<ReviewPage> => this.index.list(query),
    stats: async (query: StatsQuery): Promise<ReviewStats> => this.index.stats(query),
    count: async (orgId: string) => this.index.count(orgId),
    upsert: (orgId: string, inputs: ReviewInput[], now: Date): Promise<UpsertResult> =>
      this.exclusive(async () => {
        if (this.closed) throw new Error('the store is closed');
        // Resolve ids first without touching the index, log the batch, then apply it.
        const prepared = this.prepare(orgId, inputs, now);
        await this.log.append({ t: 'reviews', v: prepared.records } satisfies Entry);
        for (const record of prepared.records) this.index.apply(record);
        return { imported: prepared.imported, updated: prepared.updated };
      }),
  };

  /**
   * The full records a batch writes: an existing platform+externalId keeps its
   * id and createdAt; a repeat inside the batch updates the earlier one. Each
   * record is checked as the index would check it, before anything is logged:
   * a record the index refuses must never reach the log, where replaying it
   * would stop the next start-up.
   */
  private prepare(orgId: string, inputs: ReviewInput[], now: Date): UpsertResult & { records: Review[] } {
    const stamp = now.toISOString();
    const inBatch = new Map<string, number>();
    const records: Review[] = [];
    let imported = 0;
    let updated = 0;
    for (const input of inputs) {
      const natural = `${input.platform}\u0000${input.externalId}`;
      const at = inBatch.get(natural);
      if (at !== undefined) {
        const earlier = records[at]!;
        records[at] = checked({ ...earlier, ...input, id: earlier.id, orgId, createdAt: earlier.createdAt, updatedAt: stamp });
        continue;
      }
      const existing = this.index.findByExternal(orgId, input.platform, input.externalId);
      if (existing) {
        updated++;
        records.push(checked({ ...existing, ...input, id: existing.id, orgId, createdAt: existing.createdAt, updatedAt: stamp }));
      } else {
        imported++;
        records.push(checked({ ...input, id: newId('rev'), orgId, createdAt: stamp, updatedAt: stamp }));
      }
      inBatch.set(natural, records.length - 1);
    }
    return { imported, updated, records };
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('the store is closed');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.log.close();
    await this.people.close();
    await rm(this.lockPath, { force: true });
    heldLocks.delete(this.lockPath);
  }
}

/**
 * One writer per DATA_DIR: a lock file holding our pid, created atomically
 * (written under a unique name, then hard-linked into place, so nobody ever
 * sees it empty). A lock left by a dead process (kill -9) is taken over by
 * renaming it aside (only one contender's rename wins); one held by a live
 * process is refused.
 */
const heldLocks = new Set<string>();

async function acquireLock(path: string): Promise<void> {
  if (heldLocks.has(path)) throw new Error(`DATA_DIR is already open in this process (${path}).`);
  // Claimed before the first await: a second open in this process fails at once.
  heldLocks.add(path);
  let taken = false;
  const mine = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
  await writeFile(mine, String(process.pid), { mode: 0o600 });
  const readPid = async (file: string): Promise<number> => Number((await readFile(file, 'utf8').catch(() => '')).trim());
  const inUse = (pid: number) =>
    new Error(`DATA_DIR is in use by process ${pid} (${path}); the embedded store allows one server per data folder. If no server is running, delete that file.`);
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await link(mine, path);
        taken = true;
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const pid = await readPid(path);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) throw inUse(pid);
      const aside = `${path}.stale.${randomBytes(6).toString('hex')}`;
      try {
        await rename(path, aside);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const moved = await readPid(aside);
      if (moved !== pid && Number.isInteger(moved) && moved > 0 && moved !== process.pid && isAlive(moved)) {
        // We raced a live process that had just taken the lock: give it back.
        await link(aside, path).catch(() => undefined);
        await rm(aside, { force: true });
        throw inUse(moved);
      }
      await rm(aside, { force: true });
    }
    throw new Error(`could not take the store lock ${path}`);
  } finally {
    if (!taken) heldLocks.delete(path);
    await rm(mine, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
