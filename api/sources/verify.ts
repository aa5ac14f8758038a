/**
 * Credentials are proved before they are kept (issue 39): connecting or
 * reconnecting a source makes one call to the platform first, the first page
 * of its reviews (the documented request every sync starts with; Google also
 * exchanges the refresh token for an access token), and answers with its
 * outcome. A refused credential is a 400 naming the platform and nothing is
 * stored or changed (no state change, no `source.state_changed` event); a
 * platform that cannot be asked (down, rate limiting, not https) is a 502 and
 * nothing is stored either. Only a page the platform served lets the caller
 * store the credentials.
 *
 * Messages name the platform, the field and the HTTP status, never the secret.
 */
import type { SourceUrls } from '../config.ts';
import { ApiError } from '../errors.ts';
import type { SourcePlatform } from '../store/types.ts';
import { AuthError, PlatformError, RateLimitError, type ConnectorContext } from './connector.ts';
import { CONNECTORS } from './connectors.ts';
import { NetworkError, type HttpClient, type HttpResponse } from './http.ts';

/** What a credentials check needs: the platform client (shared connections and trust), the URLs, Google's OAuth client. */
export interface PlatformAccess {
  http: HttpClient;
  urls: SourceUrls;
  googleOAuth: { clientId: string; clientSecret: string } | null;
}

const PLATFORM_LABELS: Record<SourcePlatform, string> = { GOOGLE: 'Google', TRUSTPILOT: 'Trustpilot', YELP: 'Yelp', FACEBOOK: 'Facebook', G2: 'G2' };

/** The credential as a person names it (the dashboard's field labels). */
const CREDENTIAL_LABELS: Record<SourcePlatform, string> = {
  GOOGLE: 'authorization',
  TRUSTPILOT: 'API key',
  YELP: 'API key',
  FACEBOOK: 'Page access token',
  G2: 'API token',
};

/** The account id as each platform names it. */
const ACCOUNT_LABELS: Record<SourcePlatform, string> = { GOOGLE: 'location', TRUSTPILOT: 'business unit', YELP: 'business', FACEBOOK: 'Page', G2: 'product' };

export function platformLabel(platform: SourcePlatform): string {
  return PLATFORM_LABELS[platform];
}

/**
 * One call to the platform with `credentials` (already checked by the connector's parseCredentials) for `account`.
 * Resolves when the platform served the first page; else throws the ApiError to answer.
 */
export async function verifyCredentials(access: PlatformAccess, orgId: string, platform: SourcePlatform, account: string, credentials: unknown): Promise<void> {
  const label = PLATFORM_LABELS[platform];
  if (platform === 'GOOGLE' && !access.googleOAuth) {
    throw new ApiError(409, 'not_configured', 'Google sources need the operator\'s OAuth client (GOOGLE_OAUTH_CLIENT_ID and GOOGLE_OAUTH_CLIENT_SECRET). Nothing was saved.');
  }
  // Keyed by the organization like a sync's calls (its own DNS queue: api/net/).
  const base = access.http.fork(orgId);
  // The last answer's status, for the message (the connectors' errors name it in their own words).
  let status = 0;
  const http = Object.create(base) as HttpClient;
  http.call = async (url: string, init?: Parameters<HttpClient['call']>[1]): Promise<HttpResponse> => {
    const res = await base.call(url, init);
    status = res.status;
    return res;
  };
  const ctx: ConnectorContext<unknown> = { account, credentials, http, urls: access.urls, googleOAuth: access.googleOAuth, session: new Map() };
  const nothing = 'Nothing was saved.';
  /** Which credentials the call in progress proves: the reading ones, then those to reply (Trustpilot's API secret). */
  let proving = CREDENTIAL_LABELS[platform];
  try {
    await CONNECTORS[platform].fetchPage(ctx, null);
    proving = platform === 'TRUSTPILOT' ? 'API key and API secret (to reply)' : proving;
    await CONNECTORS[platform].replies?.prove?.(ctx);
  } catch (err) {
    if (err instanceof AuthError) {
      throw new ApiError(400, 'credentials_refused', `${label} refused the ${proving}${status ? ` (HTTP ${status})` : ''}: check it and try again. ${nothing}`);
    }
    if (err instanceof RateLimitError) {
      const seconds = err.retryAfterMs === null ? null : Math.max(1, Math.ceil(err.retryAfterMs / 1000));
      throw new ApiError(503, 'platform_unavailable', `${label} is rate limiting this account (HTTP 429), so the ${CREDENTIAL_LABELS[platform]} could not be checked: try again ${seconds === null ? 'in a minute' : `in ${seconds} seconds`}. ${nothing}`, [], seconds === null ? {} : { 'Retry-After': String(seconds) });
    }
    if (err instanceof PlatformError && status === 404) {
      throw new ApiError(400, 'account_unknown', `${label} does not know the ${ACCOUNT_LABELS[platform]} "${account.slice(0, 120)}" (HTTP 404): check the account id. ${nothing}`);
    }
    const what = `so the ${CREDENTIAL_LABELS[platform]} could not be checked`;
    if (status >= 500) throw new ApiError(502, 'platform_unavailable', `${label} is failing (HTTP ${status}), ${what}: try again later. ${nothing}`);
    if (err instanceof NetworkError) throw new ApiError(502, 'platform_unavailable', `${label} ${err.message.replace(/^could not reach/, 'could not be reached at')}, ${what}: try again later. ${nothing}`);
    const why = err instanceof Error && err.name !== 'Error' ? err.message : 'an unexpected answer';
    throw new ApiError(502, 'platform_unavailable', `${label} answered in a way the service cannot read${status ? ` (HTTP ${status})` : ''} (${why}), ${what}. ${nothing}`);
  }
}
