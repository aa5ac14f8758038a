import { describe, expect, it } from 'vitest';
import { bearerToken, generateKey, hashKey, isWellFormedKey, KEY_LENGTH, KEY_PREFIX } from './key-format.ts';

describe('API key format', () => {
  it('generates distinct, well-formed keys with a scannable prefix', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { key, prefix, hash } = generateKey();
      expect(key.startsWith(KEY_PREFIX)).toBe(true);
      expect(key).toHaveLength(KEY_LENGTH);
      expect(isWellFormedKey(key)).toBe(true);
      expect(key.startsWith(prefix)).toBe(true);
      expect(hash).toBe(hashKey(key));
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      seen.add(key);
    }
    expect(seen.size).toBe(200);
  });

  it('rejects a key whose checksum or body was altered', () => {
    const { key } = generateKey();
    const last = key.at(-1)!;
    expect(isWellFormedKey(key.slice(0, -1) + (last === 'a' ? 'b' : 'a'))).toBe(false);
    const mid = KEY_PREFIX.length + 3;
    const swapped = key.slice(0, mid) + (key[mid] === 'Z' ? 'Y' : 'Z') + key.slice(mid + 1);
    expect(isWellFormedKey(swapped)).toBe(false);
    expect(isWellFormedKey(key + 'x')).toBe(false);
    expect(isWellFormedKey('')).toBe(false);
    expect(isWellFormedKey(key.replace(KEY_PREFIX, 'rvp_test_'))).toBe(false);
    expect(isWellFormedKey(key.slice(0, -2) + 'é1')).toBe(false);
  });

  it('parses only the Bearer scheme', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken('Bearer')).toBeNull();
    expect(bearerToken('Bearer ')).toBeNull();
    expect(bearerToken('Bearer a b')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
    expect(bearerToken('Bearer ' + 'x'.repeat(5000))).toBeNull();
  });
});
