/** Sign-in, sign-out, the session's own view, switching organizations, and accepting an invitation. */
import type { Context } from 'koa';
import { readJson } from '../../admin/body.ts';
import { addMembership, createUser, mayInvite } from '../../admin/users.ts';
import { ApiError, rateLimited } from '../../errors.ts';
import { hasApiAccess, requestsPerMinute } from '../../limits/plans.ts';
import type { Logger } from '../../logger.ts';
import { memberOf, type Account, type Invitation, type User } from '../../store/people-types.ts';
import type { Organization, Store } from '../../store/types.ts';
import { audit } from '../audit.ts';
import { DEVICE_COOKIE, DEVICE_COOKIE_SECONDS } from '../device-cookie.ts';
import { decoyHash, verifyPassword } from '../password.ts';
import { auth, PRESESSION_COOKIE, randomToken, readCookie, setCookie, sha256, startSession, type DashboardAuth } from '../session.ts';
import { SignInThrottle } from '../sign-in-throttle.ts';
import { parseBody } from '../validate.ts';
import type { DashboardDeps } from './deps.ts';

/** The organizations of the account (for the switcher), oldest membership first; ones since deleted left out. */
async function organizationsOf(store: Store, account: Account | null) {
  const out: Array<{ id: string; name: string; role: User['role'] }> = [];
  for (const m of account?.memberships ?? []) {
    const org = await store.orgs.get(m.orgId);
    if (org) out.push({ id: org.id, name: org.name, role: m.role });
  }
  return out;
}

async function sessionBody(store: Store, user: User | null, org: Organization | null, csrfToken: string) {
  return {
    user: user && { id: user.id, email: user.email, role: user.role },
    org: org && { id: org.id, name: org.name, plan: org.plan, apiAccess: hasApiAccess(org), requestsPerMinute: hasApiAccess(org) ? requestsPerMinute(org) : null },
    organizations: user ? await organizationsOf(store, await store.people.users.get(user.id)) : [],
    csrfToken,
  };
}

/** Signed in: the session's token. Not signed in: the pre-session token, set in its cookie here. */
export function showSession({ store }: DashboardDeps) {
  return async function showSession(ctx: Context): Promise<void> {
    const current = ctx.state.dashboard as DashboardAuth | undefined;
    if (current) {
      ctx.body = await sessionBody(store, current.user, current.org, current.session.csrfToken);
      return;
    }
    let token = readCookie(ctx, PRESESSION_COOKIE);
    if (token === null) {
      token = randomToken();
      setCookie(ctx, PRESESSION_COOKIE, token, 86_400);
    }
    ctx.body = await sessionBody(store, null, null, token);
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
    let account: Account | null = null;
    let user: User | null = null;
    let org: Organization | null = null;
    try {
      account = await store.people.users.findByEmail(body.email);
      // The same work and the same answer whether the email exists or not: no account discovery.
      const matches = await verifyPassword(body.password, account?.passwordHash ?? (await decoyHash()));
      // Signed in to the oldest membership whose organization still exists; the switcher goes to the others.
      if (account && matches) {
        for (const m of account.memberships) {
          org = await store.orgs.get(m.orgId);
          if (org) {
            user = memberOf(account, m.orgId);
            break;
          }
        }
      }
      failed = !user || !org;
    } finally {
      await attempt.settle(failed);
    }
    // The failure that locks a known person's email out is a security event the Owners of each of
    // their organizations read. Written once the answer has gone: its fsync in the response path
    // would time apart an email that has an account from one that has none.
    if (failed && account && attempt.locksOut) auditLockOutLater(ctx, store, account);
    if (failed || !user || !org) throw badCredentials();
    const previous = (ctx.state.dashboard as DashboardAuth | undefined)?.session ?? null;
    const { session } = await startSession(ctx, sessions, user, previous);
    setCookie(ctx, DEVICE_COOKIE, devices.issue(user.email), DEVICE_COOKIE_SECONDS);
    await store.people.users.updateAccount(user.id, { lastSignInAt: session.createdAt });
    // A security event the organization's Owners read in the audit log: who, and from where.
    await audit(store, org.id, user, 'security.signed_in', { id: user.id, label: user.email }, { address: ctx.ip });
    ctx.body = await sessionBody(store, { ...user, lastSignInAt: session.createdAt }, org, session.csrfToken);
  };
}

async function auditLockOut(store: Store, account: Account, address: string): Promise<void> {
  for (const m of account.memberships) {
    await audit(store, m.orgId, { userId: null, email: `sign-in from ${address}` }, 'security.locked_out', { id: account.id, label: account.email }, { address });
  }
}

/** The lock-out's audit records, written after the answer has gone out; a failure to write them is logged. */
function auditLockOutLater(ctx: Context, store: Store, account: Account): void {
  const address = ctx.ip;
  const log = ctx.state.log as Logger;
  afterResponse(ctx, () =>
    auditLockOut(store, account, address).catch((err: unknown) => log.error({ err, userId: account.id }, 'the security.locked_out audit record could not be written')),
  );
}

