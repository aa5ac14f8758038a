import { describe, expect, it } from 'vitest';
import { generateKey } from '../auth/key-format.ts';
import { redactedUrl } from './access-log.ts';

describe('redactedUrl', () => {
  const { key } = generateKey();
  it.each([
    ['/api/v1/reviews', `api_key=${key}`],
    ['/api/v1/reviews', `authorization=Bearer%20${key}`],
    ['/api/v1/reviews', `limit=5;api_key=${key}`],
    ['/api/v1/reviews', `q=${key.slice(0, 20)}&note=${encodeURIComponent(`x ${key}`)}`],
    [`/api/v1/widgets/${key}/embed`, ''],
    ['/api/v1/reviews', `${key}=1`],
    ['/api/v1/reviews', 'token=rvp_admin_abcDEF123-_xyz'],
    // Percent-encoded: decoded before matching, however many times it was encoded.
    [`/api/v1/widgets/${key.replace('_', '%5F')}/embed`, ''],
    [`/api/v1/widgets/${key.replace('_', '%5f').replace('live_', 'live%5F')}/embed`, ''],
    [`/api/v1/widgets/${key.replace('_', '%255F')}/embed`, ''],
    [`/api/v1/widgets/${key.replace('_', '%25252525252525255F')}/embed`, ''],
    ['/api/v1/reviews', `q=${key.replace('_', '%252525252525255F')}`],
    [`/api/v1/widgets/${key.replace('r', '%72')}`, ''],
    ['/api/v1/reviews', `q=${key.replace('_', '%255F')}`],
    ['/api/v1/reviews', `${key.replace('_', '%255F')}=1`],
  ])('never keeps a key: %s?%s', (path, query) => {
    const out = redactedUrl(path, query);
    expect(out).not.toContain(key.slice(9, 30));
    expect(out).not.toMatch(/rvp_(live|admin)_[A-Za-z0-9]/);
    expect(decodeURIComponent(decodeURIComponent(out))).not.toContain(key.slice(9, 30));
  });

  it('keeps ordinary parameters and paths', () => {
    expect(redactedUrl('/api/v1/reviews', 'limit=5&platform=google')).toBe('/api/v1/reviews?limit=5&platform=google');
    expect(redactedUrl('/api/v1/widgets/wdg_a%2Fb/embed', '')).toBe('/api/v1/widgets/wdg_a%2Fb/embed');
  });
});

describe('redactedUrl and the review links', () => {
  it('redacts the token of every review link: confirmation, private edit, invitation and unsubscribe', () => {
    for (const kind of ['confirm', 'review', 'i', 'u']) {
      expect(redactedUrl(`/r/${kind}/inv_4fK9xQ2mLp7RtV8nB4cZ.q3Jw8Kc2n0yT5u7ZkF1mB6xVd9sR4hLpA2eG0iNoQ_w`, 'rating=5')).toBe(`/r/${kind}/%5Bredacted%5D?rating=5`);
      expect(redactedUrl(`/R/${kind.toUpperCase()}/secret-token`, '')).toBe(`/r/${kind.toUpperCase()}/%5Bredacted%5D`);
    }
    // Not a link: the review page itself and its product.
    expect(redactedUrl('/r/col_abc', 'product=shoe')).toBe('/r/col_abc?product=shoe');
  });
});

describe('redactedUrl and OAuth', () => {
  it('keeps no value of an OAuth redirect\'s query, and redacts code, state and tokens anywhere', () => {
    expect(redactedUrl('/dashboard/sources/google/callback', 'state=s3cr3t-state&code=4%2F0Abc-code&scope=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fbusiness.manage')).toBe(
      '/dashboard/sources/google/callback?state=[redacted]&code=[redacted]&scope=[redacted]',
    );
    expect(redactedUrl('/dashboard/sources/google/callback/', 'error=access_denied&state=s3cr3t-state')).toBe('/dashboard/sources/google/callback/?error=[redacted]&state=[redacted]');
    expect(redactedUrl('/api/v1/reviews', 'limit=5&Code=abc&STATE=def&id_token=ghi&refresh_token=jkl&client_secret=mno&code_verifier=pqr')).toBe(
      '/api/v1/reviews?limit=5&Code=[redacted]&STATE=[redacted]&id_token=[redacted]&refresh_token=[redacted]&client_secret=[redacted]&code_verifier=[redacted]',
    );
  });
});
