/**
 * `Invite customers` on the Collect page (CONTRACT §14; Owner, Admin): the
 * request body IS the CSV file (`email,name,productId,orderRef,locale,sendAt`),
 * streamed into the one InvitationsService through the dashboard's shared
 * upload (`streamedUpload`, reviews-import.ts): the same slots (one upload per
 * organization, whatever it imports), pace and length rules, the uploader
 * checked again before each batch, the run kept for GET /invitations/import,
 * and the import audited in the person's name (`invitation.imported`). The
 * answer is the service's summary: created, existing, each skipped and
 * rejected line by number (the first 1,000 of each) and their totals.
 */
import type { Context } from 'koa';
import { ApiError } from '../../errors.ts';
import type { InvitationsService } from '../../invitations/service.ts';
import { importRun } from '../import-runs.ts';
import { auth } from '../session.ts';
import type { DashboardDeps } from './deps.ts';
import { MAX_IMPORT_BYTES, streamedUpload } from './reviews-import.ts';

/** The formats an invitation upload takes: CSV (the CLI takes NDJSON). */
export const INVITATION_UPLOAD_FORMATS = ['csv'] as const;

function service(deps: DashboardDeps): InvitationsService {
  if (!deps.invitations) throw new ApiError(503, 'unavailable', 'Review invitations are not available in this service.');
  return deps.invitations;
}

/** `GET /invitations/import`: the organization's running or last invitation upload, and the largest file taken. */
export function invitationImportStatus() {
  return async function invitationImportStatus(ctx: Context): Promise<void> {
    ctx.body = { run: importRun(auth(ctx).org.id, 'invitations'), maxImportBytes: MAX_IMPORT_BYTES };
    ctx.set('Cache-Control', 'no-store');
  };
}

/** `POST /invitations/import?format=csv`: the file is the body, streamed into InvitationsService.importCsv. */
export function importInvitations(deps: DashboardDeps) {
  return streamedUpload(deps, {
    kind: 'invitations',
    noun: 'invitations',
    formats: INVITATION_UPLOAD_FORMATS,
    cli: 'npm run admin -- invitations create',
    run: (body, _format, { org, user }, hooks) =>
      service(deps).importCsv(org.id, body, {
        actor: user,
        beforeWrite: hooks.beforeWrite,
        progress: hooks.progress,
      }),
    counts: (s) => ({ imported: s.created, updated: s.existing, skippedTotal: s.skippedTotal, rejectedTotal: s.rejectedTotal }),
    again: 'a line whose orderRef and email were imported is not invited twice, and the same address is never mailed twice within 30 days',
  });
}
