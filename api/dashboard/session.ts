/**
 * The dashboard's session rules, one named middleware each (CONTRACT §6):
 *
 * - `wholeBodyFirst`: a state-changing request's whole body (64 KiB at most)
 *   is read BEFORE the session and role are looked at, so that what a request
 *   may do is decided when it is complete: a request opened by someone since
 *   removed or demoted, its body held back until after, is judged by who they
 *   are then. (Only the streaming import skips it; it checks the uploader again
 *   before each batch it writes.)
 * - `loadSession`: the `rp_session` cookie (HttpOnly; Secure; SameSite=Lax;
 *   Path=/dashboard) holds only a random value; the store keeps its SHA-256.
 *   A session ends after 12 h without a request or 7 days after sign-in,
 *   whichever comes first, and at once when its user is removed from the
 *   session's organization: a session is in one organization at a time (the
 *   current one, switched by POST /session/organization), and the membership
 *   there is read on every request, so a role change also applies to the next
 *   one and a removal ends access at once, while the person's other
 *   memberships keep working.
 * - `sameOrigin`: a state-changing request must carry the dashboard's own
 *   Origin (PUBLIC_URL's). Browsers always send Origin on cross-origin and on
 *   non-GET requests, so a missing one is refused too.
 * - `csrfToken`: a state-changing request must also carry X-CSRF-Token: the
 *   session's token, or before sign-in the token of the `rp_csrf` cookie
 *   (a double submit whose value only the dashboard's own script can read,
 *   from GET /dashboard/api/session).
 * - `requireSession`, `requireRole(...)`: 401 / 403 before the handler runs.
 *
 * Bearer keys are never looked at here: the dashboard ignores them, as
 * /api/v1 ignores cookies.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { readBody } from '../admin/body.ts';
import { ApiError } from '../errors.ts';
import type { Role, Session, SessionStore, User } from '../store/people-types.ts';
import type { Organization, Store } from '../store/types.ts';

export const SESSION_COOKIE = 'rp_session';
export const PRESESSION_COOKIE = 'rp_csrf';
export const IDLE_MS = 12 * 3600_000;
export const ABSOLUTE_MS = 7 * 86_400_000;
/** lastSeenAt is written at most this often: idle expiry is to the minute, not a write per request. */
const TOUCH_EVERY_MS = 60_000;

export interface DashboardAuth {
  session: Session;
  user: User;
  org: Organization;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');
export const randomToken = (): string => randomBytes(32).toString('base64url');

export function readCookie(ctx: Context, name: string): string | null {
  const header = ctx.get('cookie');
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) {
      const value = part.slice(at + 1).trim();
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : null;
    }
  }
  return null;
}

/** Sets (or with maxAgeSeconds 0, clears) a dashboard cookie with the attributes of §6. */
export function setCookie(ctx: Context, name: string, value: string, maxAgeSeconds: number): void {
  ctx.append('Set-Cookie', `${name}=${value}; Path=/dashboard; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Lax`);
}

export const auth = (ctx: Context): DashboardAuth => {
  const found = ctx.state.dashboard as DashboardAuth | undefined;
  if (!found) throw signInRequired();
  return found;
};

export const signInRequired = (): ApiError => new ApiError(401, 'unauthenticated', 'Sign in to continue: your session has ended or you are not signed in.');
const csrfFailed = (why: string): ApiError => new ApiError(403, 'csrf_failed', `This request was refused: ${why}. Reload the dashboard and try again.`);

export function expired(session: Session, now: number): boolean {
  return Date.parse(session.expiresAt) <= now || Date.parse(session.lastSeenAt) + IDLE_MS <= now;
}

/**
 * A new session for a user who just proved who they are (sign-in or accepted
 * invitation), or who switches organizations, in `user.orgId`; returns the
 * cookie value.
 */
export async function startSession(ctx: Context, sessions: SessionStore, user: User, previous: Session | null): Promise<{ session: Session; token: string }> {
  // Replaced at sign-in: whatever session id the browser held before is ended (no fixation).
  if (previous) await sessions.remove(previous.id);
  const token = randomToken();
  const now = Date.now();
  const session: Session = {
    id: sha256(token),
    userId: user.id,
    orgId: user.orgId,
    csrfToken: randomToken(),
    createdAt: new Date(now).toISOString(),
    lastSeenAt: new Date(now).toISOString(),
    expiresAt: new Date(now + ABSOLUTE_MS).toISOString(),
  };
  await sessions.create(session);
  setCookie(ctx, SESSION_COOKIE, token, ABSOLUTE_MS / 1000);
  setCookie(ctx, PRESESSION_COOKIE, '', 0);
  return { session, token };
}

/** Reads a state-changing request's body into `ctx.state.body` (readJson parses that copy) before any session check. */
export function wholeBodyFirst() {
  return async function wholeBodyFirst(ctx: Context, next: Next): Promise<void> {
    if (!SAFE_METHODS.has(ctx.method)) ctx.state.body = await readBody(ctx);
    await next();
  };
}

export function loadSession(deps: { store: Store; sessions: SessionStore }) {
  const { store, sessions } = deps;
  return async function loadSession(ctx: Context, next: Next): Promise<void> {
    const token = readCookie(ctx, SESSION_COOKIE);
    if (token !== null) {
      const id = sha256(token);
      const session = await sessions.get(id);
      const now = Date.now();
      if (session && !expired(session, now)) {
        // The membership in the session's organization, now: removed there means signed out there.
        const user = await store.people.users.member(session.userId, session.orgId);
        const org = user ? await store.orgs.get(session.orgId) : null;
        if (user && org) {
          ctx.state.dashboard = { session, user, org } satisfies DashboardAuth;
          if (now - Date.parse(session.lastSeenAt) >= TOUCH_EVERY_MS) await sessions.touch(id, new Date(now));
        } else {
          await sessions.remove(id);
        }
      } else if (session) {
        await sessions.remove(id);
      }
    }
    await next();
  };
}

export function sameOrigin(publicUrl: string) {
  const expected = new URL(publicUrl).origin;
  return async function sameOrigin(ctx: Context, next: Next): Promise<void> {
    if (!SAFE_METHODS.has(ctx.method)) {
      const origin = ctx.get('origin');
      if (origin === '') throw csrfFailed('it has no Origin header');
      if (origin !== expected) throw csrfFailed(`it came from ${origin.slice(0, 100)}, not from ${expected}`);
    }
    await next();
  };
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function csrfToken() {
  return async function csrfToken(ctx: Context, next: Next): Promise<void> {
    if (!SAFE_METHODS.has(ctx.method)) {
      const presented = ctx.get('x-csrf-token');
      const current = ctx.state.dashboard as DashboardAuth | undefined;
      const expected = current ? current.session.csrfToken : readCookie(ctx, PRESESSION_COOKIE);
      if (presented === '' || expected === null || !equal(presented, expected)) throw csrfFailed('its CSRF token is missing or out of date');
    }
    await next();
  };
}

export function requireSession() {
  return async function requireSession(ctx: Context, next: Next): Promise<void> {
    auth(ctx);
    await next();
  };
}

const ROLE_NAMES: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

export function requireRole(...roles: Role[]) {
  const names = roles.map((r) => ROLE_NAMES[r]).join(' or ');
  return async function requireRole(ctx: Context, next: Next): Promise<void> {
    const { user } = auth(ctx);
    if (!roles.includes(user.role)) throw new ApiError(403, 'forbidden_role', `This needs the ${names} role; you are a ${ROLE_NAMES[user.role]}.`);
    await next();
  };
}
