/**
 * Yelp: Fusion API, `GET {YELP_API_URL}/v3/businesses/{id-or-alias}/reviews`
 * with `Authorization: Bearer {apiKey}`, `sort_by=newest`. Yelp returns at most
 * 3 review excerpts, on one page: nothing is ever removed for Yelp (CONTRACT §11).
 * `time_created` is `YYYY-MM-DD HH:MM:SS` in the business's local time.
 */
import { accountPath } from './account.ts';
import { answerObject, credentialString, CredentialsError, httpsOrNull, jsonOrThrow, listField, type Connector, type ImportRecord } from './connector.ts';

export interface YelpCredentials {
  apiKey: string;
  /** The business's IANA time zone (default America/Los_Angeles, Yelp's Pacific time for US businesses). */
  timeZone: string;
}

export interface YelpReview {
  id: string;
  url?: string | null;
  text?: string | null;
  rating?: number | null;
  time_created: string;
  user?: { id?: string; name?: string | null; image_url?: string | null; profile_url?: string | null } | null;
}

export const DEFAULT_YELP_TIME_ZONE = 'America/Los_Angeles';

/** The zone's offset from UTC (ms) at instant `ms`. */
function offsetAt(ms: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - Math.floor(ms / 1000) * 1000;
}

/**
 * A wall-clock time in `timeZone` as ISO UTC, with the zone's daylight-saving
 * rules: in the hour that repeats (autumn) the first one is taken; a time in
 * the hour that does not exist (spring) is read with the offset before the change.
 */
export function localToUtc(local: string, timeZone: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local.trim());
  if (!m) return local;
  const wall = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +(m[6] ?? 0));
  // The offsets a day either side (no zone changes twice in two days): the earlier one first (the repeated hour's first pass).
  const before = offsetAt(wall - 86_400_000, timeZone);
  const after = offsetAt(wall + 86_400_000, timeZone);
  for (const offset of [before, after]) {
    const utcMs = wall - offset;
    if (offsetAt(utcMs, timeZone) === offset) return new Date(utcMs).toISOString();
  }
  return new Date(wall - before).toISOString();
}

export function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function mapYelp(r: YelpReview, timeZone = DEFAULT_YELP_TIME_ZONE): ImportRecord {
  return {
    platform: 'YELP',
    externalId: r.id,
    authorName: r.user?.name?.trim() || 'A Yelp user',
    authorAvatar: httpsOrNull(r.user?.image_url),
    rating: typeof r.rating === 'number' ? Math.round(r.rating) : null,
    content: (r.text ?? '').trim(),
    date: localToUtc(r.time_created, timeZone),
    url: httpsOrNull(r.url),
    isVerified: false,
  };
}

/** Records carry the zone they were read in (map stays a function of the record). */
type ZonedYelpReview = YelpReview & { timeZone?: string };

export const yelp: Connector<YelpCredentials, ZonedYelpReview> = {
  platform: 'YELP',
  credentialFields: ['apiKey'],
  removal: false,
  parseCredentials: (raw) => {
    const apiKey = credentialString(raw, 'apiKey');
    const zone = (raw as Record<string, unknown>).timeZone;
    if (zone !== undefined && (typeof zone !== 'string' || !validTimeZone(zone))) throw new CredentialsError('"timeZone" must be an IANA time zone such as America/New_York');
    return { apiKey, timeZone: (zone as string | undefined) ?? DEFAULT_YELP_TIME_ZONE };
  },
  async fetchPage(ctx) {
    const url = `${ctx.urls.yelp}/v3/businesses/${accountPath('YELP', ctx.account)}/reviews?limit=3&sort_by=newest`;
    const body = answerObject(jsonOrThrow<unknown>(await ctx.http.call(url, { headers: { authorization: `Bearer ${ctx.credentials.apiKey}` } }), 'Yelp'), 'Yelp');
    const records = listField<YelpReview>(body, 'reviews', 'Yelp').map((r) => ({ ...r, timeZone: ctx.credentials.timeZone }));
    return { records, next: null };
  },
  map: (r) => mapYelp(r, r.timeZone),
  cursorTime: (r) => localToUtc(r.time_created, r.timeZone ?? DEFAULT_YELP_TIME_ZONE),
};
