/**
 * One sync of one source (CONTRACT §11). Connectors know their platform; the
 * paging, the cursor, the quota, the states and the storage live here, once.
 *
 * - Newest first. An incremental pass stops at the first page holding a
 *   record no newer than the cursor (one request when nothing is new).
 * - A full pass (the first, `--full`, and once a day) reads every page; when
 *   it ends complete, the reviews this source collected that it did not list
 *   are removed (never after a failed or partial pass; never for Yelp; never
 *   a review the source never collected, such as a file
 *   import it never saw).
 *   A removal of more than 10 % of the source's live reviews (and more than
 *   5) is held for a person (`held`, service.ts release/keep) instead.
 * - An answer that is not the platform's documented shape fails the sync
 *   (connector.ts ShapeError) before anything of it is used.
 * - A review that did not change is not written and not counted
 *   (importRecords' `collectedBy`).
 * - Each page is committed as it comes through the file import's door
 *   (importRecords: same validation, enrichment and natural-key upsert). The
 *   cursor moves only when the pass ends well, so a sync killed half-way
 *   keeps every page it committed and the next one reads them again
 *   (idempotent) and finishes.
 * - 429: Retry-After (else exponential back-off) is waited, up to a bound.
 *   Refused credentials: `needs_reauth`, no more calls. Anything else: the
 *   failure is counted; the third in a row makes the source `failing`.
 */
import { importRecords } from '../admin/import.ts';
import type { SourceUrls } from '../config.ts';
import type { EnrichPool } from '../intelligence/pool.ts';
import type { Logger } from '../logger.ts';
import type { SecretBox } from '../secrets/secrets.ts';
import { audit, OPERATOR } from '../dashboard/audit.ts';
import { sourceAuditTarget } from '../dashboard/audit-words.ts';
import type { HeldRemovals, Source, SourcePatch, SourceState, Store } from '../store/types.ts';
import { AuthError, CredentialsError, PlatformError, RateLimitError, type ConnectorContext, type ImportRecord } from './connector.ts';
import { CONNECTORS } from './connectors.ts';
import type { HttpClient } from './http.ts';
import { syncResult } from './result.ts';

export const DAY_MS = 24 * 3600_000;
/** Failed syncs in a row that make a source `failing`. */
export const FAILING_AFTER = 3;
/**
 * Empty pages in a row that still name a next page, read before the pass is given up as
 * incomplete (a platform may answer an empty page mid-list; one that never ends is a fault).
 */
export const MAX_EMPTY_PAGES = 5;
/** Rejections listed in a summary. */
const MAX_REJECTED = 100;
/** A full pass removing more than this share of the source's live reviews (and more than HOLD_MIN) is held for a person. */
export const HOLD_SHARE = 0.1;
export const HOLD_MIN = 5;

/** Whether removing `gone` of the `live` reviews a source collected waits for a person (CONTRACT §11). */
export function holds(gone: number, live: number): boolean {
  return gone > HOLD_MIN && gone > live * HOLD_SHARE;
}

/** The platform's name in words: `TRUSTPILOT` → `Trustpilot`. */
export const platformName = (platform: string): string => (platform === 'G2' ? 'G2' : `${platform.charAt(0)}${platform.slice(1).toLowerCase()}`);

type RemovalAction = 'reviews.removed' | 'reviews.removal_held' | 'reviews.removal_kept';

/**
 * The audit record of a source's removals (held, made, kept): the count, the platform, how it came
 * about (`sync`: the pass by itself; `released`/`kept`: a person's answer to a hold), and the same in
 * words (`words`, what the Audit page shows). `by: 'service'` when no person or operator acted.
 */
export async function auditRemovals(store: Store, source: Source, actor: Parameters<typeof audit>[2], action: RemovalAction, count: number, how: 'sync' | 'released' | 'kept'): Promise<void> {
  const platform = platformName(source.platform);
  const reviews = `${count} ${count === 1 ? 'review' : 'reviews'} ${platform} no longer lists`;
  const words =
    action === 'reviews.removal_held'
      ? `${reviews}: more than 10 % of the source's reviews, waiting for Remove them or Keep them`
      : action === 'reviews.removal_kept'
        ? `${reviews}, kept`
        : how === 'released'
          ? `${reviews}, after Remove them`
          : reviews;
  await audit(store, source.orgId, actor, action, sourceAuditTarget(source), { count: String(count), platform, how, words, ...(how === 'sync' && { by: 'service' }) });
}

/** Removes the reviews given, as a full pass would, and audits it (auditRemovals). */
export async function removeAudited(store: Store, source: Source, externalIds: string[], at: Date, unseenSince: Date, actor: Parameters<typeof audit>[2], how: 'sync' | 'released'): Promise<number> {
  const removed = externalIds.length === 0 ? 0 : await store.reviews.remove(source.orgId, source.platform, externalIds, at, unseenSince);
  if (removed > 0) await auditRemovals(store, source, actor, 'reviews.removed', removed, how);
  return removed;
}

