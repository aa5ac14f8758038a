/**
 * A source as people and receivers see it (`sources list`, the dashboard, the
 * `source.state_changed` webhook event): never its credentials or cursor.
 * Pure, with no imports beyond the record's type, so the stores can build an
 * event's body inside the write that changes the source.
 */
import type { Source, SyncResult } from '../store/types.ts';

export function formatEvery(minutes: number): string {
  return minutes % 1440 === 0 ? `${minutes / 1440}d` : minutes % 60 === 0 ? `${minutes / 60}h` : `${minutes}m`;
}

export interface SourceView {
  id: string;
  orgId: string;
  platform: string;
  account: string;
  name: string;
  state: Source['state'];
  every: string;
  lastSyncAt: string | null;
  lastSuccessAt: string | null;
  /** Null while the source waits for a person (needs_reauth, paused): no sync runs until then. */
  nextSyncAt: string | null;
  lastError: string | null;
  /** Removals a full pass held for a person (CONTRACT §11): how many; 0 when none. */
  heldRemovals: number;
  reviewCount?: number;
  /** `sources list` and the dashboard: the last sync's result (never in a webhook event). */
  lastResult?: SyncResult | null;
  /** The dashboard: the credential fields missing before replies can be posted from here (names only; SourcesService.replyMissing). */
  replyMissing?: string[];
}

export function view(source: Source): SourceView {
  return {
    id: source.id,
    orgId: source.orgId,
    platform: source.platform.toLowerCase(),
    account: source.account,
    name: source.name,
    state: source.state,
    every: formatEvery(source.everyMinutes),
    lastSyncAt: source.lastSyncAt,
    lastSuccessAt: source.lastSuccessAt,
    // The same schedule everywhere (CLI, dashboard, events): a source waiting for a person is not scheduled.
    nextSyncAt: source.state === 'needs_reauth' || source.state === 'paused' ? null : source.nextSyncAt,
    lastError: source.lastError,
    heldRemovals: source.held?.count ?? 0,
  };
}

