/**
 * Trustpilot: Business Units API, `GET {TRUSTPILOT_API_URL}/v1/business-units/{id}/reviews`
 * with the `apikey` header, `orderBy=createdat.desc`, `perPage=100`, `page=N`
 * (the answer's `links` holds a `next-page` link while there is one).
 */
import { accountPath } from './account.ts';
import { answerObject, checkReply, credentialString, httpsOrNull, isObject, jsonOrThrow, listField, ShapeError, utc, type Connector, type ImportRecord } from './connector.ts';

export interface TrustpilotCredentials {
  apiKey: string;
}

export interface TrustpilotReview {
  id: string;
  stars?: number | null;
  title?: string | null;
  text?: string | null;
  createdAt: string;
  updatedAt?: string | null;
  isVerified?: boolean;
  verificationLevel?: string;
  consumer?: { id?: string; displayName?: string | null; imageUrl?: string | null } | null;
  /** The business's answer (checked by fetchPage: connector.ts checkReply); its date is `updatedAt`, else `createdAt`. */
  companyReply?: { text: string; createdAt?: string | null; updatedAt?: string | null } | null;
}

export const PER_PAGE = 100;

/** "Great service" / "Great service, fast delivery": a title that is the text's start adds nothing. */
function repeatsStart(title: string, text: string): boolean {
  const t = title.replace(/(\.\.\.|…)$/u, '').trim().toLowerCase();
  return t !== '' && text.trim().toLowerCase().startsWith(t);
}

export function trustpilotContent(title: string, text: string): string {
  const ti = title.trim();
  const tx = text.trim();
  if (ti === '' || repeatsStart(ti, tx)) return tx;
  if (tx === '') return ti;
  return `${ti}\n\n${tx}`;
}

export function mapTrustpilot(r: TrustpilotReview): ImportRecord {
  return {
    platform: 'TRUSTPILOT',
    externalId: r.id,
    authorName: r.consumer?.displayName?.trim() || 'A Trustpilot user',
    authorAvatar: httpsOrNull(r.consumer?.imageUrl),
    rating: typeof r.stars === 'number' ? r.stars : null,
    content: trustpilotContent(r.title ?? '', r.text ?? ''),
    date: utc(r.createdAt),
    url: `https://www.trustpilot.com/reviews/${encodeURIComponent(r.id)}`,
    isVerified: r.isVerified === true || r.verificationLevel === 'verified',
    replyText: r.companyReply ? r.companyReply.text : null,
    replyDate: r.companyReply ? utc(r.companyReply.updatedAt ?? r.companyReply.createdAt) : null,
  };
}

/**
 * `links`: a list of `{href, method, rel}`; a `next-page` link (with its
 * address) while more follow, even after an empty page (sync.ts reads on, up to
 * a bound). Absent: no next page. Anything else is not the documented shape.
 */
function nextPage(links: unknown, page: number): string | null {
  if (links === undefined) return null;
  if (!Array.isArray(links)) throw new ShapeError('Trustpilot', '"links" is not a list');
  let more = false;
  for (const link of links) {
    if (!isObject(link)) throw new ShapeError('Trustpilot', 'a link that is not an object');
    if (link.rel !== 'next-page') continue;
    if (typeof link.href !== 'string' || link.href === '') throw new ShapeError('Trustpilot', 'a next-page link without an address');
    more = true;
  }
  return more ? String(page + 1) : null;
}

export const trustpilot: Connector<TrustpilotCredentials, TrustpilotReview> = {
  platform: 'TRUSTPILOT',
  credentialFields: ['apiKey'],
  removal: true,
  parseCredentials: (raw) => ({ apiKey: credentialString(raw, 'apiKey') }),
  async fetchPage(ctx, next) {
    const page = next === null ? 1 : Number(next);
    const url = `${ctx.urls.trustpilot}/v1/business-units/${accountPath('TRUSTPILOT', ctx.account)}/reviews?orderBy=createdat.desc&perPage=${PER_PAGE}&page=${page}`;
    const body = answerObject(jsonOrThrow<unknown>(await ctx.http.call(url, { headers: { apikey: ctx.credentials.apiKey } }), 'Trustpilot'), 'Trustpilot');
    const records = listField<TrustpilotReview>(body, 'reviews', 'Trustpilot');
    checkReply(records as unknown as Record<string, unknown>[], 'companyReply', 'text', ['updatedAt', 'createdAt'], 'Trustpilot');
    return { records, next: nextPage(body.links, page) };
  },
  map: mapTrustpilot,
  cursorTime: (r) => utc(r.createdAt),
};
