/**
 * What an API key may do (CONTRACT §14). Every key reads reviews; only a key
 * created with `invitations:write` may send review invitations. Keys stored
 * before permissions existed have none recorded and read as the default:
 * read-only.
 */
import type { Context, Next } from 'koa';
import { ApiError, badRequest } from '../errors.ts';
import { INVITATIONS_FORBIDDEN_MESSAGE } from '../openapi/error-schemas.ts';
import type { ApiKeyRecord } from '../store/types.ts';
import type { AuthState } from './authenticate.ts';

export const PERMISSIONS = ['reviews:read', 'invitations:write'] as const;
export type Permission = (typeof PERMISSIONS)[number];
export const DEFAULT_PERMISSIONS: readonly Permission[] = ['reviews:read'];

export function keyPermissions(key: Pick<ApiKeyRecord, 'permissions'>): readonly Permission[] {
  return key.permissions ?? DEFAULT_PERMISSIONS;
}

/**
 * Permissions as a caller gives them (an array, or the CLI's comma list),
 * in the canonical order; `reviews:read` is always held. A 400 names an
 * unknown one.
 */
export function parsePermissions(value: unknown): Permission[] {
  const list = typeof value === 'string' ? value.split(',').map((p) => p.trim()).filter(Boolean) : value;
  if (!Array.isArray(list) || list.some((p) => typeof p !== 'string' || !(PERMISSIONS as readonly string[]).includes(p))) {
    const message = `permissions must be a list of ${PERMISSIONS.join(', ')}`;
    throw badRequest(`${message}.`, [{ parameter: 'permissions', message }]);
  }
  const wanted = new Set<string>(['reviews:read', ...(list as string[])]);
  return PERMISSIONS.filter((p) => wanted.has(p));
}

/** After apiAccess: the key must hold the permission (403 with the contract's message otherwise). */
export function requireInvitationsWrite() {
  return async function requireInvitationsWrite(ctx: Context, next: Next): Promise<void> {
    const { key } = ctx.state.auth as AuthState;
    if (!keyPermissions(key).includes('invitations:write')) throw new ApiError(403, 'forbidden', INVITATIONS_FORBIDDEN_MESSAGE);
    await next();
  };
}
