/** Sign-in, sign-out, the session's own view, and accepting an invitation. */
import type { Context } from 'koa';
import { readJson } from '../../admin/body.ts';
import { createUser, emailTaken, mayInvite } from '../../admin/users.ts';
import { ApiError, rateLimited } from '../../errors.ts';
import { hasApiAccess, requestsPerMinute } from '../../limits/plans.ts';
import type { Logger } from '../../logger.ts';
import type { Invitation, User } from '../../store/people-types.ts';
import type { Organization } from '../../store/types.ts';
import { audit } from '../audit.ts';
import { DEVICE_COOKIE, DEVICE_COOKIE_SECONDS } from '../device-cookie.ts';
import { decoyHash, verifyPassword } from '../password.ts';
import { PRESESSION_COOKIE, randomToken, readCookie, setCookie, sha256, startSession, type DashboardAuth } from '../session.ts';
import { SignInThrottle } from '../sign-in-throttle.ts';
import { parseBody } from '../validate.ts';
import type { DashboardDeps } from './deps.ts';

function sessionBody(user: User | null, org: Organization | null, csrfToken: string) {
  return {
    user: user && { id: user.id, email: user.email, role: user.role },
    org: org && { id: org.id, name: org.name, plan: org.plan, apiAccess: hasApiAccess(org), requestsPerMinute: hasApiAccess(org) ? requestsPerMinute(org) : null },
    csrfToken,
  };
}

/** Signed in: the session's token. Not signed in: the pre-session token, set in its cookie here. */
export function showSession() {
  return async function showSession(ctx: Context): Promise<void> {
    const current = ctx.state.dashboard as DashboardAuth | undefined;
    if (current) {
      ctx.body = sessionBody(current.user, current.org, current.session.csrfToken);
      return;
    }
    let token = readCookie(ctx, PRESESSION_COOKIE);
    if (token === null) {
      token = randomToken();
      setCookie(ctx, PRESESSION_COOKIE, token, 86_400);
    }
    ctx.body = sessionBody(null, null, token);
  };
}

/**
 * Runs `work` once the response has been sent (or the connection ended):
 * never part of what the client waits for, and started whatever the outcome.
 */
function afterResponse(ctx: Context, work: () => Promise<void>): void {
  ctx.res.once('close', () => void work());
}

const badCredentials = (): ApiError => new ApiError(401, 'invalid_credentials', 'The email or password is not correct.');

export function signIn(deps: DashboardDeps) {
  const { store, sessions, throttle, devices } = deps;
  return async function signIn(ctx: Context): Promise<void> {
    const body = parseBody<{ email: string; password: string }>('SignIn', await readJson(ctx));
    // Before the throttle and the password: while sessions cannot be stored every attempt is the
    // same 503 (a right password is not told from a wrong one) and no guess is counted or spent.
    await sessions.assertWritable?.();
    // A browser that signed in as this email before is exempt from the per-email limits.
    const trustedDevice = devices.verify(readCookie(ctx, DEVICE_COOKIE), body.email);
    const attempt = await throttle.begin(SignInThrottle.limits(body.email, ctx.ip, trustedDevice));
    const wait = attempt.retryAfter;
    if (wait > 0) throw rateLimited(wait, `Too many failed sign-ins: try again in ${Math.ceil(wait / 60)} minute(s).`);
    let failed = true;
    let user, org;
    try {
      user = await store.people.users.findByEmail(body.email);
      // The same work and the same answer whether the email exists or not: no account discovery.
      const matches = await verifyPassword(body.password, user?.passwordHash ?? (await decoyHash()));
      org = user && matches ? await store.orgs.get(user.orgId) : null;
      failed = !user || !matches || !org;
    } finally {
      await attempt.settle(failed);
    }
    // The failure that locks a known person's email out is a security event their Owners read.
    // Written once the answer has gone: its fsync in the response path would time apart an email
    // that has an account from one that has none.
    if (failed && user && attempt.locksOut) {
      const known = user;
      const address = ctx.ip;
      const log = ctx.state.log as Logger;
      afterResponse(ctx, () =>
        audit(store, known.orgId, { userId: null, email: `sign-in from ${address}` }, 'security.locked_out', { id: known.id, label: known.email }, { address }).then(
          () => undefined,
          (err: unknown) => log.error({ err, userId: known.id }, 'the security.locked_out audit record could not be written'),
        ),
      );
    }
    if (failed || !user || !org) throw badCredentials();
    const previous = (ctx.state.dashboard as DashboardAuth | undefined)?.session ?? null;
    const { session } = await startSession(ctx, sessions, user, previous);
    setCookie(ctx, DEVICE_COOKIE, devices.issue(user.email), DEVICE_COOKIE_SECONDS);
    const signedIn = (await store.people.users.update(user.id, { lastSignInAt: session.createdAt })) ?? user;
    // A security event the organization's Owners read in the audit log: who, and from where.
    await audit(store, org.id, user, 'security.signed_in', { id: user.id, label: user.email }, { address: ctx.ip });
    ctx.body = sessionBody(signedIn, org, session.csrfToken);
  };
}

