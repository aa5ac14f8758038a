/**
 * What every developer API request passes, in CONTRACT §3's order: Bearer
 * authentication, then the plan check, then the organization's rate limit
 * (one Koa middleware, apiAccess: three layers cost three dispatches and
 * promises per request, issue 16). A key is
 * checked for shape and checksum before any store lookup; only its SHA-256 hash
 * is looked up. Failed attempts from one client address go through their own
 * limiter, so guessing keys runs into 429.
 *
 * Keys and organizations are read from the store on every request (no cache),
 * so revocation and plan changes take effect on the very next request on every
 * instance. After the handler the key is checked once more: a key revoked while
 * its request was in flight gets 401 instead of the answer. A store that sees
 * every key change (the embedded one) says whether any key changed meanwhile
 * (keys.changes); otherwise the key is read again.
 */
import type { Context, Next } from 'koa';
import { forbiddenPlan, unauthorized } from '../errors.ts';
import { hasApiAccess, requestsPerMinute } from '../limits/plans.ts';
import type { Limiter } from '../limits/rate-limit.ts';
import type { ApiKeyRecord, Organization, Store } from '../store/types.ts';
import { keyState } from '../store/types.ts';
import { bearerToken, hashKey, isWellFormedKey } from './key-format.ts';
import type { LastUsedTracker } from './last-used.ts';

export interface AuthState {
  key: ApiKeyRecord;
  org: Organization;
}

/** Failed authentications allowed per client address per minute. */
export const AUTH_FAILURES_PER_MINUTE = 30;

export interface ApiAccessDeps {
  store: Store;
  lastUsed: LastUsedTracker;
  /** Failed authentications, per client address. */
  authFailures: Limiter;
  /** The per-organization limit: the organization's override, else its plan's. */
  orgLimiter: Limiter;
}

export function apiAccess(deps: ApiAccessDeps) {
  const { store, lastUsed, authFailures, orgLimiter } = deps;

  const fail = async (ctx: Context): Promise<never> => {
    await authFailures.run(ctx, AUTH_FAILURES_PER_MINUTE, async () => {
      throw unauthorized();
    });
    throw unauthorized();
  };

  return async function apiAccess(ctx: Context, next: Next): Promise<void> {
    const token = bearerToken(ctx.get('authorization') || undefined);
    if (token === null || !isWellFormedKey(token)) return fail(ctx);
    // Taken before the key is read, so that any change after that read is seen below.
    const changes = store.keys.changes?.();
    const key = await store.keys.findByHash(hashKey(token));
    if (!key || keyState(key) !== 'active') return fail(ctx);
    const org = await store.orgs.get(key.orgId);
    if (!org) return fail(ctx);

    ctx.state.auth = { key, org } satisfies AuthState;
    lastUsed.touch(key.id, key.lastUsedAt);
    if (!hasApiAccess(org)) throw forbiddenPlan();
    await orgLimiter.run(ctx, requestsPerMinute(org), next);

    // No key created or revoked meanwhile (a store that sees every change): the key read above still
    // stands, only its expiry can have come. Otherwise it is read again.
    const current = changes !== undefined && store.keys.changes!() === changes ? key : await store.keys.get(key.id);
    if (!current || keyState(current) !== 'active') {
      ctx.state.log?.info({ keyId: key.id }, 'key revoked or expired during the request');
      throw unauthorized();
    }
  };
}
