/**
 * A sync's result as the source keeps it (`lastResult`, CONTRACT §11): the
 * counts of its summary and, when it failed, why. Pure: sync.ts writes it with
 * the sync's last update of the source, the dashboard reads it back.
 */
import type { SourcePatch, SyncResult } from '../store/types.ts';
import type { SyncSummary } from './sync.ts';

/** The result of a sync that ends with `patch` (the source's last update) and `error` (set when worth retrying). */
export function syncResult(summary: SyncSummary, full: boolean, patch: SourcePatch, error: string | null, at: Date): SyncResult {
  const outcome: SyncResult['outcome'] = patch.state === 'needs_reauth' ? 'refused' : error !== null ? 'failed' : 'succeeded';
  return {
    at: at.toISOString(),
    full,
    outcome,
    fetched: summary.fetched,
    created: summary.created,
    updated: summary.updated,
    removed: summary.removed,
    /** Listed up to 100 in the summary: the count kept is of those. */
    rejected: summary.rejected.length,
    error: outcome === 'succeeded' ? null : (error ?? patch.lastError ?? null),
  };
}
