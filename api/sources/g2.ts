/**
 * G2: the v1 API (JSON:API), `GET {G2_API_URL}/api/v1/products/{id}/survey-responses`
 * with `Authorization: Token token={apiToken}`, `page[size]=100`,
 * `page[number]=N`, `order=submitted_at desc` (the documented `order` index
 * filter); a page follows while `links.next` is there. G2's rate limit is 100
 * requests per second (blocked for 60 s beyond it).
 *
 * Rating scale: v1 does not document `star_rating`'s range. G2 shows reviews
 * on a 5-star scale in half stars, so `star_rating` is read as 0.5–5 and
 * rounded half up to a whole star; a value above 5 is read as a 10-point
 * score and halved first. Neither is documented: docs/sources.md says so.
 */
import { accountPath } from './account.ts';
import { answerObject, credentialString, httpsOrNull, jsonOrThrow, listField, optionalObject, ShapeError, utc, type Connector, type ImportRecord } from './connector.ts';

export interface G2Credentials {
  apiToken: string;
}

export interface G2SurveyResponse {
  id: string;
  type?: string;
  attributes: {
    star_rating?: number | string | null;
    title?: string | null;
    comment_answers?: Record<string, { value?: string | null } | null> | null;
    submitted_at?: string | null;
    updated_at?: string | null;
    user_name?: string | null;
    user_image_url?: string | null;
    verified_current_user?: boolean | null;
    public_url?: string | null;
  };
}

export function g2Stars(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return null;
  const five = n > 5 ? n / 2 : n;
  return Math.min(5, Math.max(1, Math.floor(five + 0.5)));
}

export function mapG2(r: G2SurveyResponse): ImportRecord {
  const a = r.attributes ?? {};
  const answers = Object.values(a.comment_answers ?? {})
    .map((x) => x?.value?.trim() ?? '')
    .filter((x) => x !== '');
  const title = a.title?.trim() ?? '';
  return {
    platform: 'G2',
    externalId: r.id,
    authorName: a.user_name?.trim() || 'A G2 user',
    authorAvatar: httpsOrNull(a.user_image_url),
    rating: g2Stars(a.star_rating),
    content: [title, ...answers].filter((x) => x !== '').join('\n\n'),
    date: utc(a.submitted_at ?? ''),
    url: httpsOrNull(a.public_url),
    isVerified: a.verified_current_user === true,
  };
}

export const g2: Connector<G2Credentials, G2SurveyResponse> = {
  platform: 'G2',
  credentialFields: ['apiToken'],
  removal: true,
  parseCredentials: (raw) => ({ apiToken: credentialString(raw, 'apiToken') }),
  async fetchPage(ctx, next) {
    const page = next === null ? 1 : Number(next);
    const url = `${ctx.urls.g2}/api/v1/products/${accountPath('G2', ctx.account)}/survey-responses?page%5Bsize%5D=100&page%5Bnumber%5D=${page}&order=${encodeURIComponent('submitted_at desc')}`;
    const body = answerObject(jsonOrThrow<unknown>(await ctx.http.call(url, { headers: { authorization: `Token token=${ctx.credentials.apiToken}`, accept: 'application/vnd.api+json' } }), 'G2'), 'G2');
    const records = listField<G2SurveyResponse>(body, 'data', 'G2');
    // `links.next` (an address, or null at the end) after an empty page is not the end (sync.ts reads on, up to a bound).
    const link = optionalObject(body, 'links', 'G2')?.next;
    if (link !== undefined && link !== null && (typeof link !== 'string' || link === '')) throw new ShapeError('G2', '"links.next" is not an address');
    return { records, next: typeof link === 'string' ? String(page + 1) : null };
  },
  map: mapG2,
  cursorTime: (r) => utc(r.attributes?.submitted_at ?? ''),
};
