/**
 * The admin token: ADMIN_TOKEN, else one generated once into
 * DATA_DIR/admin-token (mode 0600) and reused. Never a built-in default.
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export function adminTokenPath(dataDir: string): string {
  return join(dataDir, 'admin-token');
}

export async function readAdminToken(configured: string | null, dataDir: string): Promise<string | null> {
  if (configured) return configured;
  try {
    return (await readFile(adminTokenPath(dataDir), 'utf8')).trim() || null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export async function ensureAdminToken(configured: string | null, dataDir: string): Promise<string> {
  const existing = await readAdminToken(configured, dataDir);
  if (existing) return existing;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const token = `rvp_admin_${randomBytes(32).toString('base64url')}`;
  try {
    await writeFile(adminTokenPath(dataDir), `${token}\n`, { mode: 0o600, flag: 'wx' });
    return token;
  } catch (err) {
    // Another process created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (await readAdminToken(null, dataDir))!;
    throw err;
  }
}

/** Constant-time comparison (hashing first makes the lengths equal). */
export function tokenMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
