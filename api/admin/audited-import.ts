/**
 * An import with its audit record (CONTRACT §6), for the dashboard's upload
 * and the admin API alike: `reviews.imported` names who (a user, or the
 * operator), the format, the bytes read, what was imported, updated and
 * rejected, and whether the import was interrupted. It is written when the
 * import ends, however it ends: an interrupted import keeps the batches that
 * landed, so it is audited with what they held.
 */
import { audit, OPERATOR } from '../dashboard/audit.ts';
import type { Logger } from '../logger.ts';
import type { User } from '../store/people-types.ts';
import type { Organization, Store } from '../store/types.ts';
import { sharedEnrichPool } from '../intelligence/pool.ts';
import { importReviews, type ImportFormat, type ImportOptions, type ImportSummary } from './import.ts';

export async function auditedImport(
  store: Store,
  org: Organization,
  actor: Pick<User, 'id' | 'email'> | typeof OPERATOR,
  source: AsyncIterable<Buffer>,
  format: ImportFormat,
  logger: Logger,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  let bytes = 0;
  async function* counted(): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      bytes += chunk.length;
      yield chunk;
    }
  }
  // The counts of the batches that landed, also when the import ends early.
  let landed: Readonly<Pick<ImportSummary, 'imported' | 'updated' | 'rejectedTotal'>> = { imported: 0, updated: 0, rejectedTotal: 0 };
  let interrupted = true;
  try {
    const summary = await importReviews(store, org, counted(), format, logger, sharedEnrichPool(), {
      ...options,
      progress: (counts) => {
        landed = counts;
        options.progress?.(counts);
      },
    });
    landed = summary;
    interrupted = false;
    return summary;
  } finally {
    const details = {
      format,
      bytes: String(bytes),
      imported: String(landed.imported),
      updated: String(landed.updated),
      rejected: String(landed.rejectedTotal),
      interrupted: interrupted ? 'yes' : 'no',
    };
    // A failed audit write never hides the import's own outcome (or error): it is logged.
    await audit(store, org.id, actor, 'reviews.imported', { id: org.id, label: `${format.toUpperCase()} file` }, details).catch((err: unknown) =>
      logger.error({ err, orgId: org.id }, 'could not write the import audit record'),
    );
  }
}
