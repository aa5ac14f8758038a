/**
 * Password hashing with scrypt from node:crypto (Node's maintained OpenSSL
 * binding, no hand-rolled crypto, no native addon to install). Parameters are
 * stored with each hash, so they can be raised later without breaking
 * existing passwords: `scrypt$N$r$p$salt$hash` (salt and hash base64url).
 *
 * N = 2^15, r = 8, p = 1: 32 MiB and some tens of milliseconds per hash, the
 * interactive-login setting of the scrypt paper and OWASP's minimum.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** Minimum length of a person's password (CONTRACT §6). */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem: Node's 32 MiB default is exactly 128·N·r and refuses it; give headroom.
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem: 256 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const expected = Buffer.from(parts[5]!, 'base64url');
  const key = await derive(password, Buffer.from(parts[4]!, 'base64url'), { N: n, r, p });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash of nothing anyone knows: an unknown email is checked against it, so
 * that it costs the same time as a wrong password (no account discovery).
 */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(18).toString('base64url'));
  return decoy;
}

/** A strong generated password: 20 characters from 56 unambiguous ones (~116 bits). */
export function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789';
  let out = '';
  while (out.length < 20) for (const byte of randomBytes(32)) if (byte < 224 && out.length < 20) out += alphabet[byte % 56];
  return out;
}