export function signOut(deps: DashboardDeps) {
  return async function signOut(ctx: Context): Promise<void> {
    const { session } = ctx.state.dashboard as DashboardAuth;
    await deps.sessions.remove(session.id);
    setCookie(ctx, 'rp_session', '', 0);
    ctx.status = 204;
  };
}

const invitationGone = (): ApiError => new ApiError(404, 'invitation_invalid', 'This invitation link is not valid: it was used already, has expired, or was mistyped. Ask for a new one.');

async function openInvitation(deps: DashboardDeps, token: string): Promise<Invitation> {
  const invitation = await deps.store.people.invitations.get(sha256(token));
  if (!invitation || invitation.acceptedAt !== null || invitation.voidedAt !== null || Date.parse(invitation.expiresAt) <= Date.now()) throw invitationGone();
  // An invitation is only as good as its sender's standing now: one left open by
  // someone since removed or demoted (to regain access afterwards) is void. The
  // demotion or removal voided it in the store too (voidedAt), so a promotion
  // in between does not bring it back; this check covers the moment between.
  const sender = await deps.store.people.users.get(invitation.invitedBy);
  if (sender === null || sender.orgId !== invitation.orgId || !mayInvite(sender.role, invitation.role)) throw invitationGone();
  return invitation;
}

export function lookupInvitation(deps: DashboardDeps) {
  return async function lookupInvitation(ctx: Context): Promise<void> {
    const { token } = parseBody<{ token: string }>('InvitationToken', await readJson(ctx));
    const invitation = await openInvitation(deps, token);
    const org = await deps.store.orgs.get(invitation.orgId);
    if (!org) throw invitationGone();
    ctx.body = { email: invitation.email, role: invitation.role, organization: org.name, expiresAt: invitation.expiresAt };
  };
}

export function acceptInvitation(deps: DashboardDeps) {
  const { store, sessions } = deps;
  return async function acceptInvitation(ctx: Context): Promise<void> {
    const body = parseBody<{ token: string; password: string }>('InvitationAccept', await readJson(ctx));
    const open = await openInvitation(deps, body.token);
    const org = await store.orgs.get(open.orgId);
    if (!org) throw invitationGone();
    if (await store.people.users.findByEmail(open.email)) throw emailTaken();
    // One-time: of two concurrent acceptances only one consumes it.
    const invitation = await store.people.invitations.consume(open.id, new Date());
    if (!invitation) throw invitationGone();
    const { user } = await createUser(store, { orgId: invitation.orgId, email: invitation.email, role: invitation.role, password: body.password });
    await audit(store, org.id, user, 'member.joined', { id: user.id, label: user.email }, { role: user.role });
    const previous = (ctx.state.dashboard as DashboardAuth | undefined)?.session ?? null;
    const { session } = await startSession(ctx, sessions, user, previous);
    const signedIn = (await store.people.users.update(user.id, { lastSignInAt: session.createdAt })) ?? user;
    ctx.body = sessionBody(signedIn, org, session.csrfToken);
  };
}
