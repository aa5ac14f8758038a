/**
 * The dashboard's uploads as a person can ask about them after a reload or
 * from another tab (`GET /dashboard/api/reviews/import`, `…/products/import`, `…/invitations/import`): per organization and kind,
 * the upload running now, or the last one and how it ended, with what it has
 * kept so far (its batches are atomic, so those reviews stay whatever happens
 * next). Kept in this process, like the one-upload-per-organization rule it
 * describes (api/dashboard/routes/reviews-import.ts): an upload runs on the
 * instance that received it, and the person's next request usually reaches
 * the same one; on another instance the answer is "nothing known".
 */

export type ImportRunState = 'running' | 'finished' | 'interrupted' | 'failed';

export interface ImportRun {
  state: ImportRunState;
  startedAt: string;
  endedAt: string | null;
  /** Reviews written so far (new and updated): they stay, however the upload ends. */
  imported: number;
  updated: number;
  rejectedTotal: number;
  /** Invitations only: lines stored as `skipped` by the rules (recently invited, unsubscribed). */
  skippedTotal?: number;
}

/** For invitations, `imported` counts the invitations created and `updated` the lines whose orderRef and email were invited before. */
export interface ImportCounts {
  imported: number;
  updated: number;
  rejectedTotal: number;
  skippedTotal?: number;
}

/** Organizations (and kinds) remembered at most (the oldest forgotten first): bounded whatever the traffic. */
const MAX_ORGS = 10_000;
const runs = new Map<string, ImportRun>();

/** What an upload imports: each kind has its own running or last upload per organization. */
export type ImportKind = 'reviews' | 'products' | 'invitations';

/** Starts the record of an upload; the returned functions update and end it. */
export function startImportRun(orgId: string, now = new Date(), kind: ImportKind = 'reviews'): { progress: (counts: ImportCounts) => void; end: (state: Exclude<ImportRunState, 'running'>) => void } {
  const run: ImportRun = { state: 'running', startedAt: now.toISOString(), endedAt: null, imported: 0, updated: 0, rejectedTotal: 0, ...(kind === 'invitations' && { skippedTotal: 0 }) };
  const key = `${kind}:${orgId}`;
  runs.delete(key);
  if (runs.size >= MAX_ORGS) runs.delete(runs.keys().next().value!);
  runs.set(key, run);
  return {
    progress: ({ imported, updated, rejectedTotal, skippedTotal }) => Object.assign(run, { imported, updated, rejectedTotal }, skippedTotal !== undefined && { skippedTotal }),
    end: (state) => Object.assign(run, { state, endedAt: new Date().toISOString() }),
  };
}

/** The organization's running or last upload (a copy), or null when none is known here. */
export function importRun(orgId: string, kind: ImportKind = 'reviews'): ImportRun | null {
  const run = runs.get(`${kind}:${orgId}`);
  return run ? { ...run } : null;
}
