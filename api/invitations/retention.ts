/**
 * Invitation retention (review 9 M4): invitations that ENDED (`reviewed`,
 * `cancelled`, `skipped`, `expired`, `failed`, or an `unsent` link once it
 * expired: `endedAt` in invitation-types.ts) are removed INVITATION_RETENTION_DAYS
 * after they ended (180 by default, at least 90). With them go the invitee's
 * address and the order record; the organization's count goes down, so the
 * cap (DEFAULT_MAX_PER_ORG) counts what is kept. Live invitations are never
 * removed, and the unsubscribed list (keys, no address) is kept.
 *
 * Why at least 90 days: the Collect page's conversion over 90 days counts
 * the invitations sent in that window, and one ends no sooner than it is
 * sent; the 30-day rule looks back 30 days. Removing later than that changes
 * no figure and no decision.
 *
 * The purge runs by itself once a day (and once at start-up) on the keyed
 * job door (BullMQ with REDIS_URL, in process otherwise; one key: one run at a
 * time across every instance), bounded per run (batches of PURGE_BATCH, at
 * most PURGE_PER_RUN, then it gives its slot back and asks to run again) and
 * fair across organizations (one has at most PURGE_PER_ORG of a run while
 * others wait: the store leaves it out of the next batches). A run with
 * nothing to purge is one store read. It logs how many it removed, per
 * organization (never an address).
 *
 * The operator's commands (api/admin/invitations.ts): `invitations purge`
 * runs it now (for one organization, or as of an earlier cutoff), and
 * `invitations erase` removes every invitation of one address at once.
 */
import type { KeyedHandler, KeyedQueue } from '../jobs/keyed-work.ts';
import type { Logger } from '../logger.ts';
import { DEFAULT_RETENTION_DAYS } from '../store/invitation-types.ts';
import type { Store } from '../store/types.ts';

const DAY_MS = 86_400_000;

/** Invitations removed per store call. */
export const PURGE_BATCH = 500;
/** Invitations one run removes at most before it gives its slot back (and asks to run again). */
export const PURGE_PER_RUN = 10_000;
/** One organization's share of a run: past it, the others' come first. */
export const PURGE_PER_ORG = 2_000;
/** How often the purge runs by itself. */
export const PURGE_EVERY_MS = DAY_MS;
/** The job's one key. */
export const RETENTION_KEY = 'invitations-retention';

export interface PurgeResult {
  /** Invitations removed. */
  purged: number;
  /** The same per organization (only those that had some). */
  organizations: Record<string, number>;
  /** The cutoff: invitations that ended before it were removed. */
  endedBefore: string;
  /** The run stopped at its bound with work left. */
  more: boolean;
}

export interface InvitationRetentionOptions {
  store: Store;
  logger: Logger;
  /** INVITATION_RETENTION_DAYS. */
  retentionDays?: number;
  now?: () => Date;
  batch?: number;
  perRun?: number;
  perOrg?: number;
  /** Told how many each store call removed (the metric `invitations_purged_total`). */
  onPurged?: (count: number) => void;
}

export class InvitationRetention {
  readonly retentionDays: number;
  private readonly now: () => Date;
  private queue: KeyedQueue<Record<string, never>> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: InvitationRetentionOptions) {
    this.retentionDays = options.retentionDays ?? DEFAULT_RETENTION_DAYS;
    this.now = options.now ?? (() => new Date());
  }

  /** The cutoff now: invitations that ended before it are removed. */
  cutoff(): Date {
    return new Date(this.now().getTime() - this.retentionDays * DAY_MS);
  }

  /**
   * One bounded run: batches of the store's oldest ended invitations until
   * none is left or `perRun` went (`more`). `endedBefore` (the operator's
   * --before; never later than the cutoff, the caller checks) and `orgId`
   * narrow it.
   */
  async purge(options: { endedBefore?: Date; orgId?: string; perRun?: number } = {}): Promise<PurgeResult> {
    const endedBefore = (options.endedBefore ?? this.cutoff()).toISOString();
    const batch = Math.max(1, this.options.batch ?? PURGE_BATCH);
    const perRun = Math.max(1, options.perRun ?? this.options.perRun ?? PURGE_PER_RUN);
    const perOrg = Math.max(1, this.options.perOrg ?? PURGE_PER_ORG);
    const result: PurgeResult = { purged: 0, organizations: {}, endedBefore, more: false };
    for (;;) {
      if (this.closed) return result;
      if (result.purged >= perRun) return { ...result, more: true };
      // An organization that had its share waits for the next run (unless it is the only one asked for).
      const skipOrgs = options.orgId !== undefined ? [] : Object.keys(result.organizations).filter((org) => result.organizations[org]! >= perOrg);
      const removed = await this.options.store.invitations.purge(endedBefore, Math.min(batch, perRun - result.purged), {
        ...(options.orgId !== undefined && { orgId: options.orgId }),
        ...(skipOrgs.length > 0 && { skipOrgs }),
      });
      const n = Object.values(removed).reduce((a, b) => a + b, 0);
      for (const [org, k] of Object.entries(removed)) result.organizations[org] = (result.organizations[org] ?? 0) + k;
      result.purged += n;
      if (n > 0) this.options.onPurged?.(n);
      // Nothing more for the others: those left out may have more, for the next run.
      if (n === 0) return { ...result, more: skipOrgs.length > 0 };
    }
  }

  /** The job's handler: one bounded run, logged with its counts; its slot back and asked again while work is left. */
  readonly handler: KeyedHandler<Record<string, never>> = async () => {
    const result = await this.purge();
    if (result.purged > 0) this.options.logger.info({ purged: result.purged, organizations: result.organizations, endedBefore: result.endedBefore, retentionDays: this.retentionDays }, 'invitations: ended invitations purged');
    return result.more && !this.closed ? { again: true } : undefined;
  };

  /**
   * Starts the schedule on the keyed job door: a run now and every `everyMs`
   * (a day), one at a time across every instance. The composition root calls
   * it once, whether or not invitations are mailed.
   */
  async start(queue: KeyedQueue<Record<string, never>>, everyMs: number = PURGE_EVERY_MS): Promise<void> {
    this.queue = queue;
    await queue.start(this.handler);
    this.timer = setInterval(() => this.request(), everyMs);
    this.timer.unref();
    this.request();
  }

  /** Asks for a run soon. */
  request(): void {
    if (this.closed) return;
    this.queue?.request({ key: RETENTION_KEY, data: {}, upkeep: true }).catch((err: unknown) => this.options.logger.warn({ err: (err as Error).message }, 'invitations: could not ask for a purge'));
  }

  /** Stops asking; a run in progress stops after its current batch. */
  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
