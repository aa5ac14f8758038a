/**
 * Members: the list (everyone signed in), invitations, role changes and
 * removal (Owner, Admin). Only an Owner grants or takes away the Owner role;
 * the last Owner can be neither removed nor demoted.
 */
import type { Context } from 'koa';
import { readJson } from '../../admin/body.ts';
import { changeUserRole, removeUser, userListItem } from '../../admin/users.ts';
import { ApiError, notFound } from '../../errors.ts';
import type { Invitation, Role, User } from '../../store/people-types.ts';
import { normalizeEmail } from '../../store/people-types.ts';
import { audit } from '../audit.ts';
import { auth, randomToken, sha256 } from '../session.ts';
import { parseBody } from '../validate.ts';
import type { DashboardDeps } from './deps.ts';

export const INVITATION_DAYS = 7;

const ownerOnly = (): ApiError => new ApiError(403, 'forbidden_role', 'Only an Owner can give or take away the Owner role.');

export function listMembers({ store }: DashboardDeps) {
  return async function listMembers(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    const now = Date.now();
    const open = (await store.people.invitations.listByOrg(org.id)).filter((i) => i.acceptedAt === null && i.voidedAt === null && Date.parse(i.expiresAt) > now);
    ctx.body = {
      data: (await store.people.users.listByOrg(org.id)).map(userListItem),
      invitations: open.map((i) => ({ id: i.id, email: i.email, role: i.role, createdAt: i.createdAt, expiresAt: i.expiresAt })),
    };
  };
}

const mailFailed = (email: string): ApiError =>
  new ApiError(502, 'mail_failed', `The invitation could not be mailed to ${email}: the mail server refused it or could not be reached. No invitation was made; try again.`);

/**
 * Invites by email and role. With SMTP_URL the link is mailed and only
 * "sent to …" is answered; a mail that fails voids the invitation before the
 * 502 (never a link nobody received left open). Without it, the link is
 * answered, to pass on.
 */
export function invite({ store, config, mailer }: DashboardDeps) {
  return async function invite(ctx: Context): Promise<void> {
    const { user, org } = auth(ctx);
    const body = parseBody<{ email: string; role: Role }>('Invite', await readJson(ctx));
    if (body.role === 'owner' && user.role !== 'owner') throw ownerOnly();
    // Only this organization's own members are named: whether the email has an
    // account elsewhere is no business of the inviter (the invitee learns it on accepting).
    const existing = await store.people.users.findByEmail(body.email);
    if (existing && existing.memberships.some((m) => m.orgId === org.id)) {
      throw new ApiError(409, 'conflict', 'This person is already a member of the organization.', [{ parameter: 'email', message: 'is already a member' }]);
    }
    const token = randomToken();
    const now = Date.now();
    const invitation: Invitation = {
      id: sha256(token),
      orgId: org.id,
      email: body.email.trim(),
      emailKey: normalizeEmail(body.email),
      role: body.role,
      invitedBy: user.id,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + INVITATION_DAYS * 86_400_000).toISOString(),
      acceptedAt: null,
      voidedAt: null,
    };
    await store.people.invitations.create(invitation);
    // The token travels in the fragment: never sent to a server, never in a log or a Referer.
    const link = `${config.publicUrl}/dashboard/invitation#${token}`;
    if (mailer) {
      try {
        await mailer.sendInvitation({ to: invitation.email, organization: org.name, role: invitation.role, inviter: user.email, link, expiresAt: invitation.expiresAt });
      } catch (err) {
        await store.people.invitations.void(invitation.id, new Date());
        // What the relay said, never the mail (it holds the link).
        (ctx.state.log as { warn?: (o: object, m: string) => void } | undefined)?.warn?.({ smtpError: String((err as { code?: string }).code ?? (err as Error).name) }, 'invitation mail not sent');
        throw mailFailed(invitation.email);
      }
    }
    await audit(store, org.id, user, 'member.invited', { id: invitation.email, label: invitation.email }, { role: invitation.role, ...(mailer && { sent: 'mail' }) });
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt, mailed: mailer !== undefined, ...(!mailer && { link }) };
  };
}

async function member(deps: DashboardDeps, ctx: Context): Promise<User> {
  const target = await deps.store.people.users.member(String(ctx.params.id).slice(0, 64), auth(ctx).org.id);
  if (!target) throw notFound('Member');
  return target;
}

export function changeRole(deps: DashboardDeps) {
  return async function changeRole(ctx: Context): Promise<void> {
    const { user, org } = auth(ctx);
    const { role } = parseBody<{ role: Role }>('RoleChange', await readJson(ctx));
    const target = await member(deps, ctx);
    if ((role === 'owner' || target.role === 'owner') && user.role !== 'owner' && role !== target.role) throw ownerOnly();
    // Made only if the member still has the role this check was made on (the store compares, atomically).
    const updated = role === target.role ? target : await changeUserRole(deps.store, target, role, true);
    if (!updated) throw notFound('Member');
    if (role !== target.role) await audit(deps.store, org.id, user, 'member.role_changed', { id: target.id, label: target.email }, { from: target.role, to: role });
    ctx.body = userListItem(updated);
  };
}

export function removeMember(deps: DashboardDeps) {
  return async function removeMember(ctx: Context): Promise<void> {
    const { user, org } = auth(ctx);
    const target = await member(deps, ctx);
    if (target.role === 'owner' && user.role !== 'owner') throw ownerOnly();
    await removeUser(deps.store, deps.sessions, target, true);
    await audit(deps.store, org.id, user, 'member.removed', { id: target.id, label: target.email }, { role: target.role });
    ctx.status = 204;
  };
}

/** Revokes an open invitation for good; an Owner invitation only by an Owner (as only an Owner sends one). */
export function revokeInvitation({ store }: DashboardDeps) {
  return async function revokeInvitation(ctx: Context): Promise<void> {
    const { user, org } = auth(ctx);
    const invitation = await store.people.invitations.get(String(ctx.params.id));
    if (!invitation || invitation.orgId !== org.id || invitation.acceptedAt !== null || invitation.voidedAt !== null) throw notFound('Invitation');
    if (invitation.role === 'owner' && user.role !== 'owner') throw ownerOnly();
    // Null when it was accepted (or revoked) a moment ago: the store lets only one of them happen.
    if (!(await store.people.invitations.void(invitation.id, new Date()))) throw notFound('Invitation');
    await audit(store, org.id, user, 'member.invitation_revoked', { id: invitation.email, label: invitation.email }, { role: invitation.role });
    ctx.status = 204;
  };
}
