/**
 * A source's account id goes into the platform's URL path
 * (`/v1/business-units/{account}/reviews`, `/v4/accounts/{a}/locations/{l}/reviews`).
 * Encoding alone cannot keep it in its place: URL parsers resolve `.` and
 * `..` segments, and `%2e%2e` counts as `..` too (WHATWG URL), so
 * `account=..` would climb out of the path and call another endpoint with the
 * source's credentials. Each id segment is therefore checked when the source
 * is created (a 400 naming `account`) and again where the URL is built (a
 * source stored before the check fails its sync without a call), and encoded
 * there.
 */
import type { SourcePlatform } from '../store/types.ts';
import { PlatformError } from './connector.ts';

export const MAX_ACCOUNT_LENGTH = 300;

/** What is wrong with one path segment of an id, or null. */
export function segmentProblem(segment: string): string | null {
  if (segment === '') return 'has an empty part';
  if (segment === '.' || segment === '..') return 'cannot be . or ..';
  // `%` is refused rather than decoded: an id never needs it, and `%2e%2e` or `%2f` are the ways around the rest.
  if (/[/?#%\\]/.test(segment)) return 'cannot contain /, ?, #, % or \\';
  if (/[\s\p{Cc}\p{Cf}]/u.test(segment)) return 'cannot contain spaces or control characters';
  return null;
}

/** The id's path segments: one, or Google's `accounts/{a}/locations/{l}` (the location's resource name). */
export function accountSegments(platform: SourcePlatform, account: string): { segments: string[] } | { problem: string } {
  if (account === '') return { problem: 'is required (the platform\'s id of the business)' };
  if (account.length > MAX_ACCOUNT_LENGTH) return { problem: `is longer than ${MAX_ACCOUNT_LENGTH} characters` };
  if (platform === 'GOOGLE') {
    const parts = account.split('/');
    if (parts.length !== 4 || parts[0] !== 'accounts' || parts[2] !== 'locations') return { problem: 'must be the location\'s resource name, accounts/{account}/locations/{location}' };
    for (const part of [parts[1]!, parts[3]!]) {
      const problem = segmentProblem(part);
      if (problem) return { problem: `must be accounts/{account}/locations/{location}, and each id ${problem}` };
    }
    return { segments: parts };
  }
  const problem = segmentProblem(account);
  return problem ? { problem } : { segments: [account] };
}

/** The account as an encoded URL path (no leading slash); a PlatformError (the sync fails, no call is made) when it cannot be one. */
export function accountPath(platform: SourcePlatform, account: string): string {
  const checked = accountSegments(platform, account);
  if ('problem' in checked) throw new PlatformError(`the source's account id "${account.slice(0, 80)}" ${checked.problem}: remove the source and connect it again with the right id`);
  return checked.segments.map(encodeURIComponent).join('/');
}
