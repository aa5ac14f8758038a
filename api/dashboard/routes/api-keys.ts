/** Settings > API Keys (Owner, Admin): the same key records and rules as the admin API. */
import type { Context } from 'koa';
import { readJson } from '../../admin/body.ts';
import { createKey, keyListItem, parseExpiry } from '../../admin/keys.ts';
import type { Permission } from '../../auth/permissions.ts';
import { notFound } from '../../errors.ts';
import { audit } from '../audit.ts';
import { auth } from '../session.ts';
import { parseBody } from '../validate.ts';
import type { DashboardDeps } from './deps.ts';

export function listKeys({ store }: DashboardDeps) {
  return async function listKeys(ctx: Context): Promise<void> {
    const now = new Date();
    // Newest first: the key just made is at the top.
    ctx.body = { data: (await store.keys.listByOrg(auth(ctx).org.id)).map((k) => keyListItem(k, now)).reverse() };
  };
}

export function createApiKey({ store }: DashboardDeps) {
  return async function createApiKey(ctx: Context): Promise<void> {
    const { user, org } = auth(ctx);
    const body = parseBody<{ name: string; expiresAt?: string | null; mayInvite?: boolean }>('KeyCreate', await readJson(ctx));
    // The page sends the end of the chosen day in the person's time zone as a date-time; a bare date means the end of that day in UTC, as in the CLI.
    const expiresAt = body.expiresAt ? parseExpiry(body.expiresAt) : null;
    // "May send review invitations" (CONTRACT §14): every other key is read-only.
    const permissions: Permission[] = body.mayInvite === true ? ['reviews:read', 'invitations:write'] : ['reviews:read'];
    const created = await createKey(store, { orgId: org.id, name: body.name.trim(), expiresAt, permissions });
    await audit(store, org.id, user, 'key.created', { id: created.id, label: `${created.name} (${created.prefix}…)` }, { ...(expiresAt ? { expiresAt } : {}), permissions: permissions.join(', ') });
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = created;
  };
}

export function revokeApiKey({ store }: DashboardDeps) {
  return async function revokeApiKey(ctx: Context): Promise<void> {
    const { user, org } = auth(ctx);
    const existing = await store.keys.get(String(ctx.params.id));
    // Another organization's key is "not found", never "forbidden".
    if (!existing || existing.orgId !== org.id) throw notFound('API key');
    const key = await store.keys.revoke(existing.id, new Date());
    if (existing.revokedAt === null) await audit(store, org.id, user, 'key.revoked', { id: existing.id, label: `${existing.name} (${existing.prefix}…)` });
    ctx.body = { id: key!.id, state: 'revoked' };
  };
}
