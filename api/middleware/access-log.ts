/**
 * One log line per request. The query string is logged with the values of
 * key-looking parameters replaced: a key pasted into a URL must not land in logs.
 * OAuth's parameters are secrets too: an authorization `code` (with the PKCE
 * verifier we hold, it is a grant) and its `state` are redacted wherever they
 * appear, and an OAuth redirect (a path ending in `/callback`, such as
 * `/dashboard/sources/google/callback`) keeps none of its query values.
 */
import type { Context } from 'koa';
import type { Logger } from '../logger.ts';
import { QUERY_KEY_PARAMETERS } from './query-key-guard.ts';

/** Anything shaped like one of our secrets (API key, admin token), wherever it appears. */
const SECRET = /rvp_[A-Za-z0-9_-]*/gi;
const SECRET_PARAMETERS = new Set([
  ...QUERY_KEY_PARAMETERS,
  'authorization',
  'auth',
  'password',
  'secret',
  // OAuth 2.0 (RFC 6749, 7636): what a redirect or a misdirected request can carry.
  'code',
  'state',
  'id_token',
  'refresh_token',
  'client_secret',
  'code_verifier',
]);
/** An OAuth redirect back to us: every value of its query is the provider's, none is logged. */
const OAUTH_CALLBACK = /\/callback\/*$/i;

/**
 * Percent-decoding, repeated until nothing changes (however deep the encoding), so
 * that `rvp%5Flive_…` or `rvp%255Flive_…` is seen as the key it spells. A
 * malformed escape is decoded byte by byte around it.
 */
export function decodedForMatching(text: string): string {
  let current = text;
  // Until nothing changes: each round that changes the text shortens it, so
  // this ends (the logged path and query are cut to a few KiB before this).
  while (current.includes('%')) {
    const next = current.replace(/%[0-9A-Fa-f]{2}/g, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
    if (next === current) break;
    current = next;
  }
  return current;
}

/** A review page link's token (confirmation, private edit link, invitation link, unsubscribe link). */
const REVIEW_LINK = /\/r\/(confirm|review|i|u)\/[^/?#]+/gi;

/** The path, decoded, with anything key-shaped replaced. */
function redactedPath(path: string): string {
  const decoded = decodedForMatching(path);
  // The review page's confirmation, private edit, invitation and unsubscribe links are credentials too
  // (api/collect/tokens.ts, api/invitations/links.ts, api/mail/unsubscribe-token.ts).
  const redacted = decoded.replace(SECRET, 'rvp_[redacted]').replace(REVIEW_LINK, '/r/$1/[redacted]');
  return redacted === decoded ? path : encodeURI(redacted);
}

export function redactedUrl(path: string, querystring: string): string {
  const safePath = redactedPath(path);
  if (!querystring) return safePath;
  const params = new URLSearchParams(querystring);
  const callback = OAUTH_CALLBACK.test(decodedForMatching(path));
  const parts: string[] = [];
  for (const [name, value] of params) {
    const secret = callback || SECRET_PARAMETERS.has(name.toLowerCase());
    const shownName = encodeURIComponent(decodedForMatching(name.slice(0, 100)).replace(SECRET, 'rvp_[redacted]'));
    parts.push(`${shownName}=${secret ? '[redacted]' : encodeURIComponent(decodedForMatching(value.slice(0, 200)).replace(SECRET, 'rvp_[redacted]'))}`);
  }
  return `${safePath}?${parts.join('&')}`;
}

/**
 * The request's access-log line, written once it is answered (its final
 * status); `started` is process.hrtime.bigint() at its start. Written by the
 * front door (front-door.ts), at level info.
 */
export function logRequest(ctx: Context, started: bigint): void {
  const log = ctx.state.log as Logger;
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  log.info(
    {
      method: ctx.method,
      url: redactedUrl(ctx.path.slice(0, 2048), ctx.querystring.slice(0, 4096)),
      status: ctx.status,
      ms: Math.round(ms * 100) / 100,
      orgId: (ctx.state.auth as { org?: { id: string } } | undefined)?.org?.id,
      error: ctx.state.errorCode,
    },
    'request',
  );
}
