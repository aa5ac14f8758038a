/**
 * `reviews enrich`: the AI fields of an organization's stored reviews
 * computed again (CONTRACT §9). Without `force` only the missing ones are
 * filled (reviews imported before enrichment existed, or with partial AI
 * fields); with `force` all of them, language included, are recomputed.
 * Reviews are read page by page in the list order (which an update does not
 * change) and written back through the same upsert as an import, so the id,
 * createdAt and everything else stay as they were.
 */
import { enrich, type AiFields } from '../intelligence/enrich.ts';
import type { Organization, Review, ReviewInput, Store } from '../store/types.ts';
import { yieldEvery } from './yield-every.ts';

/** Reviews read and written per store call. */
const PAGE = 1000;

export interface EnrichSummary {
  /** Reviews whose AI fields changed. */
  enriched: number;
  /** Reviews left as they were (nothing missing, or the same values computed). */
  skipped: number;
}

function sameFields(r: Review, f: AiFields): boolean {
  return (
    r.language === f.language &&
    r.sentiment === f.sentiment &&
    r.sentimentLabel === f.sentimentLabel &&
    r.aiSummary === f.aiSummary &&
    r.aiThemes.length === f.aiThemes.length &&
    r.aiThemes.every((t, i) => t === f.aiThemes[i])
  );
}

function toInput(r: Review, f: AiFields): ReviewInput {
  const { id: _id, orgId: _org, createdAt: _c, updatedAt: _u, ...input } = r;
  return { ...input, ...f };
}

export async function enrichStored(store: Store, org: Organization, force: boolean): Promise<EnrichSummary> {
  const summary: EnrichSummary = { enriched: 0, skipped: 0 };
  const pause = yieldEvery();
  for (let offset = 0; ; offset += PAGE) {
    const page = await store.reviews.list({ orgId: org.id, limit: PAGE, offset });
    const changed: ReviewInput[] = [];
    for (const review of page.items) {
      const fields = enrich(review, org.language, force);
      if (sameFields(review, fields)) summary.skipped++;
      else changed.push(toInput(review, fields));
      await pause();
    }
    if (changed.length > 0) await store.reviews.upsert(org.id, changed, new Date());
    summary.enriched += changed.length;
    if (page.items.length < PAGE) return summary;
  }
}
