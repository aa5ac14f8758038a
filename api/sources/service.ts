/**
 * Sources as the admin API and the dashboard use them (CONTRACT §11): add,
 * list, sync now, reconnect, remove. Credentials are sealed here, before the
 * store sees them, and never leave: `view` is the only shape answered.
 * Credentials are proved first (verify.ts): add and reconnect store nothing
 * until the platform served a page with them, and a new (or reconnected)
 * source's sync starts at once, not on the scheduler's next look.
 */
import type { SourceUrls } from '../config.ts';
import { badRequest, notFound, ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Jobs, JobResult, SyncJob } from '../jobs/jobs.ts';
import type { SecretBox } from '../secrets/secrets.ts';
import { newId } from '../store/ids.ts';
import { SOURCE_PLATFORMS, type Source, type SourcePlatform, type Store } from '../store/types.ts';
import { accountSegments } from './account.ts';
import { CredentialsError } from './connector.ts';
import { CONNECTORS } from './connectors.ts';
import { MAX_SOURCES, SourceActionLimiter } from './limits.ts';
import { audit, OPERATOR } from '../dashboard/audit.ts';
import { auditRemovals, removeAudited, syncSource, type SyncDeps, type SyncOutcome, type SyncSummary } from './sync.ts';
import { verifyCredentials, type PlatformAccess } from './verify.ts';

/** Who decides about held removals: a person on the dashboard, or the operator (admin API, CLI). */
export type Decider = Parameters<typeof audit>[2];

export const DEFAULT_EVERY_MINUTES = 60;
export const MIN_EVERY_MINUTES = 1;
export const MAX_EVERY_MINUTES = 7 * 24 * 60;
export { MAX_SOURCES };

/** The same account on the platform: the ids compared without case or surrounding space. */
const sameAccount = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Refused before anything is stored: the organization's sources already hold this platform
 * account (409 naming the source that has it), or the organization is at its cap.
 */
function checkRoom(existing: Source[], platform: SourcePlatform, account: string): void {
  const same = existing.find((s) => s.platform === platform && sameAccount(s.account, account));
  if (same) {
    throw new ApiError(409, 'source_exists', `This ${platform === 'GOOGLE' ? 'Google location' : `${platform.charAt(0)}${platform.slice(1).toLowerCase()} account`} (${account}) is already connected as “${same.name}” (${same.id}): reconnect that source instead.`);
  }
  if (existing.length >= MAX_SOURCES) {
    throw new ApiError(409, 'source_limit_reached', `This organization already has ${existing.length} sources, the most it may have (${MAX_SOURCES}): remove one first.`);
  }
}

/** `60m`, `2h`, `1d` or a number of minutes. */
export function parseEvery(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_EVERY_MINUTES;
  const m = /^(\d+)\s*(m|min|h|d)?$/.exec(String(value).trim());
  const minutes = m ? Number(m[1]) * (m[2] === 'h' ? 60 : m[2] === 'd' ? 1440 : 1) : Number.NaN;
  if (!Number.isInteger(minutes) || minutes < MIN_EVERY_MINUTES || minutes > MAX_EVERY_MINUTES) {
    throw badRequest('every must be a duration such as 15m, 2h or 1d, at least 1 minute', [{ parameter: 'every', message: 'at least 1m, at most 7d' }]);
  }
  return minutes;
}

export { formatEvery, view, type SourceView } from './view.ts';
import { view, type SourceView } from './view.ts';

export interface AddSource {
  orgId: string;
  platform: string;
  account: string;
  name?: string;
  every?: unknown;
  credentials: unknown;
}

function platformOf(value: string): SourcePlatform {
  const upper = value.trim().toUpperCase();
  if (upper === 'CAPTERRA') throw badRequest('Capterra has no public reviews API: import its reviews from a file (reviews import)', [{ parameter: 'platform', message: 'file import only' }]);
  if (!(SOURCE_PLATFORMS as readonly string[]).includes(upper)) {
    throw badRequest(`platform must be one of ${SOURCE_PLATFORMS.map((p) => p.toLowerCase()).join(', ')}`, [{ parameter: 'platform', message: 'unknown platform' }]);
  }
  return upper as SourcePlatform;
}

