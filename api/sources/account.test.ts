/** Account ids that go into a platform's URL path: what is refused, and how the rest is encoded. */
import { describe, expect, it } from 'vitest';
import { accountPath, accountSegments } from './account.ts';
import { PlatformError } from './connector.ts';

const problem = (platform: Parameters<typeof accountSegments>[0], account: string): string | null => {
  const checked = accountSegments(platform, account);
  return 'problem' in checked ? checked.problem : null;
};

describe('account ids', () => {
  it('refuses what would leave its path segment: dot segments, separators, percent escapes, spaces, control characters', () => {
    for (const account of ['..', '.', 'a/..', '../reviews', 'unit?x=1', 'unit#frag', '%2e%2e', '.%2E', '%2F', 'a\\b', 'a b', 'tab\there', 'nul\u0000', 'zw\u200bsp', '']) {
      expect(problem('TRUSTPILOT', account), JSON.stringify(account)).not.toBeNull();
    }
    for (const account of ['accounts/../locations/1', 'accounts/1/locations/..', 'accounts/1/locations/%2e%2e', 'accounts/1/locations/7/..', 'accounts/1/locations/7?x', 'locations/7', 'accounts//locations/7']) {
      expect(problem('GOOGLE', account), account).not.toBeNull();
    }
    expect(problem('YELP', 'x'.repeat(301))).toMatch(/longer than 300/);
  });

  it('takes the ids the platforms give: hex units, aliases (accents included), page ids, resource names', () => {
    expect(accountSegments('TRUSTPILOT', '4bdd8e5f000064000505a1b2')).toEqual({ segments: ['4bdd8e5f000064000505a1b2'] });
    expect(accountSegments('YELP', 'café-de-la-presse-san-francisco')).toEqual({ segments: ['café-de-la-presse-san-francisco'] });
    expect(accountSegments('YELP', 'a..b')).toEqual({ segments: ['a..b'] });
    expect(accountSegments('FACEBOOK', '104958162837')).toEqual({ segments: ['104958162837'] });
    expect(accountSegments('GOOGLE', 'accounts/42/locations/7')).toEqual({ segments: ['accounts', '42', 'locations', '7'] });
  });

  it('encodes each segment where the URL is built, and refuses (no call) an id stored before the check', () => {
    expect(accountPath('YELP', 'café-de-la-presse')).toBe('caf%C3%A9-de-la-presse');
    expect(accountPath('GOOGLE', 'accounts/42/locations/7')).toBe('accounts/42/locations/7');
    expect(() => accountPath('G2', '..')).toThrow(PlatformError);
    expect(() => accountPath('G2', '..')).toThrow(/account id "\.\." cannot be \. or \.\./);
  });
});
