/**
 * Jobs without Redis: a timer in this process looks for due sources (the
 * store's `nextSyncAt`, so a schedule survives a restart) and runs them, a
 * few at a time, never two runs of one source at once. Right for the
 * embedded store, which has one writer process anyway.
 *
 * The slots are shared fairly: the due sources are taken one organization
 * after another (each organization's first due source, then each one's
 * second, …), so one organization's many sources due together never hold
 * every slot while another organization's source waits.
 *
 * A run asked for by a person (`runNow`) takes no slot while it waits (it
 * waits on the run in progress, not in a slot), and requests are merged: one
 * made while the source's asked-for run has not started joins it (a full
 * request makes it a full pass), so requests made while a run is in progress
 * make one more run after it, never one each.
 */
import type { Logger } from '../logger.ts';
import type { Due, JobResult, Jobs, SyncHandler, SyncJob } from './jobs.ts';

export interface InProcessOptions<R> {
  handler: SyncHandler<R>;
  /** The sources due at `now` (active or failing, nextSyncAt reached). */
  due: (now: Date) => Promise<Due[]>;
  logger: Logger;
  /** How often due sources are looked for. */
  tickMs?: number;
  concurrency?: number;
}

export class InProcessJobs<R> implements Jobs<R> {
  readonly kind = 'in-process' as const;
  private timer: NodeJS.Timeout | null = null;
  /** The run in progress (or queued) per source. */
  private readonly running = new Map<string, Promise<JobResult<R>>>();
  /** The asked-for run per source that has not started yet (later requests join it). */
  private readonly asked = new Map<string, { job: SyncJob; result: Promise<JobResult<R>> }>();
  private active = 0;
  private closed = false;
  private ticking: Promise<void> | null = null;

  constructor(private readonly options: InProcessOptions<R>) {}

  async schedule(): Promise<void> {
    // The store's nextSyncAt is the schedule: nothing to keep here.
  }

  async unschedule(): Promise<void> {}

  async runNow(job: SyncJob): Promise<R> {
    const waiting = this.asked.get(job.sourceId);
    if (waiting) {
      if (job.full) waiting.job.full = true;
      return (await waiting.result).value;
    }
    const entry = { job: { ...job } } as { job: SyncJob; result: Promise<JobResult<R>> };
    entry.result = this.run(entry.job, () => {
      if (this.asked.get(job.sourceId) === entry) this.asked.delete(job.sourceId);
    });
    this.asked.set(job.sourceId, entry);
    return (await entry.result).value;
  }

  /** One run of the source at a time: a second waits for the first, then runs (`starting` just before it does). */
  private run(job: SyncJob, starting?: () => void): Promise<JobResult<R>> {
    const before = this.running.get(job.sourceId) ?? Promise.resolve(null);
    const mine = before
      .catch(() => undefined)
      .then(async () => {
        starting?.();
        this.active++;
        try {
          return await this.options.handler(job);
        } finally {
          this.active--;
        }
      });
    this.running.set(job.sourceId, mine);
    const forget = () => {
      if (this.running.get(job.sourceId) === mine) this.running.delete(job.sourceId);
    };
    mine.then(forget, forget);
    return mine;
  }

  async start(): Promise<void> {
    const tick = this.options.tickMs ?? 15_000;
    const loop = () => {
      if (this.closed) return;
      this.ticking = this.tick().finally(() => {
        this.ticking = null;
        if (!this.closed) this.timer = setTimeout(loop, tick);
      });
    };
    this.timer = setTimeout(loop, Math.min(tick, 1000));
  }

  private async tick(): Promise<void> {
    const limit = this.options.concurrency ?? 4;
    let due: Due[];
    try {
      due = await this.options.due(new Date());
    } catch (err) {
      this.options.logger.warn({ err: (err as Error).message }, 'sources: could not read the due sources');
      return;
    }
    const queue = inTurns(due.filter((d) => !this.running.has(d.sourceId)));
    const workers = Array.from({ length: Math.min(limit, queue.length) }, async () => {
      for (let d = queue.shift(); d && !this.closed; d = queue.shift()) {
        await this.run({ sourceId: d.sourceId }).catch((err: unknown) => this.options.logger.error({ err, sourceId: d!.sourceId }, 'source sync crashed'));
      }
    });
    await Promise.all(workers);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    await Promise.allSettled([...this.running.values()]);
  }
}

/** `due` (oldest first) reordered one organization after another: each organization's oldest, then each one's next … */
export function inTurns(due: Due[]): Due[] {
  const byOrg = new Map<string, Due[]>();
  for (const d of due) {
    const key = d.orgId ?? d.sourceId;
    let list = byOrg.get(key);
    if (!list) byOrg.set(key, (list = []));
    list.push(d);
  }
  const lists = [...byOrg.values()];
  const out: Due[] = [];
  for (let round = 0; out.length < due.length; round++) for (const list of lists) if (round < list.length) out.push(list[round]!);
  return out;
}
