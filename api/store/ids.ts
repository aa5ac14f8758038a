/** Record ids: a type prefix and 20 random base62 characters (~119 bits). */
import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes are drawn from the CSPRNG 8 KiB at a time and used once each
 * (as Node's own `randomUUID` does): an import makes an id per review, and a
 * `randomBytes` call per id cost more than the rest of the id.
 */
const pool = Buffer.alloc(8192);
let used = pool.length;

function randomByte(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++]!;
}

/** The id's characters, written here and read out as one flat string (`+=` would build a chain of 20 string pieces). */
const chars = Buffer.alloc(32);

export function newId(prefix: 'org' | 'key' | 'wdg' | 'rev' | 'usr' | 'aud' | 'src' | 'wh' | 'inv'): string {
  let at = chars.write(`${prefix}_`, 'latin1');
  const end = at + 20;
  while (at < end) {
    const byte = randomByte();
    // 248 = 4 × 62: bytes above it are dropped so that every character is equally likely.
    if (byte < 248) chars[at++] = ALPHABET.charCodeAt(byte % 62);
  }
  return chars.toString('latin1', 0, end);
}

/** Ids as they may appear in a path: the shape above, nothing else reaches a store. */
export function isRecordId(value: string, prefix: 'org' | 'key' | 'wdg' | 'rev' | 'usr' | 'aud' | 'src' | 'wh' | 'inv'): boolean {
  return value.length === prefix.length + 21 && value.startsWith(`${prefix}_`) && /^[0-9A-Za-z]+$/.test(value.slice(prefix.length + 1));
}
