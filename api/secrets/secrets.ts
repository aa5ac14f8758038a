/**
 * Secrets at rest (CONTRACT §11): credentials are sealed with AES-256-GCM
 * (node:crypto) under SECRETS_KEY, or, when it is unset, under a key generated
 * once into DATA_DIR/secrets-key (mode 0600, like the admin token). A sealed
 * value is `v1.<iv>.<tag>.<ciphertext>` (base64url parts): a fresh 12-byte IV
 * per seal; the tag authenticates it, so a changed or foreign value fails to
 * open instead of decrypting to garbage. `aad` binds a sealed value to what it
 * belongs to (a source id), so one cannot be pasted onto another record.
 *
 * Nothing here logs; a SecretBox never shows its key (toJSON / inspect).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';

export const SECRETS_KEY_BYTES = 32;
const IV_BYTES = 12;
const VERSION = 'v1';

export class SecretOpenError extends Error {
  constructor() {
    super('the sealed value cannot be opened with this SECRETS_KEY (changed key, or a damaged value)');
    this.name = 'SecretOpenError';
  }
}

/** A 32-byte key from its base64 (or base64url) text; null when the text is not one. */
export function parseSecretsKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return null;
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key.length === SECRETS_KEY_BYTES ? key : null;
}

export function secretsKeyPath(dataDir: string): string {
  return join(dataDir, 'secrets-key');
}

/** SECRETS_KEY when configured (already validated by config.ts), else DATA_DIR/secrets-key, made once. */
export async function ensureSecretsKey(configured: Buffer | null, dataDir: string): Promise<Buffer> {
  if (configured) return configured;
  const path = secretsKeyPath(dataDir);
  const read = async (): Promise<Buffer | null> => {
    try {
      const key = parseSecretsKey(await readFile(path, 'utf8'));
      if (!key) throw new Error(`${path} does not hold a 32-byte base64 key`);
      return key;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  };
  const existing = await read();
  if (existing) return existing;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(SECRETS_KEY_BYTES);
  try {
    await writeFile(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    // Another process (a cluster worker) made it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (await read())!;
    throw err;
  }
}

export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== SECRETS_KEY_BYTES) throw new Error('a secrets key is 32 bytes');
    this.#key = Buffer.from(key);
  }

  seal(plain: string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string, aad: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretOpenError();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(parts[1]!, 'base64url'));
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(Buffer.from(parts[2]!, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretOpenError();
    }
  }

  /** JSON values (credentials objects). */
  sealJson(value: unknown, aad: string): string {
    return this.seal(JSON.stringify(value), aad);
  }

  openJson<T>(sealed: string, aad: string): T {
    return JSON.parse(this.open(sealed, aad)) as T;
  }

  toJSON(): string {
    return '[SecretBox]';
  }

  [inspect.custom](): string {
    return '[SecretBox]';
  }
}
