/**
 * API key format: `rvp_live_` + 32 base62 characters of randomness (~190 bits)
 * + a 6-character base62 CRC-32 checksum of what precedes it. The fixed prefix
 * lets secret scanners recognise leaked keys; the checksum lets us reject typos
 * and garbage without touching the store. Only the SHA-256 hash is stored.
 */
import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const KEY_PREFIX = 'rvp_live_';
const RANDOM_CHARS = 32;
const CHECKSUM_CHARS = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_CHARS + CHECKSUM_CHARS;
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECKSUM_CHARS}}$`);
/** How much of the key the key list shows. */
const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 6;

function base62(value: number, width: number): string {
  let out = '';
  let v = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[v % 62]! + out;
    v = Math.floor(v / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_CHARS);
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    // Rejection sampling keeps every character uniform (248 = 4 × 62).
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export interface GeneratedKey {
  key: string;
  prefix: string;
  hash: string;
}

export function hashKey(key: string): string {
  // The one-shot hash: no Hash object per request (it was ~3% of an API request's CPU).
  return hash('sha256', key, 'hex');
}

export function generateKey(): GeneratedKey {
  const body = KEY_PREFIX + randomBase62(RANDOM_CHARS);
  const key = body + checksum(body);
  return { key, prefix: key.slice(0, DISPLAY_PREFIX_LENGTH), hash: hashKey(key) };
}

/** True when `candidate` has the key's shape and a correct checksum. No store lookup. */
export function isWellFormedKey(candidate: string): boolean {
  if (candidate.length !== KEY_LENGTH || !KEY_PATTERN.test(candidate)) return false;
  const body = candidate.slice(0, -CHECKSUM_CHARS);
  return checksum(body) === candidate.slice(-CHECKSUM_CHARS);
}

/**
 * The token of an `Authorization: Bearer <token>` header, or null when the
 * header is absent or not of that form (scheme matched case-insensitively).
 */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header.length > 1024) return null;
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  return match ? match[1]! : null;
}