const notAMember = (): ApiError => new ApiError(404, 'not_found', 'You are not a member of that organization (any more).');

/** Switches the session to another organization of the person's: a new session there (the old one ends), its membership checked now and on every request. */
export function switchOrganization(deps: DashboardDeps) {
  const { store, sessions } = deps;
  return async function switchOrganization(ctx: Context): Promise<void> {
    const current = auth(ctx);
    const { orgId } = parseBody<{ orgId: string }>('OrganizationSwitch', await readJson(ctx));
    const user = await store.people.users.member(current.user.id, orgId);
    const org = user ? await store.orgs.get(orgId) : null;
    if (!user || !org) throw notAMember();
    const { session } = await startSession(ctx, sessions, user, current.session);
    ctx.body = await sessionBody(store, user, org, session.csrfToken);
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
  const sender = await deps.store.people.users.member(invitation.invitedBy, invitation.orgId);
  if (sender === null || !mayInvite(sender.role, invitation.role)) throw invitationGone();
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

/**
 * Accepts an invitation. Until a password is proven nothing tells an email
 * that has an account from one that has none: lookup answers the same, the
 * page asks for one password either way. A new email: that password becomes
 * the new account's. An email with an account: the password must be that
 * account's (checked as a sign-in is, through the same throttle, with the
 * same work and answer for a wrong one), then the membership is added to it.
 */
export function acceptInvitation(deps: DashboardDeps) {
  const { store, sessions, throttle, devices } = deps;
  return async function acceptInvitation(ctx: Context): Promise<void> {
    const body = parseBody<{ token: string; password: string }>('InvitationAccept', await readJson(ctx));
    const open = await openInvitation(deps, body.token);
    const org = await store.orgs.get(open.orgId);
    if (!org) throw invitationGone();
    const account = await store.people.users.findByEmail(open.email);
    if (account) await proveAccount(deps, ctx, account, body.password);
    // One-time: of two concurrent acceptances only one consumes it.
    const at = new Date();
    const invitation = await store.people.invitations.consume(open.id, at);
    if (!invitation) throw invitationGone();
    let user: User | null;
    try {
      user = account
        ? await addMembership(store, account, invitation.orgId, invitation.role)
        : (await createUser(store, { orgId: invitation.orgId, email: invitation.email, role: invitation.role, password: body.password })).user;
    } catch (err) {
      // The email got an account between the check and the creation: the invitation is given
      // back, and the retry asks for that account's password like any acceptance for it.
      if (!account && err instanceof ApiError && err.status === 409) {
        await store.people.invitations.reopen(invitation.id, at);
        throw new ApiError(409, 'conflict', 'This email has a Review Proof account now: enter the password you sign in with to accept the invitation.');
      }
      throw err;
    }
    // The account was deleted meanwhile (its last membership removed): the invitation is given back too.
    if (!user) {
      await store.people.invitations.reopen(invitation.id, at);
      throw new ApiError(409, 'conflict', 'Your account changed while accepting: try again.');
    }
    await audit(store, org.id, user, 'member.joined', { id: user.id, label: user.email }, { role: user.role });
    const previous = (ctx.state.dashboard as DashboardAuth | undefined)?.session ?? null;
    const { session } = await startSession(ctx, sessions, user, previous);
    if (account) setCookie(ctx, DEVICE_COOKIE, devices.issue(user.email), DEVICE_COOKIE_SECONDS);
    await store.people.users.updateAccount(user.id, { lastSignInAt: session.createdAt });
    ctx.body = await sessionBody(store, { ...user, lastSignInAt: session.createdAt }, org, session.csrfToken);
  };

  /** A sign-in in all but name: the throttle (per address, per email), the lock-out record, one answer for a wrong password. */
  async function proveAccount(deps: DashboardDeps, ctx: Context, account: Account, password: string): Promise<void> {
    await sessions.assertWritable?.();
    const trustedDevice = devices.verify(readCookie(ctx, DEVICE_COOKIE), account.email);
    const attempt = await throttle.begin(SignInThrottle.limits(account.email, ctx.ip, trustedDevice));
    if (attempt.retryAfter > 0) throw rateLimited(attempt.retryAfter, `Too many failed sign-ins: try again in ${Math.ceil(attempt.retryAfter / 60)} minute(s).`);
    let failed = true;
    try {
      failed = !(await verifyPassword(password, account.passwordHash));
    } finally {
      await attempt.settle(failed);
    }
    if (failed && attempt.locksOut) auditLockOutLater(ctx, deps.store, account);
    if (failed) throw new ApiError(401, 'invalid_credentials', 'This email has a Review Proof account already, and that is not its password: enter the password you sign in with.');
  }
}
