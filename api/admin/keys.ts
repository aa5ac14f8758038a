/** API keys: created with the full key shown once; only its hash is stored. */
import { generateKey } from '../auth/key-format.ts';
import { DEFAULT_PERMISSIONS, keyPermissions, parsePermissions, type Permission } from '../auth/permissions.ts';
import { badRequest } from '../errors.ts';
import { newId } from '../store/ids.ts';
import { keyState, type ApiKeyRecord, type Store } from '../store/types.ts';
import { Checker, objectBody } from './validation.ts';

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  name: string;
  createdAt: string;
  expiresAt: string | null;
  permissions: readonly Permission[];
}

export async function createKey(store: Store, input: { orgId: string; name: string; expiresAt: string | null; permissions?: readonly Permission[] }): Promise<CreatedKey> {
  const { key, prefix, hash } = generateKey();
  const record: ApiKeyRecord = {
    id: newId('key'),
    orgId: input.orgId,
    name: input.name,
    prefix,
    hash,
    createdAt: new Date().toISOString(),
    lastUsedAt: null,
    expiresAt: input.expiresAt,
    revokedAt: null,
    permissions: [...(input.permissions ?? DEFAULT_PERMISSIONS)],
  };
  await store.keys.create(record);
  return { id: record.id, key, prefix, name: record.name, createdAt: record.createdAt, expiresAt: record.expiresAt, permissions: keyPermissions(record) };
}

/**
 * `--expires`: an ISO 8601 date-time, or a date meaning the end of that day
 * (UTC). A time in the past is refused.
 */
export function parseExpiry(value: string, now = new Date()): string {
  let at: number;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    at = Date.parse(`${value}T23:59:59.999Z`);
    if (!Number.isNaN(at) && new Date(at).toISOString().slice(0, 10) !== value) at = Number.NaN;
  } else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    at = Date.parse(value);
    // Date.parse rolls impossible values over (2027-02-30 → March 2, 24:00 → next day): refuse them.
    const [, y, mo, d, h, mi, sec] = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(value)!;
    const probe = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec ?? 0)));
    const fieldsValid =
      probe.getUTCFullYear() === Number(y) && probe.getUTCMonth() === Number(mo) - 1 && probe.getUTCDate() === Number(d) && probe.getUTCHours() === Number(h) && probe.getUTCMinutes() === Number(mi) && probe.getUTCSeconds() === Number(sec ?? 0);
    if (!fieldsValid) at = Number.NaN;
  } else {
    at = Number.NaN;
  }
  if (Number.isNaN(at)) throw badRequest('expiresAt must be an ISO 8601 date (YYYY-MM-DD) or date-time with a time zone.', [{ parameter: 'expiresAt', message: 'not an ISO 8601 date or date-time' }]);
  if (at <= now.getTime()) throw badRequest('expiresAt is in the past.', [{ parameter: 'expiresAt', message: 'must be in the future' }]);
  return new Date(at).toISOString();
}

export function parseKeyCreate(raw: unknown): { orgId: string; name: string; expiresAt: string | null; permissions: Permission[] } {
  const body = objectBody(raw);
  const check = new Checker();
  const orgId = check.string(body, 'orgId', { required: true, max: 64 });
  const name = check.string(body, 'name', { required: true, max: 100 });
  const expires = check.string(body, 'expiresAt', { max: 64 });
  for (const key of Object.keys(body)) if (!['orgId', 'name', 'expiresAt', 'permissions'].includes(key)) check.fail(key, 'is not a known field');
  check.done();
  const permissions = body.permissions === undefined ? [...DEFAULT_PERMISSIONS] : parsePermissions(body.permissions);
  return { orgId: orgId!, name: name!, expiresAt: expires ? parseExpiry(expires) : null, permissions };
}

export function keyListItem(key: ApiKeyRecord, now = new Date()) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
    expiresAt: key.expiresAt,
    state: keyState(key, now),
    permissions: keyPermissions(key),
  };
}
