/**
 * Facebook: Graph API Page `ratings` edge, `GET {FACEBOOK_GRAPH_URL}/{page-id}/ratings`
 * with a Page access token (pages_read_user_content), cursor paging
 * (`paging.cursors.after` while `paging.next` is there). Recommendations have
 * had no stars since 2018 (`recommendation_type` alone is never a rating), and
 * Meta marks the edge deprecated from Graph v22.0 (error code 12).
 */
import { accountPath } from './account.ts';
import { answerObject, AuthError, credentialString, jsonOrThrow, listField, optionalObject, PlatformError, RateLimitError, retryAfterMs, ShapeError, utc, type Connector, type ImportRecord } from './connector.ts';
import type { HttpResponse } from './http.ts';

export interface FacebookCredentials {
  pageAccessToken: string;
}

export interface FacebookRating {
  created_time: string;
  rating?: number | null;
  review_text?: string | null;
  recommendation_type?: 'positive' | 'negative' | string;
  reviewer?: { id?: string; name?: string | null } | null;
  open_graph_story?: { id?: string } | null;
}

/** Graph's throttling codes: application, user, page and custom rate limits. */
const THROTTLED = new Set([4, 17, 32, 613, 80001]);

function graphError(res: HttpResponse): void {
  if (res.status >= 200 && res.status < 300) return;
  let code: number | undefined;
  try {
    code = (JSON.parse(res.text) as { error?: { code?: number } }).error?.code;
  } catch {
    // Not Graph's error shape: jsonOrThrow names the status.
  }
  if (code === 190) throw new AuthError('Facebook refused the Page access token (code 190: expired or revoked): reconnect the source with a new token');
  if (code !== undefined && THROTTLED.has(code)) throw new RateLimitError(`Facebook is rate limiting this Page (code ${code})`, retryAfterMs(res.headers['retry-after']));
  if (code === 12) throw new PlatformError('Facebook no longer serves the ratings edge on this Graph version (code 12): set FACEBOOK_GRAPH_URL to v21.0 or earlier');
}

export function mapFacebook(r: FacebookRating): ImportRecord {
  return {
    platform: 'FACEBOOK',
    externalId: r.open_graph_story?.id ?? '',
    authorName: r.reviewer?.name?.trim() || 'A Facebook user',
    authorAvatar: null,
    rating: typeof r.rating === 'number' ? r.rating : null,
    content: (r.review_text ?? '').trim(),
    date: utc(r.created_time),
    url: null,
    isVerified: false,
  };
}

export const facebook: Connector<FacebookCredentials, FacebookRating> = {
  platform: 'FACEBOOK',
  credentialFields: ['pageAccessToken'],
  removal: true,
  parseCredentials: (raw) => ({ pageAccessToken: credentialString(raw, 'pageAccessToken') }),
  async fetchPage(ctx, next) {
    const fields = 'created_time,rating,review_text,recommendation_type,reviewer{id,name},open_graph_story{id}';
    const url = `${ctx.urls.facebook}/${accountPath('FACEBOOK', ctx.account)}/ratings?fields=${encodeURIComponent(fields)}&limit=100${next ? `&after=${encodeURIComponent(next)}` : ''}`;
    const res = await ctx.http.call(url, { headers: { authorization: `Bearer ${ctx.credentials.pageAccessToken}` } });
    graphError(res);
    const body = answerObject(jsonOrThrow<unknown>(res, 'Facebook', (r) => r.status === 401), 'Facebook');
    const records = listField<FacebookRating>(body, 'data', 'Facebook');
    // `paging.next` (an address) is there while more follow, even after an empty page (sync.ts reads on, up to a
    // bound), with the cursor to ask for in `paging.cursors.after`.
    const paging = optionalObject(body, 'paging', 'Facebook');
    const link = paging?.next;
    if (link === undefined || link === null) return { records, next: null };
    const after = optionalObject(paging!, 'cursors', 'Facebook')?.after;
    if (typeof link !== 'string' || link === '' || typeof after !== 'string' || after === '') throw new ShapeError('Facebook', 'a next page without its address and "after" cursor');
    return { records, next: after };
  },
  map: mapFacebook,
  cursorTime: (r) => utc(r.created_time),
};
