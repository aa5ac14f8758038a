/**
 * Background work has one door (STYLE.md): `Jobs`, with two implementations
 * chosen once in the composition root (server.ts): BullMQ on Redis
 * (bullmq.ts) when REDIS_URL is set, in process (in-process.ts) otherwise.
 * The handler is a plain function of the job's data; it never knows which
 * queue runs it. Today's one job: a source's sync.
 */
export interface SyncJob {
  sourceId: string;
  full?: boolean;
  /** Whose source: with Redis, an organization's syncs hold at most a share of an instance's slots (absent: the source is its own share). */
  orgId?: string;
}

/** What a run answers; `retry` asks the queue to try again with back-off (a failure worth retrying). */
export interface JobResult<R> {
  value: R;
  retry: string | null;
}

export type SyncHandler<R> = (job: SyncJob) => Promise<JobResult<R>>;

/** Syncs of one organization running at once per instance (BullMQ) or process (in process), at most: half of the default 4 slots. */
export const ORG_SLOTS = 2;

/** A source's schedule as the store holds it (the in-process scheduler reads these). */
export interface Due {
  sourceId: string;
  /** Whose source: the in-process runner takes the organizations in turn (absent: each source its own turn). */
  orgId?: string;
  /** When it is due (ISO). */
  nextSyncAt: string;
}

export interface Jobs<R> {
  readonly kind: 'bullmq' | 'in-process';
  /** The source is synced every `everyMs` from now on (idempotent: a schedule is replaced). */
  schedule(sourceId: string, everyMs: number, orgId?: string): Promise<void>;
  unschedule(sourceId: string): Promise<void>;
  /**
   * Runs the source's sync soon, after any run of it in progress anywhere, and answers its result.
   * Merged: a request while the source's asked-for run waits joins it (a full one makes it full),
   * and requests while it runs make one more run after it, not one each.
   */
  runNow(job: SyncJob): Promise<R>;
  /** Starts taking work. */
  start(): Promise<void>;
  /** Stops taking work and waits for the runs in progress. */
  close(): Promise<void>;
}

/** Interval units: a source's `every` is in minutes; tests shorten the minute (SOURCES_MINUTE_MS). */
export function minuteMs(env: Record<string, string | undefined> = process.env): number {
  const raw = env.SOURCES_MINUTE_MS;
  const n = raw === undefined || raw === '' ? 60_000 : Number(raw);
  return Number.isInteger(n) && n >= 100 ? n : 60_000;
}
