/**
 * People (CONTRACT §6): creating, listing and removing users, shared by the
 * admin API (operators, the CLI) and the dashboard (invitations, Members).
 * A generated password is returned once and never stored in clear.
 */
import { ApiError, badRequest } from '../errors.ts';
import { newId } from '../store/ids.ts';
import { DuplicateEmailError, LastOwnerError, MembershipExistsError, RoleChangedError, normalizeEmail, ROLES, type Account, type Role, type SessionStore, type User } from '../store/people-types.ts';
import type { Store } from '../store/types.ts';
import { generatePassword, hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../dashboard/password.ts';
import { endUploadsOf, IMPORT_ROLES } from '../dashboard/routes/reviews-import.ts';
import { Checker, objectBody } from './validation.ts';

/** Deliberately loose (a dot in the domain, no spaces): the invitation link is the real check. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface UserInput {
  orgId: string;
  email: string;
  role: Role;
  /** null: generate one. */
  password: string | null;
  /**
   * The operator means the account this email already has (CLI
   * --existing-account): without it, an existing account is refused. Its
   * password was set by whoever accepted its first invitation, which without
   * SMTP_URL may have been an inviter in another organization, so adding it
   * is a decision made knowingly, never by default.
   */
  existingAccount?: boolean;
}

export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}

export const emailTaken = (): ApiError => new ApiError(409, 'conflict', 'A user with this email already exists.', [{ parameter: 'email', message: 'is already taken' }]);
export const alreadyMember = (): ApiError =>
  new ApiError(409, 'conflict', 'This person is already a member of the organization.', [{ parameter: 'email', message: 'is already a member' }]);

/** Adds a membership to an existing account (it proved who it is, or an operator asked); 409 when it is a member there already. */
export async function addMembership(store: Store, account: Account, orgId: string, role: Role): Promise<User | null> {
  try {
    return await store.people.users.addMembership(account.id, { orgId, role, createdAt: new Date().toISOString() });
  } catch (err) {
    if (err instanceof MembershipExistsError) throw alreadyMember();
    throw err;
  }
}

/** A user object returned whole (admin API, CLI): the account in one organization, and all its memberships. */
export function userWithMemberships(user: User, account: Account | null) {
  return { id: user.id, email: user.email, orgId: user.orgId, role: user.role, memberships: (account?.memberships ?? [user]).map((m) => ({ orgId: m.orgId, role: m.role })) };
}

export async function createUser(store: Store, input: UserInput): Promise<{ user: User; password: string | null }> {
  const generated = input.password === null ? generatePassword() : null;
  const user: User = {
    id: newId('usr'),
    orgId: input.orgId,
    email: input.email.trim(),
    emailKey: normalizeEmail(input.email),
    passwordHash: await hashPassword(input.password ?? generated!),
    role: input.role,
    createdAt: new Date().toISOString(),
    lastSignInAt: null,
  };
  try {
    await store.people.users.create(user);
  } catch (err) {
    if (err instanceof DuplicateEmailError) throw emailTaken();
    throw err;
  }
  return { user, password: generated };
}

export function parseUserCreate(raw: unknown): UserInput {
  const body = objectBody(raw);
  const check = new Checker();
  const orgId = check.string(body, 'orgId', { required: true, max: 64 });
  const email = check.string(body, 'email', { required: true, max: 254 });
  if (email && !EMAIL_PATTERN.test(email)) check.fail('email', 'is not an email address');
  const role = check.oneOf(body, 'role', ROLES, true);
  let password: string | null = null;
  if (body.password !== undefined && body.password !== null) {
    if (typeof body.password !== 'string') check.fail('password', 'must be a string');
    else {
      password = body.password;
      const problem = passwordProblem(password);
      if (problem) check.fail('password', problem);
    }
  }
  if (body.existingAccount !== undefined && typeof body.existingAccount !== 'boolean') check.fail('existingAccount', 'must be true or false');
  for (const key of Object.keys(body)) if (!['orgId', 'email', 'role', 'password', 'existingAccount'].includes(key)) check.fail(key, 'is not a known field');
  check.done();
  return { orgId: orgId!, email: email!, role: role!, password, existingAccount: body.existingAccount === true };
}

export function userListItem(user: User) {
  return { id: user.id, email: user.email, role: user.role, createdAt: user.createdAt, lastSignInAt: user.lastSignInAt };
}

const roleChanged = (): ApiError => new ApiError(409, 'conflict', "This member's role changed meanwhile: reload the list and try again.");
const lastOwner = (): ApiError => new ApiError(409, 'last_owner', 'An organization keeps at least one Owner: make another member Owner first.');

/**
 * The last Owner of an organization stays: the store refuses, in the same
 * atomic step as the change, a role change or removal that would leave no
 * Owner (LastOwnerError), whoever else is changing roles at the same moment.
 */
async function keepingAnOwner<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (err) {
    if (err instanceof LastOwnerError) throw lastOwner();
    if (err instanceof RoleChangedError) throw roleChanged();
    throw err;
  }
}

/** Whether someone with this role (null: no longer a member) may send an invitation for that role. */
export const mayInvite = (sender: Role | null, invited: Role): boolean => sender === 'owner' || (sender === 'admin' && invited !== 'owner');

/**
 * Voids, for good, the open invitations the user sent that their new role (or
 * their removal) no longer allows: a promotion later does not bring them back.
 */
async function voidInvitationsOf(store: Store, user: User, role: Role | null): Promise<void> {
  const at = new Date();
  for (const invitation of await store.people.invitations.listByOrg(user.orgId)) {
    if (invitation.invitedBy !== user.id || invitation.acceptedAt !== null || invitation.voidedAt !== null) continue;
    if (!mayInvite(role, invitation.role)) await store.people.invitations.void(invitation.id, at);
  }
}

/**
 * Changes a role; 409 last_owner when it would leave the organization without
 * an Owner. With `checkedOn`, the change happens only if the member still has
 * the role the caller's permission check was made on (`user.role`), else 409
 * conflict: an Admin allowed to demote an Admin never demotes someone made
 * Owner a moment before.
 */
export async function changeUserRole(store: Store, user: User, role: Role, checkedOn = false): Promise<User | null> {
  const updated = await keepingAnOwner(() => store.people.users.setRole(user.id, user.orgId, role, checkedOn ? user.role : undefined));
  await voidInvitationsOf(store, user, role);
  // Uploads check the role before each batch; this ends them at once in this process.
  if (!IMPORT_ROLES.includes(role)) await endUploadsOf(user.id, user.orgId);
  return updated;
}

/**
 * Removes the user's membership of `user.orgId` (their other organizations
 * keep them); 409 last_owner for the organization's last Owner. Every request
 * checks the membership of its session's organization, so access to this one
 * ends at once, and its sessions there end (the store's and, with Redis, the
 * shared ones); an account left with no membership is deleted and all its
 * sessions end.
 */
export async function removeUser(store: Store, sessions: SessionStore, user: User, checkedOn = false): Promise<void> {
  await keepingAnOwner(() => store.people.users.removeMembership(user.id, user.orgId, checkedOn ? user.role : undefined));
  await voidInvitationsOf(store, user, null);
  // The store's sessions went with the membership; the session store in use (Redis) is told too,
  // else a person added back before their next request found their old session working again.
  if ((await store.people.users.get(user.id)) === null) await sessions.removeByUser(user.id);
  else await sessions.removeByUserInOrg(user.id, user.orgId);
  await endUploadsOf(user.id, user.orgId);
}

export function invalidUserId(): ApiError {
  return badRequest('Not a user id.', [{ parameter: 'id', message: 'must look like usr_…' }]);
}