export class SourcesService {
  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    private readonly jobs: Jobs<SyncSummary>,
    private readonly minuteMs: number,
    /** The platforms, to prove credentials before they are stored. */
    private readonly platforms: PlatformAccess,
    /** Counts the actions that call a platform per organization (limits.ts; shared in Redis when built with it): in process when absent. */
    private readonly actions: SourceActionLimiter = new SourceActionLimiter(null),
  ) {}

  /**
   * Counts one action of `orgId` that calls a platform on request (connect, reconnect, sync now,
   * and the dashboard's Google start and locations); past the rate, the 429.
   */
  takeAction(orgId: string): Promise<void> {
    return this.actions.take(orgId);
  }

  close(): void {
    this.actions.close();
  }

  /** The handler the jobs run: a plain function of the job's data. */
  static handler(deps: SyncDeps): (job: SyncJob) => Promise<JobResult<SyncSummary>> {
    return async (job) => {
      const outcome: SyncOutcome = await syncSource(deps, job.sourceId, { full: job.full });
      return { value: outcome.summary, retry: outcome.error };
    };
  }

  /** The platform's fields, checked (only these are kept); a 400 naming what is wrong. */
  private parse(platform: SourcePlatform, credentials: unknown): unknown {
    try {
      return CONNECTORS[platform].parseCredentials(credentials);
    } catch (err) {
      if (err instanceof CredentialsError) throw badRequest(err.message, [{ parameter: 'credentials', message: err.message }]);
      throw err;
    }
  }

  /** Checked, then proved with one call to the platform (verify.ts), then sealed: nothing is stored before the platform accepted them. */
  private async proved(orgId: string, platform: SourcePlatform, account: string, id: string, credentials: unknown): Promise<string> {
    const checked = this.parse(platform, credentials);
    await verifyCredentials(this.platforms, orgId, platform, account, checked);
    return this.box.sealJson(checked, id);
  }

  /** Starts the source's sync now without waiting for it (its result lands on the source: `lastResult`). */
  private syncSoon(id: string, orgId: string): void {
    // The sync logs its own outcome; a source removed meanwhile is no error here.
    this.jobs.runNow({ sourceId: id, orgId }).catch(() => undefined);
  }

  async add(input: AddSource): Promise<SourceView> {
    const platform = platformOf(input.platform);
    const account = input.account.trim();
    // The id goes into the platform's URL path: `..`, `/`, `?`, `#` or `%` would take the credentials elsewhere (account.ts).
    const checked = accountSegments(platform, account);
    if ('problem' in checked) throw badRequest(`account ${checked.problem}`, [{ parameter: 'account', message: checked.problem }]);
    const everyMinutes = parseEvery(input.every);
    // Counted once the request is well formed, before the platform is asked.
    await this.takeAction(input.orgId);
    // Several sources of one platform (a chain's locations: CONTRACT §15), never the same account twice: each
    // review records the source that collected it, and a full pass removes only what its own source collected.
    checkRoom(await this.store.sources.listByOrg(input.orgId), platform, account);
    const id = newId('src');
    const credentials = await this.proved(input.orgId, platform, account, id, input.credentials);
    // Again once the platform answered (seconds may have passed): a connection of the same account, or the last place, meanwhile.
    checkRoom(await this.store.sources.listByOrg(input.orgId), platform, account);
    const now = new Date();
    const source: Source = {
      id,
      orgId: input.orgId,
      platform,
      account,
      name: (input.name ?? '').trim().slice(0, 200) || `${platform.charAt(0)}${platform.slice(1).toLowerCase()} ${account}`.slice(0, 200),
      state: 'active',
      everyMinutes,
      credentials,
      cursor: null,
      lastSyncAt: null,
      lastSuccessAt: null,
      lastFullAt: null,
      nextSyncAt: now.toISOString(),
      lastError: null,
      failures: 0,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    await this.store.sources.create(source);
    await this.jobs.schedule(id, everyMinutes * this.minuteMs, input.orgId);
    this.syncSoon(id, input.orgId);
    return view(source);
  }

  async get(id: string): Promise<Source> {
    const source = await this.store.sources.get(id);
    if (!source) throw notFound('Source');
    return source;
  }

  async list(orgId: string): Promise<SourceView[]> {
    const sources = await this.store.sources.listByOrg(orgId);
    if (sources.length === 0) return [];
    // Each source's own reviews (several may share a platform), counted from the store's per-source index.
    const counts = await Promise.all(sources.map((s) => this.store.reviews.list({ orgId, sourceIds: [s.id], limit: 1, offset: 0 }).then((page) => page.total)));
    return sources.map((s, i) => ({ ...view(s), lastResult: s.lastResult ?? null, reviewCount: counts[i]!, replyMissing: this.replyMissing(s) }));
  }

  /**
   * The credential fields a source lacks before its platform lets anyone reply
   * from here (CONTRACT §15; Trustpilot: `apiSecret`, `businessUserId`), by
   * name only: [] when nothing is missing or the platform has no reply API.
   * The credentials are opened here and nothing of them leaves but the names.
   */
  replyMissing(source: Source): string[] {
    const connector = CONNECTORS[source.platform];
    if (!connector?.replies) return [];
    let credentials: Record<string, unknown>;
    try {
      credentials = this.box.openJson<Record<string, unknown>>(source.credentials, source.id);
    } catch {
      return []; // Sealed under a key no longer configured: the sync says so, not this.
    }
    if (connector.replies.missing(credentials) === null) return [];
    return connector.credentialFields.filter((f) => credentials[f] === undefined || credentials[f] === null || credentials[f] === '');
  }

  async sync(id: string, full: boolean): Promise<SyncSummary> {
    const source = await this.get(id);
    await this.takeAction(source.orgId);
    return this.jobs.runNow({ sourceId: id, full, orgId: source.orgId });
  }

  async reconnect(id: string, credentials: unknown): Promise<SourceView> {
    const source = await this.get(id);
    await this.takeAction(source.orgId);
    // Proved before anything changes: a refused key leaves the source (its state, its credentials) as it was.
    const sealed = await this.proved(source.orgId, source.platform, source.account, id, credentials);
    const updated = await this.store.sources.update(id, {
      credentials: sealed,
      state: 'active',
      failures: 0,
      lastError: null,
      nextSyncAt: new Date().toISOString(),
    });
    if (!updated) throw notFound('Source');
    await this.jobs.schedule(id, updated.everyMinutes * this.minuteMs, updated.orgId);
    this.syncSoon(id, updated.orgId);
    return view(updated);
  }

  /**
   * A person's answer to held removals (CONTRACT §11): "Remove them". The reviews the
   * held full pass did not list are removed (review.removed sent), except those written
   * since that pass began (listed again, or imported): they stay, as after any pass.
   */
  async releaseRemovals(id: string, actor: Decider = OPERATOR): Promise<{ id: string; removed: number }> {
    const source = await this.get(id);
    // The hold goes first, in one step with reading its ids (takeHeld): a second answer meanwhile finds nothing
    // to release. A crash before the removal loses no review: they stay, and the next full pass holds them again.
    const held = await this.store.sources.takeHeld(id);
    if (!held) return { id, removed: 0 };
    const removed = await removeAudited(this.store, source, held.externalIds, new Date(), new Date(held.since), actor, 'released');
    return { id, removed };
  }

  /**
   * "Keep them": the held reviews stay, and this source no longer counts them as
   * collected (ReviewStore.disown), so no later full pass removes them; if the
   * platform lists one again, the source collects it again.
   */
  async keepRemovals(id: string, actor: Decider = OPERATOR): Promise<{ id: string; kept: number }> {
    const source = await this.get(id);
    const held = await this.store.sources.takeHeld(id);
    if (!held) return { id, kept: 0 };
    const kept = await this.store.reviews.disown(source.orgId, source.platform, held.externalIds, source.id);
    if (kept > 0) await auditRemovals(this.store, source, actor, 'reviews.removal_kept', kept, 'kept');
    return { id, kept };
  }

  async remove(id: string): Promise<{ id: string; removed: true; source: Source }> {
    const source = await this.get(id);
    await this.jobs.unschedule(id);
    await this.store.sources.delete(id);
    return { id, removed: true, source };
  }

  /** At start-up: every source's schedule is there (idempotent; BullMQ keeps them in Redis). */
  async ensureSchedules(): Promise<void> {
    for (const source of await this.store.sources.listAll()) await this.jobs.schedule(source.id, source.everyMinutes * this.minuteMs, source.orgId);
  }
}

/**
 * The platform refused a source's authorization outside a sync (a reply, CONTRACT §15): the source
 * becomes `needs_reauth` exactly as a sync's refusal makes it (the store records its
 * source.state_changed), and nothing calls the platform with it until a person reconnects it.
 */
export async function refuseSource(store: Store, sourceId: string, reason: string): Promise<void> {
  await store.sources.update(sourceId, { state: 'needs_reauth', lastError: reason });
}

/** The sources due at `now` for the in-process scheduler: active or failing, nextSyncAt reached. */
export async function dueSources(store: Store, now: Date): Promise<{ sourceId: string; orgId: string; nextSyncAt: string }[]> {
  const at = now.toISOString();
  return (await store.sources.listAll())
    .filter((s) => (s.state === 'active' || s.state === 'failing') && s.nextSyncAt <= at)
    .sort((a, b) => a.nextSyncAt.localeCompare(b.nextSyncAt))
    .map((s) => ({ sourceId: s.id, orgId: s.orgId, nextSyncAt: s.nextSyncAt }));
}