export interface SyncDeps {
  store: Store;
  box: SecretBox;
  /** Shared connections, trust and resolver; each sync counts its own requests and lookups (fork(orgId)). */
  http: HttpClient;
  urls: SourceUrls;
  googleOAuth: { clientId: string; clientSecret: string } | null;
  logger: Logger;
  pool?: EnrichPool | null;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** The longest platform wait (Retry-After or back-off) taken inside one sync; beyond it the sync ends and the next is put off. */
  maxWaitMs?: number;
  /** Milliseconds per minute of a source's interval (tests shorten it; jobs.ts minuteMs). */
  minuteMs?: number;
}

export interface SyncSummary {
  id: string;
  state: SourceState;
  fetched: number;
  created: number;
  updated: number;
  removed: number;
  /** Present when this pass held its removals for a person (CONTRACT §11): how many. */
  held?: number;
  rejected: { externalId: string; reason: string }[];
  requests: number;
}

export interface SyncOutcome {
  summary: SyncSummary;
  /** Set when the sync failed for a reason worth retrying (not refused credentials). */
  error: string | null;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Back-off after `failures` failed syncs in a row: 1, 2, 4 … minutes, never beyond the source's interval. */
export function backoffMs(failures: number, everyMinutes: number, minuteMs = 60_000): number {
  return Math.min(everyMinutes * minuteMs, minuteMs * 2 ** Math.max(0, failures - 1));
}

export class SourceNotFoundError extends Error {}

/** Whether a hold holds exactly `ids` (ids are unique per platform). */
function sameIds(hold: HeldRemovals | null, ids: string[]): boolean {
  if (!hold || hold.externalIds.length !== ids.length) return false;
  const held = new Set(hold.externalIds);
  return ids.every((id) => held.has(id));
}

export async function syncSource(deps: SyncDeps, sourceId: string, options: { full?: boolean } = {}): Promise<SyncOutcome> {
  const { store, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const sleep = deps.sleep ?? defaultSleep;
  const maxWaitMs = deps.maxWaitMs ?? 60_000;
  const minute = deps.minuteMs ?? 60_000;
  const source = await store.sources.get(sourceId);
  if (!source) throw new SourceNotFoundError(`source ${sourceId} was not found`);
  const summary: SyncSummary = { id: source.id, state: source.state, fetched: 0, created: 0, updated: 0, removed: 0, rejected: [], requests: 0 };
  // Waiting for a person: no call at all until the source is reconnected.
  if (source.state === 'needs_reauth' || source.state === 'paused') return { summary, error: null };
  const org = await store.orgs.get(source.orgId);
  if (!org) throw new SourceNotFoundError(`the organization of source ${sourceId} was not found`);
  const connector = CONNECTORS[source.platform];
  const http = deps.http.fork(source.orgId);
  const started = now();
  const log = logger.child({ sourceId: source.id, platform: source.platform });
  /** Whether this pass is a full one (known once the credentials are open; kept in the result). */
  let fullPass = options.full === true;

  const finish = async (patch: SourcePatch, error: string | null): Promise<SyncOutcome> => {
    summary.requests = http.requests;
    const updated = await store.sources.update(source.id, { lastSyncAt: started.toISOString(), ...patch, lastResult: syncResult(summary, fullPass, patch, error, now()) });
    summary.state = updated?.state ?? source.state;
    log.info({ state: summary.state, fetched: summary.fetched, created: summary.created, updated: summary.updated, removed: summary.removed, rejected: summary.rejected.length, requests: summary.requests }, error ? 'source sync failed' : 'source synced');
    return { summary, error };
  };

  let credentials: unknown;
  try {
    credentials = connector.parseCredentials(deps.box.openJson(source.credentials, source.id));
  } catch (err) {
    const why = err instanceof CredentialsError ? err.message : 'the stored credentials cannot be opened with this SECRETS_KEY';
    return finish({ state: 'needs_reauth', lastError: `${why}: reconnect the source` }, null);
  }
  const ctx: ConnectorContext<unknown> = { account: source.account, credentials, http, urls: deps.urls, googleOAuth: deps.googleOAuth, session: new Map() };
  const full = options.full === true || source.cursor === null || source.lastFullAt === null || started.getTime() - Date.parse(source.lastFullAt) >= DAY_MS;
  fullPass = full;
  const seen = new Set<string>();
  let newest = source.cursor;
  let next: string | null = null;
  /** Set only when the platform said there is no next page: the one condition for removals. */
  let reachedEnd = false;
  let emptyInARow = 0;
  const tokens = new Set<string>();

  const fetchPage = async () => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await connector.fetchPage(ctx, next);
      } catch (err) {
        if (!(err instanceof RateLimitError)) throw err;
        const wait = err.retryAfterMs ?? 1000 * 2 ** attempt;
        if (wait > maxWaitMs || attempt >= 5) throw err;
        log.info({ waitMs: wait }, 'platform rate limit: waiting');
        await sleep(wait);
      }
    }
  };

  try {
    for (;;) {
      const page = await fetchPage();
      summary.fetched += page.records.length;
      let atCursor = false;
      const fresh: ImportRecord[] = [];
      for (const record of page.records) {
        const time = connector.cursorTime(record);
        const mapped = connector.map(record);
        seen.add(mapped.externalId);
        if (newest === null || time > newest) newest = time;
        if (!full && source.cursor !== null && time <= source.cursor) {
          atCursor = true;
          continue;
        }
        fresh.push(mapped);
      }
      if (fresh.length > 0) {
        // The file import's door: same validation, enrichment and upsert by platform + externalId.
        const result = await importRecords(store, org, fresh.map((record, i) => ({ line: i + 1, record })), deps.pool, { collectedBy: source.id });
        summary.created += result.imported;
        summary.updated += result.updated;
        for (const r of result.rejected) {
          if (summary.rejected.length < MAX_REJECTED) summary.rejected.push({ externalId: fresh[r.line - 1]?.externalId ?? '', reason: r.reason });
        }
      }
      if (page.next === null) {
        reachedEnd = true;
        break;
      }
      if (atCursor) break;
      emptyInARow = page.records.length === 0 ? emptyInARow + 1 : 0;
      if (emptyInARow >= MAX_EMPTY_PAGES) {
        throw new PlatformError(`${connector.platform.charAt(0)}${connector.platform.slice(1).toLowerCase()} answered ${emptyInARow} empty pages in a row that still pointed to a next page: the pass is incomplete (nothing was removed); it will be tried again`);
      }
      // A next page already read in this pass: the platform is going round in a circle.
      if (tokens.has(page.next)) throw new PlatformError(`${connector.platform.charAt(0)}${connector.platform.slice(1).toLowerCase()} pointed back to a page it had already given: the pass is incomplete (nothing was removed); it will be tried again`);
      tokens.add(page.next);
      next = page.next;
    }
  } catch (err) {
    const at = now();
    if (err instanceof AuthError) {
      return finish({ state: 'needs_reauth', lastError: err.message, nextSyncAt: new Date(at.getTime() + source.everyMinutes * minute).toISOString() }, null);
    }
    const failures = source.failures + 1;
    const message = err instanceof Error && err.name !== 'Error' ? err.message : `unexpected error while syncing (${(err as Error).message ?? String(err)})`;
    const waitMs = err instanceof RateLimitError ? Math.max(err.retryAfterMs ?? 0, backoffMs(failures, source.everyMinutes, minute)) : backoffMs(failures, source.everyMinutes, minute);
    const state: SourceState = failures >= FAILING_AFTER ? 'failing' : source.state;
    const lastError = failures >= FAILING_AFTER ? `${failures} syncs in a row failed; the last: ${message}` : message;
    return finish({ state, failures, lastError, nextSyncAt: new Date(at.getTime() + waitMs).toISOString() }, lastError);
  }

  // A complete full pass: what this source collected and the platform no longer lists is removed (never for Yelp),
  // or held for a person when it is much (`holds`). The pass's result replaces an earlier hold. The held ids are
  // written (beside the source record) only when the hold is made or changes: a sync that leaves it as it is
  // writes nothing about it (review 4, M-B).
  const before = source.held ?? null;
  let holding: Pick<SourcePatch, 'held' | 'unheld'> = {};
  if (full && reachedEnd && connector.removal) {
    const collected = await store.reviews.externalIds(source.orgId, source.platform, source.id);
    const gone = collected.filter((id) => !seen.has(id));
    if (holds(gone.length, collected.length)) {
      summary.held = gone.length;
      // The same ids as the hold already has: kept as it is (its date too), nothing written.
      const same = before !== null && before.count === gone.length && sameIds(await store.sources.held(source.id), gone);
      if (!same) holding = { held: { externalIds: gone, since: started.toISOString() } };
      // Audited when the hold is new or changed (a daily pass finding the same is not news).
      if (before?.count !== gone.length) {
        await auditRemovals(store, source, OPERATOR, 'reviews.removal_held', gone.length, 'sync');
      }
    } else {
      if (before) holding = { held: null };
      // Only what nobody wrote since this pass began: a review upserted meanwhile (an import) was seen again.
      summary.removed = await removeAudited(store, source, gone, now(), started, OPERATOR, 'sync');
    }
  } else if (before && seen.size > 0) {
    // Listed again since the hold: no longer a removal to decide (asked about what this pass saw, not the whole hold).
    const again = await store.sources.heldAmong(source.id, [...seen]);
    if (again.length > 0) holding = { unheld: again };
  }
  const at = now();
  return finish(
    {
      ...holding,
      state: 'active',
      failures: 0,
      lastError: null,
      cursor: newest,
      lastSuccessAt: at.toISOString(),
      ...(full && reachedEnd && { lastFullAt: at.toISOString() }),
      nextSyncAt: new Date(at.getTime() + source.everyMinutes * minute).toISOString(),
    },
    null,
  );
}
