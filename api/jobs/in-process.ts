/**
 * Jobs without Redis: a timer in this process looks for due sources (the
 * store's `nextSyncAt`, so a schedule survives a restart) and runs them, a
 * few at a time, never two runs of one source at once. Right for the
 * embedded store, which has one writer process anyway.
 *
 * No run holds the timer (issue 34, fourth review M-A): each tick reads the
 * due sources and starts them into the free slots (4) without waiting for
 * them; those left over start as slots free, until the next tick reads the
 * list again. So one long sync (a large account's daily full pass, a
 * platform answering 429 for minutes) holds its own slot and nothing else
 * (before: a tick waited for all its syncs, and every other organization's
 * due sources waited for the longest one).
 *
 * The slots are shared fairly:
 * - the due sources are taken one organization after another (each
 *   organization's first due source, then each one's second, …);
 * - an organization runs at most `orgSlots` (ORG_SLOTS: 2) syncs at once,
 *   scheduled and asked-for together, as with BullMQ: a due source of an
 *   organization at its share is passed over for the next organization's,
 *   and starts once its organization has a place again;
 * - a due source whose run is still going is passed over: a later tick
 *   takes it, after that run (a source never runs twice at once).
 *
 * A run asked for by a person (`runNow`) takes none of the 4 slots: it
 * waits for the source's run in progress, then for a place of its
 * organization (ahead of that organization's scheduled runs). Requests are
 * merged: one made while the source's asked-for run has not started joins
 * it (a full request makes it a full pass), so requests made while a run is
 * in progress make one more run after it, never one each.
 *
 * A sync has no overall time cap here: the handler cannot be stopped from
 * outside, and a slot freed while its sync goes on would let syncs pile up
 * beyond any share. A long sync holds one of its organization's 2 places.
 */
import { PerKeyLimit } from '../net/per-key-limit.ts';
import type { Logger } from '../logger.ts';
import { ORG_SLOTS, type Due, type JobResult, type Jobs, type SyncHandler, type SyncJob } from './jobs.ts';

export interface InProcessOptions<R> {
  handler: SyncHandler<R>;
  /** The sources due at `now` (active or failing, nextSyncAt reached). */
  due: (now: Date) => Promise<Due[]>;
  logger: Logger;
  /** How often due sources are looked for. */
  tickMs?: number;
  /** Scheduled syncs running at once (the slots). */
  concurrency?: number;
  /** Syncs of one organization running at once, scheduled and asked-for together, at most: ORG_SLOTS when absent. */
  orgSlots?: number;
}

export class InProcessJobs<R> implements Jobs<R> {
  readonly kind = 'in-process' as const;
  private timer: NodeJS.Timeout | null = null;
  /** The run in progress (or waiting) per source. */
  private readonly running = new Map<string, Promise<JobResult<R>>>();
  /** The asked-for run per source that has not started yet (later requests join it). */
  private readonly asked = new Map<string, { job: SyncJob; result: Promise<JobResult<R>> }>();
  /** Each organization's places: its scheduled and asked-for runs together. */
  private readonly orgs: PerKeyLimit;
  /** Scheduled runs in progress: the slots they hold. */
  private busy = 0;
  /** The last tick's due sources not started yet, in turns. */
  private pending: Due[] = [];
  private closed = false;
  private ticking: Promise<void> | null = null;

  constructor(private readonly options: InProcessOptions<R>) {
    this.orgs = new PerKeyLimit(Math.max(1, options.orgSlots ?? ORG_SLOTS));
  }

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

  /** An asked-for run: after the source's run in progress, in a place of its organization (`starting` just before it runs). */
  private run(job: SyncJob, starting: () => void): Promise<JobResult<R>> {
    const before = this.running.get(job.sourceId) ?? Promise.resolve(null);
    const mine = before
      .catch(() => undefined)
      .then(() =>
        this.orgs.run(job.orgId ?? job.sourceId, () => {
          starting();
          return this.options.handler(job);
        }),
      );
    this.track(job.sourceId, mine);
    return mine;
  }

  /** `run` is the source's run in progress until it ends. */
  private track(sourceId: string, run: Promise<JobResult<R>>): void {
    this.running.set(sourceId, run);
    const forget = () => {
      if (this.running.get(sourceId) === run) this.running.delete(sourceId);
    };
    run.then(forget, forget);
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

  /** Reads the due sources and starts what the free slots take; never waits for a sync. */
  private async tick(): Promise<void> {
    let due: Due[];
    try {
      due = await this.options.due(new Date());
    } catch (err) {
      this.options.logger.warn({ err: (err as Error).message }, 'sources: could not read the due sources');
      return;
    }
    if (this.closed) return;
    this.pending = inTurns(due.filter((d) => !this.running.has(d.sourceId)));
    this.fill();
  }

  /** Starts pending due sources, in turns, while a slot is free: one running already is dropped (a later tick takes it), one whose organization is at its share stays for later. */
  private fill(): void {
    const limit = this.options.concurrency ?? 4;
    for (let i = 0; i < this.pending.length && this.busy < limit && !this.closed; ) {
      const d = this.pending[i]!;
      if (this.running.has(d.sourceId)) {
        this.pending.splice(i, 1);
        continue;
      }
      const run = this.orgs.tryRun(d.orgId ?? d.sourceId, () => this.options.handler({ sourceId: d.sourceId }));
      if (!run) {
        i++;
        continue;
      }
      this.pending.splice(i, 1);
      this.busy++;
      this.track(d.sourceId, run);
      run
        .then(
          () => undefined,
          (err: unknown) => this.options.logger.error({ err, sourceId: d.sourceId }, 'source sync crashed'),
        )
        .finally(() => {
          this.busy--;
          this.fill();
        });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    this.pending = [];
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
