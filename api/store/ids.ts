/** Record ids: a type prefix and 20 random base62 characters (~119 bits). */
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function newId(prefix: 'org' | 'key' | 'wdg' | 'rev' | 'usr' | 'aud'): string {
  let out = `${prefix}_`;
  while (out.length < prefix.length + 21) {
    for (const byte of randomBytes(32)) {
      if (byte < 248 && out.length < prefix.length + 21) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** Ids as they may appear in a path: the shape above, nothing else reaches a store. */
export function isRecordId(value: string, prefix: 'org' | 'key' | 'wdg' | 'rev' | 'usr' | 'aud'): boolean {
  return value.length === prefix.length + 21 && value.startsWith(`${prefix}_`) && /^[0-9A-Za-z]+$/.test(value.slice(prefix.length + 1));
}
